"""Finished traces by source text: a snippet's trace depends only on its code, so the same code runs once.

A class that opens the same example, or a page that embeds one, asks for the same trace again and
again; those requests are answered from here without a sandbox run. Only runs that ended on their
own are kept (`ok`, or an error the snippet raised itself), and of those only runs that read neither the clock
nor the OS's entropy (`nondeterministic` in the trace); time and memory limits, crashes and
sandbox failures depend on the moment and always run again. Least recently used entries go first
once the cache holds `max_bytes`.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import orjson

TRANSIENT_ERRORS = frozenset({"SandboxError", "Crash", "InternalError"})


def repeatable(trace: Any) -> bool:
    """Whether a parsed trace is one the same code would give again: status ok, or an error raised
    by the snippet, from a run that read neither the clock nor the OS's entropy."""
    if not isinstance(trace, dict) or trace.get("nondeterministic"):
        return False
    status = trace.get("status")
    if status == "ok":
        return True
    error = trace.get("error")
    return status == "error" and isinstance(error, dict) and error.get("type") not in TRANSIENT_ERRORS


def cacheable(payload: bytes) -> bool:
    """repeatable() of a trace's JSON, or what was found when it was parsed already (Checked)."""
    known = getattr(payload, "repeatable", None)
    if known is not None:
        return known
    try:
        return repeatable(orjson.loads(payload))
    except orjson.JSONDecodeError:
        return False


class Checked(bytes):
    """A trace's JSON that has been parsed once already, with what that parse found, so that a
    large trace is not parsed again to decide whether to keep it."""

    repeatable: bool


class TraceCache:
    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max(0, max_bytes)
        self.max_entry_bytes = self.max_bytes // 8  # one huge trace may not push out everything else
        self._entries: OrderedDict[str, bytes] = OrderedDict()
        self._bytes = 0

    def get(self, code: str) -> bytes | None:
        payload = self._entries.get(code)
        if payload is not None:
            self._entries.move_to_end(code)
        return payload

    def put(self, code: str, payload: bytes) -> None:
        size = len(code) + len(payload)
        if size > self.max_entry_bytes or code in self._entries or not cacheable(payload):
            return
        self._entries[code] = payload
        self._bytes += size
        while self._bytes > self.max_bytes:
            old_code, old = self._entries.popitem(last=False)
            self._bytes -= len(old_code) + len(old)

    def __len__(self) -> int:
        return len(self._entries)
