"""Custom autograd.Function: inputs returned as-is become views (the input keeps its grad_fn), and the
node has edges for the tensor arguments only. Compared with torch."""

from __future__ import annotations

import pytest

from tests.engine.test_tutorial_snippets_vs_torch import _run, _same

pytest.importorskip("torch")

PROGRAMS = {
    "returned_input_base_modified": """
import torch
class Id(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x): return x
    @staticmethod
    def backward(ctx, g): return g
x = torch.tensor([1.0, 2.0], requires_grad=True)
b = x * 1
y = Id.apply(b)
try:
    y.mul_(2)
except RuntimeError as e:
    print("RuntimeError:", e)
b.add_(1)
try:
    print(type(y.grad_fn).__name__)
    y.sum().backward(); print(x.grad)
except RuntimeError as e:
    print("RuntimeError:", e)
""",
    "input_returned_as_is": """
import torch
class Id(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x
    @staticmethod
    def backward(ctx, g):
        return g * 2
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = Id.apply(x)
print(y is x, x.grad_fn, x.is_leaf, type(y.grad_fn).__name__, y._base is x, y.is_leaf, y._is_view())
y.sum().backward()
print(x.grad)
try:
    y.add_(1)
except RuntimeError as e:
    print(type(e).__name__ + ":", e)
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 1
c = Id.apply(b)
print(c is b, c._base is b, type(c.grad_fn).__name__, type(b.grad_fn).__name__)
c.sum().backward()
print(a.grad)
plain = torch.tensor([1.0, 2.0])
p = Id.apply(plain)
print(p is plain, p._base is plain, p.grad_fn, p.requires_grad)
p.add_(1)
print(plain, plain._version)
with torch.no_grad():
    q = Id.apply(x)
print(q is x, q._base is x, q.requires_grad, q.grad_fn)
""",
    "inplace_forward_without_mark_dirty": """
import torch
class Inc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        return x
    @staticmethod
    def backward(ctx, g):
        return g
p = torch.tensor([1.0, 2.0], requires_grad=True)
q = p.clone()
r = Inc.apply(q)
print(r is q, r._base is q, type(r.grad_fn).__name__, type(q.grad_fn).__name__, q, r, q._version, r._version)
r.sum().backward()
print(p.grad)
r = Inc.apply(p)
print(r is p, type(r.grad_fn).__name__, p.grad_fn, p.is_leaf, p._version)
class IncDirty(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x
    @staticmethod
    def backward(ctx, g):
        return g
s = p * 1
t = IncDirty.apply(s)
print(t is s, type(t.grad_fn).__name__, type(s.grad_fn).__name__, s._version)
""",
    "two_outputs_and_saved_input": """
import torch
class Two(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        return x, y * 2
    @staticmethod
    def backward(ctx, g1, g2):
        return g1, g2 * 2
u = torch.tensor([1.0], requires_grad=True)
v = torch.tensor([3.0], requires_grad=True)
o1, o2 = Two.apply(u, v)
print(o1 is u, o1._base is u, type(o1.grad_fn).__name__, u.grad_fn)
(o1 + o2).sum().backward()
print(u.grad, v.grad)
class Keep(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x
    @staticmethod
    def backward(ctx, g):
        (s,) = ctx.saved_tensors
        return g * s
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = Keep.apply(x)
y.sum().backward()
print(x.grad)
z = torch.tensor([5.0], requires_grad=True) * 1
y = Keep.apply(z)
print(y.grad_fn.saved_tensors[0] is z)
class NotDiff(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_non_differentiable(x)
        return x
    @staticmethod
    def backward(ctx, g):
        return g
y = NotDiff.apply(x)
print(y is x, y.requires_grad, y.grad_fn, y._base is x)
""",
    "edges_for_tensor_arguments_only": """
import torch
class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return x * k
    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = Scale.apply(x, 3.0)
print(len(y.grad_fn.next_functions), [type(f).__name__ for f, _ in y.grad_fn.next_functions])
y.sum().backward()
print(x.grad)
class Mix(torch.autograd.Function):
    @staticmethod
    def forward(ctx, k, x, s, w):
        return x * k + w
    @staticmethod
    def backward(ctx, g):
        return None, g * 2, None, g
w = torch.tensor([1.0, 1.0])
y = Mix.apply(2.0, x, "s", w)
print(len(y.grad_fn.next_functions), [None if f is None else type(f).__name__ for f, _ in y.grad_fn.next_functions],
      y.grad_fn.needs_input_grad)
y.sum().backward()
print(x.grad)
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        return x * k
    @staticmethod
    def backward(ctx, g):
        return g, g
try:
    Bad.apply(x, 2.0).sum().backward()
except RuntimeError as e:
    print(type(e).__name__ + ":", e)
class Short(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        return x * k
    @staticmethod
    def backward(ctx, g):
        return g
try:
    Short.apply(x, 2.0).sum().backward()
except RuntimeError as e:
    print(type(e).__name__ + ":", e)
class Extra(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        return x * k
    @staticmethod
    def backward(ctx, g):
        return g, None, None
Extra.apply(x, 2.0).sum().backward()
print(x.grad)
y = Scale.apply(x, 3.0)
h = y.grad_fn.register_hook(lambda gi, go: print("hook", gi, go))
y.sum().backward()
y = Scale.apply(x, 3.0)
y.grad_fn.register_prehook(lambda go: print("pre", go))
y.sum().backward()
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_function_outputs_match_torch(name: str) -> None:
    code = PROGRAMS[name]
    _same(_run(code, on_engine=False), _run(code, on_engine=True))


def test_trace_of_function_with_a_number_argument_keeps_inputs_formulas_and_edges_aligned() -> None:
    from server.schema import Trace
    from server.tracer import trace_code

    code = """import torch
class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, k, x, w):
        ctx.k = k
        return x * k + w
    @staticmethod
    def backward(ctx, g):
        return None, g * ctx.k, g
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([0.5, 0.5], requires_grad=True)
y = Scale.apply(3.0, x, w)
y.sum().backward()
print(x.grad, w.grad)
"""
    trace = trace_code(code)
    Trace.model_validate(trace)
    assert trace["status"] == "ok", trace.get("error")
    node = next(n for n in trace["nodes"] if n["name"] == "ScaleBackward")
    tensors = {t["id"]: t for t in trace["tensors"]}
    assert len(node["inputs"]) == len(node["formulas"]) == 2
    assert all(tensors[t]["is_leaf"] for t in node["inputs"])
    edges = sorted((e for e in trace["edges"] if e["source"] == node["id"]), key=lambda e: e["input_nr"])
    assert [e["input_nr"] for e in edges] == [0, 1]
    accumulates = {n["id"]: n["variable"] for n in trace["nodes"] if n["kind"] == "accumulate"}
    assert [accumulates[e["target"]] for e in edges] == node["inputs"]
    assert trace["stdout"] == "tensor([3., 3.]) tensor([1., 1.])\n"
