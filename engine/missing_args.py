"""Calls missing a required argument (torch.cumsum(x), x.gather(1), x.narrow(0, 0)): PyTorch's TypeErrors."""

from __future__ import annotations

import functools
from typing import Any, Callable

from engine.tensor import Tensor

# name: the required arguments of the function form (the method form drops "input"). PyTorch's parser
# names the missing ones: `cumsum() missing 1 required positional arguments: "dim"`.
REQUIRED = {
    "cumsum": ("input", "dim"), "cumprod": ("input", "dim"), "softmax": ("input", "dim"),
    "log_softmax": ("input", "dim"), "gather": ("input", "dim", "index"), "index_select": ("input", "dim", "index"),
    "transpose": ("input", "dim0", "dim1"), "topk": ("input", "k"), "cat": ("tensors",), "stack": ("tensors",),
    "unsqueeze": ("input", "dim"), "matmul": ("input", "other"), "chunk": ("input", "chunks"),
    "index_add": ("input", "dim", "index", "source"), "mul": ("input", "other"), "flip": ("input", "dims"),
    "roll": ("input", "shifts"), "select": ("input", "dim", "index"), "argmax": ("input",), "argmin": ("input",),
    "new_tensor": ("input", "data"),
}
# name: (the fewest positional arguments an overload takes after input, the overloads of the function form,
# of the method form); PyTorch lists them: `narrow() received an invalid combination of arguments - got ...`.
_SCATTER = ("(int dim, Tensor index, Tensor src{})", "(int dim, Tensor index, Tensor src, *, str reduce{})",
            "(int dim, Tensor index, Number value{})", "(int dim, Tensor index, Number value, *, str reduce{})")
OVERLOADS = {
    "narrow": (3, ("(Tensor input, int dim, Tensor start, int length)", "(Tensor input, int dim, int start, int length)"),
               ("(int dim, Tensor start, int length)", "(int dim, int start, int length)")),
    "mm": (1, ("(Tensor input, Tensor mat2, *, Tensor out = None)",
               "(Tensor input, Tensor mat2, torch.dtype out_dtype, *, Tensor out = None)"), None),
    "masked_fill": (2, ("(Tensor input, Tensor mask, Tensor value)", "(Tensor input, Tensor mask, Number value)"),
                    ("(Tensor mask, Tensor value)", "(Tensor mask, Number value)")),
    "scatter": (3, tuple("(Tensor input, " + s[1:].format(", Tensor out = None" if "*" in s else ", *, Tensor out = None")
                         .replace("reduce, *, ", "reduce, ") for s in _SCATTER),
                tuple(s.format("") for s in _SCATTER)),
    "scatter_": (3, None, tuple(s.format("") for s in _SCATTER)),
    "pow": (1, ("(Tensor input, Tensor exponent, *, Tensor out = None)",
                "(Number self, Tensor exponent, *, Tensor out = None)",
                "(Tensor input, Number exponent, *, Tensor out = None)"), ("(Tensor exponent)", "(Number exponent)")),
    "movedim": (2, None, ("(int source, int destination)", "(tuple of ints source, tuple of ints destination)")),
    "repeat_interleave": (1, None, ("(Tensor repeats, int dim = None, *, int output_size = None)",
                                    "(int repeats, int dim = None, *, int output_size = None)")),
    "add": (1, ("(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)",),
            ("(Tensor other, *, Number alpha = 1)",)),
}
_REDUCE = ("(Tensor input, *, torch.dtype dtype = None{})",
           "(Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)")
_MAX = ("(Tensor input, *, Tensor out = None)", "(Tensor input, Tensor other, *, Tensor out = None)",
        "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)")
