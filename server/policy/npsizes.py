"""The tensor element limit, applied to the arrays a snippet makes through the `numpy` facade.

A tensor larger than the run's element limit (server.limits.Limits.max_elements, 4,000,000 by default) stops
the run with "tensor size limit (4,000,000 elements) reached: ...". NumPy arrays made through the facade get the
same limit and the same message: `output_size` works out, before anything is allocated, how many elements a call
would make (constructors from a shape or a count, tile, repeat, outer, kron, broadcast_to, meshgrid, diag,
bincount, histogram, stacking, dot, matmul, and broadcasting functions such as np.add or np.where), and `check_result` checks
every array a call hands back (for what the estimate does not cover: einsum, tensordot...). Arithmetic operators on
arrays (`a * b`) do not go through a guard: for them the process's memory limit is the bound.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .errors import SandboxLimit

DEFAULT_MAX_ELEMENTS = 4_000_000  # server.limits.Limits.max_elements
_SHAPE_FIRST = frozenset({"zeros", "ones", "empty", "full"})
_LIKE = frozenset({"zeros_like", "ones_like", "full_like", "empty_like"})
_STACKING = frozenset({"stack", "concatenate", "vstack", "hstack", "column_stack"})
_PAIRS = frozenset({"outer", "kron"})


class ArraySizeLimit(SandboxLimit):
    """An array over the element limit (a BaseException, like every limit: `except Exception` cannot swallow it)."""

    status = "limit"
    error_type = "LimitReached"


def default_limit() -> int:
    return DEFAULT_MAX_ELEMENTS


def limit_from(observe: Any) -> Callable[[], int]:
    """The current run's element limit: the one the tracer attached to the engine (`observe.current.limits`)."""
    def limit() -> int:
        value = getattr(getattr(getattr(observe, "current", None), "limits", None), "max_elements", None)
        return value if type(value) is int and value > 0 else DEFAULT_MAX_ELEMENTS

    return limit


def refuse(limit: int, what: str, shape: Any) -> ArraySizeLimit:
    shown = list(shape) if isinstance(shape, (tuple, list)) else [shape]
    return ArraySizeLimit(f"tensor size limit ({limit:,} elements) reached: {what} would create an array of "
                          f"shape {shown}", "elements")


def _count(value: Any) -> int | None:
    """A non-negative int from a dimension or count argument, or None when it is not one (NumPy will say why)."""
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, np.integer)):
        return max(int(value), 0)
    return None


def _shape(value: Any) -> tuple[int, ...] | None:
    n = _count(value)
    if n is not None:
        return (n,)
    if isinstance(value, (tuple, list)):
        dims = tuple(_count(v) for v in value)
        if all(d is not None for d in dims):
            return dims  # type: ignore[return-value]
    return None


def _size(value: Any) -> int:
    try:
        return int(np.size(value))
    except Exception:  # noqa: BLE001 - ragged lists: NumPy raises its own error on the call
        return 0


def _arg(args: tuple, kwargs: dict, index: int, name: str, default: Any = None) -> Any:
    if len(args) > index:
        return args[index]
    return kwargs.get(name, default)


def _arange_count(args: tuple) -> int | None:
    nums = [a for a in args if not isinstance(a, (np.dtype, type, str)) and a is not None]
    try:
        if len(nums) == 1:
            start, stop, step = 0, nums[0], 1
        elif len(nums) == 2:
            start, stop, step = nums[0], nums[1], 1
        elif len(nums) >= 3:
            start, stop, step = nums[0], nums[1], nums[2]
        else:
            return None
        span = (complex(stop) - complex(start)).real / complex(step).real
        if not math.isfinite(span):
            return None
        return max(math.ceil(span), 0)
    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
        return None


