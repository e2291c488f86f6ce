"""A view whose base changed in place gets its grad_fn regenerated as AsStridedBackward0, as in torch."""

from __future__ import annotations


import pytest

import engine
from server.tracer import trace_code
from tests.engine.programs import run_program as _run

torch = pytest.importorskip("torch")

# Each program prints what the engine must print exactly as torch does (node addresses masked).
PROGRAMS = {
    # The example, and the same without the base change: the view keeps its view node.
    "base_modified": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 1; v = y.view(2); y.mul_(10)
print(type(v.grad_fn).__name__, v.grad_fn is v.grad_fn, v._version, v.is_leaf, v.requires_grad, v)
print(v.grad_fn.next_functions, v.grad_fn.next_functions[0][0] is y.grad_fn)
print(v.grad_fn._saved_size, v.grad_fn._saved_stride, v.grad_fn._saved_storage_offset)
v.sum().backward(); print(x.grad)
""",
    "base_not_modified": """
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
y = x * 1
views = [y.view(2, 2), y[1:3], y[2], y.view(2, 2).t(), y.unsqueeze(0), y[:1].expand(3),
         y.view(2, 2)[0]]
z = y * 2  # a new op on the base is not an in-place change
for v in views:
    f = v.grad_fn
    print(type(f).__name__, v.grad_fn is f, type(f.next_functions[0][0]).__name__, v._version)
(sum(v.sum() for v in views)).backward(); print(x.grad)
""",
    # Overlapping slices: an in-place change through one reaches the gradient through the other.
    "overlapping_slices": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 1; a = y[0:2]; b = y[1:3]; a.mul_(2)
print(b.tolist(), type(b.grad_fn).__name__, type(b.grad_fn.next_functions[0][0]).__name__)
print(type(a.grad_fn).__name__, b.grad_fn._saved_storage_offset, a.grad_fn._saved_storage_offset)
b.sum().backward(); print(x.grad)
""",
    # Every kind of view, with weights so each view element's gradient differs.
    "view_kinds": """
x = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], requires_grad=True)
kinds = {
    "view": lambda t: t.view(3, 2), "reshape": lambda t: t.reshape(6), "flatten": lambda t: t.flatten(),
    "slice": lambda t: t[1:], "step": lambda t: t.view(6)[::2], "select": lambda t: t[1],
    "transpose": lambda t: t.t(), "permute": lambda t: t.permute(1, 0), "unsqueeze": lambda t: t.unsqueeze(1),
    "none_index": lambda t: t[:, None], "squeeze": lambda t: t[:1].squeeze(0),
    "narrow": lambda t: t.narrow(1, 1, 2),
    "diagonal": lambda t: t.diagonal(), "expand": lambda t: t[:, :1].expand(2, 4),
    "view_of_view": lambda t: t.t()[1:, :], "select_of_slice": lambda t: t[:, 1:][1],
}
for name, make in kinds.items():
    y = (x * 1).view(2, 3); v = make(y)
    y.mul_(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    f = v.grad_fn
    (v * torch.arange(1.0, v.numel() + 1).view(v.shape)).sum().backward()
    print(name, type(f).__name__, f._saved_size, f._saved_stride, f._saved_storage_offset, x.grad.tolist())
    x.grad = None
""",
    # A base NumPy lays out column-major (like torch's strides of a transposed result).
    "transposed_base": """
x = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], requires_grad=True)
for make in [lambda t: t[0], lambda t: t[:, 1], lambda t: t.t(), lambda t: t[1:, :1], lambda t: t.unsqueeze(0)]:
    y = x.view(2, 3).t() * 1; v = make(y); y.mul_(torch.arange(1.0, 7.0).view(3, 2))
    f = v.grad_fn
    (v * torch.arange(1.0, v.numel() + 1).view(v.shape)).sum().backward()
    print(type(f).__name__, f._saved_size, f._saved_stride, f._saved_storage_offset, x.grad.tolist())
    x.grad = None
y = x.view(2, 3).t() * 1; v = y[1]; w = y[:, 0]; v.mul_(10)
(w * torch.tensor([1.0, 2.0, 3.0])).sum().backward(); print(type(w.grad_fn).__name__, x.grad.tolist())
""",
    "view_of_view": """
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
y = x * 1; v = y.view(2, 2); w = v[1]; y.mul_(3)
print(type(w.grad_fn).__name__, type(v.grad_fn).__name__, w._base is y, w.grad_fn._saved_storage_offset)
y = x * 1; v = y.view(2, 2); w = v[1]; v.mul_(2)  # through the outer view: w regenerates too
print(type(y.grad_fn).__name__, type(v.grad_fn).__name__, type(w.grad_fn).__name__)
print(type(w.grad_fn.next_functions[0][0]).__name__)
(w * torch.tensor([1.0, 10.0])).sum().backward(); print(x.grad)
""",
    "modified_twice_and_in_place_view_ops": """
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
y = x * 1; v = y[1:]; y.mul_(2); y.add_(1)
print(type(v.grad_fn.next_functions[0][0]).__name__)
(v * v).sum().backward(); print(x.grad); x.grad = None
y = x * 1; v = y.view(2, 2); v.t_(); print(type(v.grad_fn).__name__, v._version)
y = x * 1; v = y.view(2, 2); w = v[0]; v.unsqueeze_(0)
print(type(v.grad_fn).__name__, type(w.grad_fn).__name__)
y = x * 1; v = y[1:]; y[0] = 10.0
print(type(v.grad_fn).__name__, type(v.grad_fn.next_functions[0][0]).__name__)
(v * v).sum().backward(); print(x.grad)
""",
    "version_errors": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
for code in ["y = x * 1; v = y[1:]; y.mul_(2); p = v * v; y.add_(1)",
             "y = x * 1; v = y[1:]; p = v * v; y.add_(1)",
             "y = x * 1; v = y[1:]; y.mul_(2); p = v.sin(); v.add_(1)",
             "y = x * 1; a = y[0:2]; b = y[1:]; a.mul_(2); p = b * b; a.add_(1)"]:
    exec(code)
    try:
        p.sum().backward()
    except RuntimeError as e:
        print("RuntimeError:", e)
""",
    "views_that_may_not_be_rebased": """
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
y = x * 1
with torch.no_grad():
    v = y[0:2]
y.mul_(2)
print(v.requires_grad)
try:
    v.grad_fn
except RuntimeError as e:
    print("RuntimeError:", e)
y = x * 1; a, b = y.view(2, 2).unbind(); y.mul_(2)
try:
    a * 2
except RuntimeError as e:
    print("RuntimeError:", e)
y = x * 1; a, b = y.split(2); y.mul_(2)
try:
    print(a.grad_fn)
except RuntimeError as e:
    print("RuntimeError:", e)
z = torch.zeros(3)
with torch.no_grad():
    v = z[0:2]
z.mul_(2); print(v.grad_fn, v.requires_grad)
""",
    "grad_modes_and_leaves": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 1; v = y[1:]
with torch.no_grad():
    y.mul_(2)
    print(type(v.grad_fn).__name__, (v * 2).requires_grad)
print(type(v.grad_fn.next_functions[0][0]).__name__)
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True); r = w[0:2]
opt = torch.optim.SGD([w], lr=0.1); (w ** 2).sum().backward(); opt.step()
print(type(r.grad_fn).__name__, type(r.grad_fn.next_functions[0][0]).__name__, r)
z = torch.zeros(3); v = z[0:2]; z.add_(x)  # the base comes to require grad in place
print(v.requires_grad, v.is_leaf)
q = v * 2; print(type(q.grad_fn.next_functions[0][0]).__name__)
q.sum().backward(); print(x.grad)
""",
    "zero_dim_views": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 1; s0 = y[0]; s1 = y[1]; y.mul_(5)
q = s0 * s1; print([type(f).__name__ for f, _ in q.grad_fn.next_functions])
q.backward(); print(x.grad); x.grad = None
y = x * 1; s0 = y[0]; y.mul_(5); q = s0.exp() + s0 * 2.0
q.backward(); print(x.grad)
""",
    "hooks_and_retain_grad": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 1; v = y[0:2]; v.retain_grad(); y.mul_(3)
(v * 2).sum().backward(); print(v.grad, x.grad); x.grad = None
y = x * 1; v = y[0:2]; v.retain_grad(); v.mul_(2)
v.sum().backward(); print(v.grad, x.grad); x.grad = None
y = x * 1; y.retain_grad(); y.mul_(2)
y.sum().backward(); print(y.grad, x.grad); x.grad = None
y = x * 1; v = y[0:2]; seen = []
v.register_hook(lambda g: seen.append(("before", g.tolist())))  # stays on the old node
y.mul_(3)
v.grad_fn.register_hook(lambda gi, go: seen.append(("node", gi[0].tolist(), go[0].tolist())))
v.register_hook(lambda g: seen.append(("after", g.tolist())))
v.sum().backward(); print(seen, x.grad)
""",
    "double_backward": """
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
y = x * 1; v = y[1:3]; y.mul_(2)
g, = torch.autograd.grad((v ** 3).sum(), x, create_graph=True)
print(g); g.sum().backward(); print(x.grad); x.grad = None
y = x * 1; e = y[:1].expand(3); y.mul_(2)
g, = torch.autograd.grad((e ** 2).sum(), x, create_graph=True)
print(g); g.sum().backward(); print(x.grad)
""",
}



