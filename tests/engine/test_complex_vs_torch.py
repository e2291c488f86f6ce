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
    "unsupported_ops": TRY + """
x = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
for f in (lambda: x.relu(), lambda: x.clamp(0, 1), lambda: x.clamp_min(0), lambda: x.max(), lambda: x.min(),
          lambda: x.amax(), lambda: torch.maximum(x, x), lambda: torch.minimum(x, x), lambda: x.sort(),
          lambda: x.topk(1), lambda: x.argmax(), lambda: x.argmin(), lambda: x.floor(), lambda: x.ceil(),
          lambda: x.trunc(), lambda: x.round(), lambda: x.sign(), lambda: x % 2, lambda: x.softmax(0),
          lambda: x.log_softmax(0), lambda: torch.atan2(x, x), lambda: x.erf(), lambda: x.cummax(0),
          lambda: x.median(), lambda: torch.nn.functional.hardtanh(x), lambda: torch.nn.functional.mse_loss(x, x),
          lambda: x < 1, lambda: x > x, lambda: x <= 1j, lambda: x >= 0, lambda: torch.ones(2) < 1j,
          lambda: x == 1j, lambda: x != x, lambda: x.isnan(), lambda: x.isfinite()):
    t(f)
""",
    "statistics_and_products": """
x = torch.tensor([1 + 2j, 3 - 1j, 0.5j], requires_grad=True)
print(x.var(), x.std(), x.var(correction=0))
x.std().backward()
print(x.grad)
x.grad = None
v = torch.vdot(x, x * (2 - 1j))
print(v, torch.vdot(x, x))
v.real.backward()
print(x.grad)
""",
    "values_full_precision": """
torch.set_printoptions(precision=8)
x = torch.tensor([1 + 2j, -0.3 + 0.7j, 2.5 - 1.5j, 0j], requires_grad=True)
print(x.angle(), x.sgn(), x.abs(), 1 / x, x.reciprocal(), x / (1 + 3j))
x.abs().sum().backward()
print(x.grad)
torch.set_printoptions(profile="default")  # print options are process-wide: leave them as found
""",
    "dtype_helpers": TRY + """
for d in (torch.float32, torch.float64, torch.complex64, torch.complex128, torch.int64):
    t(lambda: (d.to_real(), d.to_complex()))
t(lambda: torch.finfo(torch.complex64))
t(lambda: torch.finfo(torch.cdouble).eps)
z = torch.tensor([1 + 2j], requires_grad=True)
t(lambda: z.float())
t(lambda: z.to(torch.float64))
t(lambda: z.real.double())
t(lambda: torch.tensor([1 + 2j]).long())
""",
    "gradcheck": """
z = torch.tensor([1 + 2j, 3 - 1j], dtype=torch.cdouble, requires_grad=True)
r = torch.tensor([0.5, -1.5], dtype=torch.double, requires_grad=True)
for f in (lambda z: (z * z).abs(), lambda z: z * z, lambda z: z.exp(), lambda z: z.conj(), lambda z: z.angle(),
          lambda z: 1 / z, lambda z: z.sgn(), lambda z: z.real * z.imag, lambda z: z.norm(), lambda z: z.log(),
          lambda z: z ** 3, lambda z: z.sin(), lambda z: z.sqrt(), lambda z: torch.vdot(z, z * 2j),
          lambda z: z.var(), lambda z: z.reshape(1, 2) @ z.reshape(2, 1) * 1j, lambda z: torch.view_as_real(z)):
    print(torch.autograd.gradcheck(f, (z,)), torch.autograd.gradgradcheck(f, (z,)))
print(torch.autograd.gradcheck(lambda z, r: z * r, (z, r)))
print(torch.autograd.gradcheck(lambda r: torch.polar(r.abs() + 1, r), (r,)))
""",
}


@pytest.mark.parametrize("name", SNIPPETS)
def test_complex_matches_torch(name: str) -> None:
    assert_matches_torch(SNIPPETS[name])
