"""torch.nn.utils.parametrizations (weight_norm, spectral_norm, orthogonal) and the hook forms
torch.nn.utils.weight_norm / spectral_norm: reprs, parameter names, state dicts, values, grad_fns,
gradients, power-iteration buffers and warnings compared with PyTorch."""

from __future__ import annotations

import pytest

from tests.engine.programs import CHAIN, TRY, assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = CHAIN + TRY + """
nn = torch.nn
P = torch.nn.utils.parametrizations
weight_norm, spectral_norm, orthogonal = P.weight_norm, P.spectral_norm, P.orthogonal
torch.manual_seed(0)
x = torch.randn(2, 3)
"""

PROGRAMS = {
    "weight_norm": """
m = weight_norm(nn.Linear(3, 4))
print(m)
print(list(m.state_dict()), [n for n, _ in m.named_parameters()])
print(m.weight, m.weight.grad_fn.next_functions)
print(m.parametrizations.weight.original0, m.parametrizations.weight.original1)
m(x).pow(2).sum().backward()
print(m.parametrizations.weight.original0.grad, m.parametrizations.weight.original1.grad)
m2 = weight_norm(nn.Conv2d(2, 3, 2), dim=None); print(m2.parametrizations.weight.original0, m2.weight.grad_fn)
m3 = weight_norm(nn.Linear(3, 4), dim=1); print(m3.parametrizations.weight.original0.shape, m3.weight.grad_fn)
sd = m.state_dict(); m4 = weight_norm(nn.Linear(3, 4)); print(m4.load_state_dict({'weight_g': sd['parametrizations.weight.original0'], 'weight_v': sd['parametrizations.weight.original1'], 'bias': sd['bias']}))
print(torch.equal(m4.weight, m.weight))
""",
    "spectral_norm": """
s = spectral_norm(nn.Linear(3, 4))
print(s); print(list(s.state_dict()))
print(s.parametrizations.weight[0]._u, s.parametrizations.weight[0]._v)
w = s.weight; print(w, w.grad_fn)
print(s.parametrizations.weight[0]._u)
s(x).sum().backward(); print(s.parametrizations.weight.original.grad)
s.eval(); print(s.weight)
c = spectral_norm(nn.ConvTranspose2d(2, 3, 2), n_power_iterations=3); print(c.parametrizations.weight[0]._u, c.weight.sum())
""",
    "orthogonal": """
o = orthogonal(nn.Linear(3, 4)); print(o); print(list(o.state_dict()))
print(o.weight, o.weight.grad_fn, o.parametrizations.weight.original)
print((o.weight.T @ o.weight).round(decimals=4).abs())
o(x).sum().backward(); print(o.parametrizations.weight.original.grad)
o2 = orthogonal(nn.Linear(3, 3)); print(o2.weight, o2.parametrizations.weight.original)
o2(x).sum().backward(); print(o2.parametrizations.weight.original.grad)
o3 = orthogonal(nn.Linear(4, 3), orthogonal_map='cayley'); print(o3.weight)
o3(torch.randn(2, 4)).sum().backward(); print(o3.parametrizations.weight.original.grad)
o4 = orthogonal(nn.Linear(4, 3), orthogonal_map='householder', use_trivialization=False)
print(o4.weight, o4.weight.grad_fn, list(o4.state_dict()))
o5 = orthogonal(nn.Linear(3, 3), orthogonal_map='matrix_exp', use_trivialization=False); print(o5.weight.grad_fn)
for f in [lambda: orthogonal(nn.Linear(3, 3), 'bias'), lambda: orthogonal(nn.Linear(3, 3), orthogonal_map='x'),
          lambda: spectral_norm(nn.Linear(3, 3), n_power_iterations=0), lambda: spectral_norm(nn.Linear(3, 3), dim=3),
          lambda: spectral_norm(nn.Linear(3, 3), 'nope')]:
    try: f()
    except Exception as e: print(type(e).__name__, e)
""",
    "legacy_hooks": """
l = torch.nn.utils.weight_norm(nn.Linear(3, 4))
print(l, list(l.state_dict()), l.weight.grad_fn, l.weight_g)
l(x).sum().backward(); print(l.weight_g.grad, l.weight_v.grad)
try: torch.nn.utils.weight_norm(l)
except Exception as e: print(type(e).__name__, e)
torch.nn.utils.remove_weight_norm(l); print(list(l.state_dict()), l.weight)
try: torch.nn.utils.remove_weight_norm(l)
except Exception as e: print(type(e).__name__, e)
l2 = torch.nn.utils.weight_norm(nn.Linear(3, 4), dim=None); print(l2.weight_g, l2.weight.grad_fn)
ls = torch.nn.utils.spectral_norm(nn.Linear(3, 4))
print(ls, list(ls.state_dict()), ls.weight.grad_fn, ls.weight_u, ls.weight_v)
y = ls(x); print(y, ls.weight.grad_fn, ls.weight_u)
y.sum().backward(); print(ls.weight_orig.grad)
sd = ls.state_dict(); print(sd._metadata[''])
print(ls.load_state_dict(sd))
torch.nn.utils.remove_spectral_norm(ls); print(list(ls.state_dict()), ls.weight)
""",
    "geqrf_householder": """
A = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
tau = torch.rand(3, dtype=torch.float64, requires_grad=True)
Q = torch.linalg.householder_product(A, tau)
print(Q, Q.grad_fn)
chain(Q)
(Q * torch.arange(12.).reshape(4, 3)).sum().backward()
print(A.grad, tau.grad)
g = torch.autograd.grad(torch.linalg.householder_product(A, tau).sum(), (A, tau), create_graph=True)
print(g[0].grad_fn is not None, g[1].grad_fn is not None)
a, t2 = torch.geqrf(A.detach())
print(torch.geqrf(A.detach()))
print(torch.dist(torch.linalg.householder_product(a, t2) @ a.triu()[:3], A.detach()) < 1e-12)
t(lambda: torch.geqrf(A)[0].sum().backward())
t(lambda: torch.geqrf(torch.ones(3)))
t(lambda: torch.linalg.householder_product(torch.ones(2, 3), torch.ones(2)))
t(lambda: torch.linalg.householder_product(torch.ones(3, 2), torch.ones(3)))
v = torch.randn(3, 4, requires_grad=True)
for d in (0, 1, -1):
    n = torch.norm_except_dim(v, 2, d)
    print(n, n.shape)
    chain(n)
w = torch._weight_norm(v, torch.rand(3, 1), 0)
print(w, w.grad_fn._saved_dim, w.grad_fn._saved_result1)
chain(w)
chain(torch._weight_norm(v, torch.rand(1, 4), 1))
chain(torch._weight_norm(v.unsqueeze(1), torch.rand(1, 1, 1), 1))
""",
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_parametrizations_match_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + PROGRAMS[name])


def test_submodule_imports() -> None:
    """`from torch.nn.utils.parametrizations import weight_norm` reaches the engine's functions."""
    import contextlib
    import io

    import engine
    from tests.engine.test_tutorial_snippets_vs_torch import _engine_as_torch

    code = ("import torch\nfrom torch.nn.utils.parametrizations import weight_norm, orthogonal\n"
            "from torch.nn.utils import spectral_norm, remove_spectral_norm\n"
            "print(type(weight_norm(torch.nn.Linear(2, 2))).__name__, callable(remove_spectral_norm))\n")
    out = io.StringIO()
    with _engine_as_torch(), contextlib.redirect_stdout(out):
        exec(code, {})  # noqa: S102 - the test's own program
        import torch.nn.utils.parametrizations as bound
    assert bound is engine.nn.utils.parametrizations
    assert out.getvalue() == "ParametrizedLinear True\n"
