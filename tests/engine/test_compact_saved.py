"""Nodes of the 0-d path keep what they saved compactly and two-tuple edges: seen from outside,
they behave exactly like the general path's nodes and like torch's."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import engine
from conftest import torch
from engine.node import FREED, SavedTensor


def _pair(T, op: str, second: str):
    x = T.tensor(0.75, requires_grad=True)
    w = T.tensor(1.25, requires_grad=second == "grad")
    other = w if second in ("grad", "const") else 2.5
    a = x * 1.0  # a non-leaf input
    y = {"mul": lambda: a * other, "div": lambda: a / other, "add": lambda: a + other,
         "tanh": lambda: a.tanh(), "exp": lambda: a.exp(), "log": lambda: a.log()}[op]()
    return x, w, a, y


OPS = ["mul", "div", "add", "tanh", "exp", "log"]
SECONDS = ["grad", "const", "number"]


@pytest.mark.parametrize("second", SECONDS)
@pytest.mark.parametrize("op", OPS)
def test_saved_dict_matches_the_array_path(op: str, second: str) -> None:
    _, _, a, y = _pair(engine, op, second)
    assert type(y.grad_fn._sv) is tuple  # compact until read
    saved = y.grad_fn._saved
    # The same op on shape (1,) takes the general path: same slots, same kinds of value.
    x1 = engine.tensor([0.75], requires_grad=True)
    a1 = x1 * 1.0
    w1 = engine.tensor([1.25], requires_grad=second == "grad")
    o1 = w1 if second in ("grad", "const") else 2.5
    y1 = {"mul": lambda: a1 * o1, "div": lambda: a1 / o1, "add": lambda: a1 + o1,
          "tanh": lambda: a1.tanh(), "exp": lambda: a1.exp(), "log": lambda: a1.log()}[op]()
    general = y1.grad_fn._saved
    assert list(saved) == list(general)
    for slot in saved:
        assert type(saved[slot]) is type(general[slot]), slot
        if type(saved[slot]) is SavedTensor:
            assert saved[slot].is_output == general[slot].is_output
            assert saved[slot].version == general[slot].version
    assert y.grad_fn._was_saved == y1.grad_fn._was_saved


@pytest.mark.parametrize("second", SECONDS)
@pytest.mark.parametrize("op", OPS)
def test_saved_attributes_edges_and_freeing_match_torch(op: str, second: str) -> None:
    results = []
    for T in (torch, engine):
        x, w, a, y = _pair(T, op, second)
        fn = y.grad_fn
        names = [n for n in dir(fn) if n.startswith("_saved_")] if T is torch else [
            f"_saved_{s}" for s in fn.saved_slots()]
        before = {}
        for n in names:
            v = getattr(fn, n)
            before[n] = v.item() if hasattr(v, "item") else v
        edges = [(None if f is None else f.name(), nr) for f, nr in fn.next_functions]
        y.backward(retain_graph=True)
        y.backward()  # second pass reads what the first retained
        grads = (x.grad.item(), None if w.grad is None else w.grad.item())
        after = []
        for n in names:
            try:
                getattr(fn, n)
                after.append("ok")
            except RuntimeError as e:
                after.append(str(e))
        try:
            y.backward()
            third = "ok"
        except RuntimeError as e:
            third = str(e)
        results.append((type(fn).__name__, before, edges, grads, after, third))
    e, t = results[1], results[0]
    assert e[0] == t[0] and e[2] == t[2] and e[4] == t[4] and e[5] == t[5]
    assert sorted(e[1]) == sorted(t[1])
    for n in t[1]:
        if t[1][n] is None or e[1][n] is None:
            assert e[1][n] is t[1][n], n
        else:
            assert np.isclose(e[1][n], t[1][n], rtol=1e-6), n
    assert np.allclose([g for g in e[3] if g is not None], [g for g in t[3] if g is not None], rtol=1e-6)


def test_changed_saved_input_raises_torchs_error() -> None:
    messages = []
    for T in (torch, engine):
        x = T.tensor(0.5, requires_grad=True)
        a = x * 2.0
        b = a * a
        a.add_(1)
        with pytest.raises(RuntimeError) as err:
            b.backward()
        messages.append(str(err.value))
    assert messages[0] == messages[1]


def test_released_compact_node_reads_as_freed() -> None:
    x = engine.tensor(0.5, requires_grad=True)
    y = (x * 3.0).exp()
    y.backward()
    assert y.grad_fn._saved == {"result": FREED}


def test_w5_graph_costs_the_collector_two_objects_per_node() -> None:
    x = engine.tensor(0.5, requires_grad=True)
    gc.collect()
    before = len(gc.get_objects())
    v = prev = x
    for _ in range(1000):
        a = v + prev
        prev = v
        v = a * 0.5
    del a, prev
    gc.collect()
    assert (len(gc.get_objects()) - before) / 2000 <= 2.05
    v.backward()
    assert x.grad.item() == pytest.approx(np.float32(x.grad.item()))
