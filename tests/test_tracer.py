"""The tracer: what a trace says about a snippet's graph, values and backward steps."""

from __future__ import annotations

import gc
import math

import numpy as np
import pytest

from server.limits import Limits
from server.sandbox import traces
from server.schema import Trace
from server.tracer import trace_code


def _by_id(items: list[dict]) -> dict[str, dict]:
    return {item["id"]: item for item in items}


def test_seed_snippet_graph_names_and_final_grad(seed_code: str) -> None:
    trace = trace_code(seed_code)
    Trace.model_validate(trace)
    assert trace["status"] == "ok"
    names = sorted(n["name"] for n in trace["nodes"])
    assert names == ["AccumulateGrad", "AddBackward0", "MulBackward0", "SinBackward0"]
    tensors = {name: t for t in trace["tensors"] for name in t["names"]}
    assert tensors["x"]["is_leaf"] and tensors["x"]["value"] == 2.0  # a 0-d float32 value is a bare number
    assert not tensors["y"]["is_leaf"]
    accumulations = [e for e in trace["events"] if e["kind"] == "accumulate"]
    assert len(accumulations) == 1
    assert accumulations[0]["tensor"] == tensors["x"]["id"]
    assert math.isclose(accumulations[0]["after"], 4 + math.cos(2), rel_tol=1e-6)


def test_backward_steps_follow_pytorch_order_and_sum_contributions(seed_code: str) -> None:
    trace = trace_code(seed_code)
    nodes = _by_id(trace["nodes"])
    runs = [e for e in trace["events"] if e["kind"] == "node_run"]
    # PyTorch runs ready nodes newest first: Add, then Sin (created after Mul), then Mul.
    assert [nodes[r["node"]]["name"] for r in runs] == ["AddBackward0", "SinBackward0", "MulBackward0"]
    assert runs[0]["received"][0]["edge"] is None  # the seed
    mul = runs[2]
    assert [s["grad"] for s in mul["sent"]] == [2.0, 2.0]
    # the second contribution to x's AccumulateGrad shows the running total cos(2) + 2 + 2
    assert math.isclose(mul["sent"][1]["total"], math.cos(2) + 4, rel_tol=1e-6)


def test_edges_carry_formulas_and_local_derivatives(seed_code: str) -> None:
    trace = trace_code(seed_code)
    nodes = _by_id(trace["nodes"])
    sin_edge = next(e for e in trace["edges"] if nodes[e["source"]]["name"] == "SinBackward0")
    assert sin_edge["formula"] == "grad * cos(self)"
    assert math.isclose(sin_edge["local"]["value"], math.cos(2), rel_tol=1e-6)


def test_source_spans_point_at_sub_expressions(seed_code: str) -> None:
    trace = trace_code(seed_code)
    spans = {n["name"]: n["span"] for n in trace["nodes"] if n.get("span")}
    assert spans["MulBackward0"] == {"line": 3, "col": 5, "end_line": 3, "end_col": 10}  # x * x
    assert spans["SinBackward0"] == {"line": 3, "col": 13, "end_line": 3, "end_col": 25}  # torch.sin(x)


def test_user_error_is_part_of_the_trace_with_position() -> None:
    code = "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x * 2\ny.backward()\n"
    trace = trace_code(code)
    assert trace["status"] == "error"
    assert trace["error"]["type"] == "RuntimeError"
    assert trace["error"]["message"] == "grad can be implicitly created only for scalar outputs"
    assert (trace["error"]["line"], trace["error"]["col"]) == (4, 1)
    assert any(e["kind"] == "op" for e in trace["events"])  # what ran before the error is kept
    assert trace["events"][-1]["kind"] == "error"


def test_version_error_names_node_and_saved_slot() -> None:
    code = (
        "import torch\na = torch.tensor([0.5, 1.0], requires_grad=True)\nb = a.sigmoid()\n"
        "c = b * 2\nb.mul_(2)\nc.sum().backward()\n"
    )
    trace = trace_code(code)
    error = trace["error"]
    nodes = _by_id(trace["nodes"])
    assert nodes[error["node"]]["name"] == "SigmoidBackward0"  # c = b * 2 saved only the scalar 2
    assert (error["saved_slot"], error["expected_version"], error["actual_version"]) == ("result", 0, 1)
    assert "output 0 of Sigmoid, is at version 1; expected version 0" in error["message"]


def test_print_output_and_names_of_attribute_targets() -> None:
    code = "import torch\nw = torch.ones(2, requires_grad=True)\nloss = (w * 3).sum()\nprint(loss)\n"
    trace = trace_code(code)
    assert trace["stdout"] == "tensor(6., grad_fn=<SumBackward0>)\n"
    prints = [e for e in trace["events"] if e["kind"] == "print"]
    assert prints == [{"kind": "print", "text": "tensor(6., grad_fn=<SumBackward0>)\n", "line": 4}]


def test_nan_and_infinity_are_encoded_explicitly() -> None:
    code = "import torch\nz = torch.tensor([0.0, 1.0], requires_grad=True)\nq = z.log()\n"
    trace = trace_code(code)
    q = next(t for t in trace["tensors"] if t["names"] == ["q"])
    assert q["value"]["data"] == ["-Infinity", 0.0]


