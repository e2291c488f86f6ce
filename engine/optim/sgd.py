"""torch.optim.SGD: gradient descent with optional momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from typing import Any, Iterable

from engine.optim import kernels as k
from engine.optim.optimizer import Optimizer, check, check_fused
from engine.tensor import Tensor


class SGD(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        check(not (isinstance(lr, Tensor) and lr.numel() != 1), "Tensor lr must be 1-element")
        check(not lr < 0.0, f"Invalid learning rate: {lr}")
        check(not momentum < 0.0, f"Invalid momentum value: {momentum}")
        check(not weight_decay < 0.0, f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable,
                        fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)

    def _state(self, p: Tensor, group: dict) -> Any:
        # without momentum torch keeps no state at all
        return self.state[p] if group["momentum"] != 0 else None

    def _update(self, p: Tensor, state: Any, group: dict) -> None:
        momentum = group["momentum"]
        d = k.l2(p, k.grad(p, group), group["weight_decay"])
        if momentum != 0:
            buffer = state.get("momentum_buffer")
            if buffer is None:
                buffer = state["momentum_buffer"] = k.state_tensor(d)
            else:
                # buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                k.write(buffer, k.add(buffer._data * k.cast(momentum, d), d, 1 - group["dampening"]), 2)
            d = k.add(d, buffer._data, momentum) if group["nesterov"] else buffer._data
        k.write_param(p, k.add(p._data, d, -k.scalar(group["lr"])))
