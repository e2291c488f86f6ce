"""Padding modes, InstanceNorm, MaxUnpool, PixelShuffle, fold/unfold, gumbel_softmax, BatchNorm rounding and
TransformerEncoderLayer: programs run with torch and with the engine, printed output compared."""

from __future__ import annotations

import types

import pytest

import engine
import engine.nn.functional  # noqa: F401
from tests.engine.programs import CHAIN, run_program

torch = pytest.importorskip("torch")

PRELUDE = CHAIN + """
F = torch.nn.functional
def attempt(f):
    try:
        out = f()
        print(tuple(out.shape), type(out.grad_fn).__name__ if out.grad_fn is not None else None,
              out.flatten().tolist()[:12])
    except Exception as e:
        print(type(e).__name__, e)
"""

PROGRAMS = {
    "pad_modes_values_and_errors": """
x1 = torch.arange(4.0).reshape(1, 4)
x3 = torch.arange(12.0).reshape(1, 3, 4)
x4 = torch.arange(24.0).reshape(1, 2, 3, 4)
x5 = torch.arange(48.0).reshape(1, 2, 2, 3, 4)
for mode in ["reflect", "replicate", "circular"]:
    for x, p in [(x1, (1, 2)), (x3, (1, 2)), (x3, (3, 3)), (x3, (4, 0)), (x3, (-1, 2)), (x3, (-3, -2)),
                 (x3, (1, 1, 2, 2)), (x4, (1, 1, 2, 2)), (x4, (1, 2, 3, 1)), (x4, (0, 0, 3, 0)), (x4, (1, 1, 1, 1, 1, 1)),
                 (x5, (1, 1, 1, 1, 1, 1)), (x5, (1, 2)), (torch.arange(4.0), (1, 1)), (x4, (1, 1)), (x5, (1, 1, 1, 1)),
                 (x1, (1, 1, 1, 1)), (x4, (2, 2, 2, 2, 2, 2)), (torch.zeros(0, 3, 4), (1, 1)),
                 (torch.zeros(1, 0, 4), (1, 1)), (x3, (1,)), (x3, (1, 1, 1, 1, 1, 1, 1, 1)), (x5, (0, 0, 0, 0, -1, -1))]:
        print(mode, tuple(x.shape), p, end=" ")
        attempt(lambda: F.pad(x, p, mode=mode))
attempt(lambda: F.pad(x3, (1, 1), mode="reflect", value=0.0))
attempt(lambda: F.pad(x3, (1, 1), mode="reflect", value=1.0))
attempt(lambda: F.pad(x3, (1, 1), mode="bad"))
attempt(lambda: F.pad(x3.long(), (1, 1), mode="replicate"))
attempt(lambda: F.pad(x3.long(), (1, 1), mode="circular"))
attempt(lambda: F.pad(x3.double(), (1, 1), mode="reflect"))
attempt(lambda: F.pad(x3.bool(), (1, 1), mode="reflect"))
attempt(lambda: F.pad(x3.bool(), (1, 1), mode="replicate"))
""",
    "pad_modes_grads": """
torch.manual_seed(0)
for mode in ["reflect", "replicate", "circular"]:
    for shape, p in [((2, 3, 5), (2, 1)), ((3, 5), (-1, 3)), ((1, 2, 4, 3), (1, 2, 2, 0)), ((2, 3, 4), (1, 1, 2, 1)),
                     ((1, 2, 3, 3, 4), (1, 2, 1, 0, 2, 1))]:
        x = torch.randn(*shape, requires_grad=True)
        y = F.pad(x, p, mode=mode)
        w = torch.randn(*y.shape)
        print(mode, shape, p, type(y.grad_fn).__name__)
        if mode != "circular":
            print(y.grad_fn._saved_padding, y.grad_fn._saved_self.shape)
        g, = torch.autograd.grad((y * w).sum(), x, create_graph=True)
        print(y.flatten()[:10], g.flatten()[:10])
        chain(g)
        if g.requires_grad:
            print(torch.autograd.grad((g * g).sum(), x))
        else:
            chain(y)
""",
    "pad_modules_and_conv_padding_mode": """
torch.manual_seed(1)
n = torch.nn
print(n.ReflectionPad1d(2), n.ReflectionPad2d((1, 2, 3, 4)), n.ReplicationPad3d(1), n.CircularPad2d(1), n.ZeroPad3d(1),
      n.ConstantPad3d(1, 2.0), n.ReflectionPad1d([1, 2]).padding, n.ReplicationPad1d((1, 2)), n.CircularPad1d(2))
attempt(lambda: n.CircularPad1d(1)(torch.ones(4)))
attempt(lambda: n.CircularPad3d(1)(torch.arange(8.).reshape(1, 2, 2, 2)))
print(n.ReflectionPad1d(2)(torch.arange(4.0).reshape(1, 1, 4)), n.ReplicationPad1d((1, 2))(torch.arange(3.0).reshape(1, 1, 3)))
print(n.ReplicationPad2d((1, 0, 0, 1))(torch.arange(4.0).reshape(1, 2, 2)), n.ZeroPad3d((1, 0, 0, 1, 1, 0))(torch.ones(1, 1, 1, 1)))
x = torch.randn(1, 2, 4, 5, requires_grad=True)
for pm in ['zeros', 'reflect', 'replicate', 'circular']:
    m = n.Conv2d(2, 3, 3, padding=(1, 2), padding_mode=pm)
    y = m(x)
    print(m, m._reversed_padding_repeated_twice, y.sum(), y.grad_fn, y.grad_fn.next_functions[0][0])
    y.sum().backward()
    print(x.grad.sum(), m.weight.grad.flatten()[:4])
    x.grad = None
    m1 = n.Conv1d(2, 3, 2, padding=1, padding_mode=pm, stride=2)
    print(m1, m1(x[:, :, 0]).sum(), m1(x[:, :, 0]).shape)
for pm in ['reflect', 'circular']:
    attempt(lambda: n.Conv2d(1, 1, 3, padding='same', padding_mode=pm)(torch.ones(1, 1, 4, 4)).round(decimals=4))
    attempt(lambda: n.Conv2d(1, 1, (4, 3), padding='same', padding_mode=pm, bias=False)(torch.arange(16.).reshape(1, 1, 4, 4)).round(decimals=4))
    print(n.Conv1d(1, 1, 3, padding='valid', padding_mode=pm)._reversed_padding_repeated_twice)
    print(n.Conv2d(1, 1, 3, padding=1, padding_mode=pm)._reversed_padding_repeated_twice)
""",
    "instance_norm": """
torch.manual_seed(0)
x = torch.randn(2, 3, 5, requires_grad=True)
m = torch.nn.InstanceNorm1d(3, affine=True, track_running_stats=True)
print(m, list(m.state_dict()), m.weight, m.num_batches_tracked)
y = m(x)
print(y.round(decimals=4))
chain(y)
(y * torch.arange(30.).reshape(2, 3, 5)).sum().backward()
print(x.grad.round(decimals=4), m.weight.grad.round(decimals=4), m.bias.grad, m.running_mean, m.running_var,
      m.num_batches_tracked)
m.eval()
print(m(x).round(decimals=4))
m2 = torch.nn.InstanceNorm2d(2)
x2 = torch.randn(2, 2, 3, 3, requires_grad=True)
print(m2, m2(x2).round(decimals=4), m2(x2[0]).shape, list(m2.state_dict()), m2.running_mean)
attempt(lambda: m2(torch.randn(2, 2)))
attempt(lambda: torch.nn.InstanceNorm1d(3, affine=True)(torch.randn(2, 4, 5)))
attempt(lambda: torch.nn.InstanceNorm1d(3)(torch.randn(2, 3, 1)))
attempt(lambda: F.instance_norm(torch.randn(2, 3, 4), use_input_stats=False))
print(F.instance_norm(x, weight=torch.ones(3), bias=torch.zeros(3), eps=0.1).round(decimals=4))
print(torch.nn.InstanceNorm3d(2, momentum=None, bias=False, affine=True))
""",
    "unpool_pixel_shuffle_fold": """
torch.manual_seed(0)
x = torch.randn(2, 3, 4, 6, requires_grad=True)
o, i = F.max_pool2d(x, 2, return_indices=True)
u = torch.nn.MaxUnpool2d(2)(o, i)
print(u.flatten()[:8], type(u.grad_fn).__name__, u.grad_fn._saved_indices.shape)
g, = torch.autograd.grad((u * u).sum(), x, create_graph=True)
chain(g)
print(g.flatten()[:8], torch.autograd.grad(g.sum(), x)[0].flatten()[:8])
print(F.max_unpool2d(o, i, 2, output_size=(5, 7)).shape, F.max_unpool2d(o, i, 2, output_size=(2, 3, 5, 6)).shape)
attempt(lambda: F.max_unpool2d(o, i, 2, output_size=(6, 6)))
attempt(lambda: F.max_unpool2d(o, i, 2, output_size=(6,)))
attempt(lambda: F.max_unpool2d(torch.ones(1, 1, 2, 2), torch.full((1, 1, 2, 2), 20), 2))
x1 = torch.tensor([[[1.0, 5.0, 2.0, 4.0, 3.0, 0.0]]], requires_grad=True)
o1, i1 = F.max_pool1d(x1, 2, return_indices=True)
u1 = torch.nn.MaxUnpool1d(2)(o1, i1)
print(u1, torch.nn.MaxUnpool1d(3, stride=2, padding=1), torch.nn.MaxUnpool2d(2))
chain(u1)
p = torch.nn.PixelShuffle(2)(x[:, :, :2].reshape(2, 12, 1, 2) if False else torch.arange(32.).reshape(1, 8, 2, 2).requires_grad_())
print(p, torch.nn.PixelShuffle(2), torch.nn.PixelUnshuffle(2))
chain(p)
q = F.pixel_unshuffle(x, 2)
print(q.shape, q.flatten()[:6], type(q.grad_fn).__name__, q.grad_fn._saved_downscale_factor)
print(torch.autograd.grad((q * q).sum(), x, create_graph=True)[0].grad_fn)
attempt(lambda: F.pixel_shuffle(torch.ones(1, 3, 2, 2), 2))
attempt(lambda: F.pixel_shuffle(torch.ones(3, 2), 2))
attempt(lambda: F.pixel_unshuffle(torch.ones(1, 1, 3, 4), 2))
attempt(lambda: F.pixel_unshuffle(torch.ones(1, 1, 4, 3), 2))
attempt(lambda: F.pixel_shuffle(torch.ones(4, 2, 2), 2))
c = F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
print(c.shape, c.flatten()[:8], type(c.grad_fn).__name__,
      sorted((a, getattr(c.grad_fn, a)) for a in dir(c.grad_fn) if a.startswith('_saved')))
r = F.fold(c, (4, 6), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
print(r.flatten()[:8], type(r.grad_fn).__name__)
g, = torch.autograd.grad((r * r).sum(), x, create_graph=True)
chain(g)
print(g.flatten()[:8])
print(torch.nn.Unfold(2)(torch.arange(18.).reshape(2, 3, 3)), torch.nn.Unfold(2), torch.nn.Fold((3, 3), 2, dilation=2))
print(torch.nn.Fold(3, 2)(torch.arange(16.).reshape(4, 4)))
attempt(lambda: F.unfold(torch.ones(1, 1, 2, 2), 3))
attempt(lambda: F.fold(torch.ones(1, 4, 5), (3, 3), 2))
attempt(lambda: F.fold(torch.ones(1, 3, 4), (3, 3), 2))
""",
    "gumbel_softmax_and_lp_pool": """
torch.manual_seed(0)
logits = torch.randn(3, 5, requires_grad=True)
for kw in [dict(), dict(tau=0.3), dict(hard=True), dict(tau=2.0, hard=True, dim=0)]:
    y = F.gumbel_softmax(logits, **kw)
    print(kw, y, y.sum().round(decimals=4))
    print(torch.autograd.grad((y * torch.arange(15.).reshape(3, 5)).sum(), logits)[0].round(decimals=3))
print(torch.rand(2))
x = torch.tensor([[[1.0, 5.0, 2.0, 4.0, 3.0]]], requires_grad=True)
y = F.lp_pool1d(x, 2, 2)
print(y, torch.nn.LPPool1d(3, 2, stride=1)(x), torch.nn.LPPool1d(2, 3))
chain(y)
y.sum().backward()
print(x.grad)
x2 = torch.arange(16.).reshape(1, 1, 4, 4).requires_grad_()
print(F.lp_pool2d(x2, 2, 2), torch.nn.LPPool2d(1, (2, 1), stride=2)(x2), torch.nn.LPPool2d(2, 2))
""",
    "batch_norm_float32_rounding": """
bn = torch.nn.BatchNorm1d(2)
x = torch.tensor([[1.0, 2.0], [3.0, 6.0], [5.0, 1.0]], requires_grad=True)
y = bn(x)
print(y)
print(torch.nn.BatchNorm1d(1)(torch.tensor([[1.0], [3.0], [5.0]])))
print(F.batch_norm(torch.arange(12.).reshape(2, 3, 2), None, None, training=True).tolist())
(y * torch.tensor([[1.0, 0.0], [2.0, 1.0], [0.0, 3.0]])).sum().backward()
print(x.grad, bn.weight.grad, bn.bias.grad, bn.running_mean, bn.running_var)
bn.eval()
print(bn(x).tolist())
torch.manual_seed(0)
x = torch.randn(2, 3, 4, 4) * 3 + 1
w, b = torch.randn(3), torch.randn(3)
print(F.batch_norm(x, None, None, w, b, training=True).flatten().tolist()[:24])
print(F.batch_norm(x, torch.randn(3), torch.rand(3) + 0.5, w, b).flatten().tolist()[:24])
""",
}


def _run(module: types.ModuleType, code: str) -> str:
    return run_program(module, PRELUDE + code)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_torch(name: str) -> None:
    expected = _run(torch, PROGRAMS[name])
    actual = _run(engine, PROGRAMS[name])
    assert actual.splitlines() == expected.splitlines()
