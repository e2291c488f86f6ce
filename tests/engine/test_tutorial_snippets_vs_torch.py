"""Tutorial-style programs (import torch, torch.nn, torch.autograd...) run on torch and on the engine:
printed output must match, numbers to within float32 noise, error messages exactly."""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.util
import io
import math
import re
import sys
import warnings

import pytest

import engine

torch = pytest.importorskip("torch")

SNIPPETS = {
    "grad_fn_chain": """
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
b = torch.tensor(0.1, requires_grad=True)
z = (x * w).sum() + b
out = torch.sigmoid(z)
print(out)
print(out.grad_fn)
fn = out.grad_fn
while fn is not None:
    print(type(fn).__name__, [(type(f).__name__ if f is not None else None, i) for f, i in fn.next_functions])
    nxt = [f for f, _ in fn.next_functions if f is not None and type(f).__name__ != "AccumulateGrad"]
    fn = nxt[0] if nxt else None
out.backward()
print(x.grad, w.grad, b.grad)
""",
    "next_functions_tree": """
import torch
a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
c = a * b
d = c + a
e = d.exp() / 10
def walk(fn, depth=0):
    if fn is None:
        print("  " * depth + "None")
        return
    print("  " * depth + fn.name())
    for nxt, idx in fn.next_functions:
        walk(nxt, depth + 1)
walk(e.grad_fn)
print(e.grad_fn.next_functions[0][0].next_functions[0][0].next_functions)
acc = c.grad_fn.next_functions[0][0]
print(acc, acc.variable is a, acc.variable)
""",
    "saved_tensors": """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
y = x * w
print(y.grad_fn._saved_self, y.grad_fn._saved_other)
print(y.grad_fn._saved_self is x, y.grad_fn._saved_other is w)
e = x.exp()
print(e.grad_fn._saved_result, e.grad_fn._saved_result is e, torch.equal(e.grad_fn._saved_result, e))
p = x.pow(3)
print(p.grad_fn._saved_exponent, p.grad_fn._saved_self)
s = x.sum()
print(s.grad_fn._saved_self_sym_sizes)
m = x * 3
print(m.grad_fn._saved_self, m.grad_fn._saved_other)
t = torch.tanh(x)
print(t.grad_fn._saved_result)
sg = x.sigmoid()
print(sg.grad_fn._saved_result)
""",
    "negative_dims_saved": """
import torch
x = torch.arange(24.).reshape(2, 3, 4).requires_grad_()
outs = [torch.softmax(x, dim=-1), torch.log_softmax(x, -2), torch.cat([x, x * 2], dim=-1),
        torch.stack([x, x], -2), x.unsqueeze(-1), x.unsqueeze(-1).squeeze(-1), x.cumsum(-2),
        x.sum(dim=-1), x.mean((-1, -3)), x.transpose(-1, -3), x.max(dim=-1)[0]]
for y in outs:
    fn = y.grad_fn
    print(type(fn).__name__, [(a, getattr(fn, a)) for a in sorted(dir(fn)) if a.startswith("_saved_dim")])
total = sum((y * torch.linspace(0.1, 1.0, y.numel()).reshape(y.shape)).sum() for y in outs)
g, = torch.autograd.grad(total, x, create_graph=True)
print(g)
g.pow(2).sum().backward()
print(x.grad)
""",
    "saved_more": """
import torch
a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
b = torch.tensor([[0.5, 0.0], [1.0, -1.0]], requires_grad=True)
mm = a @ b
print(type(mm.grad_fn).__name__, mm.grad_fn._saved_self, mm.grad_fn._saved_mat2)
print(mm.grad_fn._saved_self_sym_sizes, mm.grad_fn._saved_mat2_sym_sizes)
d = a / b.abs().clamp(min=0.5)
print(type(d.grad_fn).__name__, d.grad_fn._saved_other)
sm = a.sum(dim=1, keepdim=True)
print(sm.grad_fn._saved_dim, sm.grad_fn._saved_keepdim, sm.grad_fn._saved_self_sym_sizes)
mn = a.mean(0)
print(mn.grad_fn._saved_dim, mn.grad_fn._saved_keepdim, mn.grad_fn._saved_self_sym_numel)
r = a.relu()
print(r.grad_fn._saved_result)
c = a.clamp(min=1.5, max=3.5)
print(type(c.grad_fn).__name__, c.grad_fn._saved_min, c.grad_fn._saved_max)
ad = a + b
print(ad.grad_fn._saved_alpha)
lg = a.log()
print(lg.grad_fn._saved_self)
""",
    "retain_grad": """
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
z = y ** 2
y.retain_grad()
print(y.retains_grad, z.retains_grad, x.retains_grad)
out = z.mean()
out.backward()
print(x.grad)
print(y.grad)
print(z.grad)
""",
    "retain_graph_errors": """
import torch
x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
y.backward(retain_graph=True)
print(x.grad)
y.backward(retain_graph=True)
print(x.grad)
y.backward()
print(x.grad)
try:
    y.backward()
except RuntimeError as e:
    print("RuntimeError:", e)
a = torch.tensor([1.0, 2.0], requires_grad=True)
z = (a + 1).sum()
z.backward()
z.backward()
print(a.grad)
q = a.exp().sum()
torch.autograd.grad(q, a)
try:
    torch.autograd.grad(q, a)
except RuntimeError as e:
    print("RuntimeError:", e)
""",
    "backward_create_graph": """
import torch
import warnings
warnings.simplefilter("ignore")
x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
y.backward(create_graph=True)
print(x.grad, x.grad.requires_grad)
g = x.grad
x.grad = None
g.backward()
print(x.grad)
w = torch.tensor([1.0, 2.0], requires_grad=True)
loss = (w ** 2).sum() * w[0]
loss.backward(create_graph=True)
print(w.grad)
pen = w.grad.norm() ** 2
print(pen)
""",
    "grad_allow_unused": """
import torch
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
c = torch.tensor(5.0, requires_grad=True)
out = (a * b).sum()
print(torch.autograd.grad(out, [a, b], retain_graph=True))
try:
    torch.autograd.grad(out, [a, c], retain_graph=True)
except RuntimeError as e:
    print("RuntimeError:", e)
print(torch.autograd.grad(out, [a, c], retain_graph=True, allow_unused=True))
print(torch.autograd.grad(out, [c, a], retain_graph=True, allow_unused=True, materialize_grads=True))
print(a.grad, b.grad)
g = torch.autograd.grad(outputs=out, inputs=b)
print(type(g), len(g), g[0])
""",
    "functional_jacobian": """
import torch
from torch.autograd.functional import jacobian, hessian
def f(x):
    return torch.stack([x[0] * x[1], x[0] ** 2 + x[1], torch.sin(x[1])])
x = torch.tensor([1.0, 2.0])
J = jacobian(f, x)
print(J)
print(J.shape)
def g(a, b):
    return a * b + b
print(jacobian(g, (torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))))
def h(x):
    return (x ** 2).sum() * x[0]
print(hessian(h, torch.tensor([1.0, 2.0])))
print(jacobian(lambda t: t.exp(), torch.tensor([0.0, 1.0]), create_graph=False))
""",
    "functional_vjp_jvp": """
import torch
from torch.autograd.functional import vjp, jvp, hvp, vhp
def f(x):
    return x ** 2 + 2 * x
x = torch.tensor([1.0, 2.0, 3.0])
v = torch.tensor([1.0, 1.0, 1.0])
out, vjp_val = vjp(f, x, v)
print(out, vjp_val)
out, jvp_val = jvp(f, x, v)
print(out, jvp_val)
def s(x):
    return (x ** 3).sum()
print(hvp(s, x, v))
print(vhp(s, x, v))
def two(a, b):
    return (a * b).sum()
print(vjp(two, (torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))))
""",
    "node_hooks": """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
y = x * w
z = (y * 2).sum()
def pre(grad_outputs):
    print("pre", type(grad_outputs).__name__, grad_outputs)
def post(grad_inputs, grad_outputs):
    print("post", grad_inputs, grad_outputs)
y.grad_fn.register_prehook(pre)
h = y.grad_fn.register_hook(post)
z.grad_fn.next_functions[0][0].register_hook(post)
z.backward(retain_graph=True)
print(x.grad, w.grad)
h.remove()
y.grad_fn.register_prehook(lambda go: (go[0] * 0,))
z.backward()
print(x.grad, w.grad)
""",
    "inference_mode": """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.inference_mode():
    y = x * 2
    print(torch.is_inference_mode_enabled(), y.requires_grad, y.is_inference())
print(torch.is_inference_mode_enabled(), x.is_inference())
print(y)
try:
    (y * x).sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    y.add_(1)
except RuntimeError as e:
    print("RuntimeError:", e)
c = y.clone()
print(c.is_inference(), (c * x).sum())
@torch.inference_mode()
def pred(t):
    return t.sum()
print(pred(x))
with torch.inference_mode(False):
    print((x * 2).requires_grad)
""",
    "detach_data": """
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
d = y.detach()
print(d, d.requires_grad, d.is_leaf, d.grad_fn)
d[0] = 100.0
print(y)
print(y._version, d._version)
c = y.clone()
print(c.grad_fn, c.is_leaf)
y2 = x ** 2
y2.detach_()
print(y2.grad_fn, y2.is_leaf, y2.requires_grad)
print(x.data, x.data.requires_grad)
x.data.mul_(2)
print(x, x._version)
n = x.detach().numpy()
print(n, type(n).__name__)
try:
    x.numpy()
except RuntimeError as e:
    print("RuntimeError:", e)
""",
    "inplace_saved_error": """
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x.exp()
y.add_(1)
try:
    y.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
x2 = x * 1
z = x2.pow(2)
x2.pow_(2)
try:
    z.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
t = x.tanh()
u = t * 3
t.sub_(1)
try:
    u.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
q = x * 2
r = q * q
q += 1
try:
    r.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
""",
    "inplace_ok_rebase": """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
print(y.grad_fn, y._version)
y.add_(1)
print(y.grad_fn, y._version, y.grad_fn.next_functions)
y.mul_(3)
print(y.grad_fn, y.grad_fn.next_functions)
z = y.relu_()
print(z is y, y.grad_fn)
y.sum().backward()
print(x.grad)
a = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
b = a + 0
c = b + 1
b.mul_(3)
c.sum().backward()
print(a.grad)
h = a * 1
h.sigmoid_()
print(h.grad_fn)
h.sum().backward()
print(a.grad)
""",
    "views": """
import torch
x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
y = x * 1
v = y[0]
print(v._is_view(), v._base is y, v.is_leaf, v.grad_fn)
t = y.t()
print(t.grad_fn, t._base is y, t.is_contiguous())
r = y.view(3, 2)
print(r.grad_fn, r.shape)
f = y.reshape(-1)
print(f.grad_fn)
s = y[:, 1:]
print(s.grad_fn)
u = y.unsqueeze(0)
print(u.grad_fn, u.shape)
sq = u.squeeze(0)
print(sq.grad_fn)
p = y.permute(1, 0)
print(p.grad_fn)
e = x[0].expand(2, 3)
print(e.grad_fn, e.shape)
fl = x.flatten()
print(fl.grad_fn)
tr = x.transpose(0, 1)
print(tr.grad_fn)
print(x.T.grad_fn)
""",
    "inplace_views": """
import torch
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
y = x * 1
v = y[1:3]
v.mul_(5)
print(y, y.grad_fn)
print(v.grad_fn)
y.sum().backward()
print(x.grad)
x.grad = None
y = x.clone()
y[0] = 0.0
print(y.grad_fn)
(y * y).sum().backward()
print(x.grad)
x.grad = None
m = x.view(2, 2) * 1
m.t()[0, 1] = 100.0
print(m)
m.sum().backward()
print(x.grad)
try:
    x[:2].mul_(2)
except RuntimeError as e:
    print("RuntimeError:", e)
b = x * 1
try:
    b.split(2)[0].mul_(2)
except RuntimeError as e:
    print("RuntimeError:", e)
with torch.no_grad():
    nv = b[:2]
try:
    nv.mul_(2)
except RuntimeError as e:
    print("RuntimeError:", e)
""",
    "custom_function_basic": """
import torch
from torch.autograd import Function
class MyReLU(Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.clamp(min=0)
    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input < 0] = 0
        return grad_input
x = torch.tensor([-2.0, -0.5, 0.0, 1.5], requires_grad=True)
y = MyReLU.apply(x)
print(y)
print(y.grad_fn, type(y.grad_fn).__name__)
print(y.grad_fn.saved_tensors)
(y * torch.arange(4.0)).sum().backward()
print(x.grad)
print(y.grad_fn.next_functions)
""",
    "custom_legendre": """
import torch
class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)
    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)
dtype = torch.float
x = torch.linspace(-1.0, 1.0, 6, dtype=dtype)
y = torch.sin(x)
a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
c = torch.full((), 2.0, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, dtype=dtype, requires_grad=True)
lr = 5e-3
for t in range(5):
    P3 = LegendrePolynomial3.apply
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    print(t, loss.item())
    loss.backward()
    with torch.no_grad():
        a -= lr * a.grad
        b -= lr * b.grad
        c -= lr * c.grad
        d -= lr * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None
print(f'Result: y = {a.item()} + {b.item()} * P3({c.item()} + {d.item()} x)')
""",
    "custom_mark_dirty": """
import torch
class AddOneInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x
    @staticmethod
    def backward(ctx, g):
        return g
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.clone()
c = AddOneInplace.apply(b)
print(c is b, c, c.grad_fn, b._version)
(c * c).sum().backward()
print(a.grad)
try:
    AddOneInplace.apply(a)
except RuntimeError as e:
    print("RuntimeError:", e)
""",
    "custom_non_diff": """
import torch
class ArgMaxVal(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        idx = x.argmax()
        val = x[idx]
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        ctx.n = x.numel()
        return val, idx
    @staticmethod
    def backward(ctx, g_val, g_idx):
        idx, = ctx.saved_tensors
        print("g_idx:", g_idx)
        g = torch.zeros(ctx.n)
        g[idx] = g_val
        return g
x = torch.tensor([0.3, 2.5, 1.0], requires_grad=True)
v, i = ArgMaxVal.apply(x)
print(v, i, v.requires_grad, i.requires_grad, i.grad_fn)
(v * 4).backward()
print(x.grad)
""",
    "custom_once_diff": """
import torch
from torch.autograd.function import once_differentiable
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3
    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 3 * x ** 2 * g
x = torch.tensor(2.0, requires_grad=True)
y = Cube.apply(x)
y.backward()
print(y, x.grad)
y = Cube.apply(x)
g, = torch.autograd.grad(y, x, create_graph=True)
print(g, g.requires_grad, type(g.grad_fn).__name__)
try:
    g.backward()
except RuntimeError as e:
    print("RuntimeError:", e)
class Cube2(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 3 * x ** 2 * g
y = Cube2.apply(x)
g, = torch.autograd.grad(y, x, create_graph=True)
g2, = torch.autograd.grad(g, x)
print(g, g2)
""",
    "custom_setup_context": """
import torch
class MulConstant(torch.autograd.Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant
    @staticmethod
    def setup_context(ctx, inputs, output):
        tensor, constant = inputs
        ctx.constant = constant
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None
class MyCube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        result = x ** 3
        dx = 3 * x ** 2
        return result, dx
    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)
    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        result = grad_output * dx + grad_dx * 6 * x
        return result
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = MulConstant.apply(x, 5.0)
print(y, y.grad_fn)
y.sum().backward()
print(x.grad)
x.grad = None
r, dx = MyCube.apply(x)
print(r, dx)
(r + dx).sum().backward()
print(x.grad)
""",
    "checkpoint": """
import torch
from torch.utils.checkpoint import checkpoint
def block(x, w):
    return torch.tanh(x @ w).sum(dim=1)
x = torch.tensor([[1.0, 2.0], [0.5, -1.0]], requires_grad=True)
w = torch.tensor([[0.1, 0.2], [0.3, -0.4]], requires_grad=True)
out = checkpoint(block, x, w, use_reentrant=False)
print(out, out.grad_fn)
out.sum().backward()
print(x.grad)
print(w.grad)
gx, gw = x.grad.clone(), w.grad.clone()
x.grad = None; w.grad = None
block(x, w).sum().backward()
print(torch.allclose(gx, x.grad), torch.allclose(gw, w.grad))
""",
    "anomaly": """
import torch
import warnings
warnings.simplefilter("ignore")
x = torch.tensor([0.0, 4.0], requires_grad=True)
with torch.autograd.detect_anomaly():
    y = x.sqrt()
    z = y / y
    try:
        z.sum().backward()
    except RuntimeError as e:
        print("RuntimeError:", e)
print(torch.is_anomaly_enabled())
with torch.autograd.set_detect_anomaly(True):
    print(torch.is_anomaly_enabled())
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.log()
b.mul_(2)
with torch.autograd.detect_anomaly():
    try:
        b.sum().backward()
    except RuntimeError as e:
        print("RuntimeError:", e)
""",
    "mlp_momentum": """
import torch
import torch.nn as nn
torch.manual_seed(1)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
x = torch.randn(6, 4)
target = torch.tensor([0, 2, 1, 1, 0, 2])
crit = nn.CrossEntropyLoss()
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
for step in range(4):
    opt.zero_grad()
    logits = net(x)
    loss = crit(logits, target)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5))
print(loss.grad_fn, loss.grad_fn.next_functions)
print(net[0].bias.grad)
pred = net(x).argmax(dim=1)
print(pred, (pred == target).float().mean())
""",
    "adam_training": """
import torch
import torch.nn as nn
torch.manual_seed(42)
model = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1), nn.Sigmoid())
X = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
Y = torch.tensor([[0.0], [1.0], [1.0], [0.0]])
opt = torch.optim.Adam(model.parameters(), lr=0.05)
loss_fn = nn.BCELoss()
for epoch in range(6):
    opt.zero_grad()
    out = model(X)
    loss = loss_fn(out, Y)
    loss.backward()
    opt.step()
    print(epoch, f"{loss.item():.5f}")
print(model(X).detach().round(decimals=3))
print(sum(p.numel() for p in model.parameters()))
""",
    "losses": """
import torch
import torch.nn.functional as F
logits = torch.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, -1.0]], requires_grad=True)
target = torch.tensor([0, 1])
ce = F.cross_entropy(logits, target)
print(ce, ce.grad_fn)
ce.backward()
print(logits.grad)
nll = F.nll_loss(F.log_softmax(logits, dim=1), target, reduction="sum")
print(nll)
p = torch.tensor([0.9, 0.2, 0.6], requires_grad=True)
t = torch.tensor([1.0, 0.0, 1.0])
bce = F.binary_cross_entropy(p, t)
print(bce, bce.grad_fn)
bce.backward()
print(p.grad)
z = torch.tensor([1.5, -0.3, 0.0], requires_grad=True)
bl = F.binary_cross_entropy_with_logits(z, t)
print(bl, bl.grad_fn)
mse = F.mse_loss(z, t, reduction="none")
print(mse)
print(F.l1_loss(z, t), F.smooth_l1_loss(z, t), F.huber_loss(z, t, delta=0.5))
""",
    "softmax_family": """
import torch
import torch.nn.functional as F
x = torch.tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]], requires_grad=True)
s = F.softmax(x, dim=1)
print(s, s.grad_fn)
print(s.sum(dim=1))
ls = F.log_softmax(x, dim=-1)
print(ls, ls.grad_fn)
lse = torch.logsumexp(x, dim=1)
print(lse, lse.grad_fn)
print(torch.softmax(x, 0))
(s[:, 0]).sum().backward()
print(x.grad)
x.grad = None
lse.sum().backward()
print(x.grad)
manual = x.exp() / x.exp().sum(dim=1, keepdim=True)
print(manual.grad_fn, torch.allclose(manual, s))
print(x.softmax(dim=1).grad_fn, x.log_softmax(1).grad_fn, x.logsumexp(dim=0, keepdim=True))
""",
    "reductions": """
import torch
x = torch.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]], requires_grad=True)
print(x.sum(), x.sum(0), x.sum(dim=1), x.sum(dim=1, keepdim=True))
print(x.mean(), x.mean(dim=0), x.mean(1, keepdim=True))
print(x.sum(dim=(0, 1)), x.prod(), x.prod(dim=1))
print(x.std(), x.var(dim=1), x.var(dim=0, unbiased=False), x.std(dim=1, keepdim=True))
print(x.norm(), x.norm(dim=1), x.norm(p=1))
print(x.sum(dim=1).grad_fn, x.mean(0).grad_fn, x.std().grad_fn, x.var(1).grad_fn, x.prod().grad_fn, x.norm().grad_fn)
y = x.mean(dim=1).sum()
y.backward()
print(x.grad)
x.grad = None
x.std(dim=0).sum().backward()
print(x.grad)
print(torch.cumsum(x, dim=1), x.cumsum(0).grad_fn)
""",
    "max_min": """
import torch
x = torch.tensor([[1.0, 7.0, 3.0], [9.0, 2.0, 6.0]], requires_grad=True)
print(x.max(), x.min(), x.max().grad_fn, x.min().grad_fn)
vals, idx = x.max(dim=1)
print(vals, idx)
r = torch.max(x, 0)
print(r)
print(r.values, r.indices, r[0])
m = x.min(dim=1, keepdim=True)
print(m.values, m.indices)
print(x.argmax(), x.argmax(dim=1), x.argmin(dim=0))
print(x.amax(dim=1), x.amin(dim=0))
vals.sum().backward()
print(x.grad)
t = torch.tensor([1.0, 3.0, 3.0], requires_grad=True)
t.max().backward()
print(t.grad)
t.grad = None
t.max(dim=0).values.backward()
print(t.grad)
print(torch.max(x, torch.full((2, 3), 4.0)))
print(torch.maximum(x, torch.tensor(5.0)).grad_fn)
""",
    "indexing": """
import torch
x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], requires_grad=True)
idx = torch.tensor([[0], [2], [1]])
g = torch.gather(x, 1, idx)
print(g, g.grad_fn)
s = torch.index_select(x, 0, torch.tensor([2, 0]))
print(s, s.grad_fn)
mask = x > 4
print(mask)
mf = x.masked_fill(mask, 0.0)
print(mf, mf.grad_fn)
sel = x[mask]
print(sel, sel.grad_fn)
fancy = x[[0, 2], [1, 1]]
print(fancy, fancy.grad_fn)
print(x[1], x[:, 0], x[1, 2], x[-1], x[0:2, 1:].grad_fn, x[1].grad_fn, x[1, 2].grad_fn)
(g.sum() + s.sum() + mf.sum() + sel.sum() + fancy.sum()).backward()
print(x.grad)
""",
    "split_chunk_unbind": """
import torch
x = torch.arange(10.0, requires_grad=True)
parts = x.split(3)
print(parts)
print([p.grad_fn for p in parts])
ch = torch.chunk(x, 4)
print(ch, len(ch))
m = x.view(2, 5)
rows = m.unbind(0)
print(rows, rows[0].grad_fn)
sz = torch.split(x, [2, 3, 5])
print([t.shape for t in sz])
(parts[0].sum() * 2 + parts[3].sum() + rows[1][0]).backward()
print(x.grad)
a, b = m.chunk(2, dim=1)
print(a, b)
""",
    "matmul_family": """
import torch
A = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
v = torch.tensor([1.0, -1.0], requires_grad=True)
B = torch.arange(6.0).view(2, 3).requires_grad_()
print(A @ v, (A @ v).grad_fn)
print(v @ v, (v @ v).grad_fn)
print(A @ B, (A @ B).grad_fn)
print(torch.mm(A, B), torch.mv(A, v), torch.dot(v, v), torch.outer(v, v))
bA = torch.ones(3, 2, 2, requires_grad=True)
bB = torch.arange(12.0).view(3, 2, 2)
r = torch.bmm(bA, bB)
print(r.grad_fn, r.shape)
m = bA @ bB
print(m.grad_fn)
m2 = bA @ A
print(m2.grad_fn, m2.shape)
(A @ B).sum().backward()
print(A.grad, B.grad)
try:
    A @ torch.ones(3, 2)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.mm(A, torch.ones(3))
except RuntimeError as e:
    print("RuntimeError:", e)
print(torch.matmul(v, A).grad_fn, torch.addmm(v, A, A).grad_fn)
""",
    "broadcasting": """
import torch
x = torch.ones(2, 3, requires_grad=True)
b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
s = torch.tensor(2.0, requires_grad=True)
col = torch.tensor([[1.0], [10.0]], requires_grad=True)
y = (x * b + col) * s
print(y)
y.sum().backward()
print(b.grad, s.grad, col.grad, x.grad)
print(torch.broadcast_shapes((2, 1), (1, 3)))
a = torch.arange(3.0).view(3, 1)
c = torch.arange(4.0)
print(a + c, (a * c).shape)
try:
    torch.ones(2, 3) + torch.ones(2, 2)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.ones(4, 3) * torch.ones(4)
except RuntimeError as e:
    print("RuntimeError:", e)
""",
    "dtype_promotion": """
import torch
i = torch.tensor([1, 2, 3])
print(i.dtype, (i * 2.5).dtype, i * 2.5, (i / 2).dtype, i / 2)
print((i + True).dtype, (i * 2).dtype, (i // 2), i % 2)
f = torch.tensor([1.0, 2.0])
d = torch.tensor([1.0, 2.0], dtype=torch.float64)
print((f + d).dtype, (f + 1).dtype, (f * torch.tensor(2, dtype=torch.int64)).dtype)
print(torch.tensor(3).dtype, torch.tensor(3.0).dtype, torch.tensor(True).dtype)
b = torch.tensor([True, False])
print((b + 1).dtype, b.sum(), b.float())
print(i.float(), i.double().dtype, f.long(), f.int(), f.to(torch.float64).dtype)
print(i.sum().dtype, i.float().mean(), torch.arange(5).dtype, torch.arange(5.0).dtype)
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.double() * 2
print(y.dtype, y.grad_fn)
y.sum().backward()
print(x.grad, x.grad.dtype)
try:
    i.mean()
except RuntimeError as e:
    print("RuntimeError:", e)
""",
    "unary_math": """
import torch
x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
ops = {
    "exp": torch.exp, "log": torch.log, "sqrt": torch.sqrt, "sin": torch.sin, "cos": torch.cos,
    "tanh": torch.tanh, "sigmoid": torch.sigmoid, "abs": torch.abs, "neg": torch.neg,
    "reciprocal": torch.reciprocal, "rsqrt": torch.rsqrt, "log1p": torch.log1p, "square": torch.square,
    "tan": torch.tan, "expm1": torch.expm1, "log2": torch.log2, "log10": torch.log10,
}
for name, fn in ops.items():
    x.grad = None
    y = fn(x)
    y.sum().backward()
    print(name, y.grad_fn.name(), [round(v, 4) for v in y.tolist()], [round(v, 4) for v in x.grad.tolist()])
y = 1 / x
print(y.grad_fn, y.grad_fn.next_functions)
print((2 ** x).grad_fn, (x ** x).grad_fn, (1 - x).grad_fn, (x - 1).grad_fn, (-x).grad_fn)
""",
    "backward_inputs": """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
y = (x * w).sum()
y.backward(inputs=[w], retain_graph=True)
print(x.grad, w.grad)
y.backward(inputs=[x])
print(x.grad, w.grad)
z = (x ** 2 + w).sum()
torch.autograd.backward(z, inputs=[x, w])
print(x.grad, w.grad)
a = (x * 2).sum(); b = (w * 3).sum()
torch.autograd.backward([a, b])
print(x.grad, w.grad)
c = x * 2
torch.autograd.backward([c], [torch.tensor([1.0, -1.0])])
print(x.grad)
""",
    "saved_tensors_hooks": """
import torch
def pack_hook(x):
    print("Packing", x)
    return x
def unpack_hook(x):
    print("Unpacking", x)
    return x
a = torch.ones(3, requires_grad=True)
b = torch.ones(3, requires_grad=True) * 2
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = a * b
y.sum().backward()
print(a.grad)
x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 10, lambda t: t / 10):
    z = x.pow(2)
z.sum().backward()
print(x.grad)
""",
    "sequence_nr_order": """
import torch
x = torch.tensor([0.5, 1.0], requires_grad=True)
e = x.exp()
s = x.sin()
m = e * s
c = m.sum()
for node in [c.grad_fn, m.grad_fn, s.grad_fn, e.grad_fn]:
    node.register_prehook(lambda g, n=node.name(): print("running", n))
c.backward()
print(x.grad)
print(isinstance(c.grad_fn, torch.autograd.graph.Node))
print(c.grad_fn.name(), c.grad_fn.metadata)
""",
    "grad_of_grad_vector": """
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x ** 2).sum() * x.sum()
grads = torch.autograd.grad(y, x, create_graph=True)[0]
print(grads)
hess_rows = []
for i in range(3):
    row = torch.autograd.grad(grads[i], x, retain_graph=True)[0]
    hess_rows.append(row)
H = torch.stack(hess_rows)
print(H)
print(torch.autograd.functional.hessian(lambda t: (t ** 2).sum() * t.sum(), x.detach()))
""",
    "gradient_penalty": """
import torch
torch.manual_seed(0)
D = torch.nn.Linear(2, 1)
real = torch.randn(4, 2, requires_grad=True)
out = torch.tanh(D(real))
grad = torch.autograd.grad(outputs=out, inputs=real, grad_outputs=torch.ones_like(out), create_graph=True)[0]
print(grad)
gp = ((grad.norm(2, dim=1) - 1) ** 2).mean()
print(gp, gp.grad_fn)
gp.backward()
print(D.weight.grad)
print(D.bias.grad)
""",
    "grad_assign": """
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x.grad = torch.ones(3)
print(x.grad)
(x * 2).sum().backward()
print(x.grad)
try:
    x.grad = torch.ones(4)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    x.grad = torch.ones(3, dtype=torch.float64)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.ones(3).retain_grad()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.optim.SGD([x * 2], lr=0.1)
except ValueError as e:
    print("ValueError:", e)
try:
    torch.autograd.backward([x * 2, x * 3], [torch.ones(3)])
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    (x * 2).sum().backward(inputs=[])
except RuntimeError as e:
    print("RuntimeError:", e)
""",
    "multi_output_function": """
import torch
class SplitSq(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 2, x * 3
    @staticmethod
    def backward(ctx, g1, g2):
        x, = ctx.saved_tensors
        print("grads in:", g1, g2)
        return 2 * x * g1 + 3 * g2
x = torch.tensor([1.0, 2.0], requires_grad=True)
a, b = SplitSq.apply(x)
print(a.grad_fn is b.grad_fn, a.grad_fn)
a.sum().backward()
print(x.grad)
x.grad = None
a, b = SplitSq.apply(x)
(a.sum() + b.sum()).backward()
print(x.grad)
""",
    "function_static_vjp": """
import torch
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result
    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result
x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
out = Exp.apply(x)
print(out)
print(out.grad_fn.saved_tensors, out.grad_fn.needs_input_grad if hasattr(out.grad_fn, "needs_input_grad") else None)
out.backward(torch.tensor([1.0, 0.5, 0.25]))
print(x.grad)
print(torch.autograd.gradcheck(Exp.apply, (torch.tensor([0.1, 0.2], dtype=torch.double, requires_grad=True),)))
print(Exp.apply(torch.tensor([1.0])).requires_grad)
with torch.no_grad():
    print(Exp.apply(x).grad_fn)
""",
    "div_pow_grads": """
import torch
a = torch.tensor([1.0, 2.0, 4.0], requires_grad=True)
b = torch.tensor([2.0, 0.5, 1.0], requires_grad=True)
y = a / b + a ** b + torch.pow(b, 2) + a.pow(0.5)
print(y)
y.sum().backward()
print(a.grad, b.grad)
print((a / b).grad_fn, (a ** b).grad_fn, (2 ** a).grad_fn, a.pow(2).grad_fn._saved_exponent)
z = torch.tensor(0.0, requires_grad=True)
z.sqrt().backward()
print(z.grad)
z.grad = None
(z.abs()).backward()
print(z.grad)
z.grad = None
torch.relu(z).backward()
print(z.grad)
""",
    "linear_functional": """
import torch
import torch.nn.functional as F
x = torch.tensor([[1.0, 2.0]], requires_grad=True)
W = torch.tensor([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]], requires_grad=True)
b = torch.tensor([0.01, 0.02, 0.03], requires_grad=True)
y = F.linear(x, W, b)
print(y, y.grad_fn)
print(y.grad_fn.next_functions)
print(y.grad_fn.next_functions[2][0].next_functions)
y.sum().backward()
print(W.grad, b.grad, x.grad)
y2 = F.linear(x, W)
print(y2.grad_fn)
y3 = F.linear(torch.ones(2, 3, 2), W, b)
print(y3.shape, y3.grad_fn)
""",
    "nan_inf": """
import torch
x = torch.tensor([0.0, 1.0, -1.0], requires_grad=True)
y = torch.log(x)
print(y)
y.sum().backward()
print(x.grad)
x.grad = None
z = x / x
print(z)
z.sum().backward()
print(x.grad)
print(torch.tensor([1.0, float("nan")]).sum(), torch.tensor(float("inf")) - torch.tensor(float("inf")))
print(torch.nan_to_num(torch.tensor([float("nan"), float("inf"), 1.0])) if hasattr(torch, "nan_to_num") else None)
""",
    "grad_fn_call": """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
print(y.grad_fn(torch.ones(2)))
z = x * torch.tensor([5.0, 7.0], requires_grad=True)
print(z.grad_fn(torch.tensor([1.0, 1.0])))
s = x.sum()
print(s.grad_fn(torch.tensor(2.0)))
e = x.exp()
print(e.grad_fn(torch.ones(2)))
print(e.grad_fn._saved_result)
""",
    "autograd_grad_multiple": """
import torch
x = torch.tensor([0.5, -1.0], requires_grad=True)
y = torch.tensor(2.0, requires_grad=True)
f = (x ** 2).sum() * y + y ** 3
dfdx, dfdy = torch.autograd.grad(f, (x, y), create_graph=True)
print(dfdx, dfdy)
d2 = torch.autograd.grad(dfdy, (x, y), retain_graph=True)
print(d2)
g = torch.autograd.grad(outputs=[f], inputs=[x], grad_outputs=[torch.tensor(3.0)], retain_graph=False)
print(g)
print(x.grad, y.grad)
""",
    "jacobian_nn": """
import torch
from torch.autograd.functional import jacobian, hessian
torch.manual_seed(0)
lin = torch.nn.Linear(3, 2)
x = torch.randn(3)
J = jacobian(lin, x)
print(J.shape, torch.allclose(J, lin.weight))
def loss(w):
    return (torch.tanh(w) ** 2).sum()
H = hessian(loss, torch.tensor([0.1, 0.5, -0.3]))
print(H)
def pair(a, b):
    return (a * b).sum(), a - b
print(jacobian(pair, (torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))))
print(jacobian(lambda t: t.sum(), torch.ones(2, 2)))
""",
    "hooks_modify_leaf": """
import torch
w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
handle = w.register_hook(lambda g: g.clamp(-1, 1))
loss = (w * torch.tensor([5.0, 0.5, -3.0])).sum()
loss.backward()
print(w.grad)
handle.remove()
w.grad = None
loss = (w * torch.tensor([5.0, 0.5, -3.0])).sum()
loss.backward()
print(w.grad)
grads = {}
def save_grad(name):
    def hook(g):
        grads[name] = g
    return hook
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * x
z = y.sum()
y.register_hook(save_grad("y"))
z.register_hook(save_grad("z"))
z.backward()
print(grads)
""",
    "inplace_grad_ops": """
import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
(w * 3).sum().backward()
g = w.grad
w.grad.mul_(0.5)
print(w.grad, g is w.grad)
(w * 3).sum().backward()
print(w.grad, g is w.grad, g)
w.grad.data.zero_()
print(w.grad)
w.grad.add_(torch.tensor([1.0, 1.0]))
print(w.grad)
w.grad = w.grad * 2
print(w.grad)
""",
    "cat_grads_split": """
import torch
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0], requires_grad=True)
c = torch.cat((a, b))
print(c, c.grad_fn, c.grad_fn.next_functions)
d = torch.cat([a.unsqueeze(0), a.unsqueeze(0)], dim=0)
print(d, d.shape)
(c ** 2).sum().backward()
print(a.grad, b.grad)
s = torch.stack((a, a * 2), dim=0)
print(s, s.grad_fn)
x, y = s.unbind(1)
print(x, y)
""",
    "leaf_copy_errors": """
import torch
import warnings
x = torch.tensor([1.0, 2.0], requires_grad=True)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    t = torch.tensor(x)
    print(t, t.requires_grad, len(w))
print(torch.as_tensor([1, 2]).dtype, torch.from_numpy(x.detach().numpy()).dtype)
try:
    x.item()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    bool(x > 0)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.tensor([[1, 2], [3]])
except ValueError as e:
    print("ValueError:", e)
try:
    x.view(3)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.zeros(2, 2)[2]
except IndexError as e:
    print("IndexError:", e)
""",
    "requires_grad_flags": """
import torch
x = torch.randn(3)
print(x.requires_grad)
x.requires_grad = True
print(x.requires_grad, x.is_leaf)
y = torch.zeros(2, requires_grad=True)
z = y.detach()
print(z.requires_grad)
w = torch.ones(2, dtype=torch.float64, requires_grad=True)
print(w)
try:
    torch.zeros(2, dtype=torch.int64).requires_grad_()
except RuntimeError as e:
    print("RuntimeError:", e)
p = torch.full((2,), 3.0, requires_grad=True)
q = torch.empty(2).fill_(1.0).requires_grad_(True)
print(p, q)
""",
    "random_ops": """
import torch
torch.manual_seed(123)
print(torch.rand(2, 3))
print(torch.randn(4))
print(torch.randint(0, 5, (2, 4)))
print(torch.normal(0.0, 1.0, size=(3,)))
print(torch.randn(2, 2, requires_grad=True))
g = torch.Generator().manual_seed(7)
print(torch.rand(3, generator=g))
x = torch.empty(3).uniform_(-1, 1)
print(x)
print(torch.bernoulli(torch.full((5,), 0.5)))
print(torch.multinomial(torch.tensor([0.1, 0.2, 0.7]), 4, replacement=True) if hasattr(torch, "multinomial") else None)
""",
    "no_grad_views": """
import torch
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
b = x * 1
with torch.no_grad():
    nv = b[:2]
    nv4 = b.view(2, 2)
    nt = b.t() if b.dim() == 2 else b.unsqueeze(0)
    cl = b.clone()
    dt = b.detach()
print(nv.requires_grad, nv._is_view(), nv.grad_fn, nv.is_leaf, nv4.requires_grad, nt.requires_grad, cl.requires_grad, dt.requires_grad)
print((nv * 2).requires_grad, (nv * 2).grad_fn)
with torch.no_grad():
    xv = x[1:]
print(xv.requires_grad, xv.is_leaf, xv)
print(nv)
try:
    (nv*2).sum().backward()
except RuntimeError as e: print(e)
""",
    "create_graph_grad_copies": """
import torch, warnings
warnings.simplefilter('ignore')
x = torch.tensor([2.0,3.], requires_grad=True)
y = x*x; y.retain_grad()
(y*y).sum().backward(create_graph=True); print(y.grad, x.grad)
(y*y).sum().backward(create_graph=True); print(y.grad, x.grad)
x = torch.tensor([2.0,3.], requires_grad=True)
x.grad = torch.zeros(2)
(x**3).sum().backward(create_graph=True); print(x.grad)
x = torch.tensor(2.0, requires_grad=True)
(x**3).backward(create_graph=True); print(x.grad, x.grad.grad_fn.next_functions)
x = torch.tensor([2.0,3.], requires_grad=True)
(x*2).sum().backward(create_graph=True); print(x.grad)
""",
    "no_grad_view_ops": """
import torch
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
with torch.no_grad():
    v = x[0]
    w = x[1:]
y = v * 3 + (v * v)
print(y, y.grad_fn.next_functions)
y.backward()
print(v.grad, x.grad)
z = (w.exp() * x[1:]).sum()
z.backward()
print(x.grad, w.grad)
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2
q = F.apply(w)
print(q, q.grad_fn.next_functions)
q.sum().backward()
print(x.grad)
""",
    "inplace_check_order": """
import torch
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
b = x * 1
with torch.no_grad():
    nv = b[:2]
    nx = x[:2]
fs = [lambda: x.split(2)[0].mul_(2), lambda: x.unbind()[0].mul_(2), lambda: nv.mul_(2), lambda: nx.mul_(2),
      lambda: x[:2].mul_(2), lambda: x.add_(1), lambda: b.split(2)[1].add_(1), lambda: x.view(2, 2).zero_()]
for f in fs:
    try:
        f()
    except RuntimeError as e:
        print(str(e)[:90])
with torch.no_grad():
    nv.mul_(2)
    nx.mul_(2)
print(x, b)
""",
    "matmul_shape_errors": """
import torch
a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
v = torch.tensor([1.0, -1.0], requires_grad=True)
print(torch.matmul(v, a).grad_fn, torch.mm(a, a).grad_fn, torch.matmul(a, v).grad_fn, (v @ a).grad_fn.next_functions)
for f in [lambda: torch.mm(a, v), lambda: torch.mm(v, a), lambda: torch.mv(a, a), lambda: torch.bmm(a, a),
          lambda: torch.dot(a, v), lambda: torch.dot(v, torch.ones(3)), lambda: torch.matmul(v, torch.ones(3)),
          lambda: torch.matmul(a, torch.ones(3)), lambda: torch.matmul(torch.ones(2, 2, 3), torch.ones(2, 2, 3)),
          lambda: torch.ones(3, 4) @ torch.ones(3, 4), lambda: torch.ones(5) @ torch.ones(4, 2),
          lambda: torch.nn.functional.linear(torch.ones(2, 3), torch.ones(4, 2)),
          lambda: torch.nn.Linear(3, 2)(torch.ones(4, 5))]:
    try:
        f()
    except RuntimeError as e:
        print(e)
print(torch.addmm(v, a, a).grad_fn, torch.addmm(torch.ones(2, 2), a, a).grad_fn)
""",
    "einsum_pairs": """
import torch
torch.manual_seed(0)
a = torch.randn(2,3, requires_grad=True); b = torch.randn(3,4, requires_grad=True); c = torch.randn(5,3,requires_grad=True)
bb = torch.randn(2,2,3, requires_grad=True); bc = torch.randn(2,3,4, requires_grad=True)
for eq, ops in [('ij,jk->ik',(a,b)),('ij,jk->ki',(a,b)),('ij,kj->ik',(a,c)),('bij,bjk->bik',(bb,bc)),('i,i->',(a[0],a[1])),('ij,ij->i',(a,a)),('ij,j->i',(a,b[:,0])),('i,j->ij',(a[0],b[0])),('ij,ij->ij',(a,a)),('ij->',(a,)),('ij->i',(a,)),('ij->ji',(a,)), ('bij,jk->bik',(bb,b)), ('ij,jk', (a, b)), ('bij,bkj->bik', (bb, bb)), ('ijk,k->ij', (bb, a[0]))]:
    r = torch.einsum(eq, *ops)
    g = torch.autograd.grad(r.sum() * 1.0 + (r ** 2).sum(), ops[0])[0]
    print(eq, r.grad_fn.name(), r.shape, r.sum().item(), g.sum().item())
""",
    "inplace_activations": """
import torch, torch.nn.functional as F
x = torch.tensor([-1.0, 2.0], requires_grad=True)
for f in [F.silu, F.relu, F.hardtanh]:
    h = x * 1
    r = f(h, inplace=True)
    print(r is h, r.grad_fn, h._version)
    r.sum().backward()
    print(x.grad)
""",
    "requires_grad_dtype_errors": """
import torch
for f in [lambda: torch.zeros(2, dtype=torch.int64).requires_grad_(), lambda: setattr(torch.zeros(2, dtype=torch.int64), 'requires_grad', True), lambda: torch.zeros(2, dtype=torch.int64, requires_grad=True), lambda: torch.tensor([1,2], requires_grad=True), lambda: torch.arange(3, requires_grad=True), lambda: torch.nn.Parameter(torch.tensor([1,2])), lambda: torch.ones(2, dtype=torch.long, requires_grad=True), lambda: torch.tensor([[1, 2], [3]]), lambda: torch.tensor([[1.0, 2.0], [3.0, 4.0, 5.0]]), lambda: torch.tensor([[[1.0], [2.0]], [[3.0]]]), lambda: torch.full((2,), 1, requires_grad=True)]:
  try: f(); print("ok")
  except Exception as e: print(type(e).__name__, e)
""",
    "bernoulli_streams": """
import torch
for p in [0.5, 0.2, 0.8]:
    torch.manual_seed(123); print(torch.bernoulli(torch.full((12,), p)))
    torch.manual_seed(123); print(torch.bernoulli(torch.full((7,), p, dtype=torch.float64)))
    torch.manual_seed(123); print(torch.bernoulli(torch.full((5,), 0.3), p))
torch.manual_seed(0); print(torch.bernoulli(torch.rand(3, 3)))
""",
    "multinomial_streams": """
import torch
p = torch.tensor([0.1, 0.2, 0.7])
torch.manual_seed(0); print(torch.multinomial(p, 6, replacement=True))
torch.manual_seed(0); print(torch.multinomial(p, 1))
torch.manual_seed(0); print(torch.multinomial(p, 2))
torch.manual_seed(0); print(torch.multinomial(p, 3, replacement=False))
g = torch.Generator().manual_seed(2147483647)
P = torch.rand(4, 5, generator=g)
print(torch.multinomial(P, 1, replacement=True, generator=g))
print(torch.multinomial(P[0], num_samples=10, replacement=True, generator=g))
print(torch.multinomial(P / P.sum(1, keepdim=True), 2, generator=g), p.multinomial(2))
torch.manual_seed(3); print(torch.multinomial(torch.ones(27) / 27, 20, replacement=True))
""",
    "sort_topk_triangles": """
import torch
a = torch.tensor([[3., 1., 2.], [0.5, -1., 4.], [0.1, 0.2, -0.3], [1., 1., 2.]], requires_grad=True)
s = torch.sort(a, dim=0, descending=True); print(s)
(s.values * torch.arange(12.).view(4, 3)).sum().backward(); print(a.grad); a.grad = None
t = a.topk(2, dim=1, largest=False); print(t, t.values.grad_fn._saved_dim, t.values.grad_fn._saved_indices)
(t.values ** 2).sum().backward(); print(a.grad); a.grad = None
print(a.sort().values.grad_fn, a.msort(), torch.argsort(a, dim=0, descending=True))
print(torch.tensor([1., float('nan'), 3., 2.]).sort(descending=True), torch.tensor([1., 3, 3, 1, 2]).topk(2))
print(torch.tensor(5., requires_grad=True).sort(), torch.tensor(5., requires_grad=True).topk(1))
print(a.tril(), torch.triu(a, diagonal=1), a.tril(1).grad_fn._saved_diagonal)
(a.tril(1) * 3).sum().backward(); print(a.grad); a.grad = None
m = a[:3] * 1; tr = torch.trace(m); print(tr, tr.grad_fn, tr.grad_fn._saved_self_sym_sizes); tr.backward(); print(a.grad)
y = a * 1; y.triu_(); print(y)
for f in [lambda: a.topk(4), lambda: a.sort(2), lambda: torch.tril(a[0]), lambda: torch.triu(torch.tensor(1.)),
          lambda: torch.trace(a[0]), lambda: a.cumprod(2), lambda: torch.var_mean(a, 2), lambda: a.topk(1, dim=-3)]:
    try: f(); print("ok")
    except Exception as e: print(type(e).__name__, e)
""",
    "var_mean_cumprod": """
import torch
a = torch.tensor([[3., 1., 2.], [0.5, -1., 4.], [0.1, 0.2, -0.3], [1., 1., 2.]], requires_grad=True)
vm = torch.var_mean(a, 1); print(vm, type(vm).__name__, vm[0].grad_fn is vm[1].grad_fn)
(vm[0] * 2 + vm[1]).sum().backward(); print(a.grad); a.grad = None
sm = torch.std_mean(a, dim=0, keepdim=True, unbiased=False); print(sm, sm[0].grad_fn._saved_result0)
(sm[0] - sm[1] ** 2).sum().backward(); print(a.grad); a.grad = None
v, mu = torch.var_mean(a); print(v, mu, v.grad_fn._saved_dim, v.grad_fn._saved_correction, v.grad_fn._saved_keepdim)
v.backward(); print(a.grad); a.grad = None
v, mu = torch.std_mean(a, correction=0); mu.backward(); print(a.grad); a.grad = None
print(torch.var_mean(a, (0, 1), correction=2), a.var(1), a.std(0))
c = a.cumprod(1); print(c, c.grad_fn, c.grad_fn._saved_dim); c.sum().backward(); print(a.grad); a.grad = None
x = torch.tensor([[1., 2., 0., 3.], [0., 2., 0., 1.], [2., 1., 1., 2.], [3., 0., 2., 5.]], requires_grad=True)
y = x.cumprod(1); y.backward(torch.tensor([[1., 2, 3, 4], [1, 1, 1, 1], [0.5, 1, 2, 3], [1, -1, 2, 0.5]]))
print(y, x.grad); x.grad = None
y = torch.cumprod(x, 0); y.sum().backward(); print(x.grad)
g = torch.autograd.grad(a.cumprod(0).sum(), a, create_graph=True)[0]; print(g.grad_fn)
print(torch.cumsum(a, dim=-1), torch.tensor([1, 2, 3], dtype=torch.int32).cumprod(0), torch.tensor(2.).cumsum(0))
""",
    "inplace_activation_nodes": """
import torch, torch.nn as nn, torch.nn.functional as F
x = torch.tensor([[1.5, -0.2, -0.9], [0.6, -0.5, -0.3]], requires_grad=True)
h = x * 2
r = F.leaky_relu_(h, 0.2); print(r is h, r, h._version, r.grad_fn._saved_result, r.grad_fn._saved_negative_slope)
r.sum().backward(); print(x.grad); x.grad = None
h = x * 2; r = nn.ELU(inplace=True)(h); print(nn.ELU(inplace=True), r, r.grad_fn._saved_alpha); r.sum().backward(); print(x.grad); x.grad = None
h = x * 2; r = nn.LeakyReLU(0.1, inplace=True)(h); print(nn.LeakyReLU(0.1, inplace=True), r.grad_fn); (r * r).sum().backward(); print(x.grad); x.grad = None
h = x * 1; r = F.selu(h, inplace=True); print(r.grad_fn); r.sum().backward(); print(x.grad); x.grad = None
h = x * 1; r = F.elu_(h, 0.5); print(r.grad_fn, F.elu(x, 0.5).grad_fn)
g = torch.autograd.grad(r.sum(), x, create_graph=True)[0]; print(g.grad_fn, g.grad_fn.next_functions[0][0].next_functions)
for f in [lambda: F.leaky_relu_(x * 1, -0.2).sum().backward(), lambda: F.elu_(x * 1, -0.2).sum().backward()]:
    try: f(); print("ok")
    except Exception as ex: print(type(ex).__name__, ex)
h = x * 2
torch.manual_seed(1); r = F.dropout(h, 0.5, training=True, inplace=True); print(r is h, h._version, h.grad_fn, r)
r.sum().backward(); print(x.grad)
dp = nn.Dropout(0.3, inplace=True); dp.eval(); h = x * 1; print(dp(h) is h, h._version)
""",
    "layer_norm_embedding": """
import torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(4, 3, requires_grad=True)
y = F.layer_norm(x, (3,)); print(y, y.grad_fn.next_functions, y.grad_fn._saved_result1, y.grad_fn._saved_result2, y.grad_fn._saved_normalized_shape)
(y * torch.arange(12.).view(4, 3)).sum().backward(); print(x.grad); x.grad = None
ln = nn.LayerNorm(3); print(ln, list(ln.named_parameters()))
with torch.no_grad():
    ln.weight.mul_(2.0); ln.bias.add_(0.5)
out = ln(x); print(out); (out * torch.tensor([1.0, -2.0, 0.5])).sum().backward(); print(x.grad, ln.weight.grad, ln.bias.grad); x.grad = None
ln2 = nn.LayerNorm([4, 3], eps=1e-3, elementwise_affine=False); print(ln2, list(ln2.parameters())); o = ln2(x); print(o); o.exp().sum().backward(); print(x.grad); x.grad = None
print(nn.LayerNorm(3, bias=False), nn.LayerNorm(3, bias=False).bias)
for f in [lambda: F.layer_norm(x, (4,)), lambda: F.layer_norm(x, (2, 3)), lambda: F.layer_norm(x, (3,), torch.ones(4))]:
    try: f(); print("ok")
    except Exception as ex: print(type(ex).__name__, ex)
W = torch.randn(5, 2, requires_grad=True)
e = F.embedding(torch.tensor([[0, 3], [3, 1]]), W, padding_idx=1); fn = e.grad_fn
print(e, fn.next_functions, fn._saved_padding_idx, fn._saved_weight_sym_argsize_0, fn._saved_indices, fn._saved_sparse, fn._saved_scale_grad_by_freq)
e.backward(torch.arange(8.).view(2, 2, 2)); print(W.grad); W.grad = None
F.embedding(torch.tensor([0, 0, 2, 0]), W, scale_grad_by_freq=True).backward(torch.ones(4, 2)); print(W.grad); W.grad = None
g = torch.autograd.grad(F.embedding(torch.tensor([1, 4]), W).sum(), W, create_graph=True)[0]; print(g)
emb = nn.Embedding(4, 2, padding_idx=0); print(emb, emb.weight); o = emb(torch.tensor([0, 1, 1])); print(o); o.sum().backward(); print(emb.weight.grad)
emb = nn.Embedding(4, 3, max_norm=1.0); o = emb(torch.tensor([1, 2])); print(emb.weight, emb.weight._version, o.norm(dim=1))
for f in [lambda: F.embedding(torch.tensor([5]), W), lambda: F.embedding(torch.tensor([0.]), W), lambda: F.embedding(torch.tensor([-1]), W),
          lambda: F.embedding(torch.tensor([0], dtype=torch.int32), W)]:
    try: print(f())
    except Exception as ex: print(type(ex).__name__, ex)
""",
    "batch_norm_train_eval": """
import torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(4, 3, requires_grad=True)
bn = nn.BatchNorm1d(3); print(bn, bn.momentum, dict(bn.named_buffers()), list(bn.state_dict().keys()))
y = bn(x); fn = y.grad_fn; print(y, type(fn).__name__, fn._saved_eps, fn._saved_training, fn._saved_result1, fn._saved_result2, fn.next_functions)
print(bn.running_mean, bn.running_var, bn.num_batches_tracked, bn.running_mean._version, bn.num_batches_tracked._version)
(y * torch.arange(12.).view(4, 3)).sum().backward(); print(x.grad, bn.weight.grad, bn.bias.grad); x.grad = None
bn(x * 2); print(bn.running_mean, bn.running_var, bn.num_batches_tracked)
bn.eval(); y = bn(x); fn = y.grad_fn; print(y, type(fn).__name__, fn._saved_training, fn._saved_result1, fn._saved_result2, fn._saved_running_mean)
(y * torch.arange(12.).view(4, 3)).sum().backward(); print(x.grad, bn.weight.grad); x.grad = None
for f in [lambda: bn(torch.randn(2, 3, 4, 5)), lambda: bn.train()(torch.randn(1, 3)), lambda: F.batch_norm(x, None, None),
          lambda: bn(torch.randn(2, 4)), lambda: bn(torch.randn(1, 3, 1))]:
    try: f(); print("ok")
    except Exception as ex: print(type(ex).__name__, ex)
bn2 = nn.BatchNorm1d(3, momentum=None, affine=False); print(bn2, list(bn2.parameters())); bn2(x); bn2(x * 2)
print(bn2.running_mean, bn2.running_var, bn2.num_batches_tracked)
bn3 = nn.BatchNorm1d(3, track_running_stats=False); print(bn3, bn3.running_mean, bn3.state_dict()); bn3.eval(); print(bn3(x))
print(F.batch_norm(x, None, None, training=True).grad_fn._saved_running_mean)
x3 = torch.randn(2, 3, 4, requires_grad=True); bn.train(); y3 = bn(x3); print(y3.shape, bn.running_var)
y3.sin().sum().backward(); print(x3.grad)
bn4 = nn.BatchNorm2d(2); x4 = torch.randn(3, 2, 2, 2, requires_grad=True); y4 = bn4(x4)
(y4 * y4.detach().cos()).sum().backward(); print(bn4, x4.grad, bn4.weight.grad, bn4.running_mean)
m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 1))
opt = torch.optim.SGD(m.parameters(), lr=0.1)
for i in range(3):
    opt.zero_grad(); loss = (m(x) ** 2).mean(); loss.backward(); opt.step(); print(loss.item())
print(m, m[1].running_mean, m[1].num_batches_tracked)
m.eval(); print(m(x))
""",
    "sweep_dim_range_errors": """
import torch
a = torch.randn(2, 3)
b = torch.randn(4, 5)
for f in [lambda: a @ b, lambda: a + b, lambda: torch.mm(a, b), lambda: a.view(4, 2), lambda: a.reshape(5), lambda: torch.cat([a, b]),
          lambda: a.t().view(6), lambda: torch.stack([a, b]), lambda: a.sum(dim=2), lambda: a[3], lambda: a.squeeze(3), lambda: torch.matmul(a, torch.randn(2))]:
    try:
        f()
        print("ok")
    except Exception as e:
        print(type(e).__name__, e)
""",
    "sweep_matmul_dtype_errors": """
import torch
x = torch.tensor([1, 2, 3])
w = torch.tensor([0.5, 0.5, 0.5], requires_grad=True)
print((x * w).dtype, (x * w))
for f in [lambda: torch.tensor([1.0]).long().requires_grad_(), lambda: torch.mm(torch.ones(2, 2), torch.ones(2, 2, dtype=torch.long)),
          lambda: torch.ones(2, dtype=torch.float64) @ torch.ones(2),
          lambda: x.mean(), lambda: torch.nn.Linear(3, 1)(x), lambda: x.float().mean(),
          lambda: torch.ones(2).add_(torch.tensor([1.5, 2.5], dtype=torch.float64))]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
""",
    "sweep_gather_scatter": """
import torch
x = torch.arange(12.).reshape(3, 4).requires_grad_()
i = torch.tensor([[0, 1], [2, 3], [1, 1]])
g = x.gather(1, i)
print(g, g.grad_fn, g.grad_fn._saved_dim, g.grad_fn._saved_index)
g.sum().backward()
print(x.grad)
x.grad = None
s = x.index_select(0, torch.tensor([2, 0]))
print(s, s.grad_fn, s.grad_fn._saved_dim)
s.sum().backward()
print(x.grad)
n = x.narrow(1, 1, 2)
print(n, n.grad_fn)
sel = x.select(1, 2)
print(sel, sel.grad_fn, sel.grad_fn._saved_dim, sel.grad_fn._saved_index)
m = x[x > 5]
print(m, m.grad_fn)
z = torch.zeros(3, 4).scatter(1, i, 1.0)
print(z)
print(x[:, [0, 2]].grad_fn, x[[0, 1], [1, 2]])
""",
    "sweep_negative_dim_views": """
import torch
x = torch.arange(12.).reshape(3, 4).requires_grad_()
i = torch.tensor([[0, 1], [2, 3], [1, 1]])
for y in [x.gather(-1, i), x.index_select(-1, torch.tensor([0, 3])), x.narrow(-1, 1, 2), x.select(-1, 2), x.select(-2, 0), x.narrow(-2, 0, 2)]:
    fn = y.grad_fn
    print(type(fn).__name__, [(a, getattr(fn, a)) for a in sorted(dir(fn)) if a.startswith("_saved_")])
    y.sum().backward()
print(x.grad)
x.grad = None
ys = [x.gather(-1, i), x.index_select(-1, torch.tensor([0, 3])), x.narrow(-1, 1, 2), x.select(-1, 2), x.select(-2, 0), x.narrow(-2, 0, 2), x[..., 1]]
tot = sum((y ** 2 * torch.linspace(0.5, 1.5, y.numel()).reshape(y.shape)).sum() for y in ys)
g, = torch.autograd.grad(tot, x, create_graph=True)
print(g)
def walk(fn, seen):
    if fn is None or fn in seen: return
    seen.add(fn)
    print(type(fn).__name__, [(a, getattr(fn, a)) for a in sorted(dir(fn)) if a.startswith("_saved_dim")])
    for f, _ in fn.next_functions: walk(f, seen)
walk(g.grad_fn, set())
g.sum().backward()
print(x.grad)
print(torch.arange(6.).reshape(2, 3).select(-1, -1), torch.arange(6.).reshape(2, 3).narrow(-1, -2, 2))
""",
    "sweep_diag_diagonal": """
import torch
m = torch.arange(9.).reshape(3, 3).requires_grad_()
d = torch.diag(m)
print(d, d.grad_fn)
d.sum().backward()
print(m.grad)
v = torch.tensor([1., 2.], requires_grad=True)
D = torch.diag(v)
print(D, D.grad_fn)
D.sum().backward()
print(v.grad)
print(torch.diagonal(m), torch.diagonal(m).grad_fn, m.diag(1))
print(torch.eye(3), torch.diag_embed(v))
for y in [m.diag(-1), torch.diagonal(m, 1, -1, -2), torch.diag(v, -1), torch.diag_embed(v), m.tril(-1), m.triu(-2)]:
    fn = y.grad_fn
    print(fn.name(), [(a, getattr(fn, a)) for a in sorted(dir(fn)) if a.startswith("_saved")], y._is_view())
m.grad = None
c = m * 1
c.diagonal().mul_(10)
print(c, c.grad_fn)
c.sum().backward()
print(m.grad)
g, = torch.autograd.grad(torch.diag(v).pow(2).sum(), v, create_graph=True)
print(g, g.grad_fn)
g, = torch.autograd.grad((torch.diag(m) ** 2).sum(), m, create_graph=True)
print(g, g.grad_fn)
g.sum().backward()
print(m.grad)
for f in [lambda: torch.diag(torch.ones(2, 2, 2)), lambda: m.diagonal(0, 1, -1)]:
    try: f()
    except Exception as e: print(type(e).__name__, e)
""",
    "sweep_matmul_fold_paths": """
import torch
def walk(fn):
    if fn is None: return ''
    return type(fn).__name__ + '(' + ','.join(walk(f) for f, _ in fn.next_functions) + ')'
for sa, sb, ga, gb in [((2,3),(2,3,2),False,True), ((3,),(2,3,2),False,True), ((3,),(2,3,2),True,False), ((2,3),(2,3,2),True,False), ((2,2,3),(3,),False,True), ((2,2,3),(3,),True,False),((2,2,3),(3,2),True,False), ((4,1,2,3),(5,3,2),True,True), ((2,3),(4,1,3,2),True,False), ((3,),(4,2,3,2),True,False), ((2,2,3),(3,),False,True), ((2,2,3),(3,),True,True)]:
    a = torch.arange(float(torch.Size(sa).numel())).reshape(sa).requires_grad_(ga)
    b = torch.arange(float(torch.Size(sb).numel())).reshape(sb).requires_grad_(gb)
    y = a @ b
    print(y.shape, walk(y.grad_fn)); y.pow(2).sum().backward(); print(a.grad, b.grad)
a = torch.ones(4, 3, 2).transpose(0, 1); y = a @ torch.ones(2, 5, requires_grad=True); print(walk(y.grad_fn))
a = torch.ones(4, 3, 2).transpose(0, 1).requires_grad_(); y = a @ torch.ones(2, 5); print(walk(y.grad_fn))
f32 = lambda *s: torch.ones(*s)
i64 = lambda *s: torch.ones(*s, dtype=torch.long)
f64 = lambda *s: torch.ones(*s, dtype=torch.float64)
F = torch.nn.functional
W = torch.ones(4, 3); b = torch.ones(4)
cases = [lambda: f32(2,3) @ i64(3,2), lambda: f64(2,3) @ f32(3,2), lambda: f32(3) @ f64(3), lambda: f32(2,3) @ f64(3), lambda: f64(3) @ f32(3, 2),
 lambda: f32(2,2,3) @ f64(3,2), lambda: f32(2,2,3) @ f64(2,3,2), lambda: f64(2,3) @ f32(2, 3, 2), lambda: torch.bmm(f32(2,2,3), f64(2,3,2)),
 lambda: F.linear(i64(2, 3), W, b), lambda: F.linear(i64(2, 3), W), lambda: torch.addmm(f64(2,2), f32(2,3), f32(3,2)), lambda: torch.addmm(f32(2,2), f32(2,3), f64(3,2)),
 lambda: torch.addmm(f32(2,2), f64(2,3), f32(3,2)), lambda: torch.nn.Linear(3, 4)(torch.tensor([[1, 2, 3]])), lambda: torch.ones(3) @ torch.ones(2, 2, 2), lambda: torch.ones(2, 3) @ torch.ones(4, 2, 2)]
for c in cases:
    try: print(c())
    except Exception as e: print(type(e).__name__, e)
""",
    "sweep_custom_needs_input_grad": """
import torch
class MulAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x, w)
        return x * w + b
    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        print("needs", ctx.needs_input_grad)
        gx = grad * w if ctx.needs_input_grad[0] else None
        gw = grad * x if ctx.needs_input_grad[1] else None
        gb = grad if ctx.needs_input_grad[2] else None
        return gx, gw, gb
x = torch.tensor([1.0, 2.0])
w = torch.tensor([3.0, 4.0], requires_grad=True)
b = torch.tensor(0.5, requires_grad=True)
y = MulAdd.apply(x, w, b)
print(y, y.grad_fn.next_functions)
try:
    y.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
print(w.grad, b.grad, x.grad)
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g, g
try:
    Bad.apply(w).sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
class WrongShape(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.sum()
    @staticmethod
    def backward(ctx, g):
        return g.expand(3)
try:
    WrongShape.apply(w).backward()
except RuntimeError as e:
    print("RuntimeError:", e)
""",
    "sweep_module_forward_backward_hooks": """
import torch
import torch.nn as nn
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1))
acts = {}
def fwd_hook(mod, inp, out):
    acts[type(mod).__name__] = out.detach()
    print("forward", type(mod).__name__, tuple(inp[0].shape), tuple(out.shape))
def bwd_hook(mod, gin, gout):
    print("backward", type(mod).__name__, [None if g is None else tuple(g.shape) for g in gin], [tuple(g.shape) for g in gout])
hs = [m.register_forward_hook(fwd_hook) for m in net]
hb = net[0].register_full_backward_hook(bwd_hook)
x = torch.randn(4, 3)
out = net(x).sum()
out.backward()
print(acts["ReLU"])
for h in hs: h.remove()
hb.remove()
net(x)
print(net[0].weight.grad)
""",
    "sweep_grads_batched": """
import torch
x = torch.tensor(2.0, requires_grad=True)
y = torch.tensor(3.0, requires_grad=True)
z = x * y + y ** 2
gx, gy = torch.autograd.grad(z, [x, y], create_graph=True)
print(gx, gy)
gxx, gxy = torch.autograd.grad(gx, [x, y], allow_unused=True, retain_graph=True)
print(gxx, gxy)
gyx, gyy = torch.autograd.grad(gy, [x, y])
print(gyx, gyy)
w = torch.tensor([1.0, 2.0], requires_grad=True)
out = torch.stack([w.prod(), w.sum()])
jac_rows = [torch.autograd.grad(out[i], w, retain_graph=True)[0] for i in range(2)]
print(torch.stack(jac_rows))
print(torch.autograd.grad(out, w, grad_outputs=torch.eye(2), is_grads_batched=True))
""",
    "sweep_creation_ops": """
import torch
print(torch.zeros(2, 3), torch.ones(3), torch.full((2, 2), 7.0), torch.full((2,), 3))
print(torch.eye(2), torch.arange(0, 1, 0.25), torch.linspace(0, 1, 5), torch.logspace(0, 2, 3))
print(torch.zeros_like(torch.ones(2, dtype=torch.long)), torch.ones_like(torch.zeros(2, 2)), torch.empty(2).shape)
print(torch.arange(5).dtype, torch.arange(5.0).dtype, torch.tensor(5).dtype, torch.tensor(5.).dtype, torch.tensor(True).dtype)
x = torch.ones(2, 2, requires_grad=True)
print(torch.zeros_like(x), torch.zeros_like(x).requires_grad, torch.ones_like(x, requires_grad=True))
torch.manual_seed(0); print(torch.randn(2, 2).requires_grad, torch.rand(2, requires_grad=True))
print(torch.tensor([[1, 2], [3, 4]]).float().mean(), torch.tensor([1, 2, 3]).sum(), torch.tensor([1, 2, 3]).sum().dtype)
print(torch.Size([2, 3]), torch.ones(2, 3).size(1), torch.ones(2, 3).shape[0], len(torch.ones(4, 2)))
print(torch.cat([torch.zeros(1, 2), torch.ones(1, 2)]), torch.stack([torch.zeros(2), torch.ones(2)], dim=1))
""",
    "sweep_full_backward_hooks": """
import torch
import torch.nn as nn
torch.manual_seed(0)
lin = nn.Linear(3, 2)
def bh(m, gin, gout):
    print("hook", type(m).__name__, gin, gout)
def bph(m, gout):
    print("pre", gout)
    return (gout[0] * 2,)
h1 = lin.register_full_backward_hook(bh)
h2 = lin.register_full_backward_pre_hook(bph)
x = torch.randn(2, 3, requires_grad=True)
y = lin(x)
print(y.grad_fn, y.grad_fn.next_functions[0][0].next_functions)
y.sum().backward()
print(x.grad, lin.bias.grad)
h2.remove()
x.grad = None
lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 0,))
lin(x).sum().backward()
print(x.grad)
class Two(nn.Module):
    def forward(self, a, b):
        return a * b, a + b
t = Two()
t.register_full_backward_hook(lambda m, gi, go: print("two", gi, go))
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0])
p, q = t(a, b)
print(p.grad_fn, q.grad_fn)
(p.sum() + 2 * q.sum()).backward()
print(a.grad)
""",
    "sweep_inplace_version": """
import torch
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a * 2
print(b._version)
b.add_(1)
print(b._version)
b.mul_(2)
print(b._version, b.grad_fn)
c = b.sigmoid()
b.add_(1)
try:
    c.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
d = a.exp()
d[0] = 0
try:
    d.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
""",
    "sweep_losses": """
import torch
import torch.nn as nn
pred = torch.tensor([[0.2, 0.8], [0.6, 0.4]], requires_grad=True)
target = torch.tensor([[0.0, 1.0], [1.0, 0.0]])
for loss_fn in [nn.MSELoss(), nn.L1Loss(), nn.SmoothL1Loss(), nn.BCELoss(), nn.BCEWithLogitsLoss(), nn.HuberLoss(delta=0.5), nn.MSELoss(reduction='sum'), nn.L1Loss(reduction='none')]:
    l = loss_fn(pred, target)
    print(loss_fn, l, l.grad_fn)
logits = torch.tensor([[1.0, 2.0, 0.5], [0.1, 0.2, 3.0]], requires_grad=True)
labels = torch.tensor([1, 2])
ce = nn.CrossEntropyLoss()(logits, labels)
print(ce, ce.grad_fn)
ce.backward()
print(logits.grad)
nll = nn.NLLLoss()(torch.log_softmax(logits, 1), labels)
print(nll, nll.grad_fn)
print(nn.CrossEntropyLoss(label_smoothing=0.1)(logits, labels))
print(nn.KLDivLoss(reduction='batchmean')(torch.log_softmax(logits, 1), torch.softmax(logits.detach() * 2, 1)))
""",
    "sweep_optimizers_compare": """
import torch
def run(opt_cls, **kw):
    torch.manual_seed(0)
    p = torch.randn(3, requires_grad=True)
    opt = opt_cls([p], **kw)
    for _ in range(5):
        opt.zero_grad()
        loss = ((p - torch.tensor([1.0, -2.0, 0.5])) ** 2).sum()
        loss.backward()
        opt.step()
    print(opt_cls.__name__, kw, loss.item(), p.detach())
run(torch.optim.SGD, lr=0.1)
run(torch.optim.SGD, lr=0.1, momentum=0.9, nesterov=True)
run(torch.optim.SGD, lr=0.1, weight_decay=0.01)
run(torch.optim.Adam, lr=0.1)
run(torch.optim.AdamW, lr=0.1)
run(torch.optim.Adam, lr=0.1, amsgrad=True)
run(torch.optim.RMSprop, lr=0.01)
run(torch.optim.Adagrad, lr=0.5)
opt = torch.optim.Adam([torch.zeros(2, requires_grad=True)], lr=1e-3)
print(opt)
print(opt.param_groups[0]['lr'], opt.defaults['betas'])
""",
    "sweep_grad_edge_values": """
import torch
x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
for f in [torch.abs, torch.relu, torch.sqrt, lambda t: t.clamp(0, 1), torch.sign, lambda t: t ** 0.5, lambda t: torch.where(t > 0, t, torch.zeros_like(t)),
          lambda t: torch.where(t > 0, t.log(), torch.zeros_like(t)), torch.exp, lambda t: t.max(), lambda t: t.norm(), torch.sigmoid]:
    x.grad = None
    y = f(x)
    y.sum().backward()
    print(y, x.grad)
z = torch.zeros(3, requires_grad=True)
z.norm().backward()
print(z.grad)
""",
    "cnn_two_sgd_steps": """
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(1, 4, kernel_size=3, padding=1),
    nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Conv2d(4, 6, 3, stride=1, padding='same', bias=False),
    nn.ReLU(),
    nn.AvgPool2d(2),
    nn.Flatten(),
    nn.Linear(6 * 2 * 2, 3),
)
print(model)
x = torch.randn(5, 1, 8, 8)
y = torch.tensor([0, 2, 1, 1, 0])
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for step in range(2):
    opt.zero_grad()
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    loss.backward()
    opt.step()
    print(step, loss.item())
    for name, p in model.named_parameters():
        print(name, tuple(p.shape), p.grad.abs().sum().item())
fn = loss.grad_fn
seen = 0
while fn is not None and seen < 12:
    print(type(fn).__name__, [(type(f).__name__ if f is not None else None, i) for f, i in fn.next_functions])
    nxt = [f for f, _ in fn.next_functions if f is not None and type(f).__name__ != "AccumulateGrad"]
    fn = nxt[0] if nxt else None
    seen += 1
conv = logits.grad_fn.next_functions[1][0].next_functions[0][0]
print(model[0].weight[0, 0], model[0].bias)
out = model[0](x)
node = out.grad_fn
print(type(node).__name__, node._saved_stride, node._saved_padding, node._saved_dilation, node._saved_groups,
      node._saved_transposed, node._saved_output_padding, node._saved_bias_sym_sizes_opt, node._saved_input.shape)
pool = F.max_pool2d(out, 2, return_indices=True)
print(pool[1][0, 0], pool[0].grad_fn._saved_kernel_size, pool[0].grad_fn._saved_stride, pool[0].grad_fn._saved_result1.dtype)
""",
    "conv_pool_functional_and_errors": """
import torch
import torch.nn.functional as F
torch.manual_seed(1)
x = torch.randn(1, 2, 5, 5, requires_grad=True)
w = torch.randn(3, 2, 3, 3, requires_grad=True)
b = torch.zeros(3, requires_grad=True)
y = F.conv2d(x, w, b, stride=2, padding=1)
print(y.shape, y.grad_fn, y.grad_fn.next_functions)
y.pow(2).sum().backward()
print(x.grad[0, 0], w.grad[0, 1], b.grad)
print(F.conv1d(torch.arange(8.).view(1, 2, 4), torch.ones(1, 2, 2), padding='same'))
v = F.conv2d(x, w[:, :, :2], padding='same')
print(v.shape, v.grad_fn.next_functions[0][0], v.grad_fn.next_functions[0][0]._saved_pad)
p = F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False)
print(p, p.grad_fn._saved_count_include_pad, p.grad_fn._saved_divisor_override)
m, idx = F.max_pool2d(x, 2, ceil_mode=True, return_indices=True)
print(m.shape, idx)
print(F.pad(x[0, 0, :2, :2], (1, 0, 0, 2), value=-1.0))
for bad in [lambda: F.conv2d(torch.randn(2, 3, 5, 5), w),
            lambda: F.conv2d(torch.randn(5, 5), w),
            lambda: F.conv2d(torch.randn(1, 2, 2, 2), w),
            lambda: F.conv2d(x, w, stride=2, padding='same'),
            lambda: F.conv2d(x, w, torch.zeros(4)),
            lambda: F.conv2d(x.double(), w),
            lambda: F.max_pool2d(torch.randn(1, 3, 1, 1), 2),
            lambda: F.max_pool2d(x, 2, padding=2),
            lambda: F.avg_pool2d(torch.randn(4, 4), 2),
            lambda: torch.nn.Conv2d(3, 4, 3, groups=2),
            lambda: torch.nn.Linear(8, 2)(torch.nn.Flatten()(torch.randn(2, 3, 2, 2))),
            lambda: F.pad(x, (1,))]:
    try:
        bad()
    except (RuntimeError, ValueError, IndexError) as e:
        print(type(e).__name__ + ":", e)
""",
    "conv_gradient_penalty": """
import torch
import torch.nn.functional as F
torch.manual_seed(2)
x = torch.randn(2, 1, 4, 4, requires_grad=True)
w = torch.randn(2, 1, 2, 2, requires_grad=True)
b = torch.randn(2, requires_grad=True)
out = F.conv2d(x, w, b).tanh().sum()
gx, gw, gb = torch.autograd.grad(out, (x, w, b), create_graph=True)
print(gx.grad_fn, gx.grad_fn is gw.grad_fn, gw.grad_fn is gb.grad_fn)
node = F.conv2d(x, w, b).grad_fn
g = torch.ones(2, 2, 3, 3, requires_grad=True)
gi, = torch.autograd.grad(F.conv2d(x, w, b), x, g, create_graph=True)
print(gi.grad_fn, [(type(f).__name__, i) for f, i in gi.grad_fn.next_functions])
print(sorted(a for a in dir(gi.grad_fn) if a.startswith("_saved_")))
penalty = (gx.norm() - 1) ** 2
penalty.backward()
print(penalty, w.grad, b.grad)
""",
    "median_nansum_roll": """
import torch
x = torch.tensor([[3.0, 1.0, 2.0, 5.0], [4.0, 2.0, 7.0, 1.0]], requires_grad=True)
m = x.median()
print(m, m.grad_fn, m.grad_fn._saved_result, m.grad_fn._saved_self.shape)
r = torch.median(x, dim=1)
print(r)
print(r.values.grad_fn, r.values.grad_fn._saved_dim, r.values.grad_fn._saved_keepdim, r.values.grad_fn._saved_indices)
(m + r.values.sum()).backward()
print(x.grad)
t = torch.tensor([2.0, float("nan"), 1.0, 1.0], requires_grad=True)
print(t.median(), t.nanmedian(), t.nanmedian(0), torch.nansum(t), torch.nanmean(t))
torch.nanmean(t).backward()
print(t.grad)
s = torch.nansum(x, dim=0, keepdim=True)
print(s, s.grad_fn, s.grad_fn._saved_dim, s.grad_fn._saved_keepdim)
mean = torch.nanmean(x, 1)
print(mean.grad_fn, mean.grad_fn.next_functions, mean.grad_fn._saved_other)
rolled = torch.roll(x, shifts=(1, -1), dims=(0, 1))
print(rolled, rolled.grad_fn._saved_shifts, rolled.grad_fn._saved_dims)
flat = x.roll(3)
print(flat, flat.grad_fn._saved_dims)
x.grad = None
(rolled * torch.arange(8.0).view(2, 4)).sum().backward()
print(x.grad)
for bad in [lambda: torch.zeros(0, 3).median(0), lambda: torch.tensor([1, 2]).nanmean(),
            lambda: x.roll((1, 2)), lambda: x.roll(1, 5)]:
    try:
        bad()
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__ + ":", e)
""",
    "activations_more": """
import torch
import torch.nn as nn
import torch.nn.functional as F
x = torch.linspace(-4, 4, 9, requires_grad=True)
layers = [nn.CELU(0.5), nn.SELU(), nn.Mish(), nn.Hardswish(), nn.Hardsigmoid(), nn.Tanhshrink(),
          nn.Threshold(0.5, -2.0), nn.Softsign(), nn.LogSigmoid(), nn.SiLU(), nn.Softplus(beta=2.0),
          nn.Hardtanh(-2, 2), nn.ReLU6()]
for layer in layers:
    y = layer(x)
    g, = torch.autograd.grad(y.sum(), x)
    print(layer, y.grad_fn, g)
print(nn.GLU()(x[:8].view(2, 4)), nn.GLU(0)(x[:8].view(2, 4)).grad_fn._saved_dim)
c = F.celu(x, 2.0)
print(c.grad_fn._saved_alpha)
gc, = torch.autograd.grad(c.sum(), x, create_graph=True)
print(gc.grad_fn, gc.grad_fn._saved_scale, gc.grad_fn._saved_input_scale, gc.grad_fn._saved_is_result)
h = F.hardsigmoid(x)
gh, = torch.autograd.grad(h.sum(), x, create_graph=True)
print(gh.grad_fn, gh)
try:
    gh.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
z = x * 1
F.celu_(z)
print(z.grad_fn, z.grad_fn._saved_alpha)
""",
    "einsum_repeated_index": """
import torch
A = torch.arange(9.0).view(3, 3).requires_grad_()
B = torch.arange(18.0).view(2, 3, 3).requires_grad_()
v = torch.tensor([1.0, -1.0, 2.0], requires_grad=True)
def chain(fn):
    names = []
    while fn is not None:
        names.append(type(fn).__name__)
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return names
for eq, ops in [("ii->", (A,)), ("ii->i", (A,)), ("bii->bi", (B,)), ("bii", (B,)), ("ii,i->i", (A, v)),
                ("ij,jk->ik", (A, A)), ("i,j->ij", (v, v))]:
    out = torch.einsum(eq, *ops)
    print(eq, out, chain(out.grad_fn))
    out.sum().backward()
print(A.grad, B.grad, v.grad)
d = torch.einsum("ii->i", A)
print(d.grad_fn._saved_dims, d.grad_fn.next_functions[0][0].next_functions[0][0]._saved_offset)
try:
    torch.einsum("ii->i", torch.ones(2, 3))
except RuntimeError as e:
    print("RuntimeError:", e)
""",
    "legacy_module_backward_hook": """
import warnings
import torch
import torch.nn as nn
torch.manual_seed(0)
lin = nn.Linear(3, 2)
def hook(module, grad_input, grad_output):
    print("hook", type(module).__name__, [None if g is None else tuple(g.shape) for g in grad_input], grad_output)
handle = lin.register_backward_hook(hook)
x = torch.randn(4, 3, requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    y = lin(x)
print([(w.category.__name__, str(w.message)) for w in caught])
y.sum().backward()
print(x.grad)
try:
    lin.register_full_backward_hook(hook)
except RuntimeError as e:
    print("RuntimeError:", e)
handle.remove()
class Square(nn.Module):
    def forward(self, t):
        return t * t
sq = Square()
sq.register_backward_hook(lambda m, gi, go: (gi[0] * 10, gi[1]))
a = torch.tensor([1.0, 2.0], requires_grad=True)
sq(a).sum().backward()
print(a.grad)
""",
    "order_statistics_unique_histograms": """
import torch
x = torch.tensor([3.0, 1.0, 2.0, 1.0, 3.0, 3.0], requires_grad=True)
u, inv, counts = torch.unique(x, return_inverse=True, return_counts=True)
print(u, inv, counts)
try:
    u.sum().backward()
except NotImplementedError as e:
    print("NotImplementedError:", e)
print(torch.unique(x.detach(), sorted=True), torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1, 1]), return_counts=True))
m = torch.tensor([[1, 2], [1, 2], [0, 5]])
print(torch.unique(m, dim=0, return_inverse=True, return_counts=True))
print(torch.unique_consecutive(m, dim=0, return_inverse=True))
idx = torch.tensor([0, 2, 2, 5])
print(torch.bincount(idx), torch.bincount(idx, minlength=8), idx.bincount())
w = torch.tensor([0.5, 1.0, 2.0, 0.25], requires_grad=True)
bw = torch.bincount(idx, weights=w)
print(bw, bw.grad_fn)
try:
    bw.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
print(torch.histc(torch.tensor([1.0, 2.0, 1.0, 4.0, 2.5]), bins=4, min=0, max=4), x.histc(3))
s = torch.tensor([1.0, 3.0, 5.0, 7.0])
v = torch.tensor([0.0, 3.0, 6.0, 9.0])
print(torch.searchsorted(s, v), torch.searchsorted(s, v, right=True), torch.bucketize(v, s), torch.bucketize(v, s, right=True, out_int32=True))
print(torch.searchsorted(torch.tensor([[1.0, 2.0], [0.0, 5.0]]), torch.tensor([[1.5], [6.0]])))
c = x.cummax(0)
print(c, c.values.grad_fn, c.indices)
print(torch.cummin(x, 0))
k = x.kthvalue(3)
print(k, k.values.grad_fn._saved_indices, k.values.grad_fn._saved_keepdim)
mo = torch.tensor([[3., 1., 3., 1., 2.], [5., 5., 4., 4., 4.]]).mode()
print(mo)
mm = torch.aminmax(x)
print(mm, mm.min, mm.max, mm.max.grad_fn)
(mm.min + mm.max).backward()
print(x.grad)
print(torch.diff(x), torch.diff(x, n=2), torch.trapezoid(x), torch.trapz(x, dx=2.0))
print(torch.cov(torch.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.5]])), torch.corrcoef(torch.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.5]])))
print(torch.logcumsumexp(x, 0))
for bad in ["torch.kthvalue(x, 9)", "torch.diff(torch.tensor(1.0))", "torch.histc(x, bins=0)", "x.unique(dim=3)", "torch.cov(torch.ones(2, 2, 2))"]:
    try:
        eval(bad)
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__, e)
""",
    "linear_algebra_gradients": """
import torch
torch.manual_seed(0)
A = torch.tensor([[2.0, 1.0, 0.5], [0.3, 3.0, -1.0], [1.0, 0.2, 4.0]], requires_grad=True)
b = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
d = torch.det(A)
print(d, d.grad_fn, sorted(k for k in dir(d.grad_fn) if k.startswith("_saved")))
print(d.grad_fn._saved_pivots, d.grad_fn._saved_LU)
d.backward()
print(A.grad)
A.grad = None
inv = A.inverse()
print(inv, inv.grad_fn, inv.grad_fn._saved_inverse)
inv.sum().backward()
print(A.grad)
x = torch.linalg.solve(A, b)
print(x, x.grad_fn, x.grad_fn._saved_left)
loss = (x ** 2).sum()
gA, gb = torch.autograd.grad(loss, (A, b), create_graph=True)
print(gA, gb)
print(gA.grad_fn, gA.grad_fn.next_functions, gb.grad_fn)
(gA.sum() + gb.sum()).backward()
print(A.grad, b.grad)
s = torch.slogdet(A)
print(s, s.sign, s.logabsdet)
print(torch.linalg.slogdet(A))
print(torch.logdet(A), torch.logdet(torch.tensor([[1.0, 0.0], [0.0, -1.0]])))
print(torch.matrix_power(A, 3), torch.matrix_power(A, -1).grad_fn, torch.matrix_power(A, 0))
print(torch.linalg.norm(A), torch.linalg.norm(A, 1), torch.linalg.norm(A, "fro"), torch.linalg.matrix_norm(A, ord=float("inf")))
print(torch.linalg.vector_norm(b, 3), torch.linalg.norm(A, dim=0))
print(torch.linalg.inv_ex(A).info, torch.linalg.svdvals(A))
u, sv, vh = torch.linalg.svd(A)
print(sv, torch.allclose(u @ torch.diag(sv) @ vh, A, atol=1e-5))
c = torch.cross(A, A.flip(0), dim=1)
print(c, c.grad_fn, c.grad_fn._saved_dim)
print(torch.linalg.cross(b, torch.ones(3)), torch.inner(b, b), torch.vdot(b, b), torch.kron(b[:2], A[:1]))
print(torch.tensordot(A, A, dims=1), torch.tensordot(A, A, dims=([0, 1], [1, 0])), torch.tensordot(A, b, dims=([1], [0])))
P = torch.tensor([[0.0, 0.0], [3.0, 4.0], [1.0, 1.0]], requires_grad=True)
Q = torch.tensor([[0.0, 1.0], [2.0, 2.0]])
D = torch.cdist(P, Q)
print(D, D.grad_fn, D.grad_fn._saved_p)
D.sum().backward()
print(P.grad)
print(torch.cdist(P, Q, p=1), torch.cdist(P, Q, p=float("inf")))
g, = torch.autograd.grad(torch.cdist(P, Q).sum(), P, create_graph=True)
print(g.grad_fn)
try:
    g.sum().backward()
except NotImplementedError as e:
    print("NotImplementedError:", e)
for bad in ["torch.inverse(torch.zeros(2, 2))", "torch.linalg.solve(torch.zeros(2, 2), torch.ones(2))",
            "torch.det(torch.ones(2, 3))", "torch.det(torch.ones(2, 2, dtype=torch.long))", "torch.vdot(A, A)",
            "torch.linalg.matrix_norm(b)", "torch.linalg.matrix_norm(A, ord=3)", "torch.cdist(P, torch.ones(2, 3))",
            "torch.linalg.cross(A[:, :2], A[:, :2])", "torch.tensordot(A, P, dims=1)", "torch.linalg.solve(A, torch.ones(4))"]:
    try:
        eval(bad)
    except RuntimeError as e:
        print(type(e).__name__, e)
""",
    "recurrent_char_models_two_sgd_steps": """
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
text = "hello world"
chars = sorted(set(text))
idx = {c: i for i, c in enumerate(chars)}
data = torch.tensor([idx[c] for c in text])
V = len(chars)


class CharModel(nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.embed = nn.Embedding(V, 4)
        self.rnn = getattr(nn, kind)(4, 5, batch_first=True)
        self.head = nn.Linear(5, V)

    def forward(self, x, h=None):
        out, h = self.rnn(self.embed(x), h)
        return self.head(out), h


for kind in ["RNN", "GRU", "LSTM"]:
    model = CharModel(kind)
    print(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    x, y = data[:-1].unsqueeze(0), data[1:].unsqueeze(0)
    for step in range(2):
        opt.zero_grad()
        logits, h = model(x)
        loss = F.cross_entropy(logits.reshape(-1, V), y.reshape(-1))
        loss.backward()
        opt.step()
        print(kind, step, f"{loss.item():.6f}")
        for name, p in model.rnn.named_parameters():
            print(" ", name, tuple(p.shape), f"{p.grad.abs().sum().item():.6f}")
    fn = logits.grad_fn
    names = []
    while fn is not None and len(names) < 8:
        names.append(fn.name())
        nxt = [f for f, _ in fn.next_functions if f is not None and f.name() != "torch::autograd::AccumulateGrad"]
        fn = nxt[0] if nxt else None
    print(" <- ".join(names))
    hn = h[0] if isinstance(h, tuple) else h
    print(hn.shape, hn.grad_fn.name(), [f.name() if f else None for f, _ in hn.grad_fn.next_functions][:3])

# one step of a cell, by hand and by the module
cell = nn.LSTMCell(3, 2)
xs = torch.randn(4, 3)
h, c = torch.zeros(1, 2), torch.zeros(1, 2)
for t in range(4):
    h, c = cell(xs[t:t + 1], (h, c))
print(h, c)
print(h.grad_fn.name(), [f.name() for f, _ in h.grad_fn.next_functions])
gates = c.grad_fn
print(gates.name(), [f.name() for f, _ in gates.next_functions])
(h.sum() + c.sum()).backward()
print(cell.weight_ih.grad, cell.bias_hh.grad)
gru = nn.GRUCell(3, 2, bias=False)
hg = gru(xs)
print(hg, hg.grad_fn.name())
rnn = nn.RNNCell(3, 2, nonlinearity="relu")
print(rnn, rnn(xs[0]))
lstm = nn.LSTM(3, 2, num_layers=2, bidirectional=True)
out, (hn, cn) = lstm(xs.unsqueeze(1))
print(out.shape, hn.shape, cn.shape, out.grad_fn.name())
node = out.grad_fn.next_functions[0][0]
print(node.name(), node._saved_reverse, node._saved_hidden_size, node._saved_mode, node._saved_train,
      node._saved_result3.shape, node._saved_batch_sizes)
projected = nn.LSTM(3, 4, proj_size=2, batch_first=True, num_layers=2)
print(projected, [(name, tuple(p.shape)) for name, p in projected.named_parameters()])
out, (hn, cn) = projected(xs.unsqueeze(0))
print(out, hn.shape, cn.shape, out.grad_fn.name(), out.grad_fn.next_functions[0][0].name())
(out.sum() + cn.sum()).backward()
print(projected.weight_hr_l1.grad, projected.weight_hh_l0.grad.shape)
""",
    "indexing_scatter_unique": """
import torch
torch.manual_seed(0)
x = torch.randn(4, 3, requires_grad=True)
src = torch.randn(2, 3, requires_grad=True)
idx = torch.tensor([0, 2])
y = x.index_add(0, idx, src, alpha=2.0)
print(y, y.grad_fn, y.grad_fn._saved_dim, y.grad_fn._saved_alpha, y.grad_fn._saved_index)
y.pow(2).sum().backward()
print(x.grad, src.grad)
base = torch.zeros(3, 4)
vals = torch.randn(2, 4, requires_grad=True)
ind = torch.tensor([[0, 1, 2, 0], [1, 1, 0, 2]])
for reduce in ["sum", "prod", "mean", "amax", "amin"]:
    for include_self in [True, False]:
        r = base.scatter_reduce(0, ind, vals, reduce=reduce, include_self=include_self)
        g, = torch.autograd.grad(r.sum(), vals)
        print(reduce, include_self, r, g, r.grad_fn.name())
m = x > 0
sel = x.masked_select(m)
print(sel, sel.grad_fn, sel.grad_fn._saved_mask)
sel.sum().backward()
print(x.grad)
filled = x.detach().clone().requires_grad_()
z = filled * 1
z.masked_scatter_(~m, torch.arange(12.0))
print(z, z.grad_fn)
u, inv, cnt = torch.unique(torch.tensor([3, 1, 2, 3, 1, 1]), return_inverse=True, return_counts=True)
print(u, inv, cnt)
print(torch.unique(torch.tensor([[1, 2], [1, 2], [0, 5]]), dim=0))
print(torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1, 1]), return_counts=True))
w = torch.randn(5, requires_grad=True)
t = w.take(torch.tensor([[0, 4], [2, 2]]))
print(t, t.grad_fn)
t.sum().backward()
print(w.grad)
q = torch.zeros(3, 3).index_fill(1, torch.tensor([0, 2]), 7.0)
print(q)
p = torch.randn(3, 2, requires_grad=True)
c = torch.zeros(5, 2).index_copy(0, torch.tensor([4, 0, 2]), p)
print(c, c.grad_fn)
c.sum().backward()
print(p.grad)
v = torch.zeros(4)
v.index_put_((torch.tensor([0, 0, 3]),), torch.tensor([1.0, 2.0, 3.0]), accumulate=True)
print(v)
v.put_(torch.tensor([1, 2]), torch.tensor([9.0, 8.0]))
print(v)
e = torch.zeros(3, 4)
e.fill_diagonal_(5.0)
print(e)
print(torch.tile(torch.arange(3), (2, 2)), torch.arange(6).reshape(2, 3).repeat_interleave(2, dim=1))
print(torch.movedim(torch.zeros(2, 3, 4), 0, -1).shape, torch.rot90(torch.arange(4).reshape(2, 2)))
print(torch.tensor_split(torch.arange(7), 3), torch.arange(6).unflatten(0, (2, 3)))
print(torch.arange(10.0).unfold(0, 3, 2), torch.diagflat(torch.tensor([1, 2])))
print(torch.column_stack([torch.arange(2), torch.arange(2)]), torch.dstack([torch.ones(2), torch.zeros(2)]).shape)
gx, gy = torch.meshgrid(torch.arange(2), torch.arange(3), indexing="xy")
print(gx, gy, torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3, 4])))
print(torch.zeros(2).new_full((2, 2), 3.5), torch.fliplr(torch.arange(4).reshape(2, 2)))
""",
    "margin_and_embedding_losses": """
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
a = torch.randn(4, 3, requires_grad=True)
b = torch.randn(4, 3, requires_grad=True)
y = torch.tensor([1.0, -1.0, 1.0, -1.0])
cases = [
    ("MarginRankingLoss", nn.MarginRankingLoss(margin=0.2), (a[:, 0], b[:, 0], y)),
    ("HingeEmbeddingLoss", nn.HingeEmbeddingLoss(), (a, torch.tensor([[1.0, -1.0, 1.0]] * 4))),
    ("SoftMarginLoss", nn.SoftMarginLoss(), (a, torch.tensor([[1.0, -1.0, 1.0]] * 4))),
    ("CosineEmbeddingLoss", nn.CosineEmbeddingLoss(margin=0.1), (a, b, y)),
    ("TripletMarginLoss", nn.TripletMarginLoss(margin=0.5, swap=True), (a, b, a.detach().flip(0))),
    ("PoissonNLLLoss", nn.PoissonNLLLoss(), (a, b.detach().abs())),
    ("PoissonNLLLoss_full", nn.PoissonNLLLoss(log_input=False, full=True), (a.abs() + 0.1, b.detach().abs() * 3)),
    ("GaussianNLLLoss", nn.GaussianNLLLoss(), (a, b.detach(), torch.ones(4, 1) * 0.5)),
    ("MultiLabelSoftMarginLoss", nn.MultiLabelSoftMarginLoss(), (a, torch.tensor([[1.0, 0.0, 1.0]] * 4))),
    ("MultiMarginLoss", nn.MultiMarginLoss(p=2, margin=0.5), (a, torch.tensor([0, 2, 1, 1]))),
]
for name, loss_fn, args in cases:
    a.grad = b.grad = None
    loss = loss_fn(*args)
    loss.backward()
    print(name, loss_fn, f"{loss.item():.6f}", loss.grad_fn.name())
    print(a.grad, b.grad)
    fn = loss.grad_fn
    chain = []
    while fn is not None and len(chain) < 6:
        chain.append(fn.name())
        nxt = [f for f, _ in fn.next_functions if f is not None and f.name() != "torch::autograd::AccumulateGrad"]
        fn = nxt[0] if nxt else None
    print("  ", " <- ".join(chain))
for reduction in ["none", "sum"]:
    print(F.margin_ranking_loss(a[:, 0], b[:, 0], y, reduction=reduction))
    print(F.soft_margin_loss(a, torch.ones(4, 3), reduction=reduction))
    print(F.multi_margin_loss(a, torch.tensor([0, 2, 1, 1]), reduction=reduction))
    print(F.cosine_embedding_loss(a, b, y, reduction=reduction))
print(F.triplet_margin_loss(a, b, b.flip(0), p=1.0))
print(F.pairwise_distance(a, b), F.cosine_similarity(a, b))
print(nn.PairwiseDistance(keepdim=True)(a, b).shape, nn.CosineSimilarity(dim=0)(a, b))
g = torch.autograd.grad(F.soft_margin_loss(a, torch.ones(4, 3)), a, create_graph=True)[0]
print(g.grad_fn.name(), g.grad_fn._saved_reduction)
g.sum().backward()
for bad in [lambda: F.soft_margin_loss(a, b), lambda: F.multi_margin_loss(a, torch.tensor([0, 2, 1, 1]), p=3),
            lambda: F.margin_ranking_loss(a, b[:, 0], y), lambda: F.gaussian_nll_loss(a, b, -torch.ones(4, 3))]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
""",
    "nn_layers_groupnorm_prelu_pools": """
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv1d(2, 4, 3, padding=1),
    nn.GroupNorm(2, 4),
    nn.PReLU(4),
    nn.MaxPool1d(2),
    nn.AvgPool1d(2, stride=1),
    nn.AdaptiveAvgPool1d(3),
    nn.Flatten(),
    nn.Unflatten(1, (4, 3)),
    nn.ConstantPad1d((1, 0), 0.5),
    nn.Softshrink(0.1),
    nn.Hardshrink(0.05),
    nn.Dropout1d(0.0),
    nn.Flatten(),
    nn.Linear(16, 3),
    nn.Softmin(dim=1),
)
print(model)
x = torch.randn(2, 2, 8)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    opt.zero_grad()
    out = model(x)
    loss = -out[:, 0].log().mean()
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.6f}")
    for name, p in model.named_parameters():
        print(name, tuple(p.shape), f"{p.grad.abs().sum().item():.6f}")
fn = out.grad_fn
chain = []
while fn is not None:
    chain.append(fn.name())
    nxt = [f for f, _ in fn.next_functions if f is not None and f.name() != "torch::autograd::AccumulateGrad"]
    fn = nxt[0] if nxt else None
print(" <- ".join(chain))
img = torch.randn(1, 2, 5, 6, requires_grad=True)
pools = [nn.AdaptiveAvgPool2d((2, None)), nn.AdaptiveAvgPool2d(1), nn.AdaptiveMaxPool2d(2, return_indices=True),
         nn.ZeroPad2d((1, 0, 2, 1)), nn.ConstantPad2d(1, -1.0), nn.Dropout2d(0.5)]
for m in pools:
    r = m(img)
    r0 = r[0] if isinstance(r, tuple) else r
    print(m, tuple(r0.shape), r0.grad_fn.name())
    if isinstance(r, tuple):
        print(r[1])
    r0.sum().backward()
print(img.grad)
bil = nn.Bilinear(3, 2, 4)
print(bil, bil.weight.shape, bil.bias)
o = bil(torch.randn(5, 3), torch.randn(5, 2))
print(o, o.grad_fn.name(), [f.name() for f, _ in o.grad_fn.next_functions])
params = nn.ParameterList([nn.Parameter(torch.ones(2, 3)), torch.zeros(3)])
pdict = nn.ParameterDict({"b": torch.ones(2), "a": nn.Parameter(torch.zeros(2, 2, dtype=torch.float64))})
print(params, pdict, len(params), list(pdict.keys()), type(params[1]).__name__)
holder = nn.Module()
holder.plist = params
holder.pdict = pdict
print([n for n, _ in holder.named_parameters()])
print(holder)
print(F.prelu(torch.tensor([-2.0, 3.0]), torch.tensor([0.25])), F.softmin(torch.tensor([1.0, 2.0]), dim=0))
print(F.group_norm(torch.arange(8.0).reshape(1, 4, 2), 2))
""",
    "random_distributions_in_place": """
import torch
torch.manual_seed(0)
print(torch.empty(6).exponential_(), torch.empty(3, dtype=torch.float64).exponential_(0.5))
print(torch.empty(2, 3).geometric_(0.2), torch.empty(4, dtype=torch.int64).geometric_(0.7))
print(torch.empty(5).cauchy_(), torch.empty(20, dtype=torch.float64).cauchy_(1.0, 0.5))
print(torch.randn(3))
print(torch.empty(5).log_normal_(), torch.empty(3, dtype=torch.float64).log_normal_(0.2, 0.4))
print(torch.randn(1, dtype=torch.float64))
g = torch.Generator().manual_seed(3)
print(torch.empty(4).exponential_(generator=g), torch.empty(4).log_normal_(generator=g))
state = torch.get_rng_state()
a = torch.empty(7).cauchy_()
torch.set_rng_state(state)
print(torch.equal(a, torch.empty(7).cauchy_()))
x = torch.zeros(3, requires_grad=True)
y = x * 1
y.exponential_()
print(y, y.grad_fn)
y.sum().backward()
print(x.grad)
for bad in ["torch.empty(2).exponential_(-1.5)", "torch.empty(2, dtype=torch.long).exponential_()",
            "torch.empty(2).geometric_(1)", "torch.empty(2, dtype=torch.bool).geometric_(0.5)",
            "torch.empty(2, dtype=torch.int32).cauchy_()", "torch.empty(2).cauchy_(0, 0)",
            "torch.empty(2).log_normal_(0, -2)", "torch.empty(2, dtype=torch.uint8).log_normal_()",
            "torch.ones(2, requires_grad=True).cauchy_()"]:
    try:
        eval(bad)
    except (RuntimeError, NotImplementedError) as e:
        print(type(e).__name__, e)
x = torch.empty(3, 4).t(); x.exponential_(); print(x)
y = torch.empty(3, 4).t(); y.uniform_(); print(y)
z = torch.empty(2, 6)[:, ::2]; z.cauchy_(); print(z)
w = torch.empty(4, 5).t(); w.normal_(0.3, 2.0); print(w.tolist())
w = torch.empty(4, 5, dtype=torch.float64).t(); w.normal_(0.3, 2.0); print(w.tolist())
v = torch.empty(20, dtype=torch.float64).normal_(0.1, 3.0); print(v.tolist())
print(torch.normal(0.3, 1.7, (5,), dtype=torch.float64).tolist(), torch.normal(2.0, 0.5, (20,)).tolist())
u = torch.empty(2, 3, 4).permute(2, 0, 1); u.random_(10); print(u)
q = torch.empty(3, 3).t(); q.log_normal_(); print(q.tolist())
print(torch.empty(4, dtype=torch.float64).random_(), torch.empty(3, dtype=torch.int64).random_())
print(torch.empty(3, dtype=torch.uint8).random_(), torch.empty(4, dtype=torch.bool).random_())
""",
}


