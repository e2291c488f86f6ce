"""A minimal tracer used until (or instead of) server.tracer: runs the snippet through the policy
and reports stdout and the error, in the trace format (no tensors/nodes/events)."""

from __future__ import annotations

import sys
import traceback
from typing import Any

from server.policy import SNIPPET_FILENAME, PolicyError, SandboxLimit, compile_snippet, snippet_globals

from server.limits import TRACE_VERSION


def _error_line(exc: BaseException) -> int | None:
    line = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename == SNIPPET_FILENAME:
            line = lineno
    return line


def trace_code(code: str, limits: Any = None) -> dict:
    import engine

    out: list[str] = []
    trace: dict = {"version": TRACE_VERSION, "status": "ok", "code": code, "stdout": "", "error": None,
                   "tensors": [], "nodes": [], "edges": [], "events": [], "notes": ["stand-in tracer"]}
    try:
        compiled = compile_snippet(code)
        exec(compiled, snippet_globals(engine, out.append))
    except PolicyError as e:
        trace["status"] = "error"
        err = e.to_dict()
        if err.get("line") is None:
            err["line"] = _error_line(e)
        trace["error"] = err
    except SandboxLimit as e:
        trace["status"] = e.status
        trace["error"] = {"type": e.error_type, "message": e.message, "line": _error_line(e)}
    except MemoryError as e:
        trace["status"] = "error"
        trace["error"] = {"type": "MemoryError", "message": str(e), "line": _error_line(e)}
    except Exception as e:
        trace["status"] = "error"
        msg = str(e).split("\n")[0]
        trace["error"] = {"type": type(e).__name__, "message": msg, "line": _error_line(e)}
    finally:
        sys.setrecursionlimit(sys.getrecursionlimit())
    trace["stdout"] = "".join(out)
    return trace
