"""torch.distributions.Exponential: waiting times with a rate."""

from __future__ import annotations

from typing import Any

import engine as torch
from engine.distributions import constraints
from engine.distributions.exp_family import ExponentialFamily

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """Exponential(rate): rsample is exponential_() draws divided by the rate."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self) -> Any:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Any:
        return torch.zeros_like(self.rate)

    @property
    def stddev(self) -> Any:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Any:
        return self.rate.pow(-2)

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        super().__init__(self._broadcast_params(rate=rate), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Exponential":
        return self._expand_params(Exponential, batch_shape, _instance, "rate")

    def rsample(self, sample_shape: Any = torch.Size()) -> Any:
        shape = self._extended_shape(sample_shape)
        return torch.empty(shape, dtype=self.rate.dtype).exponential_() / self.rate

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return 1 - torch.exp(-self.rate * value)

    def icdf(self, value: Any) -> Any:
        return -torch.log1p(-value) / self.rate

    def entropy(self) -> Any:
        return 1.0 - torch.log(self.rate)

    @property
    def _natural_params(self) -> tuple:
        return (-self.rate,)

    def _log_normalizer(self, x: Any) -> Any:
        return -torch.log(-x)
