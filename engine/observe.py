"""The optional observer the engine reports its events to: with none attached it costs one check."""

from __future__ import annotations

from typing import Any

# The attached observer, or None. The engine reads it at each reporting point; the tracer sets it.
current: Any = None


def attach(observer: Any) -> Any:
    """Attach an observer; returns the previous one so callers can restore it."""
    global current
    previous, current = current, observer
    return previous


def detach(previous: Any = None) -> None:
    global current
    current = previous
