"""Grad-mode switches: no_grad, enable_grad, set_grad_enabled and inference_mode."""

from __future__ import annotations

import functools
from typing import Any, Callable

from engine import observe


class _State:
    __slots__ = ("enabled", "inference", "anomaly", "check_nan")

    def __init__(self) -> None:
        self.enabled = True
        self.inference = False
        self.anomaly = False  # anomaly mode: record forward stacks, check backward for nan
        self.check_nan = True


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
        mode = type(self)

        @functools.wraps(fn)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with mode():
                return fn(*args, **kwargs)

        return wrapped

    def clone(self) -> "_Mode":
        return type(self)()


class no_grad(_Mode):  # noqa: N801
    _target = False


class enable_grad(_Mode):  # noqa: N801
    _target = True


class set_grad_enabled(_Mode):  # noqa: N801
    """Sets the mode at once (as a function) and restores it on exit (as a context manager)."""

    def __init__(self, mode: bool) -> None:
        self._prev = (state.enabled, state.inference)
        self._target = bool(mode)
        _set(self._target)

    def __enter__(self) -> None:
        pass

    def clone(self) -> "set_grad_enabled":
        return set_grad_enabled(self._target)


class inference_mode(_Mode):  # noqa: N801
    def __init__(self, mode: bool = True) -> None:
        self._mode = mode

    def __enter__(self) -> None:
        self._prev = (state.enabled, state.inference)
        if self._mode:
            state.inference = True
            _set(False)

    def __call__(self, fn: Callable) -> Callable:
        mode = self._mode

        @functools.wraps(fn)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with inference_mode(mode):
                return fn(*args, **kwargs)

        return wrapped
