"""Test-only tracer that runs code as plain, unrestricted Python (no policy layer), so the attack
tests can check that the process layer (rlimits, user, Landlock, seccomp) holds on its own."""

from __future__ import annotations

import builtins
import importlib
import io

from server.limits import TRACE_VERSION


def _import(name, globals=None, locals=None, fromlist=(), level=0):
    if name == "torch" or name.startswith("torch."):  # never the real PyTorch: the engine
        module = importlib.import_module("engine" + name[len("torch"):])
        return module if fromlist else importlib.import_module("engine")
    return builtins.__import__(name, globals, locals, fromlist, level)


def trace_code(code: str) -> dict:
    out = io.StringIO()
    status, error = "ok", None
    safe = dict(vars(builtins), __import__=_import, print=lambda *a, **k: print(*a, file=out, **k))
    try:
        exec(compile(code, "<snippet>", "exec"), {"__name__": "__main__", "__builtins__": safe})
    except BaseException as e:  # noqa: BLE001
        status, error = "error", {"type": type(e).__name__, "message": str(e)[:500]}
    return {"version": TRACE_VERSION, "status": status, "code": code, "stdout": out.getvalue(), "error": error,
            "tensors": [], "nodes": [], "edges": [], "events": [], "notes": []}
