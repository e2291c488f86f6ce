"""Tensor.view(dtype): the same bytes read as another dtype, with PyTorch's size and stride rules."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import dtypes
from engine.tensor import Tensor, _observe_new


def _bits(a: np.ndarray) -> np.ndarray:
    """A contiguous array of a's bytes in PyTorch's layout (bfloat16: the upper half of each float32)."""
    if a.dtype == dtypes.BF16:
        return (np.ascontiguousarray(a, dtype=np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)
    return np.ascontiguousarray(a)


def _from_bits(raw: np.ndarray, target: dtypes.dtype) -> np.ndarray:
    """Bytes laid out for PyTorch read as `target` (bfloat16 widened back to the engine's float32 form)."""
    if target is dtypes.bfloat16:
        wide = raw.view(np.uint16).astype(np.uint32) << np.uint32(16)
        return wide.view(np.float32).astype(dtypes.BF16)
    return raw.view(target.np)


class _Memory:
    """An array interface over another array's memory (np.asarray of it keeps that array alive)."""

    def __init__(self, interface: dict, base: np.ndarray) -> None:
        self.__array_interface__ = interface
        self.base = base


def _check(input: Tensor, source: dtypes.dtype, target: dtypes.dtype) -> None:
    """PyTorch's checks for a view between dtypes of different element sizes."""
    a = input._data
    what = f"to view {source.legacy} as {target.legacy} (different element sizes)"
    if a.ndim == 0:
        raise RuntimeError(f"self.dim() cannot be 0 {what}")
    strides = input.stride()
    if source.itemsize < target.itemsize:
        ratio = target.itemsize // source.itemsize
        if a.shape[-1] % ratio:
            raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {a.shape[-1]}")
        offset = input.storage_offset()
        if offset % ratio:
            raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but got {offset}")
    if strides[-1] != 1:
        raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
    if source.itemsize < target.itemsize:
        for i, s in enumerate(strides[:-1]):
            if s % ratio:
                raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} {what}, but got {s}")


def _reinterpret(a: np.ndarray, source: dtypes.dtype, target: dtypes.dtype) -> np.ndarray:
    """a's bytes as `target`, sharing a's memory where NumPy holds both dtypes as PyTorch does."""
    if dtypes.bfloat16 in (source, target):
        data = _from_bits(_bits(a).reshape(a.shape or (1,)).view(np.uint8), target)
        return data if a.ndim else data.reshape(())
    scale = source.itemsize / target.itemsize
    shape = a.shape if not a.ndim or scale == 1 else a.shape[:-1] + (int(a.shape[-1] * scale),)
    strides = tuple(int(s // a.itemsize * target.itemsize * scale) for s in a.strides[:-1])
    if a.ndim:
        strides += (a.strides[-1] if scale == 1 else target.itemsize,)
    interface = {"data": (a.__array_interface__["data"][0], not a.flags.writeable), "shape": shape,
                 "strides": strides, "typestr": target.np.str, "version": 3}
    return np.asarray(_Memory(interface, a))


def view_dtype(input: Tensor, *args: Any) -> Tensor:
    """x.view(dtype): not differentiable, and no view in autograd's sense (no _base), as in PyTorch; it
    shares x's memory and version counter (bfloat16 ones excepted: the engine keeps them as float32)."""
    if len(args) != 1 or not isinstance(args[0], dtypes.dtype):
        from engine.size_keywords import _combination, _name

        invalid = f"      didn't match because some of the arguments have invalid types: (!{_name(args[0])}!)\n"
        raise _combination("view", args, {}, (invalid,) * 2 if len(args) == 1 else ())
    target = args[0]
    source = input.dtype
    if source.itemsize != target.itemsize:
        _check(input, source, target)
    data = _reinterpret(input._data, source, target)
    t = Tensor._make(data, None, input._vc)
    if input._inference:
        t._inference = True
    _observe_new(t, input)
    return t
