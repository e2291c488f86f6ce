"""interpolate / Upsample, ConvTranspose, MultiheadAttention and scaled_dot_product_attention, nn.init,
alpha dropout, bernoulli and poisson: programs run with torch and with the engine, output compared."""

from __future__ import annotations

import types

import pytest

import engine
import engine.nn.functional  # noqa: F401
from tests.engine.programs import CHAIN, run_program

torch = pytest.importorskip("torch")

PRELUDE = CHAIN + """
F = torch.nn.functional
def r(t, n=12):
    return None if t is None else [round(v, 4) for v in t.flatten().tolist()[:n]]
def attempt(f):
    try:
        out = f()
        print(tuple(out.shape) if hasattr(out, 'shape') else out)
    except Exception as e:
        print(type(e).__name__, e)
def saved(fn):
    return {a: (tuple(getattr(fn, a).shape) if hasattr(getattr(fn, a), 'shape') else getattr(fn, a))
            for a in dir(fn) if a.startswith('_saved')}
"""

PROGRAMS = {
    "interpolate_1d": """
torch.manual_seed(0)
x = torch.randn(2, 3, 5, requires_grad=True)
for mode in ["nearest", "nearest-exact", "linear", "area"]:
    for kw in [dict(scale_factor=2), dict(scale_factor=1.7), dict(size=3), dict(size=12), dict(size=5),
               dict(scale_factor=0.5), dict(scale_factor=2.5, recompute_scale_factor=True), dict(size=1)]:
        y = F.interpolate(x, mode=mode, **kw)
        print(mode, kw, tuple(y.shape), type(y.grad_fn).__name__, saved(y.grad_fn), r(y))
        gx, = torch.autograd.grad((y * torch.arange(y.numel()).reshape(y.shape).float().sin()).sum(), x)
        print(r(gx))
for kw in [dict(scale_factor=2), dict(size=7), dict(size=1), dict(size=3, align_corners=False)]:
    y = F.interpolate(x, mode="linear", align_corners=kw.pop("align_corners", True), **kw)
    print(kw, saved(y.grad_fn), r(y))
    print(r(torch.autograd.grad((y * y).sum(), x)[0]))
print(F.interpolate(torch.arange(6.).reshape(1, 1, 6).double(), scale_factor=0.7, mode='linear'))
print(F.interpolate(torch.tensor([[[1.0, 2.0]]]), scale_factor=2, mode='nearest'))
print(F.interpolate(torch.arange(6, dtype=torch.uint8).reshape(1, 1, 6), size=4))
""",
    "interpolate_2d": """
torch.manual_seed(1)
x = torch.randn(2, 2, 4, 5, requires_grad=True)
for mode in ["nearest", "nearest-exact", "bilinear", "bicubic", "area"]:
    kws = [dict(scale_factor=2), dict(scale_factor=(1.7, 0.6)), dict(size=(3, 8)), dict(size=4), dict(size=(4, 5)),
           dict(scale_factor=3.3, recompute_scale_factor=True)]
    if mode in ("bilinear", "bicubic"):
        kws += [dict(scale_factor=2, align_corners=True), dict(size=(7, 3), align_corners=True),
                dict(size=(1, 9), align_corners=True)]
    for kw in kws:
        y = F.interpolate(x, mode=mode, **kw)
        print(mode, kw, tuple(y.shape), type(y.grad_fn).__name__, saved(y.grad_fn), r(y))
        gx, = torch.autograd.grad((y * torch.arange(y.numel()).reshape(y.shape).float().cos()).sum(), x)
        print(r(gx))
print(F.interpolate(torch.arange(16, dtype=torch.uint8).reshape(1, 1, 4, 4) * 10, size=3, mode='nearest'))
""",
    "interpolate_double_backward": """
torch.manual_seed(2)
x = torch.randn(1, 2, 3, 4, dtype=torch.float64, requires_grad=True)
for mode, kw in [("nearest", dict(scale_factor=1.5)), ("nearest-exact", dict(size=(5, 3))),
                 ("bilinear", dict(scale_factor=1.3)), ("bilinear", dict(size=(4, 6), align_corners=True)),
                 ("bicubic", dict(scale_factor=2)), ("bicubic", dict(size=(2, 7), align_corners=True))]:
    y = F.interpolate(x, mode=mode, **kw)
    g, = torch.autograd.grad((y ** 2).sum(), x, create_graph=True)
    print(type(g.grad_fn).__name__, saved(g.grad_fn))
    gg, = torch.autograd.grad((g ** 2).sum(), x)
    print(r(g), r(gg))
x1 = x[0].detach().requires_grad_()
for mode, kw in [("nearest", dict(scale_factor=1.5)), ("linear", dict(size=7)), ("nearest-exact", dict(size=2))]:
    y = F.interpolate(x1, mode=mode, **kw)
    g, = torch.autograd.grad((y ** 3).sum(), x1, create_graph=True)
    print(type(g.grad_fn).__name__, saved(g.grad_fn), r(torch.autograd.grad(g.sum(), x1)[0]))
""",
    "interpolate_errors_and_modules": """
x3 = torch.randn(2, 3, 5)
x4 = torch.randn(2, 2, 4, 5)
for f in [lambda: F.interpolate(x3, size=0), lambda: F.interpolate(x3, scale_factor=0.1),
          lambda: F.interpolate(x3, size=(3, 4)), lambda: F.interpolate(x3, scale_factor=(2, 3)),
          lambda: F.interpolate(x3, size=[3.0]), lambda: F.interpolate(x3),
          lambda: F.interpolate(x3, size=3, scale_factor=2), lambda: F.interpolate(x3, size=3, recompute_scale_factor=True),
          lambda: F.interpolate(x3, scale_factor=-1), lambda: F.interpolate(x4, mode='bilinear', size=0),
          lambda: F.interpolate(x4, mode='bilinear', size=(0, 3)), lambda: F.interpolate(torch.rand(2, 3), size=3),
          lambda: F.interpolate(torch.rand(2, 3, 4, 5, 6), size=3, mode='bilinear'),
          lambda: F.interpolate(x3, size=3, mode='foo'), lambda: F.interpolate(x3, size=3, mode='bicubic'),
          lambda: F.interpolate(x4, size=3, mode='linear'), lambda: F.interpolate(x3, size=3, mode='bilinear'),
          lambda: F.interpolate(x3, size=3, mode='nearest', align_corners=True),
          lambda: F.interpolate(torch.ones(2, 3, 4, dtype=torch.int64), size=3),
          lambda: F.interpolate(torch.ones(2, 3, 4, 4, dtype=torch.int64), size=3),
          lambda: F.interpolate(torch.ones(2, 3, 4, 4, dtype=torch.int64), size=3, mode='bilinear'),
          lambda: F.interpolate(torch.ones(2, 3, 4, 4, dtype=torch.int64), size=3, mode='bicubic'),
          lambda: F.interpolate(torch.ones(2, 3, 4, dtype=torch.uint8), size=3, mode='linear'),
          lambda: F.interpolate(torch.ones(2, 3, 4), size=3, antialias=True),
          lambda: F.interpolate(torch.ones(0, 3, 4), size=3), lambda: F.interpolate(torch.ones(2, 0, 4, 4), size=3)]:
    attempt(f)
torch.manual_seed(3)
x = torch.randn(1, 2, 3, 4, requires_grad=True)
for m in [torch.nn.Upsample(scale_factor=2, mode='bilinear'), torch.nn.Upsample(size=(3, 3)),
          torch.nn.Upsample(scale_factor=(2, 3)), torch.nn.UpsamplingNearest2d(scale_factor=2),
          torch.nn.UpsamplingBilinear2d(size=(6, 7)), torch.nn.Upsample(size=5, mode='bicubic', align_corners=True)]:
    y = m(x)
    print(m, tuple(y.shape), type(y.grad_fn).__name__, r(y, 6))
print(r(F.upsample(x, scale_factor=2), 4), r(F.upsample_nearest(x, size=3), 4), r(F.upsample_bilinear(x, scale_factor=2), 4))
""",
    "conv_transpose": """
torch.manual_seed(0)
for args in [dict(), dict(stride=2), dict(stride=2, padding=1, output_padding=1), dict(groups=2),
             dict(dilation=2, stride=3, padding=2, output_padding=2), dict(bias=False)]:
    m = torch.nn.ConvTranspose2d(4, 6, (2, 3), **args)
    print(m, r(m.weight, 6), r(m.bias))
    x = torch.randn(2, 4, 3, 5, requires_grad=True)
    y = m(x)
    print(tuple(y.shape), type(y.grad_fn).__name__, saved(y.grad_fn), r(y, 8))
    (y ** 2).sum().backward()
    print(r(x.grad, 8), r(m.weight.grad, 8), r(m.bias.grad) if m.bias is not None else None)
for args in [dict(), dict(stride=3, padding=1, output_padding=2, dilation=2), dict(groups=3, stride=2)]:
    m = torch.nn.ConvTranspose1d(3, 6, 3, **args)
    print(m)
    x = torch.randn(2, 3, 7, requires_grad=True)
    y = m(x)
    y.sum().backward()
    print(tuple(y.shape), r(y, 8), r(x.grad, 8), r(m.weight.grad, 8), tuple(m(torch.randn(3, 7)).shape))
m = torch.nn.ConvTranspose2d(2, 2, 3, stride=2)
x = torch.randn(1, 2, 4, 4)
print(tuple(m(x).shape), tuple(m(x, output_size=[10, 10]).shape), tuple(m(x, output_size=(1, 2, 9, 10)).shape))
for f in [lambda: m(x, output_size=[12, 12]), lambda: m(x, output_size=[1, 2, 3]),
          lambda: torch.nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect"), lambda: torch.nn.ConvTranspose2d(3, 2, 3, groups=2),
          lambda: F.conv_transpose2d(x, torch.randn(3, 2, 3, 3)), lambda: F.conv_transpose2d(x, m.weight, stride=1, output_padding=1)]:
    attempt(f)
x = torch.randn(1, 2, 3, 3, dtype=torch.float64, requires_grad=True)
w = torch.randn(2, 3, 2, 2, dtype=torch.float64, requires_grad=True)
b = torch.randn(3, dtype=torch.float64, requires_grad=True)
y = F.conv_transpose2d(x, w, b, stride=2, padding=1)
gx, gw = torch.autograd.grad((y ** 2).sum(), (x, w), create_graph=True)
print(type(gx.grad_fn).__name__, type(gw.grad_fn).__name__)
(gx.sum() + (gw ** 2).sum()).backward()
print(r(x.grad), r(w.grad, 6), r(b.grad))
print(tuple(torch.conv_transpose2d(x, w, b).shape), tuple(torch.conv_transpose1d(x[:, :, 0], w[:, :, 0]).shape))
""",
    "multihead_attention": """
torch.manual_seed(0)
m = torch.nn.MultiheadAttention(6, 2)
print(m, [n for n, _ in m.named_parameters()], type(m.out_proj).__name__)
print(r(m.in_proj_weight), r(m.in_proj_bias), r(m.out_proj.weight), r(m.out_proj.bias))
x = torch.randn(4, 3, 6, requires_grad=True)
o, w = m(x, x, x)
print(tuple(o.shape), tuple(w.shape), r(o), r(w))
chain(o)
chain(w)
(o.sum() + w.pow(2).sum()).backward()
print(r(x.grad), r(m.in_proj_weight.grad), r(m.out_proj.bias.grad))
o, w = m(x, x, x, need_weights=False)
print(w, r(o))
chain(o)
m.zero_grad()
o.sum().backward()
print(r(m.in_proj_weight.grad))
o, w = m(x, x, x, average_attn_weights=False)
print(tuple(w.shape), r(w))
mask = torch.triu(torch.ones(4, 4, dtype=torch.bool), 1)
kpm = torch.tensor([[False, False, True, False], [False] * 4, [True, False, False, False]])
for kw in [dict(attn_mask=mask), dict(key_padding_mask=kpm), dict(attn_mask=mask, key_padding_mask=kpm),
           dict(attn_mask=mask.float() * -1e9), dict(attn_mask=mask, need_weights=False),
           dict(key_padding_mask=kpm, need_weights=False), dict(attn_mask=mask, is_causal=True, need_weights=False),
           dict(attn_mask=torch.zeros(6, 4, 4)), dict(attn_mask=torch.zeros(6, 4, 4), need_weights=False)]:
    o, w = m(x, x, x, **kw)
    print(sorted(kw), r(o), r(w), type(o.grad_fn).__name__)
torch.manual_seed(1)
m = torch.nn.MultiheadAttention(4, 2, batch_first=True, kdim=3, vdim=5, bias=False)
print(m, [n for n, _ in m.named_parameters()])
q, k, v = torch.randn(2, 3, 4), torch.randn(2, 5, 3), torch.randn(2, 5, 5)
o, w = m(q, k, v)
print(r(o), r(w), type(o.grad_fn).__name__)
m = torch.nn.MultiheadAttention(4, 1, add_bias_kv=True, add_zero_attn=True)
print(r(m.bias_k), r(m.bias_v))
q = torch.randn(3, 4)
o, w = m(q, q, q)
print(tuple(o.shape), tuple(w.shape), r(o), r(w))
kv = torch.randn(5, 4)
o, w = m(q, kv, kv)
print(r(o), r(w))
chain(o)
m = torch.nn.MultiheadAttention(4, 2, dropout=0.5, batch_first=True)
torch.manual_seed(3)
q = torch.randn(2, 3, 4)
o, w = m(q, q, q)
print(r(o), r(w))
print(r(m(q, q, q, need_weights=False)[0]))
m.eval()
o, w = m(q, q, q)
print(r(o), r(w))
with torch.no_grad():
    o, w = m(q, q, q)
    print(r(o), r(w), o.grad_fn)
for f in [lambda: torch.nn.MultiheadAttention(5, 2), lambda: torch.nn.MultiheadAttention(0, 2),
          lambda: m(torch.randn(2, 3, 4), torch.randn(2, 4), torch.randn(2, 4)),
          lambda: m(torch.randn(2, 3, 4), torch.randn(2, 3, 4), torch.randn(2, 3, 4), attn_mask=torch.zeros(2, 2)),
          lambda: m(torch.randn(2, 3, 4), torch.randn(2, 3, 4), torch.randn(2, 3, 4), key_padding_mask=torch.zeros(2, 2, dtype=torch.bool)),
          lambda: m(torch.randn(2, 3, 4), torch.randn(2, 3, 4), torch.randn(2, 3, 4), key_padding_mask=torch.zeros(2, 3, dtype=torch.int64)),
          lambda: m(torch.randn(2, 3, 5), torch.randn(2, 3, 5), torch.randn(2, 3, 5)),
          lambda: m(torch.randn(2, 3, 4), torch.randn(2, 3, 4), torch.randn(2, 3, 4), is_causal=True)]:
    attempt(f)
""",
    "scaled_dot_product_attention": """
torch.manual_seed(5)
for shape in [(2, 3, 4), (1, 2, 3, 4), (2, 2, 5, 3)]:
    q, k, v = (torch.randn(*shape, requires_grad=True) for _ in range(3))
    for kw in [dict(), dict(is_causal=True), dict(attn_mask=torch.rand(shape[-2], shape[-2]) > 0.3),
               dict(attn_mask=torch.randn(shape[-2], shape[-2])), dict(scale=0.3), dict(scale=-0.5)]:
        o = F.scaled_dot_product_attention(q, k, v, **kw)
        print(shape, sorted(kw), type(o.grad_fn).__name__, saved(o.grad_fn), o.stride(), r(o))
        gq, gk, gv = torch.autograd.grad((o * o).sum(), (q, k, v))
        print(r(gq), r(gk), r(gv))
q = torch.randn(1, 2, 3, 4).transpose(1, 2).requires_grad_()
o = F.scaled_dot_product_attention(q, q, q)
print(o.stride(), r(o))
chain(o)
torch.manual_seed(2)
o = F.scaled_dot_product_attention(q, q, q, dropout_p=0.4)
print(r(o))
chain(o)
q = torch.rand(1, 1, 2, 3, requires_grad=True)
m2 = torch.tensor([[True, True], [False, False]])
o = F.scaled_dot_product_attention(q, q, q, attn_mask=m2)
o.sum().backward()
print(o, q.grad)
g, = torch.autograd.grad((F.scaled_dot_product_attention(q, q * 2, q) ** 2).sum(), q, create_graph=True)
attempt(lambda: g.sum().backward())
for f in [lambda: F.scaled_dot_product_attention(q, q.double(), q),
          lambda: F.scaled_dot_product_attention(q[0, 0, 0], q[0, 0, 0], q[0, 0, 0]),
          lambda: F.scaled_dot_product_attention(q, q, q, attn_mask=torch.ones(2, 2, dtype=torch.int64)),
          lambda: F.scaled_dot_product_attention(q[0], q[0], q[0], attn_mask=m2, is_causal=True),
          lambda: F.scaled_dot_product_attention(q, q, q, attn_mask=m2, is_causal=True)]:
    attempt(f)
""",
    "init": """
I = torch.nn.init
torch.manual_seed(4)
for shape in [(2, 2), (3, 5), (5, 3), (4, 2, 3), (20, 30), (1, 6)]:
    w = torch.empty(*shape)
    I.orthogonal_(w, gain=1.5)
    print(r(w))
w = torch.empty(4, 4, dtype=torch.float64)
I.orthogonal_(w)
print(r(w, 16))
for (mean, std, a, b) in [(0, 1, -2, 2), (0, 0.5, -2, 2), (0, 1, 1, 3), (2, 1, -1, 0.5), (0, 1, 0, 0.1),
                          (0, 0.02, -0.04, 0.04)]:
    for n in [(4,), (5, 7), (40,)]:
        w = torch.empty(*n)
        I.trunc_normal_(w, mean, std, a, b)
        print(r(w))
    print(torch.rand(1))
w = torch.empty(6, 5)
I.sparse_(w, 0.5)
print(r(w, 30))
w = torch.empty(4, 2, 3)
I.dirac_(w)
print(w)
w = torch.empty(4, 2, 3, 3)
I.dirac_(w, groups=2)
print(w.sum())
w = torch.empty(2, 3)
I.eye_(w)
print(w)
for f in [lambda: I.eye_(torch.empty(3)), lambda: I.dirac_(torch.empty(3, 3)), lambda: I.dirac_(torch.empty(3, 3, 3), 2),
          lambda: I.orthogonal_(torch.empty(3)), lambda: I.sparse_(torch.empty(3), 0.1),
          lambda: I.kaiming_uniform_(torch.empty(3, 3), mode="fan"), lambda: I.calculate_gain("leaky_relu", "x"),
          lambda: I.calculate_gain("foo"), lambda: I.xavier_uniform_(torch.empty(3))]:
    attempt(f)
print(I.kaiming_uniform_(torch.empty(0, 3)).shape, I._calculate_fan_in_and_fan_out(torch.empty(3, 4, 5)),
      I._calculate_correct_fan(torch.empty(3, 4, 5), "FAN_OUT"), I.calculate_gain("leaky_relu", 2))
x = torch.ones(3, 3, requires_grad=True)
I.orthogonal_(x)
I.trunc_normal_(x)
print(x.grad_fn, x.requires_grad)
torch.manual_seed(4)
w = torch.empty(2, 2)
I.kaiming_uniform_(w, a=5 ** 0.5)
I.trunc_normal_(w, std=0.5)
I.orthogonal_(w)
print(r(w @ w.t()))
""",
    "dropout_and_draws": """
torch.manual_seed(2)
x = torch.linspace(-1, 1, 12).reshape(2, 3, 2).requires_grad_()
y = F.alpha_dropout(x, 0.3, training=True)
print(y, y.grad_fn.name(), y.grad_fn.next_functions[0][0].name())
y.sum().backward()
print(x.grad)
print(F.alpha_dropout(x, 0.3))
print(F.feature_alpha_dropout(x, 0.4, training=True))
print(F.feature_alpha_dropout(x.double(), 0.4, training=True))
z = x.detach().clone(); F.alpha_dropout(z, 0.5, True, inplace=True); print(z)
z = x.detach().clone(); F.feature_alpha_dropout(z, 0.5, True, inplace=True); print(z)
z = x.clone(); w = F.alpha_dropout(z, 0.5, True, inplace=True); print(w is z, w.grad_fn.name())
print(F.alpha_dropout(x, 1.0, True), F.alpha_dropout(x, 0.0, True) is x, F.feature_alpha_dropout(x, 1.0, True))
m = torch.nn.AlphaDropout(0.2); print(m, tuple(m(x).shape))
m = torch.nn.FeatureAlphaDropout(0.2, inplace=True); print(m)
m.eval(); print(m(x) is x)
for f in [lambda: F.alpha_dropout(x, 1.5), lambda: F.feature_alpha_dropout(torch.ones(3), 0.5, True),
          lambda: torch.nn.AlphaDropout(-1)]:
    attempt(f)
print(F.feature_alpha_dropout(torch.ones(3), 0.5, False))
print(torch.alpha_dropout(x, 0.5, True), torch.feature_alpha_dropout(x, 0.5, True), torch.dropout(x, 0.5, True))
x = torch.full((3,), 0.5, requires_grad=True)
print(type(torch.bernoulli(x).grad_fn).__name__, type(torch.bernoulli(x, 0.3).grad_fn).__name__)
attempt(lambda: torch.bernoulli(x, 0.3).sum().backward())
y = x.clone(); print(type(y.bernoulli_(0.3).grad_fn).__name__)
p = torch.full((3,), 0.2, requires_grad=True)
y = x.clone(); z = y.bernoulli_(p); print(type(z.grad_fn).__name__, len(z.grad_fn.next_functions))
z.sum().backward(); print(x.grad, p.grad)
for dt in [torch.float32, torch.float64, torch.int64, torch.bool]:
    torch.manual_seed(0)
    print(torch.empty(20, dtype=dt).bernoulli_(0.3).tolist(), torch.rand(2))
torch.manual_seed(0); print(torch.empty(20).bernoulli_(torch.full((20,), 0.3)), torch.rand(1))
torch.manual_seed(0); print(torch.empty(20).bernoulli_(torch.full((20,), 0.3, dtype=torch.float64)), torch.rand(1))
torch.manual_seed(0); print(torch.bernoulli(torch.rand(4, 5).t()), torch.bernoulli(torch.rand(3), 0.5))
torch.manual_seed(3); print(torch.empty(2, 3).t().bernoulli_(0.5), torch.empty(3, 2).t().bernoulli_(torch.rand(3, 2).t()))
print(torch.bernoulli(torch.tensor([0.5, 0.5], dtype=torch.float64), generator=torch.Generator().manual_seed(1)))
for f in [lambda: torch.empty(3).bernoulli_(torch.rand(4)), lambda: torch.empty(3).bernoulli_(torch.rand(2, 3)),
          lambda: torch.empty(3).bernoulli_(1.5), lambda: torch.empty(3).bernoulli_(torch.tensor([0.1, 2, 0.3])),
          lambda: torch.bernoulli(torch.tensor([1, 0])), lambda: torch.bernoulli(torch.tensor([0.1, 0.3]), -0.5),
          lambda: torch.poisson(torch.tensor([-1.])), lambda: torch.poisson(torch.tensor([1]))]:
    attempt(f)
x = torch.tensor([1., 5., 12., 0., 30.5, 100., 3.3, 9.99, 10.0, 1000.], requires_grad=True)
torch.manual_seed(0); y = torch.poisson(x); print(y, torch.rand(1))
y.sum().backward(); print(x.grad)
for s in range(3):
    torch.manual_seed(s); print(torch.poisson(torch.rand(3, 4).t() * 30), torch.rand(1))
""",
}


