"""How the API runs a snippet: in the sandbox's fresh processes, or in-process for trusted use."""

from __future__ import annotations

import asyncio
from typing import Protocol

from server.config import Settings
from server.sandbox import traces
from server.tracer import trace_code


class RunnerBusy(Exception):
    """Every worker is busy and the queue is full: the client should retry after `retry_after` s."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"too many runs queued; retry after {retry_after:g} s")
        self.retry_after = retry_after


class Runner(Protocol):
    async def run(self, code: str) -> bytes: ...

    def close(self) -> None: ...


class SandboxRunner:
    """Each snippet in its own confined, short-lived process (server/sandbox)."""

    def __init__(self, settings: Settings) -> None:
        from server.sandbox import Sandbox

        self.sandbox = Sandbox(workers=settings.workers, queue=settings.queue, timeout_s=settings.timeout_s,
                               memory_mb=settings.memory_mb, limits=settings.limits(),
                               max_source_bytes=settings.max_source_bytes).start()

    async def run(self, code: str) -> bytes:
        from server.sandbox import SandboxBusy

        try:
            return await self.sandbox.run_async(code)
        except SandboxBusy as busy:
            raise RunnerBusy(busy.retry_after) from None

    def close(self) -> None:
        self.sandbox.close()


class InProcessRunner:
    """Runs snippets in this process: tests and trusted local use only, with no isolation."""

    def __init__(self, settings: Settings) -> None:
        self.limits = settings.limits()
        self._lock = asyncio.Lock()

    async def run(self, code: str) -> bytes:
        async with self._lock:  # the engine's grad mode and observer are process-wide
            trace = await asyncio.to_thread(trace_code, code, limits=self.limits, native=True)
        return traces.encode(trace)

    def close(self) -> None:
        pass


def make_runner(settings: Settings) -> Runner:
    return SandboxRunner(settings) if settings.sandbox else InProcessRunner(settings)
