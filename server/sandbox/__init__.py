"""The process layer of the gradstep sandbox; see supervisor.py (the server side: `Sandbox`) and
zygote.py (the warm parent that forks a confined child per run).

The names below load on first use, so the zygote, which imports `server.sandbox.zygote`, does not
import the server side's asyncio, threading pools, subprocess and logging: a smaller zygote forks
faster, and has fewer at-fork hooks to run in every child.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Sandbox", "SandboxBusy", "MAX_SOURCE_BYTES", "checked_trace"]


def __getattr__(name: str) -> Any:
    if name in __all__ or name in ("REPO_ROOT", "REQ_HEADER", "REQ_FIELDS", "RESP_HEADER"):
        from . import supervisor

        return getattr(supervisor, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