class _EngineAsTorch(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves `torch.<sub>` as `engine.<sub>` (the same module objects) while a program runs."""

    def __init__(self) -> None:
        self._pending: dict = {}

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> object:
        if not fullname.startswith("torch."):
            return None
        real = "engine" + fullname[len("torch"):]
        obj = None
        try:
            if importlib.util.find_spec(real) is not None:
                obj = importlib.import_module(real)
        except (ImportError, ValueError, AttributeError):
            obj = None
        if obj is None:
            obj = engine
            for part in fullname.split(".")[1:]:
                obj = getattr(obj, part, None)
                if obj is None:
                    return None
        self._pending[fullname] = obj
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: object) -> object:
        return self._pending.pop(spec.name)

    def exec_module(self, module: object) -> None:
        pass


@contextlib.contextmanager
def _engine_as_torch():
    saved = {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}
    for k in saved:
        del sys.modules[k]
    finder = _EngineAsTorch()
    sys.modules["torch"] = engine
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for k in [k for k in sys.modules if k == "torch" or k.startswith("torch.")]:
            del sys.modules[k]
        sys.modules.update(saved)


def _run(code: str, on_engine: bool) -> str:
    out = io.StringIO()
    with contextlib.ExitStack() as stack:
        if on_engine:
            stack.enter_context(_engine_as_torch())
        stack.enter_context(warnings.catch_warnings())
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(io.StringIO()))
        warnings.simplefilter("ignore")
        exec(compile(code, "<snippet>", "exec"), {"__name__": "__main__"})  # noqa: S102 - programs above
    return out.getvalue()


NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])"
                    r"|(?<![\w.])[-+]?(?:inf|nan)(?![\w.])")
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def _close(a: str, b: str) -> bool:
    x, y = float(a), float(b)
    if math.isnan(y) or math.isinf(y):
        return a == b or (math.isnan(x) and math.isnan(y))
    return abs(x - y) <= 1e-6 + 1e-5 * abs(y)


def _same(expected: str, actual: str) -> None:
    """Line by line: the same text around the numbers, and the numbers within float32 noise."""
    exp = ADDRESS.sub("0x", expected).rstrip().splitlines()
    act = ADDRESS.sub("0x", actual).rstrip().splitlines()
    assert len(act) == len(exp), "\n".join(act)
    for e, a in zip(exp, act):
        assert re.sub(r"\s+", "", NUMBER.sub("#", a)) == re.sub(r"\s+", "", NUMBER.sub("#", e)), (e, a)
        for x, y in zip(NUMBER.findall(a), NUMBER.findall(e)):
            assert _close(x, y), (e, a)


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_tutorial_snippet_matches_torch(name: str) -> None:
    code = SNIPPETS[name]
    _same(_run(code, on_engine=False), _run(code, on_engine=True))
