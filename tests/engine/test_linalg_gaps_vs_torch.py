"""torch.linalg.lu_solve/solve_ex, torch.lu_unpack, torch.lu, Tensor.lu and torch.lu_solve; torch.histogram,
histc and bincount; Tensor.index_reduce(_); forward AD tangents with a graph: small programs run with torch and with the engine print the same (values, grad_fn names, saved
values, gradients and their graphs, error messages, deprecation warnings)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.engine.programs import CHAIN, TRY, assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = TRY + CHAIN + """
import warnings

def r(x):  # rounded: the last bits of LAPACK's solves differ between libraries
    return None if x is None else (x * 1e6).round() / 1e6 + 0.0

torch.manual_seed(0)
A = torch.randn(3, 3, dtype=torch.float64, requires_grad=True)
B = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
LU, piv = torch.linalg.lu_factor(A)
"""

SNIPPETS = {
    "lu_solve_values": """
X = torch.linalg.lu_solve(LU, piv, B)
print(r(X), X.grad_fn, X.stride(), X.grad_fn._saved_left, X.grad_fn._saved_adjoint, X.grad_fn._saved_pivots)
print(sorted(a for a in dir(X.grad_fn) if a.startswith('_saved')))
print([type(n[0]).__name__ for n in X.grad_fn.next_functions])
for left in (True, False):
    for adjoint in (False, True):
        X = torch.linalg.lu_solve(LU, piv, B if left else B.mT, left=left, adjoint=adjoint)
        print(left, adjoint, r(X), X.stride())
Bb = torch.randn(2, 3, 2, dtype=torch.float64)
print(r(torch.linalg.lu_solve(LU, piv, Bb)), torch.linalg.lu_solve(LU, piv, Bb).stride())
print(torch.linalg.lu_solve(LU.expand(2, 3, 3), piv.expand(2, 3), B).shape)
print(torch.linalg.lu_solve(LU.float(), piv, B.float()).dtype)
""",
    "lu_solve_grads": """
for left in (True, False):
    for adjoint in (False, True):
        LU, piv = torch.linalg.lu_factor(A)
        X = torch.linalg.lu_solve(LU, piv, B if left else B.mT, left=left, adjoint=adjoint)
        gA, gB = torch.autograd.grad((X ** 2).sum(), (A, B), create_graph=True)
        print(left, adjoint, r(gA), r(gB), gA.grad_fn, gB.grad_fn)
        print(r(torch.autograd.grad(gA.sum() + gB.pow(2).sum(), (A, B))[0]))
L0 = LU.detach().requires_grad_()
X = torch.linalg.lu_solve(L0, piv, B, adjoint=True)
g, = torch.autograd.grad(X.sum(), L0, create_graph=True)
chain(g)
X = torch.linalg.lu_solve(L0, piv, B)
g, = torch.autograd.grad(X.sum(), L0, create_graph=True)
chain(g)
Lb = LU.detach().expand(2, 3, 3).clone().requires_grad_()
X = torch.linalg.lu_solve(Lb, piv.expand(2, 3), B, left=True)
print(r(torch.autograd.grad(X.pow(2).sum(), (Lb, B))[1]))
X = torch.linalg.lu_solve(L0, piv, torch.randn(2, 3, 2, dtype=torch.float64))
print(r(torch.autograd.grad(X.pow(2).sum(), L0)[0]))
""",
    "lu_solve_errors": """
t(lambda: torch.linalg.lu_solve(LU, piv, torch.randn(3, dtype=torch.float64)))
t(lambda: torch.linalg.lu_solve(LU, piv, torch.randn(4, 2, dtype=torch.float64)))
t(lambda: torch.linalg.lu_solve(LU, piv, torch.randn(2, 4, dtype=torch.float64), left=False))
t(lambda: torch.linalg.lu_solve(LU, piv, torch.randn(3, 2)))
t(lambda: torch.linalg.lu_solve(LU, piv.long(), B))
t(lambda: torch.linalg.lu_solve(LU[:, :2], piv, B))
t(lambda: torch.linalg.lu_solve(LU, piv[:2], B))
t(lambda: torch.linalg.lu_solve(torch.ones(3, 3, dtype=torch.int64), piv, torch.ones(3, 1, dtype=torch.int64)))
t(lambda: torch.linalg.lu_solve(torch.ones(3), piv, torch.ones(3, 1)))
t(lambda: torch.linalg.lu_solve(torch.ones(2, 3, 3), torch.ones(3, 3, dtype=torch.int32), torch.ones(3, 1)))
t(lambda: torch.linalg.lu_solve(torch.ones(2, 3, 3), torch.ones(2, 3, dtype=torch.int32), torch.ones(3, 3, 1)))
Z = torch.zeros(3, 3)
p = torch.tensor([1, 2, 3], dtype=torch.int32)
for adjoint in (False, True):
    print(torch.linalg.lu_solve(Z, p, torch.ones(3, 2), adjoint=adjoint))
    print(torch.linalg.lu_solve(Z, p, torch.ones(2, 3), adjoint=adjoint, left=False))
