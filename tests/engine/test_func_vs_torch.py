"""torch.func run with torch and with the engine: grad, vjp, jvp, jacrev, jacfwd, hessian, vmap and
functional_call give the same values, the same printed results (no grad_fn unless something outside
the transform requires grad) and the same error messages."""

from __future__ import annotations

import pytest

import engine
from conftest import torch
from tests.engine.test_distributions_vs_torch import assert_same_output
from tests.engine.test_snippets_vs_torch import _run

PRELUDE = """
from_func = torch.func
grad, vmap, grad_and_value, vjp, jvp = from_func.grad, from_func.vmap, from_func.grad_and_value, from_func.vjp, from_func.jvp
jacrev, jacfwd, hessian, functional_call = from_func.jacrev, from_func.jacfwd, from_func.hessian, from_func.functional_call
def show(label, f):
    try:
        r = f()
        print(label, r)
        for t in (r if isinstance(r, (tuple, list)) else [r]):
            if isinstance(t, torch.Tensor):
                print("  requires_grad", t.requires_grad, type(t.grad_fn).__name__ if t.grad_fn else None)
    except Exception as e:
        print(label, type(e).__name__ + ":", e)
f = lambda x: (x.sin() * x).sum()
x = torch.tensor([0.0, 1.0, 2.0])
M = torch.arange(6.0).reshape(2, 3) / 4
"""

# Transform calls printed with their results' requires_grad and grad_fn.
CALLS = [
    "grad(f)(x)",
    "grad(f)(torch.tensor(1.5))",
    "grad(grad(lambda t: t ** 3))(torch.tensor(2.0))",
    "grad(grad(grad(lambda t: t.sin())))(torch.tensor(0.5))",
    "grad_and_value(f)(x)",
    "grad(lambda x, y: (x * y).sum(), argnums=(0, 1))(x, x + 1)",
    "grad(lambda x, y: (x * y).sum(), argnums=1)(x, x + 1)",
    "grad(lambda x, y: (x * y.exp()).sum(), argnums=-1)(x, x + 1)",
    "grad(lambda x: ((x ** 2).sum(), x.mean()), has_aux=True)(x)",
    "grad_and_value(lambda x: ((x ** 2).sum(), {'m': x.mean()}), has_aux=True)(x)",
    "grad(lambda x: x[0].sum() * x[1].sum())([x, x + 1])",
    "grad(lambda d: (d['a'] * d['b']).sum())({'a': x, 'b': x * 2})",
    "grad(lambda x, y: (x * y).sum())(x, x)",
    "grad(lambda x: (x * 0).sum() + 1)(x)",
    "grad(lambda x, y: x.sum(), argnums=(0, 1))(x, x)",
    "grad(lambda a: grad(lambda b: (a * b).sum())(a).sum())(x)",
    "grad(lambda a: (a * grad(lambda b: (b ** 2).sum())(a)).sum())(x)",
    "vjp(torch.sin, x)[1](torch.ones(3))",
    "vjp(torch.sin, x)[0]",
    "vjp(lambda a, b: a * b, x, x + 1)[1](torch.ones(3))",
    "vjp(lambda a: (a.sin(), a.cos()), x)[1]((torch.ones(3), torch.ones(3)))",
    "vjp(lambda a: (a.exp(), a.sum()), x, has_aux=True)[2]",
    "jvp(torch.sin, (x,), (torch.ones(3),))",
    "jvp(lambda a, b: a * b, (x, x + 1), (torch.ones(3), torch.zeros(3)))",
    "jvp(lambda a: (a.exp(), a.sum()), (x,), (torch.ones(3),))",
    "jvp(lambda a: a.detach().sum() + a.sum() * 0, (x,), (torch.ones(3),))",
    "jvp(lambda a: torch.ones(2, dtype=torch.int64), (x,), (torch.ones(3),))",
    "jacrev(torch.sin)(x)",
    "jacfwd(torch.sin)(x)",
    "hessian(f)(x)",
    "jacrev(lambda a, b: a @ b, argnums=(0, 1))(M, torch.ones(3))",
    "jacfwd(lambda a, b: a @ b, argnums=(0, 1))(M, torch.ones(3))",
    "jacrev(lambda a: (a.sum(), a * 2))(x)",
    "jacfwd(lambda a: a.outer(a))(torch.tensor([1.0, 2.0]))",
    "jacrev(lambda a: a.outer(a))(torch.tensor([1.0, 2.0]))",
    "hessian(lambda a, b: (a * b).pow(2).sum(), argnums=1)(x, x + 1)",
    "hessian(lambda a: (a @ a.mT).sum())(M)",
    "jacrev(lambda a: (a ** 2, a.sum()), has_aux=True)(x)",
    "jacrev(jacrev(lambda a: a.pow(3).sum()))(x)",
    "jacfwd(jacfwd(lambda a: a.pow(3).sum()))(x)",
    "jacrev(lambda a: torch.zeros(2))(x)",
    "jacrev(lambda a: a.sum())(torch.tensor(3.0))",
    "vmap(torch.dot)(torch.ones(2, 3), M)",
    "vmap(lambda a: a * 2, in_dims=1)(M)",
    "vmap(lambda a, b: a + b, in_dims=(0, None))(M, torch.arange(3.0))",
    "vmap(lambda a: a.sum(0))(torch.ones(2, 3, 4)).shape",
    "vmap(lambda a: a, out_dims=1)(M)",
    "vmap(lambda a: a, out_dims=-1)(torch.ones(2, 3, 4)).shape",
    "vmap(grad(f))(M)",
    "vmap(vmap(torch.dot))(torch.ones(2, 4, 3), torch.ones(2, 4, 3))",
    "vmap(lambda a: (a, a * 2))(torch.ones(2))",
    "vmap(lambda a: {'x': a})(torch.ones(2))",
    "vmap(lambda a: a, in_dims=-1)(M)",
    "vmap(lambda a, k=1: a * k)(torch.ones(2), k=3)",
    "vmap(lambda a: torch.zeros(2))(torch.ones(3))",
    "vmap(lambda a: a.sum())(torch.ones(0, 3))",
    "vmap(lambda d: d['a'] * d['b'], in_dims=({'a': 0, 'b': None},))({'a': torch.arange(3.0), 'b': torch.tensor(2.0)})",
    "vmap(lambda a, b: a * b, in_dims=(1, 0), out_dims=1)(M.mT, torch.arange(2.0))",
    "vmap(lambda a: (a, a.sum()), out_dims=(0, None))(M)",
    "vmap(jacrev(torch.sin))(M)",
    "vmap(hessian(f))(M)",
    "grad(lambda a: vmap(torch.sin)(a).sum())(x)",
    "jacrev(vmap(torch.sin))(M)",
    "vmap(lambda r: r.dot(r))(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))",
    "vmap(lambda r: r.dot(r))(torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)).requires_grad",
    "vmap(torch.outer)(M, M)",
    "vmap(lambda a: torch.rand(2), randomness='same')(torch.ones(3))",
    "vmap(lambda a: torch.rand(2) + a, randomness='different')(torch.ones(3))",
    "vmap(lambda a: torch.rand(2))(torch.ones(3))",
]

