"""In-place comparisons (x.lt_...), gcd/lcm/nextafter and the other ops, modules (lazy ones included) and
autograd.graph helpers added to close known gaps: small programs run with torch and with the engine print the same."""

from __future__ import annotations

import pytest

from tests.engine.programs import CHAIN, RUN, assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = RUN + CHAIN

SNIPPETS = {
    "inplace_comparisons": """
for op in ["lt_", "le_", "gt_", "ge_", "eq_", "ne_", "less_", "less_equal_", "greater_", "greater_equal_",
           "not_equal_"]:
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    o = torch.tensor([2., 2., 2.], requires_grad=True)
    y = x * 1
    run(op, lambda: (getattr(y, op)(2), y._version))
    chain(y)
    y = x * 1
    run(op + " tensor", lambda: (getattr(y, op)(o), y._version))
    chain(y)
    y.sum().backward()
    run("  grads", lambda: (x.grad, o.grad))
z = torch.zeros(3)
run("other requires grad", lambda: (z.lt_(torch.tensor([1., 0, 0], requires_grad=True)), z.requires_grad))
v = torch.tensor([1., 2., 3., 4.], requires_grad=True).clone()
w = v[1:3]
w.gt_(2)
run("view", lambda: (v, w))
run("int", lambda: torch.tensor([1, 2, 3]).eq_(2))
run("complex eq", lambda: torch.tensor([1 + 1j, 2]).eq_(2))
run("complex lt", lambda: torch.tensor([1 + 1j, 2]).lt_(2))
run("complex lt tensor", lambda: torch.tensor([1 + 1j, 2]).lt_(torch.tensor(2.)))
run("float int", lambda: torch.tensor([1., 2.]).ne_(torch.tensor([1, 3])))
run("bool float", lambda: torch.tensor([True, False]).lt_(torch.tensor([1.5, 0.5])))
run("uint8 wraps", lambda: torch.tensor([1, 2], dtype=torch.uint8).lt_(-1))
u = torch.tensor([1, 2, 255], dtype=torch.uint8)
run("out-of-place wraps", lambda: (u < -1, u == -1, torch.lt(u, 256), u > 300, torch.tensor([1, 2], dtype=torch.int8) == 257))
run("nan", lambda: torch.tensor([1., float('nan')]).ne_(float('nan')))
run("int float tensor", lambda: torch.tensor([1, 2]).lt_(torch.tensor([1.5, 2.5])))
run("int float", lambda: torch.tensor([1, 2]).lt_(1.5))
run("0-d self", lambda: torch.tensor(2.).le_(torch.tensor([1., 3.])))
run("shapes", lambda: torch.tensor([2., 3.]).le_(torch.tensor([1., 3., 4.])))
run("float64 0-d", lambda: torch.tensor([1., 2.], dtype=torch.float64).gt_(torch.tensor(1.5)))
run("bfloat16", lambda: torch.tensor([1., 2.], dtype=torch.bfloat16).gt_(1.5))
run("float16", lambda: torch.tensor([1., 2.], dtype=torch.float16).eq_(torch.tensor([1, 2])))
run("str", lambda: torch.zeros(2).lt_('a'))
run("None", lambda: torch.zeros(2).eq_(None))
run("expanded", lambda: torch.zeros(2).expand(2, 2).lt_(1))
x = torch.tensor([1., 2.], requires_grad=True)
run("leaf", lambda: x.lt_(2))
run("leaf shapes", lambda: x.lt_(torch.ones(3)))
run("detached", lambda: x.detach().lt_(2))
with torch.no_grad():
    run("no_grad leaf", lambda: x.lt_(2))
y = x.exp()
y.lt_(3)
run("saved result changed", lambda: y.sum().backward())
x = torch.tensor([1., 2.], requires_grad=True)
o = torch.tensor(2., dtype=torch.float64, requires_grad=True)
y = x * 1
y.eq_(o)
y.sum().backward()
run("float64 other grads", lambda: (o.grad, x.grad))
""",
    "gcd_lcm": """
a = torch.tensor([12, -18, 0, 7])
b = torch.tensor([8, 12, 0, -21])
run("gcd", lambda: torch.gcd(a, b))
run("lcm", lambda: torch.lcm(a, b))
run("gcd 0-d", lambda: torch.gcd(a, torch.tensor(6)))
run("gcd int", lambda: torch.gcd(a, 6))
run("method int", lambda: a.gcd(6))
run("lcm_ int", lambda: a.lcm_(6))
run("float", lambda: torch.gcd(a.float(), b.float()))
run("int32", lambda: torch.gcd(a, b.to(torch.int32)).dtype)
run("uint8 int8", lambda: torch.gcd(a.to(torch.uint8), b.to(torch.int8)))
run("bool", lambda: torch.gcd(torch.tensor([True]), torch.tensor([True])))
run("lcm wraps", lambda: torch.lcm(torch.tensor([2**40, -4, -2**63, 0, 5]), torch.tensor([3**20, 6, 1, 0, 0])))
run("lcm uint8", lambda: torch.lcm(torch.tensor([200], dtype=torch.uint8), torch.tensor([3], dtype=torch.uint8)))
run("lcm int8", lambda: torch.lcm(torch.tensor([100], dtype=torch.int8), torch.tensor([3], dtype=torch.int8)))
run("gcd_ int32", lambda: torch.tensor([4], dtype=torch.int32).gcd_(torch.tensor([6])))
run("gcd_ shape", lambda: torch.tensor([4]).gcd_(torch.tensor([[6, 2]])))
run("broadcast", lambda: torch.gcd(torch.tensor([4]), torch.tensor([[6], [8]])))
run("mismatch", lambda: torch.gcd(torch.tensor([4, 5]), torch.tensor([1, 2, 3])))
t = torch.tensor([4, 5])
run("torch.gcd_", lambda: (torch.gcd_(t, torch.tensor([2, 3])), t, t._version))
run("torch.lcm_", lambda: torch.lcm_(torch.tensor([4, 5]), torch.tensor([2, 3])))
""",
    "nextafter": """
x = torch.tensor([1., 0., -1.], requires_grad=True)
y = torch.nextafter(x, torch.tensor([2., -1., 0.]))
run("nextafter", lambda: (y, y.dtype))
chain(y)
run("float64", lambda: torch.nextafter(torch.tensor([1.], dtype=torch.float64), torch.tensor([2.])))
run("long", lambda: torch.nextafter(torch.tensor([1]), torch.tensor([2])))
run("float other", lambda: torch.nextafter(torch.tensor([1.]), 2.))
run("0-d float64", lambda: torch.nextafter(torch.tensor([1.]), torch.tensor(2., dtype=torch.float64)).dtype)
run("complex", lambda: torch.nextafter(torch.tensor([1. + 1j]), torch.tensor([2. + 0j])))
run("_ float64 other", lambda: torch.tensor([4.]).nextafter_(torch.tensor([6.], dtype=torch.float64)))
run("_ float64 self", lambda: torch.tensor([4.], dtype=torch.float64).nextafter_(torch.tensor([6.])))
run("int other", lambda: torch.tensor([4.]).nextafter(torch.tensor([6])))
run("method float", lambda: torch.tensor([4.]).nextafter(6.))
run("steps", lambda: (torch.nextafter(torch.tensor([1., 0., -1., 3.]), torch.tensor([2., -1., 0., -5.]))
                      - torch.tensor([1., 0., -1., 3.])).tolist())
run("bfloat16", lambda: torch.nextafter(torch.tensor([1., 0, -1., 0.5, 2.], dtype=torch.bfloat16),
                                        torch.tensor([2., -1, -2., 0., 2.], dtype=torch.bfloat16)).float().tolist())
run("float16", lambda: torch.nextafter(torch.tensor([1., 0, -1.], dtype=torch.float16),
                                       torch.tensor([2., 1, -2.], dtype=torch.float16)).tolist())
run("special", lambda: torch.nextafter(torch.tensor([float('nan'), float('inf'), 0., -0.]),
                                       torch.tensor([1., 0., -0., 0.])))
x = torch.tensor([1., 2., 3., float('nan')], requires_grad=True)
o = torch.tensor([2., 2., 0., 1.], requires_grad=True)
y = torch.nextafter(x, o)
y.backward(torch.tensor([1., 2., 3., 4.]))
run("grads", lambda: (x.grad, o.grad))
go = torch.tensor([5., 6., 7., 8.], requires_grad=True)
g = torch.autograd.grad(torch.nextafter(x, o), [x, o], go, create_graph=True)
run("create_graph", lambda: g)
chain(g[0])
y = x * 1
y.nextafter_(torch.tensor([0., 5., 3., 3.]))
run("in-place", lambda: y)
chain(y)
run("leaf", lambda: x.nextafter_(torch.tensor([0., 5.])))
x = torch.tensor([1., 2.], requires_grad=True)
o = torch.tensor(2., dtype=torch.float64, requires_grad=True)
run("mixed dtypes create_graph", lambda: torch.autograd.grad(torch.nextafter(x, o).sum(), [x, o], create_graph=True))
o2 = torch.tensor([1., 3.], dtype=torch.float64, requires_grad=True)
y = x * 1
y.nextafter_(o2)
run("mixed dtypes in place", lambda: (y, torch.autograd.grad(y.sum(), [x, o2])))
""",
    "torch_cholesky": """
A = torch.tensor([[4., 2.], [2., 3.]], requires_grad=True)
L = torch.cholesky(A)
run("lower", lambda: L)
chain(L)
run("saved", lambda: (L.grad_fn._saved_upper, L.grad_fn._saved_result))
U = torch.cholesky(A, upper=True)
run("upper", lambda: (U, U.grad_fn._saved_upper))
run("positional upper", lambda: torch.cholesky(A, True))
run("method", lambda: A.cholesky())
L.sum().backward()
run("grad", lambda: A.grad)
g = torch.autograd.grad(torch.cholesky(A).sum(), A, create_graph=True)[0]
run("create_graph", lambda: g)
chain(g)
run("not pd", lambda: torch.cholesky(torch.tensor([[1., 2.], [2., 1.]])))
run("batch not pd", lambda: torch.cholesky(torch.tensor([[[1., 0], [0, 1.]], [[1., 2.], [2., 1.]]])))
run("1-d", lambda: torch.cholesky(torch.tensor([1., 2.])))
run("not square", lambda: torch.cholesky(torch.ones(2, 3)))
run("long", lambda: torch.cholesky(torch.tensor([[1, 2], [2, 1]])))
run("half", lambda: torch.cholesky(torch.eye(2, dtype=torch.half)))
run("bfloat16", lambda: torch.cholesky(torch.eye(2, dtype=torch.bfloat16)))
run("float64 batch", lambda: torch.cholesky(torch.eye(2, dtype=torch.float64).expand(3, 2, 2)))
""",
    "pdist": """
F = torch.nn.functional
torch.manual_seed(0)
x = torch.randn(4, 3, requires_grad=True)
for p in [2, 1, 0, 3.5, float('inf'), 0.5]:
    y = F.pdist(x, p)
    run(str(p), lambda: (y, y.grad_fn._saved_p))
    chain(y)
    y.sum().backward()
    run("  grad", lambda: x.grad)
    x.grad = None
run("torch.pdist", lambda: (torch.pdist(x), F.pdist(x[:1]), F.pdist(x[:0]).shape))
for bad in [torch.randn(3), torch.randn(2, 3, 4), torch.tensor([[1, 2], [3, 4]])]:
    run("bad", lambda: F.pdist(bad))
run("negative p", lambda: F.pdist(x, -1))
g = torch.autograd.grad(F.pdist(x).sum(), x, create_graph=True)[0]
chain(g)
run("double backward", lambda: g.sum().backward())
x2 = torch.tensor([[0., 0.], [0., 0.], [1., 1.]], requires_grad=True)
F.pdist(x2).sum().backward()
run("ties", lambda: x2.grad)
run("float64", lambda: F.pdist(x.double()).dtype)
""",
    "local_response_norm": """
F = torch.nn.functional
torch.manual_seed(0)
for shape in [(2, 5, 4), (2, 5, 3, 3), (1, 4, 2, 2, 2)]:
    x = torch.randn(*shape, requires_grad=True)
    for size in [1, 2, 3]:
        y = F.local_response_norm(x, size, alpha=0.5, beta=0.75, k=1.5)
        y.sum().backward()
        run(str((shape, size)), lambda: (y.flatten()[:6], x.grad.flatten()[:6]))
        chain(y)
        x.grad = None
m = torch.nn.LocalResponseNorm(2)
run("module", lambda: (m, m(torch.ones(1, 3, 2)), torch.nn.LocalResponseNorm(2, 0.1, 0.5, 2)))
run("2-d", lambda: F.local_response_norm(torch.ones(2, 3), 2))
run("empty", lambda: F.local_response_norm(torch.ones(0, 3, 2), 2))
""",
    "rrelu": """
F = torch.nn.functional
torch.manual_seed(0)
x = torch.tensor([-1., 2., -3., 0., -0.5, 4.], requires_grad=True)
y = F.rrelu(x, training=True)
run("train", lambda: y)
chain(y)
run("saved", lambda: (y.grad_fn._saved_noise, y.grad_fn._saved_lower, y.grad_fn._saved_upper,
                      y.grad_fn._saved_training))
y.sum().backward()
run("grad", lambda: x.grad)
run("eval", lambda: F.rrelu(x))
m = torch.nn.RReLU(0.1, 0.3)
run("reprs", lambda: (m, torch.nn.RReLU(), torch.nn.RReLU(inplace=True)))
run("module train", lambda: m(x))
m.eval()
run("module eval", lambda: m(x))
run("next draw", lambda: torch.rand(2))
run("float64", lambda: F.rrelu(torch.randn(3, 4).double(), training=True))
run("torch.rrelu", lambda: torch.rrelu(torch.tensor([-1., -2.]), 0.2, 0.4, True))
g = torch.Generator().manual_seed(5)
run("generator", lambda: torch.rrelu(torch.tensor([-1., -2.]), 0.2, 0.4, True, g))
w = torch.tensor([-1., -2., 3.])
run("inplace", lambda: (F.rrelu(w, training=True, inplace=True) is w, w, w._version))
w = torch.tensor([-1., -2., 3.])
run("rrelu_", lambda: (F.rrelu_(w) is w, w))
q = x * 1
F.rrelu(q, training=True, inplace=True)
run("inplace graph", lambda: q)
chain(q)
q.sum().backward()
run("inplace grad", lambda: x.grad)
run("long train", lambda: F.rrelu(torch.tensor([1, -2]), training=True))
run("long eval", lambda: F.rrelu(torch.tensor([1, -2])))
run("bounds", lambda: F.rrelu(x, 0.5, 0.2))
g = torch.autograd.grad(F.rrelu(x, training=True).sum(), x, create_graph=True)[0]
run("create_graph", lambda: g)
chain(g)
torch.manual_seed(3)
xb = torch.randn(8).to(torch.bfloat16).requires_grad_()
yb = F.rrelu(xb, training=True)
run("bfloat16", lambda: (yb, yb.grad_fn._saved_noise))
yb.sum().backward()
run("bfloat16 grad", lambda: xb.grad)
wb = torch.randn(5).to(torch.bfloat16)
run("bfloat16 in place", lambda: F.rrelu_(wb, 0.1, 0.9, True))
run("half train", lambda: F.rrelu(torch.tensor([-1., 2.]).half(), training=True))
run("half eval", lambda: F.rrelu(torch.tensor([-1., 2.]).half()))
""",
    "multilabel_margin_loss": """
F = torch.nn.functional
x = torch.tensor([[0.1, 0.2, 0.4, 0.8], [0.5, -0.3, 0.9, 0.0]], requires_grad=True)
y = torch.tensor([[3, 0, -1, 1], [1, 2, 3, -1]])
for red in ["mean", "sum", "none"]:
    l = F.multilabel_margin_loss(x, y, reduction=red)
    run(red, lambda: l)
    chain(l)
    l.sum().backward()
    run("  grad", lambda: x.grad)
    x.grad = None
l = F.multilabel_margin_loss(x, y)
run("saved", lambda: (l.grad_fn._saved_is_target, l.grad_fn._saved_reduction))
x1 = torch.tensor([0.1, 0.2, 0.4, 0.8], requires_grad=True)
l = F.multilabel_margin_loss(x1, torch.tensor([3, 0, -1, 1]))
l.backward()
run("1-d", lambda: (l, x1.grad, F.multilabel_margin_loss(x1, torch.tensor([3, 0, -1, 1]), reduction='none')))
run("duplicates", lambda: F.multilabel_margin_loss(x, torch.tensor([[3, 3, -1, 1], [1, -1, 3, 2]])))
m = torch.nn.MultiLabelMarginLoss()
run("module", lambda: (m, m(x, y), torch.nn.MultiLabelMarginLoss(reduction='sum')))
for bad_t in [torch.tensor([[3, 0, -1]]), torch.tensor([[4, 0, -1, 1], [1, 2, 3, -1]]),
              torch.tensor([[3., 0, -1, 1], [1, 2, 3, -1]])]:
    run("bad target", lambda: F.multilabel_margin_loss(x, bad_t))
run("3-d", lambda: F.multilabel_margin_loss(torch.ones(2, 2, 2), torch.ones(2, 2, 2).long()))
run("reduction", lambda: F.multilabel_margin_loss(x, y, reduction='foo'))
run("0-d", lambda: F.multilabel_margin_loss(torch.tensor(0.5), torch.tensor(0)))
g = torch.autograd.grad(F.multilabel_margin_loss(x, y), x, create_graph=True)[0]
chain(g)
""",
    "triplet_margin_with_distance_loss": """
F = torch.nn.functional
torch.manual_seed(0)
a, p, n = (torch.randn(3, 4, requires_grad=True) for _ in range(3))
m = torch.nn.TripletMarginWithDistanceLoss()
l = m(a, p, n)
run("default", lambda: (m, l))
chain(l)
l.backward()
run("grad", lambda: a.grad)
m2 = torch.nn.TripletMarginWithDistanceLoss(distance_function=lambda x, y: 1 - F.cosine_similarity(x, y),
                                             margin=0.5, swap=True, reduction='none')
run("custom", lambda: (m2, m2(a, p, n)))
run("functional sum", lambda: F.triplet_margin_with_distance_loss(a, p, n, reduction='sum'))
run("module distance", lambda: torch.nn.TripletMarginWithDistanceLoss(distance_function=torch.nn.PairwiseDistance(p=1)))
run("margin 0", lambda: F.triplet_margin_with_distance_loss(a, p, n, margin=0))
run("reduction", lambda: F.triplet_margin_with_distance_loss(a, p, n, reduction='x'))
run("module margin", lambda: torch.nn.TripletMarginWithDistanceLoss(margin=-1))
run("dims", lambda: F.triplet_margin_with_distance_loss(a, p, n[0]))
run("state", lambda: (list(m.state_dict()), m.training, m.reduction, m.margin, m.swap))
""",
    "lazy_modules": """
torch.manual_seed(0)
for cls, args, shape in [(torch.nn.LazyConv1d, (4, 3), (2, 3, 8)), (torch.nn.LazyConv2d, (4, 3), (2, 3, 5, 5)),
                         (torch.nn.LazyConv3d, (2, 2), (1, 2, 3, 3, 3)),
                         (torch.nn.LazyConvTranspose1d, (4, 3), (2, 3, 5)), (torch.nn.LazyConvTranspose2d, (2, 3), (1, 3, 4, 4)),
                         (torch.nn.LazyConvTranspose3d, (2, 2), (1, 3, 2, 2, 2)),
                         (torch.nn.LazyBatchNorm1d, (), (4, 3)), (torch.nn.LazyBatchNorm2d, (), (2, 3, 2, 2)),
                         (torch.nn.LazyBatchNorm3d, (), (2, 3, 2, 2, 2)),
                         (torch.nn.LazyInstanceNorm1d, (), (2, 3, 4)), (torch.nn.LazyInstanceNorm2d, (), (2, 3, 2, 2)),
                         (torch.nn.LazyInstanceNorm3d, (), (2, 3, 2, 2, 2))]:
    m = cls(*args)
    print(m, type(m).__name__)
    print([(n, type(p).__name__) for n, p in m.named_parameters()], [(n, type(b).__name__) for n, b in m.named_buffers()])
    y = m(torch.randn(*shape))
    print(m, type(m).__name__, y.shape, y.grad_fn)
    print({k: (tuple(v.shape), v.flatten()[:3]) for k, v in m.state_dict().items()})
m = torch.nn.LazyConv2d(4, 3, stride=2, padding=1, bias=False, padding_mode='reflect'); print(m)
m = torch.nn.LazyInstanceNorm1d(affine=True, track_running_stats=True); print(m, m.weight, m.running_mean)
m(torch.randn(2,3,4)); print(m, m.weight, m.running_mean, m.num_batches_tracked)
m = torch.nn.LazyBatchNorm1d(momentum=0.2, affine=False); print(m); m(torch.randn(4, 3)); print(m, m.running_var)
m = torch.nn.LazyConvTranspose2d(4, 3, output_padding=1, stride=2, groups=1, dilation=1); print(m)
m = torch.nn.LazyConv1d(4, 3, groups=2); m(torch.randn(1, 4, 5)); print(m)
try: torch.nn.LazyConv1d(4, 3, groups=2)(torch.randn(1, 3, 5))
except Exception as e: print(type(e).__name__, e)
""",
    "lazy_modules_more": """
nn = torch.nn
torch.manual_seed(1)
m = nn.LazyConv1d(4, 3)
print(isinstance(m, nn.Conv1d), isinstance(m, nn.LazyConv1d))
try: m(torch.randn(3))
except Exception as e: print(type(e).__name__, e)
print(m(torch.randn(2, 5)).shape, m, isinstance(m, nn.LazyConv1d))
m = nn.LazyConv2d(2, 3, dtype=torch.float64); m(torch.randn(1, 2, 4, 4, dtype=torch.float64)); print(m.weight.dtype, m.weight[0, 0])
m = nn.LazyInstanceNorm1d()
try: m(torch.randn(3, 4))
except Exception as e: print(type(e).__name__, e)
print(m)
m = nn.LazyBatchNorm2d(affine=False, track_running_stats=False); print(m, list(m.named_parameters()), list(m.named_buffers()))
print(m(torch.ones(2, 3, 1, 1)).shape, m)
m = nn.LazyBatchNorm1d(bias=False); print(m, [n for n, _ in m.named_parameters()])
m(torch.randn(3, 2)); print(m, m.bias)
m = nn.LazyConvTranspose1d(3, 2, bias=False); print(m, m.bias)
try: nn.LazyConvTranspose1d(3, 2, padding_mode='reflect')
except Exception as e: print(type(e).__name__, e)
s = nn.Sequential(nn.LazyConv2d(4, 3), nn.LazyBatchNorm2d(), nn.ReLU(), nn.Flatten(), nn.LazyLinear(2)); print(s)
out = s(torch.randn(2, 1, 5, 5)); print(s, out)
out.sum().backward(); print(s[0].weight.grad.flatten()[:4])
m = nn.LazyConv1d(2, 1); print(m.weight, m.bias)
try: m.weight.shape
except Exception as e: print(type(e).__name__, e)
m = nn.LazyBatchNorm1d(); print(m.running_mean)
try: m.running_mean.shape
except Exception as e: print(type(e).__name__, e)
""",
    "disable_saved_tensors_hooks": """
G = torch.autograd.graph
disable_saved_tensors_hooks, saved_tensors_hooks, allow_mutation_on_saved_tensors = G.disable_saved_tensors_hooks, G.saved_tensors_hooks, G.allow_mutation_on_saved_tensors
def run(name, f):
    try: print(name, '->', f())
    except Exception as e: print(name, '->', type(e).__name__, e)
with disable_saved_tensors_hooks("no hooks here"):
    run("enter", lambda: saved_tensors_hooks(lambda t: t, lambda t: t).__enter__())
    x = torch.ones(2, requires_grad=True); y = x.exp(); print(y.grad_fn._saved_result)
    with disable_saved_tensors_hooks("inner"):
        run("enter inner", lambda: saved_tensors_hooks(lambda t: t, lambda t: t).__enter__())
    run("after inner", lambda: saved_tensors_hooks(lambda t: t, lambda t: t).__enter__())
calls = []
def h():
    with disable_saved_tensors_hooks("dis"):
        print("body")
with saved_tensors_hooks(lambda t: (calls.append('pack'), t)[1], lambda t: (calls.append('unpack'), t)[1]):
    run("disable inside hooks", h)
    x = torch.ones(2, requires_grad=True); z = x.sin(); print(calls)


def f():
    with disable_saved_tensors_hooks("dec"):
        with saved_tensors_hooks(lambda t: t, lambda t: t):
            pass
run("nested with", f)
@disable_saved_tensors_hooks("as decorator")
def g():
    with saved_tensors_hooks(lambda t: t, lambda t: t): pass
run("decorator", g)
run("save_on_cpu", lambda: (lambda c: (c.__enter__(), c.__exit__(None,None,None)))(torch.autograd.graph.save_on_cpu()) if False else 0)
with disable_saved_tensors_hooks("x"):
    run("save_on_cpu inside", lambda: torch.autograd.graph.save_on_cpu().__enter__())
with disable_saved_tensors_hooks("no mutation hooks"):
    run("allow_mutation inside", lambda: allow_mutation_on_saved_tensors().__enter__())
run("hooks after", lambda: (saved_tensors_hooks(lambda t: t, lambda t: t).__enter__(), saved_tensors_hooks(lambda t: t, lambda t: t).__exit__(None, None, None)))
""",
    "allow_mutation_on_saved_tensors": """
G = torch.autograd.graph
saved_tensors_hooks, allow_mutation_on_saved_tensors = G.saved_tensors_hooks, G.allow_mutation_on_saved_tensors
def run(name, f):
    try: print(name, '->', f())
    except BaseException as e: print(name, '->', type(e).__name__, e)
a = torch.ones(2, 3, requires_grad=True)
with saved_tensors_hooks(lambda t: t, lambda t: t):
    b = a.clone(); out = (b ** 2).sum(); b.sin_()
run("identity hooks", lambda: out.backward())
print(a.grad); a.grad = None
with allow_mutation_on_saved_tensors() as ctx:
    print(type(ctx).__name__)
    b = a.clone(); out = (b ** 2).sum(); b.sin_()
    print(b)
    out.backward()
print(a.grad); a.grad = None
with allow_mutation_on_saved_tensors():
    b = a.clone(); out = (b ** 2).sum(); b.sin_()
run("backward outside", lambda: out.backward())
def nest():
    with allow_mutation_on_saved_tensors():
        with allow_mutation_on_saved_tensors():
            pass
run("nested", nest)
with allow_mutation_on_saved_tensors():
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    y = x * 2
    z = y.exp()          # saves result
    w = y[1:]
    w.mul_(10)           # mutate view of y: y saved by? (mul saves x? mul by scalar saves nothing)
    v = z * 1
    z.add_(1)            # mutate saved result of exp
    print(z, z._version, z.grad_fn)
    v.sum().backward()
    print(x.grad)
with allow_mutation_on_saved_tensors():
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    y = x * 1
    s = (y * y).sum()
    y[0] = 100.
    s.backward()
    print(x.grad, y)
with allow_mutation_on_saved_tensors():
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    y = x * 1
    t = y[:2].sin()
    y.zero_()
    t.sum().backward()
    print(x.grad)
with allow_mutation_on_saved_tensors():
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    y = x.sigmoid()
    print(y.grad_fn._saved_result)
    y.mul_(2)
    print(y.grad_fn, y.grad_fn.next_functions[0][0]._saved_result)
    y.sum().backward(); print(x.grad)
""",
    "gradient_edge": """
get_gradient_edge, GradientEdge = torch.autograd.graph.get_gradient_edge, torch.autograd.graph.GradientEdge
def run(name, f):
    try: print(name, '->', f())
    except BaseException as e: print(name, '->', type(e).__name__, e)
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x * 2
z = y.exp()
out = z.sum()
e = get_gradient_edge(y)
print(e, type(e).__name__, e.node, e.output_nr)
run("grad wrt edge", lambda: torch.autograd.grad(out, e, retain_graph=True))
run("grad wrt [edge, x]", lambda: torch.autograd.grad(out, [e, x], retain_graph=True))
ez = get_gradient_edge(z)
run("outputs edge", lambda: torch.autograd.grad(ez, x, torch.ones(3), retain_graph=True))
run("outputs edge no grad_outputs", lambda: torch.autograd.grad(ez, x, retain_graph=True))
run("outputs [edge]", lambda: torch.autograd.grad([ez], [x], [torch.ones(3)], retain_graph=True))
el = get_gradient_edge(x)
print(el.node, el.output_nr)
run("leaf edge", lambda: torch.autograd.grad(out, el, retain_graph=True))
run("no grad tensor", lambda: get_gradient_edge(torch.ones(2)))
run("backward inputs edge", lambda: out.backward(inputs=[e], retain_graph=True))
a, b = torch.tensor([1., 2.], requires_grad=True).unbind()
eb = get_gradient_edge(b); print(eb.output_nr, eb.node)
run("multi-output edge", lambda: torch.autograd.grad(a * 3 + b * 5, eb))
run("create_graph edge", lambda: torch.autograd.grad(out, e, create_graph=True))
run("allow_unused", lambda: torch.autograd.grad(y.sum(), get_gradient_edge(z), allow_unused=True, retain_graph=True))
run("unused", lambda: torch.autograd.grad(y.sum(), get_gradient_edge(z), retain_graph=True))
run("materialize", lambda: torch.autograd.grad(y.sum(), get_gradient_edge(z), allow_unused=True, materialize_grads=True, retain_graph=True))
print(GradientEdge(e.node, 0) == e, hash(e) == hash(GradientEdge(e.node, 0)), len(e))
run("backward outputs edge", lambda: torch.autograd.backward(ez, torch.ones(3), inputs=[x]) )
print(x.grad)
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + SNIPPETS[name], show_warnings=False)


def test_torch_cholesky_warns_once_as_torch() -> None:
    """torch.cholesky's deprecation warning (warned once per process, so torch runs in a fresh one)."""
    import subprocess
    import sys
    import warnings

    import engine
    from engine import linalg

    code = ("import warnings, torch\nwarnings.simplefilter('always')\nA = torch.eye(2)\n"
            "with warnings.catch_warnings(record=True) as w:\n    torch.cholesky(A)\n    torch.cholesky(A)\n"
            "print(repr([(x.category.__name__, str(x.message)) for x in w]))")
    expected = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    linalg._deprecation_warned.discard("cholesky")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        engine.cholesky(engine.eye(2))
        engine.cholesky(engine.eye(2))
    assert repr([(x.category.__name__, str(x.message)) for x in w]) + "\n" == expected