_NO_KEEPDIM = "\n      didn't match because some of the keywords were incorrect: keepdim"
_MAX_METHOD = ("()" + _NO_KEEPDIM, "(Tensor other)" + _NO_KEEPDIM, "(int dim, bool keepdim = False)")
OVERLOADS.update({
    "sum": (0, (_REDUCE[0].format(""), _REDUCE[1]), None),
    "mean": (0, (_REDUCE[0].format(", Tensor out = None"), _REDUCE[1]), None),
    "max": (0, _MAX, None), "min": (0, _MAX, None),
    "sort": (0, ("(Tensor input, *, bool stable, int dim = -1, bool descending = False, tuple of Tensors out = None)",
                 "(Tensor input, int dim = -1, bool descending = False, *, tuple of Tensors out = None)"), None),
    "where": (0, ("(Tensor condition)", "(Tensor condition, Tensor input, Tensor other, *, Tensor out = None)",
                  "(Tensor condition, Number self, Tensor other)", "(Tensor condition, Tensor input, Number other)",
                  "(Tensor condition, Number self, Number other)"), None),
})
# x.sum(keepdim=True) with no dim: (the function form's overloads, the method form's)
_METHOD_REDUCE = ("(*, torch.dtype dtype = None)", "(tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)")
KEEPDIM_ONLY = {
    "sum": ((_REDUCE[0].format(""), _REDUCE[1]), _METHOD_REDUCE),
    "mean": ((_REDUCE[0].format(", Tensor out = None"), _REDUCE[1]), _METHOD_REDUCE),
    "prod": (None, (_METHOD_REDUCE[0], "(int dim, bool keepdim = False, *, torch.dtype dtype = None)")),
    "max": (_MAX, _MAX_METHOD), "min": (_MAX, _MAX_METHOD),
}
_KEYWORDS = {"scatter": ("src", "value"), "scatter_": ("src", "value"), "pow": ("exponent",), "add": ("other",),
             "narrow": ("dim", "axis", "start", "length"), "masked_fill": ("mask", "value"), "mm": ("mat2",),
             "movedim": ("source", "destination"), "sum": ("input",), "mean": ("input",), "max": ("input",),
             "min": ("input",), "sort": ("input",), "where": ("condition",),
             "repeat_interleave": ("repeats",)}


def _required(fn: Callable, name: str, required: tuple) -> Callable:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if len(args) < len(required):
            missing = tuple(r for r in required[len(args):]
                            if r not in kwargs and not (r == "dim" and "axis" in kwargs))  # NumPy's name for dim
            if missing:
                from engine.size_keywords import _missing

                raise _missing(name, missing)
        return fn(*args, **kwargs)

    return call


def _combination(name: str, given: tuple, kwargs: dict, overloads: tuple) -> TypeError:
    """PyTorch's error for arguments that fit none of a function's overloads."""
    from engine.size_keywords import invalid_combination, parser_got

    if len(overloads) == 1:
        return TypeError(f"{name}() received an invalid combination of arguments - got ({parser_got(given, kwargs)}), "
                         f"but expected {overloads[0]}")
    return invalid_combination(name, given, kwargs, "".join(f" * {o}\n" for o in overloads))


def _overloaded(fn: Callable, name: str, fewest: int, overloads: tuple, method: bool) -> Callable:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if len(args) < fewest and len(args) + sum(k in kwargs for k in _KEYWORDS[name]) < fewest:
            raise _combination(name, args[1:] if method else args, kwargs, overloads)
        return fn(*args, **kwargs)

    return call


def _keepdim_only(fn: Callable, name: str, overloads: tuple, method: bool) -> Callable:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and len(kwargs) == 1 and "keepdim" in kwargs:
            raise _combination(name, () if method else args, kwargs, overloads)
        return fn(*args, **kwargs)

    return call


def _tensor_split(fn: Callable) -> Callable:
    """Tensor.split, a Python method in PyTorch (Python's own message; its size is named split_size)."""

    @functools.wraps(fn)
    def split(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        if "split_size" in kwargs:
            args = (kwargs.pop("split_size"), *args)
        if not args and "split_size_or_sections" not in kwargs:
            raise TypeError("Tensor.split() missing 1 required positional argument: 'split_size'")
        return fn(self, *args, **kwargs)

    return split


def install(namespace: dict) -> None:
    Tensor.split = _tensor_split(Tensor.split)  # type: ignore[method-assign]
    for name, required in REQUIRED.items():
        if name in namespace:
            namespace[name] = _required(namespace[name], name, required)
        if required[0] == "input" and hasattr(Tensor, name):
            setattr(Tensor, name, _required(getattr(Tensor, name), name, required))
    for name, (fewest, functions, methods) in OVERLOADS.items():
        if functions is not None:
            namespace[name] = _overloaded(namespace[name], name, fewest + 1, functions, False)
        if methods is not None:
            setattr(Tensor, name, _overloaded(getattr(Tensor, name), name, fewest + 1, methods, True))
    for name, (functions, methods) in KEEPDIM_ONLY.items():
        if functions is not None:
            namespace[name] = _keepdim_only(namespace[name], name, functions, False)
        setattr(Tensor, name, _keepdim_only(getattr(Tensor, name), name, methods, True))
