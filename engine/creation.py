"""Tensor constructors: tensor, zeros, ones, full, arange, linspace, eye, rand, randn, randint."""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np

from engine import dtypes, observe
from engine.tensor import Tensor


def _finish(array: np.ndarray, requires_grad: bool, source: Any = None) -> Tensor:
    t = Tensor._make(array)
    if requires_grad:
        t.requires_grad_(True)
    if observe.current is not None:
        observe.current.tensor_created(t, source)
    return t


def _size(size: Sequence) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(int(s) for s in size[0])
    return tuple(int(s) for s in size)


def _unwrap(data: Any) -> Any:
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_unwrap(d) for d in data]
    return data


def tensor(data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    if isinstance(data, Tensor) and data._requires_grad:
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
    np_dtype = dtypes.to_numpy(dtype)
    array = np.array(_unwrap(data), dtype=np_dtype)
    if np_dtype is None:
        if array.dtype.kind == "f":
            array = array.astype(dtypes.default_float.np)
        elif array.dtype.kind in "iu":
            array = array.astype(np.int64)
        elif array.dtype.kind not in "b":
            raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    return _finish(array, requires_grad)


def as_tensor(data: Any, dtype: Any = None) -> Tensor:
    if isinstance(data, Tensor) and dtype is None:
        return data
    return tensor(data, dtype=dtype)


def _filled(fill: Any, size: Sequence, dtype: Any, requires_grad: bool) -> Tensor:
    np_dtype = dtypes.to_numpy(dtype) or dtypes.default_float.np
    return _finish(np.full(_size(size), fill, dtype=np_dtype), requires_grad)


def zeros(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return _filled(0, size, dtype, requires_grad)


def ones(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return _filled(1, size, dtype, requires_grad)


def empty(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return _filled(0, size, dtype, requires_grad)


def full(size: Sequence, fill_value: Any, dtype: Any = None, device: Any = None,
         requires_grad: bool = False) -> Tensor:
    if dtype is None:
        dtype = dtypes.bool_ if isinstance(fill_value, bool) else (
            dtypes.int64 if isinstance(fill_value, int) else dtypes.default_float)
    return _filled(fill_value, (tuple(size),), dtype, requires_grad)


def _like(fill: Any, input: Tensor, dtype: Any, requires_grad: bool) -> Tensor:
    np_dtype = dtypes.to_numpy(dtype) or input._data.dtype
    return _finish(np.full(input._data.shape, fill, dtype=np_dtype), requires_grad)


def zeros_like(input: Tensor, dtype: Any = None, requires_grad: bool = False, **_: Any) -> Tensor:
    return _like(0, input, dtype, requires_grad)


def ones_like(input: Tensor, dtype: Any = None, requires_grad: bool = False, **_: Any) -> Tensor:
    return _like(1, input, dtype, requires_grad)


def full_like(input: Tensor, fill_value: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return _like(fill_value, input, dtype, requires_grad)


def arange(start: Any, end: Any = None, step: Any = 1, dtype: Any = None, requires_grad: bool = False,
           device: Any = None) -> Tensor:
    if end is None:
        start, end = 0, start
    np_dtype = dtypes.to_numpy(dtype)
    if np_dtype is None:
        floating = any(isinstance(v, float) for v in (start, end, step))
        np_dtype = dtypes.default_float.np if floating else np.dtype(np.int64)
    return _finish(np.arange(start, end, step).astype(np_dtype), requires_grad)


def linspace(start: float, end: float, steps: int, dtype: Any = None, requires_grad: bool = False,
             device: Any = None) -> Tensor:
    np_dtype = dtypes.to_numpy(dtype) or dtypes.default_float.np
    return _finish(np.linspace(start, end, steps).astype(np_dtype), requires_grad)


def eye(n: int, m: int | None = None, dtype: Any = None, requires_grad: bool = False,
        device: Any = None) -> Tensor:
    np_dtype = dtypes.to_numpy(dtype) or dtypes.default_float.np
    return _finish(np.eye(n, m, dtype=np_dtype), requires_grad)
