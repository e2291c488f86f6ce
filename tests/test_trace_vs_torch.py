"""Each gallery trace checked against what real PyTorch does for the same snippet.

PyTorch exposes enough to act as the oracle: node hooks give the execution order and the gradient
sent along each edge (`grad_inputs[i]` goes to `next_functions[i]`), `next_functions` gives the graph,
and AccumulateGrad pre-hooks give what lands in each leaf's `.grad`.
"""

from __future__ import annotations

import contextlib
import io
from typing import Any

import numpy as np
import pytest

from server.encode import to_numpy
from server.examples import load_examples
from server.limits import Limits
from server.tracer import trace_code

torch = pytest.importorskip("torch")

EXAMPLES = {e.id: e for e in load_examples()}


class TorchRecorder:
    """Hooks every node below each backward()/grad() root and records what runs and what it sends."""

    def __init__(self) -> None:
        self.passes: list[list[dict]] = []
        self._hooked: dict[int, Any] = {}

    def _hook_graph(self, roots: Any) -> None:
        stack = [t.grad_fn for t in roots if t.grad_fn is not None]
        while stack:
            fn = stack.pop()
            if id(fn) in self._hooked:
                continue
            self._hooked[id(fn)] = fn
            name = type(fn).__name__
            nexts = [None if n is None else type(n).__name__ for n, _ in fn.next_functions]
            if name == "AccumulateGrad":
                fn.register_prehook(lambda g, fn=fn: self._record(fn, "AccumulateGrad", [], g))
            else:
                fn.register_hook(lambda gi, go, fn=fn, name=name, nexts=nexts: self._record(fn, name, nexts, gi))
            stack.extend(n for n, _ in fn.next_functions if n is not None)

    def _record(self, fn: Any, name: str, nexts: list, grads: Any) -> None:
        arrays = [None if g is None else g.detach().resolve_conj().numpy().copy() for g in grads]
        self.passes[-1].append({"name": name, "next": nexts, "grads": arrays})

    @contextlib.contextmanager
    def patched(self) -> Any:
        backward, grad = torch.Tensor.backward, torch.autograd.grad
        recorder = self

        def tracked_backward(tensor: Any, *args: Any, **kwargs: Any) -> Any:
            recorder.passes.append([])
            recorder._hook_graph([tensor])
            return backward(tensor, *args, **kwargs)

        def tracked_grad(outputs: Any, *args: Any, **kwargs: Any) -> Any:
            recorder.passes.append([])
            recorder._hook_graph([outputs] if isinstance(outputs, torch.Tensor) else list(outputs))
            return grad(outputs, *args, **kwargs)

        torch.Tensor.backward, torch.autograd.grad = tracked_backward, tracked_grad
        try:
            yield self
        finally:
            torch.Tensor.backward, torch.autograd.grad = backward, grad


def run_with_torch(code: str) -> tuple[TorchRecorder, str]:
    recorder = TorchRecorder()
    out = io.StringIO()
    with recorder.patched(), contextlib.redirect_stdout(out):
        try:
            exec(compile(code, "<torch>", "exec"), {"__name__": "__main__"})
        except Exception as exc:  # the error examples fail on purpose; compare up to the failure
            print(f"{type(exc).__name__}: {exc}")
    return recorder, out.getvalue()


def trace_passes(trace: dict) -> list[list[dict]]:
    """The same shape as TorchRecorder.passes, read from our trace."""
    nodes = {n["id"]: n for n in trace["nodes"]}
    edges = {e["id"]: e for e in trace["edges"]}
    out_edges: dict[str, list] = {}
    for e in trace["edges"]:
        out_edges.setdefault(e["source"], []).append(e)
    passes: list[list[dict]] = []
    for event in trace["events"]:
        kind = event["kind"]
        if kind == "backward_begin":
            passes.append([])
        elif kind == "node_run":
            node = nodes[event["node"]]
            arity = len(node.get("formulas") or [])
            grads: list = [None] * arity
            for sent in event["sent"]:
                grads[edges[sent["edge"]]["input_nr"]] = decode(sent["grad"])
            nexts: list = [None] * arity
            for e in out_edges.get(node["id"], []):
                nexts[e["input_nr"]] = nodes[e["target"]]["name"]
            passes[-1].append({"name": node["name"], "next": nexts, "grads": grads})
        elif kind == "accumulate":
            passes[-1].append({"name": "AccumulateGrad", "next": [], "grads": [decode(event["contribution"])]})
    return passes


