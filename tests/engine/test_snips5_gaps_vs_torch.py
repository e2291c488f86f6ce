"""Gaps found by the fifth snippet sweep: in-place forms (x.ceil_(), torch.relu_(x)) and the other fixes it led to;
small programs run with torch and with the engine print the same."""

from __future__ import annotations

import pytest

from tests.engine.programs import RUN, assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = RUN

SNIPPETS = {
    "inplace_unary_methods": """
x = torch.tensor([0.1, 0.5, 0.9], requires_grad=True)
for n in ["acos_", "arccos_", "asin_", "arcsin_", "atan_", "arctan_", "ceil_", "cosh_", "sinh_", "tan_",
          "trunc_", "fix_", "frac_", "deg2rad_", "rad2deg_", "digamma_", "erf_", "erfinv_", "exp2_", "expm1_",
          "lgamma_", "log10_", "log1p_", "log2_", "rsqrt_", "sgn_", "sinc_", "negative_", "absolute_", "logit_",
          "nan_to_num_"]:
    y = x * 1
    run(n, lambda: (getattr(y, n)(), type(y.grad_fn).__name__, y._version))
    y.sum().backward()
    run("  grad", lambda: x.grad)
    x.grad = None
run("logit_ eps", lambda: (x * 1).logit_(0.2))
run("leaf", lambda: x.ceil_())
run("int sin_", lambda: torch.tensor([1, 2]).sin_())
run("int ceil_", lambda: torch.tensor([1, 2]).ceil_())
run("fix", lambda: torch.tensor([1.7, -1.2]).fix())
""",
    "inplace_binary_and_scan_methods": """
x = torch.tensor([0.1, 0.5, 0.9], requires_grad=True)
o = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
for n in ["atan2_", "arctan2_", "hypot_", "xlogy_"]:
    y = x * 1
    run(n, lambda: getattr(y, n)(o))
    y.sum().backward()
    run("  grads", lambda: (x.grad, o.grad))
    x.grad = o.grad = None
run("xlogy_ scalar", lambda: (x * 1).xlogy_(2.0))
run("hypot_ shape", lambda: torch.ones(3).hypot_(torch.ones(2, 3)))
for n in ["cumsum_", "cumprod_"]:
    y = x * 1
    run(n, lambda: getattr(y, n)(0))
    y.sum().backward()
    run("  grad", lambda: x.grad)
    x.grad = None
run("cumsum_ dtype", lambda: torch.tensor([1.0, 2.0]).cumsum_(0, dtype=torch.float64))
run("cumsum_ int dtype", lambda: torch.tensor([1, 2]).cumsum_(0, dtype=torch.float16))
run("cumsum_ same dtype", lambda: torch.tensor([1, 2]).cumsum_(0, dtype=torch.int64))
""",
    "torch_level_inplace_functions": """
for n in ["abs_", "acos_", "ceil_", "clamp_", "cos_", "exp_", "relu_", "sigmoid_", "tanh_", "sqrt_", "zero_",
          "round_", "floor_", "neg_", "erfc_", "i0_", "sinc_", "logit_", "xlogy_", "clamp_min_", "clamp_max_",
          "fill_", "rsqrt_", "trunc_", "fix_", "frac_", "reciprocal_", "log_", "log1p_", "sin_", "tan_"]:
    t = torch.tensor([0.25, -0.5, 2.0])
    args = {"clamp_": (0.0, 1.0), "xlogy_": (2.0,), "clamp_min_": (0.0,), "clamp_max_": (0.5,),
            "fill_": (3.0,)}.get(n, ())
    run("torch." + n, lambda: (getattr(torch, n)(t, *args), t))
run("relu_ of a float", lambda: torch.relu_(1.0))
z = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
s = torch.sigmoid(z)
torch.relu_(s)
run("backward through sigmoid after torch.relu_", lambda: s.sum().backward())
w = torch.tensor([1.0, -1.0], requires_grad=True)
run("torch.relu_ on a leaf", lambda: torch.relu_(w))
h = w * 2
torch.relu_(h)
run("grad_fn", lambda: h.grad_fn)
""",
    "custom_backward_returns_a_non_tensor": """
def mk(val):
    class Oops(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * 2
        @staticmethod
        def backward(ctx, g):
            return val, None
    return Oops
x = torch.tensor([1.0], requires_grad=True)
for v in [2.0, 3, [1.0], "a", True, (1.0,)]:
    run(repr(v), lambda: mk(v).apply(x, 1).sum().backward())
class Two(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return 1.0, 2.0
run("float before the non-tensor input's slot", lambda: Two.apply(x, 1).sum().backward())
""",
    "broadcast_shapes_messages": """
run("(3,2) (3,)", lambda: torch.broadcast_shapes((3, 2), (3,)))
run("(3,) (3,2)", lambda: torch.broadcast_shapes((3,), (3, 2)))
run("three", lambda: torch.broadcast_shapes((2, 1, 5), (4, 1), (3, 5)))
run("int first", lambda: torch.broadcast_shapes(2, (3,)))
run("mixed kinds", lambda: torch.broadcast_shapes([1, 4], torch.Size([3, 1]), 4))
run("none", lambda: torch.broadcast_shapes())
run("zero and one", lambda: torch.broadcast_shapes((0,), (1,)))
run("zero and two", lambda: torch.broadcast_shapes((0,), (2,)))
run("negative first", lambda: torch.broadcast_shapes((-1,), (2,)))
run("negative second", lambda: torch.broadcast_shapes((2,), (-1,)))
run("negative after one", lambda: torch.broadcast_shapes((1,), (-1,)))
run("float", lambda: torch.broadcast_shapes((2, 3), 4.0))
run("Size in message", lambda: torch.broadcast_shapes(torch.Size([5, 3]), torch.Size([1, 2])))
run("tensors", lambda: torch.broadcast_tensors(torch.ones(3, 2), torch.ones(3)))
run("three tensors", lambda: torch.broadcast_tensors(torch.ones(3, 1), torch.ones(1, 4), torch.ones(2, 1, 1)))
run("tensors ok", lambda: [t.shape for t in torch.broadcast_tensors(torch.ones(3, 2), torch.ones(3, 1))])
""",
    "div_denominator_gradient_rounding": """
torch.manual_seed(0)
for dt in [torch.float32, torch.float64, torch.float16]:
    a = (torch.randn(50) * 3).to(dt).requires_grad_()
    b = (torch.rand(50) * 2 + 0.1).to(dt).requires_grad_()
    (a / b).backward(torch.randn(50).to(dt))
    print(dt, b.grad.tolist(), a.grad.tolist())
a = torch.tensor([[1.0, 0.0], [0.0, 1.0]], requires_grad=True)
b = torch.tensor([[1.0, 1.0], [1.0, 0.0]])
l = torch.nn.CosineEmbeddingLoss(margin=0.1)(a, b, torch.tensor([1, -1]))
l.backward()
print(l, a.grad)
""",
    "inverse_hyperbolic_functions": """
def walk(fn, d=0):
    if fn is None or d > 5:
        return
    print("  " * d + type(fn).__name__)
    for f, _ in fn.next_functions:
        walk(f, d + 1)
torch.manual_seed(0)
for name in ["acosh", "asinh", "atanh", "arccosh", "arcsinh", "arctanh"]:
    base = torch.rand(6) * 0.9 + (1.05 if "cosh" in name else (-0.5 if "tanh" in name else -2))
    x = base.clone().requires_grad_()
    y = getattr(torch, name)(x)
    print(name, y, y.grad_fn, y.grad_fn._saved_self.equal(x))
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    print(g.tolist())
    walk(g.grad_fn)
    (h,) = torch.autograd.grad(g.sum(), x)
    print(h.tolist())
    print(getattr(x, name)().tolist() == y.tolist())
    z = x.double() * 1
    getattr(z, name + "_")()
    print(z.grad_fn, z.dtype)
    run("backward through " + name + "_", lambda: z.sum().backward())
    print(getattr(torch, name + "_")(x.detach().clone()).tolist() == y.tolist())
print(torch.acosh(torch.tensor([1, 2])), torch.tensor([0.5]).arctanh(), torch.arcsinh(torch.tensor(1.0)))
print(torch.atanh(torch.tensor([1.0, -1.0, 2.0])), torch.acosh(torch.tensor([0.5, 1.0])))
print(torch.atanh(torch.tensor([0.5], dtype=torch.float16)), torch.asinh(torch.tensor([2.5], dtype=torch.float64)))
run("int acosh_", lambda: torch.tensor([1, 2]).acosh_())
run("leaf atanh_", lambda: torch.zeros(2, requires_grad=True).atanh_())
""",
    "float_ops_on_bool_and_integer_tensors": """
names = ("exp log sin cos tanh sigmoid relu sqrt abs log1p log2 log10 expm1 exp2 rsqrt tan sinh cosh asin acos atan "
         "acosh asinh atanh erf sign floor ceil trunc frac sgn sinc deg2rad rad2deg lgamma digamma erfinv erfc i0 "
         "reciprocal neg").split()
for dt in [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]:
    t = torch.tensor([1, 0, 1], dtype=dt) if dt == torch.bool else torch.tensor([3, 0, 1], dtype=dt)
    for n in names:
        run(f"{dt} {n}", lambda: getattr(torch, n)(t))
    for n in ["logit", "special.expit", "special.erfcx", "special.ndtri", "special.log_ndtr", "special.i1",
              "special.entr", "nn.functional.silu", "nn.functional.gelu", "nn.functional.softplus",
              "nn.functional.elu", "nn.functional.relu", "nn.functional.sigmoid"]:
        f = torch
        for p in n.split("."):
            f = getattr(f, p)
        run(f"{dt} {n}", lambda: f(t))
    run(f"{dt} relu_", lambda: t.clone().relu_())
    run(f"{dt} floor_", lambda: t.clone().floor_())
run("uint8 image sqrt", lambda: torch.tensor([[0, 4], [9, 255]], dtype=torch.uint8).sqrt())
run("uint8 image half", lambda: torch.tensor([[0, 4], [9, 255]], dtype=torch.uint8).half())
run("int8 to float16 then sin", lambda: torch.tensor([1, 2], dtype=torch.int8).to(torch.float16).sin())
""",
    "aliases_predicates_and_svd": """x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
i = torch.tensor([1, 2, 3])
for n in ["greater_equal", "less_equal", "not_equal", "greater", "less"]:
    run(n, lambda: getattr(torch, n)(x, 1.0))
    run(n + " m", lambda: getattr(i, n)(torch.tensor([2, 2, 2])))
run("positive", lambda: (torch.positive(x), torch.positive(x) is x, x.positive() is x))
run("positive bool", lambda: torch.positive(torch.tensor([True])))
for t in [torch.tensor([]), torch.tensor([1., 2.]), torch.tensor([[0.]]), torch.tensor(3), torch.tensor([True])]:
    run("is_nonzero", lambda: (t.is_nonzero(), torch.is_nonzero(t)))
run("split_with_sizes", lambda: x.split_with_sizes([1, 2]))
run("split_with_sizes bad", lambda: x.split_with_sizes([1, 1]))
run("torch.split_with_sizes", lambda: torch.split_with_sizes(x, [2, 1]))
run("isposinf", lambda: (torch.tensor([1.0, float('inf'), -float('inf')]).isposinf(), torch.isneginf(torch.tensor([-float('inf')])), torch.isreal(x), torch.isposinf(i), i.isneginf()))
run("is_signed", lambda: (torch.tensor([1], dtype=torch.uint8).is_signed(), x.is_signed(), torch.tensor([True]).is_signed(), i.is_signed(), torch.is_signed(x), x.bfloat16().is_signed(), x.half().is_signed()))
run("same", lambda: (x.is_same_size(torch.zeros(3)), x.is_same_size(torch.zeros(1, 3)), x.resolve_neg() is x, x.is_neg(), torch.resolve_neg(x) is x))
run("hardshrink", lambda: x.hardshrink(1.5))
run("hardshrink default", lambda: x.hardshrink())
run("prelu", lambda: x.prelu(torch.tensor([0.25])))
run("floor_divide", lambda: (torch.tensor([5, -7]).floor_divide(2), torch.tensor([5.0, -7.0]).floor_divide(torch.tensor(2.0))))
m = torch.tensor([[1., 2., 4.], [1., 0., 1.]], requires_grad=True)
run("cov", lambda: m.cov())
run("corrcoef", lambda: m.corrcoef())
run("cov correction", lambda: m.cov(correction=0))
y = x * 1
run("multiply_", lambda: y.multiply_(2))
run("subtract_", lambda: y.subtract_(1, alpha=2))
run("divide_", lambda: y.divide_(4))
run("divide_ mode", lambda: y.divide_(2, rounding_mode="floor"))
y.sum().backward()
print(x.grad)
A = torch.tensor([[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]], requires_grad=True)
r = torch.svd(A)
print(r)
print(type(r).__name__, r.U.grad_fn, r.S.grad_fn, r.V.grad_fn, r.V.grad_fn.next_functions)
(r.S.sum() + r.V[0, 0] * 0).backward()
print(A.grad)
print(torch.svd(A, some=False).U.shape, A.svd().V.shape)
print(torch.svd(A, compute_uv=False))
print(torch.svd(torch.ones(2, 2, 3), compute_uv=False).V.shape)
U, S, V = torch.svd(torch.eye(2))
print(U, S, V)
""",
    "rsqrt_gradient_rounding": """
torch.manual_seed(0)
x = (torch.rand(200) * 5 + 0.01).requires_grad_()
x.rsqrt().backward(torch.randn(200))
print(x.grad.tolist())
""",
    "rms_norm": """def walk(fn, d=0):
    if fn is None:
        return
    print("  " * d + type(fn).__name__)
    for f, _ in fn.next_functions:
        walk(f, d + 1)
F = torch.nn.functional
torch.manual_seed(0)
m = torch.nn.RMSNorm(4)
print(m, m.weight, m.eps, m.normalized_shape, m.state_dict())
x = torch.randn(2, 4, requires_grad=True)
y = m(x)
print(y)
walk(y.grad_fn)
(y * torch.arange(4.0)).sum().backward()
print(x.grad, m.weight.grad)
x3 = torch.randn(2, 3, 4, requires_grad=True)
w = torch.randn(3, 4, requires_grad=True)
y3 = F.rms_norm(x3, (3, 4), weight=w, eps=1e-3)
walk(y3.grad_fn)
print(y3.grad_fn.next_functions[0][0].next_functions[1][0].next_functions[0][0].next_functions[0][0]._saved_dim)
y3.pow(2).sum().backward()
print(x3.grad, w.grad)
print(torch.nn.RMSNorm([2, 4], eps=1e-5, elementwise_affine=False), torch.nn.RMSNorm(3, dtype=torch.float64).weight.dtype)
run("bad shape", lambda: F.rms_norm(x3, (3,)))
run("bad weight", lambda: F.rms_norm(x3, (4,), torch.ones(3)))
run("bad shape 2", lambda: F.rms_norm(x3, [2, 4]))
run("int", lambda: F.rms_norm(torch.tensor([[1, 2]]), [2]))
run("eps", lambda: F.rms_norm(torch.tensor([[1.0, 2.0]]), [2], eps=0.5))
h = F.rms_norm(x3.half(), (4,))
print(h.dtype, h)
walk(h.grad_fn)
print(F.rms_norm(x3.bfloat16(), (4,)).dtype, F.rms_norm(x3.double(), (4,)))
(g,) = torch.autograd.grad(m(x).sum(), x, create_graph=True)
print(g, g.grad_fn)
print(torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.RMSNorm(4)))
""",
    "lazy_linear": """
nn = torch.nn
torch.manual_seed(0)
net = nn.Sequential(nn.LazyLinear(3), nn.ReLU(), nn.LazyLinear(1))
print(net)
print(net[0].weight)
print(type(net[0].weight).__name__, net[0].in_features, net[0].has_uninitialized_params())
run("shape", lambda: net[0].weight.shape)
print(len(list(net.parameters())), len(net[0]._forward_pre_hooks), [n for n, _ in net.named_parameters()])
X = torch.rand(2, 4)
y = net(X)
print(net)
print(net[0].weight, net[0].bias, type(net[0]).__name__, type(net[0].weight).__name__)
print(y, net[0].in_features, len(net[0]._forward_pre_hooks))
y.sum().backward()
print(net[2].weight.grad, net[0].bias.grad)
l = nn.LazyLinear(2, bias=False)
print(l, l.bias)
print(isinstance(nn.LazyLinear(2), nn.Linear), nn.LazyLinear.cls_to_become.__name__, type(nn.LazyLinear(2)).__name__)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
opt.step()
print(net[0].weight)
l = nn.LazyLinear(2, dtype=torch.float64)
print(l(torch.ones(1, 3, dtype=torch.float64)), l.weight.dtype)
print(isinstance(nn.LazyLinear(1).weight, nn.Parameter), isinstance(nn.LazyLinear(1).weight, nn.UninitializedParameter))
import warnings
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    nn.LazyLinear(4)
print([(x.category.__name__, str(x.message)) for x in w])
""",
    "dropout3d_softmax2d_hardtanh_": """
import warnings
F = torch.nn.functional
torch.manual_seed(0)
x = torch.ones(2, 3, 1, 2, 2, requires_grad=True)
y = F.dropout3d(x, 0.5)
print(y.flatten(2), y.grad_fn)
y.sum().backward()
print(x.grad.flatten(2))
m = torch.nn.Dropout3d(p=0.25)
print(m, m(torch.ones(3, 1, 1, 2)).flatten(1))
m.eval()
z = torch.ones(3, 1, 1, 2)
print(m(z) is z, m(torch.ones(1, 2, 1, 1, 1)).shape)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    print(F.dropout3d(torch.ones(2, 3), 0.5).shape)
print([str(x.message)[:60] for x in w])
run("bad p", lambda: F.dropout3d(x, 1.5))
run("p=1", lambda: F.dropout3d(torch.ones(1, 2, 1, 1, 1), 1.0))
t = torch.ones(1, 2, 1, 1, 1)
print(F.dropout3d(t, 0.5, inplace=True) is t, t.flatten())
sm = torch.nn.Softmax2d()
a = torch.arange(12.0).reshape(1, 3, 2, 2).requires_grad_()
o = sm(a)
print(sm, o, o.grad_fn)
(o * torch.arange(12.0).reshape(1, 3, 2, 2)).sum().backward()
print(a.grad)
run("softmax2d 2d", lambda: sm(torch.ones(2, 3)))
print(sm(torch.ones(3, 1, 1)))
h = torch.tensor([-2.0, 0.5, 3.0], requires_grad=True)
k = h * 1
print(F.hardtanh_(k), F.hardtanh_(k * 1, -0.5, 0.5), k.grad_fn)
run("hardtanh_ leaf", lambda: F.hardtanh_(h))
""",
    "addr_addbmm": """
def walk(fn, d=0):
    if fn is None:
        return
    print("  " * d + type(fn).__name__)
    for f, _ in fn.next_functions:
        walk(f, d + 1)
torch.manual_seed(0)
x = torch.randn(2, 3, requires_grad=True)
a = torch.randn(2, requires_grad=True)
b = torch.randn(3, requires_grad=True)
o = torch.addr(x, a, b, beta=0.5, alpha=2)
print(o, o.grad_fn, o.grad_fn._saved_alpha, o.grad_fn._saved_beta, o.grad_fn._saved_vec1.equal(a))
o.pow(2).sum().backward()
print(x.grad, a.grad, b.grad)
(g,) = torch.autograd.grad(torch.addr(x, a, b).pow(2).sum(), a, create_graph=True)
walk(g.grad_fn)
print(x.addr(a, b), torch.addr(torch.zeros(1), a, b).shape)
print(torch.addr(torch.zeros(2, 2, dtype=torch.int64), torch.tensor([1, 2]), torch.tensor([3, 4])))
run("addr 2d vec", lambda: torch.addr(torch.zeros(2, 2), torch.ones(2, 1), torch.ones(2)))
run("addr bad input", lambda: torch.addr(torch.zeros(2, 3), torch.ones(2), torch.ones(2)))
run("addr dtypes", lambda: torch.addr(torch.zeros(2, 2), torch.ones(2), torch.ones(2, dtype=torch.float64)))
B1 = torch.randn(4, 2, 3, requires_grad=True)
B2 = torch.randn(4, 3, 5, requires_grad=True)
inp = torch.randn(5, requires_grad=True)
o = torch.addbmm(inp, B1, B2)
print(o, o.grad_fn, o.grad_fn._saved_batch1_sym_argsize_0, o.grad_fn._saved_batch1_sym_argsize_1, o.grad_fn._saved_batch2_sym_argsize_2, o.grad_fn._saved_alpha)
(o * torch.arange(10.0).reshape(2, 5)).sum().backward()
print(inp.grad, B1.grad, B2.grad)
o2 = inp.addbmm(B1, B2, beta=2, alpha=0.5)
print(o2)
(g,) = torch.autograd.grad(torch.addbmm(inp, B1, B2, alpha=3).pow(2).sum(), B1, create_graph=True)
walk(g.grad_fn)
run("addbmm batches", lambda: torch.addbmm(torch.zeros(2, 2), torch.ones(3, 2, 4), torch.ones(2, 4, 2)))
run("addbmm 2d", lambda: torch.addbmm(torch.zeros(2, 2), torch.ones(3, 2, 4), torch.ones(3, 4)))
run("addbmm sizes", lambda: torch.addbmm(torch.zeros(2, 2), torch.ones(3, 2, 4), torch.ones(3, 5, 2)))
run("addbmm input", lambda: torch.addbmm(torch.zeros(3, 2), torch.ones(3, 2, 4), torch.ones(3, 4, 2)))
run("addbmm dtype", lambda: torch.addbmm(torch.zeros(2, 2), torch.ones(1, 2, 4), torch.ones(1, 4, 2, dtype=torch.float64)))
""",
    "get_submodule_parameter_buffer_one_hot_checks": """
nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.BatchNorm1d(2)))
for path in ["", "1.0", "2", "0.weight", "0.foo", "1"]:
    run("get_submodule " + path, lambda: m.get_submodule(path))
for path in ["0.weight", "0.foo", "1.0.running_mean", "1.0.training", "1.0.bias", "x"]:
    run("get_parameter " + path, lambda: m.get_parameter(path))
for path in ["1.0.running_mean", "1.0.weight", "3.x", "1.0.num_batches_tracked"]:
    run("get_buffer " + path, lambda: m.get_buffer(path))
run("one_hot float", lambda: F.one_hot(torch.tensor([0.0, 1.0])))
run("one_hot too big", lambda: F.one_hot(torch.tensor([0, 3]), 2))
run("one_hot negative", lambda: F.one_hot(torch.tensor([0, -1])))
run("one_hot empty", lambda: F.one_hot(torch.tensor([], dtype=torch.long)))
run("one_hot empty n", lambda: F.one_hot(torch.tensor([], dtype=torch.long), 3))
run("one_hot int32", lambda: F.one_hot(torch.tensor([1], dtype=torch.int32)))
run("one_hot 2d", lambda: F.one_hot(torch.tensor([[0, 2], [1, 1]])))
run("one_hot n", lambda: F.one_hot(torch.tensor([0, 2]), 5))
""",
    "legacy_variable": """
import warnings
Variable = torch.autograd.Variable
t = torch.ones(2)
v = Variable(t, requires_grad=True)
print(v, v is t, v.data_ptr() == t.data_ptr(), v.is_leaf, type(v).__name__, v.grad_fn)
w = Variable(t)
print(w is t, w.requires_grad, w.data_ptr() == t.data_ptr())
y = v * 2
z = Variable(y)
print(z.grad_fn, z.requires_grad, z.is_leaf)
u = Variable(y, requires_grad=True)
print(u.grad_fn, u.is_leaf)
print(isinstance(v, Variable), isinstance(torch.ones(1), Variable), isinstance(3.0, Variable))
run("list", lambda: Variable([1.0, 2.0]))
run("int requires grad", lambda: Variable(torch.tensor([1, 2]), requires_grad=True))
with warnings.catch_warnings(record=True) as ws:
    warnings.simplefilter("always")
    print(Variable(torch.ones(1), volatile=True))
print([str(m.message) for m in ws])
print(Variable().shape, Variable().requires_grad)
x = Variable(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), requires_grad=True)
out = (x * x).mean()
out.backward()
print(out, x.grad, x.data)
""",
    "legacy_constructors_and_types": """
import numpy as np
a = torch.ones(2, requires_grad=True)
run("Tensor(a)", lambda: (torch.Tensor(a) is a, torch.Tensor(a).requires_grad, torch.Tensor(a).data_ptr() == a.data_ptr(), torch.Tensor(a).is_leaf, torch.Tensor(a).grad_fn, torch.Tensor(a)._base is a))
run("Tensor(long)", lambda: torch.Tensor(torch.tensor([1, 2])))
run("LongTensor(float)", lambda: torch.LongTensor(torch.tensor([1.0])))
run("FloatTensor(double)", lambda: torch.FloatTensor(torch.tensor([1.0], dtype=torch.float64)))
run("Tensor(np)", lambda: torch.Tensor(np.array([1, 2])))
run("Tensor(Size)", lambda: torch.Tensor(torch.Size([2])).shape)
run("Tensor(tuple)", lambda: torch.Tensor((2, 3)))
run("Tensor(nested)", lambda: torch.Tensor([[1, 2], [3, 4]]))
run("Tensor(float)", lambda: torch.Tensor(2.5))
run("Tensor(str)", lambda: torch.Tensor("a"))
for kw in [{"dtype": torch.float64}, {"requires_grad": True}]:
    try:
        torch.Tensor([1, 2], **kw)
    except TypeError as e:
        print("TypeError:", str(e).splitlines()[0])
run("FloatTensor device", lambda: torch.FloatTensor([1, 2], device="cpu"))
run("Tensor(0)", lambda: torch.Tensor(0))
run("Tensor(-1)", lambda: torch.Tensor(-1))
run("Tensor()", lambda: torch.Tensor())
run("Tensor(2,3) shape", lambda: (torch.Tensor(2, 3).shape, torch.Tensor(2, 3).dtype, torch.Tensor(2, 3).requires_grad))
run("FloatTensor", lambda: torch.FloatTensor)
run("dtypes", lambda: (torch.FloatTensor.dtype, torch.LongTensor.dtype, torch.ByteTensor.dtype, torch.BoolTensor.dtype))
run("type(LongTensor)", lambda: torch.ones(1).type(torch.LongTensor))
run("type('torch.LongTensor')", lambda: torch.ones(1).type("torch.LongTensor"))
run("type('foo')", lambda: torch.ones(1).type("foo"))
run("type(torch.float64)", lambda: torch.ones(1).type(torch.float64))
run("type()", lambda: torch.tensor([1.0]).type())
run("isinstance", lambda: (isinstance(torch.ones(1, dtype=torch.float64), torch.FloatTensor), isinstance(torch.ones(1), torch.FloatTensor), isinstance(torch.tensor([1]), torch.LongTensor), isinstance(3, torch.FloatTensor)))
run("kinds", lambda: (torch.HalfTensor([1]), torch.BFloat16Tensor([1]), torch.ShortTensor([1]).dtype, torch.CharTensor([1]).dtype, torch.IntTensor([1, 2]).dtype, torch.ByteTensor([1, 0]), torch.BoolTensor([1, 0]), torch.DoubleTensor([1.5])))
w = torch.Tensor([1.0, 2.0]).requires_grad_()
(w * w).sum().backward()
print(w, w.grad, w.is_leaf)
x = torch.FloatTensor(3).uniform_(0, 1)
print(x.shape, x.dtype)
y = torch.Tensor(3, 2).fill_(0.5)
print(y)
print(torch.Tensor, type(torch.ones(1)) is torch.Tensor, isinstance(torch.Tensor([1.0]), torch.Tensor))
class MyTensorUser(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 2
print(MyTensorUser()(torch.Tensor([1, 2])))
""",
    "index_zero_dim_tensor": """
t = torch.tensor(1.5, requires_grad=True)
loss = t * 2
for k in [0, (0,), (0, 0), slice(0, 1), -1, 3, torch.tensor(0), [0], (None, 0), (..., 0), None]:
    try:
        print(repr(k), loss[k])
    except Exception as e:
        print(repr(k), type(e).__name__, e)
try:
    print(loss.data[0])
except IndexError as e:
    print("IndexError:", e)
print(loss.item(), loss.data.item())
""",
    "numpy_keyword_names": """
A = torch.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]], requires_grad=True)
for name in ["cumsum", "cumprod", "argmax", "argmin", "std", "var", "prod", "amax", "amin", "logsumexp",
             "softmax", "log_softmax", "argsort", "nansum", "nanmean", "logcumsumexp", "count_nonzero", "unbind",
             "diff", "flatten", "median", "mode", "sort", "cummax", "cummin", "max", "min", "all", "any",
             "sum", "mean", "std_mean", "var_mean", "aminmax"]:
    run("torch." + name, lambda: getattr(torch, name)(A if name not in ("all", "any") else A > 1, axis=1))
    run("method " + name, lambda: getattr(A if name not in ("all", "any") else A > 1, name)(axis=0) if hasattr(A, name) else None)
for name in ["max", "min", "amax", "sum", "mean", "std", "var", "prod", "logsumexp", "argmax", "all", "median", "nansum"]:
    run("keepdims " + name, lambda: getattr(torch, name)(A if name != "all" else A > 1, axis=1, keepdims=True))
run("stack", lambda: torch.stack([A, A], axis=1).shape)
run("topk", lambda: A.topk(1, axis=1))
run("kthvalue", lambda: A.kthvalue(1, axis=1))
run("gather", lambda: A.gather(axis=1, index=torch.tensor([[0], [1]])))
run("index_select", lambda: A.index_select(axis=1, index=torch.tensor([0])))
run("squeeze", lambda: A[:, :1].squeeze(axis=1))
run("unsqueeze", lambda: A.unsqueeze(axis=0).shape)
run("chunk", lambda: A.chunk(3, axis=1))
run("narrow", lambda: A.narrow(axis=1, start=0, length=2))
run("select", lambda: A.select(axis=1, index=0))
run("repeat_interleave", lambda: A.repeat_interleave(2, axis=0).shape)
run("take_along_dim", lambda: torch.take_along_dim(A, torch.tensor([[0], [1]]), axis=1))

run("randn size", lambda: (torch.manual_seed(0), torch.randn(size=(2,)), torch.rand(size=(1, 2)), torch.zeros(size=(2,)), torch.ones(size=[1]), torch.empty(size=(0,)))[1:])
run("randn size dtype", lambda: torch.randn(size=(2,), dtype=torch.float64, requires_grad=True))
s = A.softmax(axis=1)
s[:, 0].sum().backward()
print(A.grad)
""",
    "bool_and_small_int_arithmetic_dtypes": """
b = torch.tensor([True, False])
run("square_ bool", lambda: torch.tensor([True]).square_())
u = torch.tensor([1, 2], dtype=torch.uint8)
i8 = torch.tensor([1, 2], dtype=torch.int8)
for name, fn in [("b**2", lambda: b ** 2), ("b+1", lambda: b + 1), ("b*2", lambda: b * 2), ("b*1.5", lambda: b * 1.5),
                 ("b+b", lambda: b + b), ("b*b", lambda: b * b), ("square", lambda: torch.square(b)), ("2**b", lambda: 2 ** b),
                 ("u**2", lambda: u ** 2), ("i8**2", lambda: i8 ** 2), ("u*300", lambda: u * 300), ("i8+1", lambda: i8 + 1),
                 ("b.pow(2.0)", lambda: b.pow(2.0)), ("b/2", lambda: b / 2), ("b//1", lambda: b // 1), ("-u", lambda: -u),
                 ("b.sum()", lambda: b.sum()), ("b.cumsum(0)", lambda: b.cumsum(0)), ("b.prod()", lambda: b.prod()),
                 ("u.sum()", lambda: u.sum()), ("b.float().mean()", lambda: b.float().mean()), ("b.max()", lambda: b.max()),
                 ("b.abs()", lambda: i8.abs()), ("b & b", lambda: b & b), ("~b", lambda: ~b), ("b.int()", lambda: b.int())]:
    try:
        print(name, fn())
    except Exception as e:
        print(name, type(e).__name__, e)
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + SNIPPETS[name], show_warnings=False)
