"""Full backward hooks on modules whose outputs are changed in place (views made by BackwardHookFunction) and
views made inside a custom Function: small programs run with torch and with the engine print the same."""

from __future__ import annotations

import pytest

from tests.engine.programs import assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = """
def run(name, fn):
    try:
        out = repr(fn())
    except BaseException as e:
        out = type(e).__name__ + ": " + str(e)
    print(name, "->", out)
"""

SNIPPETS = {
    "full_backward_hook_inplace": """
x = torch.tensor([[1.0, -2.0]], requires_grad=True)
relu = torch.nn.ReLU(inplace=True)
h = relu.register_full_backward_hook(lambda m, gi, go: print("hook", gi, go))
run("hooked inplace relu", lambda: relu(x * 1))
run("no input needs grad", lambda: relu(torch.ones(2)))
def under_no_grad():
    with torch.no_grad():
        return relu(x * 1)
run("under no_grad", under_no_grad)
h.remove()
run("hook removed", lambda: relu(x * 1))
lin = torch.nn.Linear(2, 2)
lin.register_full_backward_hook(lambda m, gi, go: None)
run("output changed in place", lambda: lin(x).add_(1))
seq = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU(inplace=True))
seq[0].register_full_backward_hook(lambda m, gi, go: print("linear hook"))
run("hooked layer then ReLU(inplace=True)", lambda: seq(x))
m = torch.nn.ReLU(inplace=True)
m.register_full_backward_pre_hook(lambda m, go: print("pre hook"))
run("pre hook", lambda: m(x * 1))
torch.manual_seed(0)
lin = torch.nn.Linear(2, 2)
lin.register_full_backward_hook(lambda m, gi, go: print("hook", gi, go))
y = lin(x)
print(y, y._base is not None, y.is_leaf, y.requires_grad, y._version)
y.sum().backward()
print(x.grad, lin.weight.grad)
with torch.no_grad():
    w = lin(x)
print(w, w._base is not None, w.requires_grad)
w.add_(1)
o = torch.nn.Sequential(torch.nn.ReLU(inplace=True), lin)(x * 1)
print(o)
""",
    "custom_function_view_output_inplace": """
class Id(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x
    @staticmethod
    def backward(ctx, g):
        return g
class IdView(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)
    @staticmethod
    def backward(ctx, g):
        return g
x = torch.tensor([[1.0, -2.0]], requires_grad=True)
run("as-is relu_", lambda: Id.apply(x * 1).relu_())
run("view relu_", lambda: IdView.apply(x * 1).relu_())
run("view of a leaf", lambda: IdView.apply(x).mul_(2))
run("view, no grad needed", lambda: IdView.apply(torch.ones(2)).mul_(2))
y = IdView.apply(x * 1)
y.sum().backward()
print(x.grad, y.grad_fn)
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + SNIPPETS[name], show_warnings=False)
