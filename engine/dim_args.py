"""One-int dims (x.argmax(dim=...), torch.cumsum(x, ...)): PyTorch's parser error for a tuple, list, None, float..."""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from engine.creation import _type_name
from engine.tensor import Tensor

# name: (index of dim among the function's positional arguments, input first; whether dim may be None[, names])
FUNCTIONS: dict[str, tuple] = {
    "argmax": (1, True), "argmin": (1, True), "cumsum": (1, False), "cumprod": (1, False),
    "logcumsumexp": (1, False), "cummax": (1, False), "cummin": (1, False), "softmax": (1, False),
    "log_softmax": (1, False), "median": (1, False), "nanmedian": (1, False), "mode": (1, False),
    "unbind": (1, False), "select": (1, False), "unsqueeze": (1, False), "gather": (1, False),
    "index_select": (1, False), "kthvalue": (2, False), "topk": (2, False),
    "transpose": (1, False, ("dim0", "dim1")), "swapaxes": (1, False, ("axis0", "axis1")),
    "swapdims": (1, False, ("dim0", "dim1")), "flatten": (1, False, ("start_dim", "end_dim")),
}
METHODS = dict(FUNCTIONS, cumsum_=(1, False), cumprod_=(1, False), unsqueeze_=(1, False),
               transpose_=(1, False, ("dim0", "dim1")), swapaxes_=(1, False, ("axis0", "axis1")),
               swapdims_=(1, False, ("dim0", "dim1")))


def int_dim(name: str, value: Any, position: int | None = None, none_ok: bool = False, key: str = "dim") -> Any:
    """`value` as an int dim (an int, a NumPy integer, an integer 0-d tensor), or PyTorch's TypeError naming `name`."""
    if value is None and none_ok:
        return None
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, Tensor) and value._data.ndim == 0 and value._data.dtype.kind in "iu":
        return int(value._data)
    where = "" if position is None else f" (position {position})"
    raise TypeError(f"{name}(): argument '{key}'{where} must be int, not {_type_name(value)}")


def _checked(fn: Callable, name: str, index: int, none_ok: bool, method: bool, keys: tuple = ("dim",)) -> Callable:
    """`fn` with its dims (from `index` on, or by keyword) checked; a method's self is not counted in positions."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        for at, key in enumerate(keys, index):
            if len(args) > at:
                args = (*args[:at], int_dim(name, args[at], at + (not method), none_ok, key), *args[at + 1:])
            elif key in kwargs:
                kwargs[key] = int_dim(name, kwargs[key], None, none_ok, key)
        return fn(*args, **kwargs)

    return call


def one_int_dim(name: str, index: int, none_ok: bool = False) -> Callable:
    """Decorator: the function's dim (positional argument `index`, input first) must be an int."""
    return lambda fn: _checked(fn, name, index, none_ok, False)


def install(namespace: dict) -> None:
    """Wrap the torch functions and Tensor methods of FUNCTIONS/METHODS that take one int dim."""
    for name, spec in FUNCTIONS.items():
        if name in namespace:
            namespace[name] = _checked(namespace[name], name, *spec[:2], False, *spec[2:])
    for name, spec in METHODS.items():
        fn = getattr(Tensor, name, None)
        if fn is not None:
            setattr(Tensor, name, _checked(fn, name, *spec[:2], True, *spec[2:]))
