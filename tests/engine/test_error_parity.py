"""PyTorch's error types and messages where NumPy's used to leak (in-place broadcasting, writes
through expanded tensors, expand sizes, integer powers, gather/index_select bounds, permute, cat),
and dtype names as PyTorch's messages spell them. Compared with torch, messages exactly."""

from __future__ import annotations

import pytest

from tests.engine.test_tutorial_snippets_vs_torch import _run, _same

pytest.importorskip("torch")

SHOW = """
import torch
import torch.nn.functional as F
def show(f):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__ + ":", str(e).split("\\n")[0])
"""

PROGRAMS = {
    "inplace_broadcast_shape": SHOW + """
show(lambda: torch.zeros(3).add_(torch.ones(2, 3)))
show(lambda: torch.zeros(3).mul_(torch.ones(2, 3)))
show(lambda: torch.zeros(1, 3).add_(torch.ones(2, 3)))
show(lambda: torch.zeros(3).copy_(torch.ones(2, 3)))
show(lambda: torch.zeros(3).add_(torch.ones(2)))
show(lambda: torch.zeros(3).copy_(torch.ones(2)))
show(lambda: torch.zeros(2, 3).add_(torch.ones(3)))
show(lambda: torch.zeros(2, 3).copy_(torch.ones(3)))
show(lambda: torch.zeros(3).addcmul_(torch.ones(2, 3), torch.ones(3)))
x = torch.zeros(3, requires_grad=True) * 1
show(lambda: x.add_(torch.ones(2, 3)))
""",
    "writes_through_expanded_tensors": SHOW + """
show(lambda: torch.zeros(2, 1).expand(2, 3).add_(1))
show(lambda: torch.zeros(2, 1).expand(2, 3).zero_())
show(lambda: torch.zeros(2, 1).expand(2, 3).copy_(torch.ones(2, 3)))
show(lambda: torch.zeros(2, 1).expand(2, 3).fill_(1))
show(lambda: torch.ones(3).expand(2, 3).mul_(2))
show(lambda: torch.ones(1).expand(3).clone().add_(1))
e = torch.zeros(2, 1).expand(2, 3)
def put(key, value):
    e[key] = value
show(lambda: put((0, 0), 5))
print(e)
show(lambda: put(0, torch.ones(3)))
show(lambda: put((slice(None), 0), torch.ones(2)))
show(lambda: put(0, 7.0))
print(e)
w = torch.zeros(2, 1, requires_grad=True)
e2 = (w * 1).expand(2, 3)
show(lambda: e2.add_(1))
def put2(key, value):
    e2[key] = value
show(lambda: put2(0, torch.ones(3)))
show(lambda: put2((0, 1), 3.0))
print(e2)
""",
    "expand_sizes": SHOW + """
show(lambda: torch.ones(2, 3).expand(3, 3))
show(lambda: torch.ones(2, 3).expand(2, 4))
show(lambda: torch.ones(2, 3).expand(3))
show(lambda: torch.ones(2, 3).expand(-1, 3))
show(lambda: torch.ones(3).expand(-1, 3))
show(lambda: torch.ones(2, 1).expand(2, -1, 4).shape)
show(lambda: torch.ones(2, 1, dtype=torch.int64).expand(3, 3))
""",
    "integer_powers": SHOW + """
show(lambda: torch.tensor([2]) ** -1)
show(lambda: torch.tensor([2]).pow(-2))
show(lambda: torch.tensor([2]).pow_(-1))
show(lambda: torch.tensor([2, 1, -1, 0, -2]) ** torch.tensor([-1, -2, -3, -1, -2]))
show(lambda: 2 ** torch.tensor([-1, 2]))
show(lambda: (-1) ** torch.tensor([-1, -2, 3]))
show(lambda: torch.tensor([2, 3], dtype=torch.int32) ** torch.tensor(-1))
show(lambda: torch.tensor([2.0, 3.0]) ** -1)
""",
    "index_bounds_permute_cat": SHOW + """
m = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
show(lambda: m.gather(1, torch.tensor([[0, 3]])))
show(lambda: m.gather(1, torch.tensor([[0, -3]])))
show(lambda: m.gather(1, torch.tensor([[1, -1]])))
show(lambda: m.gather(0, torch.tensor([[2, 0]])))
show(lambda: m.gather(1, torch.tensor([[1, 0]])))
show(lambda: m.gather(1, torch.tensor([[0], [1], [0]])))
show(lambda: m.gather(1, torch.tensor([0, 1])))
show(lambda: torch.tensor(5.0).gather(0, torch.tensor(0)))
show(lambda: torch.tensor([1.0, 2, 3]).index_select(0, torch.tensor([3])))
show(lambda: torch.tensor([1.0, 2, 3]).index_select(0, torch.tensor([-1])))
show(lambda: torch.tensor([1.0, 2, 3]).index_select(0, torch.tensor([2, 0])))
show(lambda: torch.ones(2, 3).permute(1))
show(lambda: torch.ones(2, 3).permute(0, 1, 2))
show(lambda: torch.ones(2, 3).permute(0, 0))
show(lambda: torch.ones(2, 3).permute(0, 2))
show(lambda: torch.ones(2, 3).permute(-1, 0).shape)
show(lambda: torch.cat([]))
show(lambda: torch.cat(()))
show(lambda: torch.stack([]))
""",
    "dtype_names_in_messages": SHOW + """
x = torch.ones(2, requires_grad=True)
for dt in [torch.int64, torch.float64, torch.int32, torch.bool, torch.float16, torch.int16, torch.int8, torch.uint8]:
    def assign():
        x.grad = torch.zeros(2, dtype=dt)
    show(assign)
for dt in [torch.int64, torch.float32, torch.int32, torch.uint8, torch.float64]:
    show(lambda: torch.ones(2).masked_fill(torch.tensor([1, 0], dtype=dt), 0.0))
    show(lambda: torch.ones(2).masked_fill_(torch.tensor([1, 0], dtype=dt), 0.0))
show(lambda: F.nll_loss(torch.zeros(2, 3), torch.tensor([0.0, 1.0])))
show(lambda: F.nll_loss(torch.zeros(2, 3), torch.tensor([0, 1], dtype=torch.int32)))
show(lambda: F.nll_loss(torch.zeros(2, 3), torch.tensor([0, 1], dtype=torch.uint8)))
show(lambda: F.cross_entropy(torch.zeros(2, 3), torch.tensor([0.0, 1.0])))
show(lambda: F.cross_entropy(torch.zeros(2, 3), torch.tensor([0, 1], dtype=torch.int32)))
show(lambda: F.cross_entropy(torch.zeros(2, 3), torch.tensor([[0, 1, 0], [1, 0, 0]])))
show(lambda: F.cross_entropy(torch.zeros(2, 3), torch.tensor([[0.0, 1, 0], [1, 0, 0]])))
""",
    "bool_subtraction_and_negation": SHOW + """
a, b = torch.tensor([True]), torch.tensor([False])
show(lambda: a - b)
show(lambda: torch.sub(a, b))
show(lambda: torch.subtract(a, b))
show(lambda: torch.tensor(True) - torch.tensor(False))
show(lambda: True - a)
show(lambda: 1 - a)
show(lambda: a - 1.5)
show(lambda: torch.tensor([1]) - a)
show(lambda: torch.tensor([1.0]) - False)
show(lambda: a.clone().sub_(b))
show(lambda: torch.ones(1).sub_(True))
show(lambda: -a)
show(lambda: torch.neg(a))
show(lambda: torch.negative(a))
show(lambda: a.clone().neg_())
show(lambda: -torch.tensor([1, 2]))
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_errors_match_torch(name: str) -> None:
    code = PROGRAMS[name]
    _same(_run(code, on_engine=False), _run(code, on_engine=True))
