"""torch.linalg.eigh/eigvalsh/pinv/matrix_exp/multi_dot, torch.addmv/block_diag/vander: small programs run with
torch and with the engine print the same (values, grad_fn names, gradients, double backward, error messages)."""

from __future__ import annotations

import pytest

from tests.engine.programs import assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = """
def t(f):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__ + ":", e)

def show(name, out, inputs):
    gs = torch.autograd.grad(out.sum() if out.dim() else out, inputs, allow_unused=True)
    print(name, out.grad_fn, [type(n[0]).__name__ for n in out.grad_fn.next_functions])
    for g in gs:  # rounded: the last bits of LAPACK's factors differ between libraries
        print(None if g is None else (g * 1e6).round() / 1e6 + 0.0)

torch.manual_seed(0)
A0 = torch.randn(3, 3, dtype=torch.float64)
S = (A0 + A0.mT).requires_grad_()
R = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
v = torch.randn(3, dtype=torch.float64, requires_grad=True)
w = torch.randn(4, dtype=torch.float64, requires_grad=True)
A = torch.tensor([[4.0, 1.0], [1.0, 3.0]], requires_grad=True)
"""

SNIPPETS = {
    "eigh": """
print(torch.linalg.eigh(A))
L, V = torch.linalg.eigh(S)
print(L, V, V.stride(), L.grad_fn.next_functions)
show("L", L, S)
show("V", (torch.linalg.eigh(S)[1] * torch.arange(3.)).sum(), S)
L, V = torch.linalg.eigh(S)
show("both", L.sum() + V[0].sum(), S)
show("U", torch.linalg.eigh(S, UPLO='U').eigenvectors.abs().sum(), S)
show("eigvalsh", torch.linalg.eigvalsh(S) ** 2, S)
print(torch.linalg.eigvalsh(A, UPLO='U'), torch.linalg.eigh(torch.tensor([[1., 2.], [3., 4.]]), UPLO='U'))
print(torch.linalg.eigh(torch.randn(2, 3, 3).mT @ torch.randn(2, 3, 3)).eigenvalues)
t(lambda: torch.linalg.eigh(torch.ones(2, 3))); t(lambda: torch.linalg.eigh(torch.ones(3)))
t(lambda: torch.linalg.eigh(A.long())); t(lambda: torch.linalg.eigh(A, UPLO='X'))
t(lambda: torch.linalg.eigvalsh(torch.ones(2, 3)))
""",
    "pinv": """
print(torch.linalg.pinv(A), torch.linalg.pinv(A).stride())
show("pinv", torch.linalg.pinv(R) ** 2, R)
show("pinv T", torch.linalg.pinv(R.mT) ** 2, R)
show("hermitian", torch.linalg.pinv(S, hermitian=True) ** 2, S)
show("pinverse", torch.pinverse(R) ** 2, R)
show("method", R.pinverse() ** 2, R)
sing = torch.tensor([[1., 2.], [2., 4.]])
print(torch.linalg.pinv(sing, hermitian=True), torch.linalg.pinv(sing, atol=0.1, rtol=0.0))
print(torch.pinverse(torch.tensor([[1., 2.], [2., 4.], [1, 1]])), torch.linalg.pinv(sing, hermitian=True, atol=torch.tensor(0.01)))
print(torch.linalg.pinv(torch.tensor([[1., 0.], [0., 1e-9]])), torch.linalg.pinv(torch.tensor([[1., 0.], [0., 1e-3]]), rtol=0.01))
t(lambda: torch.linalg.pinv(torch.ones(3))); t(lambda: torch.linalg.pinv(A.long()))
""",
    "matrix_exp": """
print(torch.matrix_exp(A), A.matrix_exp(), torch.linalg.matrix_exp(A).stride())
show("matrix_exp", torch.matrix_exp(S * 0.3) ** 2, S)
show("big", torch.linalg.matrix_exp(S * 3).sum(), S)
print(torch.matrix_exp(torch.tensor([[0., -1.], [1., 0.]], dtype=torch.float64)))
print(torch.matrix_exp(torch.zeros(2, 2)), torch.matrix_exp(torch.randn(2, 3, 3, dtype=torch.float64)))
print(torch.matrix_exp(torch.tensor([[0.001, 0.], [0.002, 0.]], dtype=torch.float64) * torch.arange(1, 6.).view(5, 1, 1)))
t(lambda: torch.linalg.matrix_exp(torch.ones(2, 3))); t(lambda: torch.linalg.matrix_exp(torch.ones(3)))
t(lambda: torch.matrix_exp(A.long()))
""",
    "addmv": """
show("addmv", torch.addmv(v, R, w, beta=0.5, alpha=2) ** 2, (v, R, w))
show("broadcast", torch.addmv(v[:1], R, w) ** 2, (v, R, w))
out = v.addmv(R, w)
print(out, out.grad_fn._saved_alpha, out.grad_fn._saved_beta)
print(torch.addmv(torch.tensor(1.), A, torch.ones(2), beta=0.5, alpha=2))
t(lambda: torch.addmv(torch.ones(2), A, torch.ones(3))); t(lambda: torch.addmv(torch.ones(3), A, torch.ones(2)))
t(lambda: torch.addmv(torch.ones(2), torch.ones(2), torch.ones(2))); t(lambda: torch.addmv(torch.ones(2), A, A))
t(lambda: torch.addmv(torch.ones(2), A.double(), torch.ones(2)))
""",
    "block_diag_vander": """
show("block_diag", torch.block_diag(S, v, w[0], R) ** 2, (S, v, w, R))
print(torch.block_diag(), torch.block_diag(torch.tensor(2.), torch.ones(2), torch.ones(2, 1, dtype=torch.float64),
                                          torch.ones(0)))
print(torch.block_diag(torch.ones(2, dtype=torch.int64), torch.ones(1)))
t(lambda: torch.block_diag(torch.ones(2, 2, 2)))
t(lambda: show("vander", torch.vander(v, N=4) ** 2, v))
t(lambda: show("vander1", torch.vander(v, N=1) ** 2, v))
print(torch.vander(v, N=3, increasing=True), torch.vander(v, N=1))
print(torch.vander(torch.tensor([1, 2, 3]), N=4, increasing=True), torch.vander(torch.tensor([1., 2.]), N=0),
      torch.vander(torch.tensor([1., 2.]), N=1), torch.vander(torch.tensor([1., 2., 3.])))
t(lambda: torch.vander(A)); t(lambda: torch.vander(torch.ones(2), N=-1))
""",
    "multi_dot": """
show("vectors", torch.linalg.multi_dot([v, S, R, w]), (v, S, R, w))
show("four", torch.linalg.multi_dot([S, S, R, R.mT]) ** 2, (S, R))
show("three", torch.linalg.multi_dot([A, A, torch.ones(2, 3)]), A)
show("two", torch.linalg.multi_dot([A, torch.ones(2)]), A)
t(lambda: torch.linalg.multi_dot([A])); t(lambda: torch.linalg.multi_dot([A, torch.ones(3, 3)]))
t(lambda: torch.linalg.multi_dot([A, A.double()])); t(lambda: torch.linalg.multi_dot([torch.ones(2, 2, 2), A]))
""",
    "double_backward": """
for name, fn, x in [("eigh", lambda: torch.linalg.eigh(S)[1][:, -1].abs().sum() + torch.linalg.eigvalsh(S).pow(3).sum(), S),
                    ("pinv", lambda: torch.linalg.pinv(R).pow(2).sum(), R),
                    ("mexp", lambda: torch.linalg.matrix_exp(S * 0.2).pow(2).sum(), S),
                    ("addmv", lambda: torch.addmv(v, R, w, alpha=3).pow(2).sum(), R),
                    ("block_diag", lambda: torch.block_diag(R, v).pow(3).sum(), R)]:
    g, = torch.autograd.grad(fn(), x, create_graph=True)
    print(name, g.grad_fn)
    print(torch.autograd.grad(g.pow(2).sum(), x)[0])
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + SNIPPETS[name])
