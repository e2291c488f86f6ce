"""torch.optim: SGD (momentum, weight decay) and Adam, updating leaf parameters in place."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any, Iterable

import numpy as np

from engine.grad_mode import no_grad
from engine.tensor import Tensor


class Optimizer:
    def __init__(self, params: Iterable[Any], defaults: dict) -> None:
        params = list(params)
        if params and isinstance(params[0], dict):
            groups = [dict(defaults, **g) for g in params]
        else:
            groups = [dict(defaults, params=params)]
        for group in groups:
            group["params"] = list(group["params"])
            for p in group["params"]:
                if not p.is_leaf:
                    raise ValueError("can't optimize a non-leaf Tensor")
        self.param_groups = groups
        self.defaults = defaults
        # Like torch: a defaultdict of per-parameter dicts holding tensors (buffers and step counts).
        self.state: defaultdict[Tensor, dict] = defaultdict(dict)

    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    p._grad.zero_()

    def _params_with_grad(self) -> Iterable[tuple[dict, Tensor]]:
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is not None:
                    yield group, p


class SGD(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0.0,
                 dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False,
                 maximize: bool = False) -> None:
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov, maximize=maximize))

    @no_grad()
    def step(self, closure: Any = None) -> Any:
        loss = closure() if closure is not None else None
        for group, p in self._params_with_grad():
            d = p._grad._data
            d = -d if group["maximize"] else d
            if group["weight_decay"]:
                d = d + group["weight_decay"] * p._data
            if group["momentum"]:
                state = self.state[p]
                buffer = state.get("momentum_buffer")
                if buffer is None:
                    buffer = state["momentum_buffer"] = _state_tensor(np.array(d, p._data.dtype, copy=True))
                else:
                    buf = buffer._data
                    buf *= group["momentum"]
                    buf += (1 - group["dampening"]) * d
                    buffer._vc[0] += 2  # torch's mul_ and add_
                buf = buffer._data
                d = d + group["momentum"] * buf if group["nesterov"] else buf
            p.add_(Tensor._make(np.asarray(d, p._data.dtype)), alpha=-group["lr"])
        return loss


class Adam(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0, amsgrad: bool = False,
                 maximize: bool = False) -> None:
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize))

    @no_grad()
    def step(self, closure: Any = None) -> Any:
        loss = closure() if closure is not None else None
        for group, p in self._params_with_grad():
            g = p._grad._data
            g = -g if group["maximize"] else g
            if group["weight_decay"]:
                g = g + group["weight_decay"] * p._data
            beta1, beta2 = group["betas"]
            state = self.state[p]
            if not state:
                state["step"] = _state_tensor(np.zeros((), np.float32))  # torch keeps a float32 count
                state["exp_avg"] = _state_tensor(np.zeros_like(p._data))
                state["exp_avg_sq"] = _state_tensor(np.zeros_like(p._data))
                if group["amsgrad"]:
                    state["max_exp_avg_sq"] = _state_tensor(np.zeros_like(p._data))
            state["step"]._data += 1
            state["step"]._vc[0] += 1
            step = state["step"].item()
            m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
            state["exp_avg"]._vc[0] += 1  # torch's lerp_
            state["exp_avg_sq"]._vc[0] += 2  # mul_ and addcmul_
            m += (1 - beta1) * (g - m)
            v *= beta2
            v += (1 - beta2) * g * g
            bias1 = 1 - beta1 ** step
            bias2_sqrt = math.sqrt(1 - beta2 ** step)
            if group["amsgrad"]:
                peak = state["max_exp_avg_sq"]._data
                np.maximum(peak, v, out=peak)
                state["max_exp_avg_sq"]._vc[0] += 1
                denom = np.sqrt(peak) / bias2_sqrt + group["eps"]
            else:
                denom = np.sqrt(v) / bias2_sqrt + group["eps"]
            update = (group["lr"] / bias1) * m / denom
            p.sub_(Tensor._make(np.asarray(update, p._data.dtype)))
        return loss


def _state_tensor(array: np.ndarray) -> Tensor:
    """Optimizer state is made of plain tensors, as in torch (never raw arrays: user code prints them)."""
    return Tensor._make(array)