ERRORS = [
    "grad(lambda x: x)(x)",
    "grad(lambda x: 1.0)(x)",
    "grad(lambda x: x.sum(), argnums=1)(x)",
    "grad(lambda x: x.sum(), argnums=(0, 0))(x)",
    "grad(lambda x: x.sum(), argnums=1.5)(x)",
    "grad(lambda x: x.sum(), has_aux=True)(x)",
    "grad(lambda x: (x.sum(), 1, 2), has_aux=True)(x)",
    "grad(lambda x: x.sum())(1.0)",
    "grad(lambda x: x.sum())(torch.tensor([1, 2]))",
    "grad(lambda x: x.sum())()",
    "vmap(lambda a: a)(torch.ones(2), torch.ones(3))",
    "vmap(lambda a, b: a + b)(torch.ones(2), torch.ones(3))",
    "vmap(lambda a: a, in_dims=1)(torch.ones(2))",
    "vmap(lambda a: a, in_dims=(0, 0))(torch.ones(2))",
    "vmap(lambda a, b: a, in_dims=(0, 0))(torch.ones(2), 3.0)",
    "vmap(lambda a: 1.0)(torch.ones(2))",
    "vmap(lambda a: a)(3.0)",
    "vmap(lambda a: a, in_dims=None)(torch.ones(2))",
    "vmap(lambda a: a, in_dims='x')(torch.ones(3))",
    "vmap(lambda a: a, out_dims=(0, 1))(torch.ones(2))",
    "vmap(lambda a: a, out_dims=2)(M)",
    "vmap(lambda a: torch.randn(2))(torch.ones(2))",
    "vmap(lambda a: a, randomness='sometimes')(torch.ones(2))",
    "jacrev(lambda a: a.sum())(1.0)",
    "vjp(lambda a: a * 2, x)[1](torch.ones(2))",
    "jvp(lambda a: a * 2, (x,), (torch.ones(2),))",
    "jvp(lambda a: a * 2, x, (torch.ones(3),))",
]


