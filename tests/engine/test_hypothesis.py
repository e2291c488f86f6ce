"""Property tests against torch: random expression graphs with broadcasting, and tensor printing."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from conftest import run_case, to_np, torch

SHAPES = [(2, 3), (3,), (2, 1), (1, 3), ()]
UNARY = ["T.sin({})", "T.tanh({})", "T.sigmoid({})", "({}).relu()", "({}) ** 2", "T.exp(({}) * 0.5)",
         "({}).abs()", "T.log(({}) ** 2 + 1)", "({}).clamp(-0.5, 0.5)"]
BINARY = ["({}) + ({})", "({}) - ({})", "({}) * ({})", "({}) / (({}) ** 2 + 1)", "T.maximum({}, {})",
          "T.where(({}) > 0, {}, {})"]
FINAL = ["({}).sum()", "({}).mean()", "({}).sum(0).sum()", "({}).logsumexp(-1).sum()",
         "(({}) * 1).amax().sum()"]


@st.composite
def programs(draw: st.DrawFn) -> tuple[str, list[tuple]]:
    shapes = [draw(st.sampled_from(SHAPES)) for _ in range(draw(st.integers(2, 4)))]
    names = list("abcd"[: len(shapes)])
    exprs = list(names)
    for _ in range(draw(st.integers(1, 6))):
        if draw(st.booleans()):
            template = draw(st.sampled_from(UNARY))
            exprs.append(template.format(draw(st.sampled_from(exprs))))
        else:
            template = draw(st.sampled_from(BINARY))
            picks = [draw(st.sampled_from(exprs)) for _ in range(template.count("{}"))]
            exprs.append(template.format(*picks))
    body = exprs[-1]
    # make sure every leaf is used and the result broadcasts over all of them
    body = " + ".join([f"({body})"] + [f"({n}) * 0.1" for n in names])
    final = draw(st.sampled_from(FINAL))
    if final.startswith("({}).sum(0)") or "logsumexp" in final:
        body = f"({body}) + T.zeros(2, 3)"
    return "out = " + final.format(body), shapes


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.integers(0, 2**31 - 1))
def test_random_graphs_match_torch(program: tuple, seed: int) -> None:
    code, shapes = program
    rng = np.random.RandomState(seed)
    arrays = [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]
    t_leaves, t_out = run_case(torch, code, arrays)
    e_leaves, e_out = run_case(engine, code, arrays)
    np.testing.assert_allclose(to_np(e_out), to_np(t_out), rtol=1e-4, atol=1e-5)
    t_out.backward()
    e_out.backward()
    for t_leaf, e_leaf in zip(t_leaves, e_leaves):
        np.testing.assert_allclose(to_np(e_leaf.grad), to_np(t_leaf.grad), rtol=1e-3, atol=1e-5)


FLOATS = st.one_of(
    st.floats(-10, 10),
    st.floats(-1e-6, 1e-6),
    st.floats(-1e12, 1e12),
    st.sampled_from([0.0, 1.0, -1.0, 0.5, 100.0, float("nan"), float("inf"), -float("inf")]),
    st.sampled_from([0.0, float("nan"), float("inf"), 1.0]),
)


@st.composite
def arrays(draw: st.DrawFn) -> np.ndarray:
    ndim = draw(st.integers(0, 3))
    shape = tuple(draw(st.integers(1, 5 if ndim > 1 else 14)) for _ in range(ndim))
    kind = draw(st.sampled_from(["float", "int", "bool", "double", "wholefloat"]))
    n = int(np.prod(shape)) if shape else 1
    if kind == "int":
        values = draw(st.lists(st.integers(-10**6, 10**6), min_size=n, max_size=n))
        return np.array(values, np.int64).reshape(shape)
    if kind == "bool":
        values = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        return np.array(values, bool).reshape(shape)
    if kind == "wholefloat":
        values = draw(st.lists(st.integers(-1000, 1000), min_size=n, max_size=n))
        return np.array(values, np.float32).reshape(shape)
    values = draw(st.lists(FLOATS, min_size=n, max_size=n))
    return np.array(values, np.float64 if kind == "double" else np.float32).reshape(shape)


@settings(max_examples=400, deadline=None)
@given(arrays(), st.booleans())
def test_repr_matches_torch(array: np.ndarray, requires_grad: bool) -> None:
    requires_grad = requires_grad and array.dtype.kind == "f"
    expected = repr(torch.tensor(array, requires_grad=requires_grad))
    actual = repr(engine.tensor(array, requires_grad=requires_grad))
    assert actual == expected


def test_repr_summarized_and_wide() -> None:
    for array in [np.arange(2000, dtype=np.float32) / 7, np.arange(1200).reshape(40, 30),
                  np.linspace(-1e5, 1e5, 50, dtype=np.float32), np.arange(100.0).reshape(2, 50)]:
        assert repr(engine.tensor(array)) == repr(torch.tensor(array))
        assert repr(engine.tensor(array) * 2) == repr(torch.tensor(array) * 2)
