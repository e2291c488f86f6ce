"""torch.distributions.Laplace: the double exponential with loc and scale."""

from __future__ import annotations

from typing import Any

import engine as torch
from engine.distributions import constraints
from engine.distributions.distribution import Distribution
from engine.distributions.utils import finfo

__all__ = ["Laplace"]


class Laplace(Distribution):
    """Laplace(loc, scale): rsample inverts the CDF at uniform_(eps - 1, 1) draws."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self) -> Any:
        return self.loc

    @property
    def mode(self) -> Any:
        return self.loc

    @property
    def variance(self) -> Any:
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Any:
        return (2**0.5) * self.scale

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        super().__init__(self._broadcast_params(loc=loc, scale=scale), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Laplace":
        return self._expand_params(Laplace, batch_shape, _instance, "loc", "scale")

    def rsample(self, sample_shape: Any = torch.Size()) -> Any:
        shape = self._extended_shape(sample_shape)
        eps = finfo(self.loc.dtype).eps
        u = torch.empty(shape, dtype=self.loc.dtype).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * torch.log1p(-u.abs())

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return -torch.log(2 * self.scale) - torch.abs(value - self.loc) / self.scale

    def cdf(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * torch.expm1(-(value - self.loc).abs() / self.scale)

    def icdf(self, value: Any) -> Any:
        term = value - 0.5
        return self.loc - self.scale * (term).sign() * torch.log1p(-2 * term.abs())

    def entropy(self) -> Any:
        return 1 + torch.log(2 * self.scale)
