"""torch.linalg.qr/lstsq/matrix_rank/cond/tensorinv/tensorsolve/lu_factor/lu/lu_solve and torch.qr: small
programs run with torch and with the engine print the same (values, grad_fn names, gradients, double
backward, error messages)."""

from __future__ import annotations

import types

import pytest

import engine
from tests.engine.programs import run_program

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
    "double_backward": """
for name, fn, x in [("qr", lambda: (torch.linalg.qr(T)[0] * torch.arange(3.)).sum() + torch.linalg.qr(T)[1].pow(2).sum(), T),
                    ("qr wide", lambda: (torch.linalg.qr(W)[0] * torch.arange(3.)).sum() + torch.linalg.qr(W)[1].pow(2).sum(), W),
                    ("lstsq", lambda: torch.linalg.lstsq(T, B, driver='gels').residuals.pow(2).sum() + torch.linalg.lstsq(T, B).solution.pow(2).sum(), T),
                    ("lstsq B", lambda: torch.linalg.lstsq(T, B, driver='gelsd').residuals.pow(2).sum() + torch.linalg.lstsq(T, B).solution.pow(2).sum(), B)]:
    g, = torch.autograd.grad(fn(), x, create_graph=True)
    print(name, g.grad_fn)
    print(r(torch.autograd.grad(g.pow(2).sum(), x)[0]))
""",
}


def _run(module: types.ModuleType, code: str) -> str:
    return run_program(module, PRELUDE + code, show_warnings=True)


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    code = SNIPPETS[name]
    expected = _run(torch, code)
    actual = _run(engine, code)
    assert actual == expected
