"""The NumPy arrays a snippet may hold: numeric arrays read through an attribute allowlist.

PyTorch tutorials call `t.detach().numpy()` to print, index, compare and do arithmetic, and some write
through it (`a = t.numpy(); a[0] = 5` changes `t`, without bumping `t._version`, in PyTorch too). A snippet
gets a view of the tensor's own array as a real `numpy.ndarray` (`shared_view`), so it prints, computes and
aliases exactly like NumPy and PyTorch. That is safe because what a snippet can do with an array is element
reads and writes inside its bounds and whole-array arithmetic: it can never re-point an array at other memory.
No attribute that reaches raw memory or changes the array's layout is readable or settable (`ctypes`, `data`,
`base`, `__array_interface__`, `strides`, `shape`/`dtype` assignment, `resize`, `setflags`, `view`,
`getfield`/`setfield`), no NumPy function that makes arbitrary-stride views is in the facade (`np.lib`,
`stride_tricks`, `frombuffer`, `ndarray(buffer=...)`), and a read-only array (an expanded tensor's) stays
read-only. Arrays the engine keeps outside tensors (an optimizer's momentum buffer) still come out as copies
(guards.check_value). Every attribute read on an array, a NumPy scalar or a NumPy dtype goes through
`array_getattr` and friends:

- data attributes: shape, ndim, size, T, dtype, itemsize, nbytes;
- methods (returned as `ArrayMethod` wrappers that check every argument and every result): tolist,
  item, sum, mean, min, max, argmax, argmin, round, copy, flatten, reshape, astype (numeric dtypes
  only), all, any, std, var, cumsum, clip, squeeze, transpose;
- anything else (tofile, dump, ctypes, view, base, data, flags, setflags, getfield, byteswap, resize,
  `__array_interface__`, ...) is refused.

Only numeric arrays (bool, int, uint, float, complex; no object, string, void or datetime dtypes, no
structured or subarray dtypes) are usable at all: an array of any other dtype, should arithmetic ever
produce one, is inert (every attribute, item and method refused). Subclasses of ndarray (memmap,
matrix, recarray) are never accepted.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import PolicyError

NUMERIC_KINDS = frozenset("biufc")

ARRAY_DATA_ATTRS = frozenset({"shape", "ndim", "size", "T", "dtype", "itemsize", "nbytes"})
ARRAY_METHODS = frozenset({
    "tolist", "item", "sum", "mean", "min", "max", "argmax", "argmin", "round", "copy", "flatten",
    "reshape", "astype", "all", "any", "std", "var", "cumsum", "clip", "squeeze", "transpose",
})
SCALAR_DATA_ATTRS = frozenset({"shape", "ndim", "size", "dtype", "itemsize", "real", "imag"})
SCALAR_METHODS = frozenset({"item", "tolist", "round", "astype", "is_integer", "conjugate"})
DTYPE_ATTRS = frozenset({"name", "kind", "itemsize", "char", "str"})

# Keyword arguments each method accepts (never `out`, `where`, `casting`, `subok` or ufunc extras).
_KWARGS: dict[str, frozenset[str]] = {
    "tolist": frozenset(), "item": frozenset(), "copy": frozenset({"order"}),
    "flatten": frozenset({"order"}), "reshape": frozenset({"order", "shape"}),
    "astype": frozenset({"dtype", "order", "copy"}), "squeeze": frozenset({"axis"}),
    "transpose": frozenset(), "round": frozenset({"decimals"}),
    "clip": frozenset({"min", "max", "a_min", "a_max"}),
    "sum": frozenset({"axis", "dtype", "keepdims"}), "mean": frozenset({"axis", "dtype", "keepdims"}),
    "min": frozenset({"axis", "keepdims"}), "max": frozenset({"axis", "keepdims"}),
    "argmax": frozenset({"axis", "keepdims"}), "argmin": frozenset({"axis", "keepdims"}),
    "all": frozenset({"axis", "keepdims"}), "any": frozenset({"axis", "keepdims"}),
    "std": frozenset({"axis", "dtype", "ddof", "keepdims"}), "var": frozenset({"axis", "dtype", "ddof", "keepdims"}),
    "cumsum": frozenset({"axis", "dtype"}), "is_integer": frozenset(), "conjugate": frozenset(),
}
# Positional arguments each method accepts (so `out` can never be passed positionally either).
_MAX_POSITIONAL: dict[str, int] = {
    "tolist": 0, "item": 32, "copy": 1, "flatten": 1, "reshape": 32, "astype": 2, "squeeze": 1,
    "transpose": 32, "round": 1, "clip": 2, "sum": 2, "mean": 2, "min": 1, "max": 1, "argmax": 1,
    "argmin": 1, "all": 1, "any": 1, "std": 2, "var": 2, "cumsum": 2, "is_integer": 0, "conjugate": 0,
}
_ORDERS = frozenset({"C", "F", "A", "K"})
_PYTHON_DTYPES = (bool, int, float, complex)
_MAX_ARG_DEPTH = 4


def is_numeric_dtype(dt: Any) -> bool:
    return (isinstance(dt, np.dtype) and dt.kind in NUMERIC_KINDS and not dt.hasobject
            and dt.fields is None and dt.subdtype is None)


def is_plain_array(value: Any) -> bool:
    """A real ndarray (not a subclass) of a numeric dtype."""
    return type(value) is np.ndarray and is_numeric_dtype(value.dtype)


def is_plain_scalar(value: Any) -> bool:
    return isinstance(value, np.generic) and is_numeric_dtype(value.dtype)


def numeric_dtype(spec: Any) -> np.dtype:
    """`spec` as a NumPy dtype if it names a numeric one (float, 'float32', 'i8', arr.dtype...)."""
    ok = (spec in _PYTHON_DTYPES or issubclass(spec, np.generic) if isinstance(spec, type) else
          type(spec) is str and len(spec) <= 16 or isinstance(spec, np.dtype))
    if ok:
        try:
            dt = np.dtype(spec)
        except (TypeError, ValueError):
            dt = None
        if dt is not None and is_numeric_dtype(dt):
            return dt
    raise PolicyError(f"only numeric dtypes are allowed here (bool, int, float, complex), not {_shown(spec)}")


def _shown(value: Any) -> str:
    if type(value) is str:
        return repr(value[:20])
    if isinstance(value, type):
        return value.__name__
    return type(value).__name__


def _check_arg(value: Any, depth: int = 0) -> Any:
    """Arguments to array methods: numbers, None, short strings, int tuples/lists, numeric arrays."""
    if value is None or type(value) in (bool, int, float, complex):
        return value
    if type(value) is str:
        if value in _ORDERS:
            return value
        return numeric_dtype(value)
    if isinstance(value, type):
        return numeric_dtype(value)
    if isinstance(value, np.dtype):
        return numeric_dtype(value)
    if is_plain_array(value) or is_plain_scalar(value):
        return value
    if type(value) in (tuple, list) and depth < _MAX_ARG_DEPTH and len(value) <= 64:
        return type(value)(_check_arg(v, depth + 1) for v in value)
    raise PolicyError(f"this argument is not allowed for a NumPy array method: {_shown(value)}")


def check_result(value: Any) -> Any:
    """What an array method hands back must be a numeric array, a NumPy or Python number, or a
    (nested) list/tuple of those."""
    if value is None or type(value) in (bool, int, float, complex, str):
        return value
    if is_plain_array(value) or is_plain_scalar(value):
        return value
    if type(value) in (list, tuple):
        for v in value:
            check_result(v)
        return value
    raise PolicyError(f"a NumPy array method returned a {type(value).__name__}, which is not allowed")


class ArrayMethod:
    """A bound, allowlisted method of a NumPy array or scalar (what `arr.sum` returns)."""

    __slots__ = ("_target", "_name")

    def __init__(self, target: Any, name: str) -> None:
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_name", name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise PolicyError("methods are read-only")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = self._name
        if len(args) > _MAX_POSITIONAL.get(name, 0):
            raise PolicyError(f"too many arguments for '{name}' on a NumPy array")
        allowed = _KWARGS.get(name, frozenset())
        for key in kwargs:
            if key not in allowed:
                raise PolicyError(f"'{name}' on a NumPy array does not accept '{key}' here")
        args = tuple(_check_arg(a) for a in args)
        kwargs = {k: _check_arg(v) for k, v in kwargs.items()}
        if name == "astype":
            dtype = kwargs.pop("dtype", None) if not args else args[0]
            if dtype is None:
                raise TypeError("astype() missing required argument 'dtype' (pos 0)")
            args = (numeric_dtype(dtype),) + args[1:]
        elif "dtype" in kwargs and kwargs["dtype"] is not None:
            kwargs["dtype"] = numeric_dtype(kwargs["dtype"])
        elif name in ("sum", "mean", "std", "var", "cumsum") and len(args) >= 2 and args[1] is not None:
            args = (args[0], numeric_dtype(args[1]))
        return check_result(getattr(self._target, name)(*args, **kwargs))

    def __repr__(self) -> str:
        return f"<built-in method {self._name} of {_type_label(self._target)} object>"


def _type_label(obj: Any) -> str:
    tp = type(obj)
    return f"numpy.{tp.__name__}" if tp is np.ndarray else tp.__name__


def array_getattr(arr: np.ndarray, name: str) -> Any:
    if not is_plain_array(arr):
        raise PolicyError(f"NumPy arrays of dtype {arr.dtype.name!s} cannot be used (only numeric arrays)")
    if name in ARRAY_DATA_ATTRS:
        return check_result(getattr(arr, name)) if name != "dtype" else arr.dtype
    if name in ARRAY_METHODS:
        return ArrayMethod(arr, name)
    raise PolicyError(f"'ndarray.{name}' is not allowed (NumPy arrays expose only shape, ndim, size, T, "
                      "dtype and a few numeric methods such as tolist, item, sum and reshape)")


def scalar_getattr(value: np.generic, name: str) -> Any:
    if not is_plain_scalar(value):
        raise PolicyError(f"NumPy scalars of type {type(value).__name__} cannot be used")
    if name in SCALAR_DATA_ATTRS:
        return check_result(getattr(value, name)) if name != "dtype" else value.dtype
    if name in SCALAR_METHODS and hasattr(value, name):
        return ArrayMethod(value, name)
    raise PolicyError(f"'{type(value).__name__}.{name}' is not allowed")


def dtype_getattr(dt: np.dtype, name: str) -> Any:
    if not is_numeric_dtype(dt):
        raise PolicyError("only numeric NumPy dtypes can be used")
    if name in DTYPE_ATTRS:
        value = getattr(dt, name)
        if type(value) in (str, int):
            return value
    raise PolicyError(f"'dtype.{name}' is not allowed (a NumPy dtype exposes only name, kind, itemsize, "
                      "char and str)")


def item_of_array(arr: np.ndarray, key: Any) -> Any:
    """`arr[key]` for a snippet: views and numbers only, of numeric arrays only."""
    if not is_plain_array(arr):
        raise PolicyError(f"NumPy arrays of dtype {arr.dtype.name!s} cannot be used (only numeric arrays)")
    return check_result(arr[key])


def fresh_copy(value: Any) -> np.ndarray:
    """A snippet's own copy of an array (C order, writeable, owning its memory)."""
    out = np.array(value, copy=True, order="C")
    if not is_plain_array(out):
        raise PolicyError("only numeric NumPy arrays can be handed to a snippet")
    return out


