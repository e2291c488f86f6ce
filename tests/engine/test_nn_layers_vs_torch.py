"""Padding modes, InstanceNorm, MaxUnpool, PixelShuffle, fold/unfold, gumbel_softmax, BatchNorm rounding and
TransformerEncoderLayer: programs run with torch and with the engine, printed output compared."""

from __future__ import annotations

import contextlib
import io
import re
import types
import warnings

import pytest

import engine
import engine.nn.functional  # noqa: F401

torch = pytest.importorskip("torch")

PRELUDE = """
F = torch.nn.functional
def attempt(f):
    try:
        out = f()
        print(tuple(out.shape), type(out.grad_fn).__name__ if out.grad_fn is not None else None,
              out.flatten().tolist()[:12])
    except Exception as e:
        print(type(e).__name__, e)
def chain(t, depth=0, seen=None):
    seen = set() if seen is None else seen
    fn = t.grad_fn if hasattr(t, 'grad_fn') else t
    if fn is None or id(fn) in seen:
        return
    seen.add(id(fn))
    print('  ' * depth + type(fn).__name__, sorted(a for a in dir(fn) if a.startswith('_saved')))
    for n, _ in fn.next_functions:
        if n is not None:
            chain(n, depth + 1, seen)
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
}


def _run(module: types.ModuleType, code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(PRELUDE + code, {"torch": module})  # noqa: S102 - test programs written above
    return re.sub(r" at 0x[0-9a-f]+", " at 0x", out.getvalue())


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_torch(name: str) -> None:
    expected = _run(torch, PROGRAMS[name])
    actual = _run(engine, PROGRAMS[name])
    assert actual.splitlines() == expected.splitlines()
