"""torch.optim.Adadelta: steps scaled by the ratio of running root mean squares of updates and gradients."""

from __future__ import annotations

from typing import Any, Iterable

from engine.optim import kernels as k
from engine.optim.optimizer import Optimizer, check, check_lr
from engine.tensor import Tensor


class Adadelta(Optimizer):
    _capturable_on_xla = False

    def __init__(self, params: Iterable[Any], lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach: bool | None = None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False) -> None:
        check_lr(lr)
        check(0.0 <= rho <= 1.0, f"Invalid rho value: {rho}")
        check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      capturable=capturable, foreach=foreach, differentiable=differentiable))

    def _initial_state(self, p: Tensor, group: dict) -> dict:
        return dict(step=k.count(), square_avg=k.zeros(p), acc_delta=k.zeros(p))

    def _update(self, p: Tensor, state: dict, group: dict) -> None:
        rho, eps = group["rho"], group["eps"]
        k.tick(state["step"])
        g = k.l2(p, k.grad(p, group), group["weight_decay"])
        sq, acc = state["square_avg"], state["acc_delta"]
        k.write(sq, k.addcmul(sq._data * k.cast(rho, g), g, g, 1 - rho), 2)  # mul_, addcmul_
        std = k.sqrt(sq._data + k.cast(eps, g))
        delta = k.sqrt(acc._data + k.cast(eps, g)) / std * g
        k.write(acc, k.addcmul(acc._data * k.cast(rho, g), delta, delta, 1 - rho), 2)
        k.write_param(p, k.add(p._data, delta, -k.scalar(group["lr"])))