def _run(module: types.ModuleType, code: str) -> str:
    return run_program(module, PRELUDE + code)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_torch(name: str) -> None:
    expected = _run(torch, PROGRAMS[name])
    actual = _run(engine, PROGRAMS[name])
    assert actual.splitlines() == expected.splitlines()


@pytest.mark.parametrize("case", [
    ("bilinear", dict(scale_factor=1.5)), ("bicubic", dict(size=(5, 2), align_corners=True)),
    ("nearest-exact", dict(scale_factor=0.6)), ("linear", dict(size=7, align_corners=False)),
])
def test_interpolate_gradcheck(case: tuple) -> None:
    mode, kw = case
    shape = (1, 2, 3) if mode == "linear" else (1, 2, 3, 4)
    x = engine.randn(*shape, dtype=engine.float64, requires_grad=True)
    fn = lambda t: engine.nn.functional.interpolate(t, mode=mode, **kw)  # noqa: E731
    assert engine.autograd.gradcheck(fn, (x,))
    assert engine.autograd.gradgradcheck(fn, (x,))


def test_conv_transpose_gradgradcheck() -> None:
    F = engine.nn.functional
    x = engine.randn(1, 2, 3, dtype=engine.float64, requires_grad=True)
    w = engine.randn(2, 3, 2, dtype=engine.float64)[:, :1].detach().requires_grad_()
    b = engine.randn(2, dtype=engine.float64, requires_grad=True)
    fn = lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2, dilation=2, output_padding=1, groups=2,  # noqa: E731
                                            padding=1)
    assert engine.autograd.gradcheck(fn, (x, w, b))
    assert engine.autograd.gradgradcheck(fn, (x, w, b))


def test_sdpa_gradcheck_both_paths() -> None:
    F = engine.nn.functional
    q, k, v = (engine.randn(1, 2, 3, 4, dtype=engine.float64, requires_grad=True) for _ in range(3))
    mask = engine.tensor([[True, False, True], [True, True, False], [False, False, False]])
    assert engine.autograd.gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, attn_mask=mask), (q, k, v))
    assert engine.autograd.gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a[0], b[0], c[0], is_causal=True),
                                     (q, k, v))
    assert engine.autograd.gradgradcheck(lambda a, b, c: F.scaled_dot_product_attention(a[0], b[0], c[0]), (q, k, v))
