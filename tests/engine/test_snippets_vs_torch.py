"""Small programs run with torch and with the engine: printed output and error messages must match."""

from __future__ import annotations


import pytest

import engine
import engine.nn.functional
from tests.engine.programs import run_program as _run

torch = pytest.importorskip("torch")

SNIPPETS = {
    "repr_basics": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
print(x, x * 2, x.sum(), (x * 2).mean())
print(torch.tensor(2.0), torch.tensor([1, 2, 3]), torch.tensor([True, False]))
print(torch.tensor([1.5, 2.25], dtype=torch.float64), torch.zeros(2, 3), torch.ones(2, 2, dtype=torch.int64))
print(torch.tensor([1e-5, 1.0]), torch.tensor([1e10, 1.0]), torch.tensor([123456.0, 0.5]))
print(torch.arange(12).reshape(3, 4), torch.arange(2000), torch.linspace(0, 1, 5))
print(torch.tensor([float('nan'), float('inf'), -1.0]), torch.tensor([]), torch.zeros(0, 3))
print(x.shape, x.size(), x.dtype, torch.zeros(2, 3).size(1), x.grad_fn, (x + 1).grad_fn.name())
print(torch.arange(30.0).reshape(2, 3, 5) / 7)
print(torch.arange(40.0) * 1.5)
""",
    "accumulation": """
a = torch.tensor(3.0, requires_grad=True)
(a * a + a).backward()
print(a.grad)
g0 = a.grad
(a * a).backward()
print(a.grad, a.grad is g0)
x = torch.tensor([1.0, 2.0], requires_grad=True)
for _ in range(3):
    (x ** 2).sum().backward()
print(x.grad)
x.grad.zero_()
print(x.grad)
""",
    "retain_graph": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * x).sum()
y.backward(retain_graph=True)
y.backward()
print(x.grad)
z = (x + x).sum()
z.backward(); z.backward()
print(x.grad)
w = (x * 2).sum()
w.backward()
try:
    w.backward()
except RuntimeError as e:
    print("RuntimeError:", e)
""",
    "non_scalar": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2
try:
    y.backward()
except RuntimeError as e:
    print("RuntimeError:", e)
y.backward(gradient=torch.tensor([1.0, 0.1, 0.01]))
print(x.grad)
try:
    (x * 2).backward(torch.ones(4))
except RuntimeError as e:
    print("RuntimeError:", e)
out = torch.autograd.grad((x * x).sum(), x)
print(out)
""",
    "higher_order": """
x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
g, = torch.autograd.grad(y, x, create_graph=True)
print(g)
g2, = torch.autograd.grad(g, x, create_graph=True)
print(g2)
g3, = torch.autograd.grad(g2, x)
print(g3)
s = torch.tensor(2.0, requires_grad=True)
d = torch.sin(s)
for _ in range(3):
    d, = torch.autograd.grad(d, s, create_graph=True)
    print(round(d.item(), 4))
print(torch.autograd.functional.jacobian(lambda v: v ** 2 * torch.tensor([1.0, 2.0]), torch.tensor([1.0, 3.0])))
print(torch.autograd.functional.hessian(lambda v: (v ** 3).sum(), torch.tensor([1.0, 3.0])))
print(torch.autograd.functional.vjp(lambda v: v ** 2, torch.tensor([1.0, 3.0]), torch.tensor([1.0, 1.0])))
print(torch.autograd.functional.jvp(lambda v: v ** 2, torch.tensor([1.0, 3.0]), torch.tensor([1.0, 0.0])))
print(torch.autograd.functional.hvp(lambda v: (v ** 3).sum(), torch.tensor([1.0, 3.0]), torch.tensor([1.0, 0.0])))
""",
    "custom_function": """
class MyExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        r = x.exp()
        ctx.save_for_backward(r)
        return r
    @staticmethod
    def backward(ctx, g):
        r, = ctx.saved_tensors
        return g * r
x = torch.tensor([0.0, 1.0], requires_grad=True)
y = MyExp.apply(x)
print(y, type(y.grad_fn).__name__)
y.sum().backward()
print(x.grad)
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return a * b
    @staticmethod
    def backward(ctx, g):
        return g
try:
    Bad.apply(x, x).sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
class Bad2(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2
    @staticmethod
    def backward(ctx, g):
        return g[:1]
try:
    Bad2.apply(x).sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
class MyMul(torch.autograd.Function):
    @staticmethod
    def forward(x, k):
        return x * k
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.k = inputs[1]
    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None
x.grad = None
MyMul.apply(x, 3.0).sum().backward()
print(x.grad)
""",
    "hooks": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
h = y.register_hook(lambda g: g * 10)
y.sum().backward()
print(x.grad)
h.remove()
x.grad = None
y = x * 2
y.retain_grad()
(y * y).sum().backward()
print(y.grad, x.grad)
x.grad = None
x.register_hook(lambda g: g + 1)
(x * 1).sum().backward()
print(x.grad)
z = torch.tensor([1.0, 2.0], requires_grad=True)
z.register_post_accumulate_grad_hook(lambda t: print("post", t.grad))
(z * z).sum().backward()
w = torch.tensor([1.0, 2.0], requires_grad=True)
out = w.exp()
out.grad_fn.register_prehook(lambda g: print("pre", g))
out.grad_fn.register_hook(lambda gi, go: print("post", gi, go))
out.sum().backward()
try:
    torch.randn(3).register_hook(lambda g: g)
except RuntimeError as e:
    print("RuntimeError:", e)
q = torch.tensor([1.0, 2.0], requires_grad=True)
q.register_hook(lambda g: g[:1])
try:
    (q * 2).sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
""",
    "no_grad_detach": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    y = x * 2
print(y.requires_grad, y.grad_fn, y.is_leaf)
d = (x * 3).detach()
print(d, d.requires_grad, d.is_leaf)
print(x.data, x.detach().requires_grad, x.clone().grad_fn)
@torch.no_grad()
def f(t):
    return t * 2
print(f(x).requires_grad, torch.is_grad_enabled())
with torch.set_grad_enabled(False):
    print((x * 2).requires_grad)
with torch.no_grad():
    with torch.enable_grad():
        print((x * 2).grad_fn)
with torch.inference_mode():
    b = x * 2
print(b.is_inference(), b.requires_grad)
try:
    (x * 2).numpy()
except RuntimeError as e:
    print("RuntimeError:", e)
print(x.detach().numpy().tolist(), x.tolist(), x[0].item())
try:
    (x * 2).requires_grad_(False)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.tensor([1, 2], requires_grad=True)
except RuntimeError as e:
    print("RuntimeError:", e)
""",
    "inplace_errors": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
for code in ["x.add_(1)", "x[0] = 5.0", "x[:2].mul_(2)"]:
    try:
        exec(code)
    except RuntimeError as e:
        print("RuntimeError:", e)
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a.sigmoid(); c = b * 2; b.mul_(2)
try:
    c.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
b = a * 1; c = b * b; b.add_(1)
try:
    c.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
y = a.sin(); a.detach().mul_(2)
try:
    y.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
b = a * 1
print(b._version, b.add_(1)._version, b.grad_fn, b.grad_fn.next_functions[0][0])
v = b.view(3); v.add_(1); print(b._version, v._version)
b = a * 1
try:
    b.unbind(0)[0].mul_(2)
except RuntimeError as e:
    print("RuntimeError:", e)
y = a * 1; z = y.sin(); y[:].add_(1)
try:
    z.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
y = a * 1; v = y[1:3]; v.mul_(5)
print(y.grad_fn.name(), type(v.grad_fn).__name__)
y.sum().backward(); print(a.grad)
""",
    "broadcasting": """
a = torch.ones(3, 1, requires_grad=True); b = torch.ones(1, 4, requires_grad=True)
(a + b).sum().backward(); print(a.grad, b.grad)
x = torch.ones(2, 3, requires_grad=True); w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
c = torch.ones(2, 1, requires_grad=True)
(x * w * c).sum().backward(); print(w.grad, c.grad)
try:
    torch.randn(3, requires_grad=True) + torch.randn(4, requires_grad=True)
except RuntimeError as e:
    print("RuntimeError:", e)
""",
    "nn": """
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
print(model)
print(model[0].weight)
print([(n, tuple(p.shape)) for n, p in model.named_parameters()])
x = torch.randn(5, 3)
y = torch.randn(5, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for step in range(3):
    opt.zero_grad()
    loss = torch.nn.MSELoss()(model(x), y)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
print(loss, model(x).grad_fn, [e[0] for e in model[0](x).grad_fn.next_functions if e is not None and e[0] is not None])
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(3):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(torch.cat([model(x), -model(x)], 1), torch.tensor([0, 1, 1, 0, 1]))
    loss.backward()
    opt.step()
print(round(loss.item(), 4), loss.grad_fn, loss.grad_fn.next_functions[0][0])
print(torch.nn.BCEWithLogitsLoss()(model(x), torch.ones(5, 1)))
print(torch.nn.L1Loss(reduction='sum'), torch.nn.CrossEntropyLoss(), torch.nn.ReLU(), torch.nn.Linear(2, 2, bias=False))
""",
    "rng": """
torch.manual_seed(42)
print(torch.rand(3), torch.randn(2, 2), torch.randint(0, 10, (5,)), torch.randperm(6))
print(torch.randn(3, dtype=torch.float64), torch.rand(2, 2, dtype=torch.float64))
torch.manual_seed(1)
print(torch.randn(5), torch.randn(1), torch.randn(1))
w = torch.empty(3, 2)
torch.nn.init.uniform_(w, -1, 1); print(w)
torch.nn.init.xavier_uniform_(w); print(w)
torch.nn.init.kaiming_uniform_(w, a=5 ** 0.5); print(w)
print(torch.rand_like(w), torch.randn_like(torch.ones(2)))
""",
    "errors_misc": """
x = torch.randn(3, requires_grad=True)
for code in ["torch.ones(3).item()", "torch.optim.SGD([x * 2], lr=0.1)",
             "torch.autograd.backward([x * 2, x * 3], [torch.ones(3)])",
             "(x * 2).sum().backward(inputs=[])", "torch.randn(3).retain_grad()",
             "torch.autograd.grad((x * 2).sum(), [x, torch.randn(2, requires_grad=True)])",
             "(torch.randn(3) * 2).sum().backward()",
             "x.grad = torch.ones(4)", "x.view(2, 2)", "torch.ones(2, 3) @ torch.ones(2, 3)",
             "torch.ones(2, 3).t().view(6)", "torch.cat([torch.ones(2, 3), torch.ones(2, 2)])",
             "torch.stack([torch.ones(2), torch.ones(3)])", "torch.ones(3)[5]"]:
    try:
        exec(code)
    except Exception as e:
        print(type(e).__name__ + ":", e)
print(torch.autograd.grad((x * 2).sum(), [x, torch.randn(2, requires_grad=True)], allow_unused=True)[1])
print(torch.autograd.grad((x * 2).sum(), [x, torch.ones(2, requires_grad=True)], materialize_grads=True)[1])
a = torch.tensor([1.0, 2.0], requires_grad=True); w = torch.tensor([3.0, 4.0], requires_grad=True)
(a * w).sum().backward(inputs=[w]); print(a.grad, w.grad)
""",
}


SNIPPETS.update({
    "hypot_dist_baddbmm": """
a = torch.tensor([3.0, 1.0], requires_grad=True); b = torch.tensor([4.0, 2.0], requires_grad=True)
h = torch.hypot(a, b); print(h, type(h.grad_fn).__name__)
print(h.grad_fn._saved_self, h.grad_fn._saved_other, h.grad_fn._saved_result)
h.sum().backward(); print(a.grad, b.grad)
a.grad = None; b.grad = None
for p in (2, 1, 3, float("inf")):
    d = torch.dist(a, b, p); print(p, d, d.grad_fn._saved_p)
    d.backward(); print(a.grad, b.grad); a.grad = None; b.grad = None
print(a.hypot(b), a.dist(b))
M = torch.ones(2, 2, 2, requires_grad=True); B1 = torch.arange(12.0).reshape(2, 2, 3).requires_grad_(); B2 = torch.ones(2, 3, 2)
r = torch.baddbmm(M, B1, B2, beta=0.5, alpha=2); print(r, r.grad_fn._saved_alpha, r.grad_fn._saved_beta)
r.sum().backward(); print(M.grad, B1.grad)
r2 = M.baddbmm(B1, B2); print(r2)
g, = torch.autograd.grad(torch.dist(a, b), a, create_graph=True); print(g)
""",
    "pow_at_zero": """
x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
(torch.tensor(0.0) ** x).sum().backward(); print(x.grad)
x.grad = None
(0 ** x).sum().backward(); print(x.grad)
x.grad = None
(0.0 ** (x - 1)).sum().backward(); print(x.grad)
b = torch.tensor([0.0, 2.0, 0.0], requires_grad=True)
e = torch.tensor([0.0, 0.0, 2.0], requires_grad=True)
(b ** e).sum().backward(); print(b.grad, e.grad)
b2 = torch.tensor([0.0, 3.0], requires_grad=True); e2 = torch.tensor([1.5, 2.0], requires_grad=True)
y = (b2 ** e2).sum()
gb, ge = torch.autograd.grad(y, (b2, e2), create_graph=True)
print(gb, ge)
(gb.sum() + ge.sum()).backward(); print(b2.grad, e2.grad)
print(torch.tensor([2.0]) ** torch.tensor([3.0], requires_grad=True))
x = torch.tensor(0.0, requires_grad=True)
y = torch.tensor(0.0) ** x
y.backward(); print(x.grad, y)
w = torch.tensor(0.0, requires_grad=True)
z = w ** torch.tensor(0.0)
z.backward(); print(w.grad)
""",
    "anomaly": """
import warnings
x = torch.tensor([0.0, 1.0], requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        y = torch.sqrt(x)
        try:
            (y / y).sum().backward()
        except RuntimeError as e:
            print("RuntimeError:", e)
print([str(w.message).split(" Traceback")[0] for w in caught][:2])
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.sigmoid(); b.mul_(2)
torch.autograd.set_detect_anomaly(True)
try:
    b.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
torch.autograd.set_detect_anomaly(False)
""",
    "function_extras": """
from torch.autograd.function import once_differentiable
class Sort(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        v, i = x.sort()
        ctx.mark_non_differentiable(i)
        ctx.save_for_backward(i)
        return v, i
    @staticmethod
    def backward(ctx, gv, gi):
        i, = ctx.saved_tensors
        g = torch.zeros_like(gv)
        g[i] = gv
        return g
x = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
v, i = Sort.apply(x)
print(v.requires_grad, i.requires_grad, v)
(v * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(x.grad)
class Two(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3
    @staticmethod
    def backward(ctx, g1, g2):
        print("g2 is", g2)
        return g1 * 2
x.grad = None
Two.apply(x)[0].sum().backward()
print(x.grad)
class Once(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        return g * 2
y = Once.apply(x).sum()
g, = torch.autograd.grad(y, x, create_graph=True)
print(type(g.grad_fn).__name__)
try:
    g.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
class NT(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        return x * k
    @staticmethod
    def backward(ctx, g):
        return g, g
try:
    NT.apply(x, 2.0).sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
class S(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(2.0)
        return x
try:
    S.apply(x)
except TypeError as e:
    print("TypeError:", e)
""",
    "graph_tools": """
packed = []
def pack(t):
    packed.append(tuple(t.shape))
    return t
def unpack(t):
    packed.append("unpack")
    return t
x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = x * x
y.sum().backward()
print(packed, x.grad)
import warnings
warnings.simplefilter("ignore")
from torch.utils.checkpoint import checkpoint
x.grad = None
out = checkpoint(lambda t: (t * t).exp(), x, use_reentrant=False)
out.sum().backward()
print(type(out.grad_fn).__name__, x.grad)
x.grad = None
out = checkpoint(lambda t: (t * t).exp(), x, use_reentrant=True)
out.sum().backward()
print(x.grad)
x2 = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
print(torch.autograd.gradcheck(torch.sin, (x2,)), torch.autograd.gradgradcheck(torch.sin, (x2,)))
class BadSq(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t ** 2
    @staticmethod
    def backward(ctx, g):
        t, = ctx.saved_tensors
        return 3 * t * g
try:
    torch.autograd.gradcheck(BadSq.apply, (x2,))
except RuntimeError as e:
    print(type(e).__name__, str(e).splitlines()[0])
a = torch.tensor([1.0, 2.0], requires_grad=True); b = torch.tensor([3.0, 4.0], requires_grad=True)
torch.autograd.graph.register_multi_grad_hook((a, b), lambda gs: print("multi", gs))
(a * b).sum().backward()
with torch.inference_mode():
    c = a * 2
try:
    (c * a).sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    c.add_(1)
except RuntimeError as e:
    print("RuntimeError:", e)
with torch.no_grad():
    v = (a * 1)[:1]
""",
    "mm_saved_strides_per_input": """
a = torch.ones(2, 3)
b = torch.ones(3, 4, requires_grad=True)
for y in (a @ b, b.t() @ a.t(), torch.addmm(torch.zeros(4), a, b), torch.addmm(torch.zeros(2), b.t(), a.t()),
          torch.nn.functional.linear(a, b.t()), b.t() @ b):
    names = ("self", "mat2") if type(y.grad_fn).__name__ == "MmBackward0" else ("mat1", "mat2")
    print(type(y.grad_fn).__name__, [(getattr(y.grad_fn, f"_saved_{n}_sym_sizes"),
                                      getattr(y.grad_fn, f"_saved_{n}_sym_strides")) for n in names])
""",
    "hooks_on_outputs_without_grad": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
a, b, c = (x * 1).unbind()
b.register_hook(lambda g: print("b hook", g))
c.register_hook(lambda g: print("c hook", g))
b.retain_grad()
(a * 2).backward()
print(x.grad, b.grad)
w = torch.tensor([[1.0, 2.0]], requires_grad=True)
q, r = w.split(1, dim=1)
r.register_hook(lambda g: print("r hook", g))
q.sum().backward()
print(w.grad)
a, b, c = x.unbind()
b.register_hook(lambda g: torch.ones(()))
try:
    a.backward()
except RuntimeError as e:
    print("RuntimeError:", e)
""",
    "clone_keeps_the_layout": """
x = torch.arange(16.0).reshape(2, 2, 2, 2)
e = torch.ones(3, 1).expand(3, 4)
for fmt in [None, torch.preserve_format, torch.contiguous_format, torch.channels_last]:
    kw = {} if fmt is None else {"memory_format": fmt}
    print(fmt, x.permute(0, 2, 3, 1).clone(**kw).stride(), x[:, :, ::2].clone(**kw).stride(),
          x.transpose(1, 3).clone(**kw).stride(), x.clone(**kw).stride(), x.clone(**kw).is_contiguous())
    if fmt is not torch.channels_last:
        print(e.clone(**kw).stride(), e.t().clone(**kw).stride(), torch.ones(2, 3).t().clone(**kw).stride())
""",    "fill_diagonal_wrap_of_views": """
for make in [lambda: torch.zeros(3, 100).t(), lambda: torch.zeros(100, 10)[:, :3], lambda: torch.zeros(2, 50)[:, 1:].t(),
             lambda: torch.zeros(9, 2).t().contiguous().t(), lambda: torch.zeros(10, 4, dtype=torch.float64)[2:]]:
    t = make()
    try:
        t.fill_diagonal_(7.0, wrap=True)
        print(t.nonzero().tolist(), (t if t._base is None else t._base).nonzero().shape)
    except RuntimeError as e:
        print("RuntimeError:", e)
""",
})


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet_output_matches_torch(name: str) -> None:
    code = SNIPPETS[name]
    expected = _run(torch, code)
    actual = _run(engine, code)
    assert actual == expected