@pytest.mark.parametrize("call", CALLS + ERRORS)
def test_transform_matches_torch(call: str) -> None:
    code = PRELUDE + f"torch.manual_seed(0)\nshow({call!r}, lambda: {call})\nprint(torch.rand(1))\n"
    assert_same_output(_run(engine, code), _run(torch, code))


SNIPPETS = {
    "outer_graphs": """
xr = x.clone().requires_grad_()
g = grad(f)(xr); print(g, type(g.grad_fn).__name__)
g.sum().backward(); print(xr.grad)
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
g = grad(lambda x: (x * w).sum())(x); print(g, type(g.grad_fn).__name__)
g.sum().backward(); print(w.grad)
v, fn = vjp(lambda a: a * w, x); print(v, fn(torch.ones(3)))
print(jacrev(lambda a: a * w)(x).requires_grad, jacrev(lambda a: a * 2)(x).requires_grad)
with torch.no_grad():
    print(grad(f)(xr), grad(lambda x: (x * w).sum())(x))
h = hessian(lambda a: (a.pow(3) * w).sum())(x); print(h, h.requires_grad)
""",
    "functional_call": """
torch.manual_seed(0)
m = torch.nn.Linear(3, 1)
show("dict", lambda: functional_call(m, {'weight': torch.ones(1, 3), 'bias': torch.zeros(1)}, (x,)))
show("single arg", lambda: functional_call(m, {'weight': torch.ones(1, 3), 'bias': torch.zeros(1)}, x))
show("two dicts", lambda: functional_call(m, ({'weight': torch.ones(1, 3)}, {'bias': torch.ones(1)}), (x,)))
show("partial", lambda: functional_call(m, {'bias': torch.ones(1)}, (x,)))
print(m.weight, m.bias, type(m.weight).__name__)
params = {'weight': torch.ones(1, 3, requires_grad=True), 'bias': torch.zeros(1, requires_grad=True)}
out = functional_call(m, params, (x,)); print(out); out.sum().backward(); print(params['weight'].grad, m.weight.grad)
seq = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Tanh(), torch.nn.Linear(2, 1))
ps = {k: torch.full_like(v, 0.1) for k, v in seq.named_parameters()}
show("sequential", lambda: functional_call(seq, ps, (x,)))
show("grad of params", lambda: grad(lambda p: functional_call(seq, p, (x,)).sum())(ps))
show("per-example", lambda: vmap(lambda xi: functional_call(seq, ps, (xi,)))(M))
show("missing strict", lambda: functional_call(m, {'weight': torch.ones(1, 3)}, (x,), strict=True))
show("unexpected strict", lambda: functional_call(m, {'weight': torch.ones(1, 3), 'bias': torch.zeros(1),
                                                   'foo': torch.ones(1)}, (x,), strict=True))
show("kwargs", lambda: functional_call(torch.nn.Softmax(dim=0), {}, (), {'input': x}))
bn = torch.nn.BatchNorm1d(3)
show("buffers", lambda: functional_call(bn, {'running_mean': torch.ones(3)}, (M,)))
print(bn.running_mean)
""",
    "per_sample_gradients": """
torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
params = {k: v.detach() for k, v in model.named_parameters()}
def loss(p, xi, yi):
    out = functional_call(model, p, (xi.unsqueeze(0),))
    return torch.nn.functional.cross_entropy(out, yi.unsqueeze(0))
xs = torch.randn(4, 3); ys = torch.tensor([0, 1, 1, 0])
g = vmap(grad(loss), in_dims=(None, 0, 0))(params, xs, ys)
print({k: v.shape for k, v in g.items()}, g['bias'])
print(torch.allclose(g['weight'].mean(0), grad(lambda p: sum(loss(p, xs[i], ys[i]) for i in range(4)) / 4)(params)['weight']))
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet_matches_torch(name: str) -> None:
    code = PRELUDE + SNIPPETS[name]
    assert_same_output(_run(engine, code), _run(torch, code))


def test_import_forms() -> None:
    """torch.func, from torch.func import grad, vmap, and torch.vmap are the same functions."""
    import engine.func
    from engine.func import grad, vmap

    assert engine.func.grad is grad and engine.vmap is vmap is engine.func.vmap
    assert set(engine.func.__all__) <= set(dir(torch.func))
