"""torch.linalg.qr/lstsq/matrix_rank/cond/tensorinv/tensorsolve/lu_factor/lu/lu_solve and torch.qr: small
programs run with torch and with the engine print the same (values, grad_fn names, gradients, double
backward, error messages)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.engine.programs import assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = """
def t(f):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__ + ":", e)

def r(x):  # rounded: the last bits of LAPACK's factors differ between libraries
    return None if x is None else (x * 1e6).round() / 1e6 + 0.0

def show(name, out, inputs):
    gs = torch.autograd.grad(out.sum() if out.dim() else out, inputs, allow_unused=True)
    print(name, out.grad_fn, [type(n[0]).__name__ for n in out.grad_fn.next_functions])
    for g in gs:
        print(r(g))

torch.manual_seed(0)
T = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
W = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
Sq = torch.randn(3, 3, dtype=torch.float64, requires_grad=True)
B = torch.randn(4, 2, dtype=torch.float64, requires_grad=True)
A = torch.tensor([[4.0, 1.0], [1.0, 3.0], [2.0, -1.0]], requires_grad=True)
"""

SNIPPETS = {
    "qr": """
Q, R = torch.linalg.qr(A)
print(Q, R, Q.stride(), R.stride(), Q.grad_fn._saved_mode)
print(torch.linalg.qr(A.mT), torch.linalg.qr(A, mode='complete'), torch.linalg.qr(A, 'r'))
print(torch.linalg.qr(A, mode='complete').R.stride(), torch.linalg.qr(A, 'r').Q.shape)
print(r(torch.linalg.qr(torch.randn(2, 3, 3)).R), torch.linalg.qr(torch.randn(2, 4, 2, dtype=torch.float64)).Q.stride())
show("Q", torch.linalg.qr(T)[0] * torch.arange(3.), T)
show("R", torch.linalg.qr(T)[1] ** 2, T)
Q, R = torch.linalg.qr(T)
show("both", Q.sum() + R.sum(), T)
show("wide Q", torch.linalg.qr(W)[0] * torch.arange(3.), W)
show("wide R", torch.linalg.qr(W)[1] ** 2, W)
Q, R = torch.linalg.qr(W, mode='complete')
show("wide both", (Q * 2).sum() + R.sum(), W)
show("square", torch.linalg.qr(Sq, mode='complete').Q.sum(), Sq)
t(lambda: torch.linalg.qr(T, mode='complete')[0].sum().backward())
t(lambda: torch.linalg.qr(T, mode='r')[1].sum().backward())
import warnings
with warnings.catch_warnings():  # its once-per-process warning may be spent already: see the test below
    warnings.simplefilter("ignore")
    torch.qr(A)
print(torch.qr(A), torch.qr(A, some=False), A.qr())
t(lambda: torch.linalg.qr(torch.ones(3))); t(lambda: torch.linalg.qr(A, mode='x'))
t(lambda: torch.linalg.qr(torch.ones(2, 2, dtype=torch.long))); t(lambda: torch.qr(torch.ones(3)))
print(torch.linalg.qr(torch.zeros(0, 3)), torch.linalg.qr(torch.zeros(2, 0), mode='complete'))
""",
    "lstsq": """
L = torch.linalg.lstsq(T, B)
print(L, L.solution.stride(), L.solution.grad_fn.next_functions)
print(sorted(a for a in dir(L.solution.grad_fn) if a.startswith('_saved')))
for d in ['gels', 'gelsy', 'gelsd', 'gelss']:
    print(d, torch.linalg.lstsq(A, torch.ones(3, 2), driver=d), torch.linalg.lstsq(A.mT, torch.ones(2, 1), driver=d))
print(torch.linalg.lstsq(A, torch.tensor([1., 2., 3.]), driver='gelsd'), torch.linalg.lstsq(T, B, rcond=0.5, driver='gelsd'))
print(torch.linalg.lstsq(T, B, driver='gelss').solution.stride(), torch.linalg.lstsq(T.mT, B[:3]).solution.stride())
X = torch.randn(2, 4, 3)
print(r(torch.linalg.lstsq(X, torch.randn(2, 4, 2), driver='gelsd').residuals), torch.linalg.lstsq(X, torch.randn(2, 4)).solution.stride())
sing = torch.tensor([[1., 2.], [2., 4.], [3., 6.]])
for d in ['gels', 'gelsy', 'gelsd', 'gelss']:
    t(lambda: r(torch.linalg.lstsq(sing, torch.ones(3, 1), driver=d).solution))
