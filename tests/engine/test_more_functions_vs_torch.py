"""Bitwise ops, fmod/remainder with tensor divisors and less common torch functions: small programs run
with torch and with the engine print the same (values, grad_fn names, gradients, error messages)."""

from __future__ import annotations

import pytest

from tests.engine.programs import TRY, assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = TRY

SNIPPETS = {
    # --- bitwise ops: integers bitwise, bools logical, floats refused -------------------------------------
    "bitwise_operators": """
a = torch.tensor([5, 3, 12]); b = torch.tensor([True, False, True])
print(a & 6, a | 1, a ^ 3, ~a, a << 1, a >> 1)
t(lambda: b & 1); t(lambda: b | 2); t(lambda: b ^ True); t(lambda: 1 & a); t(lambda: 3 ^ a); t(lambda: 1 << a)
t(lambda: a << b); t(lambda: b & a); t(lambda: ~b); t(lambda: b & torch.tensor([True, True, False]))
t(lambda: a.to(torch.int32) & torch.tensor([1, 2, 3])); t(lambda: a.to(torch.uint8) >> 1)
t(lambda: torch.tensor(5) & torch.tensor([1, 2], dtype=torch.int8)); t(lambda: torch.tensor([5], dtype=torch.int8) & 300)
idx = torch.arange(8)
print(idx & 1, idx | 8, ~idx, idx[(idx & 1) == 0], (idx & 1).bool())
""",
    "bitwise_shifts_out_of_range": """
t(lambda: torch.tensor([-8]) >> 1); t(lambda: torch.tensor([1]) << 70); t(lambda: torch.tensor([1], dtype=torch.int8) << 7)
t(lambda: torch.tensor([5]) >> -1); t(lambda: torch.tensor([-5]) >> 64); t(lambda: torch.tensor([200], dtype=torch.uint8) >> 8)
t(lambda: torch.tensor([200], dtype=torch.uint8) >> -1); t(lambda: torch.tensor([3]) << -1); t(lambda: torch.tensor([3]) << 63)
t(lambda: torch.tensor([True, False]) << 1)
""",
    "bitwise_functions_and_inplace": """
a = torch.tensor([5, 3, 12]); flags = torch.tensor([0b101, 0b011, 0b110])
print(torch.bitwise_and(flags, 3), torch.bitwise_or(flags, 8), torch.bitwise_not(flags), torch.bitwise_xor(flags, a))
print(torch.bitwise_left_shift(a, 2), torch.bitwise_right_shift(a, torch.tensor([1, 0, 2])), torch.bitwise_and(3, a))
print(a.bitwise_and(6), a.bitwise_or(1), a.bitwise_xor(3), a.bitwise_not(), a.bitwise_left_shift(1), a.bitwise_right_shift(1))
x = torch.tensor([1, 2])
x <<= 2; x |= 1; x ^= torch.tensor([1, 0]); x >>= 1; x &= 7
print(x, x._version)
y = torch.tensor([6, 7]); y.bitwise_and_(3); y.bitwise_or_(8); y.bitwise_xor_(1); y.bitwise_not_()
y.bitwise_left_shift_(1); y.bitwise_right_shift_(2); print(y, y._version)
t(lambda: torch.tensor([True, False]).__iand__(1)); t(lambda: torch.tensor([1, 2]).bitwise_or_(torch.tensor([[1, 2], [3, 4]])))
t(lambda: torch.tensor([1, 2]) & torch.tensor([1, 2, 3]))
print(torch.logical_xor(a, torch.tensor([0, 1, 0])), torch.logical_xor(torch.tensor([0., 1.]), torch.tensor([1., 1.])))
z = torch.tensor([1., 0.]); z.logical_xor_(torch.tensor([1, 1])); print(z, a.logical_xor(a))
""",
    "bitwise_errors": """
for f in [lambda: torch.tensor([1.5]) << 1, lambda: torch.tensor([1.5]) >> 1, lambda: torch.tensor([5]) << 1.5,
          lambda: torch.tensor([5]) & 1.5, lambda: ~torch.tensor([1.5]), lambda: torch.tensor([1.5]) ^ 1,
          lambda: torch.tensor([1.5]) | torch.tensor([1.0]), lambda: torch.tensor([1.5], requires_grad=True) & 1,
          lambda: torch.tensor([1.5]) << torch.tensor([1.0]), lambda: torch.tensor([True]) << torch.tensor([True]),
          lambda: torch.tensor([True]) >> torch.tensor([True]), lambda: torch.bitwise_not(torch.tensor([1.5])),
          lambda: torch.bitwise_left_shift(torch.tensor([1.5]), 1), lambda: torch.tensor([1., 2.]).bitwise_and_(1),
          lambda: torch.logical_xor(torch.tensor([1., 0.]), 1), lambda: torch.tensor([1.5], dtype=torch.float64) & 1,
          lambda: torch.tensor([1.5], dtype=torch.float16) | 1]:
    t(f)
""",
    # --- fmod / remainder with a tensor divisor ---------------------------------------------------------
    "fmod_remainder_tensor_divisor": """
x = torch.tensor([5.5, -3.5, 7.0], requires_grad=True)
d = torch.tensor([2.0, 2.0, 3.0], requires_grad=True)
for name, f in [("fmod", torch.fmod), ("remainder", torch.remainder), ("mod", lambda a, b: a % b),
                ("method", lambda a, b: a.remainder(b)), ("fmod_method", lambda a, b: a.fmod(b))]:
    y = f(x, d)
    gx, gd = torch.autograd.grad(y.sum(), [x, d], create_graph=True)
    print(name, y, gx, gd, sorted(a for a in dir(y.grad_fn) if a.startswith("_saved")))
    print(torch.autograd.grad(gd.sum(), [d], allow_unused=True))
print(x % 2, type((x % 2).grad_fn).__name__)
t(lambda: torch.remainder(5, d)); t(lambda: 5 % d); t(lambda: torch.remainder(torch.tensor([5, -7]), torch.tensor([3, 2])))
t(lambda: torch.fmod(torch.tensor([5, -7]), torch.tensor([3, 2]))); t(lambda: torch.fmod(torch.tensor([5, -7]), torch.tensor([3., 2])))
t(lambda: torch.tensor([5, -7]) % torch.tensor([3., 2.])); t(lambda: torch.tensor([5, -7]) % torch.tensor([0, 2]))
t(lambda: torch.fmod(x, torch.tensor(2.0, dtype=torch.float64))); t(lambda: torch.remainder(x, torch.tensor([2., 3.])))
t(lambda: torch.fmod(x.double(), d)); t(lambda: torch.remainder(7, torch.tensor([2, 3])))
t(lambda: torch.remainder(7.5, torch.tensor([2, 3]))); t(lambda: torch.remainder(7, torch.tensor([2., 3.])))
print(torch.tensor([-1.5, 2.0, 3.0]) % 1.5, torch.tensor(-1.5) % 1.5, torch.tensor(-1.5) % torch.tensor(1.5))
y = torch.remainder(x, d); y.sum().backward(); print(x.grad, d.grad)
""",
    "fmod_remainder_inplace": """
x = torch.tensor([5.5, -3.5, 7.0], requires_grad=True)
d = torch.tensor([2.0, 2.0, 3.0], requires_grad=True)
y = x * 1; y.fmod_(d); print(y); y.remainder_(1.5); print(y); y %= d; print(y)
print(torch.autograd.grad(y.sum(), [x, d]))
z = torch.tensor([5, 7]); z %= 3; print(z, z._version); z.fmod_(torch.tensor([2, 4])); print(z)
t(lambda: torch.tensor([5, 7]).fmod_(0)); t(lambda: torch.tensor([5, 7]).fmod_(1.5))
""",
    # --- fmax, fmin, copysign, erfc, i0, heaviside ------------------------------------------------------
    "fmax_fmin_copysign_erfc_i0": """
x = torch.tensor([0.2, 0.7, -1.0, float('nan')], requires_grad=True)
y = torch.tensor([1.5, -0.5, float('nan'), 2.0], requires_grad=True)
for name, f in [("fmax", torch.fmax), ("fmin", torch.fmin), ("copysign", torch.copysign),
                ("copysign_s", lambda a, b: a.copysign(-1.0)), ("erfc", lambda a, b: torch.erfc(a)),
                ("i0", lambda a, b: torch.i0(a)), ("fmax_m", lambda a, b: a.fmax(b)), ("fmin_m", lambda a, b: a.fmin(b))]:
    out = f(x, y)
    grads = torch.autograd.grad(out.sum(), [x, y], allow_unused=True)
    print(name, out, type(out.grad_fn).__name__, grads, sorted(a for a in dir(out.grad_fn) if a.startswith("_saved")))
print(torch.fmax(torch.tensor([1, 2]), torch.tensor([0.5, float('nan')])), torch.copysign(torch.tensor([1, 2]), -1))
print(torch.i0(torch.tensor([1, 2])), torch.erfc(torch.tensor([1, 2])), torch.copysign(torch.tensor([0.0, -0.0]), -1.0))
t(lambda: torch.fmax(x, 1.0)); t(lambda: torch.fmin(x, torch.ones(3)))
z = torch.tensor([1.0, -2.0, 0.5]); z.copysign_(torch.tensor([-1.0, 1.0, -0.0])); z.erfc_(); print(z)
z = torch.tensor([0.5, 2.0]); z.i0_(); print(z, z._version)
h = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
print(torch.heaviside(h, torch.tensor(0.5)), h.heaviside(torch.tensor([0.1, 0.2, 0.3])))
t(lambda: torch.heaviside(h, 0.5)); t(lambda: torch.heaviside(torch.tensor([1, 2]), torch.tensor([0.5])))
t(lambda: torch.heaviside(h, torch.tensor(0.5)).sum().backward())
g = torch.autograd.grad(torch.i0(x[:3]).sum(), x, create_graph=True)[0]
print(g, torch.autograd.grad(g.sum(), x))
""",
    # --- torch.special ---------------------------------------------------------------------------------
    "special_functions": """
x = torch.tensor([0.25, 0.5, 0.75], requires_grad=True)
for f in [torch.special.expit, torch.special.logit, torch.special.entr, torch.special.ndtr, torch.special.log_ndtr,
          torch.special.gammaln, torch.special.erfcx, torch.special.log1p, torch.special.sinc, torch.special.xlog1py,
          torch.special.erf, torch.special.erfc, torch.special.erfinv, torch.special.i0, torch.special.i1,
          torch.special.ndtri, torch.special.psi, torch.special.digamma, torch.special.expm1, torch.special.exp2,
          torch.special.round, torch.special.xlogy]:
    y = f(x) if f not in (torch.special.xlog1py, torch.special.xlogy) else f(x, x)
    g, = torch.autograd.grad(y.sum(), x, create_graph=True)
    gg = torch.autograd.grad(g.sum(), x, allow_unused=True) if g.requires_grad else None
    print(f.__name__, type(y.grad_fn).__name__, y, g, gg)
print(torch.special.softmax(x, 0), torch.special.log_softmax(x, 0), torch.special.logsumexp(x, 0),
      torch.special.polygamma(1, x), torch.special.round(x * 10, decimals=1))
for a, b in [(x, 2.0), (2.0, x), (torch.tensor([0.0, 1.0], requires_grad=True), torch.tensor([-1.0, -2.0]))]:
    y = torch.special.xlog1py(a, b)
    print(y, torch.autograd.grad(y.sum(), [v for v in (a, b) if isinstance(v, torch.Tensor) and v.requires_grad]))
v = torch.tensor([-40.0, -5.0, -0.5, 0.0, 3.0, 30.0, float('nan'), float('inf'), -float('inf')])
print(torch.special.log_ndtr(v), torch.special.erfcx(v), torch.special.entr(v), torch.special.i1(v), torch.special.ndtr(v))
print(torch.special.ndtri(torch.tensor([0.0, 0.1, 0.5, 0.975, 1.0])), torch.special.erfc(v), torch.special.i0(v))
""",
    # --- sort(stable=...) and tensor properties -------------------------------------------------------
    "sort_stable_and_properties": """
x = torch.tensor([2.0, 1.0, 2.0, 0.5], requires_grad=True)
for kw in [dict(stable=True), dict(stable=False), dict(), dict(stable=True, descending=True)]:
    v, i = torch.sort(x, **kw)
    print(kw, v, i, sorted(a for a in dir(v.grad_fn) if a.startswith("_saved")), torch.autograd.grad(v[0] * 2 + v[1], x))
print(x.sort(stable=True), x.sort(0, True))
base = torch.arange(12.0).reshape(3, 4)
for t_ in [base, base[1:], base[:, 2:], base[2, 1:], base.t(), base[1:].reshape(-1), torch.ones(2, dtype=torch.float16),
           torch.ones(3, dtype=torch.int64), torch.tensor(True), torch.ones(2, 3, dtype=torch.bfloat16)]:
    print(t_.storage_offset(), t_.nbytes, t_.itemsize, t_.is_complex(), t_.element_size())
print(torch.is_floating_point(base), torch.is_complex(base), base.layout, torch.strided)
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + SNIPPETS[name])
