"""The 0-d float32 fast path and the plain backward loop give exactly what the general paths and torch give."""

from __future__ import annotations

import gc
import math

import numpy as np
import pytest

import engine
from conftest import torch

SPECIAL = [0.0, -0.0, 0.5, -1.5, 3.0, 1e-30, 88.0, 89.0, 1e30, -1e30, math.inf, -math.inf, math.nan]
UNARY = ["exp", "log", "sin", "cos", "tanh", "sqrt", "abs", "neg", "reciprocal"]
BINARY = ["add", "sub", "mul", "div"]
CONSTANTS = [0.1, 2, -3, 1e-45, 1e39, 7.0000001]


def _bits(x: object) -> np.ndarray:
    a = np.asarray(x.detach().numpy() if hasattr(x, "detach") else x, np.float32)
    return np.where(np.isnan(a), np.float32(np.nan), a).view(np.int32)  # one nan, any sign


def _same(e: object, t: object) -> None:
    assert np.array_equal(_bits(e), _bits(t)), (e, t)


@pytest.mark.parametrize("op", UNARY)
def test_unary_matches_the_array_path_and_torch(op: str) -> None:
    for v in SPECIAL:
        fast = getattr(engine, op)(engine.tensor(v))
        _same(fast, getattr(engine, op)(engine.tensor([v])).reshape(()))  # shape (1,): the NumPy path
        expected = getattr(torch, op)(torch.tensor(v)).numpy()
        np.testing.assert_allclose(fast.numpy(), expected, rtol=1e-6, atol=1e-30)


@pytest.mark.parametrize("op", BINARY)
def test_binary_matches_the_array_path_and_torch(op: str) -> None:
    for a in SPECIAL:
        for b in SPECIAL + CONSTANTS:
            fast = getattr(engine, op)(engine.tensor(a), b if isinstance(b, int) else engine.tensor(b))
            # shape (1,) takes the NumPy path: the two must agree exactly
            slow = getattr(engine, op)(engine.tensor([a]), b if isinstance(b, int) else engine.tensor([b]))
            _same(fast, slow.reshape(()))
            _same(fast, getattr(torch, op)(torch.tensor(a), b if isinstance(b, int) else torch.tensor(b)))


@pytest.mark.parametrize("constant", CONSTANTS)
def test_python_numbers_round_to_float32_first(constant: float) -> None:
    x = engine.tensor(1.0 / 3.0)
    t = torch.tensor(1.0 / 3.0)
    _same(x * constant, t * constant)
    _same(x + constant, t + constant)
    _same(constant * x, constant * t)
    _same(x / constant, t / constant)


def test_chain_gradients_match_the_array_path_exactly_and_torch_closely() -> None:
    def run(lib: object, shape: tuple) -> list:
        x, w, b = (lib.full(shape, v, requires_grad=True) for v in (0.5, 0.9, 0.1))
        v = x
        for _ in range(50):
            v = lib.exp(lib.tanh(v * w + b)) / 3.0 - 0.25
        v.sum().backward()
        return [v, x.grad, w.grad, b.grad]

    for fast, slow, t in zip(run(engine, ()), run(engine, (1,)), run(torch, ())):
        _same(fast, slow.reshape(()))
        np.testing.assert_allclose(fast.detach().numpy(), t.detach().numpy(), rtol=1e-5)


def test_fast_nodes_look_like_general_ones() -> None:
    x = engine.tensor(2.0, requires_grad=True)
    y = x * x
    assert type(y.grad_fn).__name__ == "MulBackward0"
    assert y.grad_fn.next_functions == ((x.grad_fn or y.grad_fn.next_functions[0][0], 0),) * 2
    assert y.grad_fn._saved_self is x
    assert isinstance(y.grad_fn._saved_self, engine.Tensor)
    z = engine.exp(x)
    assert z.grad_fn._saved_result.equal(z)
    assert repr(z.grad_fn._saved_result) == "tensor(7.3891, grad_fn=<ExpBackward0>)"


def test_saved_version_check_and_second_backward_still_raise() -> None:
    x = engine.tensor(2.0, requires_grad=True)
    a = x * 1.0
    y = a * a
    a.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()
    z = engine.exp(x)
    z.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        z.backward()


@pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled")
def test_no_grad_inference_and_anomaly_keep_their_rules() -> None:
    x = engine.tensor(2.0, requires_grad=True)
    with engine.no_grad():
        assert (x * x).grad_fn is None
    with engine.inference_mode():
        y = x * 3.0
    assert y.is_inference()
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        x * y
    with engine.autograd.detect_anomaly():
        z = engine.log(x * 0.0)
        assert z.grad_fn._anomaly is not None


