"""The process layer: limits end runs promptly with a named limit, the next request is served, a
killed child or zygote yields a clean result, the queue is bounded, concurrency works."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from server.limits import TRACE_VERSION  # noqa: E402
from server.sandbox import Sandbox, SandboxBusy  # noqa: E402

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the sandbox needs Linux")

TIMEOUT = 1.0
SNIPPETS = Path(os.environ.get("GRADSTEP_SNIPPETS", ROOT.parent / "shared" / "snippets"))


@pytest.fixture(scope="module")
def sb():
    s = Sandbox(workers=2, queue=8, timeout_s=TIMEOUT, max_timeout_s=4 * TIMEOUT, memory_mb=512)
    s.start()
    yield s
    s.close()


def trace_of(body: bytes) -> dict:
    assert isinstance(body, bytes)
    t = json.loads(body.decode("utf-8"))
    assert t["version"] == TRACE_VERSION and t["status"] in ("ok", "error", "limit", "timeout")
    return t


def assert_healthy(sb: Sandbox) -> None:
    t = trace_of(sb.run("print(6 * 7)"))
    assert t["status"] == "ok" and t["stdout"] == "42\n", t


def test_trivial_and_features(sb):
    t = trace_of(sb.run("print('hi')"))
    assert t["status"] == "ok" and t["stdout"] == "hi\n"
    feats = sb.features
    assert feats.get("rlimits", {}).get("RLIMIT_AS") == 512 * 1024 * 1024
    assert feats.get("rlimits", {}).get("RLIMIT_FSIZE") == 0


@pytest.mark.skipif(not (SNIPPETS / "s08_five_neurons.py").exists(), reason="shared snippets not present")
def test_the_warm_parent_maps_no_library_a_run_does_not_need(sb):
    """Every mapped library is copied into each forked run and torn down when it ends; numpy.random
    (which also brings threading's at-fork hook), hashlib's OpenSSL and tempfile's compressors are
    not needed by a run, so the zygote does not load them."""
    maps = Path(f"/proc/{sb.zygote_pid}/maps").read_text()
    for unneeded in ("numpy/random/", "libcrypto", "_hashlib", "_bz2", "_lzma", "zlib.cpython"):
        assert unneeded not in maps, unneeded
    assert "_multiarray_umath" in maps  # the check reads the right process


def test_seed_snippet_output(sb):
    code = (SNIPPETS / "s08_five_neurons.py").read_text()
    t = trace_of(sb.run(code))
    assert t["status"] == "ok", t.get("error")
    assert t["stdout"] == (SNIPPETS / "s08_five_neurons.out").read_text()


LIMIT_CASES = [
    ("infinite_loop", "while True:\n    pass", "timeout", "time limit of 1 s"),
    ("bignum", "x = 10**10**10", "timeout", "time limit of 1 s"),
    ("loop_with_swallowing_except", "while True:\n    try:\n        pass\n    except:\n        pass", "timeout",
     "time limit of 1 s"),
    ("finally_loop", "try:\n    while True:\n        pass\nfinally:\n    while True:\n        pass", "timeout",
     "time limit"),
    ("huge_list", "x = [0] * (10**10)", "limit", "memory limit (512 MiB)"),
    ("huge_string", "s = 'x' * (10**10)", "limit", "memory limit (512 MiB)"),
    ("growing_list", "x = []\nwhile True:\n    x.append('y' * 100000)", "limit", "memory limit (512 MiB)"),
    ("huge_tensor", "import torch\nx = torch.ones(10**9)", "limit", "limit"),
    ("deep_recursion", "def f(n):\n    return f(n + 1)\nf(0)", "limit", "recursion depth limit"),
    ("output_flood", "while True:\n    print('x' * 1000)", "limit", "limit"),
]


@pytest.mark.parametrize("name,code,status,fragment", LIMIT_CASES, ids=[c[0] for c in LIMIT_CASES])
def test_limits_end_promptly_with_a_named_limit(sb, name, code, status, fragment):
    # Filling 512 MiB page by page can outlast a 1 s clock on a loaded machine: give it time.
    timeout = 4 * TIMEOUT if name == "growing_list" else TIMEOUT
    start = time.monotonic()
    t = trace_of(sb.run(code, timeout_s=timeout))
    elapsed = time.monotonic() - start
    assert elapsed < timeout + sb.kill_grace_s + 1.5, elapsed
    assert t["status"] == status, t.get("error")
    assert fragment in t["error"]["message"], t["error"]
    assert_healthy(sb)


def test_oversized_source_is_a_limit(sb):
    t = trace_of(sb.run("x = 1\n" * 20000))
    assert t["status"] == "limit" and "64 KiB" in t["error"]["message"]


def test_trace_size_cap():
    with Sandbox(workers=1, timeout_s=TIMEOUT, max_trace_bytes=4096) as small:
        t = trace_of(small.run("for i in range(500):\n    print('y' * 50)"))
        assert t["status"] == "limit" and "size limit" in t["error"]["message"]
        assert_healthy(small)


def test_a_trace_over_the_size_cap_keeps_what_was_printed():
    code = ("import torch\nprint('started')\nx = torch.ones(3, requires_grad=True)\n"
            "for i in range(3000):\n    x = x * 1.0\n")
    with Sandbox(workers=1, timeout_s=TIMEOUT, max_trace_bytes=64 * 1024) as small:
        t = trace_of(small.run(code))
        assert t["status"] == "limit" and "size limit (0.0625 MiB)" in t["error"]["message"], t["error"]
        assert t["stdout"] == "started\n"


def _zygote_children(sb: Sandbox) -> list[int]:
    pid = sb.zygote_pid
    kids = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            kids += [int(x) for x in f.read().split()]
    return kids


def test_killing_the_child_mid_run_gives_a_clean_result(sb):
    fut = sb.submit("while True:\n    pass", timeout_s=TIMEOUT)
    time.sleep(0.3)
    for pid in _zygote_children(sb):  # the running child and the idle spares
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    t = trace_of(fut.result(timeout=10))
    assert t["status"] in ("error", "limit", "timeout")
    assert t["error"]["message"]
    assert_healthy(sb)
    assert_healthy(sb)


def test_zygote_death_is_transparent():
    with Sandbox(workers=1, timeout_s=2.0) as s:
        assert_healthy(s)
        fut = s.submit("while True:\n    pass")
        time.sleep(0.3)
        old = s.zygote_pid
        os.kill(old, signal.SIGKILL)
        t = trace_of(fut.result(timeout=20))
        assert t["status"] == "error" and "sandbox" in t["error"]["message"]
        assert_healthy(s)
        assert s.zygote_pid != old and s.restarts == 1


def test_bounded_queue_raises_busy():
    with Sandbox(workers=1, queue=1, timeout_s=TIMEOUT) as s:
        f1 = s.submit("while True:\n    pass")
        f2 = s.submit("while True:\n    pass")
        with pytest.raises(SandboxBusy) as info:
            s.submit("print(1)")
        assert info.value.retry_after >= 1
        assert trace_of(f1.result(timeout=10))["status"] == "timeout"
        assert trace_of(f2.result(timeout=10))["status"] == "timeout"
        assert_healthy(s)


def test_concurrent_async_and_threads(sb):
    async def many():
        return await asyncio.gather(*[sb.run_async(f"print({i} * 2)") for i in range(6)])

    bodies = asyncio.run(many())
    assert [trace_of(b)["stdout"] for b in bodies] == [f"{i * 2}\n" for i in range(6)]

    results: dict[int, str] = {}

    def worker(i: int) -> None:
        results[i] = trace_of(sb.run(f"print('t{i}')"))["stdout"]

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    assert results == {i: f"t{i}\n" for i in range(4)}


def test_a_long_run_paused_for_short_ones_still_ends_at_its_limit(sb):
    # Runs past LONG_RUN_S wait (SIGSTOP) while short runs are in progress; at its time limit a paused
    # run goes on, so it still ends on time, with its partial output.
    start = time.monotonic()
    fut = sb.submit("print('before')\nwhile True:\n    pass", timeout_s=TIMEOUT)
    shorts = 0
    while not fut.done() and time.monotonic() - start < TIMEOUT + 5:
        assert trace_of(sb.run("print(1)"))["status"] == "ok"
        shorts += 1
    t = trace_of(fut.result(timeout=10))
    assert time.monotonic() - start < TIMEOUT + sb.kill_grace_s + 1.5
    assert t["status"] == "timeout" and t["stdout"] == "before\n", t
    assert shorts > 5


def test_timeout_keeps_partial_output(sb):
    t = trace_of(sb.run("print('before')\nwhile True:\n    pass"))
    assert t["status"] == "timeout"
    assert t["stdout"] == "before\n"


def test_each_run_starts_from_its_own_random_seed_as_a_new_pytorch_process_does(sb):
    # The warm-up traces seeded examples before forking: a run must not start from the state they left
    # (torch.initial_seed() was 0 and unseeded draws were the same in every run).
    code = "import torch\nprint(torch.initial_seed(), torch.rand(3).tolist())"
    first, second = (trace_of(sb.run(code)) for _ in range(2))
    assert first["status"] == second["status"] == "ok"
    assert first["stdout"] != second["stdout"] and not first["stdout"].startswith("0 "), first["stdout"]
    assert first["nondeterministic"] and second["nondeterministic"]
    seeded = trace_of(sb.run("import torch\ntorch.manual_seed(3)\n"
                             "print(torch.initial_seed(), torch.rand(1))"))
    assert seeded["stdout"] == "3 tensor([0.0043])\n" and "nondeterministic" not in seeded, seeded
