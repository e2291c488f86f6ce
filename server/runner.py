"""How the API runs a snippet: in the sandbox's fresh processes, or in-process for trusted use."""

from __future__ import annotations

import asyncio
import json
from typing import Protocol

from server.config import Settings
from server.tracer import trace_code


class Runner(Protocol):
    async def run(self, code: str) -> bytes: ...

    def close(self) -> None: ...


class InProcessRunner:
    """Runs snippets in this process (tests and trusted local use only: no isolation)."""

    def __init__(self, settings: Settings) -> None:
        self.limits = settings.limits()
        self._lock = asyncio.Lock()

    async def run(self, code: str) -> bytes:
        async with self._lock:  # the engine's grad mode and observer are process-wide
            trace = await asyncio.to_thread(trace_code, code, limits=self.limits)
        return json.dumps(trace, separators=(",", ":")).encode()

    def close(self) -> None:
        pass


def make_runner(settings: Settings) -> Runner:
    if not settings.sandbox:
        return InProcessRunner(settings)
    from server.sandbox import SandboxRunner

    return SandboxRunner(settings)
