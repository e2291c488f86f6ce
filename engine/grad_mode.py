"""Grad-mode switches: no_grad, enable_grad, set_grad_enabled and inference_mode."""

from __future__ import annotations

import functools
import inspect
import warnings
from typing import Any, Callable

from engine import observe


class _State:
    __slots__ = ("enabled", "inference", "anomaly", "check_nan", "dual")

    def __init__(self) -> None:
        self.enabled = True
        self.inference = False
        self.anomaly = False  # anomaly mode: record forward stacks, check backward for nan
        self.check_nan = True
        self.dual = False  # a forward-AD dual level is open: ops propagate tangents (autograd.forward_ad)


state = _State()


def is_grad_enabled() -> bool:
    return state.enabled


def is_inference_mode_enabled() -> bool:
    return state.inference


def _set(enabled: bool) -> None:
    changed = state.enabled != enabled
    state.enabled = enabled
    if changed and observe.current is not None:
        observe.current.grad_mode_changed(enabled)


class _Mode:
    """A context manager that is also a decorator, like torch's grad-mode classes."""

    _target = True

    def __enter__(self) -> None:
        self._prev = (state.enabled, state.inference)
        _set(self._target)

    def __exit__(self, *exc: Any) -> None:
        enabled, state.inference = self._prev
        _set(enabled)

    def __call__(self, fn: Callable) -> Callable:
        if inspect.isclass(fn):
            warnings.warn(
                "Decorating classes is deprecated and will be disabled in future versions. You should only "
                "decorate functions or methods. To preserve the current behavior of class decoration, you can "
                "directly decorate the `__init__` method and nothing else.",
                FutureWarning,
                stacklevel=2,
            )
            cls = fn
            fn = lambda *args, **kwargs: cls(*args, **kwargs)  # noqa: E731
        return _decorate(self.clone, fn)

    def clone(self) -> "_Mode":
        return type(self)()


def _decorate(factory: Callable[[], Any], fn: Callable) -> Callable:
    """Wraps fn so that every call (and every resumption of a generator) runs inside factory()."""
    if inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def generator_context(*args: Any, **kwargs: Any) -> Any:
            gen = fn(*args, **kwargs)
            try:
                with factory():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with factory():
                            gen.close()
                        raise
                    except BaseException as exc:  # noqa: BLE001 - forwarded into the generator
                        with factory():
                            response = gen.throw(exc)
                    else:
                        with factory():
                            response = gen.send(request)
            except StopIteration as stop:
                return stop.value

        return generator_context

    @functools.wraps(fn)
    def decorate_context(*args: Any, **kwargs: Any) -> Any:
        with factory():
            return fn(*args, **kwargs)

    return decorate_context


class _NoParamMode(_Mode):
    """A mode class that can also decorate without parentheses (``@torch.no_grad``)."""

    def __new__(cls, orig_func: Callable | None = None) -> Any:
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamMode):  # noqa: N801
    _target = False

    def __init__(self) -> None:
        pass


class enable_grad(_NoParamMode):  # noqa: N801
    _target = True

    def __init__(self) -> None:
        pass


class set_grad_enabled(_Mode):  # noqa: N801
    """Sets the mode at once (as a function) and restores it on exit (as a context manager)."""

    def __init__(self, mode: bool) -> None:
        self._prev = (state.enabled, state.inference)
        self._target = bool(mode)
        _set(self._target)

    def __call__(self, fn: Callable) -> Callable:
        _set(self._prev[0])
        return super().__call__(fn)

    def __enter__(self) -> None:
        _set(self._target)

    def __repr__(self) -> str:
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self._target})"

    __str__ = __repr__

    def clone(self) -> "set_grad_enabled":
        return set_grad_enabled(self._target)


class inference_mode(_Mode):  # noqa: N801
    """Inference mode on (grad off) or, with mode=False, off (grad on) until exit."""

    def __new__(cls, mode: Any = True) -> Any:
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)

    def __init__(self, mode: bool = True) -> None:
        self._mode = mode

    def __enter__(self) -> None:
        self._prev = (state.enabled, state.inference)
        state.inference = bool(self._mode)
        _set(not self._mode)

    def clone(self) -> "inference_mode":
        return inference_mode(self._mode)