def test_gc_is_restored_after_backward_even_when_a_hook_raises() -> None:
    assert gc.isenabled()
    x = engine.tensor(2.0, requires_grad=True)
    y = engine.tanh(x * x)
    y.backward()
    assert gc.isenabled()

    def fail(grad: object) -> None:
        raise ValueError("hook failed")

    y = engine.tanh(x * x)
    y.register_hook(fail)
    with pytest.raises(ValueError, match="hook failed"):
        y.backward()
    assert gc.isenabled()
    gc.disable()
    try:
        engine.tanh(x * x).backward()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_hooks_and_retained_grads_see_tensors_not_numpy_scalars() -> None:
    x = engine.tensor(2.0, requires_grad=True)
    y = x * 3.0
    y.retain_grad()
    seen = []
    y.register_hook(lambda g: seen.append(g))
    z = y * y
    z.backward(retain_graph=True)
    z.backward()
    assert isinstance(seen[0], engine.Tensor) and type(seen[0]._data) is np.ndarray
    assert type(y.grad._data) is np.ndarray and y.grad.item() == 24.0
    assert type(x.grad._data) is np.ndarray and x.grad.item() == 72.0


def test_first_leaf_gradient_is_taken_without_a_copy_only_when_no_one_else_holds_it() -> None:
    x = engine.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    w = engine.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    (x @ w).sum().backward()
    first = x.grad
    assert first._data.base is None and first._data.flags.c_contiguous and first._data.flags.writeable
    (x @ w).sum().backward()  # accumulates in place, as PyTorch does
    assert x.grad is first
    np.testing.assert_array_equal(x.grad.numpy(), 2 * (np.ones((2, 2)) @ w.detach().numpy().T))

    # The seed the user passed reaches the leaf directly: .grad is a copy, the seed stays as it was.
    seed = engine.tensor([1.0, 2.0])
    a = engine.tensor([0.0, 0.0], requires_grad=True)
    a.backward(seed)
    a.backward(seed)
    assert a.grad._data is not seed._data
    np.testing.assert_array_equal(seed.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 4.0])

    # One gradient array sent to two leaves (AddBackward0 passes it on): each .grad is its own.
    p = engine.tensor([1.0, 2.0], requires_grad=True)
    q = engine.tensor([3.0, 4.0], requires_grad=True)
    (p + q).backward(engine.tensor([1.0, 1.0]))
    assert p.grad._data is not q.grad._data
    (p + q).backward(engine.tensor([1.0, 1.0]))
    np.testing.assert_array_equal(p.grad.numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(q.grad.numpy(), [2.0, 2.0])

    # A gradient a hook kept (as a tensor) is not taken: accumulating later leaves the kept one alone.
    kept = []
    r = engine.tensor([1.0, 2.0], requires_grad=True)
    r.register_hook(lambda g: kept.append(g))
    (r * 3.0).sum().backward()
    (r * 3.0).sum().backward()
    np.testing.assert_array_equal(kept[0].numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(r.grad.numpy(), [6.0, 6.0])


def test_node_hooks_on_0d_nodes_run_with_the_same_gradients_as_torch() -> None:
    # A node that gets hooks (or metadata) leaves the compact saved form: the plain loop then runs its
    # hooks through the general path.
    results = []
    for lib in (engine, torch):
        x = lib.tensor(0.7, requires_grad=True)
        w = lib.tensor(1.3, requires_grad=True)
        y = x * w
        z = lib.tanh(y)
        seen: list = []
        z.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(float(grad_inputs[0])))
        y.grad_fn.register_prehook(lambda grad_outputs: (grad_outputs[0] * 2,))
        e = lib.exp(z)
        e.grad_fn.metadata["seen"] = True
        (e + y).backward()
        results.append((x.grad.item(), w.grad.item(), seen))
        if lib is engine:
            assert type(y.grad_fn._sv) is dict and type(e.grad_fn._sv) is dict
    assert results[0] == results[1]


def test_partial_gradients_into_multi_output_nodes_match_torch() -> None:
    results = []
    for lib in (engine, torch):
        a = lib.tensor(np.arange(6, dtype=np.float32).reshape(3, 2), requires_grad=True)
        p, r, s = a.unbind(0)
        (r * 3).sum().backward()
        first = a.grad.tolist()
        a.grad = None
        u, v = a.split(2, 0)
        (v * v).sum().backward()
        results.append((first, a.grad.tolist()))
    assert results[0] == results[1]
