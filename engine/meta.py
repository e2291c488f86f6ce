"""Meta tensors (device='meta'): a shape and a dtype without data, printed, checked and propagated as in PyTorch.

A meta tensor holds zeros of its shape (its values are never shown or read out); ops run on them as usual
and their results are meta tensors too."""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from engine import dtypes
from engine.tensor import Tensor, TensorExtras

META = dtypes.device("meta")


class MetaExtras(TensorExtras):
    """The extras of a meta tensor (rules.apply reads `meta` to mark what an op makes of one)."""

    __slots__ = ()
    meta = True


def is_meta(t: Any) -> bool:
    return isinstance(t, Tensor) and t._extra is not None and t._extra.meta


def is_meta_device(device: Any) -> bool:
    if device is None or isinstance(device, (int, bool)):
        return False
    return (device if isinstance(device, dtypes.device) else dtypes.device(device)).type == "meta"


def devices_named(args: tuple, kwargs: dict) -> list:
    """The devices a `.to(...)` call names (positionally or as device=), None for no device keyword."""
    from engine import devices

    return [a for a in args if devices.is_device(a)] + [kwargs.get("device")]


def mark(t: Tensor) -> Tensor:
    """t becomes a meta tensor (keeping its other extras)."""
    old = t._extra
    if old is not None and old.meta:
        return t
    new = MetaExtras()
    if old is not None:
        for name in TensorExtras.__slots__:
            setattr(new, name, getattr(old, name))
    t._extra = new
    return t


def check_devices(inputs: tuple) -> None:
    """PyTorch's error when an op mixes meta tensors with CPU ones (a 0-d CPU tensor may join)."""
    expected = None
    for x in inputs:
        if isinstance(x, Tensor) and x._data.ndim:
            meta = x._extra is not None and x._extra.meta
            if expected is None:
                expected = meta
            elif meta != expected:
                where = ("meta", "cpu") if meta else ("cpu", "meta")
                raise RuntimeError(f"Tensor on device {where[0]} is not on the expected device {where[1]}!")


def to_meta(t: Tensor, np_dtype: Any = None) -> Tensor:
    """t.to('meta'): a meta copy (recorded as ToCopyBackward0 when t requires grad)."""
    from engine import grad_mode, ops
    from engine.rules import apply

    np_dtype = t._data.dtype if np_dtype is None else np_dtype
    if is_meta(t) and np_dtype == t._data.dtype:
        return t
    if t._requires_grad and grad_mode.state.enabled and np_dtype.kind in "fc":
        out = apply(ops.TO_COPY, (t,), {"dtype": np_dtype, "self_dtype": t._data.dtype})
        out._data = np.zeros(out._data.shape, np_dtype)
        return mark(out)
    return mark(Tensor._make(np.zeros(t._data.shape, np_dtype)))


def to_meta_in_place(module: Any) -> None:
    """A module's parameters and buffers become meta tensors (Module.to('meta'), a module made on 'meta')."""
    for t in (*module.parameters(), *module.buffers()):
        emptied(t)


def creating(fn: Callable, like: bool = False) -> Callable:
    """fn (a creation function) making a meta tensor for device='meta' (or, for a *_like or new_* one, for a meta
    input and no device), without drawing from the random stream."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        device = kwargs.get("device")
        if device is None:
            if not (like and args and is_meta(args[0])):
                return fn(*args, **kwargs)
        elif not is_meta_device(device):
            return fn(*args, **kwargs)
        from engine import random

        kwargs = {k: v for k, v in kwargs.items() if k != "device"}
        state = random.default_generator.get_state()
        try:
            out = fn(*args, **kwargs)
        finally:
            random.default_generator.set_state(state)
        return emptied(out)

    return call


def emptied(t: Tensor) -> Tensor:
    """t as a meta tensor: its values replaced by zeros of its shape and dtype."""
    t._data = np.zeros(t._data.shape, t._data.dtype)
    return mark(t)


CREATION = ("empty", "zeros", "ones", "full", "rand", "randn", "randint", "randperm", "arange", "linspace",
            "logspace", "eye", "empty_strided")  # torch.tensor: in creation.tensor (its warning's stack level)
LIKE = ("empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like", "randint_like")
NEW = ("new_empty", "new_zeros", "new_ones", "new_full", "new_tensor")


def install(namespace: dict) -> None:
    for name in CREATION:
        if name in namespace:
            namespace[name] = creating(namespace[name])
    for name in LIKE:
        if name in namespace:
            namespace[name] = creating(namespace[name], like=True)
    for name in NEW:
        setattr(Tensor, name, creating(getattr(Tensor, name), like=True))
