"""Run a test program with `torch` bound to PyTorch or to the engine, and return what it printed."""

from __future__ import annotations

import contextlib
import io
import re
import types
import warnings
from typing import Any

ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def run_program(module: types.ModuleType, code: str, names: dict[str, Any] | None = None,
                show_warnings: bool = False) -> str:
    """stdout of `code` (object addresses blanked), with every warning as a `Category: message` line
    when `show_warnings`, else with warnings silenced."""
    out = io.StringIO()

    def show(message: Warning, category: type, *args: object, **kwargs: object) -> None:
        print(f"{category.__name__}: {message}", file=out)

    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("always" if show_warnings else "ignore")
        if show_warnings:
            warnings.showwarning = show
        exec(code, {"torch": module, **(names or {})})  # noqa: S102 - the tests' own programs
    return ADDRESS.sub(" at 0x", out.getvalue())


def assert_matches_torch(code: str, names: dict[str, Any] | None = None, show_warnings: bool = True) -> None:
    """`code` prints the same (warnings included) with `torch` bound to PyTorch and to the engine."""
    import torch

    import engine

    expected = run_program(torch, code, names, show_warnings)
    assert run_program(engine, code, names, show_warnings) == expected
