"""Gaps found by the seventh snippet sweep: vector-norm gradients at zero entries for p < 1, and the class
hierarchy of a custom Function's node; small programs run with torch and with the engine print the same."""

from __future__ import annotations

import pytest

from tests.engine.programs import RUN, assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = RUN + """
def r(t):
    return [round(v, 4) for v in t.flatten().tolist()]
"""

SNIPPETS = {
    "vector_norm_grad_at_zero_entries": """
for p in [0.5, 0.3, 0.9, 1.5, 3, 2.5, -1, -2.5]:
    for v in ([3.0, -4.0, 0.0], [0.0, 0.0], [1.0, 2.0], [0.0, -2.0, 0.5]):
        x = torch.tensor(v, requires_grad=True)
        g, = torch.autograd.grad(torch.linalg.vector_norm(x, ord=p), x)
        gg, = torch.autograd.grad(torch.linalg.vector_norm(x, ord=p), x, create_graph=True)
        run(f"{p} {v}", lambda: (r(g), r(gg)))
    x = torch.tensor([[0.0, 2.0], [1.0, 0.0], [0.0, 0.0]], requires_grad=True)
    torch.linalg.vector_norm(x, ord=p, dim=1).sum().backward()
    run(f"{p} dim", lambda: r(x.grad))
    y = torch.tensor([0.0, 2.0, -1.0], requires_grad=True)
    y.norm(p=p).backward()
    run(f"{p} Tensor.norm", lambda: r(y.grad))
""",
    "custom_function_node_class_hierarchy": """
class FirstRow(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x[0].clone()
    @staticmethod
    def backward(ctx, g):
        out = g.new_zeros(2, 3)
        out[0] = g
        return out
x = torch.arange(6.0).reshape(2, 3).requires_grad_()
y = FirstRow.apply(x)
node = y.grad_fn
BackwardCFunction = torch.autograd.function.BackwardCFunction
print(type(node).__name__, type(node).__mro__[1].__name__, type(node).__mro__[1].__module__)
print(isinstance(node, BackwardCFunction), isinstance(node, torch.autograd.graph.Node), BackwardCFunction)
y.sum().backward()
print(x.grad)
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + SNIPPETS[name], show_warnings=False)
