"""torch.nn.utils' gradient clipping: rescale gradients to a total norm, or clamp them to a range."""

from __future__ import annotations

import math
import types
import warnings
from typing import Any

import numpy as np

from engine import creation
from engine.grad_mode import no_grad
from engine.optim import kernels as k
from engine.tensor import Tensor


def _tensors(parameters: Any) -> list:
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def _norm(x: np.ndarray, norm_type: float) -> np.ndarray:
    """torch.linalg.vector_norm of one array, in its dtype."""
    a = np.abs(x.reshape(-1))
    if math.isinf(norm_type):
        return (np.max if norm_type > 0 else np.min)(a)
    if norm_type == 0:
        return np.asarray(np.count_nonzero(a), x.dtype)
    if norm_type == 1:
        return np.sum(a)
    if norm_type == 2:
        return np.sqrt(np.sum(a * a))
    return np.sum(a ** norm_type) ** (1.0 / norm_type)


@no_grad()
def get_total_norm(tensors: Any, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The norm of all the tensors' elements together (the norm of their norms)."""
    arrays = [t._data for t in _tensors(tensors)]
    norm_type = float(norm_type)
    if not arrays:
        return creation.tensor(0.0)
    total = _norm(np.stack([_norm(a, norm_type) for a in arrays]), norm_type)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is "
                           "non-finite, so it cannot be clipped. To disable this error and scale the "
                           "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return creation.tensor(total)


@no_grad()
def clip_grads_with_norm_(parameters: Any, max_norm: float, total_norm: Tensor,
                          foreach: bool | None = None) -> None:
    """Scales every gradient by min(max_norm / (total_norm + 1e-6), 1), in place (even when that is 1)."""
    grads = [p._grad for p in _tensors(parameters) if p._grad is not None]
    if not grads:
        return
    norm = total_norm._data
    # float / tensor is tensor.reciprocal() * float in torch
    coef = np.reciprocal(norm + k.cast(1e-6, norm)) * k.cast(float(max_norm), norm)
    coef = np.minimum(coef, k.cast(1.0, norm))
    for g in grads:
        k.write_param(g, g._data * coef.astype(g._data.dtype))


@no_grad()
def clip_grad_norm_(parameters: Any, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Rescales the gradients so that their total norm is at most max_norm; returns that norm before."""
    is_generator = isinstance(parameters, types.GeneratorType)
    parameters = _tensors(parameters)
    if is_generator and not parameters:
        warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=3)
    grads = [p._grad for p in parameters if p._grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters: Any, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The deprecated name of clip_grad_norm_."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@no_grad()
def clip_grad_value_(parameters: Any, clip_value: float, foreach: bool | None = None) -> None:
    """Clamps every gradient to [-clip_value, clip_value] in place (clamp_min_, then clamp_max_)."""
    clip_value = float(clip_value)
    for g in [p._grad for p in _tensors(parameters) if p._grad is not None]:
        k.write(g, np.maximum(g._data, k.cast(-clip_value, g._data)))
        k.write_param(g, np.minimum(g._data, k.cast(clip_value, g._data)))
