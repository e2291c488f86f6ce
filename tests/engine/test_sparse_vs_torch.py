"""Sparse COO tensors (torch.sparse_coo_tensor, to_sparse, coalesce, torch.sparse.mm/addmm/sum, the
elementwise ops PyTorch runs on them, sparse gradients): programs print the same with torch and the engine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.engine.programs import RUN, assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = RUN + """
S = torch.sparse_coo_tensor
i = torch.tensor([[0, 1, 1], [2, 0, 2]])
v = torch.tensor([3.0, 4.0, 5.0])
def mk():
    return S(i, v, (2, 3), requires_grad=True)
def dup():
    return S([[1, 0, 1], [2, 1, 2]], [1., 2., 3.], (2, 3), requires_grad=True)
def info(t):
    print(t, t.layout, t.is_sparse, t.grad_fn)
def grads(s, out):
    (out.to_dense().sum() if out.is_sparse else out.sum()).backward()
    print(s.grad, None if s.grad is None else s.grad.layout)
"""

SNIPPETS = {
    "construct_and_print": """
s = mk()
info(s)
print(s.shape, s.size(), s.dim(), s.sparse_dim(), s.dense_dim(), s.dtype, s.is_leaf, s.requires_grad)
print(s.is_coalesced(), s.numel(), len(s), S(i, v).size(), S(i, v, dtype=torch.float64))
print(S(i, torch.tensor([1, 2, 3])), S(torch.zeros(2, 0, dtype=torch.long), torch.zeros(0), (2, 3)))
print(repr(S([[0, 0], [1, 1]], [1., 2.], (2, 2))), torch.zeros(2, 2).to_sparse())
print(torch.ones(2).layout, torch.ones(2).is_sparse, torch.strided, torch.sparse_coo)
print(S([[0, 1]], [[1., 2.], [3., 4.]], (3, 2)))
run("bad nnz", lambda: S(i, v[:2], (2, 3)))
""",
    "indices_values_coalesce": """
s = dup()
run("indices", lambda: s.indices())
run("values", lambda: s.values())
c = s.coalesce()
print(c, c.is_coalesced(), c.indices(), c.values(), c.coalesce() is c)
print(s.coalesce().to_dense(), s.to_dense())
grads(s, s.coalesce())
print(s.grad.is_coalesced())
""",
    "conversions_refused": """
s = mk()
run("item", lambda: s.item())
run("numpy", lambda: s.numpy())
run("tolist", lambda: s.tolist())
run("float", lambda: float(s))
run("reshape", lambda: s.reshape(6))
run("contiguous", lambda: s.contiguous())
print(s.stride(), s.is_contiguous())
""",
    "to_sparse_and_to_dense": """
x = torch.tensor([[0., 2.], [3., 0.]], requires_grad=True)
xs = x.to_sparse()
info(xs)
print(xs.is_coalesced(), xs.to_sparse() is xs, x.to_dense() is x)
xs.to_dense().sum().backward()
print(x.grad)
x.grad = None
torch.sparse.mm(xs, torch.ones(2, 2)).sum().backward()
print(x.grad)
s = mk()
d = s.to_dense()
info(d)
grads(s, d)
print(s.grad.is_coalesced())
""",
    "sparse_mm_and_addmm": """
