"""Sizes given by keyword (torch.zeros(size=(2, 3)), x.view(size=...), x.permute(dims=...)) with PyTorch's parser errors."""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

from engine.creation import _RAND_SIGNATURES, _int_like, _type_name
from engine.tensor import Tensor

# name: (the size's keyword, the required arguments after it, the arguments before it)
FUNCTIONS = {"zeros": ("size", (), 0), "ones": ("size", (), 0), "empty": ("size", (), 0),
             "full": ("size", ("fill_value",), 0), "rand": ("size", (), 0), "randn": ("size", (), 0),
             "reshape": ("shape", (), 1), "permute": ("dims", (), 1), "tile": ("dims", (), 1)}
METHODS = {"view": ("size", ()), "reshape": ("shape", ()), "expand": ("size", ()), "permute": ("dims", ()),
           "repeat": ("repeats", ()), "tile": ("dims", ()), "new_zeros": ("size", ()), "new_ones": ("size", ()),
           "new_empty": ("size", ()), "new_full": ("size", ("fill_value",)), "sum_to_size": ("size", ()),
           "resize_": ("size", ())}
_OVERLOADS = {"rand": _RAND_SIGNATURES, "randn": _RAND_SIGNATURES,
              "view": " * (torch.dtype dtype)\n * (tuple of ints size)\n",
              "to": None}  # engine.dtype_args.TO_OVERLOADS


def _keywords(fn: Callable) -> tuple[set, bool]:
    """The keywords fn takes, and whether it takes any (**kwargs)."""
    params = inspect.signature(fn).parameters.values()
    return ({p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)},
            any(p.kind is p.VAR_KEYWORD for p in params))


def _name(value: Any) -> str:
    """The type PyTorch's parser names in its errors."""
    from engine import dtypes

    return "torch.dtype" if isinstance(value, dtypes.dtype) else _type_name(value)


def parser_got(args: tuple, kwargs: dict) -> str:
    """What PyTorch's argument parser says it got: the arguments' types, then the keywords, last given first."""
    got = [_name(a) for a in args] + [f"{k}={_name(v)}" for k, v in reversed(kwargs.items())]
    return ", ".join(got) + (", " if kwargs and not args else "")


def invalid_combination(name: str, args: tuple, kwargs: dict, overloads: str) -> TypeError:
    """PyTorch's error for arguments no overload takes; `overloads` is its list (" * (...)" lines)."""
    return TypeError(f"{name}() received an invalid combination of arguments - got ({parser_got(args, kwargs)}), "
                     f"but expected one of:\n{overloads}")


def _combination(name: str, args: tuple, kwargs: dict, details: str = "") -> TypeError:
    """invalid_combination for the functions of _OVERLOADS (`details`: a line to add under each overload)."""
    overloads = _OVERLOADS[name]
    if overloads is None:
        from engine.dtype_args import TO_OVERLOADS as overloads
    if details:
        lines = overloads.splitlines(keepends=True)
        overloads = "".join(line + d for line, d in zip(lines, details))
    return invalid_combination(name, args, kwargs, overloads)


def _missing(name: str, missing: tuple) -> TypeError:
    listed = ", ".join(f'"{m}"' for m in missing)
    plural = "arguments" if len(missing) == 1 else "argument"
    return TypeError(f"{name}() missing {len(missing)} required positional {plural}: {listed}")


def _sized(fn: Callable, name: str, key: str, after: tuple, nself: int) -> Callable:
    accepted, open_keywords = _keywords(fn)
    accepted = accepted | {key} | set(after)
    overloaded = name in _OVERLOADS

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if not kwargs:
            if len(args) == nself:
                if overloaded:
                    raise _combination(name, (), kwargs)
                raise _missing(name, (key,) + after)
            if after and len(args) - nself <= len(after):
                raise _missing(name, after[len(args) - nself - 1:])
            return fn(*args)
        positional = args[nself:]
        if name == "view":
            return _view(fn, args, kwargs)
        given = dict(kwargs)
        if key in kwargs:
            if positional:
                if overloaded:
                    raise _combination(name, positional, kwargs)
                raise TypeError(f"{name}() got multiple values for argument '{key}'")
            value = kwargs.pop(key)
            if not isinstance(value, (tuple, list)) or (value and not _int_like(value[0])):
                raise TypeError(f"{name}(): argument '{key}' must be tuple of ints, not {_type_name(value)}")
            positional = (value,)
        elif not positional:
            raise _missing(name, (key,) + after)
        missing = tuple(a for a in after[len(positional) - 1:] if a not in kwargs)
        if missing:
            raise _missing(name, missing)
        unknown = [k for k in kwargs if k not in accepted]
        if unknown and not open_keywords:
            if overloaded:
                raise _combination(name, args[nself:], given)
            raise TypeError(f"{name}() got an unexpected keyword argument '{unknown[0]}'")
        return fn(*args[:nself], *positional, **kwargs)

    return call


def _view(fn: Callable, args: tuple, kwargs: dict) -> Any:
    """x.view(size=...) or x.view(dtype=...); otherwise PyTorch's error for its two overloads."""
    self, positional = args[0], args[1:]
    if not positional and len(kwargs) == 1:
        (key, value), = kwargs.items()
        if key == "dtype":
            return fn(self, value)
        if key == "size":
            if isinstance(value, (tuple, list)):
                if not value or _int_like(value[0]):
                    return fn(self, value)  # PyTorch's own errors for the later elements
                items = ", ".join(_name(v) for v in value)
                kind = (f"list of [{items}]" if isinstance(value, list) else
                        f"tuple of ({items}{',' if len(value) == 1 else ''})")
            else:
                kind = _name(value)
            details = ("      didn't match because some of the keywords were incorrect: size\n",
                       f"      didn't match because some of the arguments have invalid types: (!size={kind}!, )\n")
        else:
            details = (f"      didn't match because some of the keywords were incorrect: {key}\n",) * 2
        raise _combination("view", positional, kwargs, details)
    raise _combination("view", positional, kwargs)


def install(namespace: dict) -> None:
    for name, (key, after, nself) in FUNCTIONS.items():
        namespace[name] = _sized(namespace[name], name, key, after, nself)
    for name, (key, after) in METHODS.items():
        setattr(Tensor, name, _sized(getattr(Tensor, name), name, key, after, 1))