def test_float32_values_read_back_exactly() -> None:
    """A float32 number in the trace is the tensor's own value, not one rounded to fewer digits."""
    code = ("import torch\nx = torch.tensor([1 / 3, 0.1, -2e-7, 12345.678], requires_grad=True)\n"
            "s = torch.tensor(2 / 3)\ny = (x * s).sum()\n")
    trace = trace_code(code)
    values = {name: t["value"] for t in trace["tensors"] for name in t["names"]}
    x = np.array([1 / 3, 0.1, -2e-7, 12345.678], np.float32)
    assert values["x"]["data"] == [float(str(v)) for v in x] == [0.33333334, 0.1, -2e-7, 12345.678]
    assert np.array_equal(np.array(values["x"]["data"], np.float32), x)
    assert values["s"] == 0.6666667 and np.float32(values["s"]) == np.float32(2 / 3)
    assert np.float32(values["y"]) == (x * np.float32(2 / 3)).sum()


def test_native_trace_encodes_to_the_same_json(seed_code: str) -> None:
    """The sandbox writes the recorder's NumPy values itself (native=True): the same JSON as a plain trace,
    also on the careful path taken for text orjson refuses (a lone surrogate in the printed output)."""
    code = seed_code + "print(chr(0xD800))\n"
    for snippet in (seed_code, code, "import torch\nz = torch.tensor([0.0, 1.0], requires_grad=True).log()\n"):
        native = trace_code(snippet, native=True)
        plain = trace_code(snippet)
        assert traces.encode(native) == traces.encode(plain)
        assert traces.plain(native) == plain
    assert "\ud800" in trace_code(code)["stdout"]


def test_same_snippet_gives_identical_trace(seed_code: str) -> None:
    assert trace_code(seed_code) == trace_code(seed_code)


def test_keep_holds_the_run_objects_without_changing_the_trace(seed_code: str) -> None:
    kept: list = []
    trace = trace_code(seed_code, keep=kept)
    assert trace == trace_code(seed_code)
    [(recorder, namespace)] = kept
    assert namespace["y"].grad_fn is not None  # the snippet's graph is still alive
    assert len(recorder.nodes) == len(trace["nodes"])
    assert gc.get_freeze_count() > len(recorder.nodes)  # no later collection scans what was kept
    gc.unfreeze()


def test_node_limit_ends_trace_with_status_limit() -> None:
    from server.limits import Limits

    code = "import torch\nv = torch.tensor(1.0, requires_grad=True)\nfor i in range(100):\n    v = v * 1.0\n"
    trace = trace_code(code, limits=Limits(max_nodes=20))
    assert trace["status"] == "limit"
    assert "graph node limit (20 nodes)" in trace["error"]["message"]
    assert (trace["error"]["line"], trace["error"]["col"]) == (4, 9)  # where the run stopped: `v * 1.0`
    assert len(trace["nodes"]) == 20


@pytest.mark.parametrize("line,message", [
    ("x = torch.zeros(30)", "a tensor of shape [30] was created"),
    ("x = torch.zeros(3)\nx.resize_(5, 6)", "a tensor grew to shape [5, 6] in place"),
])
def test_element_limit_covers_new_and_resized_tensors(line: str, message: str) -> None:
    from server.limits import Limits

    trace = trace_code(f"import torch\n{line}\nprint('after')\n", limits=Limits(max_elements=20))
    assert trace["status"] == "limit"
    assert trace["error"]["message"] == f"tensor size limit (20 elements) reached: {message}"
    assert trace["stdout"] == ""


def test_training_loop_passes_are_summarised_after_the_cap() -> None:
    from server.limits import Limits

    code = (
        "import torch\nw = torch.tensor(1.0, requires_grad=True)\nfor i in range(8):\n"
        "    loss = w * w\n    loss.backward()\n"
    )
    trace = trace_code(code, limits=Limits(full_passes=3))
    begins = [e for e in trace["events"] if e["kind"] == "backward_begin"]
    assert len(begins) == 8
    assert trace["notes"] and "summarised" in trace["notes"][0]
    final = [e for e in trace["events"] if e["kind"] == "accumulate"][-1]
    assert final["after"] == 16.0


def test_recording_traces_live_tensors_with_their_source_lines() -> None:
    import engine as torch
    from server.tracer import recording

    x = torch.tensor(3.0, requires_grad=True)
    with recording() as rec:
        y = x * x
        y.backward()
    trace = rec.trace()
    Trace.model_validate(trace)
    assert trace["status"] == "ok"
    assert [n["name"] for n in trace["nodes"]] == ["MulBackward0", "AccumulateGrad"]
    mul = trace["nodes"][0]
    assert mul["span"]["line"] > 0  # this test file's line, not an engine frame
    assert [e for e in trace["events"] if e["kind"] == "accumulate"][0]["after"] == 6.0


