"""Type promotion (dimensioned tensors > 0-d tensors > Python numbers, unless a lower-ranked operand
is of a higher category) and in-place ops whose result type the tensor cannot hold, against torch."""

from __future__ import annotations

import pytest

from tests.engine.test_tutorial_snippets_vs_torch import _run, _same

pytest.importorskip("torch")

PROGRAMS = {
    "zero_dim_does_not_promote": """
import torch
a = torch.tensor([1.0, 2.0])
print((a + torch.tensor(2.0, dtype=torch.float64)).dtype)
print((torch.tensor([1, 2], dtype=torch.int32) + torch.tensor(2)).dtype)
print((torch.tensor([1.0], dtype=torch.float16) * torch.tensor(2.0)).dtype)
print((torch.tensor(1.0, dtype=torch.float64) + torch.tensor(1.0)).dtype)
print((torch.tensor([1], dtype=torch.uint8) + torch.tensor(-3, dtype=torch.int8)))
print((torch.tensor(1, dtype=torch.uint8) + torch.tensor(-3, dtype=torch.int8)))
print(torch.tensor([1.0], dtype=torch.float64) + torch.tensor([1.0]))
print(torch.tensor(True) + torch.tensor(2), torch.tensor([True]) + torch.tensor(2))
""",
    "higher_category_wins": """
import torch
print(torch.tensor([1, 2]) + torch.tensor(2.5))
print(torch.tensor([1, 2]) + torch.tensor(2.5, dtype=torch.float64))
print(torch.tensor([1, 2], dtype=torch.int32) * 1.5, torch.tensor([True, False]) + 2)
print(torch.tensor([1, 2]) / torch.tensor([2], dtype=torch.int32))
print(torch.where(torch.tensor([True, False]), torch.tensor([1.0, 2.0]), torch.tensor(5.0, dtype=torch.float64)))
print(torch.maximum(torch.tensor([1, 5]), torch.tensor(2.5)))
print(torch.tensor([2.0, 3.0]) ** torch.tensor(2, dtype=torch.int64))
""",
    "python_int_wraps": """
import torch
print(torch.tensor([1, 2], dtype=torch.uint8) + 300)
print(torch.tensor([1, 2], dtype=torch.int8) * 200)
print(torch.tensor([1, 2], dtype=torch.int32) + 2**40)
x = torch.tensor([1, 2], dtype=torch.uint8)
x.add_(-1)
print(x)
""",
    "result_type_and_promote_types": """
import torch
print(torch.result_type(torch.tensor([1]), 1.0), torch.result_type(2, 3.0))
print(torch.result_type(torch.tensor(1), torch.tensor([1.0], dtype=torch.float16)))
print(torch.result_type(torch.tensor([1], dtype=torch.int32), torch.tensor(1)))
print(torch.promote_types(torch.int32, torch.float16), torch.promote_types(torch.uint8, torch.int8))
print(torch.promote_types(torch.bool, torch.bool), torch.promote_types(torch.int64, torch.float32))
print(torch.can_cast(torch.float32, torch.int32), torch.can_cast(torch.int32, torch.float16),
      torch.can_cast(torch.int64, torch.bool), torch.can_cast(torch.bool, torch.uint8))
""",
    "gradients_keep_input_dtype": """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
y = x * w
print(y, y.dtype)
y.sum().backward()
print(x.grad, w.grad)
x.grad = None
h = x * 2
h.retain_grad()
h.register_hook(lambda g: print("hook", g.dtype))
(h * w).sum().backward()
print(h.grad, x.grad, w.grad)
v = torch.tensor([3.0, 4.0], dtype=torch.float64, requires_grad=True)
h = x * 2
h.retain_grad()
(h + v).sum().backward()
print(h.grad, v.grad)
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
g, = torch.autograd.grad((a * b).exp().sum(), a, create_graph=True)
print(g.dtype, g)
""",
    "inplace_result_cast": """
import torch
def show(f):
    try:
        print(f())
    except RuntimeError as e:
        print(type(e).__name__ + ":", e)
show(lambda: torch.tensor([1, 2]).add_(0.5))
show(lambda: torch.tensor([1, 2]).sub_(1.5))
show(lambda: torch.tensor([1, 2]).mul_(torch.tensor(2.5)))
show(lambda: torch.tensor([1, 2]).div_(2))
show(lambda: torch.tensor([1, 2]).pow_(0.5))
show(lambda: torch.tensor([4, 9]).sqrt_())
show(lambda: torch.tensor([1, 2]).exp_())
show(lambda: torch.tensor([1, 2]).sigmoid_())
show(lambda: torch.tensor([1, 2]).reciprocal_())
show(lambda: torch.tensor([1, 2]).clamp_(0.5))
show(lambda: torch.tensor([1, 2]).clamp_min_(0.5))
show(lambda: torch.tensor([1, 2]).addcmul_(torch.tensor([1, 2]), torch.tensor([1.0, 2.0])))
show(lambda: torch.tensor([True, False]).add_(1))
show(lambda: torch.tensor([True, False]).mul_(True))
show(lambda: torch.tensor([1, 2]).add_(torch.tensor([True, False])))
show(lambda: torch.tensor([1, 2], dtype=torch.int32).add_(torch.tensor([1, 2])))
show(lambda: torch.tensor([1.0, 2.0]).add_(torch.tensor([1.0, 2.0], dtype=torch.float64)))
show(lambda: torch.tensor([1.0, 2.0], dtype=torch.float16).add_(torch.tensor([1.0, 2.0])))
show(lambda: torch.tensor([1, 2]).neg_())
show(lambda: torch.tensor([1, 2]).abs_())
show(lambda: torch.tensor([1, 2]).floor_())
show(lambda: torch.tensor([1, 2]).square_())
show(lambda: torch.tensor([1, 2]).masked_fill_(torch.tensor([True, False]), 0.5))
show(lambda: torch.tensor([1, 2]).fill_(0.5))
show(lambda: torch.tensor([1, 2]).copy_(torch.tensor([0.5, 1.5])))
show(lambda: torch.tensor([1, 2]).reciprocal())
x = torch.tensor([1, 2])
try:
    x += 0.5
except RuntimeError as e:
    print(type(e).__name__ + ":", e)
print(x)
w = torch.tensor([1.0, 2.0], requires_grad=True)
y = w * 1
try:
    y.long().add_(0.5)
except RuntimeError as e:
    print(type(e).__name__ + ":", e)
z = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
y.add_(z)
print(y, y.grad_fn)
y.sum().backward()
print(w.grad, z.grad)
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_promotion_matches_torch(name: str) -> None:
    code = PROGRAMS[name]
    _same(_run(code, on_engine=False), _run(code, on_engine=True))
