"""Tracing cost: a traced and serialised 1,000-node graph against the same snippet run untraced.

Usage: python bench/tracing_cost.py [--rounds N]
Both runs execute the same snippet text through the same compiler (the sandbox's language policy);
the only difference is the recorder attached to the engine and the JSON it produces. Rounds are
interleaved and the ratio is taken per round, so machine noise hits both sides alike.
"""

from __future__ import annotations

import argparse
import statistics
import time

import engine
from server import policy
from server.sandbox import traces
from server.tracer import SNIPPET, trace_code

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
    compiled = policy.compile_snippet(code, SNIPPET)
    namespace = policy.snippet_globals(engine, lambda text: None, {"__gradstep_name__": lambda v, n: v})
    start = time.perf_counter()
    exec(compiled, namespace)
    return time.perf_counter() - start


def traced(code: str) -> tuple[float, int]:
    start = time.perf_counter()
    payload = traces.encode(trace_code(code))
    return time.perf_counter() - start, len(payload)


def compare(label: str, code: str, rounds: int) -> None:
    for _ in range(2):  # warm up imports and caches
        untraced(code), traced(code)
    ratios, plain_times, traced_times = [], [], []
    size = 0
    for _ in range(rounds):
        plain = untraced(code)
        with_trace, size = traced(code)
        plain_times.append(plain)
        traced_times.append(with_trace)
        ratios.append(with_trace / plain)
    nodes = len(trace_code(code)["nodes"])
    print(f"{label} ({nodes} nodes): untraced {statistics.median(plain_times) * 1e3:.1f} ms, "
          f"traced+serialised {statistics.median(traced_times) * 1e3:.1f} ms, "
          f"ratio {statistics.median(ratios):.2f}x (target <= 4x), trace {size / 1024:.0f} KiB")


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
