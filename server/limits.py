"""Run limits, and the exceptions that stop a snippet when one is reached."""

from __future__ import annotations

from dataclasses import dataclass

TRACE_VERSION = "3.0"  # the trace format's version (server/schema.py, TRACE_FORMAT.md)


@dataclass(frozen=True)
class Limits:
    max_nodes: int = 5000
    max_tensors: int = 20000
    max_events: int = 50000
    max_stdout: int = 65536
    max_array_elements: int = 1024
    max_elements: int = 4_000_000
    full_passes: int = 20
    jacobian_entries: int = 4096
    max_source_bytes: int = 65536
    max_trace_bytes: int = 8 * 1024 * 1024  # the recorder summarises, then goes quiet, to stay below it


class LimitReached(BaseException):
    """Stops a snippet; a BaseException so that `except Exception:` in user code cannot swallow it."""

    status = "limit"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class TimeLimitReached(LimitReached):
    status = "timeout"