def _repeat_size(args: tuple, kwargs: dict) -> int | None:
    a = _arg(args, kwargs, 0, "a")
    repeats = _arg(args, kwargs, 1, "repeats")
    axis = _arg(args, kwargs, 2, "axis")
    size = _size(a)
    try:
        reps = np.asarray(repeats, dtype=object).reshape(-1)
        counts = [max(int(r), 0) for r in reps]
    except (TypeError, ValueError, OverflowError):
        return None
    if len(counts) == 1:
        return size * counts[0]
    if axis is None:
        return sum(counts)
    try:
        along = np.shape(a)[axis]
    except (IndexError, TypeError, ValueError):
        return None
    return (size // along if along else 0) * sum(counts)


def output_size(name: str, args: tuple, kwargs: dict) -> tuple[int, Any] | None:
    """(elements, shape shown) of what numpy.`name`(*args, **kwargs) would allocate, when it can be told
    cheaply from the arguments; None otherwise. Elementwise functions (np.add, np.where...) are
    estimated by `broadcast_size`."""
    if name in _SHAPE_FIRST:
        shape = _shape(_arg(args, kwargs, 0, "shape"))
        return (math.prod(shape), shape) if shape is not None else None
    if name in _LIKE and "shape" in kwargs:
        shape = _shape(kwargs["shape"])
        return (math.prod(shape), shape) if shape is not None else None
    if name == "arange":
        n = _arange_count(args)
        return (n, (n,)) if n is not None else None
    if name in ("linspace", "logspace"):
        n = _count(_arg(args, kwargs, 2, "num", 50))
        return (n, (n,)) if n is not None else None
    if name in ("eye", "identity"):
        n = _count(_arg(args, kwargs, 0, "N"))
        m = _count(args[1]) if name == "eye" and len(args) > 1 and args[1] is not None else n
        return (n * m, (n, m)) if n is not None and m is not None else None
    if name == "tile":
        reps = _shape(_arg(args, kwargs, 1, "reps"))
        if reps is None:
            return None
        n = _size(_arg(args, kwargs, 0, "A")) * math.prod(reps)
        return n, (n,)
    if name == "repeat":
        n = _repeat_size(args, kwargs)
        return (n, (n,)) if n is not None else None
    if name in _PAIRS and len(args) >= 2:
        a, b = _size(args[0]), _size(args[1])
        return a * b, (a, b)
    if name == "broadcast_to":
        shape = _shape(_arg(args, kwargs, 1, "shape"))
        return (math.prod(shape), shape) if shape is not None else None
    if name == "meshgrid":
        sizes = tuple(_size(a) for a in args)
        n = math.prod(sizes) if sizes else 0
        return n * max(len(sizes), 1), sizes
    if name == "diag" and args and np.ndim(args[0]) == 1:
        k = kwargs.get("k", args[1] if len(args) > 1 else 0)
        n = _size(args[0]) + (abs(int(k)) if isinstance(k, (int, np.integer)) else 0)
        return n * n, (n, n)
    if name == "bincount" and args:
        try:
            top = int(np.max(args[0])) + 1 if _size(args[0]) else 0
        except (TypeError, ValueError, OverflowError):
            return None
        n = max(top, _count(kwargs.get("minlength", args[2] if len(args) > 2 else 0)) or 0)
        return n, (n,)
    if name == "histogram":
        n = _count(_arg(args, kwargs, 1, "bins"))
        return (n, (n,)) if n is not None else None
    if name in ("dot", "matmul") and len(args) >= 2:
        sa, sb = np.shape(args[0]), np.shape(args[1])
        if not sa or not sb:
            return None
        if len(sb) == 1:
            shape = sa[:-1]
        elif len(sa) == 1:
            shape = sb[:-2] + sb[-1:]
        else:  # dot's shape; for matmul, whose batch dims broadcast, at least as large
            shape = sa[:-1] + sb[:-2] + sb[-1:]
        return math.prod(shape), shape
    if name in _STACKING and args and isinstance(args[0], (tuple, list)):
        n = sum(_size(a) for a in args[0])
        return n, (n,)
    return None


def broadcast_size(args: tuple) -> tuple[int, Any] | None:
    """(elements, shape) of the broadcast of `args` (for elementwise functions), or None if they do not broadcast."""
    try:
        shape = np.broadcast_shapes(*(np.shape(a) for a in args))
    except (ValueError, TypeError):
        return None
    return math.prod(shape), shape


def check_result(value: Any, limit: int, what: str) -> None:
    """Every array in `value` (an array, or a tuple or list of them) within the element limit."""
    if isinstance(value, np.ndarray):
        if value.size > limit:
            raise refuse(limit, what, value.shape)
    elif type(value) in (list, tuple):
        for v in value:
            if isinstance(v, np.ndarray):
                check_result(v, limit, what)


__all__ = ["ArraySizeLimit", "DEFAULT_MAX_ELEMENTS", "broadcast_size", "check_result", "limit_from", "output_size",
           "refuse"]
