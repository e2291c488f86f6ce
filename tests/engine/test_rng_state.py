"""get_rng_state / set_rng_state against torch: the same ByteTensor, byte for byte, and it restores."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from conftest import torch

SEEDS = [0, 3, 2**40 + 5, -7]


def _draws(T, step: int) -> None:
    """Moves both generators the same way: scalar Box-Muller caches, 16-fill, mt19937 regeneration."""
    if step == 0:
        T.randn(3)  # leaves a cached double normal sample
    elif step == 1:
        T.rand(700)  # crosses a 624-word regeneration
    elif step == 2:
        T.randn(1, dtype=T.float64)
    elif step == 3:
        T.rand(548)  # ends exactly on a regeneration boundary
    else:
        T.randint(0, 10, (5,))


def _bytes(T) -> np.ndarray:
    state = T.get_rng_state()
    return state.numpy() if T is torch else state._data


@pytest.mark.parametrize("seed", SEEDS)
def test_state_is_torchs_byte_tensor(seed: int) -> None:
    torch.manual_seed(seed)
    engine.manual_seed(seed)
    for step in range(-1, 5):
        if step >= 0:
            _draws(torch, step)
            _draws(engine, step)
        state = engine.get_rng_state()
        assert state.dtype == engine.uint8 and repr(state.dtype) == repr(torch.get_rng_state().dtype)
        assert tuple(state.shape) == tuple(torch.get_rng_state().shape) == (5056,)
        np.testing.assert_array_equal(_bytes(engine), _bytes(torch))


def test_printed_like_torch() -> None:
    torch.manual_seed(11)
    engine.manual_seed(11)
    assert repr(engine.get_rng_state()) == repr(torch.get_rng_state())
    assert str(engine.get_rng_state().shape) == str(torch.get_rng_state().shape)


@pytest.mark.parametrize("seed", SEEDS)
def test_set_state_restores_the_stream(seed: int) -> None:
    streams = []
    for T in (torch, engine):
        T.manual_seed(seed)
        T.randn(5)
        saved = T.get_rng_state()
        first = [T.randn(7), T.rand(3), T.randn(20)]
        T.set_rng_state(saved)
        again = [T.randn(7), T.rand(3), T.randn(20)]
        for a, b in zip(first, again):
            assert (a == b).all()
        streams.append([t.numpy() if T is torch else t._data for t in first])
    for expected, actual in zip(streams[0], streams[1]):
        np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(streams[1][0], streams[0][0])  # scalar path: bit for bit


def test_state_from_torch_continues_torchs_stream() -> None:
    torch.manual_seed(123)
    torch.rand(10)
    torch.randn(1)
    engine.set_rng_state(engine.tensor(torch.get_rng_state().numpy(), dtype=engine.uint8))
    np.testing.assert_array_equal(engine.rand(1000)._data, torch.rand(1000).numpy())
    np.testing.assert_array_equal(engine.randn(3)._data, torch.randn(3).numpy())


def test_generator_object_state_round_trips() -> None:
    g = engine.Generator()
    g.manual_seed(9)
    tg = torch.Generator()
    tg.manual_seed(9)
    np.testing.assert_array_equal(g.get_state()._data, tg.get_state().numpy())


@pytest.mark.parametrize(
    "make",
    [
        lambda T: [1, 2],
        lambda T: T.zeros(5056),
        lambda T: T.zeros(10, dtype=T.uint8),
    ],
)
def test_set_state_errors_match_torch(make) -> None:
    with pytest.raises(Exception) as expected:
        torch.set_rng_state(make(torch))
    with pytest.raises(Exception) as actual:
        engine.set_rng_state(make(engine))
    assert type(actual.value) is type(expected.value)
    assert str(actual.value) == str(expected.value)
