"""torch.fmax, fmin, copysign, erfc, i0, heaviside and their Tensor methods (in-place forms included)."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import ops
from engine.functions import _check_broadcast, _inplace, _unary, not_implemented_result
from engine.rules import apply
from engine.tensor import Tensor

erfc = _unary(ops.ERFC)
i0 = _unary(ops.I0)


def _tensor_arg(fn: str, value: Any, name: str = "other") -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position 2) must be Tensor, not {type(value).__name__}")


def fmax(input: Tensor, other: Tensor) -> Tensor:
    _tensor_arg("fmax", other)
    _check_broadcast(input, other)
    return apply(ops.FMAX, (input, other))


def fmin(input: Tensor, other: Tensor) -> Tensor:
    _tensor_arg("fmin", other)
    _check_broadcast(input, other)
    return apply(ops.FMIN, (input, other))


def copysign(input: Tensor, other: Any) -> Tensor:
    if isinstance(other, Tensor):
        _check_broadcast(input, other)
        return apply(ops.COPYSIGN, (input, other))
    return apply(ops.COPYSIGN_SCALAR, (input,), {"other": other})


def heaviside(input: Tensor, values: Tensor) -> Tensor:
    """0 below 0, 1 above, `values` at 0; no derivative in PyTorch."""
    _tensor_arg("heaviside", values, "values")
    if input._data.dtype != values._data.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    _check_broadcast(input, values)
    a = input._data
    out = np.where(a == 0, values._data, (a > 0).astype(a.dtype)).astype(a.dtype)
    return not_implemented_result("heaviside", np.asarray(out), (input, values))


def _copysign_(self: Tensor, other: Any) -> Tensor:
    if isinstance(other, Tensor):
        return _inplace(self, ops.COPYSIGN, (other,))
    return _inplace(self, ops.COPYSIGN_SCALAR, (), {"other": other})


def _heaviside_(self: Tensor, values: Tensor) -> Tensor:
    from engine.functions import copy_

    out = heaviside(self, values)
    return copy_(self, out)


METHODS = {
    "fmax": fmax, "fmin": fmin, "copysign": copysign, "copysign_": _copysign_, "erfc": erfc,
    "erfc_": lambda self: _inplace(self, ops.ERFC, ()), "i0": i0, "i0_": lambda self: _inplace(self, ops.I0, ()),
    "heaviside": heaviside, "heaviside_": _heaviside_,
}