show("gelsy", torch.linalg.lstsq(T, B).solution ** 2, (T, B))
show("gelsd", torch.linalg.lstsq(T, B, driver='gelsd').solution ** 2, (T, B))
res = torch.linalg.lstsq(T, B, driver='gels')
show("residuals", res.residuals * torch.tensor([1., 2.]), (T, B))
res = torch.linalg.lstsq(T, B, driver='gels')
show("both", (res.residuals * 3).sum() + res.solution.sum(), (T, B))
show("vector", torch.linalg.lstsq(T, B[:, 0], driver='gelss').residuals ** 2, (T, B))
show("vector x", torch.linalg.lstsq(W.mT, torch.arange(5.).double()).solution.sum(), (W,))
show("wide", torch.linalg.lstsq(W, B[:3]).solution ** 2, (W, B))
t(lambda: torch.linalg.lstsq(torch.ones(3), torch.ones(3))); t(lambda: torch.linalg.lstsq(A, torch.ones(2, 2)))
t(lambda: torch.linalg.lstsq(A, torch.ones(3, 2), driver='foo')); t(lambda: torch.linalg.lstsq(A, B))
t(lambda: torch.linalg.lstsq(A.long(), B.long())); t(lambda: torch.linalg.lstsq(A, torch.ones(4)))
t(lambda: torch.linalg.lstsq(A, torch.ones(2, 2, 3, 2)))
""",
    "cond_rank": """
for p in [None, 2, -2, 'fro', 'nuc', float('inf'), -float('inf'), 1, -1]:
    c = torch.linalg.cond(Sq, p)
    print(p, c, c.grad_fn, [type(n[0]).__name__ for n in c.grad_fn.next_functions])
    t(lambda: r(torch.autograd.grad(c, Sq)[0]))
sing = torch.tensor([[1., 2.], [2., 4.]])
print(torch.linalg.cond(torch.randn(2, 3, 4)), torch.linalg.cond(sing, 1), torch.linalg.cond(sing, 'fro'))
t(lambda: torch.linalg.cond(torch.randn(2, 3), 1)); t(lambda: torch.linalg.cond(torch.ones(3)))
t(lambda: torch.linalg.cond(Sq, 3)); t(lambda: torch.linalg.cond(torch.ones(2, 2, dtype=torch.long)))
t(lambda: torch.linalg.cond(torch.randn(2, 3), float('-inf'))); t(lambda: torch.linalg.cond(torch.randn(2, 3), 'nuc'))
t(lambda: torch.linalg.cond(Sq, 'foo'))
print(torch.linalg.matrix_rank(Sq), torch.linalg.matrix_rank(sing), torch.linalg.matrix_rank(Sq, hermitian=True))
print(torch.linalg.matrix_rank(Sq, atol=1.0), torch.linalg.matrix_rank(Sq, rtol=0.5), torch.linalg.matrix_rank(Sq, atol=0.1, rtol=0.9))
print(torch.linalg.matrix_rank(torch.randn(2, 3, 4)), torch.linalg.matrix_rank(Sq, 1.0), torch.linalg.matrix_rank(Sq, tol=1.0))
print(torch.linalg.matrix_rank(Sq, atol=torch.tensor(1.0)), torch.linalg.matrix_rank(sing, hermitian=True))
t(lambda: torch.linalg.matrix_rank(torch.ones(3))); t(lambda: torch.linalg.matrix_rank(torch.ones(2, 2, dtype=torch.long)))
""",
    "tensorinv_tensorsolve": """
X = torch.randn(4, 6, 8, 3, dtype=torch.float64, requires_grad=True)
I = torch.linalg.tensorinv(X, ind=2)
print(I.shape, I.stride(), I.grad_fn, I.grad_fn.next_functions[0][0].next_functions)
show("tensorinv", I[0, 0] ** 2, X)
U = torch.randn(6, 2, 3, dtype=torch.float64, requires_grad=True)
show("ind=1", torch.linalg.tensorinv(U, ind=1), U)
t(lambda: torch.linalg.tensorinv(torch.ones(6, 4), 1)); t(lambda: torch.linalg.tensorinv(X, ind=0))
t(lambda: torch.linalg.tensorinv(X, ind=1)); t(lambda: torch.linalg.tensorinv(torch.zeros(2, 2, 4)))
t(lambda: torch.linalg.tensorinv(torch.ones(2, 2, dtype=torch.long), 1))
Y = torch.randn(4, 6, dtype=torch.float64, requires_grad=True)
Z = torch.linalg.tensorsolve(X, Y)
print(Z.shape, Z.stride(), Z.grad_fn, Z.grad_fn.next_functions)
show("tensorsolve", torch.linalg.tensorsolve(X, Y) ** 2, (X, Y))
E = torch.randn(2, 3, 6, dtype=torch.float64, requires_grad=True)
show("dims", torch.linalg.tensorsolve(E, torch.ones(2, 3, dtype=torch.float64), dims=(0, 2)), E)
t(lambda: torch.linalg.tensorsolve(X, torch.ones(4, 5, dtype=torch.float64)))
t(lambda: torch.linalg.tensorsolve(torch.zeros(2, 2, 4), torch.ones(2, 2))); t(lambda: torch.linalg.tensorsolve(X, Y.float()))
print(torch.linalg.inv(Sq).stride(), torch.linalg.solve(Sq, Sq).stride())
t(lambda: torch.linalg.solve(Sq, torch.ones(3))); t(lambda: torch.linalg.svdvals(torch.ones(2, 2, dtype=torch.long)))
""",
    "lu": """