""",
    "lu_unpack": """
P, L, U = torch.lu_unpack(LU, piv)
print(P, r(L), r(U), L.grad_fn, P.grad_fn, U.grad_fn is L.grad_fn)
print(sorted(a for a in dir(L.grad_fn) if a.startswith('_saved')), L.grad_fn._saved_LU_data_sym_argsize_minus_1)
print(torch.lu_unpack(LU, piv, unpack_data=False), torch.lu_unpack(LU, piv, unpack_pivots=False).P)
print(type(torch.lu_unpack(LU, piv)).__name__, torch.lu_unpack(LU.detach().float(), piv).P.dtype)
print(r(torch.dist(P @ L @ U, A)))
for shape in ((2, 4), (4, 3), (2, 4, 3), (2, 3, 5)):
    M = torch.randn(*shape, dtype=torch.float64, requires_grad=True)
    F, p = torch.linalg.lu_factor(M)
    P, L, U = torch.lu_unpack(F, p)
    print(shape, P, r(L), r(U), P.stride(), L.stride(), U.stride())
    F0 = F.detach().requires_grad_()
    P, L, U = torch.lu_unpack(F0, p)
    for out in ((L * 2).sum() + (U ** 2).sum(), (L ** 2).sum(), U.sum()):
        g, = torch.autograd.grad(out, F0, create_graph=True)
        print(r(g), g.grad_fn)
    P, L, U = torch.lu_unpack(F, p)
    g, = torch.autograd.grad(((L * 2).sum() + (U ** 2).sum()), M, create_graph=True)
    print(r(g), g.grad_fn, r(torch.autograd.grad(g.pow(2).sum(), M)[0]))
t(lambda: torch.lu_unpack(LU, piv.long()))
t(lambda: torch.lu_unpack(torch.ones(3), torch.ones(3, dtype=torch.int32)))
t(lambda: torch.lu_unpack(torch.ones(3, 3), torch.tensor([4, 4, 4], dtype=torch.int32)))
print(torch.lu_unpack(torch.ones(3, 3, dtype=torch.int32), torch.tensor([3, 3, 3], dtype=torch.int32)))
print(torch.lu_unpack(torch.ones(3, 3), torch.ones(3), unpack_pivots=False).L)
""",
    "torch_lu": """
with warnings.catch_warnings():  # its once-per-process warning may be spent already: see the test below
    warnings.simplefilter("ignore")
    out = torch.lu(A)
    print(type(out).__name__, r(out[0]), out[1], out[0].grad_fn)
    print(torch.lu(A, get_infos=True).info, type(torch.lu(A, get_infos=True)).__name__)
    print(type(A.lu()).__name__, len(A.lu()), type(A.lu(get_infos=True)).__name__, A.lu(get_infos=True)[2])
    print(torch.lu(torch.ones(3, 3), get_infos=True))
    t(lambda: torch.lu(A, pivot=False))
    t(lambda: torch.lu(torch.ones(3)))
    X = torch.lu_solve(B, *torch.lu(A))
    print(r(X), X.grad_fn)
    print(r(B.lu_solve(LU, piv)))
    print(r(torch.autograd.grad(X.sum(), A)[0]))
""",
    "solve_ex": """
out = torch.linalg.solve_ex(A, B)
print(type(out).__name__, r(out.result), out.info, out.result.grad_fn)
print(r(torch.linalg.solve_ex(A, B[:, 0]).result), r(torch.linalg.solve_ex(A, B.mT, left=False)[0]))
S = torch.tensor([[1., 2, 3], [2, 4, 6], [1, 0, 1]])
print(torch.linalg.solve_ex(S, torch.ones(3)))
print(torch.linalg.solve_ex(S.mT, torch.ones(3)))
print(torch.linalg.solve_ex(S, torch.ones(2, 3), left=False))
print(torch.linalg.solve_ex(torch.zeros(2, 3, 3), torch.ones(3)))
t(lambda: torch.linalg.solve_ex(S, torch.ones(3, 1), check_errors=True))
t(lambda: torch.linalg.solve_ex(torch.eye(3), torch.ones(3), left=False))
t(lambda: torch.linalg.solve(torch.eye(3), torch.ones(3), left=False))
t(lambda: torch.linalg.solve(S, torch.ones(3)))
x = torch.linalg.solve(A, B)
print(r(x.grad_fn._saved_LU), x.grad_fn._saved_pivots, x.grad_fn._saved_LU.stride())
x = torch.linalg.solve(A.mT, B)
print(r(x.grad_fn._saved_LU), x.grad_fn._saved_pivots)
print(torch.linalg.inv_ex(torch.zeros(2, 2)).info)
""",
    "histogram": """
