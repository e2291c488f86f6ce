"""Every op case against torch 2.13: values, gradients, node names down the graph, saved slots."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from cases import CASES
from conftest import case_arrays, node_chain, run_case, to_np, torch, torch_saved


@pytest.mark.parametrize("case_id,code,shapes,opts", CASES, ids=[c[0] for c in CASES])
def test_case_matches_torch(case_id: str, code: str, shapes: tuple, opts: dict) -> None:
    arrays = case_arrays(case_id, shapes, opts)
    t_leaves, t_out = run_case(torch, code, arrays)
    e_leaves, e_out = run_case(engine, code, arrays)
    np.testing.assert_allclose(to_np(e_out), to_np(t_out), rtol=1e-4, atol=1e-5)
    assert e_out.dtype.name == str(t_out.dtype).replace("torch.", "")
    assert tuple(e_out.shape) == tuple(t_out.shape)
    if opts.get("names", True):
        assert node_chain(e_out.grad_fn, 3) == node_chain(t_out.grad_fn, 3)
        if t_out.grad_fn is not None:
            assert sorted(e_out.grad_fn.saved_slots()) == torch_saved(t_out.grad_fn)
    seed = np.random.RandomState(7).uniform(-1, 1, tuple(t_out.shape)).astype(np.float32)
    t_out.backward(torch.tensor(seed))
    e_out.backward(engine.tensor(seed))
    for t_leaf, e_leaf in zip(t_leaves, e_leaves):
        t_grad, e_grad = to_np(t_leaf.grad), to_np(e_leaf.grad)
        if t_grad is None:
            assert e_grad is None
        else:
            np.testing.assert_allclose(e_grad, t_grad, rtol=1e-4, atol=1e-5)


def test_mode_and_kthvalue_pick_torchs_index_among_ties() -> None:
    """mode's index comes from std::sort's order of equal values, kthvalue's from PyTorch's quickselect."""
    rng = np.random.RandomState(0)
    for _ in range(100):
        n = rng.randint(1, 120)
        x = rng.randint(0, rng.randint(1, 8), size=(3, n)).astype(np.float32)
        k = rng.randint(1, n + 1)
        for name, args in (("mode", (1,)), ("kthvalue", (k, 1))):
            expected = getattr(torch, name)(torch.tensor(x), *args)
            actual = getattr(engine, name)(engine.tensor(x), *args)
            np.testing.assert_array_equal(actual.values._data, expected.values.numpy())
            np.testing.assert_array_equal(actual.indices._data, expected.indices.numpy())


@pytest.mark.parametrize("value", [print, "a", None])
def test_masked_fill_refuses_values_that_are_not_numbers(value: object) -> None:
    messages = []
    for lib in (torch, engine):
        mask = lib.tensor([True, False])
        with pytest.raises(TypeError) as out:
            lib.zeros(2).masked_fill(mask, value)
        with pytest.raises(TypeError) as out_:
            lib.zeros(2).masked_fill_(mask, value)
        messages.append((str(out.value), str(out_.value)))
    assert messages[0] == messages[1]