def decode(value: Any) -> np.ndarray:
    a = to_numpy(value)
    return a if a.dtype.kind == "c" else a.astype(np.float64)


@pytest.mark.parametrize("example_id", sorted(EXAMPLES))
def test_trace_agrees_with_pytorch(example_id: str) -> None:
    code = EXAMPLES[example_id].code
    recorder, torch_stdout = run_with_torch(code)
    trace = trace_code(code)
    ours = trace_passes(trace)
    failed = (trace["error"] or {}).get("node")
    if failed is not None:  # PyTorch's post-hook never fires for the node that raised
        failed_name = next(n["name"] for n in trace["nodes"] if n["id"] == failed)
        assert ours[-1][-1]["name"] == failed_name
        ours[-1].pop()
    assert len(ours) == len(recorder.passes), "number of backward passes"
    for p, (mine, theirs) in enumerate(zip(ours, recorder.passes)):
        # PyTorch's AccumulateGrad pre-hook fires for every contribution; ours reports one summed
        # accumulation per leaf, so compare the non-accumulate steps in order, then the sums.
        mine_steps = [s for s in mine if s["name"] != "AccumulateGrad"]
        their_steps = [s for s in theirs if s["name"] != "AccumulateGrad"]
        assert [s["name"] for s in mine_steps] == [s["name"] for s in their_steps], f"pass {p} order"
        for step_mine, step_theirs in zip(mine_steps, their_steps):
            assert step_mine["next"] == step_theirs["next"], f"pass {p} {step_mine['name']} next_functions"
            for i, (a, b) in enumerate(zip(step_mine["grads"], step_theirs["grads"])):
                if b is None or step_theirs["next"][i] is None:
                    continue
                assert a is not None, f"pass {p} {step_mine['name']} sent nothing on edge {i}"
                np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6,
                                           err_msg=f"pass {p} {step_mine['name']} edge {i}")
        mine_acc = sorted(float(np.sum(s["grads"][0])) for s in mine if s["name"] == "AccumulateGrad")
        their_acc = sorted(float(np.sum(s["grads"][0])) for s in theirs if s["name"] == "AccumulateGrad")
        assert len(mine_acc) == len(their_acc), f"pass {p} accumulations"
        np.testing.assert_allclose(mine_acc, their_acc, rtol=1e-5, atol=1e-6)
    if trace["status"] == "ok":
        assert trace["stdout"] == torch_stdout
    else:
        assert torch_stdout.rstrip().endswith(f"{trace['error']['type']}: {trace['error']['message']}")


HOOKS_OF_EVERY_KIND = """import torch
def y_tensor_hook(g):
    print("y_tensor_hook")
def x_tensor_hook(g):
    print("x_tensor_hook")
def x_post_accumulate(t):
    print("x_post_accumulate")
def w_tensor_hook(g):
    print("w_tensor_hook")
def sum_prehook(grad_outputs):
    print("sum_prehook")
def sum_posthook(grad_inputs, grad_outputs):
    print("sum_posthook")
def mul_prehook(grad_outputs):
    print("mul_prehook")
def mul_posthook(grad_inputs, grad_outputs):
    print("mul_posthook")
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([0.5, -1.0], requires_grad=True)
y = x * w
y.retain_grad()
y.register_hook(y_tensor_hook)
x.register_hook(x_tensor_hook)
x.register_post_accumulate_grad_hook(x_post_accumulate)
w.register_hook(w_tensor_hook)
z = y.exp().sum()
z.grad_fn.register_prehook(sum_prehook)
z.grad_fn.register_hook(sum_posthook)
y.grad_fn.register_prehook(mul_prehook)
y.grad_fn.register_hook(mul_posthook)
z.backward()
"""


def test_hooks_fire_in_pytorchs_order() -> None:
    _, torch_stdout = run_with_torch(HOOKS_OF_EVERY_KIND)
    trace = trace_code(HOOKS_OF_EVERY_KIND)
    assert trace["status"] == "ok", trace["error"]
    fired = [e["name"] for e in trace["events"] if e["kind"] == "hook"]
    assert fired == torch_stdout.split()
    assert trace["stdout"] == torch_stdout


@pytest.mark.parametrize("optimizer", ["SGD(params, lr=0.1, momentum=0.9)", "Adam(params, lr=0.1)", "AdamW(params)",
                                       "RMSprop(params)", "Adagrad(params)"])
