"""Smaller PyTorch behaviours compared with torch: float indices, integer division by zero, div's
rounding_mode, linspace in float32, mean(dtype=), nan_to_num's node, H/mH/mT, detach_ on views,
requires_grad on non-leaves and inference tensors, chunk and split sizes."""

from __future__ import annotations

import pytest

from tests.engine.test_tutorial_snippets_vs_torch import _run, _same

pytest.importorskip("torch")

SHOW = """
import torch
def show(f):
    try:
        print(f())
    except (RuntimeError, IndexError, TypeError) as e:
        print(type(e).__name__ + ":", e)
"""

PROGRAMS = {
    "float_indices": SHOW + """
x = torch.arange(6.0).view(2, 3)
show(lambda: torch.arange(3.0)[1.5])
show(lambda: torch.arange(3.0)[1.0])
show(lambda: x[0, 1.5])
show(lambda: x[1:2.5])
show(lambda: x[:, 0:2.0])
show(lambda: x[True])
show(lambda: x[torch.tensor(1)])
""",
    "integer_division_by_zero": SHOW + """
show(lambda: torch.tensor([1, 2]) // 0)
show(lambda: torch.tensor([1, 2]) % 0)
show(lambda: torch.tensor([1, 2]) // torch.tensor([1, 0]))
show(lambda: torch.tensor([1, 2]) % torch.tensor([0, 1]))
show(lambda: torch.tensor([1, 2]).fmod(0))
show(lambda: torch.tensor([1.0, 2.0]) // 0)
show(lambda: torch.tensor([1.0, -2.0]) % 0)
show(lambda: torch.tensor([5, -5]) // 2)
show(lambda: torch.tensor([5, -5]) // 2.5)
show(lambda: 7 // torch.tensor([2, 3]))
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
f = x // 2
print(f, f.requires_grad, [type(n).__name__ for n, _ in f.grad_fn.next_functions])
show(lambda: f.sum().backward())
""",
    "div_rounding_mode": SHOW + """
a = torch.tensor([7.0, -7.5], requires_grad=True)
b = torch.tensor([2.0, 2.0], requires_grad=True)
for mode in ["trunc", "floor", None]:
    y = torch.div(a, b, rounding_mode=mode)
    print(y, sorted(n for n in dir(y.grad_fn) if n.startswith("_saved")), y.grad_fn._saved_rounding_mode)
    y.sum().backward()
    print(a.grad, b.grad)
    a.grad = b.grad = None
    y = a.div(2, rounding_mode=mode)
    print(y, y.grad_fn._saved_other)
    y.sum().backward()
    print(a.grad)
    a.grad = None
print(torch.div(torch.tensor([7, -7]), 2, rounding_mode="floor"), torch.div(torch.tensor([7, -7]), 2, rounding_mode="trunc"))
print(torch.div(torch.tensor([7, -7]), 2.5, rounding_mode="floor"), torch.divide(a, 2, rounding_mode="trunc"))
print(torch.tensor([7.0, -7.0]).div(torch.tensor([0.0, 0.0]), rounding_mode="floor"))
show(lambda: torch.div(a, b, rounding_mode="round"))
show(lambda: torch.div(torch.tensor([7, -7]), 0, rounding_mode="floor"))
x = torch.tensor([7, -7])
x.div_(2, rounding_mode="floor")
print(x)
g, = torch.autograd.grad(torch.div(a, b, rounding_mode="floor").sum(), a, create_graph=True)
print(g, g.grad_fn)
""",
    "linspace": """
import torch
print(torch.linspace(-1, 1, steps=7))
print(torch.linspace(-1, 1, steps=7).tolist())
print(torch.linspace(-1, 1, 7, dtype=torch.float64))
print(torch.linspace(-3.3, 7.1, 33).tolist())
print(torch.linspace(0.5, 10.7, 5, dtype=torch.int64), torch.linspace(0, 1, 3, dtype=torch.float16))
print(torch.linspace(2.3, -8.1, 11, dtype=torch.float16).tolist())
print(torch.linspace(0, 1, 1), torch.linspace(0, 1, 0), torch.linspace(3, -1.5, steps=10).tolist())
try:
    torch.linspace(0, 1, -1)
except RuntimeError as e:
    print(type(e).__name__ + ":", e)
""",
    "mean_and_sum_dtype": SHOW + """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.mean(dtype=torch.float64)
print(y, [type(n).__name__ for n, _ in y.grad_fn.next_functions])
y.backward()
print(x.grad)
y = x.sum(dtype=torch.float64)
print(y, [type(n).__name__ for n, _ in y.grad_fn.next_functions])
h = x * 1
h.retain_grad()
y = h.mean(0, dtype=torch.float64)
y.backward()
print(y, h.grad)
print(torch.tensor([1, 2, 4]).mean(dtype=torch.float64), torch.tensor([[1, 2], [3, 4]]).mean(1, dtype=torch.float32))
print(torch.mean(torch.tensor([1, 2]), dtype=torch.float32), torch.tensor([True, True]).sum(dtype=torch.float16))
print(torch.tensor([1, 2], dtype=torch.int32).sum(), torch.tensor([[1, 2]], dtype=torch.int8).sum(1))
show(lambda: torch.tensor([1, 2]).mean())
show(lambda: torch.tensor([1, 2]).mean(dtype=torch.int64))
""",
    "nan_to_num": """
import torch
x = torch.tensor([1.0, float("nan"), float("inf"), -float("inf")], requires_grad=True)
y = torch.nan_to_num(x)
print(y, type(y.grad_fn).__name__, sorted(n for n in dir(y.grad_fn) if n.startswith("_saved")))
y.sum().backward()
print(x.grad)
y = x.nan_to_num(nan=1.0, posinf=2.0, neginf=-2.0)
print(y)
g, = torch.autograd.grad((x.nan_to_num() ** 2).sum(), x, create_graph=True)
print(g, type(g.grad_fn).__name__)
print(torch.nan_to_num(torch.tensor([1, 2])), torch.nan_to_num(torch.tensor([float("nan")], dtype=torch.float16)))
""",
    "matrix_transposes": SHOW + """
import warnings
warnings.simplefilter("ignore")
m = torch.arange(6.0).view(2, 3).requires_grad_()
for attr in ["H", "mH", "mT", "T"]:
    t = getattr(m, attr)
    print(attr, t.tolist(), type(t.grad_fn).__name__)
print(m.adjoint().tolist())
b = torch.arange(24.0).view(2, 3, 4).requires_grad_()
print(b.mH.shape, type(b.mH.grad_fn).__name__, b.mT.shape)
show(lambda: b.H)
show(lambda: torch.arange(3.0).H)
show(lambda: torch.arange(3.0).mT)
show(lambda: torch.arange(3.0).mH)
s = torch.tensor(2.0)
print(s.mT is s, s.H is s, s.mH is s)
""",
    "detach_and_requires_grad": SHOW + """
x = torch.ones(2, requires_grad=True)
y = x * 1
show(lambda: y.view(2).detach_())
show(lambda: x.view(2).detach_())
show(lambda: y[0:1].detach_())
show(lambda: torch.ones(2).view(2).detach_())
show(lambda: y.detach_())
y = x * 1
def assign(t, value):
    t.requires_grad = value
    return t.requires_grad, t.is_leaf
show(lambda: assign(y, False))
show(lambda: assign(y, True))
show(lambda: y.requires_grad_(False))
show(lambda: y.requires_grad_(True))
show(lambda: assign(torch.ones(2).view(2), True))
show(lambda: assign(torch.ones(2, dtype=torch.long), True))
show(lambda: torch.ones(2, dtype=torch.long).requires_grad_())
with torch.inference_mode():
    t = torch.ones(2)
show(lambda: t.requires_grad_())
show(lambda: assign(t, True))
show(lambda: t.requires_grad_(False))
with torch.inference_mode():
    show(lambda: t.requires_grad_())
""",
    "chunk_and_split_sizes": SHOW + """
show(lambda: torch.ones(4).chunk(0))
show(lambda: torch.ones(4).chunk(-1))
show(lambda: torch.chunk(torch.ones(4), 0))
show(lambda: torch.ones(2, 3).split(0))
show(lambda: torch.ones(2, 3).split(0, dim=1))
show(lambda: torch.ones(0, 3).split(0))
show(lambda: torch.ones(2, 3).split(-1))
show(lambda: torch.ones(2, 3).split([1, 0, 1]))
show(lambda: torch.split(torch.ones(2, 3), 0))
show(lambda: torch.ones(2, 3).unsafe_split(0))
show(lambda: torch.ones(4).unsafe_chunk(0))
show(lambda: torch.ones(5).chunk(2))
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_matches_torch(name: str) -> None:
    code = PROGRAMS[name]
    _same(_run(code, on_engine=False), _run(code, on_engine=True))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32"])
def test_linspace_is_bit_exact(dtype: str) -> None:
    """Programs compare numbers within float32 noise; linspace must match torch to the last bit
    (linspace(-1, 1, 7)[3] is -2.98e-08 in float32, and shows in scientific notation)."""
    import random

    import torch

    import engine

    rng = random.Random(0)
    for steps in [*range(2, 40), 100, 1001]:
        start, end = rng.uniform(-10, 10), rng.uniform(-10, 10)
        expected = torch.linspace(start, end, steps, dtype=getattr(torch, dtype)).tolist()
        assert engine.linspace(start, end, steps, dtype=getattr(engine, dtype)).tolist() == expected, (start, end, steps)
    assert engine.linspace(-1, 1, steps=7).tolist() == torch.linspace(-1, 1, steps=7).tolist()
