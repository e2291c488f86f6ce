"""Anomaly detection: forward stacks recorded on nodes, reported when backward fails; nan checks."""

from __future__ import annotations

import os
import sys
import traceback
import warnings
from typing import Any

import numpy as np

from engine import grad_mode

_ENGINE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def forward_stack() -> str:
    """The user's part of the current Python stack, formatted like a traceback."""
    frames = [f for f in traceback.extract_stack()[:-1] if not f.filename.startswith(_ENGINE_DIR)]
    return "".join(traceback.format_list(frames))


def report_failure(node: Any) -> None:
    """Warns with the forward stack of the failing node; the failure itself is raised by the caller.

    When warning filters turn the warning into an error, PyTorch does not let it replace the
    failure: it prints the escalated warning to stderr and raises the original error.
    """
    message = (
        f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n"
        f"{node._anomaly} (Triggered internally at "
        "/__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:122.)"
    )
    try:
        warnings.warn(message, UserWarning, stacklevel=2)
    except Warning as escalated:
        print(f"{type(escalated).__name__}: {escalated}", file=sys.stderr)


def check_nan(node: Any, sent: Any) -> None:
    for i, g in enumerate(sent):
        if g is None:
            continue
        array = g._data if hasattr(g, "_data") else np.asarray(g)
        if array.dtype.kind == "f" and np.isnan(array).any():
            if node._anomaly is not None:
                report_failure(node)
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


_ENABLED_WARNING = (
    "Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
    "enabled for debugging."
)


class detect_anomaly:  # noqa: N801
    """Context manager (and decorator) that turns anomaly mode on."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        self._prev = (grad_mode.state.anomaly, grad_mode.state.check_nan)
        warnings.warn(_ENABLED_WARNING, UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        self._prev = (grad_mode.state.anomaly, grad_mode.state.check_nan)
        grad_mode.state.anomaly = True
        grad_mode.state.check_nan = self.check_nan

    def __exit__(self, *exc: Any) -> None:
        grad_mode.state.anomaly, grad_mode.state.check_nan = self._prev

    def __call__(self, fn: Any) -> Any:
        import functools

        @functools.wraps(fn)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)

        return wrapped


class set_detect_anomaly:  # noqa: N801
    """Sets anomaly mode at once; restores the previous mode when used as a context manager."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._prev = (grad_mode.state.anomaly, grad_mode.state.check_nan)
        grad_mode.state.anomaly = bool(mode)
        grad_mode.state.check_nan = check_nan

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        grad_mode.state.anomaly, grad_mode.state.check_nan = self._prev


def is_anomaly_enabled() -> bool:
    return grad_mode.state.anomaly


def is_anomaly_check_nan_enabled() -> bool:
    return grad_mode.state.check_nan
