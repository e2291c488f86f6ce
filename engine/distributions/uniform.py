"""torch.distributions.Uniform: the continuous uniform on [low, high)."""

from __future__ import annotations

import math
from typing import Any

import engine as torch
from engine.distributions import constraints
from engine.distributions.distribution import Distribution

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Uniform(low, high): rsample is low + torch.rand(shape) * (high - low)."""

    has_rsample = True

    @property
    def arg_constraints(self) -> dict:
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    @property
    def mean(self) -> Any:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Any:
        return math.nan * self.high

    @property
    def stddev(self) -> Any:
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self) -> Any:
        return (self.high - self.low).pow(2) / 12

    def __init__(self, low: Any, high: Any, validate_args: bool | None = None) -> None:
        super().__init__(self._broadcast_params(low=low, high=high), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Uniform":
        return self._expand_params(Uniform, batch_shape, _instance, "low", "high")

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> Any:
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape: Any = torch.Size()) -> Any:
        shape = self._extended_shape(sample_shape)
        rand = torch.rand(shape, dtype=self.low.dtype)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return torch.log(lb.mul(ub)) - torch.log(self.high - self.low)

    def cdf(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value: Any) -> Any:
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Any:
        return torch.log(self.high - self.low)