def test_recording_stops_at_a_limit_without_raising() -> None:
    import engine as torch
    from server.limits import Limits
    from server.tracer import recording

    v = torch.tensor(1.0, requires_grad=True)
    with recording(Limits(max_nodes=5)) as rec:
        for _ in range(10):
            v = v * 2
    trace = rec.trace()
    assert trace["status"] == "limit" and "graph node limit (5 nodes)" in trace["error"]["message"]


def test_huge_error_message_is_shortened() -> None:
    trace = trace_code("raise ValueError('x' * 10_000_000)\n")
    assert trace["status"] == "error"
    message = trace["error"]["message"]
    assert len(message) < 20_000
    assert message.endswith("(10,000,000 characters, shortened)")
    assert trace["error"]["line"] == 1


def test_hook_with_a_strange_name_is_traced() -> None:
    code = ("import torch\nclass H:\n    __name__ = 5\n    def __call__(self, g):\n        return g * 2\n"
            "x = torch.ones(2, requires_grad=True)\ny = x * 3\ny.register_hook(H())\ny.sum().backward()\n"
            "print(x.grad)\n")
    trace = trace_code(code, restricted=False)  # the sandbox's policy refuses such a class anyway
    assert trace["status"] == "ok", trace["error"]
    assert [e["name"] for e in trace["events"] if e["kind"] == "hook"] == ["hook"]
    assert trace["stdout"] == "tensor([6., 6.])\n"


def test_double_backward_records_each_gradient_sum_once() -> None:
    """Two gradients of x meet under create_graph: the trace shows the one add the engine runs."""
    trace = trace_code(
        "import torch\n"
        "x = torch.tensor(1.5, requires_grad=True)\n"
        "y = torch.sin(x) * x\n"
        "y.backward(create_graph=True)\n"
    )
    assert trace["status"] == "ok"
    built = [n["name"] for n in trace["nodes"] if n.get("created_in_pass") == 1]
    assert built.count("AddBackward0") == 1
    accumulate = next(e for e in trace["events"] if e["kind"] == "accumulate")
    assert accumulate["after"] == pytest.approx(math.sin(1.5) + 1.5 * math.cos(1.5), rel=1e-6)


def test_cycle_collection_pauses_while_passes_are_recorded_in_full() -> None:
    """Everything traced is kept until the trace is built, so collecting cycles would find nothing;
    summarised passes keep nothing, so collection resumes with them, and after the run."""
    code = (
        "import gc\n"
        "import torch\n"
        "x = torch.tensor(1.0, requires_grad=True)\n"
        "for i in range(3):\n"
        "    print(gc.isenabled())\n"
        "    (x * 2).backward()\n"
        "print(gc.isenabled())\n"
    )
    assert gc.isenabled()
    trace = trace_code(code, limits=Limits(full_passes=1), restricted=False)
    assert trace["stdout"].split() == ["False", "False", "True", "True"]
    assert gc.isenabled()
    trace_code("import torch\nraise ValueError('boom')\n")
    assert gc.isenabled()


@pytest.mark.parametrize("code, nondeterministic", [
    ("import time\nt = time.perf_counter()", True),
    ("import time\nt = time.time", False),  # named, not called
    ("import random\nprint(random.random())", True),
    ("import random\nrandom.seed(1)\nprint(random.random(), random.choice([1, 2]))", False),
    ("import random\nrandom.seed(1)\nrandom.seed()\nprint(random.randint(0, 9))", True),
    ("import torch\nprint(torch.seed() > 0)", True),
    ("import torch\ng = torch.Generator()\ng.seed()\ng.manual_seed(2)\nprint(torch.rand(2, generator=g))",
     True),
    ("import torch\ng = torch.Generator()\nprint(g.initial_seed(), torch.randn(2, generator=g))", False),
    ("import torch\ntorch.manual_seed(0)\nprint(torch.rand(2), torch.nn.Linear(2, 2).weight)", False),
    ("import torch\nwith torch.random.fork_rng():\n    torch.manual_seed(1)\n    print(torch.rand(1))",
     False),
])
def test_runs_that_read_the_clock_or_entropy_are_marked(code: str, nondeterministic: bool) -> None:
    trace = trace_code(code)
    assert trace["status"] == "ok", trace["error"]
    assert trace.get("nondeterministic", False) is nondeterministic
    Trace.model_validate(trace)


def test_a_generator_seeded_from_entropy_marks_the_runs_that_read_it() -> None:
    import engine

    generator = engine.random.default_generator
    state = generator.get_state()
    try:
        generator.from_entropy()  # as each sandbox run starts
        assert "nondeterministic" not in trace_code("import torch\nprint(torch.ones(2))")
        for read in ("torch.rand(1)", "torch.initial_seed()", "torch.get_rng_state()",
                     "torch.nn.Linear(2, 2)", "torch.randperm(3)", "torch.ones(4).bernoulli_()"):
            assert trace_code(f"import torch\nx = {read}")["nondeterministic"], read
        seeded = trace_code("import torch\ntorch.manual_seed(1)\nprint(torch.rand(1), torch.initial_seed())")
        assert "nondeterministic" not in seeded, seeded
        assert seeded["stdout"] == "tensor([0.7576]) 1\n", seeded["stdout"]
    finally:
        generator.set_state(state)
