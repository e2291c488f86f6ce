"""view(dtype) bit reinterpretation, NumPy dtypes given to torch, missing-argument errors, einsum's sublist
form, eig/eigvals, is_neg, int64 wrap-around, a second backward through scatter and torch.fft; programs run
with torch and with the engine print the same."""

from __future__ import annotations

import pytest

from tests.engine.programs import RUN, WALK, assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = RUN + WALK

SNIPPETS = {
    "view_dtype_reinterprets_bits": """
x = torch.tensor([[1.0, -2.0], [0.5, 3.0]])
for d in [torch.int32, torch.int8, torch.uint8, torch.int16, torch.float16, torch.bfloat16, torch.float64,
          torch.int64, torch.complex64, torch.float32]:
    run(str(d), lambda: (x.view(d), x.view(d).shape, x.view(d).stride()))
run("dtype kw", lambda: x.view(dtype=torch.int32))
run("c->f", lambda: torch.tensor([1+2j, 3j]).view(torch.float32))
run("c->f64", lambda: torch.tensor([1+2j, 3j]).view(torch.float64))
run("i8->i32", lambda: torch.tensor([1, 2, 3, 4], dtype=torch.int8).view(torch.int32))
run("i8->i16", lambda: torch.tensor([[1, 2, 3, 4]], dtype=torch.int8).view(torch.int16))
run("u8->bool", lambda: torch.tensor([0, 1, 1], dtype=torch.uint8).view(torch.bool))
run("bool->u8", lambda: torch.tensor([True, False]).view(torch.uint8))
run("i64->f64", lambda: torch.tensor([1, 2]).view(torch.float64))
run("bf16->i16", lambda: torch.tensor([1.0, -2.0], dtype=torch.bfloat16).view(torch.int16))
run("i16->bf16", lambda: torch.tensor([16256, 16448], dtype=torch.int16).view(torch.bfloat16))
run("bf16->f32", lambda: torch.tensor([1.5, 2.0], dtype=torch.bfloat16).view(torch.float32))
run("0d same", lambda: torch.tensor(1.0).view(torch.int32))
run("t same", lambda: (x.t().view(torch.int32), x.t().view(torch.int32).stride()))
run("slice", lambda: torch.arange(8, dtype=torch.int8)[2:6].view(torch.int16))
run("cols", lambda: torch.arange(16, dtype=torch.int8).view(4, 4)[:, :2].view(torch.int16))
run("rows", lambda: torch.arange(8.).view(4, 2)[::2].view(torch.float64))
run("expanded", lambda: (torch.ones(2, 2).expand(3, 2, 2).view(torch.int8).shape,
                         torch.ones(2, 2).expand(3, 2, 2).view(torch.int8).stride()))
run("empty", lambda: (torch.empty(0, 4).view(torch.float64), torch.empty(0).view(torch.float64)))
run("empty strides", lambda: (torch.empty(0, 4).stride(), torch.empty(3, 0).stride(), torch.empty(0).stride()))
# PyTorch's checks
run("odd", lambda: torch.ones(3).view(torch.float64))
run("0d", lambda: torch.tensor(1.0).view(torch.float64))
run("0d small", lambda: torch.tensor(1.0).view(torch.int8))
run("t big", lambda: x.t().view(torch.float64))
run("t small", lambda: x.t().view(torch.int8))
run("t4", lambda: torch.ones(4, 4).t().view(torch.float64))
run("step", lambda: torch.ones(6)[::2].view(torch.float64))
run("offset", lambda: torch.arange(8, dtype=torch.int8)[1:5].view(torch.int16))
run("offset2", lambda: torch.arange(16, dtype=torch.int8).view(4, 4)[:, 1:3].view(torch.int16))
run("empty cols", lambda: torch.empty(3, 0).view(torch.float64))
run("half", lambda: torch.ones(1, dtype=torch.float16).view(torch.float32))
run("str", lambda: x.view("float"))
run("none", lambda: x.view(None))
run("float", lambda: x.view(2.0))
run("two dtypes", lambda: x.view(torch.int32, torch.int8))
""",
    "view_dtype_is_not_differentiable_and_shares_memory": """
y = torch.tensor([1.0, 2.0], requires_grad=True)
z = y * 2
for d in [torch.int32, torch.float16, torch.float32, torch.complex64, torch.float64]:
    run(str(d), lambda: (y.view(d), z.view(d), z.view(d).requires_grad, z.view(d).grad_fn, z.view(d).is_leaf))
run("base", lambda: (z.view(torch.int32)._base, z.view(torch.float32)._is_view()))
u = torch.zeros(2)
vi = u.view(torch.int32)
vi[0] = 1065353216
print(u)
vi.add_(5)
print(u, u._version, vi._version)
b = torch.zeros(2, 2)
b8 = b.view(torch.uint8)
b8[1, 3] = 63
b8[1, 2] = 128
print(b)
with torch.no_grad():
    run("no_grad", lambda: y.view(torch.float64))
""",
    "numpy_dtypes_are_refused_as_pytorch_refuses_them": """
import numpy as np
torch.manual_seed(0)
x = torch.tensor([1.5, 2.5])
run("to np.int64", lambda: x.to(np.int64))
run("to np.dtype", lambda: x.to(np.dtype('int64')))
run("to dtype=np", lambda: x.to(dtype=np.float32))
run("to dtype=str", lambda: x.to(dtype='float32'))
run("to copy", lambda: x.to(np.int32, copy=True))
run("to cpu np", lambda: x.to('cpu', np.int64))
run("to python types", lambda: (x.to(float), x.to(int), x.to(bool), x.to(complex)))
for name, fn in [("zeros", lambda d: torch.zeros(2, dtype=d)), ("ones", lambda d: torch.ones(2, 3, dtype=d)),
                 ("empty", lambda d: torch.empty(2, dtype=d).shape), ("full", lambda d: torch.full((2,), 1, dtype=d)),
                 ("tensor", lambda d: torch.tensor([1, 2], dtype=d)), ("as_tensor", lambda d: torch.as_tensor([1], dtype=d)),
                 ("scalar_tensor", lambda d: torch.scalar_tensor(1, dtype=d)),
                 ("zeros_like", lambda d: torch.zeros_like(x, dtype=d)), ("ones_like", lambda d: torch.ones_like(x, dtype=d)),
                 ("full_like", lambda d: torch.full_like(x, 2, dtype=d)), ("new_zeros", lambda d: x.new_zeros(2, dtype=d)),
                 ("new_ones", lambda d: x.new_ones(2, dtype=d)), ("new_full", lambda d: x.new_full((2,), 1, dtype=d)),
                 ("new_tensor", lambda d: x.new_tensor([1], dtype=d)), ("cumsum", lambda d: x.cumsum(0, dtype=d)),
                 ("torch.cumsum", lambda d: torch.cumsum(x, 0, dtype=d)), ("softmax", lambda d: x.softmax(0, dtype=d)),
                 ("arange", lambda d: torch.arange(3, dtype=d)), ("linspace", lambda d: torch.linspace(0, 1, 3, dtype=d)),
                 ("randn", lambda d: torch.randn(2, dtype=d)), ("rand", lambda d: torch.rand(2, 2, dtype=d))]:
    for d in [np.float32, np.dtype('float64'), 'float32', torch.float64, float]:
        run(name + " " + str(d), lambda: fn(d))
for a in [np.float32, np.int64, np.dtype('int64'), 'torch.float32', 'torch.FloatTensor', 'float', 3, float,
          torch.int64, torch.LongTensor]:
    run("type " + str(a), lambda: x.type(a))
""",
    "missing_arguments_raise_pytorchs_type_errors": """
import torch.nn.functional as F
x = torch.arange(6.).view(2, 3)
i = torch.tensor([[0, 1, 0], [1, 0, 1]])
for c in ["torch.cumsum(x)", "x.cumsum()", "torch.cumprod(x)", "x.cumprod()", "torch.softmax(x)", "x.softmax()",
          "F.softmax(x)", "F.log_softmax(x)", "torch.log_softmax(x)", "x.log_softmax()",
          "torch.gather(x)", "torch.gather(x, 1)", "x.gather(1)", "x.gather()", "torch.index_select(x, 0)", "x.index_select(0)",
          "x.index_select()", "torch.transpose(x)", "torch.transpose(x, 0)", "x.transpose(0)", "x.transpose()", "torch.permute(x)", "x.permute()",
          "x.view()", "x.reshape()", "torch.reshape(x)", "torch.argmax(x, keepdim=True)", "x.argmax(keepdim=True)",
          "torch.topk(x)", "x.topk()", "torch.narrow(x, 0, 0)", "x.narrow(0, 0)", "x.narrow()", "torch.narrow(x)",
          "torch.cat()", "torch.stack()", "x.unsqueeze()", "torch.unsqueeze(x)", "x.squeeze()", "x.flatten()",
          "torch.matmul(x)", "x.matmul()", "torch.mm(x)", "x.expand()", "x.repeat()", "torch.sum()", "x.split()",
          "torch.split(x)", "x.chunk()", "torch.chunk(x)", "x.masked_fill(x > 1)", "torch.where()", "torch.clamp(x)",
          "x.scatter(0, i)", "torch.scatter(x, 0, i)", "x.scatter_(0, i)", "x.index_add(0, i[0])", "torch.add(x)", "x.add()",
          "x.pow()", "torch.pow(x)", "x.mul()", "torch.max()", "x.max(keepdim=True)", "torch.sort()", "x.sort(descending=True)",
          "x.flip()", "torch.flip(x)", "x.roll()", "torch.roll(x)", "x.unbind()", "x.select(0)", "torch.select(x, 0)", "x.movedim(0)",
          "x.repeat_interleave()", "torch.einsum('ij')", "F.one_hot()", "F.cross_entropy(x)", "F.mse_loss(x)", "torch.mean()", "x.mean(keepdim=True)",
          "x.std(keepdim=True)", "x.sum(keepdim=True)", "x.argmin(keepdim=True)", "torch.argmax(keepdim=True)", "x.new_tensor()",
          "torch.full((2,))", "torch.zeros()"]:
    run(c, lambda: eval(c))
for c in ['torch.sum(x, keepdim=True)', 'torch.mean(x, keepdim=True)', 'torch.max(x, keepdim=True)', 'x.min(keepdim=True)', 'torch.min(x, keepdim=True)', 'x.prod(keepdim=True)', 'x.sum(dim=None, keepdim=True)', 'x.mean(None, True)', 'x.sum(None, True)', 'x.sum()', 'torch.sum(x)', 'x.max()', 'torch.where(x > 2)', 'x.sort()[0]', 'torch.sort(x)[1]', 'x.masked_fill(x > 1, value=0)', 'x.narrow(0, 0, length=1)', 'x.narrow(dim=0, start=0, length=1)', 'x.scatter(0, i, value=2.0)', 'x.scatter(0, i, src=x)', 'x.pow(exponent=2)', 'torch.add(x, other=1)', 'x.movedim(0, destination=1)', 'torch.mm(x, mat2=x.t())', 'torch.cumsum(x, dim=1)', 'x.gather(dim=1, index=i)', 'torch.gather(x, 1, index=i)', 'torch.transpose(x, dim0=0, dim1=1)', 'torch.tensor(data=[1])', 'torch.cat(tensors=[x, x]).shape', 'x.topk(k=1)[0]']:
    run(c, lambda: eval(c))
x = torch.ones(2, 3, requires_grad=True)
print(x.sum(None, True), x.mean(None, True), torch.tensor(3., requires_grad=True).sum(None, True))
print(x.argmax(keepdim=True), torch.argmin(x, keepdim=True), torch.tensor(2.).argmax(keepdim=True))
print(torch.arange(6.).split(split_size=4))
print(x.softmax(axis=1), torch.cumsum(x, axis=0), x.narrow(axis=1, start=0, length=2))
""",
    "einsum_sublist_form": """
a = torch.arange(6., requires_grad=True).view(2, 3)
b = torch.arange(12., requires_grad=True).view(3, 4)
r = torch.einsum(a, [0, 1], b, [1, 2], [0, 2])
print(r); walk(r.grad_fn)
r.pow(2).sum().backward()
print(a.grad if a.is_leaf else None)
a0 = a.detach().requires_grad_()
b0 = b.detach().requires_grad_()
r = torch.einsum(a0, [0, 1], b0, [1, 2])
print(r); walk(r.grad_fn); r.sum().backward(); print(a0.grad, b0.grad)
run("trace", lambda: torch.einsum(torch.eye(3), [5, 5]))
run("transpose", lambda: torch.einsum(a0, [30, 3], [3, 30]))
run("upper lower", lambda: torch.einsum(a0, [27, 0], b0, [0, 40]))
run("ellipsis", lambda: torch.einsum(torch.ones(2, 3, 4), [..., 0], torch.ones(4, 5), [0, 1], [..., 1]).shape)
run("bad", lambda: torch.einsum(a0, [52, 1]))
run("neg", lambda: torch.einsum(a0, [-1, 1]))
run("one", lambda: torch.einsum(a0))
run("str one", lambda: torch.einsum('ij'))
run("mismatch", lambda: torch.einsum(a0, [0, 1], b0, [0, 2]))
run("eq", lambda: torch.einsum('ij,jk->ik', a0, b0))
run("eq list", lambda: torch.einsum('ij,jk->ik', [a0, b0]))
run("tuple", lambda: torch.einsum(a0, (0, 1), (1,)))
run("outer", lambda: torch.einsum(torch.tensor([1., 2.]), [0], torch.tensor([3., 4.]), [1], [0, 1]))
""",
    "linalg_eig_eigvals_and_is_neg": """
A = torch.tensor([[2., 1., 0.], [1., 3., 1.], [0., 1., 4.]])
R = torch.tensor([[0., -1.], [1., 0.]])
N = torch.tensor([[1., 2., 3.], [0., 4., 5.], [1., 0., 6.]], dtype=torch.float64)
for M in [A, R, N]:
    run("eigvals", lambda: torch.linalg.eigvals(M))
    run("eig", lambda: torch.linalg.eig(M))
run("batch", lambda: torch.linalg.eigvals(torch.stack([A, A.t() * 2])))
run("int", lambda: torch.linalg.eigvals(torch.tensor([[1, 2], [3, 4]])))
run("nonsq", lambda: torch.linalg.eigvals(torch.ones(2, 3)))
run("1d", lambda: torch.linalg.eig(torch.ones(3)))
run("complex", lambda: torch.linalg.eigvals(torch.tensor([[1+1j, 2], [0, 3j]])))
X = N.clone().requires_grad_()
L, V = torch.linalg.eig(X)
print(L.grad_fn, V.grad_fn, L.grad_fn.name())
L.abs().sum().backward()
print((X.grad * 1e6).round() / 1e6 + 0)
X.grad = None
w = torch.linalg.eigvals(X)
print(w.grad_fn)
w.real.sum().backward()
print((X.grad * 1e6).round() / 1e6 + 0)
X.grad = None
L, V = torch.linalg.eig(X)
(V.abs().sum() + L.real.sum()).backward()
print((X.grad * 1e6).round() / 1e6 + 0)
run("nt", lambda: torch.linalg.eig(X).eigenvalues)
run("is_neg", lambda: (torch.is_neg(A), A.is_neg(), torch.is_neg(A.conj())))
i = torch.tensor([2**62, -2**63, 9223372036854775807])
run("add", lambda: i + i)
run("mul", lambda: i * 3)
run("sub", lambda: i - 9223372036854775807)
run("neg", lambda: -i)
run("sum", lambda: i.sum())
run("cumsum", lambda: i.cumsum(0))
run("pow", lambda: i ** 2)
run("abs", lambda: torch.tensor([-2**63]).abs())
run("scalar add", lambda: i + 2**62)
run("i32", lambda: torch.tensor([2**31 - 1], dtype=torch.int32) + 1)
run("prod", lambda: i.prod())
run("mm", lambda: torch.tensor([[2**62, 2**62]]) @ torch.tensor([[2], [2]]))
run("floordiv", lambda: torch.tensor([-2**63]) // -1)
run("dot", lambda: torch.dot(i, i))
run("iadd", lambda: i.clone().add_(i))
Y = torch.tensor([[0., -1.], [1., 0.5]], requires_grad=True)
L, V = torch.linalg.eig(Y)
print(L, V.abs())
run("gauge", lambda: (V.real.sum() + V.imag.sum()).backward())
Y.grad = None
L, V = torch.linalg.eig(Y)
(L.abs().sum() + L.imag.pow(2).sum() + V.abs().pow(3).sum()).backward()
print((Y.grad * 1e6).round() / 1e6 + 0)
Z = torch.tensor([[1+1j, 2], [0.5j, 3]], dtype=torch.complex128, requires_grad=True)
L, V = torch.linalg.eig(Z)
(L.abs().sum() + V.abs().sum()).backward()
print(torch.view_as_real(Z.grad).mul(1e6).round() / 1e6 + 0)
B = torch.randn(2, 3, 3, generator=torch.Generator().manual_seed(0), requires_grad=True)
torch.linalg.eigvals(B).abs().sum().backward()
print((B.grad * 1e4).round() / 1e4 + 0)
""",
    "int64_arithmetic_wraps_around": """
i = torch.tensor([2**62, 3])
for c in ["i * 4", "i + 2**63", "i * 2**62", "i - 2**63", "i + (-2**63)", "torch.tensor(2**62) * 4", "i.mul(2**62)",
          "i.add(2**62, alpha=2)", "i ** 3", "torch.tensor([3]) ** 40", "i.sum() * 2", "i.square()", "i << 2", "torch.tensor([1]) << 63",
          "torch.full((2,), 2**62) * 2", "i.mul_(4)", "torch.tensor([2**62], dtype=torch.int64) * torch.tensor(4)", "i.cumprod(0)",
          "torch.tensor([2**31], dtype=torch.int32)", "torch.tensor([7], dtype=torch.int32) * 2**31", "torch.tensor([100], dtype=torch.int8) * 2",
          "torch.tensor([100], dtype=torch.int8) + 200", "torch.tensor([100], dtype=torch.uint8) - 101", "torch.arange(3) * 2**62", "i.prod()",
          "i // -1", "i.pow(2)", "torch.tensor([9223372036854775807]) + 1", "torch.tensor(9223372036854775807) + 1"]:
    run(c, lambda: eval(c))
for c in ['i + 2**64', 'i * 2**63', 'i + (2**64-1)', 'i + (-2**63-1)', 'i.add(2**63, alpha=2)', 'i.float() + 2**63', 'torch.tensor([1], dtype=torch.int8) + 2**63', 'torch.tensor([1], dtype=torch.int8) + 2**64', 'i.clone().add_(2**63)', 'i.float() + 2**64', 'i.float() * (-2**70)', 'i.double() + 2**63', 'torch.tensor([1], dtype=torch.uint8) + 2**63', 'torch.tensor([1], dtype=torch.uint8) * (-2**63-1)', 'torch.tensor(5) - 2**63', 'i.sub(2**63)', 'torch.add(i, 2**63)', 'torch.mul(i, 2**63)']:
    run(c, lambda: eval(c))
""",
    "second_backward_through_saved_indices_raises": """
x = torch.tensor([1., 2., 3.], requires_grad=True)
src = torch.tensor([5., 6.], requires_grad=True)
idx = torch.tensor([0, 2])
y = torch.zeros(3).scatter(0, idx, src) * x
out = y.sum()
run("first", lambda: torch.autograd.grad(out, [x, src]))
run("second", lambda: torch.autograd.grad(out, [x, src]))
y = x.scatter(0, idx, src)
out = (y * y).sum()
run("first", lambda: torch.autograd.grad(out, [x, src]))
run("second", lambda: torch.autograd.grad(out, [x, src]))
y = x.scatter(0, idx, 2.0)
out = (y ** 2).sum()
run("first", lambda: torch.autograd.grad(out, x))
run("second", lambda: torch.autograd.grad(out, x))
y = x.scatter_add(0, idx, src)
out = (y ** 2).sum()
run("first", lambda: torch.autograd.grad(out, x))
run("second", lambda: torch.autograd.grad(out, x))
y = x.gather(0, idx)
out = (y ** 2).sum()
run("first", lambda: torch.autograd.grad(out, x))
run("second", lambda: torch.autograd.grad(out, x))
y = torch.zeros(3).scatter(0, idx, src)
out = y.sum()
run("first", lambda: torch.autograd.grad(out, src))
run("second", lambda: torch.autograd.grad(out, src))
y = x.index_select(0, idx)
out = (y ** 2).sum()
run("first", lambda: torch.autograd.grad(out, x))
run("second", lambda: torch.autograd.grad(out, x))
y = x.scatter_reduce(0, idx, src, "amax")
out = (y ** 2).sum()
run("first", lambda: torch.autograd.grad(out, [x, src]))
run("second", lambda: torch.autograd.grad(out, [x, src]))
y = x.scatter(0, idx, src)
out = y.sum()
out.backward(retain_graph=False)
run("backward twice", lambda: out.backward())
torch.manual_seed(0)
x = torch.tensor([1., 2., 3.], requires_grad=True)
src = torch.tensor([5., 6.], requires_grad=True)
idx = torch.tensor([0, 2])
for name, make in [("scatter_", lambda: x.clone().scatter_(0, idx, src)), ("scatter_ value", lambda: x.clone().scatter_(0, idx, 2.0)),
                   ("index_put", lambda: x.clone().index_put((idx,), src)), ("setitem", lambda: (lambda y: (y.__setitem__(idx, src), y)[1])(x.clone())),
                   ("masked_fill", lambda: x.masked_fill(x > 1, 0.0)), ("index_add", lambda: x.index_add(0, idx, src)),
                   ("scatter 2d", lambda: torch.zeros(2, 3).scatter(1, torch.tensor([[0, 1], [2, 0]]), src.expand(2, 2))),
                   ("take", lambda: x.take(idx)), ("index_fill", lambda: x.index_fill(0, idx, 1.0)), ("embedding", lambda: torch.nn.functional.embedding(idx, x.view(3, 1))),
                   ("nll", lambda: torch.nn.functional.nll_loss(x.view(1, 3), torch.tensor([1]))),
                   ("cross_entropy", lambda: torch.nn.functional.cross_entropy(x.view(1, 3), torch.tensor([1]))),
                   ("getitem", lambda: x[idx]), ("dropout", lambda: torch.nn.functional.dropout(x, 0.5)), ("where", lambda: torch.where(x > 1, x, src.sum())),
                   ("sort", lambda: x.sort()[0]), ("max dim", lambda: x.max(0)[0]), ("topk", lambda: x.topk(2)[0]), ("cumsum", lambda: x.cumsum(0)),
                   ("repeat_interleave", lambda: x.repeat_interleave(2)), ("flip", lambda: x.flip(0)), ("unique", lambda: x.sum().view(1))]:
    out = make().sum()
    run(name + " first", lambda: torch.autograd.grad(out, [x, src], allow_unused=True))
    run(name + " second", lambda: torch.autograd.grad(out, [x, src], allow_unused=True))
""",
    "fft_values_and_gradients": """
x = torch.tensor([1., 2., 0., -1.], requires_grad=True)
for name in ["fft", "ifft", "rfft"]:
    r = getattr(torch.fft, name)(x)
    print(name, r, r.grad_fn.name(), [a for a in dir(r.grad_fn) if a.startswith("_saved")])
    r.abs().sum().backward()
    print(x.grad)
    x.grad = None
c = torch.tensor([1+1j, 2, -1j], requires_grad=True)
r = torch.fft.irfft(c)
print(r, r.grad_fn.name(), [a for a in dir(r.grad_fn) if a.startswith("_saved")])
r.pow(2).sum().backward(); print(c.grad)
r = torch.fft.fft(c)
print(r, r.grad_fn.name(), [a for a in dir(r.grad_fn) if a.startswith("_saved")])
r = torch.fft.ifft(c, n=5, norm="ortho")
print(r, r.grad_fn.name())
r.abs().sum().backward(); print(c.grad)
print(torch.fft.fftfreq(5), torch.fft.fftfreq(4, d=0.5), torch.fft.rfftfreq(5), torch.fft.fftfreq(3, dtype=torch.float64))
print(torch.fft.rfft(x, n=6, norm="forward"), torch.fft.irfft(c, n=4, norm="backward"))
m = torch.arange(6.).view(2, 3)
print(torch.fft.fft(m), torch.fft.fft(m, dim=0), torch.fft.rfft(m, dim=0))
print(torch.fft.fft(torch.tensor([1, 2, 3])), torch.fft.rfft(torch.tensor([1, 2], dtype=torch.float64)))
run("bad norm", lambda: torch.fft.fft(x, norm="bad"))
run("n 0", lambda: torch.fft.fft(x, n=0))
run("rfft complex", lambda: torch.fft.rfft(c))
""",
    "fft_graphs_double_backward_and_frequencies": """
x = torch.tensor([1., 2., 0., -1., 3.], requires_grad=True)
for name, fn in [("fft pad", lambda: torch.fft.fft(x, n=7)), ("fft slice", lambda: torch.fft.fft(x, n=3)),
                 ("ifft", lambda: torch.fft.ifft(x, norm="ortho")), ("rfft pad", lambda: torch.fft.rfft(x, n=8)),
                 ("irfft real", lambda: torch.fft.irfft(x)), ("irfft n", lambda: torch.fft.irfft(x, n=5)),
                 ("irfft n big", lambda: torch.fft.irfft(x, n=12, norm="forward")),
                 ("ifft complex", lambda: torch.fft.ifft(x * (1 + 2j), norm="forward"))]:
    r = fn()
    print(name, r)
    walk(r.grad_fn)
    loss = r.abs().pow(2).sum() if r.is_complex() else r.pow(2).sum()
    g, = torch.autograd.grad(loss, x, create_graph=True)
    print((g * 1e4).round() / 1e4 + 0)
    gg, = torch.autograd.grad(g.sum(), x)
    print((gg * 1e4).round() / 1e4 + 0)
m = torch.arange(12.).view(3, 4).requires_grad_()
r = torch.fft.rfft(m, dim=0)
print(r); walk(r.grad_fn)
r.abs().sum().backward(); print((m.grad * 1e4).round() / 1e4 + 0)
print(torch.fft.fftfreq(1), torch.fft.fftfreq(6, 0.1), torch.fft.rfftfreq(6, 0.1), torch.fft.rfftfreq(7, dtype=torch.float64))
run("freq int", lambda: torch.fft.fftfreq(4, dtype=torch.int64))
run("freq grad", lambda: torch.fft.fftfreq(4, requires_grad=True))
run("irfft n 0", lambda: torch.fft.irfft(torch.ones(1)))
run("fft int", lambda: torch.fft.fft(torch.tensor([1, 2, 3, 4])))
run("irfft int", lambda: torch.fft.irfft(torch.tensor([1, 2, 3])))
run("fft f64", lambda: torch.fft.fft(torch.tensor([1., 2.], dtype=torch.float64)))
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + SNIPPETS[name], show_warnings=False)
