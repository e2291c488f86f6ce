"""torch.optim.Adagrad: steps scaled by the root of the summed squared gradients, with lr decay."""

from __future__ import annotations

from typing import Any, Iterable

from engine.optim import kernels as k
from engine.optim.optimizer import Optimizer, check, check_fused, check_lr
from engine.tensor import Tensor


class Adagrad(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        check_lr(lr)
        check(0.0 <= lr_decay, f"Invalid lr_decay value: {lr_decay}")
        check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        check(0.0 <= initial_accumulator_value,
              f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, fused=fused))
        check_fused(fused, foreach, differentiable)
        for group in self.param_groups:  # torch fills the state at construction
            for p in group["params"]:
                self._state(p, group)

    def _initial_state(self, p: Tensor, group: dict) -> dict:
        # for parameters added after construction; torch takes the optimizer's default, not the group's
        return dict(step=k.count(), sum=k.full(p, self.defaults["initial_accumulator_value"]))

    def _update(self, p: Tensor, state: dict, group: dict) -> None:
        step = k.tick(state["step"])
        g = k.l2(p, k.grad(p, group), group["weight_decay"])
        clr = k.scalar(group["lr"]) / (1 + (step - 1) * group["lr_decay"])
        total = state["sum"]
        k.write(total, k.addcmul(total._data, g, g))
        std = k.sqrt(total._data) + k.cast(group["eps"], g)
        k.write_param(p, k.addcdiv(p._data, g, std, -clr))
