"""dtype arguments that are not torch dtypes (np.float32, np.dtype('int64'), 'float32'): PyTorch's TypeErrors."""

from __future__ import annotations

import functools
from typing import Any, Callable

from engine import dtypes
from engine.tensor import Tensor

# Functions and methods whose parser names the dtype argument alone in its error (one overload takes dtype).
# (torch.tensor checks its own: a wrapper would move the line its warnings point at.)
FUNCTIONS = ("as_tensor", "scalar_tensor", "zeros", "ones", "empty", "full", "zeros_like", "ones_like",
             "empty_like", "full_like", "cumsum", "cumprod", "softmax", "log_softmax")
METHODS = ("new_tensor", "new_zeros", "new_ones", "new_empty", "new_full", "cumsum", "cumprod", "softmax",
           "log_softmax")
TO_OVERLOADS = (
    " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n")


_FACTORY_KEYWORDS = ("*, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device "
                     "= None, bool pin_memory = False, bool requires_grad = False)\n")
# Functions whose parser lists all their overloads when one argument fits none (the engine's rand/randn
# overloads are creation._RAND_SIGNATURES).
OVERLOADED = {
    "arange": (" * (Number end, " + _FACTORY_KEYWORDS
               + " * (Number start, Number end, " + _FACTORY_KEYWORDS.replace("Tensor out = None, ", "")
               + " * (Number start, Number end, Number step = 1, " + _FACTORY_KEYWORDS),
    "linspace": "".join(f" * ({a} start, {b} end, int steps, " + _FACTORY_KEYWORDS
                        for a, b in (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"),
                                     ("Number", "Number"))),
    "rand": None, "randn": None,
}


def accepted(value: Any) -> bool:
    """Whether PyTorch's parser takes `value` as a dtype: a torch dtype or the Python types float, int, bool, complex."""
    return isinstance(value, dtypes.dtype) or any(value is t for t in (float, int, bool, complex))


def _foreign(value: Any) -> bool:
    """A dtype from elsewhere (NumPy's scalar types and dtypes) or a dtype's name."""
    return isinstance(value, str) or type(value).__module__.startswith("numpy") or (
        isinstance(value, type) and value.__module__ == "numpy")


def check_to(args: tuple, kwargs: dict) -> None:
    """Tensor.to(np.int64), .to(dtype=np.float32), .to('cpu', np.int64): no overload of to() takes them."""
    dtype = kwargs.get("dtype")
    if (dtype is not None and not accepted(dtype)) or any(_foreign(a) and not isinstance(a, str) for a in args):
        from engine.size_keywords import _combination

        raise _combination("to", args, kwargs)


def check(name: str, dtype: Any) -> None:
    """PyTorch's error for a dtype= its parser does not take."""
    if dtype is not None and not accepted(dtype):
        from engine.creation import _type_name

        raise TypeError(f"{name}(): argument 'dtype' must be torch.dtype, not {_type_name(dtype)}")


def _checked(fn: Callable, name: str) -> Callable:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        check(name, kwargs.get("dtype"))
        return fn(*args, **kwargs)

    return call


def _overloaded(fn: Callable, name: str) -> Callable:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        dtype = kwargs.get("dtype")
        if dtype is not None and not accepted(dtype):
            from engine.creation import _RAND_SIGNATURES
            from engine.size_keywords import invalid_combination

            raise invalid_combination(name, args, kwargs, OVERLOADED[name] or _RAND_SIGNATURES)
        return fn(*args, **kwargs)

    return call


def install(namespace: dict) -> None:
    for name in OVERLOADED:
        namespace[name] = _overloaded(namespace[name], name)
    for name in FUNCTIONS:
        namespace[name] = _checked(namespace[name], name)
    for name in METHODS:
        setattr(Tensor, name, _checked(getattr(Tensor, name), name))