def test_an_optimizer_step_shows_the_new_weights(optimizer: str) -> None:
    code = ("import torch\nw = torch.tensor([1.0, -2.0], requires_grad=True)\nparams = [w]\n"
            f"opt = torch.optim.{optimizer}\nfor _ in range(2):\n    opt.zero_grad()\n"
            "    (w * w).sum().backward()\n    opt.step()\n")
    trace = trace_code(code)
    updates = [e for e in trace["events"] if e["kind"] == "inplace" and e["tensor"] == "t0"]
    namespace: dict = {}
    exec(code, namespace)  # `import torch` here is PyTorch itself
    assert len(updates) >= 2
    assert updates[-1]["version"] == namespace["w"]._version
    np.testing.assert_allclose(to_numpy(updates[-1]["value"]), namespace["w"].detach().numpy(), rtol=1e-6)


SHARED_MEMORY = """import torch
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(w * w).sum().backward()
w.data -= 0.1 * w.grad
d = w.detach()
d.add_(1)
with torch.no_grad():
    w[0] = 5.0
y = w * 1
v = y[1:]
y.mul_(10)
v.add_(1)
u = y.view(3, 1)
u.zero_()
"""


def replayed(trace: dict) -> tuple[dict, dict, dict]:
    """Each traced tensor's last value, version and .grad, as a player replaying the trace shows them."""
    values = {t["id"]: t["value"] for t in trace["tensors"]}
    versions = {t["id"]: 0 for t in trace["tensors"]}
    grads: dict = {}
    for event in trace["events"]:
        if event["kind"] == "inplace":
            for changed in [event, *event.get("aliases", [])]:
                values[changed["tensor"]] = values[changed["same_as"]] if "same_as" in changed else changed["value"]
                versions[changed["tensor"]] = changed["version"]
        elif event["kind"] in ("grad_set", "accumulate"):
            grads[event["tensor"]] = event["grad" if event["kind"] == "grad_set" else "after"]
    return values, versions, grads


TRAINING_LOOP = """import torch
import torch.nn as nn
torch.manual_seed(0)
X = torch.randn(64, 4)
y = X.sum(1, keepdim=True)
model = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for epoch in range(EPOCHS):
    opt.zero_grad()
    loss = ((model(X) - y) ** 2).mean()
    loss.backward()
    opt.step()
    if epoch % 25 == 0:
        print(epoch, round(loss.item(), 4))
w = model[0].weight
"""


@pytest.mark.parametrize("epochs, cap", [(60, 8 * 2**20), (300, 2**20)])
def test_a_long_training_loop_stays_under_the_size_limit_and_ends_with_torchs_values(epochs: int, cap: int) -> None:
    # A loop traced in full would outgrow the size limit (each iteration's `weight.t()` views the
    # weight, so every step changes them all): later passes are summarised, then only noted, and the
    # trace ends with the final parameters and gradients, which must be PyTorch's.
    from server.sandbox import traces

    code = TRAINING_LOOP.replace("EPOCHS", str(epochs))
    trace = trace_code(code, limits=Limits(max_trace_bytes=cap))
    assert trace["status"] == "ok", trace["error"]
    assert len(traces.encode(trace)) < cap
    recorder, torch_stdout = run_with_torch(code)
    assert trace["stdout"] == torch_stdout
    values, versions, grads = replayed(trace)
    namespace: dict = {}
    exec(code, namespace)  # `import torch` here is PyTorch itself
    by_name = {name: t["id"] for t in trace["tensors"] for name in t["names"]}
    for name, param in namespace["model"].named_parameters():
        tid = by_name[f"model.{name}"]
        np.testing.assert_allclose(to_numpy(values[tid]), param.detach().numpy(), rtol=1e-4, atol=1e-6, err_msg=name)
        np.testing.assert_allclose(to_numpy(grads[tid]), param.grad.numpy(), rtol=1e-4, atol=1e-6, err_msg=name)
        assert versions[tid] == param._version, name
    if cap < 8 * 2**20:
        assert "only printed output is recorded" in trace["notes"][-1]
        aliases = [a for e in trace["events"] if e["kind"] == "inplace" for a in e.get("aliases", [])]
        assert any("same_as" in a for a in aliases)


DEEP_VECTOR_CHAIN = """import torch
torch.manual_seed(0)
x = torch.randn(1000, requires_grad=True)
h = x
for i in range(LAYERS):
    h = torch.tanh(h * 1.01)
print(h[:3])
h.sum().backward()
print(x.grad[:3], x.grad.sum())
"""


