"""torch.finfo and torch.iinfo (the limits of a dtype) and the memory formats (torch.contiguous_format...)."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import dtypes

# digits10 of each floating dtype: resolution is 10 ** -digits10, as in PyTorch
_DIGITS10 = {"float16": 3, "bfloat16": 2, "float32": 6, "float64": 15}
_BF16_MAX = 3.3895313892515355e38


def _dtype_argument(fn: str, args: tuple, kwargs: dict) -> dtypes.dtype | None:
    """The dtype passed to finfo()/iinfo() positionally or as `type`, with PyTorch's argument errors."""
    if len(args) + len(kwargs) > 1 or any(k != "type" for k in kwargs):
        raise TypeError(f"{fn}() takes at most 1 argument ({len(args) + len(kwargs)} given)")
    if not args and not kwargs:
        return None
    value = args[0] if args else kwargs["type"]
    if not isinstance(value, dtypes.dtype):
        where = " (position 1)" if args else ""
        raise TypeError(f"{fn}(): argument 'type'{where} must be torch.dtype, not {type(value).__name__}")
    return value


class _Info:
    """What finfo and iinfo share: read-only attributes, equality by value, unhashable (as in PyTorch)."""

    __slots__ = ("_values",)
    __hash__ = None  # type: ignore[assignment]

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "_values":
            object.__setattr__(self, name, value)
        elif name in self._values:
            raise AttributeError(f"attribute '{name}' of '{type(self).__name__}' objects is not writable")
        else:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __eq__(self, other: Any) -> bool:
        return type(other) is type(self) and self._values == other._values


class finfo(_Info):  # noqa: N801 - PyTorch's spelling
    """The limits of a floating-point dtype (torch.finfo(torch.float32).eps...)."""

    __slots__ = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        dt = _dtype_argument("finfo", args, kwargs)
        if dt is None:
            dt = dtypes.default_float
        dt = dt.to_real()  # a complex dtype: the limits of its parts
        if not dt.is_floating_point and dt is not dtypes.bfloat16:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'")
        if dt is dtypes.bfloat16:
            info = np.finfo(np.float32)
            eps, big, tiny, bits = 2.0 ** -7, _BF16_MAX, float(info.tiny), 16
        else:
            info = np.finfo(dt.np)
            eps, big, tiny, bits = float(info.eps), float(info.max), float(info.tiny), int(info.bits)
        self._values = {"bits": bits, "eps": eps, "max": big, "min": -big, "tiny": tiny, "smallest_normal": tiny,
                        "resolution": 10.0 ** -_DIGITS10[dt.name], "dtype": dt.name}

    bits = property(lambda self: self._values["bits"])
    eps = property(lambda self: self._values["eps"])
    max = property(lambda self: self._values["max"])
    min = property(lambda self: self._values["min"])
    tiny = property(lambda self: self._values["tiny"])
    smallest_normal = property(lambda self: self._values["smallest_normal"])
    resolution = property(lambda self: self._values["resolution"])
    dtype = property(lambda self: self._values["dtype"])

    def __repr__(self) -> str:
        v = self._values
        return (f"finfo(resolution={v['resolution']:g}, min={v['min']:g}, max={v['max']:g}, eps={v['eps']:g}, "
                f"smallest_normal={v['smallest_normal']:g}, tiny={v['tiny']:g}, dtype={v['dtype']})")


class iinfo(_Info):  # noqa: N801 - PyTorch's spelling
    """The limits of an integer dtype (torch.iinfo(torch.int64).max...)."""

    __slots__ = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if not args and not kwargs:
            raise TypeError('iinfo() missing 1 required positional arguments: "type"')
        dt = _dtype_argument("iinfo", args, kwargs)
        if dt is dtypes.bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if dt.is_floating_point or dt is dtypes.bfloat16:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(dt.np)
        self._values = {"bits": int(info.bits), "max": int(info.max), "min": int(info.min), "dtype": dt.name}

    bits = property(lambda self: self._values["bits"])
    max = property(lambda self: self._values["max"])
    min = property(lambda self: self._values["min"])
    dtype = property(lambda self: self._values["dtype"])

    def __repr__(self) -> str:
        v = self._values
        return f"iinfo(min={float(v['min']):g}, max={float(v['max']):g}, dtype={v['dtype']})"


class memory_format:  # noqa: N801 - PyTorch's spelling
    """How a tensor's elements are laid out in memory (torch.contiguous_format...)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    def __reduce__(self) -> str:
        return self._name


# C types named torch.X: errors and class reprs show 'torch.finfo' (builtins is left out of a class repr).
for _cls in (finfo, iinfo, memory_format):
    _cls.__name__ = _cls.__qualname__ = f"torch.{_cls.__name__}"
    _cls.__module__ = "builtins"

contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")


def is_contiguous_as(shape: tuple, strides: tuple, fmt: Any) -> bool:
    """Whether strides (in elements) are those of `fmt`'s layout: row-major, or channels last (NHWC, NDHWC)."""
    ndim = 4 if fmt is channels_last else 5
    if len(shape) != ndim:
        return False
    order = [1] + list(range(ndim - 1, 1, -1)) + [0]  # innermost first: C, then W, H(, D), then N
    expected = 1
    for d in order:
        if shape[d] != 1 and strides[d] != expected:
            return False
        expected *= shape[d]
    return True
