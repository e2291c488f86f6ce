"""Fair sharing of the sandbox's workers between clients, so one client cannot starve the others.

Each client (peer address) has its own queue. A free worker goes to the waiting client that has the
fewest runs in progress, taking clients in turn. No client may hold more than `workers - 1` workers,
so a newcomer always finds one free even while a flood of slow runs is going on. The sandbox, for its
part, lowers the CPU priority of long runs.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from server.runner import Runner, RunnerBusy


class FairScheduler:
    def __init__(self, runner: Runner, workers: int, queue: int, retry_after: float) -> None:
        self.runner = runner
        self.workers = max(1, workers)
        self.per_client_running = max(1, self.workers - 1)
        self.queue = max(1, queue)
        self.per_client_waiting = max(1, self.queue // 2)
        self.retry_after = retry_after
        self._waiting: dict[str, deque] = {}
        self._running: dict[str, int] = {}
        self._total_waiting = 0
        self._total_running = 0

    async def run(self, client: str, code: str) -> bytes:
        queued = self._waiting.get(client)
        if self._total_waiting >= self.queue or (queued and len(queued) >= self.per_client_waiting):
            raise RunnerBusy(self.retry_after)
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        entry = (code, future)
        queue = self._waiting.setdefault(client, deque())
        queue.append(entry)
        self._total_waiting += 1
        self._dispatch()
        try:
            return await future
        except asyncio.CancelledError:  # the client went away: a run still waiting gives up its place
            if entry in queue:
                queue.remove(entry)
                self._total_waiting -= 1
                if not queue and self._waiting.get(client) is queue:
                    del self._waiting[client]
            raise

    def _next_client(self) -> str | None:
        best = None
        for client, queue in self._waiting.items():
            running = self._running.get(client, 0)
            if queue and running < self.per_client_running:
                if best is None or running < self._running.get(best, 0):
                    best = client
        return best

    def _dispatch(self) -> None:
        while self._total_running < self.workers:
            client = self._next_client()
            if client is None:
                return
            queue = self._waiting.pop(client)  # re-inserted at the end: clients take turns
            code, future = queue.popleft()
            if queue:
                self._waiting[client] = queue
            self._total_waiting -= 1
            if future.done():  # the request was cancelled while it waited
                continue
            self._running[client] = self._running.get(client, 0) + 1
            self._total_running += 1
            asyncio.ensure_future(self._run(client, code, future))

    async def _run(self, client: str, code: str, future: asyncio.Future) -> None:
        try:
            result: Any = await self.runner.run(code)
        except BaseException as exc:  # handed to the waiting request, which re-raises it
            if not future.done():
                future.set_exception(exc)
        else:
            if not future.done():
                future.set_result(result)
        finally:
            self._running[client] -= 1
            if not self._running[client]:
                del self._running[client]
            self._total_running -= 1
            self._dispatch()