x = torch.randn(20)
w = torch.rand(20)
E = torch.tensor([-2., 0., 0.5, 3.])
t(lambda: torch.histogram(x, 5))
print(torch.histogram(x, bins=3), torch.histogram(x, 3).bin_edges, torch.histogram(x, 3).hist)
t(lambda: torch.histogram(x, 5, range=(-1., 1.)))
t(lambda: torch.histogram(x, E))
t(lambda: torch.histogram(x, 4, weight=w))
t(lambda: torch.histogram(x, 4, density=True))
t(lambda: torch.histogram(x, E, density=True, weight=torch.arange(20.)))
t(lambda: torch.histogram(x.double(), 3))
t(lambda: torch.histogram(x.double(), 3, range=(-1, 1), density=True))
t(lambda: torch.histogram(x.reshape(4, 5), 3, weight=w.reshape(5, 4)))
t(lambda: x.histogram(7))
t(lambda: torch.histogram(torch.tensor([1., 1., 1.]), 4))
t(lambda: torch.histogram(torch.tensor([]), 4))
t(lambda: torch.histogram(torch.tensor([0.]), 3, density=True, range=(1, 2)))
t(lambda: torch.histogram(x, torch.tensor([1., 0.])))
t(lambda: torch.histogram(x, 3, range=(0.5, 0.5)))
for bad in (lambda: torch.histogram(torch.arange(5), 3), lambda: torch.histogram(x.half(), 3),
            lambda: torch.histogram(x, 0), lambda: torch.histogram(x, 3, range=(1., -1.)),
            lambda: torch.histogram(x, 3, range=(2.5,)), lambda: torch.histogram(x, 3, weight=torch.ones(3)),
            lambda: torch.histogram(x, 3, weight=torch.ones(20, dtype=torch.float64)),
            lambda: torch.histogram(x.double(), E), lambda: torch.histogram(x, E[None]),
            lambda: torch.histogram(x, torch.tensor([])), lambda: torch.histogram(x, torch.tensor([0.])),
            lambda: torch.histogram(torch.tensor([0., float('nan')]), 4),
            lambda: torch.histogram(torch.tensor([0., float('inf')]), 4),
            lambda: torch.histogram(x, 3, range=(0.5, float('inf')))):
    t(bad)
xr = x.clone().requires_grad_()
h = torch.histogram(xr, 3, weight=w.requires_grad_())
print(h, h.hist.grad_fn is h.bin_edges.grad_fn, [type(n[0]).__name__ for n in h.hist.grad_fn.next_functions])
t(lambda: h.hist.sum().backward())
print(torch.histogram(x, 3, weight=w).bin_edges.grad_fn)
""",
    "histc_bincount": """
x = torch.randn(20)
for args in ((5,), (5, -1, 1), (4, 2, 1), (4, -3, 3), (-1,)):
    t(lambda: torch.histc(x, *args))
t(lambda: torch.histc(x.double(), bins=4, min=-3, max=3))
t(lambda: torch.histc(torch.tensor([1., 1., 1.]), 4))
t(lambda: torch.histc(torch.arange(5, dtype=torch.float16), 3))
t(lambda: torch.histc(torch.tensor([[1.5, 2.], [0.3, 0.1]]), 4))
t(lambda: torch.histc(torch.tensor([]), 4))
t(lambda: torch.histc(torch.tensor([0., float('nan')]), 4, min=-1, max=1))
for bad in (torch.arange(4), torch.arange(4, dtype=torch.int32)):
    t(lambda: torch.histc(bad, 4))
t(lambda: torch.histc(torch.tensor([0., float('nan')]), 4))
t(lambda: torch.histc(torch.tensor([0., float('inf')]), 4))
t(lambda: torch.histc(torch.tensor([float('nan')]), 4, min=-1, max=float('nan')))
t(lambda: torch.histc(torch.tensor([-float('inf'), 2.]), 4))
t(lambda: torch.histc(torch.tensor([1.5, 2.]), 4, min=0.25, max=float('inf')))
t(lambda: torch.histc(x.requires_grad_(), 4))
i = torch.tensor([0, 3, 3, 1])
for wt in (None, torch.tensor([0.5, 1., 2., 3.]), torch.tensor([0.5, 1., 2., 3.], dtype=torch.float64),
           torch.tensor([1, 2, 3, 4]), torch.tensor([1., 2., 3., 4.], dtype=torch.float16),
           torch.tensor([True, False, True, True])):
    t(lambda: torch.bincount(i, weights=wt, minlength=6))
