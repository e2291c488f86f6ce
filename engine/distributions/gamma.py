"""torch.distributions.Gamma: concentration and rate; rsample differentiates through torch._standard_gamma."""

from __future__ import annotations

from typing import Any

import engine as torch
from engine.distributions import constraints
from engine.distributions.exp_family import ExponentialFamily
from engine.distributions.utils import finfo

__all__ = ["Gamma"]


def _standard_gamma(concentration: Any) -> Any:
    return torch._standard_gamma(concentration)


class Gamma(ExponentialFamily):
    """Gamma(concentration, rate): samples are torch's Marsaglia-Tsang draws divided by the rate."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self) -> Any:
        return self.concentration / self.rate

    @property
    def mode(self) -> Any:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Any:
        return self.concentration / self.rate.pow(2)

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        super().__init__(self._broadcast_params(concentration=concentration, rate=rate), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Gamma":
        return self._expand_params(Gamma, batch_shape, _instance, "concentration", "rate")

    def rsample(self, sample_shape: Any = torch.Size()) -> Any:
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=finfo(value.dtype).tiny)  # do not record in autograd graph
        return value

    def log_prob(self, value: Any) -> Any:
        value = torch.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (torch.xlogy(self.concentration, self.rate) + torch.xlogy(self.concentration - 1, value)
                - self.rate * value - torch.lgamma(self.concentration))

    def entropy(self) -> Any:
        return (self.concentration - torch.log(self.rate) + torch.lgamma(self.concentration)
                + (1.0 - self.concentration) * torch.digamma(self.concentration))

    @property
    def _natural_params(self) -> tuple:
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x: Any, y: Any) -> Any:
        return torch.lgamma(x + 1) + (x + 1) * torch.log(-y.reciprocal())
