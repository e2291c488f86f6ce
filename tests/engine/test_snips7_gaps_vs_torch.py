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
    "integer_and_empty_input_errors": """
F = torch.nn.functional
run("softmax long", lambda: torch.tensor([1, 2]).softmax(0))
run("softmax dim0", lambda: torch.tensor([[1, 2]]).softmax(0))
run("log_softmax dim0", lambda: torch.tensor([[1, 2]]).log_softmax(0))
run("softmax bool", lambda: torch.tensor([True]).softmax(0))
run("softmax int32 0-d", lambda: torch.tensor(3, dtype=torch.int32).softmax(0))
run("softmax dtype", lambda: torch.tensor([[1, 2]]).softmax(0, dtype=torch.float64))
run("F.softmax", lambda: F.softmax(torch.tensor([1, 2]), dim=-1))
run("cross_entropy int logits", lambda: F.cross_entropy(torch.tensor([[1, 2]]), torch.tensor([0])))
run("softmax float", lambda: torch.tensor([1.0, 2.0]).softmax(0))
for name in ["argmax", "argmin"]:
    for make in ["torch.zeros(0)", "torch.zeros(0, 2)", "torch.zeros(2, 0)", "torch.tensor(3.)", "torch.zeros(2)"]:
        for kw in [{}, {"dim": 0}, {"dim": -1}, {"dim": 1, "keepdim": True}]:
            run(f"{name} {make} {kw}", lambda: getattr(eval(make), name)(**kw))
run("index_select float", lambda: torch.arange(6).index_select(0, torch.tensor([1.0])))
run("index_select bool", lambda: torch.arange(6).index_select(0, torch.tensor([True])))
run("index_select int16", lambda: torch.arange(6).index_select(0, torch.tensor([1], dtype=torch.int16)))
run("index_select int32", lambda: torch.arange(6.).index_select(0, torch.tensor([1], dtype=torch.int32)))
m = torch.tensor([True, False])
for dt in [torch.long, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool, torch.float32]:
    for v in [3.7, -3.9, -1, 300, True, float("nan"), float("inf"), 2 ** 40]:
        run(f"masked_fill {dt} {v}", lambda: torch.zeros(2, dtype=dt).masked_fill(m, v))
        run(f"masked_fill_ {dt} {v}", lambda: torch.zeros(2, dtype=dt).masked_fill_(m, v))
x = torch.arange(6).reshape(2, 3)
for args in [(0,), (0, 1), ((0, 1),), ([1],), (-1, 0), (0, 0), (2,)]:
    run(f"flip {args}", lambda: x.flip(*args))
run("flip dims=", lambda: x.flip(dims=(1,)))
""",
    "autograd_functional_argument_checks": """
AF = torch.autograd.functional
a = torch.tensor([1.0, 2.0])
s = torch.tensor(3.0)
run("jac float out", lambda: AF.jacobian(lambda x: 3.0, s))
run("jac list out", lambda: AF.jacobian(lambda x: [x, x], a))
run("jac tuple with int", lambda: AF.jacobian(lambda x: (x, 1), a))
run("jac list input", lambda: AF.jacobian(lambda x: x, [a]))
run("jac float input", lambda: AF.jacobian(lambda x: x, 1.0))
run("jac tuple input bad", lambda: AF.jacobian(lambda x, y: x, (a, 2)))
run("hess nonscalar", lambda: AF.hessian(lambda x: x ** 2, a))
run("hess tuple out", lambda: AF.hessian(lambda x: (x.sum(),), a))
run("hess ok", lambda: AF.hessian(lambda x: (x ** 3).sum(), a))
run("hess one-element", lambda: AF.hessian(lambda x: (x ** 3).sum().reshape(1, 1), a))
run("hess strict linear", lambda: AF.hessian(lambda x: x.sum(), a, strict=True))
run("hess strict ok", lambda: AF.hessian(lambda x: (x ** 3).sum(), a, strict=True))
run("hess strict const", lambda: AF.hessian(lambda x: torch.tensor(1.0), a, strict=True))
run("vjp v None nonscalar", lambda: AF.vjp(lambda x: x * 2, a))
run("vjp v None scalar", lambda: AF.vjp(lambda x: (x * 2).sum(), a))
run("vjp v wrong size", lambda: AF.vjp(lambda x: x * 2, a, torch.ones(3)))
run("vjp v tuple len", lambda: AF.vjp(lambda x: (x, x), a, (torch.ones(2),)))
run("vjp v tuple size", lambda: AF.vjp(lambda x: (x, x), a, (torch.ones(2), torch.ones(1))))
run("vjp v two for one", lambda: AF.vjp(lambda x: x, a, (torch.ones(2), torch.ones(2))))
run("vjp v float", lambda: AF.vjp(lambda x: x, a, 1.0))
run("jvp v None", lambda: AF.jvp(lambda x: x * 2, a))
run("jvp v None scalar", lambda: AF.jvp(lambda x: x * 2, s))
run("jvp v wrong size", lambda: AF.jvp(lambda x: x * 2, a, torch.ones(3)))
run("vhp v None", lambda: AF.vhp(lambda x: (x ** 3).sum(), a))
run("vhp nonscalar", lambda: AF.vhp(lambda x: x ** 3, a, torch.ones(2)))
run("hvp nonscalar", lambda: AF.hvp(lambda x: x ** 3, a, torch.ones(2)))
run("hvp tuple out", lambda: AF.hvp(lambda x: (x.sum(),), a, torch.ones(2)))
run("hvp v None scalar", lambda: AF.hvp(lambda x: x ** 3, s))
run("hvp ok", lambda: AF.hvp(lambda x: (x ** 3).sum(), a, torch.ones(2)))
x = torch.tensor([1.0, 2.0], requires_grad=True)
u = torch.ones(1, requires_grad=True)
run("grad materialize allow_unused False", lambda: torch.autograd.grad((x * 2).sum(), [x, u], materialize_grads=True, allow_unused=False))
run("grad materialize allow_unused True", lambda: torch.autograd.grad((x * 2).sum(), [x, u], materialize_grads=True, allow_unused=True))
run("bool empty", lambda: bool(torch.tensor([])))
run("bool two", lambda: bool(torch.tensor([1, 2])))
run("if empty", lambda: 1 if torch.zeros(0, 3) else 0)
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + SNIPPETS[name], show_warnings=False)