t(lambda: torch.bincount(torch.tensor([], dtype=torch.long)))
t(lambda: torch.bincount(torch.tensor([1, 2], dtype=torch.uint8)))
for bad in (torch.tensor([-1, 2]), torch.tensor([1., 2.]), torch.tensor([True, False]), torch.tensor([[1, 2]])):
    t(lambda: torch.bincount(bad))
t(lambda: torch.bincount(torch.tensor([1, 2]), weights=torch.tensor([1.])))
t(lambda: torch.bincount(torch.tensor([1, 2]), minlength=-1))
t(lambda: torch.bincount(i, weights=torch.tensor([0.5, 1., 2., 3.], requires_grad=True)))
""",
    "index_reduce": """
warnings.simplefilter("ignore")  # the beta warning is once per process: see the test below
x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
s = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
idx = torch.tensor([0, 2, 2, 3, 0])
w = torch.arange(3.)
for red in ('prod', 'mean', 'amax', 'amin'):
    for inc in (True, False):
        y = x.index_reduce(0, idx, s, red, include_self=inc)
        print(red, inc, y, y.grad_fn, sorted(a for a in dir(y.grad_fn) if a.startswith('_saved')))
        print(y.grad_fn._saved_reduce, y.grad_fn._saved_include_self, y.grad_fn._saved_dim, y.grad_fn._saved_index)
        gx, gs = torch.autograd.grad((y * w).sum(), (x, s), create_graph=True, retain_graph=True)
        print(gx, gs, gx.grad_fn, gs.grad_fn)
        gx, gs = torch.autograd.grad((y * x.detach()).pow(2).sum(), (x, s), create_graph=True)
        print(r(gx), r(gs))
        if gs.grad_fn is not None:
            print(r(torch.autograd.grad(gs.sum() + (gx.sum() if gx.requires_grad else 0), (x, s), allow_unused=True)[1]))
z = x.clone()
z.index_reduce_(1, torch.tensor([2, 0]), s[:4, :2], 'amax')
print(z, z.grad_fn, z.grad_fn._saved_self)
print(torch.autograd.grad(z.sum(), (x, s)))
z = x.clone()
print(z.index_reduce_(-1, torch.tensor([1, 1], dtype=torch.int32), s[:4, :2], 'mean', include_self=False))
print(torch.index_reduce(x, 0, idx, s, 'mean'))
print(torch.arange(6).reshape(3, 2).index_reduce(0, torch.tensor([0, 0]), torch.tensor([[3, 4], [5, 7]]), 'mean'))
print(torch.arange(6).reshape(3, 2).index_reduce(0, torch.tensor([2, 0]), torch.tensor([[3, 4], [5, 7]]), 'amin',
                                                 include_self=False))
t(lambda: torch.ones(3).index_reduce(0, torch.tensor([-1, 0]), torch.tensor([2., 3.]), 'prod'))
t(lambda: x.index_reduce(0, idx, s, 'sum'))
t(lambda: x.index_reduce(0, idx[:3], s, 'prod'))
t(lambda: x.index_reduce(0, torch.tensor([0, 9, 2, 3, 0]), s, 'prod'))
t(lambda: x.index_reduce(0, idx.float(), s, 'prod'))
t(lambda: x.index_reduce(0, idx[None], s, 'prod'))
t(lambda: x.index_reduce(0, idx, s.float(), 'prod'))
t(lambda: x.index_reduce(0, idx, s[:, :2], 'prod'))
t(lambda: x.index_reduce_(0, idx, s, 'prod'))
xz = torch.tensor([[0., 2.], [3., 0.]], requires_grad=True)
sz = torch.tensor([[0., 1.], [0., 5.], [2., 0.]], requires_grad=True)
for i in ([0, 0, 1], [0, 1, 1]):
    y = xz.index_reduce(0, torch.tensor(i), sz, 'prod')
    g = torch.autograd.grad(y.sum(), (xz, sz), create_graph=True)
    print(y, g, g[1].grad_fn, [type(n[0]).__name__ for n in g[1].grad_fn.next_functions])
    t(lambda: torch.autograd.grad(g[1].sum(), sz))
