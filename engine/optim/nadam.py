"""torch.optim.NAdam: Adam with Nesterov momentum and a momentum decay schedule."""

from __future__ import annotations

from typing import Any, Iterable

from engine.optim import kernels as k
from engine.optim.optimizer import Optimizer, check, check_betas, check_lr
from engine.tensor import Tensor


class NAdam(Optimizer):
    _capturable_tensors = "params, mu_products and state_steps"

    def __init__(self, params: Iterable[Any], lr: float = 2e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False) -> None:
        check_lr(lr)
        check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        check_betas(betas)
        check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        check(0.0 <= momentum_decay, f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay,
                                      decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                                      foreach=foreach, capturable=capturable, differentiable=differentiable))

    def _initial_state(self, p: Tensor, group: dict) -> dict:
        return dict(step=k.count(), mu_product=k.count(1.0), exp_avg=k.zeros(p), exp_avg_sq=k.zeros(p))

    def _update(self, p: Tensor, state: dict, group: dict) -> None:
        lr, (beta1, beta2), decay = k.scalar(group["lr"]), group["betas"], group["momentum_decay"]
        step = k.tick(state["step"])
        bias_correction2 = 1 - beta2 ** step
        g = k.decay(p, k.grad(p, group), group, lr)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * decay)))
        product = state["mu_product"]
        k.write(product, product._data * k.cast(mu, product._data))
        m, v = state["exp_avg"], state["exp_avg_sq"]
        k.write(m, k.lerp(m._data, g, 1 - beta1))
        k.write(v, k.addcmul(v._data * k.cast(beta2, g), g, g, 1 - beta2), 2)  # mul_, addcmul_
        denom = k.sqrt(v._data / k.cast(bias_correction2, g)) + k.cast(group["eps"], g)
        mu_product = float(product._data)
        k.write_param(p, k.addcdiv(p._data, g, denom, -lr * (1.0 - mu) / (1.0 - mu_product)))
        k.write_param(p, k.addcdiv(p._data, m._data, denom, (-lr * mu_next) / (1.0 - mu_product * mu_next)))
