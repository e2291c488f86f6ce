"""In-place comparisons (x.lt_...), gcd/lcm/nextafter and the other ops, modules and autograd.graph helpers
added to close known gaps: small programs run with torch and with the engine print the same."""

from __future__ import annotations

import pytest

from tests.engine.programs import CHAIN, RUN, assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = RUN + CHAIN

SNIPPETS = {
    "inplace_comparisons": """
for op in ["lt_", "le_", "gt_", "ge_", "eq_", "ne_", "less_", "less_equal_", "greater_", "greater_equal_",
           "not_equal_"]:
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    o = torch.tensor([2., 2., 2.], requires_grad=True)
    y = x * 1
    run(op, lambda: (getattr(y, op)(2), y._version))
    chain(y)
    y = x * 1
    run(op + " tensor", lambda: (getattr(y, op)(o), y._version))
    chain(y)
    y.sum().backward()
    run("  grads", lambda: (x.grad, o.grad))
z = torch.zeros(3)
run("other requires grad", lambda: (z.lt_(torch.tensor([1., 0, 0], requires_grad=True)), z.requires_grad))
v = torch.tensor([1., 2., 3., 4.], requires_grad=True).clone()
w = v[1:3]
w.gt_(2)
run("view", lambda: (v, w))
run("int", lambda: torch.tensor([1, 2, 3]).eq_(2))
run("complex eq", lambda: torch.tensor([1 + 1j, 2]).eq_(2))
run("complex lt", lambda: torch.tensor([1 + 1j, 2]).lt_(2))
run("complex lt tensor", lambda: torch.tensor([1 + 1j, 2]).lt_(torch.tensor(2.)))
run("float int", lambda: torch.tensor([1., 2.]).ne_(torch.tensor([1, 3])))
run("bool float", lambda: torch.tensor([True, False]).lt_(torch.tensor([1.5, 0.5])))
run("uint8 wraps", lambda: torch.tensor([1, 2], dtype=torch.uint8).lt_(-1))
u = torch.tensor([1, 2, 255], dtype=torch.uint8)
run("out-of-place wraps", lambda: (u < -1, u == -1, torch.lt(u, 256), u > 300, torch.tensor([1, 2], dtype=torch.int8) == 257))
run("nan", lambda: torch.tensor([1., float('nan')]).ne_(float('nan')))
run("int float tensor", lambda: torch.tensor([1, 2]).lt_(torch.tensor([1.5, 2.5])))
run("int float", lambda: torch.tensor([1, 2]).lt_(1.5))
run("0-d self", lambda: torch.tensor(2.).le_(torch.tensor([1., 3.])))
run("shapes", lambda: torch.tensor([2., 3.]).le_(torch.tensor([1., 3., 4.])))
run("float64 0-d", lambda: torch.tensor([1., 2.], dtype=torch.float64).gt_(torch.tensor(1.5)))
run("bfloat16", lambda: torch.tensor([1., 2.], dtype=torch.bfloat16).gt_(1.5))
run("float16", lambda: torch.tensor([1., 2.], dtype=torch.float16).eq_(torch.tensor([1, 2])))
run("str", lambda: torch.zeros(2).lt_('a'))
run("None", lambda: torch.zeros(2).eq_(None))
run("expanded", lambda: torch.zeros(2).expand(2, 2).lt_(1))
x = torch.tensor([1., 2.], requires_grad=True)
run("leaf", lambda: x.lt_(2))
run("leaf shapes", lambda: x.lt_(torch.ones(3)))
run("detached", lambda: x.detach().lt_(2))
with torch.no_grad():
    run("no_grad leaf", lambda: x.lt_(2))
y = x.exp()
y.lt_(3)
run("saved result changed", lambda: y.sum().backward())
x = torch.tensor([1., 2.], requires_grad=True)
o = torch.tensor(2., dtype=torch.float64, requires_grad=True)
y = x * 1
y.eq_(o)
y.sum().backward()
run("float64 other grads", lambda: (o.grad, x.grad))
""",
    "gcd_lcm": """
a = torch.tensor([12, -18, 0, 7])
b = torch.tensor([8, 12, 0, -21])
run("gcd", lambda: torch.gcd(a, b))
run("lcm", lambda: torch.lcm(a, b))
run("gcd 0-d", lambda: torch.gcd(a, torch.tensor(6)))
run("gcd int", lambda: torch.gcd(a, 6))
run("method int", lambda: a.gcd(6))
run("lcm_ int", lambda: a.lcm_(6))
run("float", lambda: torch.gcd(a.float(), b.float()))
run("int32", lambda: torch.gcd(a, b.to(torch.int32)).dtype)
run("uint8 int8", lambda: torch.gcd(a.to(torch.uint8), b.to(torch.int8)))
run("bool", lambda: torch.gcd(torch.tensor([True]), torch.tensor([True])))
run("lcm wraps", lambda: torch.lcm(torch.tensor([2**40, -4, -2**63, 0, 5]), torch.tensor([3**20, 6, 1, 0, 0])))
run("lcm uint8", lambda: torch.lcm(torch.tensor([200], dtype=torch.uint8), torch.tensor([3], dtype=torch.uint8)))
run("lcm int8", lambda: torch.lcm(torch.tensor([100], dtype=torch.int8), torch.tensor([3], dtype=torch.int8)))
run("gcd_ int32", lambda: torch.tensor([4], dtype=torch.int32).gcd_(torch.tensor([6])))
run("gcd_ shape", lambda: torch.tensor([4]).gcd_(torch.tensor([[6, 2]])))
run("broadcast", lambda: torch.gcd(torch.tensor([4]), torch.tensor([[6], [8]])))
run("mismatch", lambda: torch.gcd(torch.tensor([4, 5]), torch.tensor([1, 2, 3])))
t = torch.tensor([4, 5])
run("torch.gcd_", lambda: (torch.gcd_(t, torch.tensor([2, 3])), t, t._version))
run("torch.lcm_", lambda: torch.lcm_(torch.tensor([4, 5]), torch.tensor([2, 3])))
""",
    "nextafter": """
x = torch.tensor([1., 0., -1.], requires_grad=True)
y = torch.nextafter(x, torch.tensor([2., -1., 0.]))
run("nextafter", lambda: (y, y.dtype))
chain(y)
run("float64", lambda: torch.nextafter(torch.tensor([1.], dtype=torch.float64), torch.tensor([2.])))
run("long", lambda: torch.nextafter(torch.tensor([1]), torch.tensor([2])))
run("float other", lambda: torch.nextafter(torch.tensor([1.]), 2.))
run("0-d float64", lambda: torch.nextafter(torch.tensor([1.]), torch.tensor(2., dtype=torch.float64)).dtype)
run("complex", lambda: torch.nextafter(torch.tensor([1. + 1j]), torch.tensor([2. + 0j])))
run("_ float64 other", lambda: torch.tensor([4.]).nextafter_(torch.tensor([6.], dtype=torch.float64)))
run("_ float64 self", lambda: torch.tensor([4.], dtype=torch.float64).nextafter_(torch.tensor([6.])))
run("int other", lambda: torch.tensor([4.]).nextafter(torch.tensor([6])))
run("method float", lambda: torch.tensor([4.]).nextafter(6.))
run("steps", lambda: (torch.nextafter(torch.tensor([1., 0., -1., 3.]), torch.tensor([2., -1., 0., -5.]))
                      - torch.tensor([1., 0., -1., 3.])).tolist())
run("bfloat16", lambda: torch.nextafter(torch.tensor([1., 0, -1., 0.5, 2.], dtype=torch.bfloat16),
                                        torch.tensor([2., -1, -2., 0., 2.], dtype=torch.bfloat16)).float().tolist())
run("float16", lambda: torch.nextafter(torch.tensor([1., 0, -1.], dtype=torch.float16),
                                       torch.tensor([2., 1, -2.], dtype=torch.float16)).tolist())
run("special", lambda: torch.nextafter(torch.tensor([float('nan'), float('inf'), 0., -0.]),
                                       torch.tensor([1., 0., -0., 0.])))
x = torch.tensor([1., 2., 3., float('nan')], requires_grad=True)
o = torch.tensor([2., 2., 0., 1.], requires_grad=True)
y = torch.nextafter(x, o)
y.backward(torch.tensor([1., 2., 3., 4.]))
run("grads", lambda: (x.grad, o.grad))
go = torch.tensor([5., 6., 7., 8.], requires_grad=True)
g = torch.autograd.grad(torch.nextafter(x, o), [x, o], go, create_graph=True)
run("create_graph", lambda: g)
chain(g[0])
y = x * 1
y.nextafter_(torch.tensor([0., 5., 3., 3.]))
run("in-place", lambda: y)
chain(y)
run("leaf", lambda: x.nextafter_(torch.tensor([0., 5.])))
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + SNIPPETS[name], show_warnings=False)
