"""torch.optim.RMSprop: steps scaled by a running root mean square, optionally centered and with momentum."""

from __future__ import annotations

from typing import Any, Iterable

from engine.optim import kernels as k
from engine.optim.optimizer import Optimizer, check, check_lr
from engine.tensor import Tensor


class RMSprop(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 capturable: bool = False, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        check_lr(lr)
        check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        check(0.0 <= momentum, f"Invalid momentum value: {momentum}")
        check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        check(0.0 <= alpha, f"Invalid alpha value: {alpha}")
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                                      weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable))

    def _initial_state(self, p: Tensor, group: dict) -> dict:
        state = dict(step=k.count(), square_avg=k.zeros(p))
        if group["momentum"] > 0:
            state["momentum_buffer"] = k.zeros(p)
        if group["centered"]:
            state["grad_avg"] = k.zeros(p)
        return state

    def _update(self, p: Tensor, state: dict, group: dict) -> None:
        lr, alpha, momentum = k.scalar(group["lr"]), group["alpha"], group["momentum"]
        k.tick(state["step"])
        g = k.l2(p, k.grad(p, group), group["weight_decay"])
        sq = state["square_avg"]
        k.write(sq, k.addcmul(sq._data * k.cast(alpha, g), g, g, 1 - alpha), 2)  # mul_, addcmul_
        if group["centered"]:
            ga = state["grad_avg"]
            k.write(ga, k.lerp(ga._data, g, 1 - alpha))
            avg = k.sqrt(k.addcmul(sq._data, ga._data, ga._data, -1))
        else:
            avg = k.sqrt(sq._data)
        avg = avg + k.cast(group["eps"], g)
        if momentum > 0:
            buf = state["momentum_buffer"]
            k.write(buf, k.addcdiv(buf._data * k.cast(momentum, g), g, avg), 2)  # mul_, addcdiv_
            k.write_param(p, k.add(p._data, buf._data, -lr))
        else:
            k.write_param(p, k.addcdiv(p._data, g, avg, -lr))
