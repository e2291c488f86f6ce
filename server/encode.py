"""Arrays to trace values (NaN and infinities as strings, big arrays summarised) and back.

Finite float32 values stay NumPy float32 scalars and arrays, which orjson writes itself (see
server.sandbox.traces.encode) in their shortest exact form; other floats are rounded to 7 significant
digits here."""

from __future__ import annotations

from typing import Any

import numpy as np
from orjson import loads as _parse

HEAD = 64  # elements kept from an array over the cap


# Rounding to 7 significant digits is formatting and parsing the number again: "%.6e" always writes
# a float literal (never an int's), and orjson parses a list of them at once, in C.
_ROUNDED = "%.6e"


def number(v: Any) -> Any:
    """One element: 7 significant digits for floats (float32 precision), exact ints and bools."""
    kind = type(v)
    if kind is float or kind is _F32S or kind is _F64S:
        v = float(v)
        if v - v == 0:  # finite
            return _parse(_ROUNDED % v)
        if v != v:
            return "NaN"
        return "Infinity" if v > 0 else "-Infinity"
    if kind is bool or isinstance(v, np.bool_):
        return bool(v)
    if kind is int or isinstance(v, np.integer):
        return int(v)
    if kind is complex or isinstance(v, np.complexfloating):
        return [number(v.real), number(v.imag)]  # a complex element: [real, imaginary]
    return number(float(v))


_F32S, _F64S = np.float32, np.float64
_DTYPE_NAMES: dict[np.dtype, str] = {}


def dtype_name(dtype: np.dtype) -> str:
    """str(dtype), cached: NumPy computes it anew on every call, which dominates encoding time."""
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = _DTYPE_NAMES[dtype] = str(dtype)
    return name


def numbers(flat: np.ndarray) -> Any:
    """number() of each element of a 1-d array: a copy of it when all are finite float32 numbers."""
    if flat.dtype is _F32:
        square = flat.dot(flat)  # finite exactly when every element is (or overflows: the slow path)
        if square - square == 0:
            return flat.copy()
        return [v if v - v == 0 else number(v) for v in flat]
    data = flat.tolist()
    if flat.dtype.kind == "f":
        total = sum(data)
        if total - total == 0:  # all finite (an overflowing sum just takes the general path)
            return _parse(_rounded_list(len(data)) % tuple(data))
    elif flat.dtype.kind in "iub":
        return data  # tolist() gives Python ints and bools already
    return [number(v) for v in data]


_LIST_FORMATS: dict[int, str] = {}


def _rounded_list(n: int) -> str:
    """The format writing n rounded numbers as a JSON list."""
    form = _LIST_FORMATS.get(n)
    if form is None:
        form = f"[{','.join([_ROUNDED] * n)}]"
        if n <= HEAD:
            _LIST_FORMATS[n] = form
    return form


def array(a: Any, cap: int) -> dict:
    """An ArrayValue dict for an ndarray (or Python number)."""
    if type(a) is not np.ndarray:
        a = np.asarray(a)
    if not a.shape:
        return {"shape": [], "dtype": dtype_name(a.dtype), "data": [number(a.item())]}
    flat = a.reshape(-1)
    value: dict[str, Any] = {"shape": list(a.shape), "dtype": dtype_name(a.dtype)}
    if flat.size <= cap:
        value["data"] = numbers(flat)
        return value
    value["data"] = numbers(flat[:min(cap, HEAD)])
    value["truncated"] = True
    if a.dtype.kind in "fiub":
        finite = flat[np.isfinite(flat)] if a.dtype.kind == "f" else flat
        if finite.size:
            value["min"] = number(finite.min())
            value["max"] = number(finite.max())
            value["mean"] = number(finite.astype(np.float64).mean())
    return value


def value(a: Any, cap: int) -> Any:
    """A Value: the bare number for a 0-d float32 array (or NumPy float32), else an ArrayValue."""
    kind = type(a)
    if kind is np.ndarray and not a.shape and a.dtype is _F32:
        a = a[()]
        kind = _F32S
    if kind is _F32S:
        return a if a - a == 0 else number(a)
    return array(a, cap)


_F32 = np.dtype(np.float32)
_SPECIAL = {"NaN": np.nan, "Infinity": np.inf, "-Infinity": -np.inf}


def _element(x: Any) -> Any:
    if isinstance(x, str):
        return _SPECIAL[x]
    if isinstance(x, list):
        return complex(_element(x[0]), _element(x[1]))
    return x


def to_numpy(v: Any) -> np.ndarray:
    """A trace Value back as an array (the kept elements only, when it was summarised)."""
    if not isinstance(v, dict):
        return np.array(_SPECIAL.get(v, v), np.float32)
    data = np.array([_element(x) for x in v["data"]], v["dtype"])
    return data if v.get("truncated") else data.reshape(v["shape"])


def scalar_or_array(v: Any, cap: int) -> Any:
    """Saved non-tensor attributes: numbers stay numbers, tuples become lists, arrays ArrayValues."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return number(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v
    if isinstance(v, (tuple, list)):
        if all(isinstance(x, (int, float, bool)) for x in v):
            return [number(x) for x in v]
        return str(v)
    if isinstance(v, np.ndarray):
        return array(v, cap)
    return str(v)