s = mk()
d = torch.ones(3, 2, requires_grad=True)
y = torch.sparse.mm(s, d)
info(y)
print(y.grad_fn.next_functions[1:])
y.sum().backward()
print(s.grad, s.grad.layout, d.grad)
torch.sparse.mm(s, d).sum().backward()
print(s.grad, d.grad)
s2 = mk()
inp = torch.full((2, 2), 1.0, requires_grad=True)
z = torch.sparse.addmm(inp, s2, torch.ones(3, 2), beta=2.0, alpha=3.0)
print(z)
(z * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
print(s2.grad, inp.grad)
""",
    "mm_matmul_sum_dense_grads": """
for name, f in [("mm", lambda s: torch.mm(s, torch.ones(3, 2))), ("matmul", lambda s: s @ torch.ones(3, 2)),
                ("mv", lambda s: s @ torch.ones(3)), ("sum", lambda s: s.sum()), ("d+s", lambda s: torch.ones(2, 3) + s),
                ("left mm", lambda s: torch.ones(4, 2) @ s)]:
    s = mk()
    out = f(s)
    print(name, out, out.layout)
    grads(s, out)
""",
    "sparse_sum": """
s = dup()
print(torch.sparse.sum(s), torch.sparse.sum(s, dim=1), torch.sparse.sum(s, dim=0), torch.sparse.sum(s, dim=(0, 1)))
y = torch.sparse.sum(s)
print(type(y.grad_fn.next_functions[0][0]).__name__)
y.backward()
print(s.grad, s.grad.is_coalesced())
for dim in (0, 1, (0, 1)):
    s = mk()
    out = torch.sparse.sum(s, dim=dim)
    print(out.grad_fn)
    grads(s, out)
""",
    "grad_accumulation": """
s = mk()
d = torch.ones(3, 2)
for _ in range(2):
    s.to_dense().sum().backward()
    print(s.grad, s.grad.is_coalesced())
s.grad = None
torch.mm(s, d).sum().backward(); torch.sparse.mm(s, d).sum().backward()
print(s.grad)
s.grad = None
torch.sparse.mm(s, d).sum().backward(); torch.mm(s, d).sum().backward()
print(s.grad)
dd = torch.full((2, 3), 3., requires_grad=True)
(s * dd).to_dense().sum().backward()
print(dd.grad)
""",
    "elementwise_ops": """
ops = [("neg", lambda s: -s), ("abs", lambda s: s.abs()), ("relu", lambda s: s.relu()), ("pow", lambda s: s.pow(2)),
       ("square", lambda s: s.square()), ("mul2", lambda s: s * 2), ("rmul", lambda s: 2 * s), ("div2", lambda s: s / 2),
       ("mul dense", lambda s: s * torch.full((2, 3), 3.)), ("dense mul", lambda s: torch.full((2, 3), 3.) * s),
       ("s+s", lambda s: s + s), ("s-s", lambda s: s - s), ("sin", lambda s: s.sin()), ("tanh", lambda s: s.tanh()),
       ("sqrt", lambda s: s.sqrt()), ("torch.sin", lambda s: torch.sin(s)), ("F.relu", lambda s: torch.nn.functional.relu(s))]
for name, f in ops:
    s = mk()
    try:
        out = f(s)
        print(name, out, out.is_coalesced())
        grads(s, out)
    except Exception as e:
        print(name, type(e).__name__, str(e)[:150])
""",
    "elementwise_uncoalesced": """
s = dup()
for name, f in [("neg", lambda: -s), ("abs", lambda: s.abs()), ("mul2", lambda: s * 2), ("div2", lambda: s / 2),
                ("mul d", lambda: s * torch.ones(2, 3)), ("sin", lambda: s.sin()), ("pow", lambda: s.pow(2)),
                ("s+clone", lambda: s + s.clone()), ("relu", lambda: s.relu())]:
    out = f()
    print(name, out, out.is_coalesced())
a = S([[0, 1, 1], [2, 0, 2]], [3., 4., 5.], (2, 3))
for b in (S([[0], [0]], [1.], (2, 3)), S([[1, 0], [2, 2]], [1., 7.], (2, 3))):
    for x, y in ((a, b), (b, a), (a.coalesce(), b.coalesce())):
        r = x + y
        print(r, r.is_coalesced())
""",
    "structural_ops": """
for name, f in [("t", lambda s: s.t()), ("transpose", lambda s: s.transpose(0, 1)), ("clone", lambda s: s.clone()),
                ("double", lambda s: s.double()), ("to", lambda s: s.to(torch.float64)), ("float", lambda s: s.float()),
                ("select", lambda s: s[1]), ("select0", lambda s: s[0]), ("coalesce", lambda s: s.coalesce())]:
    s = mk()
    out = f(s)
    print(name, out, out.is_coalesced())
    try:
        grads(s, out)
    except Exception as e:
        print(name, type(e).__name__, str(e)[:150])
s = mk()
d = s.detach()
print(d, d.requires_grad, d.is_sparse, s.long())
print(dup()[1], dup().t())
""",
    "unsupported_ops": """
s = mk()
for name, f in [("exp", lambda: s.exp()), ("log", lambda: torch.log(s)), ("mean", lambda: s.mean()),
                ("mean1", lambda: s.mean(1)), ("view", lambda: s.view(6)), ("sigmoid", lambda: s.sigmoid()),
                ("cumsum", lambda: s.cumsum(0)), ("max", lambda: s.max()), ("s+d", lambda: s + torch.ones(2, 3)),
                ("s-1", lambda: s - 1), ("s/d", lambda: s / torch.ones(2, 3)), ("pow0", lambda: s.pow(0)),
                ("sum dim backward", lambda: s.sum(1).to_dense().sum().backward())]:
    try:
        r = f()
        print(name, r)
    except Exception as e:
        print(name, type(e).__name__, str(e)[:330])
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + SNIPPETS[name], show_warnings=False)


def test_unsupported_op_message_starts_like_torch() -> None:
    import engine

    for module in (torch, engine):
        s = module.sparse_coo_tensor([[0], [1]], [1.0], (2, 2))
        with pytest.raises(NotImplementedError) as info:
            s.exp()
        text = str(info.value)
        if module is torch:
            expected = text.split("\n\n")[0]
        else:
            assert text.rstrip("\n") == expected


WARNING_PROGRAM = """
import warnings
warnings.simplefilter("always")
S = torch.sparse_coo_tensor
a = S([[0], [1]], [1.0], (2, 2))
b = S([[0], [1]], [2.0], (2, 2))
"""


def _stderr(module: str) -> str:
    code = f"import {module} as torch\n" + WARNING_PROGRAM
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True)
    return out.stderr


def test_invariant_warning_once_per_process_as_torch() -> None:
    assert _stderr("engine") == _stderr("torch")
