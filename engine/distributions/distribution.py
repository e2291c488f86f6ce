"""torch.distributions.Distribution: shapes, argument and sample validation, repr."""

from __future__ import annotations

import warnings
from numbers import Number
from typing import Any

import engine as torch
from engine.distributions import constraints
from engine.distributions.utils import broadcast_all, lazy_property
from engine.tensor import Tensor

__all__ = ["Distribution"]


class Distribution:
    """The base class of probability distributions: batch_shape, event_shape, validate_args."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape: Any = torch.Size(), event_shape: Any = torch.Size(),
                 validate_args: bool | None = None) -> None:
        self._batch_shape = batch_shape
        self._event_shape = event_shape
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(f"{self.__class__} does not define `arg_constraints`. "
                              "Please set `arg_constraints = {}` or initialize the distribution "
                              "with `validate_args=False` to turn off validation.", stacklevel=2)
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue  # skip constraints that cannot be checked
                if param not in self.__dict__ and isinstance(getattr(type(self), param), lazy_property):
                    continue  # skip checking lazily-constructed args
                value = getattr(self, param)
                valid = constraint.check(value)
                if not bool(valid.all()):
                    raise ValueError(
                        f"Expected parameter {param} "
                        f"({type(value).__name__} of shape {tuple(value.shape)}) "
                        f"of distribution {self!r} "
                        f"to satisfy the constraint {constraint!r}, "
                        f"but found invalid values:\n{value}"
                    )
        super().__init__()

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Distribution":
        raise NotImplementedError

    @property
    def batch_shape(self) -> Any:
        return self._batch_shape

    @property
    def event_shape(self) -> Any:
        return self._event_shape

    @property
    def arg_constraints(self) -> dict:
        raise NotImplementedError

    @property
    def support(self) -> Any:
        raise NotImplementedError

    @property
    def mean(self) -> Tensor:
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def sample(self, sample_shape: Any = torch.Size()) -> Tensor:
        with torch.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = torch.Size()) -> Tensor:
        raise NotImplementedError

    def sample_n(self, n: int) -> Tensor:
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.", FutureWarning,
                      stacklevel=2)
        return self.sample(torch.Size((n,)))

    def log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        return torch.exp(self.entropy())

    def _extended_shape(self, sample_shape: Any = torch.Size()) -> Any:
        if not isinstance(sample_shape, torch.Size):
            sample_shape = torch.Size(sample_shape)
        return torch.Size(sample_shape + self._batch_shape + self._event_shape)

    def _validate_sample(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if value.size()[event_dim_start:] != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: {value.size()} vs "
                             f"{self._event_shape}.")
        actual_shape = value.size()
        expected_shape = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {actual_shape} vs "
                                 f"{expected_shape}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable "
                          "sample validation. Please initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=2)
            return
        valid = support.check(value)
        if not bool(valid.all()):
            raise ValueError(
                "Expected value argument "
                f"({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({support!r}) "
                f"of the distribution {self!r}, "
                f"but found invalid values:\n{value}"
            )

    def _broadcast_params(self, **params: Any) -> Any:
        """Sets each parameter (loc, scale...) broadcast against the others; returns the batch shape they give
        (empty when all are Python numbers)."""
        values = broadcast_all(*params.values())
        for name, value in zip(params, values):
            setattr(self, name, value)
        return torch.Size() if all(isinstance(v, Number) for v in params.values()) else values[0].size()

    def _expand_params(self, cls: type, batch_shape: Any, _instance: Any, *names: str) -> Any:
        """expand() of a distribution whose named parameters all have its batch shape."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = torch.Size(batch_shape)
        for name in names:
            setattr(new, name, getattr(self, name).expand(batch_shape))
        super(cls, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _get_checked_instance(self, cls: type, _instance: Any = None) -> Any:
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                                      "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self) -> str:
        param_names = [k for k in self.arg_constraints if k in self.__dict__]
        args_string = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
            for p in param_names
        )
        return self.__class__.__name__ + "(" + args_string + ")"
