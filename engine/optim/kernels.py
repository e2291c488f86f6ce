"""Optimizer arithmetic on NumPy arrays, rounded as torch's CPU kernels round it; in-place tensor writes."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import dtypes, grad_mode, messages, observe
from engine.tensor import Tensor


def cast(value: Any, like: np.ndarray) -> np.ndarray:
    """A Python (or 0-d tensor) scalar in the array's dtype, as torch's kernels convert scalar arguments."""
    if like.dtype == dtypes.BF16:
        return dtypes.round_bf16(scalar(value))
    return np.asarray(scalar(value), like.dtype)


def scalar(value: Any) -> Any:
    """A tensor option (lr) as a NumPy scalar of its dtype: arithmetic with Python floats then rounds in that
    dtype, as torch's 0-d tensor arithmetic does. Numbers pass through."""
    return value._data.reshape(())[()] if isinstance(value, Tensor) else value


def fma(a: Any, b: Any, c: np.ndarray) -> np.ndarray:
    """a * b + c rounded once, as the fused multiply-adds of torch's vectorised kernels compute it."""
    if c.dtype == np.float32 or c.dtype == dtypes.BF16:  # bfloat16: computed in float32, then rounded
        wide = np.asarray(a, np.float32).astype(np.float64) * np.asarray(b, np.float32).astype(np.float64)
        out = (wide + c.astype(np.float64)).astype(np.float32)
        return out if c.dtype == np.float32 else dtypes.round_bf16(out)
    return np.asarray(np.asarray(a, c.dtype) * b + c, c.dtype)


def add(x: np.ndarray, other: np.ndarray, alpha: Any = 1) -> np.ndarray:
    """torch.add(x, other, alpha=alpha): one fused multiply-add."""
    return fma(cast(alpha, x), other, x)


def lerp(start: np.ndarray, end: np.ndarray, weight: Any) -> np.ndarray:
    """torch.lerp's kernel: fma(w, end - start, start) if |w| < 0.5, else fma(w - 1, end - start, end)."""
    w = cast(weight, start)
    diff = end - start
    return fma(w, diff, start) if abs(float(w)) < 0.5 else fma(w - np.asarray(1, start.dtype), diff, end)


def addcmul(x: np.ndarray, t1: np.ndarray, t2: np.ndarray, value: Any = 1) -> np.ndarray:
    """x + value * t1 * t2, with the last multiply and the add fused as torch's kernel compiles it."""
    return fma(cast(value, x) * t1, t2, x)


def addcdiv(x: np.ndarray, t1: np.ndarray, t2: np.ndarray, value: Any = 1) -> np.ndarray:
    """x + value * t1 / t2, in that order, as torch's addcdiv kernel."""
    return x + cast(value, x) * t1 / t2


def sqrt(x: np.ndarray) -> np.ndarray:
    """Square roots, correctly rounded (torch's MKL roots may differ in the last bit)."""
    return np.sqrt(x)


def write(t: Tensor, value: np.ndarray, bumps: int = 1) -> None:
    """Writes `value` into t's storage in place (views see it), counting the in-place ops torch performs."""
    dtypes.write(t._data, value)
    t._vc[0] += bumps


def write_param(p: Tensor, value: np.ndarray) -> None:
    """An in-place update of a parameter (or a gradient), reported like any in-place op to the tracer."""
    if grad_mode.state.enabled and p._requires_grad and p.grad_fn is None:
        raise RuntimeError(messages.LEAF_INPLACE)  # differentiable=True: torch keeps grad mode on
    write(p, value)
    if observe.current is not None:
        observe.current.inplace_applied(p, None)


def state_tensor(array: np.ndarray) -> Tensor:
    """Optimizer state is made of plain tensors, as in torch (never raw arrays: user code prints them)."""
    return Tensor._make(np.array(array))


def zeros(p: Tensor) -> Tensor:
    """torch.zeros_like(p) for the state."""
    return state_tensor(np.zeros_like(p._data))


def full(p: Tensor, value: Any) -> Tensor:
    """torch.full_like(p, value) for the state."""
    return state_tensor(np.full_like(p._data, scalar(value)))


def count(value: float = 0.0) -> Tensor:
    """torch's step counts and other state scalars: 0-d float32 tensors (float64 under that default)."""
    dtype = np.float64 if dtypes.default_float.np == np.float64 else np.float32
    return state_tensor(np.asarray(value, dtype))


def tick(step: Tensor) -> float:
    """step_t += 1, returning the new count as torch's _get_value does (a Python float)."""
    write(step, step._data + 1)
    return float(step._data)


def grad(p: Tensor, group: dict) -> np.ndarray:
    """The gradient to descend along: negated when the group maximizes."""
    g = p._grad._data
    return -g if group["maximize"] else g


def l2(p: Tensor, g: np.ndarray, weight_decay: float) -> np.ndarray:
    """grad.add(param, alpha=weight_decay) when there is weight decay."""
    return add(g, p._data, weight_decay) if weight_decay != 0 else g


def decay(p: Tensor, g: np.ndarray, group: dict, lr: float) -> np.ndarray:
    """Adam-like weight decay: param.mul_(1 - lr * wd) when decoupled, else L2 on the gradient."""
    wd = group["weight_decay"]
    if wd != 0 and group.get("decoupled_weight_decay"):
        write_param(p, p._data * cast(1 - lr * wd, p._data))
        return g
    return l2(p, g, wd)
