"""The zygote fills its allocator's free blocks before forking, so a run's objects land on fresh pages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POOL_BYTES = 16 * 1024  # CPython 3.11's small-object pool

WARM_AND_FILL = """
import gc, json
from server.sandbox import holes
from server.sandbox.zygote import warmup_snippets
from server.tracer import trace_code
for snippet in warmup_snippets():  # as the zygote warms up: the garbage it frees leaves the holes
    trace_code(snippet)
gc.collect()
before = holes.free_blocks()
keep = holes.fill()
after = holes.free_blocks()
print(json.dumps([before, after]))
"""


def test_after_filling_only_fresh_pools_have_free_blocks():
    done = subprocess.run([sys.executable, "-c", WARM_AND_FILL], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=True)
    before, after = ({int(k): v for k, v in d.items()} for d in json.loads(done.stdout))
    assert len(after) == 32, "the allocator statistics were not read"
    sizes = [s for s in after if s >= 48]  # 16 and 32 bytes: no padding object of that size, or ints
    assert sum(before[s] for s in sizes) > 2 * POOL_BYTES // 48, before  # a warm interpreter has holes
    for s in sizes:  # the untouched tail of one freshly started pool, and the few blocks the check frees
        assert after[s] <= POOL_BYTES // s + 16, (s, after[s])
