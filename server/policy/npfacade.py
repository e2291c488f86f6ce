"""What `import numpy as np` gives a snippet: an allowlist of NumPy's numeric functions, each checked.

Tutorials build data with NumPy, hand it to `torch.from_numpy` / `torch.tensor`, and compare results
with `np.allclose`. A snippet gets a read-only facade holding only the functions below, wrapped in
`NumpyFunction`, which checks every argument and every result:

- arguments: numbers, None, short strings (einsum subscripts, orders), numeric arrays and NumPy scalars,
  numeric dtypes and scalar types (the facade holds NumPy's numeric scalar classes themselves), slices, and (nested) lists and tuples of those; a tensor is turned
  into a view of its memory through `Tensor.numpy()` (so PyTorch's errors apply); keyword names come from a
  fixed set (never `out`, `where`, `like`, `casting`, `subok`);
- results: numeric arrays, NumPy and Python numbers, and tuples/lists of them (named tuples such as
  `np.linalg.svd`'s become plain tuples), then read through the allowlists of arrays.py.

Arrays made here are held to the tensor element limit, with the same message (npsizes.py).
No file, pickle, buffer, memory-map, ctypes, callback (`vectorize`, `frompyfunc`) or printing-option
function is present, and neither is `numpy.random` (the sandbox's warm parent does not load it).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import arrays, npsizes
from .errors import PolicyError

_CREATION = """array asarray zeros ones zeros_like ones_like full full_like empty_like arange linspace
logspace eye identity diag diagonal meshgrid stack concatenate vstack hstack column_stack tile repeat
tril triu copy""".split()
_MATH = """exp exp2 expm1 log log2 log10 log1p sqrt cbrt square sin cos tan arcsin arccos arctan arctan2
sinh cosh tanh arcsinh arccosh arctanh abs absolute fabs sign floor ceil trunc rint round around
maximum minimum fmax fmin clip power float_power add subtract multiply divide true_divide floor_divide
negative positive reciprocal mod fmod remainder hypot heaviside isnan isinf isfinite isclose allclose
array_equal equal not_equal less less_equal greater greater_equal logical_and logical_or logical_not
logical_xor where sum prod mean average std var median min max amin amax ptp argmax argmin argsort sort
cumsum cumprod diff dot vdot matmul inner outer einsum tensordot kron trace transpose swapaxes moveaxis
reshape ravel squeeze expand_dims broadcast_to flip fliplr flipud roll count_nonzero nonzero argwhere
unique all any shape ndim size deg2rad rad2deg degrees radians cross convolve interp histogram
bincount searchsorted nan_to_num nansum nanmean nanmax nanmin""".split()
_LINALG = "norm inv det slogdet solve eig eigh eigvals eigvalsh svd qr cholesky pinv matrix_rank lstsq".split()
_SCALAR_TYPES = """bool_ int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64
complex64 complex128 intp""".split()
_ALIASES = {"empty": "zeros"}  # uninitialised memory is never handed out
_CONSTANTS = {"pi": np.pi, "e": np.e, "inf": np.inf, "nan": np.nan, "newaxis": None, "euler_gamma": np.euler_gamma}

_KWARGS = frozenset("""dtype axis axes keepdims ddof rtol atol equal_nan decimals endpoint num base k copy
ndmin ord indexing side return_counts return_index return_inverse kind weights bins range density
a_min a_max min max shape order sparse initial full_matrices compute_uv mode rcond hermitian
subscripts optimize nan posinf neginf n prepend append sorter right left period num_samples
correction mean sorted""".split())
# Elementwise functions that are not ufuncs: their output has the broadcast shape of their arguments.
_BROADCASTING = frozenset({"where", "clip", "isclose"})
_MAX_STR = 64
_MAX_DEPTH = 32
_MAX_ITEMS = 1 << 20


class NumpyFunction:
    """One allowlisted NumPy function, as a snippet calls it."""

    __slots__ = ("_fn", "_name", "_to_array", "_limit")

    def __init__(self, fn: Callable[..., Any], name: str, to_array: Callable[[Any], np.ndarray],
                 limit: Callable[[], int] = npsizes.default_limit) -> None:
        object.__setattr__(self, "_fn", fn)
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_to_array", to_array)
        object.__setattr__(self, "_limit", limit)

    def __setattr__(self, name: str, value: Any) -> None:
        raise PolicyError("NumPy functions are read-only")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        budget = [_MAX_ITEMS]
        args = tuple(self._arg(a, 0, budget) for a in args)
        for key in kwargs:
            if key not in _KWARGS:
                raise PolicyError(f"numpy.{self._name}() does not accept '{key}' here")
        kwargs = {k: (arrays.numeric_dtype(v) if k == "dtype" and v is not None else self._arg(v, 0, budget))
                  for k, v in kwargs.items()}
        limit = self._limit()
        what = f"numpy.{self._name}()"
        fn = self._fn
        if isinstance(fn, np.ufunc) or self._name in _BROADCASTING:
            size = npsizes.broadcast_size(args[:fn.nin] if isinstance(fn, np.ufunc) else args)
        else:
            size = npsizes.output_size(self._name, args, kwargs)
        if size is not None and size[0] > limit:
            raise npsizes.refuse(limit, what, size[1])
        out = _result(fn(*args, **kwargs), self._name)
        npsizes.check_result(out, limit, what)
        return out

    def _arg(self, value: Any, depth: int, budget: list[int]) -> Any:
        tp = type(value)
        if value is None or tp in (bool, int, float, complex, slice) or value is Ellipsis:
            return value
        if tp is str:
            if len(value) > _MAX_STR:
                raise PolicyError(f"numpy.{self._name}(): strings longer than {_MAX_STR} characters are not allowed")
            return value
        if arrays.is_plain_array(value) or arrays.is_plain_scalar(value):
            return value
        if isinstance(value, (np.dtype, type)):
            return arrays.numeric_dtype(value)
        if tp in (list, tuple):
            budget[0] -= len(value)
            if depth >= _MAX_DEPTH or budget[0] < 0:
                raise PolicyError(f"numpy.{self._name}(): the argument is too large or too deeply nested")
            return tp(self._arg(v, depth + 1, budget) for v in value)
        array = self._to_array(value)
        if array is not None:
            return array
        raise PolicyError(f"numpy.{self._name}() does not accept a {tp.__name__} here")

    def __repr__(self) -> str:
        return repr(self._fn)


def _result(value: Any, name: str) -> Any:
    if type(value) is not tuple and isinstance(value, tuple):  # named tuples (svd, slogdet, unique...)
        value = tuple(value)
    if type(value) in (list, tuple):
        return type(value)(_result(v, name) for v in value)
    if isinstance(value, np.dtype) and arrays.is_numeric_dtype(value):
        return value
    try:
        return arrays.check_result(value)
    except PolicyError:
        raise PolicyError(f"numpy.{name}() returned a {type(value).__name__}, which is not allowed "
                          "(only numeric arrays and numbers)") from None


def facade_attrs(to_array: Callable[[Any], np.ndarray | None],
                 limit: Callable[[], int] = npsizes.default_limit) -> tuple[dict[str, Any], dict[str, Any]]:
    """The names of the `numpy` facade and of its `linalg` sub-facade; `limit()` is the run's element limit."""
    top: dict[str, Any] = dict(_CONSTANTS)
    for name in _CREATION + _MATH:
        top[name] = NumpyFunction(getattr(np, name), name, to_array, limit)
    for name in _SCALAR_TYPES:  # the classes themselves: isinstance, `a.dtype == np.float32` and calls work
        top[name] = getattr(np, name)
    for alias, target in _ALIASES.items():
        top[alias] = NumpyFunction(getattr(np, target), alias, to_array, limit)
    top["float_"] = top["double"] = top["float64"]
    top["int_"] = top["int64"]
    top["dtype"] = NumpyFunction(arrays.numeric_dtype, "dtype", to_array, limit)
    linalg = {name: NumpyFunction(getattr(np.linalg, name), f"linalg.{name}", to_array, limit) for name in _LINALG}
    return top, linalg


__all__ = ["NumpyFunction", "facade_attrs"]
