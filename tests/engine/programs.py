"""Run a test program with `torch` bound to PyTorch or to the engine, and return what it printed."""

from __future__ import annotations

import contextlib
import io
import re
import types
import warnings
from typing import Any

ADDRESS = re.compile(r" at 0x[0-9a-f]+")

# Helpers for the preludes of differential programs (the same text runs under PyTorch and the engine).
RUN = """
def run(name, fn):
    try:
        out = repr(fn())
    except BaseException as e:
        out = type(e).__name__ + ": " + str(e)
    print(name, "->", out)
"""
TRY = """
def t(f):
    try:
        r = f()
        print(r if not isinstance(r, tuple) else tuple(r))
    except Exception as e:
        print(type(e).__name__ + ":", e)
"""
# Prints a graph from a node down, one node name per line, indented by depth.
WALK = """
def walk(fn, d=0):
    if fn is None:
        return
    print(" " * d + fn.name())
    for n, _ in fn.next_functions:
        walk(n, d + 2)
"""
# Prints a graph from a tensor or node down, one node per line with its `_saved_*` attribute names.
CHAIN = """
def chain(t, depth=0, seen=None):
    seen = set() if seen is None else seen
    fn = t.grad_fn if hasattr(t, 'grad_fn') else t
    if fn is None or id(fn) in seen:
        return
    seen.add(id(fn))
    print('  ' * depth + type(fn).__name__, sorted(a for a in dir(fn) if a.startswith('_saved')))
    for n, _ in fn.next_functions:
        if n is not None:
            chain(n, depth + 1, seen)
"""


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
