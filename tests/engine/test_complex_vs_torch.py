"""Complex tensors: dtypes, creation, printing, ops with their nodes and Wirtinger-convention gradients,
run with torch and with the engine; the printed output (warnings included) must be the same."""

from __future__ import annotations

import pytest

from tests.engine.programs import TRY, assert_matches_torch

pytest.importorskip("torch")

SNIPPETS = {
    "dtypes": """
print(torch.complex64, torch.complex128, torch.cfloat, torch.cdouble, torch.cfloat is torch.complex64)
print(torch.complex64.is_complex, torch.float32.is_complex, torch.complex128.is_floating_point)
print(torch.complex64.itemsize, torch.complex128.itemsize)
z = torch.tensor([1 + 2j])
print(z.dtype, z.is_complex(), torch.is_complex(z), torch.is_complex(torch.ones(1)), z.is_floating_point())
print(torch.tensor(1j).element_size(), torch.tensor(1j, dtype=torch.complex128).element_size())
print(torch.tensor(3 + 4j).item(), type(torch.tensor(3 + 4j).item()).__name__)
print(torch.promote_types(torch.float64, torch.complex64), torch.promote_types(torch.int64, torch.complex64))
print(torch.result_type(torch.ones(2), 1j), torch.result_type(torch.ones(2, dtype=torch.float64), 1j))
""",
    "creation": TRY + """
t(lambda: torch.tensor(3 + 4j))
t(lambda: torch.tensor(3 + 4j, requires_grad=True))
t(lambda: torch.tensor([1 + 2j, 3 - 1j], requires_grad=True))
t(lambda: torch.tensor([1.25 + 2j, 3, 4j]))
t(lambda: torch.tensor([1 + 2j, 3], dtype=torch.complex128))
t(lambda: torch.tensor([1, 2], dtype=torch.cfloat))
t(lambda: torch.tensor(1 + 1j, dtype=torch.float32))
t(lambda: torch.tensor([1j, 2], dtype=torch.int64))
t(lambda: torch.tensor([], dtype=torch.cfloat))
t(lambda: torch.zeros(2, 3, dtype=torch.cfloat))
t(lambda: torch.ones(2, dtype=torch.cdouble))
t(lambda: torch.full((2,), 1j))
t(lambda: torch.tensor([1., 2.]).to(torch.cfloat))
t(lambda: torch.tensor([1., 2.], requires_grad=True).to(torch.cdouble))
t(lambda: torch.complex(torch.tensor([1., 2.]), torch.tensor([3., 4.])))
t(lambda: torch.complex(torch.tensor([1., 2.], dtype=torch.float64), torch.tensor([3., 4.], dtype=torch.float64)))
t(lambda: torch.complex(torch.tensor([1., 2.]), torch.tensor([3., 4.], dtype=torch.float64)))
t(lambda: torch.polar(torch.tensor([1., 2.]), torch.tensor([0.5, 1.])))
t(lambda: torch.view_as_real(torch.tensor([1 + 2j, 3 - 1j])))
t(lambda: torch.view_as_complex(torch.tensor([[1., 2.], [3., 4.]])))
t(lambda: torch.view_as_complex(torch.tensor([1., 2., 3.])))
t(lambda: torch.view_as_real(torch.tensor([1., 2.])))
torch.set_default_dtype(torch.float64)
t(lambda: (torch.tensor(1j), torch.tensor([1j]).dtype, torch.zeros(1, dtype=torch.cfloat)))
torch.set_default_dtype(torch.float32)
""",
    "random": """
for dt in (torch.cfloat, torch.cdouble):
    for n in (3, 16, 21):
        torch.manual_seed(0)
        print(torch.randn(n, dtype=dt))
        print(torch.rand(2, n, dtype=dt))
torch.manual_seed(3)
print(torch.randn(2, 2, dtype=torch.cfloat, requires_grad=True))
print(torch.randn(3))
""",
    "printing": TRY + """
t(lambda: torch.tensor(1.5 + 0j))
t(lambda: torch.tensor([1e-5 + 1j, 100 + 2j]))
t(lambda: torch.tensor([1 + 0j, 2 + 0j]))
t(lambda: torch.tensor([1.123456 + 1e8j]))
t(lambda: torch.tensor([[1.5 - 2j, 0.001 + 3j], [-7 + 0j, 12345.6789 - 0.5j]]))
t(lambda: torch.tensor([-0.0 - 0.0j, 0.0 + 0.0j, float('nan') + 1j, float('inf') - float('inf') * 1j]))
t(lambda: torch.tensor([1 + 2j] * 40))
t(lambda: torch.arange(2000.).reshape(2, 1000).to(torch.cfloat) * (1 - 0.5j))
t(lambda: torch.tensor([[1e-3 + 5e5j, 2 - 1e-6j]], dtype=torch.complex128))
t(lambda: torch.tensor([0.1 + 0.2j, -0.3 - 0.4j]) * 3)
torch.set_printoptions(precision=2)
t(lambda: torch.tensor([3.14159 + 2.71828j, -1 + 0.5j]))
torch.set_printoptions(sci_mode=True)
t(lambda: torch.tensor([3.14159 + 2.71828j]))
torch.set_printoptions(profile="default")
print(f"{torch.tensor(1 + 2j)}", str(torch.tensor([1j])))
""",
    "arithmetic": TRY + """
x = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
r = torch.tensor([1., 2.], requires_grad=True)
d = torch.tensor([1., 2.], dtype=torch.float64)
t(lambda: (x * 2, x + 1, x - 1j, x / 2, -x, x * x, 2 * x, 1j * x, 1 - x, 1j / x, x ** 2))
t(lambda: (x * r, r + x, r / x, x - r))
t(lambda: (r * 1j, r + (1 - 1j), d * 1j, d + x, torch.tensor([1, 2]) + 1j))
t(lambda: (d + torch.tensor(1j), (d + torch.tensor([1j, 2j])).dtype, (x + torch.tensor(1j, dtype=torch.complex128)).dtype))
t(lambda: (x.sum(), x.mean(), x.exp(), x.log(), x.sin(), x.cos(), x.abs(), x.angle(), x.sgn()))
t(lambda: (torch.mul(x, r), x.mul(2j), torch.add(x, r, alpha=2), x.sqrt(), x.reciprocal(), x.tanh()))
t(lambda: (x.real, x.imag, x.conj(), x.conj().is_conj(), x.is_conj(), x.conj().resolve_conj().is_conj()))
t(lambda: (r.real, r.conj() is r, torch.real(r) is r, r.is_conj(), r.angle()))
t(lambda: r.imag)
t(lambda: (x.norm(), torch.linalg.norm(x), torch.linalg.vector_norm(x, 1)))
t(lambda: (x.detach().numpy().dtype, x.tolist(), x[0], x[1].item()))
""",
    "wirtinger_backward": """
z = torch.tensor(3 + 4j, requires_grad=True)
z.abs().backward()
print(z.grad)
x = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
(x * x.conj()).real.sum().backward()
print(x.grad)
for name, f in [("mul", lambda v: (v * (2 - 1j)).abs().sum()),
                ("div", lambda v: (1 / v).abs().sum()),
                ("exp", lambda v: v.exp().real.sum()),
                ("log", lambda v: v.log().imag.sum()),
                ("sin", lambda v: v.sin().abs().sum()),
                ("cos", lambda v: v.cos().real.sum()),
                ("pow", lambda v: (v ** 3).abs().sum()),
                ("mean", lambda v: v.mean().abs()),
                ("angle", lambda v: v.angle().sum()),
                ("sqrt", lambda v: v.sqrt().imag.sum()),
                ("norm", lambda v: v.norm()),
                ("conj", lambda v: (v.conj() * (1 + 1j)).imag.sum()),
                ("sgn", lambda v: v.sgn().real.sum()),
                ("view_as_real", lambda v: (torch.view_as_real(v) ** 2).sum())]:
    v = torch.tensor([1 + 2j, -0.5 + 0.25j], requires_grad=True)
    loss = f(v)
    loss.backward()
    print(name, loss, v.grad)
""",
    "real_through_complex": """
r = torch.tensor([1., 2.], requires_grad=True)
y = r * (1 + 1j)
print(y)
y.abs().sum().backward()
print(r.grad, r.grad.dtype)
w = torch.tensor([1 + 1j, 2j], requires_grad=True)
r.grad = None
(w * r).abs().sum().backward()
print(r.grad, w.grad)
a = torch.tensor([0.5, 1.5], requires_grad=True)
b = torch.tensor([2., -1.], requires_grad=True)
z = torch.complex(a, b)
print(z)
(z * z).imag.sum().backward()
print(a.grad, b.grad)
m = torch.tensor([1., 2.], requires_grad=True)
th = torch.tensor([0.3, -1.2], requires_grad=True)
p = torch.polar(m, th)
print(p)
(p * (1 - 2j)).real.sum().backward()
print(m.grad, th.grad)
q = torch.tensor([1., 2.], requires_grad=True)
c = q.to(torch.cfloat)
print(c)
(c * 1j).imag.sum().backward()
print(q.grad)
v = torch.tensor([[1., 2.], [3., -1.]], requires_grad=True)
u = torch.view_as_complex(v)
print(u)
(u * u).real.sum().backward()
print(v.grad)
""",
    "matmul": """
A = torch.tensor([[1 + 1j, 2 - 1j], [0.5j, 3]], requires_grad=True)
B = torch.tensor([[2 - 1j, 1j], [1, -1 + 0.5j]], requires_grad=True)
C = A @ B
print(C)
C.abs().sum().backward()
print(A.grad)
print(B.grad)
A.grad = B.grad = None
D = A.mm(B)
print(D)
torch.view_as_real(D).pow(2).sum().backward()
print(A.grad, B.grad)
v = torch.tensor([1j, 2], requires_grad=True)
print(A.detach() @ v)
""",
    "complex_output_errors": TRY + """
z = torch.tensor(1 + 1j, requires_grad=True)
t(lambda: (z * z).backward())
t(lambda: torch.tensor([1j, 2j], requires_grad=True).sum().backward())
t(lambda: (torch.tensor([1j, 2j], requires_grad=True) * 2).backward())
t(lambda: (z * z).backward(torch.tensor(1 + 0j)))
print(z.grad)
t(lambda: torch.view_as_real(z.conj()))
""",
    "autograd_grad": """
x = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
r = torch.tensor([0.5, 2.], requires_grad=True)
loss = (x * r).abs().sum()
print(torch.autograd.grad(loss, (x, r)))
out = x * x
print(torch.autograd.grad(out, x, torch.ones_like(out), retain_graph=True))
print(torch.autograd.grad(out.sum(), x, torch.tensor(1 - 1j)))
g, = torch.autograd.grad((x * x).abs().sum(), x, create_graph=True)
print(g)
h, = torch.autograd.grad(g.abs().sum(), x)
print(h)
""",
    "graph": """
x = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
for y in (x.real, x.imag, x.conj(), x.abs(), x.angle(), x * 2, x.exp(), torch.view_as_real(x), x.sgn(), x.sum(),
          x.conj_physical(), torch.complex(x.real, x.imag), x.norm()):
    print(y.grad_fn.name(), [type(n).__name__ if n is not None else None for n, _ in y.grad_fn.next_functions])
y = x * x
print(y.grad_fn._saved_self.dtype, y.grad_fn._saved_other.dtype)
""",
}


@pytest.mark.parametrize("name", SNIPPETS)
def test_complex_matches_torch(name: str) -> None:
    assert_matches_torch(SNIPPETS[name])
