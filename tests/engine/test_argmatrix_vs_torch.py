"""Argument forms learners use (Python numbers for `other`, shapes that do not broadcast, dims as tuples,
empty dims...) run with torch and with the engine: printed results and error messages must match."""

from __future__ import annotations

import pytest

import engine
from tests.engine.programs import run_program as _run

torch = pytest.importorskip("torch")

SHOW = """
F = torch.nn.functional
def show(f):
    try:
        r = f()
        print(tuple(r) if isinstance(r, tuple) else r)
    except Exception as e:
        print(type(e).__name__ + ":", str(e).split("\\n")[0])
a = torch.tensor([1.0, 2.0, 3.0])
b = torch.tensor([1.0, 2.0])
m = torch.tensor([[1.5, -2.0, 0.0], [3.25, -0.5, 4.0]])
i = torch.tensor([[1, -2, 0], [3, 5, -4]])
mask = torch.tensor([[True, False, True], [False, False, True]])
"""

PROGRAMS = {
    "invalid_combination_lists_keywords_last_given_first": SHOW + """
import numpy as np
for f in (lambda: torch.narrow(m, dim=0, start=0), lambda: m.narrow(dim=0, start=0),
          lambda: torch.rand(2, dtype=np.float32, requires_grad=False), lambda: torch.arange(3, dtype=np.float32),
          lambda: m.masked_fill(mask=mask)):
    show(f)
""",
    "binary_ops_by_keyword": SHOW + """
w = a.clone().requires_grad_()
for f in (lambda: torch.mul(w, other=a), lambda: torch.mul(input=w, other=2), lambda: w.mul(other=a),
          lambda: torch.multiply(w, other=a), lambda: torch.add(w, other=a, alpha=2), lambda: torch.sub(w, other=a),
          lambda: torch.div(w, other=a), lambda: torch.mul(w), lambda: torch.mul(w, a, a)):
    show(f)
""",
    "shapes_that_do_not_broadcast": SHOW + """
for f in (lambda: a == b, lambda: a < b, lambda: a >= b, lambda: torch.eq(a, b), lambda: a.ne(b),
          lambda: torch.gt(m, a[:2]), lambda: torch.logical_and(a, b), lambda: torch.logical_or(a, b),
          lambda: torch.logical_xor(a, b), lambda: a // b, lambda: torch.floor_divide(i, a[:2]),
          lambda: torch.isclose(a, b), lambda: torch.allclose(a, b), lambda: torch.clamp(a, min=b),
          lambda: torch.clamp(a, max=b), lambda: torch.clamp(a, min=torch.zeros(2, 1), max=b),
          lambda: a.masked_fill(torch.tensor([True, False]), 0.0), lambda: torch.zeros(2, 0).masked_fill(mask, 1),
          lambda: torch.zeros(2, 3, 4).masked_fill(mask, 1)):
    show(f)
show(lambda: a == torch.zeros(2, 1))
show(lambda: torch.zeros(3).masked_fill(mask, 1))
show(lambda: torch.clamp(a, max=torch.zeros(2, 1)))
show(lambda: (m.argmax(1) == torch.tensor([0, 2])).float().mean())
""",
    "tensor_only_other": SHOW + """
for f in (lambda: torch.maximum(m, 0), lambda: m.maximum(0.5), lambda: torch.minimum(m, True), lambda: m.minimum(None),
          lambda: torch.fmax(m, 1), lambda: m.fmin(1), lambda: torch.atan2(m, 2), lambda: m.atan2(2),
          lambda: torch.arctan2(m, 2), lambda: m.arctan2(2.0), lambda: torch.hypot(m, 2), lambda: m.hypot(2),
          lambda: torch.logical_and(mask, True), lambda: mask.logical_and(1), lambda: mask.logical_or(0),
          lambda: mask.logical_xor(1), lambda: torch.isclose(m, 2), lambda: m.isclose(2), lambda: torch.allclose(m, 1.5),
          lambda: m.allclose(1.5), lambda: torch.equal(m, 2), lambda: m.equal(2)):
    show(f)
show(lambda: torch.maximum(m, torch.tensor(0.0)))
show(lambda: m.arctan2(m.flip(0)))
show(lambda: torch.equal(m, m.clone()))
""",
    "loss_gradients_for_ignored_targets_and_soft_targets": SHOW + """
for kw in ({}, {"reduction": "sum"}, {"reduction": "none"}, {"label_smoothing": 0.1},
           {"weight": torch.tensor([1.0, 2.0, 0.5])}):
    x = m.clone().requires_grad_()
    loss = F.cross_entropy(x, torch.tensor([0, -100]), **kw)
    loss.sum().backward()
    print(loss, x.grad)
x = m.clone().requires_grad_()
F.nll_loss(x, torch.tensor([2, 0]), ignore_index=0, reduction="none").sum().backward()
print(x.grad)
x = m.clone().requires_grad_()
F.nll_loss(F.log_softmax(x, 1), torch.tensor([-100, -100])).backward()
print(x.grad)
probs = torch.tensor([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])
for kw in ({}, {"reduction": "sum"}, {"reduction": "none"}, {"reduction": "sum", "label_smoothing": 0.1}):
    x = m.clone().requires_grad_()
    loss = F.cross_entropy(x, probs, **kw)
    print(loss, loss.grad_fn.next_functions[0][0].name() if kw.get("reduction") != "none" else "")
    loss.sum().backward()
    print(x.grad)
""",
    "bool_argmax_split_of_scalars_reflected_matmul_names": SHOW + """
s = torch.tensor(2.5)
for f in (lambda: mask.argmax(), lambda: torch.argmax(mask, 1), lambda: mask.argmin(dim=5), lambda: (m > 0).argmax(0),
          lambda: torch.split(s, 1), lambda: s.split([1]), lambda: torch.chunk(s, 2), lambda: s.chunk(0),
          lambda: torch.zeros(2, 0).chunk(3, 1), lambda: torch.zeros(0).chunk(2), lambda: m.chunk(2, dim=1),
          lambda: 2 @ m, lambda: 2.5 @ a, lambda: True @ a, lambda: m @ 2,
          lambda: torch.relu(m, out=torch.empty(0)), lambda: torch.exp(m, dim=1), lambda: torch.sigmoid(s, foo=1)):
    show(f)
show(lambda: (m > 0).float().argmax(1))
""",
    "integer_and_bool_norms": SHOW + """
v = torch.tensor([1, 2])
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
for f in (lambda: torch.norm(i), lambda: i.norm(dim=1), lambda: i.norm(1), lambda: i.norm(0), lambda: mask.norm(2, 1),
          lambda: torch.norm(i, p=float("inf")), lambda: torch.norm(i, dtype=torch.float32), lambda: torch.norm(i, "nuc"),
          lambda: torch.norm(i.int(), p="fro", dim=(0, 1)), lambda: torch.linalg.vector_norm(i),
          lambda: torch.linalg.vector_norm(mask, 1), lambda: torch.linalg.vector_norm(i, dtype=torch.float64),
          lambda: torch.linalg.norm(i), lambda: torch.linalg.norm(i, dim=1), lambda: torch.linalg.norm(i, "fro"),
          lambda: torch.linalg.norm(i, ord=2), lambda: torch.linalg.matrix_norm(i), lambda: torch.linalg.matrix_norm(v),
          lambda: torch.linalg.norm(v, 2), lambda: torch.norm(v, "nuc"), lambda: torch.norm(x, "nuc"),
          lambda: torch.norm(x, p="nuc", keepdim=True), lambda: torch.norm(x, dtype=torch.float64),
          lambda: torch.norm(x.double(), dtype=torch.float32), lambda: torch.norm(m, 1, 1), lambda: m.norm(dim=0)):
    show(f)
""",
    "one_int_dim_arguments": SHOW + """
import numpy as np
calls = [("argmax", ()), ("argmin", ()), ("cumsum", ()), ("cumprod", ()), ("softmax", ()), ("log_softmax", ()),
         ("logcumsumexp", ()), ("cummax", ()), ("cummin", ()), ("median", ()), ("nanmedian", ()), ("mode", ()),
         ("unbind", ()), ("unsqueeze", ()), ("kthvalue", (1,)), ("topk", (1,))]
for name, before in calls:
    for d in ((0, 1), [1], None, 1.0, True):
        show(lambda: getattr(torch, name)(m, *before, d))
        show(lambda: getattr(torch, name)(m, *before, dim=d))
        show(lambda: getattr(m, name)(*before, d))
        show(lambda: getattr(m, name)(*before, dim=d))
for f in (lambda: m.argmax(torch.tensor(1)), lambda: m.cumsum(np.int64(1)), lambda: m.softmax(torch.tensor(1.0)),
          lambda: torch.argmax(m, torch.tensor([1])), lambda: m.transpose(0, 1.0), lambda: torch.transpose(m, None, 1),
          lambda: m.transpose(dim0=0, dim1=(1,)), lambda: m.swapaxes(0, None), lambda: torch.swapdims(m, 0.5, 1),
          lambda: m.flatten(0, None), lambda: torch.flatten(m, end_dim=1.0), lambda: m.clone().transpose_(0, [1]),
          lambda: m.clone().cumprod_(None), lambda: m.clone().unsqueeze_((0,)), lambda: torch.select(m, None, 0),
          lambda: m.gather((1,), i.abs() % 2), lambda: torch.index_select(m, dim=None, index=i[0].abs()),
          lambda: F.softmax(m, (0, 1)), lambda: F.softmax(m, dim=1.0), lambda: F.log_softmax(m, (1,)),
          lambda: F.softmin(m, 1.0), lambda: F.glu(m, None), lambda: F.glu(torch.ones(2, 4), dim=(1,)),
          lambda: F.cosine_similarity(m, m, dim=None), lambda: F.cosine_similarity(m, m, (0, 1)),
          lambda: m.argmax(None), lambda: F.softmax(m, None), lambda: m.cumsum(torch.tensor(-1)), lambda: m.t().flatten()):
    show(f)
""",
    "empty_dim_lists_reduce_every_dim": SHOW + """
for name in ("sum", "mean", "std", "var", "nansum", "nanmean", "count_nonzero", "norm", "amin", "amax", "std_mean",
             "var_mean", "all", "any", "logsumexp"):
    for d in ((), []):
        show(lambda: getattr(torch, name)(m, dim=d))
        show(lambda: getattr(torch, name)(m, d, keepdim=True) if name != "count_nonzero" else None)
show(lambda: torch.linalg.vector_norm(m, dim=()))
show(lambda: torch.linalg.vector_norm(m, 1, []))
show(lambda: torch.linalg.norm(m, dim=()))
show(lambda: torch.sum(i, ()))
show(lambda: m.std(dim=(), correction=0))
show(lambda: torch.tensor(2.0).logsumexp(()))
show(lambda: torch.zeros(0, 2).amax(()))
show(lambda: torch.zeros(0, 2).amax(None))
for name in ("sum", "mean", "nansum", "nanmean", "norm", "amax", "amin"):
    for d in (None, (), []):
        x = m.clone().requires_grad_()
        y = getattr(x, name)(dim=d)
        y.sum().backward()
        print(name, d, y, x.grad)
x = m.clone().requires_grad_()
print(x.sum(), x.sum(None, True), x.mean(), x.mean(None, True), x.sum(axis=1), x.mean(dim=None, keepdim=True))
""",
    "bool_kernels_torch_lacks_and_empty_kthvalue": SHOW + """
for f in (lambda: mask.median(), lambda: mask.median(0), lambda: mask.nanmedian(), lambda: mask.median(5),
          lambda: mask.topk(2), lambda: mask.topk(7), lambda: mask.kthvalue(1), lambda: mask.kthvalue(9),
          lambda: mask.logcumsumexp(0), lambda: mask.logcumsumexp(5), lambda: mask.mode(), lambda: mask.sort(),
          lambda: mask.clone().exp_(), lambda: mask.clone().sigmoid_(), lambda: torch.tensor(True).exp_(),
          lambda: torch.tensor([1, 2], dtype=torch.int8).sqrt_(), lambda: torch.tensor([1, 2]).exp_(),
          lambda: mask.clone().add_(0.5), lambda: torch.kthvalue(torch.tensor([]), 1),
          lambda: torch.kthvalue(torch.zeros(2, 0), 1), lambda: torch.kthvalue(torch.zeros(2, 0), 1, 0),
          lambda: torch.kthvalue(m, 4), lambda: torch.kthvalue(torch.tensor(2.0), 1)):
    show(f)
""",
    "integer_and_bool_promotion": SHOW + """
for f in (lambda: torch.xlogy(i, 2), lambda: torch.xlogy(i, i), lambda: torch.xlogy(2, i), lambda: torch.xlogy(mask, mask),
          lambda: torch.xlogy(i.int(), 2.5), lambda: i.xlogy(3), lambda: torch.special.xlogy(i, 2),
          lambda: torch.special.xlog1py(i, 2), lambda: torch.pow(mask, True), lambda: torch.pow(mask, 2),
          lambda: torch.pow(mask, mask), lambda: mask ** True, lambda: mask.pow(False), lambda: torch.pow(True, mask),
          lambda: torch.pow(2, mask), lambda: torch.add(mask, mask, alpha=2), lambda: torch.add(mask, True, alpha=2),
          lambda: torch.add(mask, mask, alpha=0), lambda: torch.add(i, 1, alpha=0.5), lambda: torch.add(i, i, alpha=0.5),
          lambda: torch.sub(i, 1, alpha=0.5), lambda: i.add(i, alpha=1.5), lambda: i.clone().add_(i, alpha=1.5),
          lambda: torch.add(mask, mask, alpha=0.5), lambda: torch.add(i, 1.5, alpha=0.5), lambda: torch.add(i, i, alpha=True),
          lambda: torch.add(i, m, alpha=0.5), lambda: mask.clone().add_(mask, alpha=2), lambda: i.clone().sub_(1, alpha=2.5),
          lambda: torch.add(2, i, alpha=0.5), lambda: i.add(2.5, alpha=2)):
    show(f)
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.xlogy(torch.tensor([1, 2]), x)
y.sum().backward()
print(y, x.grad)
""",
    "out_dtype_mismatch_messages": SHOW + """
import warnings
warnings.simplefilter("ignore")
L = lambda: torch.empty(0, dtype=torch.long)
D = lambda: torch.empty(0, dtype=torch.float64)
for f in (lambda: torch.abs(m, out=L()), lambda: torch.neg(m, out=D()), lambda: torch.floor(m, out=L()),
          lambda: torch.clamp(m, 0, 1, out=L()), lambda: torch.round(m, out=D()), lambda: torch.abs(i, out=torch.empty(0)),
          lambda: torch.exp(m, out=L()), lambda: torch.add(m, m, out=L()), lambda: torch.exp(m, out=D()),
          lambda: torch.where(m > 0, m, m, out=D()), lambda: torch.max(m, 0, out=(L(), L())), lambda: torch.sort(m, out=(D(), L())),
          lambda: torch.cat([m, m], out=L()), lambda: torch.stack([m, m], out=D()), lambda: torch.amax(m, 0, out=D()),
          lambda: torch.logsumexp(m, 0, out=L()), lambda: torch.logsumexp(m, 0, out=D()),
          lambda: torch.kthvalue(m, 1, out=(D(), L())), lambda: torch.mode(m, out=(L(), L())),
          lambda: torch.cummax(m, 0, out=(D(), L())), lambda: torch.logcumsumexp(m, 0, out=L()),
          lambda: torch.index_select(m, 0, torch.tensor([1, 0]), out=D()), lambda: torch.nan_to_num(m, out=L()),
          lambda: torch.median(m, 0, out=(D(), L())), lambda: torch.sum(m * 1.7, 0, out=L()),
          lambda: torch.cumsum(m * 1.7, 0, out=L()), lambda: torch.prod(m * 1.7, 0, out=L()), lambda: torch.sum(i, 0, out=D()),
          lambda: torch.sum(m, 0, dtype=torch.float64, out=L()), lambda: torch.mean(m, 0, out=L())):
    show(f)
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_argmatrix_program_matches_torch(name: str) -> None:
    code = PROGRAMS[name]
    assert _run(engine, code) == _run(torch, code)
