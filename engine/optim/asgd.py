"""torch.optim.ASGD: stochastic gradient descent that also keeps a running average of the parameters."""

from __future__ import annotations

from typing import Any, Iterable

from engine.optim import kernels as k
from engine.optim.optimizer import Optimizer, check, check_lr
from engine.tensor import Tensor


class ASGD(Optimizer):
    _capturable_tensors = "params, mus, etas, and state_steps"

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0, foreach: bool | None = None,
                 maximize: bool = False, differentiable: bool = False, capturable: bool = False) -> None:
        check_lr(lr)
        check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _initial_state(self, p: Tensor, group: dict) -> dict:
        return dict(step=k.count(), eta=k.count(k.scalar(group["lr"])), mu=k.count(1.0), ax=k.zeros(p))

    def _update(self, p: Tensor, state: dict, group: dict) -> None:
        lr, lambd = k.scalar(group["lr"]), group["lambd"]
        step = k.tick(state["step"])
        g = k.l2(p, k.grad(p, group), group["weight_decay"])
        eta, mu, ax = state["eta"], state["mu"], state["ax"]
        eta_value = float(eta._data)
        k.write_param(p, p._data * k.cast(1 - lambd * eta_value, g))
        k.write_param(p, k.add(p._data, g, -eta_value))
        if float(mu._data) != 1:
            k.write(ax, ax._data + (p._data - ax._data) * mu._data.astype(g.dtype))
        else:
            k.write(ax, p._data)
        # torch.as_tensor of a Python float has the default dtype, then copy_ casts it to the state's
        new_eta = k.count(lr / ((1 + lambd * lr * step) ** group["alpha"]))._data
        k.write(eta, new_eta)
        k.write(mu, k.count(1 / max(1, step - group["t0"]))._data)