def test_one_large_pass_keeps_its_whole_graph_with_shorter_arrays() -> None:
    # One forward and backward over 1,000-element vectors would take about 4 MiB: no later pass to
    # summarise, so arrays recorded past half of the (here 1 MiB) limit keep their first elements.
    from server.sandbox import traces

    cap = 2**20
    code = DEEP_VECTOR_CHAIN.replace("LAYERS", "40")
    trace = trace_code(code, limits=Limits(max_trace_bytes=cap))
    assert trace["status"] == "ok", trace["error"]
    assert len(traces.encode(trace)) < cap
    assert trace["stdout"] == run_with_torch(code)[1]
    names = {n["name"] for n in trace["nodes"]}  # every layer's two nodes, sum's, h[:3]'s and x's AccumulateGrad
    assert len(trace["nodes"]) == 2 * 40 + 3 and names >= {"TanhBackward0", "MulBackward0", "SumBackward0"}
    assert [e["kind"] for e in trace["events"]].count("node_run") == 2 * 40 + 1
    assert "first 64 elements" in trace["notes"][0] and "first 8 elements" in trace["notes"][1]
    vectors = [t["value"] for t in trace["tensors"] if t["shape"] == [1000]]
    kept = [len(v["data"]) for v in vectors]
    assert kept[0] == 1000 and kept[-1] == 8 and 64 in kept
    assert all(v.get("truncated") for v in vectors if len(v["data"]) < 1000)


def test_a_forward_that_outgrows_the_size_limit_stops_and_keeps_what_it_recorded() -> None:
    from server.sandbox import traces

    cap = 2**20
    code = DEEP_VECTOR_CHAIN.replace("LAYERS", "3000")
    trace = trace_code(code, limits=Limits(max_trace_bytes=cap))
    assert trace["status"] == "limit"
    assert trace["error"]["message"].startswith("trace size limit (1 MiB) reached: the trace shows the run up to here")
    assert trace["error"]["line"] == 6  # in the loop
    assert len(traces.encode(trace)) < cap
    assert 100 < len(trace["nodes"]) < 2 * 3000


def test_every_tensor_sharing_memory_shows_an_in_place_change() -> None:
    # After `w.data -= ...`, `d.add_(1)` or `y.mul_(10)`, every tensor over that memory (w, w.data, d; y, v, u)
    # holds new values: replaying the trace's in-place events must give each name PyTorch's values and version.
    trace = trace_code(SHARED_MEMORY)
    assert trace["status"] == "ok", trace["error"]
    values, versions, _ = replayed(trace)
    namespace: dict = {}
    exec(SHARED_MEMORY, namespace)  # `import torch` here is PyTorch itself
    named = {name: t["id"] for t in trace["tensors"] for name in t["names"]}
    assert set(named) == {"w", "d", "y", "v", "u"}
    for name, tid in named.items():
        expected = namespace[name]
        np.testing.assert_allclose(to_numpy(values[tid]), expected.detach().numpy(), rtol=1e-6, err_msg=name)
        assert versions[tid] == expected._version, name


COMPLEX = """import torch
z = torch.tensor([3 + 4j, 1 - 1j], requires_grad=True)
w = z * z.conj() + 2j * z
loss = w.abs().sum()
loss.backward()
print(z.grad)
"""


def test_complex_values_and_gradients_travel_as_real_imaginary_pairs() -> None:
    from server.sandbox import traces
    from server.schema import Trace

    recorder, torch_stdout = run_with_torch(COMPLEX)
    trace = trace_code(COMPLEX)
    assert trace["status"] == "ok" and trace["stdout"] == torch_stdout
    Trace.model_validate_json(traces.encode(trace))  # the contract admits [real, imaginary] elements
    leaf = next(t for t in trace["tensors"] if t["names"] == ["z"])
    assert leaf["dtype"] == "complex64" and leaf["value"]["data"] == [[3.0, 4.0], [1.0, -1.0]]
    ours = trace_passes(trace)
    assert [s["name"] for s in ours[0] if s["name"] != "AccumulateGrad"] == [
        s["name"] for s in recorder.passes[0] if s["name"] != "AccumulateGrad"]
    (grad,) = [e["after"] for e in trace["events"] if e["kind"] == "accumulate"]
    ns: dict = {}
    exec(COMPLEX.replace("print(z.grad)", ""), ns)  # real PyTorch
    np.testing.assert_allclose(to_numpy(grad), ns["z"].grad.numpy(), rtol=1e-5)
    for mine, theirs in zip(ours[0], recorder.passes[0]):  # every gradient sent, imaginary parts too
        for a, b in zip(mine["grads"], theirs["grads"]):
            if a is not None and b is not None and mine["name"] == theirs["name"]:
                np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
