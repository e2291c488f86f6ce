"""torch.optim.RAdam: Adam with the variance of its adaptive learning rate rectified."""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from engine.optim import kernels as k
from engine.optim.optimizer import Optimizer, check, check_betas, check_lr
from engine.tensor import Tensor


class RAdam(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        check_lr(lr)
        check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        check_betas(betas)
        check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      differentiable=differentiable))

    def _initial_state(self, p: Tensor, group: dict) -> dict:
        return dict(step=k.count(), exp_avg=k.zeros(p), exp_avg_sq=k.zeros(p))

    def _update(self, p: Tensor, state: dict, group: dict) -> None:
        lr, (beta1, beta2) = k.scalar(group["lr"]), group["betas"]
        step = k.tick(state["step"])
        g = k.decay(p, k.grad(p, group), group, lr)
        m, v = state["exp_avg"], state["exp_avg_sq"]
        k.write(m, k.lerp(m._data, g, 1 - beta1))
        k.write(v, k.addcmul(v._data * k.cast(beta2, g), g, g, 1 - beta2), 2)  # mul_, addcmul_
        bias_correction2 = 1 - beta2 ** step
        update = m._data / k.cast(1 - beta1 ** step, g) * k.cast(lr, g)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            # (bias_correction2 ** 0.5) / tensor is tensor.reciprocal() * scalar in torch
            denom = k.sqrt(v._data) + k.cast(group["eps"], g)
            adaptive = np.reciprocal(denom) * k.cast(bias_correction2 ** 0.5, g)
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            update = update * adaptive * k.cast(rect, g)
        k.write_param(p, k.add(p._data, update, -1.0))
