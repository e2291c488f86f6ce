"""NumPy's keyword names that PyTorch's argument parser also accepts: axis= for dim=, keepdims= for keepdim=
(x.max(axis=1), torch.stack(ts, axis=1), A.std(axis=0)), and size= for the size of randn/rand/zeros/ones/empty."""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

from engine.tensor import Tensor

# functions and methods taking dim (or dim and keepdim)
DIM_NAMES = (
    "cumsum", "cumprod", "max", "min", "argmax", "argmin", "std", "var", "std_mean", "var_mean", "stack", "prod",
    "amax", "amin", "aminmax", "logsumexp", "softmax", "log_softmax", "median", "nanmedian", "mode", "sort",
    "argsort", "topk", "all", "any", "count_nonzero", "unbind", "chunk", "squeeze", "unsqueeze",
    "narrow", "select", "gather", "index_select", "nansum", "nanmean", "cummax", "cummin", "diff", "kthvalue",
    "logcumsumexp", "repeat_interleave", "take_along_dim", "flatten", "hstack", "vstack", "concat",
    "concatenate", "sum", "mean", "cat",
)


def _accepts(fn: Callable, name: str) -> bool:
    """Whether fn takes `name` as a keyword (a *name collecting positional arguments does not count)."""
    try:
        param = inspect.signature(fn).parameters.get(name)
    except (TypeError, ValueError):
        return False
    return param is not None and param.kind is not inspect.Parameter.VAR_POSITIONAL


def _takes_kwargs(fn: Callable) -> bool:
    try:
        return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False


def _numpy_keywords(fn: Callable) -> Callable:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            if "axis" in kwargs:
                kwargs["dim"] = kwargs.pop("axis")
            if "keepdims" in kwargs:
                kwargs["keepdim"] = kwargs.pop("keepdims")
        return fn(*args, **kwargs)

    return call


def _wrap_dims(fn: Callable) -> Callable | None:
    """fn with axis=/keepdims= translated, when it takes dim (and not already axis)."""
    if fn is None or _accepts(fn, "axis") or not (_accepts(fn, "dim") or _takes_kwargs(fn)):
        return None
    return _numpy_keywords(fn)


def install(namespace: dict) -> None:
    for name in DIM_NAMES:
        wrapped = _wrap_dims(namespace.get(name))
        if wrapped is not None:
            namespace[name] = wrapped
        method = Tensor.__dict__.get(name)
        wrapped = _wrap_dims(method)
        if wrapped is not None:
            setattr(Tensor, name, wrapped)
