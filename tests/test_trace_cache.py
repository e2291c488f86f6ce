"""The trace cache: the same code is answered without a new run, unless its run could end differently."""

from __future__ import annotations

import orjson
from fastapi.testclient import TestClient

from server.app import create_app
from server.config import Settings
from server.sandbox import traces
from server.sandbox.supervisor import checked_trace
from server.trace_cache import TraceCache, cacheable

CODE = "import torch\nx = torch.tensor(3.0, requires_grad=True)\n(x * x).backward()\nprint(x.grad)\n"


class CountingRunner:
    """Runs nothing: answers each call with the next of `results` (bytes) and counts the calls."""

    def __init__(self, *results: bytes) -> None:
        self.results = list(results)
        self.calls = 0

    async def run(self, code: str) -> bytes:
        self.calls += 1
        return self.results[min(self.calls, len(self.results)) - 1]

    def close(self) -> None:
        pass


def _trace(status: str, error_type: str | None = None, stdout: str = "") -> bytes:
    error = None if error_type is None else {"type": error_type, "message": "m"}
    return orjson.dumps({"version": "2.0", "status": status, "code": CODE, "stdout": stdout, "error": error})


def _post(runner: CountingRunner, cache_mb: int = 64, times: int = 2) -> list[bytes]:
    app = create_app(Settings.from_env(sandbox=False, cache_mb=cache_mb), runner=runner)
    with TestClient(app) as client:
        return [client.post("/api/v1/trace", json={"code": CODE}).content for _ in range(times)]


def test_the_same_code_runs_once_and_gets_the_same_trace() -> None:
    runner = CountingRunner(_trace("ok", stdout="first\n"), _trace("ok", stdout="second\n"))
    first, second = _post(runner)
    assert runner.calls == 1
    assert first == second and b"first" in second


def test_other_code_runs_again() -> None:
    runner = CountingRunner(_trace("ok"))
    app = create_app(Settings.from_env(sandbox=False), runner=runner)
    with TestClient(app) as client:
        client.post("/api/v1/trace", json={"code": CODE})
        client.post("/api/v1/trace", json={"code": CODE + "# another run\n"})
    assert runner.calls == 2


def test_a_snippet_error_is_kept_but_limits_and_sandbox_failures_run_again() -> None:
    assert _post(runner := CountingRunner(_trace("error", "RuntimeError"))) and runner.calls == 1
    for result in (_trace("timeout", "TimeoutError"), _trace("limit", "LimitExceeded"),
                   _trace("error", "SandboxError"), _trace("error", "Crash"), _trace("error", "InternalError"),
                   traces.encode_status(CODE, "error", "the sandbox is unavailable", "SandboxError")):
        runner = CountingRunner(result)
        _post(runner)
        assert runner.calls == 2, result


def test_cache_mb_0_runs_every_request() -> None:
    runner = CountingRunner(_trace("ok"))
    _post(runner, cache_mb=0, times=3)
    assert runner.calls == 3


def test_cacheable_needs_a_trace() -> None:
    assert cacheable(_trace("ok"))
    assert not cacheable(b"not json")
    assert not cacheable(b"[1, 2]")
    assert not cacheable(orjson.dumps({"status": "error", "error": None}))


def test_a_childs_answer_is_parsed_once_for_both_checks() -> None:
    """The supervisor's check of what a child sent also decides whether the cache may keep it."""
    for payload, kept in ((_trace("ok"), True), (_trace("error", "ZeroDivisionError"), True),
                          (_trace("timeout", "TimeoutError"), False), (_trace("error", "Crash"), False)):
        checked = checked_trace(payload)
        assert checked == payload and checked.repeatable is kept
        checked.repeatable = not kept  # what the check found is what the cache goes by
        assert cacheable(checked) is not kept
    for garbage in (b"not json", b"[1, 2]", orjson.dumps({"status": "fine"}), b'{"status": "ok"' * 2):
        assert checked_trace(garbage) is None
    runner = CountingRunner(checked_trace(_trace("ok")))
    assert _post(runner) == [_trace("ok")] * 2 and runner.calls == 1


def test_least_recently_used_traces_go_first_once_full() -> None:
    cache = TraceCache(max_bytes=8 * 1000)
    payload = _trace("ok", stdout="x" * 800)
    for i in range(8):
        cache.put(f"code {i}", payload)
    assert cache.get("code 0") is not None  # now the most recently used
    cache.put("code 8", payload)
    assert cache.get("code 1") is None  # the least recently used one made room
    assert cache.get("code 0") == payload and cache.get("code 8") == payload
    assert cache._bytes <= cache.max_bytes


def test_a_trace_over_an_eighth_of_the_cache_is_not_kept() -> None:
    cache = TraceCache(max_bytes=8000)
    cache.put("big", _trace("ok", stdout="x" * 1100))
    assert cache.get("big") is None and len(cache) == 0


def test_a_run_that_read_the_clock_or_entropy_runs_again() -> None:
    # time.time(), an unseeded generator or torch.seed(): the same code may print something else next time
    nondeterministic = orjson.dumps({**orjson.loads(_trace("ok")), "nondeterministic": True})
    assert not cacheable(nondeterministic) and not checked_trace(nondeterministic).repeatable
    _post(runner := CountingRunner(nondeterministic))
    assert runner.calls == 2
