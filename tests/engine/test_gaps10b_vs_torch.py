"""Small gaps against PyTorch 2.13 (std/var without degrees of freedom, sizes given by keyword, scatter with a larger
src, conjugate views and numpy, out-of-range Python ints, tensor attributes, state_dict destinations, meta tensors);
programs run with torch and with the engine print the same, warnings included."""

from __future__ import annotations

import pytest

from tests.engine.programs import RUN, assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = RUN

SNIPPETS = {
    "std_var_without_degrees_of_freedom_warn": """
z = torch.tensor([1. + 1j])
for c in ["torch.tensor([1.]).std()", "torch.ones(1, 3).var(dim=0)", "torch.ones(2).var(correction=2)",
          "torch.std_mean(torch.ones(1))", "torch.var_mean(torch.ones(1, 2), 0)", "torch.ones(3).var(correction=5)",
          "torch.ones(0).var()", "torch.tensor([1., 2.]).var(correction=2)", "torch.tensor([1., 2.]).std(correction=3)",
          "torch.tensor([1., 2.]).std(unbiased=False)", "torch.tensor([[1., 2.]]).std(0, unbiased=True)",
          "torch.tensor([[1., 2.]]).std(1, keepdim=True)", "torch.tensor(3.).var()", "z.std()", "z.var()",
          "torch.std_mean(z)", "torch.tensor([1., 2.]).var(correction=1.5)", "torch.tensor([1., 2.]).var(correction=2.5)",
          "torch.ones(0, 3).var(0)", "torch.ones(0, 3).var(1)", "torch.ones(2, 0).std(0)", "torch.ones(2, 3).var(correction=-1)",
          "torch.ones(2, 3).var(dim=[0, 1], correction=6)", "torch.ones(2, 3, dtype=torch.float64).std(1, correction=3)",
          "torch.ones(0).mean()", "torch.var(torch.ones(1, 4), 0, True)", "torch.ones(2, 1).std(dim=1)"]:
    run(c, lambda: eval(c))
x = torch.tensor([1.], requires_grad=True)
x.std().backward()
print(x.grad)
""",
    "sizes_given_by_keyword": """
x = torch.arange(6.).reshape(2, 3)
torch.manual_seed(0)
for c in ["torch.zeros(size=(2,3))", "torch.ones(size=[2])", "torch.randn(size=(2,))", "torch.rand(size=(2,))",
          "torch.empty(size=(2,)).shape", "torch.full(size=(2,), fill_value=1.)", "torch.full((2,), fill_value=1.)",
          "x.new_zeros(size=(2,))", "x.new_ones(size=[1, 2])", "x.new_empty(size=(2,)).shape", "x.new_full(size=(2,), fill_value=3.)",
          "x.view(size=(3, 2))", "x.view(size=(-1,))", "x.reshape(shape=(3, 2))", "x.reshape(shape=[6])",
          "x.expand(size=(2, 2, 3))", "x.permute(dims=(1, 0))", "x.permute(dims=[1, 0])", "x.repeat(repeats=(1, 2))",
          "torch.zeros(shape=(2,))", "torch.zeros((2,), size=(2,))", "torch.zeros(2, size=(2,))", "torch.ones(shape=(2,))",
          "torch.randn(shape=(2,))", "torch.empty(shape=(2,))", "torch.full(shape=(2,), fill_value=1.)",
          "torch.zeros(size=2)", "torch.zeros(size=(2,), dtype=torch.int64)", "torch.reshape(x, shape=(3, 2))",
          "torch.permute(x, dims=(1, 0))", "x.view(shape=(3, 2))", "x.reshape(size=(3, 2))", "x.expand(shape=(2, 3))",
          "x.permute(1, 0, dims=(1, 0))", "x.repeat(2, repeats=(2,))", "x.view(6, size=(6,))", "x.reshape(6, shape=(6,))",
          "x.expand(2, 3, size=(2, 3))", "x.new_zeros(2, size=(2,))", "x.new_zeros(shape=(2,))", "torch.rand(2, size=(2,))",
          "torch.randn(size=2)", "torch.tile(x, dims=(1, 2))", "x.tile(dims=(2,))", "x.sum_to_size(size=(1, 3))",
          "torch.zeros(foo=1)", "torch.zeros((2,), foo=1)", "torch.zeros()", "torch.full(fill_value=1.)", "torch.full((2,))",
          "torch.full(size=(2,))", "torch.full((2,), 1., size=(2,))", "torch.full((2,), 1., foo=1)",
          "torch.randn(size=(2,), shape=(2,))", "torch.randn(foo=2)", "torch.zeros(size=(2,), foo=1)", "torch.zeros(size=(2.5,))",
          "torch.zeros(size=None)", "torch.zeros(size=torch.Size([2]))", "torch.ones(size=(2,), shape=(1,))",
          "x.view(size=(3, 2), foo=1)", "x.view()", "x.view(foo=1)", "x.reshape()", "x.reshape(foo=1)", "x.reshape(shape=6)",
          "x.view(size=6)", "x.expand()", "x.expand(size=6)", "x.permute()", "x.permute(dims=1)", "x.repeat()",
          "x.repeat(repeats=2)", "x.new_zeros()", "x.new_zeros(size=2)", "x.new_full((2,))", "x.new_full(fill_value=1)",
          "x.new_full(shape=(2,), fill_value=1)", "x.new_full((2,), 1, size=(2,))", "x.new_empty(size=(2,), shape=(2,))",
          "x.new_zeros(size=(2,), dtype=torch.int64)", "x.view(size=[3, -1])", "x.view(size=torch.Size([6]))",
          "x.expand(size=[-1, 3])", "x.view(2, 3, size=(6,))", "x.permute((1, 0), dims=(1, 0))", "torch.randn(2, size=(2,), foo=1)",
          "x.view(size=(6,), bar=1, foo=1)", "torch.randn()", "torch.rand()", "torch.tensor(1.).permute()",
          "x.view(size=(2.5, 1))", "x.view(size=[1.5, 2.5])", "x.view(size=(1, 2), dtype=torch.float32)",
          "torch.randn(size=[2], requires_grad=True, foo=True)", "torch.tile(x)", "x.tile(2, dims=(2,))", "torch.reshape(x)"]:
    run(c, lambda: eval(c))
y = x.clone().requires_grad_()
print(y.view(size=(3, 2)).grad_fn.name(), y.reshape(shape=(6,)).grad_fn.name(), y.permute(dims=(1, 0)).grad_fn.name())
print(x.clone().resize_(size=(3, 2)).shape, torch.full(fill_value=2, size=(1,)), torch.zeros(size=(2,), requires_grad=True))
""",
    "scatter_with_a_larger_src": """
src = torch.arange(1., 13.).reshape(3, 4).requires_grad_()
base = torch.zeros(3, 5, requires_grad=True)
idx = torch.tensor([[0, 1], [2, 0]])
def t(name, f):
    src.grad = None; base.grad = None
    try:
        out = f()
        print(name, out)
        (out * torch.arange(15.).reshape(3, 5)).sum().backward()
        print(src.grad, base.grad)
    except Exception as e:
        print(name, type(e).__name__, e)
t("scatter", lambda: base.scatter(1, idx, src))
t("scatter_add", lambda: base.scatter_add(1, idx, src))
t("scatter0", lambda: torch.scatter(base, 0, torch.tensor([[1, 2, 0]]), src))
for r in ["sum", "amax", "amin", "prod", "mean"]:
    t("reduce " + r, lambda: torch.scatter_reduce(base, 1, idx, src, r))
    t("reduce noself " + r, lambda: torch.scatter_reduce(base, 1, idx, src, r, include_self=False))
t("scatter_", lambda: base.clone().scatter_(1, idx, src))
t("scatter_add_", lambda: base.clone().scatter_add_(1, idx, src))
t("same shape", lambda: base.scatter(1, idx, src[:2, :2]))
t("src rows bigger only", lambda: base.scatter(1, idx, src[:, :2]))
t("3d", lambda: torch.zeros(2, 3, 5, requires_grad=True).scatter(2, torch.tensor([[[0, 1]]]),
                                                                 torch.ones(2, 2, 3, requires_grad=True)).sum(0))
out = base.scatter(1, idx, src)
print(out.grad_fn.next_functions[1][0].variable is src)
print(torch.autograd.grad(out.sum(), base))
src2 = torch.arange(1., 7.).reshape(3, 2).requires_grad_()
for r in ["amax", "amin", "prod", "sum", "mean"]:
    src2.grad = None
    try:
        out = torch.scatter_reduce(base, 1, torch.tensor([[0, 1]]), src2, r)
        print(out)
        out.sum().backward()
        print(r, src2.grad)
    except Exception as e:
        print(r, e)
""",
    "numpy_and_views_of_conjugate_views": """
import numpy as np
z = torch.tensor([1 + 2j, 3 - 1j])
c = z.conj()
r = torch.tensor([1., 2.])
for s in ["c.numpy()", "c.is_conj()", "z.is_conj()", "c.resolve_conj()", "c.resolve_conj().is_conj()", "c.resolve_conj().numpy()",
          "c", "c.conj()", "c.conj().is_conj()", "r.conj().is_conj()", "r.conj().numpy()", "torch.conj(z).is_conj()",
          "c.conj_physical().is_conj()", "c.clone().is_conj()", "(c + 0).is_conj()", "c.tolist()", "c[0].is_conj()", "c[0].item()",
          "c.numpy(force=True)", "torch.resolve_conj(c)", "c.imag", "c.real", "torch.view_as_real(c)", "c.detach().is_conj()",
          "c.to(torch.complex128).is_conj()", "c.contiguous().is_conj()", "c.unsqueeze(0).is_conj()", "c.reshape(2, 1).is_conj()",
          "c.conj_physical()", "c.resolve_conj() is c", "z.resolve_conj() is z", "c.sum()", "c.conj().numpy()",
          "np.asarray(c)", "np.array(c)", "c.expand(1, 2).is_conj()", "c.flip(0).is_conj()", "c.select(0, 0).is_conj()",
          "c.narrow(0, 0, 1).is_conj()", "c.view_as(c).is_conj()", "c.flatten().is_conj()", "c.unbind()[0].is_conj()",
          "c.split(1)[0].is_conj()", "c.data.is_conj()", "c.view(2, 1).is_conj()", "c[None].numpy()", "c.detach().numpy()",
          "c.resolve_conj()[0].is_conj()", "c[0].conj().is_conj()", "c.unsqueeze(0).conj().numpy()", "c.chunk(1)[0].is_conj()"]:
    run(s, lambda: eval(s))
x = torch.tensor([1 + 1j, 2 - 1j], requires_grad=True)
y = x.conj()
print(y.is_conj(), y[0].is_conj(), y.detach().is_conj())
(y[0] * y[1]).abs().backward()
print(x.grad)
""",
    "python_ints_out_of_range": """
for s in ["torch.tensor([10**30])", "torch.tensor(2**63)", "torch.tensor([1, 2**64])", "torch.tensor(10**30, dtype=torch.float32)",
          "torch.tensor(2**63 - 1)", "torch.tensor(-2**63)", "torch.tensor(-2**63 - 1)", "torch.tensor([2**63])",
          "torch.tensor([1., 2**64])", "torch.tensor([2**64, 1.])", "torch.tensor(2**64, dtype=torch.float64)",
          "torch.tensor(10**400, dtype=torch.float64)", "torch.tensor([10**400])", "torch.tensor(2**31, dtype=torch.int32)",
          "torch.tensor(300, dtype=torch.uint8)", "torch.tensor(-1, dtype=torch.uint8)", "torch.tensor([300], dtype=torch.int8)",
          "torch.tensor([[1, 2], [3, 10**20]])", "torch.tensor((1, 2**70))", "torch.tensor(2**63, dtype=torch.int64)",
          "torch.tensor(10**30, dtype=torch.bool)", "torch.tensor(10**30, dtype=torch.complex64)", "torch.tensor([True, 2**64])",
          "torch.as_tensor([10**30])", "torch.tensor([1+0j, 2**64])", "torch.tensor(2**63, dtype=torch.float16)",
          "torch.tensor(-129, dtype=torch.int8)", "torch.tensor(-256, dtype=torch.uint8)", "torch.tensor(-255, dtype=torch.uint8)",
          "torch.tensor(2**63, dtype=torch.int32)", "torch.tensor([1, 2**63], dtype=torch.int16)", "torch.tensor(2**40, dtype=torch.int16)",
          "torch.tensor([1, 2**63])", "torch.tensor([1., 10**400])", "torch.tensor([1, 2**63], dtype=torch.float32)",
          "torch.tensor([2**70, 1j])", "torch.tensor([[1, -1], [2, 3]], dtype=torch.uint8)", "torch.tensor([1, 2], dtype=torch.int8)",
          "torch.full((2,), 2**63)", "torch.full((2,), -2**63 - 1)", "torch.full((2,), 2**64)", "torch.full((2,), 300, dtype=torch.int8)",
          "torch.full((2,), 2**63, dtype=torch.int32)", "torch.full((1,), -1, dtype=torch.uint8)",
          "torch.zeros(2, dtype=torch.int8).fill_(300)", "torch.full((2,), 2**40, dtype=torch.int16)", "torch.full((2,), 2**63, dtype=torch.bool)",
          "torch.full((2,), -2**63, dtype=torch.int64)", "torch.zeros(2).fill_(2**63)", "torch.zeros(2, dtype=torch.uint8).fill_(-1)"]:
    run(s, lambda: eval(s))
""",
    "attributes_set_on_tensors": """
import copy
t = torch.ones(2)
t.my_name = "w"
print(t.my_name)
setattr(t, 'foo', 1)
print(hasattr(t, 'foo'), getattr(t, 'foo'), hasattr(t, 'bar'))
del t.foo
print(hasattr(t, 'foo'))
run("missing", lambda: t.missing)
run("getattr missing", lambda: getattr(t, 'missing'))
run("dict", lambda: t.__dict__)
def delit():
    del t.nothere
run("del missing", delit)
p = torch.nn.Parameter(torch.ones(2))
p.tag = 3
print(p.tag, p.__dict__, p)
run("p missing", lambda: p.missing)
x = torch.ones(2, requires_grad=True)
y = x * 2
y.note = "hi"
print(y.note, y.grad_fn.name(), y.requires_grad, y)
y.sum().backward()
print(x.grad)
run("detach keeps attr", lambda: y.detach().note)
run("clone keeps attr", lambda: y.clone().note)
t.grad = torch.zeros(2)
t.requires_grad = True
t.data = torch.tensor([5., 6.])
print(t.grad, t.requires_grad, t)
for name in ["shape", "dtype", "is_leaf", "ndim", "device", "T", "layout", "output_nr", "retains_grad", "is_cuda"]:
    run("set " + name, lambda: setattr(t, name, 1))
run("getattr default", lambda: getattr(t, 'zzz', 7))
m = torch.nn.Linear(2, 2)
m.weight.label = "W"
print(m.weight.label, [getattr(q, 'label', None) for q in m.parameters()])
t.__dict__['q'] = 5
print(t.q, sorted(t.__dict__), torch.ones(1).__dict__)
w = torch.ones(2)
w.tag = [1]
w2 = copy.deepcopy(w)
print(w2.tag, w2.tag is w.tag, copy.copy(w).tag)
run("parameter deepcopy", lambda: copy.deepcopy(p).tag)
""",
    "state_dict_destination_prefix_keep_vars": """
from collections import OrderedDict
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2))
m.register_buffer("scratch", torch.ones(1), persistent=False)
d = {}
r = m.state_dict(destination=d)
print(r is d, type(r).__name__, list(r), hasattr(r, "_metadata"))
od = OrderedDict()
r = m.state_dict(destination=od, prefix='p.', keep_vars=True)
print(r is od, list(r), r['p.0.weight'].requires_grad, r['p.0.weight'] is m[0].weight, type(r).__name__)
r = m.state_dict(prefix='q.')
print(list(r), r._metadata)
r = m.state_dict(od, 'x.')
print(list(r))
run("positional", lambda: list(m.state_dict(None, 'y.')))
run("positional keep_vars", lambda: m.state_dict(None, '', True)['0.bias'].requires_grad)
run("keep_vars", lambda: m.state_dict(keep_vars=True)['0.bias'].requires_grad)
run("normal", lambda: m.state_dict()['0.bias'].requires_grad)
run("meta", lambda: m.state_dict()._metadata)
run("od meta", lambda: getattr(od, '_metadata', None))
run("lin", lambda: torch.nn.Linear(1, 1).state_dict(destination={}, prefix='a.'))
m2 = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2))
print(m2.load_state_dict(m.state_dict(destination=OrderedDict())))
""",
    "meta_tensors": """
x = torch.empty(2, 3, device='meta')
print(x, x.is_meta, x.device, x.shape, x.dtype)
torch.manual_seed(0)
y = torch.randn(4, device='meta')
print(y, torch.randn(2))
for s in ["x + 1", "(x * x).sum()", "x.t()", "x @ torch.empty(3, 4, device='meta')", "x.to('meta')", "torch.ones(2).to('meta')",
          "torch.empty_like(x)", "torch.empty_like(torch.ones(2), device='meta')", "torch.zeros(2, device='meta')",
          "x.item()", "x.tolist()", "x.numpy()", "x[0]", "x.is_meta", "torch.ones(2).is_meta", "x.to(torch.float64)",
          "torch.zeros(2, dtype=torch.int64, device='meta')", "x.sum().item()", "x.to('cpu')", "x.cpu()", "x + torch.ones(2, 3)",
          "torch.ones(2, 3, device='meta').requires_grad_()", "torch.tensor([1., 2.], device='meta')", "x.view(3, 2)",
          "x.device.type", "str(x.device)", "torch.full((2,), 3., device='meta')", "torch.arange(3, device='meta')",
          "x == x", "x.mean(0)", "x.relu()", "torch.empty(0, device='meta')", "torch.empty((), device='meta')", "bool(x.sum())",
          "float(torch.empty((), device='meta'))", "x.clone()", "x.new_zeros(2)", "torch.zeros_like(x)"]:
    run(s, lambda: eval(s))
lin = torch.nn.Linear(3, 4, device='meta')
print(lin, lin.weight, [p.is_meta for p in lin.parameters()])
print(lin(torch.empty(2, 3, device='meta')))
w = torch.ones(2, requires_grad=True, device='meta')
z = (w * 2).sum()
print(z, z.grad_fn.name())
z.backward()
print(w.grad)
m = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU()).to('meta')
print(m[0].weight, m[0].bias.device)
print(m(torch.empty(5, 2, device='meta')))
print(torch.nn.Linear(2, 2, device='meta', bias=False).weight)
""",
    "meta_tensor_ops_and_conversions": """
x = torch.empty(2, 3, device='meta')
for s in ['torch.ones(2,3) + x', 'x + torch.tensor(1.)', 'torch.tensor(1.) * x', 'x.add_(1)', 'x.copy_(torch.ones(2,3))', 'torch.ones(2,3).copy_(x)', 'x.uniform_()', 'x.fill_(2)', 'x[torch.tensor([0])]', 'torch.cat([x, x])', 'torch.stack([x, torch.ones(2,3)])', 'x.max()', 'x.max(0)', 'x.argmax()', 'x.sort(0)', 'torch.empty(2, device="meta").bool().any()', 'x.to("meta", torch.float64)', 'x.detach()', 'x.data', 'x.type(torch.float64)', 'x.double()', 'x.half()', 'x.int()', 'x.shape', 'x.numel()', 'x.stride()', 'x.element_size()', 'len(x)', 'list(x)', 'x.softmax(0)', 'x.exp().log()', 'torch.nn.functional.relu(x)', 'x.new_tensor([1.])', 'x.new_empty(3)', 'str(x)', 'x.to(device="meta")', 'torch.ones(2, requires_grad=True).to("meta")', 'torch.ones(2, dtype=torch.int64).to("meta")', 'x.to("cpu")', 'x.to(torch.device("meta"))', 'torch.empty(2, 3, dtype=torch.float64, device="meta")', 'torch.randn(2, 2, device=torch.device("meta"))', 'torch.empty_like(x)', 'torch.zeros_like(x, dtype=torch.int32)', 'torch.rand_like(x)', 'x.is_meta', 'x.device', 'torch.device("meta")', 'torch.ones(2, 3, device="meta", requires_grad=True).sum()', 'x.sum(0, keepdim=True)', 'x.reshape(-1)', 'x.unsqueeze(0).expand(4, 2, 3)', 'x.mean()', 'x > 0', 'x.clamp(0, 1)', 'torch.where(x > 0, x, x)', 'x.t().contiguous()', 'x.view(6)[2:]', 'torch.nn.functional.linear(x, torch.empty(4, 3, device="meta"))', 'torch.nn.functional.mse_loss(x, x)']:
    run(s, lambda: eval(s))
torch.manual_seed(0)
torch.randn(3, device='meta'); torch.rand(2, device='meta'); torch.nn.Linear(4, 4, device='meta')
print(torch.rand(2))
w = torch.ones(2, 3, device='meta', requires_grad=True)
(w * 2).sum().backward()
print(w.grad, w.grad.is_meta)
print(torch.nn.Linear(2, 3, device='meta').state_dict())
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + SNIPPETS[name])


SANDBOXED_ATTRIBUTES = """
t = torch.ones(2)
t.my_name = "w"
setattr(t, "foo", 1)
print(t.my_name, t.foo, hasattr(t, "bar"), getattr(t, "foo"), getattr(t, "zz", 7))
del t.foo
print(hasattr(t, "foo"))
p = torch.nn.Parameter(torch.ones(1))
p.tag = 3
print(p.tag)
m = torch.nn.Linear(1, 1)
m.weight.label = "W"
print([getattr(q, "label", None) for q in m.parameters()])
for name in ["shape", "dtype", "is_leaf", "grad_fn"]:
    try:
        setattr(t, name, 1)
    except AttributeError as e:
        print(e)
try:
    t.zz
except AttributeError as e:
    print(e)
"""


def test_sandboxed_programs_set_their_own_tensor_attributes_but_not_methods() -> None:
    import json

    from server.sandbox import Sandbox
    from tests.engine.programs import run_program

    expected = run_program(torch, SANDBOXED_ATTRIBUTES)
    with Sandbox(workers=1, timeout_s=10.0) as sandbox:
        trace = json.loads(sandbox.run("import torch\n" + SANDBOXED_ATTRIBUTES))
        assert (trace["status"], trace["stdout"]) == ("ok", expected)
        trace = json.loads(sandbox.run("import torch\nx = torch.ones(2)\nx.tolist = print"))
        assert trace["status"] == "error" and trace["error"]["type"] == "PolicyError"
