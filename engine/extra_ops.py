"""Less common torch functions and Tensor methods: triu/tril_indices, argwhere, isin and friends."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import dtypes
from engine.functions import _constant
from engine.tensor import Tensor

_NUMBER = (int, float, bool)


def _type_name(x: Any) -> str:
    return "Tensor" if isinstance(x, Tensor) else type(x).__name__


def _int_argument(fn: str, name: str, position: int, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be int, not {type(value).__name__}")
    return int(value)


def _triangle_indices(fn: str, lower: bool, args: tuple, kwargs: dict) -> Tensor:
    names = ("row", "col", "offset")
    if len(args) > 3:
        raise TypeError(f"{fn}() takes from 2 to 3 positional arguments but {len(args)} were given")
    values = dict(zip(names, args))
    options = {}
    for key, value in kwargs.items():
        if key in names and key not in values:
            values[key] = value
        elif key in ("dtype", "device", "layout", "requires_grad", "pin_memory"):
            options[key] = value
        else:
            raise TypeError(f"{fn}() got an unexpected keyword argument '{key}'")
    for name in ("row", "col"):
        if name not in values:
            raise TypeError(f'{fn}() missing 1 required positional arguments: "{name}"')
    row, col, offset = (_int_argument(fn, n, i + 1, values.get(n, 0)) for i, n in enumerate(names))
    dtype = options.get("dtype") or dtypes.int64
    if dtype not in (dtypes.int32, dtypes.int64):
        raise NotImplementedError(f'"{fn}" not implemented for \'{dtype.legacy}\'')
    if options.get("requires_grad"):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    for name, n in (("row", row), ("col", col)):
        if n < 0:
            raise RuntimeError(f"{name} must be non-negative, got{n}")
    rows, cols = np.indices((row, col)).reshape(2, -1)
    keep = cols - rows <= offset if lower else cols - rows >= offset
    return _constant(np.stack([rows[keep], cols[keep]]).astype(dtype.np).reshape(2, -1))


def triu_indices(*args: Any, **kwargs: Any) -> Tensor:
    """The (row, column) indices of the upper triangle of a row x col matrix, from diagonal `offset` on."""
    return _triangle_indices("triu_indices", False, args, kwargs)


def tril_indices(*args: Any, **kwargs: Any) -> Tensor:
    """The (row, column) indices of the lower triangle of a row x col matrix, up to diagonal `offset`."""
    return _triangle_indices("tril_indices", True, args, kwargs)


def argwhere(input: Tensor) -> Tensor:
    """The indices of the nonzero elements, one row each (as torch.nonzero)."""
    return _constant(np.asfortranarray(np.argwhere(input._data), np.int64))  # column-major, as PyTorch lays it out


_ISIN_OVERLOADS = (
    " * (Tensor elements, Tensor test_elements, *, bool assume_unique = False, bool invert = False, Tensor out = None)\n"
    " * (Number element, Tensor test_elements, *, bool assume_unique = False, bool invert = False, Tensor out = None)\n"
    " * (Tensor elements, Number test_element, *, bool assume_unique = False, bool invert = False, Tensor out = None)\n"
)


def isin(elements: Any, test_elements: Any, *args: Any, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """Whether each element of `elements` occurs in `test_elements` (a bool tensor shaped like `elements`)."""
    kinds = (isinstance(elements, Tensor), isinstance(test_elements, Tensor))
    numbers = (isinstance(elements, _NUMBER), isinstance(test_elements, _NUMBER))
    if args or not (kinds == (True, True) or kinds[0] and numbers[1] or numbers[0] and kinds[1]):
        got = ", ".join(_type_name(x) for x in (elements, test_elements, *args))
        raise TypeError(f"isin() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        + _ISIN_OVERLOADS)
    from engine import result_type

    for x in (elements, test_elements):
        if isinstance(x, Tensor) and x._data.dtype == np.bool_:
            raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    common = result_type(elements, test_elements).np
    a = elements._data if kinds[0] else np.asarray(elements)
    b = test_elements._data if kinds[1] else np.asarray(test_elements)
    return _constant(np.isin(a.astype(common), b.astype(common), invert=bool(invert)))


METHODS = {"argwhere": argwhere}
