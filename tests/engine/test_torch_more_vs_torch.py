"""torch.finfo/iinfo, index helpers, quantile, renorm, as_strided and the split/scatter family: small programs
run with torch and with the engine print the same (values, dtypes, grad_fn names, gradients, error messages)."""

from __future__ import annotations

import pytest

from tests.engine.programs import TRY, assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = TRY + """
def grads(*xs):
    print(*[x.grad for x in xs])
    for x in xs:
        x.grad = None
"""

SNIPPETS = {
    # --- dtype limits and memory formats ------------------------------------------------------------------
    "finfo_iinfo": """
for d in [torch.float16, torch.bfloat16, torch.float32, torch.float64]:
    f = torch.finfo(d)
    print(f, [(a, getattr(f, a)) for a in dir(f) if not a.startswith('_')])
for d in [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]:
    i = torch.iinfo(d)
    print(i, [(a, getattr(i, a)) for a in dir(i) if not a.startswith('_')])
print(torch.finfo(), torch.finfo, torch.iinfo, type(torch.finfo()), torch.finfo(type=torch.float64).eps)
f = torch.finfo(torch.float32)
print(f == torch.finfo(torch.float32), f == torch.finfo(torch.float64), f is torch.finfo(torch.float32))
t(lambda: torch.finfo(torch.int32)); t(lambda: torch.iinfo(torch.float32)); t(lambda: torch.finfo(3))
t(lambda: torch.iinfo(torch.bool)); t(lambda: torch.iinfo()); t(lambda: torch.finfo(torch.bool))
t(lambda: torch.finfo('float32')); t(lambda: hash(f)); t(lambda: setattr(f, 'eps', 3))
print(torch.finfo(torch.half).eps, torch.iinfo(torch.long).max, torch.finfo(torch.double).tiny)
""",
    "memory_formats": """
print(torch.contiguous_format, torch.channels_last, torch.preserve_format, torch.channels_last_3d)
print(type(torch.contiguous_format), torch.memory_format, torch.contiguous_format == torch.contiguous_format)
x = torch.ones(2, 3)
print(x.contiguous(memory_format=torch.contiguous_format).is_contiguous(memory_format=torch.contiguous_format))
print(x.is_contiguous(memory_format=torch.channels_last), x.clone(memory_format=torch.preserve_format).shape)
y = torch.ones(2, 4, 5, 3).permute(0, 3, 1, 2)
print(y.is_contiguous(), y.is_contiguous(memory_format=torch.channels_last))
""",
    # --- index helpers -------------------------------------------------------------------------------------
    "triangle_indices_argwhere_isin": """print(torch.triu_indices(3, 3), torch.tril_indices(3, 3), torch.triu_indices(3, 4, 1), torch.tril_indices(4, 3, -1))
print(torch.triu_indices(3, 3, -5), torch.tril_indices(3, 3, 5), torch.triu_indices(2, 3, 10), torch.tril_indices(0, 3))
print(torch.triu_indices(3, 3, dtype=torch.int32), torch.tril_indices(2, 2, offset=0, dtype=torch.int32))
t(lambda: torch.tril_indices(2, 2, dtype=torch.int16)); t(lambda: torch.triu_indices(2, 2, dtype=torch.uint8)); t(lambda: torch.triu_indices(2, 2, dtype=torch.float64))
t(lambda: torch.triu_indices(3, 3, dtype=torch.float32)); t(lambda: torch.triu_indices(-1, 3)); t(lambda: torch.tril_indices(3))
t(lambda: torch.triu_indices(3, 3, requires_grad=True))
t(lambda: torch.tril_indices(3.0, 3))
x = torch.ones(3, 4)
i = torch.triu_indices(3, 4); print(x[i[0], i[1]])
a = torch.tensor([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0]], requires_grad=True)
print(torch.argwhere(a), a.argwhere(), torch.argwhere(torch.tensor(1.0)), torch.argwhere(torch.tensor(0)), torch.argwhere(torch.tensor([True, False, True])))
print(torch.argwhere(torch.zeros(2, 0)), torch.argwhere(torch.zeros(3)), torch.argwhere(torch.tensor([float('nan'), 0.0])))
print(torch.isin(torch.tensor([1, 2, 3]), torch.tensor([2, 5])), torch.isin(torch.tensor([[1., 2.], [3., 4.]]), torch.tensor([2.0, 4.0]), invert=True))
print(torch.isin(torch.tensor([1, 2, 3]), 2), torch.isin(2, torch.tensor([1, 2])), torch.isin(torch.tensor([1, 2, 3]), torch.tensor([2.0, 3.5])))
print(torch.isin(torch.tensor([1.0, 2.0], requires_grad=True), torch.tensor([2.0])), torch.isin(torch.tensor([1, 2]), torch.tensor([2]), assume_unique=True))
print(torch.isin(elements=torch.tensor([1, 2]), test_elements=torch.tensor([2])), torch.isin(torch.tensor([float('nan')]), torch.tensor([float('nan')])))
t(lambda: torch.isin(torch.tensor([True, False]), torch.tensor([True]))); t(lambda: torch.isin(torch.tensor([1, 2], dtype=torch.uint8), torch.tensor([2, 300])))
t(lambda: torch.isin(torch.tensor([1.0]), torch.tensor([True]))); t(lambda: torch.isin(torch.tensor([1, 2]), torch.tensor([2.0], dtype=torch.float64)))
t(lambda: torch.isin(torch.tensor([1, 2], dtype=torch.int32), 2.5)); t(lambda: torch.isin(1.5, torch.tensor([1.5], dtype=torch.float16)))
t(lambda: torch.isin(1, 2)); t(lambda: torch.isin(torch.tensor([1]), [1, 2])); t(lambda: torch.isin(torch.tensor([1]), torch.tensor([True])))
print(torch.isin(torch.tensor([1, 2]), torch.tensor([[2, 3], [4, 1]])))
t(lambda: torch.tril_indices(3, -2)); t(lambda: torch.argwhere(torch.tensor([1]), 0)); t(lambda: torch.isin(torch.tensor([1, 2]), torch.tensor([2]), True))
print(torch.argwhere(torch.tensor([[1., 0], [2, 3]])).stride(), torch.tril_indices(3, 3).stride())
t(lambda: torch.tril_indices(2, 2, dtype=torch.int8)); t(lambda: torch.tril_indices(2, 2, dtype=torch.bool))
""",
    # --- quantile ------------------------------------------------------------------------------------------
    "quantile_modes_grads_errors": """x = torch.tensor([1.0, 2.0, 3.0, 4.0])
print(torch.quantile(x, 0.5), torch.quantile(x, torch.tensor([0.25, 0.75])))
a = torch.tensor([[3.0, 1.0, 4.0], [1.0, 5.0, 9.0]], requires_grad=True)
for interp in ['linear', 'lower', 'higher', 'midpoint', 'nearest']:
    q = torch.quantile(a, 0.4, dim=1, interpolation=interp)
    print(interp, q)
    q.sum().backward(); print(a.grad); a.grad = None
q = torch.quantile(a, 0.3); print(q); q.backward(); print(a.grad); a.grad = None
q = a.quantile(torch.tensor([0.1, 0.9]), dim=0, keepdim=True); print(q, q.shape); q.sum().backward(); print(a.grad); a.grad = None
q = torch.quantile(a, torch.tensor([0.5]), dim=-1); print(q)
n = torch.tensor([[1.0, float('nan'), 3.0], [2.0, 4.0, 6.0]], requires_grad=True)
print(torch.quantile(n, 0.5, dim=1), torch.nanquantile(n, 0.5, dim=1), n.nanquantile(0.25), torch.nanquantile(torch.tensor([float('nan')]), 0.5))
qq = torch.nanquantile(n, 0.5, dim=1); qq.sum().backward(); print(n.grad)
print(torch.quantile(torch.tensor([2.0]), 0.7), torch.quantile(torch.tensor(5.0), 0.5), torch.quantile(x.double(), 0.1))
print(torch.quantile(x, 0.625, interpolation='nearest'), torch.quantile(x, 0.5, interpolation='nearest'), torch.quantile(torch.arange(5.), 0.375, interpolation='nearest'))
t(lambda: torch.quantile(x, 1.5)); t(lambda: torch.quantile(x, -0.1)); t(lambda: torch.quantile(torch.tensor([1, 2]), 0.5))
t(lambda: torch.quantile(x, 0.5, interpolation='cubic')); t(lambda: torch.quantile(x, torch.tensor([[0.5]])))
t(lambda: torch.quantile(x, torch.tensor([0.5], dtype=torch.float64))); t(lambda: torch.quantile(torch.tensor([]), 0.5))
t(lambda: torch.quantile(x, torch.tensor([0.5, 2.0]))); t(lambda: torch.quantile(x, 0.5, dim=3))
t(lambda: torch.quantile(torch.zeros(2, 0), 0.5, dim=1)); t(lambda: torch.quantile(x, 1))
""",
    "quantile_dims_keepdim_nan": """torch.manual_seed(0)
x = torch.randn(3, 4, 5, requires_grad=True)
qs = torch.linspace(0, 1, 4)
for interp in ['linear', 'lower', 'higher', 'midpoint', 'nearest']:
    for dim in [None, 0, -1]:
        for kd in [False, True]:
            r = torch.quantile(x, qs, dim=dim, keepdim=kd, interpolation=interp)
            r2 = x.nanquantile(0.37, dim, kd, interpolation=interp)
            print(interp, dim, kd, r, r2, r2.grad_fn.next_functions[0][0].name())
            (r.sum() + r2.sum()).backward()
            print(x.grad)
            x.grad = None
x64 = torch.randn(7, dtype=torch.float64)
print(torch.quantile(x64, torch.tensor([0.1, 0.33, 0.5], dtype=torch.float64)))
z = torch.tensor(3.0, requires_grad=True)
print(torch.quantile(z, 0.2, dim=0), torch.quantile(z, 0.2, dim=0, keepdim=True), torch.quantile(z, torch.tensor([0.2, 0.9]), keepdim=True))
m = torch.tensor([[float('nan'), float('nan')], [1.0, float('nan')]])
print(torch.nanquantile(m, 0.5, dim=1), torch.nanquantile(m, torch.tensor([0.0, 1.0]), dim=1), torch.quantile(m, 0.5, dim=0))
t(lambda: torch.nanquantile(torch.tensor([1.0]), 2.0)); t(lambda: torch.nanquantile(torch.tensor([1, 2]), 0.5))
t(lambda: torch.tensor([1.0]).quantile(0.5, interpolation='x'))
with torch.no_grad():
    print(torch.quantile(x, 0.5))
print(torch.quantile(torch.tensor([[1., 2.], [3., 4.]]), 0.5, 1, True))
""",
    # --- renorm --------------------------------------------------------------------------------------------
    "renorm_values_grads_errors": """x = torch.tensor([[3.0, -4.0], [0.0, 1.0]], requires_grad=True)
print(torch.renorm(x.detach(), 2, 0, 1.0))
for p in [1, 2, 3, 1.5, 0.5, float('inf')]:
    for dim in [0, 1, -1]:
        r = torch.renorm(x, p, dim, 2.0)
        print(p, dim, r)
        (r * torch.tensor([[1.0, 2.0], [3.0, -1.0]])).sum().backward()
        print(x.grad); x.grad = None
r = x.renorm(2, 0, 1.0); print(r.grad_fn.name(), r.grad_fn._saved_p, r.grad_fn._saved_dim, r.grad_fn._saved_maxnorm)
y = torch.arange(24.0).reshape(2, 3, 4).requires_grad_()
r = torch.renorm(y, 2, 1, 5); print(r); r.sum().backward(); print(y.grad)
z = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64); z.renorm_(1, 1, 2); print(z)
w = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True).clone(); w.renorm_(2, 0, 1); print(w)
t(lambda: torch.renorm(torch.ones(3), 2, 0, 1)); t(lambda: torch.renorm(torch.ones(2, 2), 0, 0, 1)); t(lambda: torch.renorm(torch.ones(2, 2), 2, 0, -1))
t(lambda: torch.renorm(torch.ones(2, 2), 2, 2, 1)); t(lambda: torch.renorm(torch.ones(2, 2, dtype=torch.int64), 2, 0, 1)); t(lambda: torch.renorm(torch.ones(2, 2), -1, 0, 1))
a = torch.tensor([[3.0, 4.0], [0.3, 0.4]], requires_grad=True)
g, = torch.autograd.grad(torch.renorm(a, 2, 0, 1.0).pow(2).sum(), a, create_graph=True)
print(g.round(decimals=4), g.grad_fn.name(), g.grad_fn.next_functions[0][0].name())
g.sum().backward(); print(a.grad.round(decimals=4) + 0.0)
""",
    # --- as_strided ----------------------------------------------------------------------------------------
    "as_strided_storage_grads_errors": """x = torch.arange(6.0, requires_grad=True)
a = x.as_strided((3, 2), (1, 1))
print(a, a.stride(), a.storage_offset(), a._base is x, a.is_contiguous())
a.sum().backward(); print(x.grad); x.grad = None
gf = a.grad_fn; print(gf.name(), gf._saved_size, gf._saved_stride, gf._saved_storage_offset, gf.next_functions[0][0].name())
b = torch.as_strided(x, (2, 2), (2, 1), 1); print(b, b.storage_offset())
(b * torch.tensor([[1., 2.], [3., 4.]])).sum().backward(); print(x.grad); x.grad = None
y = torch.arange(12.0).reshape(3, 4).requires_grad_()
v = y.as_strided((2, 2), (1, 2)); print(v, v.grad_fn.name())
v.sum().backward(); print(y.grad); y.grad = None
w = y[1:]  # a view with offset 4
u = w.as_strided((2, 3), (1, 1)); print(u, u.storage_offset(), u.grad_fn.next_functions[0][0].name())
u.sum().backward(); print(y.grad); y.grad = None
u2 = w.as_strided((2,), (3,), 0); print(u2); u2.sum().backward(); print(y.grad); y.grad = None
tt = y.t()
u3 = tt.as_strided((3,), (5,)); print(u3); (u3 * torch.tensor([1., 2., 3.])).sum().backward(); print(y.grad); y.grad = None
z = torch.arange(4.0)
t(lambda: z.as_strided((3, 2), (2, 1))); t(lambda: z.as_strided((2,), (1,), 3)); t(lambda: z.as_strided((2,), (-1,)))
t(lambda: z.as_strided((2, 2), (1,))); t(lambda: z.as_strided((2,), (1,), -1))
print(z.as_strided((0,), (1,)), z.as_strided((), ()), z.as_strided((2, 2), (0, 1)))
p = torch.zeros(4); q = p.as_strided((2,), (2,)); q.add_(1); print(p)
e = torch.arange(4.0, requires_grad=True).expand(3, 4)
f = e.as_strided((2,), (1,)); print(f); f.sum().backward()
dd = torch.arange(6.0, dtype=torch.float64, requires_grad=True)
g, = torch.autograd.grad(dd.as_strided((2, 3), (1, 2)).pow(2).sum(), dd, create_graph=True); print(g, g.grad_fn.name())
print(e.grad_fn.name(), torch.arange(4.0).expand(3, 4).as_strided((2, 2), (1, 1), 1))
m = torch.arange(8.0, requires_grad=True)
win = m.as_strided((3, 4), (2, 1))
(win * torch.arange(12.0).reshape(3, 4)).sum().backward(); print(win, m.grad)
""",
    # --- split family, row_stack, narrow_copy ----------------------------------------------------------------
    "hsplit_vsplit_dsplit_row_stack_narrow_copy": """x = torch.arange(24.0).reshape(2, 3, 4).requires_grad_()
print(x.hsplit(3), [p.grad_fn.name() for p in x.hsplit(3)])
print(torch.vsplit(x, 2), torch.dsplit(x, [1, 3]), x.hsplit([1]), x.dsplit(2))
v = torch.arange(6.0, requires_grad=True)
print(v.hsplit(2), torch.hsplit(v, [2, 5]))
y = torch.arange(12.0).reshape(3, 4).requires_grad_()
parts = y.vsplit(3); print(parts[2].grad_fn.name(), y.hsplit(2)[0].grad_fn.name(), y.vsplit([1])[0].grad_fn.name())
(parts[0] * 2 + parts[2]).sum().backward(); print(y.grad)
t(lambda: v.vsplit(2)); t(lambda: y.dsplit(2)); t(lambda: torch.tensor(1.0).hsplit(1)); t(lambda: y.hsplit(3)); t(lambda: y.vsplit(2)); t(lambda: x.dsplit(3))
t(lambda: y.hsplit(0)); t(lambda: v.hsplit(4))
print(torch.row_stack([torch.tensor([1, 2]), torch.tensor([3, 4])]), torch.row_stack((torch.ones(2, 2), torch.zeros(1, 2))).shape)
r = torch.row_stack([v[:3], v[3:]]); print(r)
n = y.narrow_copy(1, 1, 2); print(n, n.grad_fn.name() if n.grad_fn else None, torch.narrow_copy(y, 0, 1, 1))
t(lambda: y.narrow_copy(1, 3, 2))
""",
    # --- scatter with reduce (PyTorch warns once per process about a tensor src) ----------------------------
    "scatter_reduce_argument": """idx = torch.tensor([[0, 0], [1, 1]])
print(torch.zeros(2, 2).scatter(1, idx, 5.0, reduce='add'), torch.ones(2, 2).scatter(1, idx, 3.0, reduce='multiply'))
src = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
print(torch.ones(2, 2).scatter(1, idx, src, reduce='add'), torch.full((2, 2), 2.0).scatter(1, idx, src, reduce='multiply'))
s = torch.ones(2, 2, requires_grad=True)
o = s.scatter(1, idx, src, reduce='add'); print(o.grad_fn.name())
t(lambda: o.sum().backward())
o2 = s.scatter(1, idx, 2.0, reduce='add'); print(o2.grad_fn.name())
t(lambda: o2.sum().backward())
t(lambda: torch.zeros(2, 2).scatter(1, idx, 1.0, reduce='mean')); t(lambda: torch.zeros(2, 2).scatter(1, idx, src.detach(), reduce='sum'))
z = torch.zeros(2, 2); z.scatter_(1, idx, 1.5, reduce='add'); print(z)
z.scatter_(1, idx, torch.ones(2, 2) * 3, reduce='multiply'); print(z)
print(torch.scatter(torch.zeros(3), 0, torch.tensor([0, 0, 2]), torch.tensor([1.0, 2.0, 3.0]), reduce='add'))
print(torch.zeros(3, dtype=torch.int64).scatter(0, torch.tensor([1, 1]), 2, reduce='add'))
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + SNIPPETS[name])