def shared_view(value: Any) -> np.ndarray:
    """What `t.numpy()` gives a snippet: a plain view of the tensor's numeric array (a copy of anything else)."""
    if is_plain_array(value):
        return value.view()
    return fresh_copy(value)


def _warm() -> None:
    """Run what snippets reach once, at import. NumPy imports some helpers lazily (array repr,
    printing options) through `__import__`, and inside a snippet that is the policy's import, which
    refuses NumPy: those imports must already be cached before any snippet runs."""
    samples = [np.arange(6).astype(dt).reshape(2, 3) for dt in (np.float32, np.float64, np.int64, np.bool_)]
    samples.append(np.array([1 + 2j], np.complex64))
    for a in samples:
        for fn in (repr, str, lambda v: format(v, "")):
            fn(a)
            fn(a[0])
            fn(a.flat[0])
            fn(a.dtype)
        f"{a.flat[0]:.3f}" if a.dtype.kind == "f" else None
        for name in sorted(ARRAY_METHODS - {"astype", "item", "reshape"}):
            try:
                getattr(a, name)()
            except (TypeError, ValueError):  # e.g. cumsum of complex is fine, std of bool is not
                pass
        a.astype(np.float32)
        a.item(0)
        a.reshape(-1)
        a.flat[0].round()
        a.flat[0].item()
    np.arange(2000.0).__str__()
    repr(np.arange(2000.0))


try:
    import warnings as _warnings

    with _warnings.catch_warnings():
        _warnings.simplefilter("ignore")
        _warm()
except Exception:  # pragma: no cover - warming is an optimisation; never break the import
    pass

__all__ = ["ArrayMethod", "array_getattr", "check_result", "dtype_getattr", "fresh_copy", "is_numeric_dtype",
           "is_plain_array", "is_plain_scalar", "item_of_array", "numeric_dtype", "scalar_getattr", "shared_view"]
