"""torch.autograd.forward_ad run with torch and with the engine: dual tensors print, unpack and
propagate their tangents through ops, modules and in-place changes alike, and misuse raises the
same errors."""

from __future__ import annotations

import pytest

import engine
from conftest import torch
from tests.engine.programs import run_program
from tests.engine.test_distributions_vs_torch import assert_same_output

PRELUDE = """
fwAD = torch.autograd.forward_ad
F = torch.nn.functional
def attempt(label, f):
    try:
        print(label, f())
    except Exception as e:
        print(label, type(e).__name__ + ":", e)
torch.manual_seed(0)
x = torch.randn(3, 4)
v = torch.randn(3, 4)
"""

SNIPPETS = {
    "dual_basics": """
with fwAD.dual_level() as level:
    print(level)
    dx = fwAD.make_dual(x[0, :2], v[0, :2])
    print(dx, dx.requires_grad, dx.grad_fn)
    y = dx.sin() * dx
    print(y)
    u = fwAD.unpack_dual(y)
    print(u, type(u).__name__, u._fields)
    print(u.primal._base is y, u.tangent)
    print(fwAD.unpack_dual(x[0]).tangent is None, fwAD.unpack_dual(dx.detach()).tangent)
    print(fwAD.unpack_dual(dx).tangent is fwAD.unpack_dual(dx).tangent)
    print(torch.max(dx, 0), dx > 0, dx.argmax())
    kept = y
print(kept, fwAD.unpack_dual(kept))
print(fwAD.unpack_dual(3))
""",
    "errors": """
attempt("outside", lambda: fwAD.make_dual(x, v))
with fwAD.dual_level():
    attempt("size", lambda: fwAD.make_dual(x, torch.ones(3)))
    attempt("int primal", lambda: fwAD.make_dual(torch.tensor([1, 2]), torch.ones(2)))
    attempt("int tangent", lambda: fwAD.make_dual(torch.ones(2), torch.tensor([1, 2])))
    attempt("nested", lambda: fwAD.enter_dual_level())
attempt("exit", lambda: fwAD.exit_dual_level())
print(fwAD.enter_dual_level()); fwAD.exit_dual_level()
""",
    "ops": """
W, b = torch.randn(5, 4), torch.randn(5)
fns = {
    "sin": lambda a: a.sin(), "exp": torch.exp, "mul": lambda a: a * a * 2, "matmul": lambda a: a @ a.T,
    "sum": lambda a: a.sum(), "mean": lambda a: a.mean(dim=1), "tanh": torch.tanh, "relu": F.relu,
    "sigmoid": torch.sigmoid, "softmax": lambda a: F.softmax(a, dim=-1), "log_softmax": lambda a: F.log_softmax(a, 1),
    "linear": lambda a: F.linear(a, W, b), "mse": lambda a: F.mse_loss(a, torch.zeros(3, 4)),
    "ce": lambda a: F.cross_entropy(a, torch.tensor([0, 1, 3])), "pow": lambda a: a.pow(3) / 2 - 1,
    "gelu": F.gelu, "norm": lambda a: a.norm(), "view": lambda a: a.view(12)[2:7] * 3,
    "max": lambda a: a.max(dim=1).values, "layer_norm": lambda a: F.layer_norm(a, (4,)),
    "scalar": lambda a: (a[0, 0] * 2 + 1).exp(), "cat": lambda a: torch.cat([a, a.abs()]).sqrt(),
    "where": lambda a: torch.where(a > 0, a, a * 0.1),
}
with fwAD.dual_level():
    for name, f in fns.items():
        print(name, *fwAD.unpack_dual(f(fwAD.make_dual(x, v))))
    y = fwAD.make_dual(torch.tensor(2.0), torch.tensor(1.0))
    z = y * y + 3 * y
    print(z, fwAD.unpack_dual(z).tangent)
""",
    "modules_and_inplace": """
lin = torch.nn.Linear(4, 2)
with fwAD.dual_level():
    params = {n: p.detach() for n, p in lin.named_parameters()}
    dual = {n: fwAD.make_dual(p, torch.ones_like(p)) for n, p in params.items()}
    out = torch.func.functional_call(lin, dual, (x,))
    print(fwAD.unpack_dual(out).tangent)
    with torch.no_grad():
        print(fwAD.unpack_dual(lin(fwAD.make_dual(x, v))).tangent)
    t = torch.ones(2)
    a = fwAD.make_dual(torch.ones(2), t)
    a.mul_(3)
    print(a, t)
    acc = torch.zeros(2)
    acc += a
    acc.exp_()
    print(acc)
print(torch.func.jvp(torch.sin, (x[0],), (v[0],)))
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet_matches_torch(name: str) -> None:
    code = PRELUDE + SNIPPETS[name]
    assert_same_output(run_program(engine, code), run_program(torch, code))