@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_output_matches_torch(name: str) -> None:
    code = PROGRAMS[name]
    assert _run(engine, code) == _run(torch, code)


def test_trace_shows_the_regenerated_node_and_its_backward_step() -> None:
    trace = trace_code("""import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 1; v = y.view(2); y.mul_(10)
print(type(v.grad_fn).__name__); v.sum().backward(); print(x.grad)
""")
    assert trace["status"] == "ok", trace.get("error")
    nodes = {n["id"]: n for n in trace["nodes"]}
    names = {n["id"]: n["name"] for n in trace["nodes"]}
    tensors = {name: t["id"] for t in trace["tensors"] for name in t["names"]}
    regenerated = [n for n in trace["nodes"] if n["name"] == "AsStridedBackward0"]
    assert len(regenerated) == 1
    node = regenerated[0]
    assert node["outputs"] == [tensors["v"]]
    assert {s["slot"]: s["value"] for s in node["saved"]} == {"size": [2], "stride": [1], "storage_offset": 0}
    # its one edge goes to y's grad_fn now: the MulBackward0 of mul_
    edges = [e for e in trace["edges"] if e["source"] == node["id"]]
    assert len(edges) == 1 and names[edges[0]["target"]] == "MulBackward0"
    mul_ = next(e for e in trace["events"] if e["kind"] == "inplace" and e["tensor"] == tensors["y"])
    assert edges[0]["target"] == mul_["node"]
    # reading v.grad_fn (line 4) reports the view's new grad_fn and value
    event = next(e for e in trace["events"] if e["kind"] == "inplace" and e["tensor"] == tensors["v"])
    assert event["node"] == node["id"] and event["line"] == 4 and event["value"]["data"] == [10.0, 20.0]
    # backward runs Sum, AsStrided, the mul_, then x * 1; what AsStrided sends is what the mul_ receives
    runs = [e for e in trace["events"] if e["kind"] == "node_run"]
    assert [names[r["node"]] for r in runs] == ["SumBackward0", "AsStridedBackward0", "MulBackward0",
                                                "MulBackward0"]
    assert runs[1]["node"] == node["id"] and runs[2]["node"] == mul_["node"]
    assert runs[1]["sent"][0]["edge"] == edges[0]["id"] == runs[2]["received"][0]["edge"]
    accumulate = next(e for e in trace["events"] if e["kind"] == "accumulate")
    assert accumulate["after"]["data"] == [10.0, 10.0]
    assert nodes[node["id"]]["formulas"] == [edges[0]["formula"]]
