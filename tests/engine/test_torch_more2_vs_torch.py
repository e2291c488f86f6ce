"""logaddexp2, float_power, true_divide, ldexp, frexp, the *_scatter ops, combinations, gradient, histogram and
index_reduce: small programs run with torch and with the engine print the same (values, dtypes, grad_fn names,
gradients, error messages)."""

from __future__ import annotations

import pytest

from tests.engine.programs import assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = """
def t(f):
    try:
        r = f()
        print(r if not isinstance(r, tuple) or type(r).__name__ != 'tuple' else tuple(r))
    except Exception as e:
        print(type(e).__name__ + ":", e)
"""

SNIPPETS = {
    "logaddexp2_float_power_true_divide_ldexp_frexp": """
a=torch.tensor([1.,2.,-3.],requires_grad=True); b=torch.tensor([0.5,2.,1.],requires_grad=True)
r=torch.logaddexp2(a,b); print(r, r.grad_fn.name(), r.grad_fn._saved_self, r.grad_fn._saved_other)
r.sum().backward(); print(a.grad,b.grad); a.grad=None; b.grad=None
r = a.logaddexp2(b); g = torch.autograd.grad(r, (a, b), torch.ones(3), create_graph=True); print(g)
t(lambda: torch.logaddexp2(torch.tensor([1,2]),torch.tensor([1,2])))
print(torch.logaddexp2(torch.tensor([1.,2.]),torch.tensor([1,2])), torch.logaddexp2(torch.tensor([1.,2],dtype=torch.float64),torch.tensor([1.,3])))
print(torch.logaddexp2(torch.tensor([-float('inf'), float('inf'), 1000.]),torch.tensor([-float('inf'), float('inf'), 1000.])))
t(lambda: torch.logaddexp2(a, 2)); t(lambda: torch.logaddexp2(a, torch.tensor([1.,2])))
for e in [2, 2.5, torch.tensor(2.), b, torch.tensor([2, 3, 1])]:
    r = torch.float_power(a, e); print(r, r.grad_fn.name(), [n[0].name() if n[0] else None for n in r.grad_fn.next_functions])
    r.sum().backward(); print(a.grad, b.grad); a.grad=None; b.grad=None
r = torch.float_power(2, b); print(r, r.grad_fn.name(), [n[0].name() for n in r.grad_fn.next_functions])
r = a.float_power(2); print(r.grad_fn._saved_exponent)
print(torch.float_power(torch.tensor([1,2,3]),2), torch.float_power(torch.tensor([1,2,3]),torch.tensor(2.5)), torch.float_power(torch.tensor([True]), 2))
print(torch.float_power(torch.tensor([1.,2],dtype=torch.float16), -1), torch.float_power(torch.tensor([4]), 0.5))
t(lambda: torch.float_power(2, 3)); t(lambda: torch.float_power(a, 'x'))
t(lambda: a.float_power_(2))
x=torch.tensor([1.,2.],dtype=torch.float64); x.float_power_(2); print(x)
x=torch.tensor([1.,2.],dtype=torch.float64,requires_grad=True); y = x.clone(); y.float_power_(torch.tensor([2, 3])); print(y)
y.sum().backward(); print(x.grad)
x64=torch.tensor([1.,2.],dtype=torch.float64,requires_grad=True); r=torch.float_power(x64,2); print(r.grad_fn.next_functions[0][0].name())
t(lambda: torch.tensor([1.,2.],dtype=torch.float64).float_power_(torch.tensor([2,3,4])))
r=torch.true_divide(a,b); print(r); r.sum().backward(); print(a.grad, b.grad); a.grad=None; b.grad=None
print(torch.true_divide(torch.tensor([1,2]),2), torch.true_divide(torch.tensor([1,2]),torch.tensor([2,4])), a.true_divide(2))
x=torch.tensor([1,2]); t(lambda: x.true_divide_(2))
x=torch.tensor([1.,2]); print(x.true_divide_(2), x.true_divide(x))
t(lambda: torch.true_divide(a, b, rounding_mode='floor')); t(lambda: torch.true_divide(a))
y = a * 1; y.true_divide_(b); print(y); y.sum().backward(); print(a.grad, b.grad); a.grad=None; b.grad=None
r=torch.ldexp(a, torch.tensor([1,2,3])); print(r, r.grad_fn.name(), [n[0] is None for n in r.grad_fn.next_functions])
r.sum().backward(); print(a.grad); a.grad=None
r=torch.ldexp(a, b); print(r); r.sum().backward(); print(a.grad,b.grad); a.grad=None; b.grad=None
t(lambda: torch.ldexp(a, 2))
print(torch.ldexp(torch.tensor([1,2]), torch.tensor([1,2])), torch.ldexp(torch.tensor([1.,2]), torch.tensor([1.5,2])))
print(torch.ldexp(a, torch.tensor([1.,2,3],dtype=torch.float64)), torch.ldexp(torch.tensor([1,2],dtype=torch.int32), torch.tensor([1,2],dtype=torch.int32)))
print(torch.ldexp(torch.tensor([1.,2],dtype=torch.float16), torch.tensor([1,2])), torch.ldexp(torch.tensor([True]), torch.tensor([True])))
t(lambda: torch.ldexp(torch.tensor([1.,2]), torch.tensor([1,2,3])))
x=torch.tensor([1.,2]); x.ldexp_(torch.tensor([3,4])); print(x)
x=torch.tensor([1,2]); t(lambda: x.ldexp_(torch.tensor([3,4])))
x=a.clone(); x.ldexp_(torch.tensor([3,4,5])); print(x); x.sum().backward(); print(a.grad); a.grad=None
f=torch.frexp(a); print(f, type(f).__name__, f.mantissa, f.exponent, f[0].grad_fn.name(), f.exponent.requires_grad, len(f))
m, e = a.frexp(); (m*torch.tensor([1.,2,3])).sum().backward(); print(a.grad); a.grad=None
t(lambda: torch.frexp(torch.tensor([1,2]))); t(lambda: torch.frexp(a, 1))
print(torch.frexp(torch.tensor([0., float('inf'), float('nan'), -0.0, 1e-40, 8., -float('inf')])))
print(torch.frexp(torch.tensor([3.], dtype=torch.float16)), torch.frexp(torch.tensor([3.], dtype=torch.float64)), torch.frexp(torch.tensor(3.5)))
a = torch.tensor([1., 2., 3.], requires_grad=True)
y = a * 1; y.ldexp_(torch.tensor([1, -2, 3])); y.sum().backward(); print(y, a.grad)  # pow(2, int) is 0 for -2
""",
    "slice_select_diagonal_scatter": """
a=torch.zeros(3,4,requires_grad=True); s=torch.ones(3,2,requires_grad=True)
r=a.slice_scatter(torch.ones(3,4)); print(r, r.grad_fn._saved_start, r.grad_fn._saved_end, r.grad_fn._saved_dim, r.grad_fn._saved_step)
r=a.slice_scatter(torch.ones(1,4), start=-1); print(r, r.grad_fn._saved_end)
t(lambda: torch.slice_scatter(a, torch.ones(3,3), 1, 0, 4, 2))
t(lambda: torch.select_scatter(a, torch.ones(3), 0, 1))
t(lambda: torch.select_scatter(a, torch.ones(4), 0, 5))
t(lambda: torch.select_scatter(a, torch.ones(4), 0, -3))
t(lambda: torch.select_scatter(a, torch.ones(4), 0, -4))
t(lambda: torch.diagonal_scatter(a, torch.ones(4)))
t(lambda: torch.diagonal_scatter(a, torch.ones(3), 0, 0, 0))
t(lambda: torch.slice_scatter(a, torch.ones(3,2,dtype=torch.float64), 1, 0, 4, 2))
t(lambda: torch.slice_scatter(torch.zeros(3,4,dtype=torch.float64), torch.ones(3,2), 1, 0, 4, 2))
t(lambda: torch.select_scatter(torch.zeros(3,4,dtype=torch.int64), torch.ones(4), 0, 1))
t(lambda: torch.slice_scatter(a, s, 1, step=0))
t(lambda: torch.slice_scatter(a, s, 1, step=-1))
t(lambda: torch.slice_scatter(a, torch.ones(3,0), 1, 5, 10))
t(lambda: torch.slice_scatter(a, torch.ones(3,1), 1, -1))
t(lambda: torch.slice_scatter(a, torch.ones(3,2), 1, -10, 2))
t(lambda: torch.select_scatter(a, torch.tensor(1.), 0, 1))
t(lambda: torch.diagonal_scatter(torch.zeros(2,3,4), torch.ones(2,3), 0, 0, 1))
t(lambda: torch.diagonal_scatter(torch.zeros(2,3,4), torch.ones(4,2), 0, 0, 1))
t(lambda: torch.diagonal_scatter(torch.zeros(2,3,4), torch.ones(4,2), 0, -1, 0))
t(lambda: torch.diagonal_scatter(torch.zeros(2,3,4), torch.ones(2,3), -1, 2, 0).sum())
t(lambda: torch.diagonal_scatter(torch.zeros(2,3,4), torch.ones(2,3), 0, 0, 5))
t(lambda: torch.diagonal_scatter(a, torch.ones(0), 5))
t(lambda: torch.slice_scatter(a, s, 5))
t(lambda: torch.select_scatter(torch.tensor(1.), torch.tensor(2.), 0, 0))
t(lambda: torch.slice_scatter(a, s, dim=1, start=0, end=4, step=2))
torch.manual_seed(0)
x = torch.randn(3, 4, requires_grad=True); w = torch.randn(3, 4)
for name, fn, src in [("slice", lambda x, s: torch.slice_scatter(x, s, 1, 1, None, 2), torch.randn(3, 2, requires_grad=True)),
                      ("slice0", lambda x, s: x.slice_scatter(s, 0, -2), torch.randn(2, 4, requires_grad=True)),
                      ("select", lambda x, s: torch.select_scatter(x, s, 1, -1), torch.randn(3, requires_grad=True)),
                      ("diag", lambda x, s: torch.diagonal_scatter(x, s, 1), torch.randn(3, requires_grad=True)),
                      ("diag_neg", lambda x, s: x.diagonal_scatter(s, -1, 1, 0), torch.randn(3, requires_grad=True))]:
    torch.manual_seed(0)
    r = fn(x, src)
    print(name, r, r.grad_fn.name(), [n[0].name() for n in r.grad_fn.next_functions])
    (r * w).sum().backward()
    print(x.grad, src.grad)
    g = torch.autograd.grad((fn(x, src) ** 2 * w).sum(), (x, src), create_graph=True)
    print(g, [n[0].name() if n[0] else None for n in g[0].grad_fn.next_functions] if g[0].grad_fn else None)
    x.grad = None
r = torch.slice_scatter(torch.zeros(4, dtype=torch.int64), torch.tensor([5, 6]), 0, 0, 4, 2); print(r)
r = torch.select_scatter(torch.zeros(2, 2), torch.ones(2, requires_grad=True), 0, 0); print(r, [n[0] is None for n in r.grad_fn.next_functions])
with torch.no_grad():
    print(torch.diagonal_scatter(x, torch.zeros(3)))
""",
    "combinations": """
a=torch.tensor([1.,2.,3.,4.],requires_grad=True)
r=torch.combinations(a); print(r, r.grad_fn.name(), [n[0].name() for n in r.grad_fn.next_functions])
print(torch.combinations(a, 3), torch.combinations(a, with_replacement=True), torch.combinations(a, r=3, with_replacement=True).shape)
print(torch.combinations(a, 0), torch.combinations(a, 5), torch.combinations(torch.tensor([1,2]), r=1))
t(lambda: torch.combinations(a, -1)); t(lambda: torch.combinations(torch.ones(2,2)))
(torch.combinations(a, 2, True).prod(1)).sum().backward(); print(a.grad)
a.grad = None; torch.combinations(a, 3).pow(2).sum().backward(); print(a.grad)
print(torch.combinations(torch.tensor([]), 2), torch.combinations(torch.tensor([True, False])))
print(torch.combinations(a, r=1).grad_fn.name())
""",
    "gradient": """
a=torch.tensor([1.,2.,4.,7.,11.],requires_grad=True)
r=torch.gradient(a); print(r, type(r).__name__)
print(r[0].grad_fn.name(), [n[0].name() for n in r[0].grad_fn.next_functions])
print(torch.gradient(a, spacing=2.), torch.gradient(a, edge_order=2), torch.gradient(a, spacing=(torch.tensor([0.,1,3,4,7]),)))
print(torch.gradient(a, spacing=[torch.tensor([0.,1,3,4,7])], edge_order=2))
x=torch.arange(12.).reshape(3,4)**2
print(torch.gradient(x), torch.gradient(x, dim=1), torch.gradient(x, spacing=[1.,2.]), torch.gradient(x, dim=(0,), edge_order=2))
print(torch.gradient(x, spacing=3, dim=-1), torch.gradient(x, spacing=[2], dim=[1]), torch.gradient(x, dim=[1, 0], spacing=[torch.tensor([0., 1, 3, 4]), torch.tensor([0., 2, 3])]))
print(torch.gradient(torch.tensor([1,4,9,16])), torch.gradient(torch.tensor([1,4,9,16]), edge_order=2), torch.gradient(torch.tensor([1.,4,9], dtype=torch.float64), spacing=0.5))
t(lambda: torch.gradient(torch.tensor([1.])))
t(lambda: torch.gradient(torch.tensor([1.,2]), edge_order=2))
t(lambda: torch.gradient(a, edge_order=3))
t(lambda: torch.gradient(x, spacing=[1.,2.,3.]))
t(lambda: torch.gradient(x, spacing=[1.,2.], dim=0))
t(lambda: torch.gradient(a, dim=2))
t(lambda: torch.gradient(x, dim=[0,0]))
t(lambda: torch.gradient(torch.tensor([1, 2, 3], dtype=torch.uint8)))
t(lambda: torch.gradient(a, spacing=[torch.ones(5, 1)]))
r=torch.gradient(a, edge_order=2)[0]; r.sum().backward(); print(a.grad); a.grad = None
r=torch.gradient(a, spacing=[torch.tensor([0.,1,3,4,7])], edge_order=2)[0]; (r * torch.arange(5.)).sum().backward(); print(a.grad); a.grad = None
r=torch.gradient(a, spacing=[torch.tensor([0.,1,3,4,7])])[0]; print([n[0].name() for n in r.grad_fn.next_functions])
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + SNIPPETS[name])