""",
    # When a primal or a tangent requires grad, the tangents of op results have a graph back to them (its node
    # names follow the engine's formulas, not always PyTorch's: only requires_grad and values are printed).
    "forward_ad_tangent_graph": """
fwAD = torch.autograd.forward_ad
model = torch.nn.Linear(4, 2)
x = torch.randn(3, 4)
v = torch.randn(3, 4)
with fwAD.dual_level():
    d = fwAD.make_dual(x, v)
    out = torch.tanh(model(d))
    tg = fwAD.unpack_dual(out).tangent
    print(r(tg), tg.requires_grad)
    tg.pow(2).sum().backward()
    print(r(model.weight.grad), r(model.bias.grad))
    p = torch.randn(3, 4, requires_grad=True)
    d = fwAD.make_dual(p, v)
    tys = [fwAD.unpack_dual(y).tangent for y in ((d ** 3).mean(), d.sin().sum(), (d * d).sum(), (d.exp() * d).sum(),
                                                 torch.tanh(d)[0, 1])]
    for y in (d.sum(), d.view(12), d + 1, d.detach().exp()):
        print(getattr(fwAD.unpack_dual(y).tangent, "requires_grad", None))
    tv = torch.randn(3, 4, requires_grad=True)
    d = fwAD.make_dual(x, tv)
    y = (d.exp() * 2).sum()
    tt = fwAD.unpack_dual(y).tangent
    w = torch.tensor([2., 1., 1.], requires_grad=True)
    d2 = fwAD.make_dual(torch.ones(3), w)
    o2 = (d2 * x[0, :3]).sum()
    print(fwAD.unpack_dual(o2).tangent, torch.autograd.grad(fwAD.unpack_dual(o2).tangent, w))
    with torch.no_grad():
        print(fwAD.unpack_dual(d2.exp()).tangent)
    y = d2.exp()
    y.mul_(2)
    print(fwAD.unpack_dual(y).tangent)
    t(lambda: d2.mul_(2))
    print(fwAD.unpack_dual(d2).tangent)
    d = fwAD.make_dual(p, v)
    z = d.sin()
    z.add_(z)
    print(r(fwAD.unpack_dual(z).tangent), fwAD.unpack_dual(z).tangent.grad_fn, fwAD.unpack_dual(z).tangent._version)
for ty in tys:  # outside the level: inside it PyTorch's gradients may carry tangents of their own
    print(r(ty), ty.requires_grad, r(torch.autograd.grad(ty, p)[0]))
print(r(tt), tt.requires_grad, r(torch.autograd.grad(tt, tv)[0]))
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    # PyTorch's forward AD of some modules warns about torch.jit.script internally: warnings not compared there
    assert_matches_torch(PRELUDE + SNIPPETS[name], show_warnings=not name.startswith("forward_ad"))


@pytest.mark.parametrize("calls", ["torch.lu(A); A.lu(); torch.lu(A, get_infos=True)",
                                   "A.lu(); torch.lu(A)",
                                   "torch.lu_solve(B, *torch.linalg.lu_factor(A)); B.lu_solve(*torch.lu(A))"])
def test_deprecated_lu_warns_once_per_process_as_torch(calls: str) -> None:
    code = ("import warnings, {0} as torch\nwarnings.simplefilter('always')\nA = torch.eye(3)\nB = torch.ones(3, 1)\n"
            f"with warnings.catch_warnings(record=True) as w:\n    {calls}\n"
            "print([(x.category.__name__, str(x.message)) for x in w])")
    root = Path(__file__).resolve().parents[2]
    outputs = [subprocess.run([sys.executable, "-c", code.format(name)], capture_output=True, text=True, cwd=root,
                              timeout=120, check=True).stdout for name in ("torch", "engine")]
    assert "is deprecated" in outputs[0]
    assert outputs[1] == outputs[0]


def test_index_reduce_warns_once_per_process_as_torch() -> None:
    code = ("import warnings, {0} as torch\nwarnings.simplefilter('always')\nx = torch.ones(3)\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    x.index_reduce(0, torch.tensor([0]), torch.ones(1), 'prod'); "
            "torch.index_reduce(x, 0, torch.tensor([1]), torch.ones(1), 'mean')\n"
            "print([(x.category.__name__, str(x.message)) for x in w])")
    root = Path(__file__).resolve().parents[2]
    outputs = [subprocess.run([sys.executable, "-c", code.format(name)], capture_output=True, text=True, cwd=root,
                              timeout=120, check=True).stdout for name in ("torch", "engine")]
    assert "is in beta" in outputs[0]
    assert outputs[1] == outputs[0]
