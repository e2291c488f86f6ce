"""torch.optim.Adamax: Adam with the infinity norm of past gradients in place of their root mean square."""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from engine.optim import kernels as k
from engine.optim.optimizer import Optimizer, check, check_betas, check_lr
from engine.tensor import Tensor


class Adamax(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 2e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, capturable: bool = False) -> None:
        check_lr(lr)
        check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        check_betas(betas)
        check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _initial_state(self, p: Tensor, group: dict) -> dict:
        return dict(step=k.count(), exp_avg=k.zeros(p), exp_inf=k.zeros(p))

    def _update(self, p: Tensor, state: dict, group: dict) -> None:
        beta1, beta2 = group["betas"]
        step = k.tick(state["step"])
        g = k.l2(p, k.grad(p, group), group["weight_decay"])
        m, u = state["exp_avg"], state["exp_inf"]
        k.write(m, k.lerp(m._data, g, 1 - beta1))
        # torch.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
        k.write(u, np.maximum(u._data * k.cast(beta2, g), np.abs(g) + k.cast(group["eps"], g)), 2)
        clr = k.scalar(group["lr"]) / (1 - beta1 ** step)
        k.write_param(p, k.addcdiv(p._data, m._data, u._data, -clr))
