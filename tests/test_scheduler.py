"""Fair scheduling: a flood of slow runs from one client does not delay another client's run."""

from __future__ import annotations

import asyncio

import pytest

from server.runner import RunnerBusy
from server.scheduler import FairScheduler


class FakeRunner:
    """Runs take `seconds` from the code text; records the order in which runs finished."""

    def __init__(self) -> None:
        self.finished: list[str] = []

    async def run(self, code: str) -> bytes:
        await asyncio.sleep(float(code.split(":")[1]))
        self.finished.append(code)
        return code.encode()

    def close(self) -> None:
        pass


def test_newcomer_is_served_while_a_flood_holds_the_workers() -> None:
    async def scenario() -> tuple[list[str], float]:
        runner = FakeRunner()
        scheduler = FairScheduler(runner, workers=4, queue=64, retry_after=1)
        loop = asyncio.get_running_loop()
        flood = [asyncio.ensure_future(scheduler.run("10.0.0.1", f"flood{i}:0.5")) for i in range(12)]
        await asyncio.sleep(0.05)
        start = loop.time()
        await scheduler.run("10.0.0.2", "benign:0.01")
        waited = loop.time() - start
        await asyncio.gather(*flood)
        return runner.finished, waited

    finished, waited = asyncio.run(scenario())
    assert waited < 0.1  # a worker was kept free: no waiting behind the 0.5 s flood runs
    assert finished.index("benign:0.01") < 3


def test_one_client_alone_uses_all_but_one_worker() -> None:
    async def scenario() -> float:
        scheduler = FairScheduler(FakeRunner(), workers=4, queue=64, retry_after=1)
        loop = asyncio.get_running_loop()
        start = loop.time()
        await asyncio.gather(*(scheduler.run("c", "job:0.2") for _ in range(6)))
        return loop.time() - start

    assert 0.35 < asyncio.run(scenario()) < 0.6  # 6 runs on 3 workers: two rounds of 0.2 s


def test_queue_limits_refuse_with_retry_after() -> None:
    async def scenario() -> None:
        scheduler = FairScheduler(FakeRunner(), workers=2, queue=4, retry_after=3)
        runs = [asyncio.ensure_future(scheduler.run("a", "slow:0.2")) for _ in range(3)]
        await asyncio.sleep(0.01)  # one running (a may hold one of two workers), two waiting
        with pytest.raises(RunnerBusy) as busy:
            await scheduler.run("a", "slow:0.2")  # a may keep at most half the queue waiting
        assert busy.value.retry_after == 3
        await scheduler.run("b", "quick:0.01")  # another client is still welcome
        await asyncio.gather(*runs)

    asyncio.run(scenario())
