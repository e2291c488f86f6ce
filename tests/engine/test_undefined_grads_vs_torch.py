"""Backward functions that return None for an input: the other gradients reaching it still count."""

from __future__ import annotations

import pytest

from tests.engine.test_tutorial_snippets_vs_torch import _run, _same

pytest.importorskip("torch")

PROGRAMS = {
    "none_beside_a_gradient": """
import torch
class Half(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2, None
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
(Half.apply(x, y) + y).sum().backward()
print(x.grad)
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 3
print(torch.autograd.grad((Half.apply(a, b) + b).sum(), a))
""",
    "none_first_then_gradient": """
import torch
class Other(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        return y * 2
    @staticmethod
    def backward(ctx, g):
        return None, g * 2
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 3
out = (Other.apply(a, b) + a).sum()
out.backward()
print(a.grad)
""",
    "none_on_the_only_path": """
import torch
class Drop(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        return x + y
    @staticmethod
    def backward(ctx, g):
        return g, None
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
h = w.exp()
Drop.apply(x, h).sum().backward()
print(x.grad, w.grad)
try:  # the first pass ran ExpBackward0 (on nothing) and freed what it saved
    h.sum().backward()
except RuntimeError as e:
    print(str(e)[:60])
k = w.exp()
(Drop.apply(x, k * 2) + k).sum().backward()
print(x.grad, w.grad)
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_undefined_gradients_match_torch(name: str) -> None:
    code = PROGRAMS[name]
    _same(_run(code, on_engine=False), _run(code, on_engine=True))