LU, piv = torch.linalg.lu_factor(Sq)
print(LU, piv, LU.stride(), LU.grad_fn, piv.grad_fn, sorted(a for a in dir(LU.grad_fn) if a.startswith('_saved')))
print(torch.linalg.lu_factor_ex(Sq), torch.linalg.lu_factor(W), torch.linalg.lu_factor(W.mT))
P, L, U = torch.linalg.lu(Sq)
print(P, L, U, L.stride(), U.stride(), P.grad_fn, L.grad_fn, sorted(a for a in dir(L.grad_fn) if a.startswith('_saved')))
print(torch.linalg.lu(W), torch.linalg.lu(T), torch.linalg.lu(torch.randn(2, 3, 3)).P)
show("lu_factor", torch.linalg.lu_factor(Sq).LU ** 2, Sq)
show("lu_factor wide", torch.linalg.lu_factor_ex(W).LU ** 2, W)
show("lu_factor tall", torch.linalg.lu_factor(T).LU ** 2, T)
for X in (Sq, W, T):
    P, L, U = torch.linalg.lu(X)
    show("L", L ** 2, X)
    P, L, U = torch.linalg.lu(X)
    show("U", U ** 2, X)
    P, L, U = torch.linalg.lu(X)
    show("both", L.sum() * 2 + U.sum(), X)
sing = torch.tensor([[1., 2.], [2., 4.]])
t(lambda: torch.linalg.lu_factor(sing)); print(torch.linalg.lu_factor_ex(sing))
t(lambda: torch.linalg.lu_factor_ex(sing, check_errors=True))
t(lambda: torch.linalg.lu_factor(torch.ones(3))); t(lambda: torch.linalg.lu_factor(torch.ones(2, 2, dtype=torch.long)))
t(lambda: torch.linalg.lu_factor(Sq, pivot=False)); t(lambda: torch.linalg.lu(Sq, pivot=False))
""",
    "double_backward": """
for name, fn, x in [("qr", lambda: (torch.linalg.qr(T)[0] * torch.arange(3.)).sum() + torch.linalg.qr(T)[1].pow(2).sum(), T),
                    ("qr wide", lambda: (torch.linalg.qr(W)[0] * torch.arange(3.)).sum() + torch.linalg.qr(W)[1].pow(2).sum(), W),
                    ("lstsq", lambda: torch.linalg.lstsq(T, B, driver='gels').residuals.pow(2).sum() + torch.linalg.lstsq(T, B).solution.pow(2).sum(), T),
                    ("cond", lambda: torch.linalg.cond(Sq) + torch.linalg.cond(Sq, 'nuc'), Sq),
                    ("tensorinv", lambda: torch.linalg.tensorinv(Sq.view(3, 3, 1), 1).pow(2).sum(), Sq),
                    ("lu_factor", lambda: torch.linalg.lu_factor(Sq).LU.pow(3).sum(), Sq),
                    ("lu", lambda: torch.linalg.lu(W).U.pow(3).sum() + torch.linalg.lu(W).L.pow(3).sum(), W),
                    ("lstsq B", lambda: torch.linalg.lstsq(T, B, driver='gelsd').residuals.pow(2).sum() + torch.linalg.lstsq(T, B).solution.pow(2).sum(), B)]:
    g, = torch.autograd.grad(fn(), x, create_graph=True)
    print(name, g.grad_fn)
    print(r(torch.autograd.grad(g.pow(2).sum(), x)[0]))
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + SNIPPETS[name])


def test_torch_qr_warns_once_per_process_as_torch() -> None:
    code = ("import warnings, {0} as torch\nwarnings.simplefilter('always')\nA = torch.ones(3, 2)\n"
            "with warnings.catch_warnings(record=True) as w:\n    torch.qr(A); A.qr(); torch.qr(A, some=False)\n"
            "print([(x.category.__name__, str(x.message)) for x in w])")
    root = Path(__file__).resolve().parents[2]
    outputs = [subprocess.run([sys.executable, "-c", code.format(name)], capture_output=True, text=True, cwd=root,
                              timeout=120, check=True).stdout for name in ("torch", "engine")]
    assert "torch.qr is deprecated" in outputs[0]
    assert outputs[1] == outputs[0]
