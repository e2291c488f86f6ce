"""torch.optim.Rprop: per-element step sizes grown or shrunk by the sign agreement of successive gradients."""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from engine.optim import kernels as k
from engine.optim.optimizer import Optimizer, check, check_lr
from engine.tensor import Tensor


class Rprop(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-2, etas: tuple = (0.5, 1.2),
                 step_sizes: tuple = (1e-6, 50), *, capturable: bool = False, foreach: bool | None = None,
                 maximize: bool = False, differentiable: bool = False) -> None:
        check_lr(lr)
        check(0.0 < etas[0] < 1.0 < etas[1], f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _initial_state(self, p: Tensor, group: dict) -> dict:
        return dict(step=k.count(), prev=k.zeros(p), step_size=k.full(p, group["lr"]))

    def _update(self, p: Tensor, state: dict, group: dict) -> None:
        (eta_minus, eta_plus), (smallest, largest) = group["etas"], group["step_sizes"]
        k.tick(state["step"])
        g = k.grad(p, group)
        prev, size = state["prev"], state["step_size"]
        sign = np.sign(g * prev._data)
        minus = k.cast(eta_minus, g)
        factor = np.where(sign > 0, k.cast(eta_plus, g), np.where(sign < 0, minus, np.ones_like(g)))
        # step_size.mul_(sign).clamp_(min, max)
        k.write(size, np.clip(size._data * factor, k.cast(smallest, g), k.cast(largest, g)), 2)
        g = np.where(factor == minus, np.zeros_like(g), g)
        k.write_param(p, k.addcmul(p._data, np.sign(g), size._data, -1))
        k.write(prev, g)
