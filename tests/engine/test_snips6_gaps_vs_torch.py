"""Gaps found by the sixth snippet sweep: float rounding of pow(tensor, number) (forward and
backward); small programs run with torch and with the engine print the same (bit for bit)."""

from __future__ import annotations

import pytest

from tests.engine.programs import RUN, assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = RUN

SNIPPETS = {
    "first_grad_takes_a_dense_leafs_layout": """
for make in ["torch.arange(6.).reshape(2, 3).t()", "torch.arange(24.).reshape(2, 3, 4).permute(2, 0, 1)",
             "torch.arange(6.).reshape(2, 3)[:, ::2]", "torch.ones(3, 1).expand(3, 4)",
             "torch.arange(12.).reshape(3, 4).t()[1:]", "torch.arange(6.).reshape(2, 3)"]:
    x = eval(make).detach().requires_grad_()
    (x * 2).sum().backward()
    first = x.grad.stride()
    x.grad = None
    x.exp().sum().backward()
    (x * 3).sum().backward()
    run(make, lambda: (x.stride(), first, x.grad.stride(), x.grad.is_contiguous(), x.grad.tolist()))
""",
    "pow_scalar_exponent_rounding": """
torch.manual_seed(0)
x = torch.rand(7) * 6 - 3
for e in [2, 3, 4, 5, -1, -2, -3, -0.5, 1.5, 2.5, 0.3, 7, 0, 1, 3.0, -2.0, 4.0]:
    run(str(e), lambda: (x.abs() ** e).tolist())
    if e in (2, 3, -2, -0.5, -1):  # float64's other powers: NumPy's pow differs from libm's by an ulp at times
        run(str(e) + " f64", lambda: (x.double().abs() ** e).tolist())
xs = torch.tensor(2.301941394805908, requires_grad=True)
for e in [3, 4, 5, -2, 2.5, -0.5]:
    y = xs ** e
    g, = torch.autograd.grad(y, xs, create_graph=True)
    h, = torch.autograd.grad(g, xs)
    run("grads " + str(e), lambda: (y.item(), g.item(), h.item(), g.grad_fn.name()))
w = torch.tensor([1.3, -0.7, 2.3019414], requires_grad=True)
(w ** 4).sum().backward()
run("plain backward", lambda: w.grad.tolist())
run("ints", lambda: (torch.tensor([2, 3]) ** 3, torch.tensor([True]) ** 2, torch.tensor([2]) ** 2.5))
""",
    "newton_quartic_float32": """
x = torch.tensor(4.0, requires_grad=True)
for it in range(6):
    y = x ** 4 - 3 * x ** 3 + 2
    g, = torch.autograd.grad(y, x, create_graph=True)
    h, = torch.autograd.grad(g, x)
    with torch.no_grad():
        x -= g / h
    print(it, x.item(), y.item(), g.item(), h.item())
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + SNIPPETS[name], show_warnings=False)
