"""torch.optim.Adam and AdamW: moment estimates with bias correction, optional AMSGrad and weight decay."""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from engine.optim import kernels as k
from engine.optim.optimizer import Optimizer, check, check_betas, check_fused, check_lr
from engine.tensor import Tensor


class Adam(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        check_lr(lr)
        check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        check_betas(betas)
        check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        check(all(isinstance(b, float) for b in betas[:2]) or all(isinstance(b, Tensor) for b in betas[:2]),
              "betas must be either both floats or both Tensors")
        for i in (0, 1):
            if isinstance(betas[i], Tensor):
                check(capturable or not foreach,
                      f"betas[{i}] as a Tensor is not supported for capturable=False and foreach=True")
                check(betas[i].numel() == 1, f"Tensor betas[{i}] must be 1-element")
        betas = tuple(b.squeeze() if isinstance(b, Tensor) and b.dim() != 0 else b for b in betas)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                                      capturable=capturable, differentiable=differentiable, fused=fused,
                                      decoupled_weight_decay=decoupled_weight_decay))
        check_fused(fused, foreach, differentiable)

    def _initial_state(self, p: Tensor, group: dict) -> dict:
        state = dict(step=k.count(), exp_avg=k.zeros(p), exp_avg_sq=k.zeros(p))
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = k.zeros(p)
        return state

    def _update(self, p: Tensor, state: dict, group: dict) -> None:
        lr, beta1, beta2 = (k.scalar(v) for v in (group["lr"], *group["betas"]))
        step = k.tick(state["step"])
        g = k.decay(p, k.grad(p, group), group, lr)
        m, v = state["exp_avg"], state["exp_avg_sq"]
        k.write(m, k.lerp(m._data, g, 1 - beta1))
        k.write(v, k.addcmul(v._data * k.cast(beta2, g), g, g, 1 - beta2), 2)  # mul_, addcmul_
        if group["amsgrad"]:
            peak = state["max_exp_avg_sq"]
            k.write(peak, np.maximum(peak._data, v._data))
            v = peak
        denom = k.sqrt(v._data) / k.cast((1 - beta2 ** step) ** 0.5, g) + k.cast(group["eps"], g)
        k.write_param(p, k.addcdiv(p._data, m._data, denom, -(lr / (1 - beta1 ** step))))


class AdamW(Adam):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
