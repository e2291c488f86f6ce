"""Tracing cost: a traced and serialised 1,000-node graph against the same snippet run untraced.

Usage: python bench/tracing_cost.py [--rounds N]
Both runs compile and execute the same snippet text through the same compiler (the sandbox's
language policy); the only difference is the recorder attached to the engine and the JSON it
produces. Neither side pays for freeing its objects, as in a sandbox child, which exits instead.
Rounds are interleaved and the ratio is taken per round, so machine noise hits both sides alike.
Also shown: the time to build the trace's objects from its JSON in C (orjson.loads), as a multiple
of the untraced run, a floor under any recorder that produces this format.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's code, whatever is installed

import engine  # noqa: E402
from server import policy  # noqa: E402
from server.sandbox import traces  # noqa: E402
from server.tracer import SNIPPET, trace_code  # noqa: E402

CHAIN = """import torch
x = torch.tensor(0.5, requires_grad=True)
w = torch.tensor(0.9, requires_grad=True)
v = x
for i in range(250):
    v = torch.exp(torch.tanh(v * w + 0.1))
v.backward()
"""

# The same chain on 4-element vectors: the engine's general array path instead of its 0-d one.
VECTOR_CHAIN = CHAIN.replace("torch.tensor(0.5, requires_grad=True)", "torch.full((4,), 0.5, requires_grad=True)").replace(
    "v.backward()", "v.sum().backward()")

MLP_STEP = """import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
inputs = torch.randn(8, 16)
labels = torch.tensor([0, 1, 2, 3, 0, 1, 2, 3])
opt.zero_grad()
loss = nn.functional.cross_entropy(model(inputs), labels)
loss.backward()
opt.step()
"""


def untraced(code: str) -> float:
    start = time.perf_counter()
    namespace = policy.snippet_globals(engine, lambda text: None, {"__gradstep_name__": lambda v, n: v})
    exec(policy.compile_snippet(code, SNIPPET), namespace)
    seconds = time.perf_counter() - start
    del namespace  # freed after the clock stops
    return seconds


def traced(code: str) -> tuple[float, int]:
    kept: list = []
    start = time.perf_counter()
    trace = trace_code(code, keep=kept, native=True)  # as a sandbox child does
    payload = traces.encode(trace)
    seconds = time.perf_counter() - start
    del trace, kept  # freed after the clock stops
    gc.unfreeze()  # trace_code froze what it kept, for a process about to exit (a sandbox child)
    return seconds, len(payload)


def materialised(payload: bytes) -> float:
    """Time to build a trace's Python objects from its JSON in C: what recording them costs at least."""
    start = time.perf_counter()
    objects = orjson.loads(payload)
    seconds = time.perf_counter() - start
    del objects
    return seconds


def compare(label: str, code: str, rounds: int) -> None:
    for _ in range(2):  # warm up imports and caches
        untraced(code), traced(code)
    payload = traces.encode(trace_code(code))
    ratios, floors, plain_times, traced_times = [], [], [], []
    for _ in range(rounds):
        plain = untraced(code)
        with_trace, _ = traced(code)
        plain_times.append(plain)
        traced_times.append(with_trace)
        ratios.append(with_trace / plain)
        floors.append(materialised(payload) / plain)
    nodes = len(orjson.loads(payload)["nodes"])
    print(f"{label} ({nodes} nodes): untraced {statistics.median(plain_times) * 1e3:.1f} ms, "
          f"traced+serialised {statistics.median(traced_times) * 1e3:.1f} ms, "
          f"ratio {statistics.median(ratios):.2f}x (target <= 4x), trace {len(payload) / 1024:.0f} KiB; "
          f"building the trace's objects alone: {statistics.median(floors):.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    for label, code in (("1,000-op scalar chain", CHAIN), ("1,000-op vector chain", VECTOR_CHAIN)):
        compare(label, code, args.rounds)
    mlp_times, mlp_size = [], 0
    for _ in range(args.rounds):
        seconds, mlp_size = traced(MLP_STEP)
        mlp_times.append(seconds)
    print(f"3-layer MLP training step: traced+serialised {statistics.median(mlp_times) * 1e3:.1f} ms, "
          f"trace {mlp_size / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
