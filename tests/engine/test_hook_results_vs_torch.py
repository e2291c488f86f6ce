"""What node hooks, pre-hooks, custom backward functions and backward's gradients may hand back: PyTorch's checks
(a tuple of as many values, each of the type and size of the gradient it replaces), with its messages."""

from __future__ import annotations

import pytest

from tests.engine.programs import assert_matches_torch

pytest.importorskip("torch")

_TRY = """
def attempt(label, make):
    try:
        make()
        print(label, 'ok')
    except Exception as e:
        print(label, type(e).__name__, e)
"""

PROGRAMS = {
    "pre_hooks": _TRY + """
def run(hook, dtype=torch.float32, complex_input=False):
    x = torch.randn(3, 2, requires_grad=True) if complex_input else torch.randn(3, dtype=dtype, requires_grad=True)
    base = torch.view_as_complex(x) if complex_input else x
    y = base * 2
    y.grad_fn.register_prehook(hook)
    (y.abs() if complex_input else y).sum().backward()
    print(x.grad)
attempt('type', lambda: run(lambda go: (torch.ones(3, dtype=torch.float64),)))
attempt('complex to real', lambda: run(lambda go: (torch.ones(3, dtype=torch.float64),), complex_input=True))
attempt('size', lambda: run(lambda go: (torch.ones(1),)))
attempt('count', lambda: run(lambda go: (torch.ones(3), torch.ones(3))))
attempt('not a tensor', lambda: run(lambda go: ([1.0, 2.0, 3.0],)))
attempt('a list', lambda: run(lambda go: [torch.ones(3)]))
attempt('a tensor', lambda: run(lambda go: go[0]))
attempt('half', lambda: run(lambda go: (torch.ones(3),), dtype=torch.float16))
attempt('same', lambda: run(lambda go: (go[0] * 10,)))
""",
    "post_hooks": _TRY + """
def run(hook, complex_input=False):
    x = torch.randn(3, 2, requires_grad=True) if complex_input else torch.randn(3, requires_grad=True)
    base = torch.view_as_complex(x) if complex_input else x
    y = base.exp()
    z = y * 2
    z.grad_fn.register_hook(hook)
    (z.abs() if complex_input else z).sum().backward()
    print(x.grad)
attempt('one of two', lambda: run(lambda gi, go: (torch.ones(3),)))
attempt('int dtype', lambda: run(lambda gi, go: (torch.ones(3, dtype=torch.int64), None)))
attempt('real for complex', lambda: run(lambda gi, go: (torch.ones(3), None), complex_input=True))
attempt('bigger', lambda: run(lambda gi, go: (torch.ones(5), None)))
attempt('for a None', lambda: run(lambda gi, go: (gi[0], torch.ones(3))))
attempt('a list', lambda: run(lambda gi, go: [gi[0], None]))
attempt('same', lambda: run(lambda gi, go: (gi[0] * 3, None)))
m = torch.nn.Linear(2, 2)
m.register_full_backward_hook(lambda mod, gi, go: (torch.ones(5),))
attempt('module hook size', lambda: m(torch.ones(1, 2, requires_grad=True)).sum().backward())
m = torch.nn.Linear(2, 2)
m.register_full_backward_pre_hook(lambda mod, go: (torch.ones(5),))
attempt('module pre-hook size', lambda: m(torch.ones(1, 2, requires_grad=True)).sum().backward())
""",
    "custom_backward_and_seeds": _TRY + """
class Real(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a.clone()
    @staticmethod
    def backward(ctx, g):
        return torch.ones(3, dtype=torch.float64)
x = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.25]], requires_grad=True)
Real.apply(torch.view_as_complex(x)).abs().sum().backward()
print(x.grad)
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
Real.apply(w.exp()).sum().backward()
print(w.grad, w.grad.dtype)
def seed():
    c = torch.view_as_complex(torch.randn(3, 2, requires_grad=True))
    c.backward(torch.ones(3, dtype=torch.float64))
attempt('real seed', seed)
def grad_outputs():
    x = torch.randn(3, 2, requires_grad=True)
    torch.autograd.grad(torch.view_as_complex(x), x, grad_outputs=torch.ones(3))
attempt('real grad_outputs', grad_outputs)
""",
    "hooks_taking_gradients_away": """
x = torch.tensor([1., 2.], requires_grad=True)
y = (x * 2).sum()
y.grad_fn.register_prehook(lambda g: (None,))
y.backward()
print('node pre-hook', x.grad)
z = x * 3
z.grad_fn.register_hook(lambda gi, go: (None, None))
z.sum().backward()
print('node hook', x.grad)
m = x * 2
m.grad_fn.next_functions[0][0].register_prehook(lambda g: (None,))
m.sum().backward()
print('accumulator pre-hook', x.grad)
w = torch.tensor([1., 2.], requires_grad=True)
class Twice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2
    @staticmethod
    def backward(ctx, g):
        print('custom backward gets', g)
        return g * 2
v = Twice.apply(w)
v.grad_fn.register_prehook(lambda g: (None,))
v.sum().backward()
print('custom', w.grad)
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_hook_results_match_torch(name):
    assert_matches_torch("torch.manual_seed(0)\n" + PROGRAMS[name])


def test_the_real_view_of_a_real_array_stays_inside_it():
    # view_as_complex's backward reads its gradient as (real, imaginary) pairs: a real array (a gradient of
    # the wrong dtype) is widened first, never viewed past its last element
    import numpy as np

    from engine.complex_ops import _view_as_real

    for dtype in (np.float64, np.float32, np.float16, np.int64):
        v = _view_as_real(np.arange(3, dtype=dtype))
        assert v.tolist() == [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]], dtype
    assert _view_as_real(np.array([1 + 2j])).tolist() == [[1.0, 2.0]]
