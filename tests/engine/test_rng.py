"""torch's CPU generator reproduced: same seeds give the same numbers as torch."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from conftest import torch

SEEDS = [0, 1, 42, 12345, 2**32 + 7]
SIZES = [1, 2, 3, 7, 15, 16, 17, 33, 100]


def _both(fn_name: str, seed: int, *args, **kwargs):
    torch.manual_seed(seed)
    expected = getattr(torch, fn_name)(*args, **kwargs).numpy()
    engine.manual_seed(seed)
    actual = getattr(engine, fn_name)(*args, **{k: getattr(engine, v) if isinstance(v, str) else v
                                                for k, v in kwargs.items()})._data
    return actual, expected


@pytest.mark.parametrize("seed", SEEDS)
def test_exact_streams(seed: int) -> None:
    for n in SIZES:
        for fn, args in [("rand", (n,)), ("randperm", (n,)), ("randint", (-5, 17, (n,)))]:
            actual, expected = _both(fn, seed, *args)
            np.testing.assert_array_equal(actual, expected)
        torch.manual_seed(seed)
        expected = torch.rand(n, dtype=torch.float64).numpy()
        engine.manual_seed(seed)
        np.testing.assert_array_equal(engine.rand(n, dtype=engine.float64)._data, expected)
        torch.manual_seed(seed)
        expected = torch.randn(n, dtype=torch.float64).numpy()
        engine.manual_seed(seed)
        np.testing.assert_array_equal(engine.randn(n, dtype=engine.float64)._data, expected)


@pytest.mark.parametrize("seed", SEEDS)
def test_randn_float32(seed: int) -> None:
    for n in SIZES:
        torch.manual_seed(seed)
        expected = [torch.randn(n).numpy(), torch.randn(3).numpy()]
        engine.manual_seed(seed)
        actual = [engine.randn(n)._data, engine.randn(3)._data]
        for a, e in zip(actual, expected):
            np.testing.assert_array_equal(a, e)  # both Box-Muller paths, bit for bit


def test_large_randn_float32_is_bitwise() -> None:
    """The 16-at-a-time path over many blocks, with a mean and std (normal_) as well."""
    torch.manual_seed(11)
    expected = [torch.randn(100_003).numpy(), torch.empty(4000).normal_(-1.5, 0.25).numpy()]
    engine.manual_seed(11)
    actual = [engine.randn(100_003)._data, engine.empty(4000).normal_(-1.5, 0.25)._data]
    for a, e in zip(actual, expected):
        np.testing.assert_array_equal(a, e)


def test_linear_init_and_init_functions() -> None:
    for seed in (0, 3):
        torch.manual_seed(seed)
        t_layer = torch.nn.Linear(5, 3)
        t_w = torch.empty(4, 6)
        torch.nn.init.xavier_uniform_(t_w)
        t_n = torch.empty(20)
        torch.nn.init.normal_(t_n, 0.5, 2.0)
        engine.manual_seed(seed)
        e_layer = engine.nn.Linear(5, 3)
        e_w = engine.empty(4, 6)
        engine.nn.init.xavier_uniform_(e_w)
        e_n = engine.empty(20)
        engine.nn.init.normal_(e_n, 0.5, 2.0)
        np.testing.assert_array_equal(e_layer.weight._data, t_layer.weight.detach().numpy())
        np.testing.assert_array_equal(e_layer.bias._data, t_layer.bias.detach().numpy())
        np.testing.assert_array_equal(e_w._data, t_w.numpy())
        np.testing.assert_array_equal(e_n._data, t_n.numpy())


DISTRIBUTIONS = [("exponential_", (2.5,)), ("geometric_", (0.3,)), ("cauchy_", (0.5, 1.7)),
                 ("log_normal_", (0.3, 0.8)), ("normal_", (0.3, 1.7)), ("uniform_", (-2.0, 3.0)),
                 ("random_", (3, 9))]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_in_place_distributions_are_bitwise(seed: int, dtype: str) -> None:
    """Each distribution's draws, interleaved with randn (which shares the cached normal), bit for bit."""
    for n in SIZES:
        for name, args in DISTRIBUTIONS:
            torch.manual_seed(seed)
            expected = [getattr(torch.empty(n, dtype=getattr(torch, dtype)), name)(*args).numpy(),
                        torch.randn(3, dtype=torch.float64).numpy()]
            engine.manual_seed(seed)
            actual = [getattr(engine.empty(n, dtype=getattr(engine, dtype)), name)(*args)._data,
                      engine.randn(3, dtype=engine.float64)._data]
            for a, e in zip(actual, expected):
                np.testing.assert_array_equal(a, e, err_msg=f"{name} n={n}")


@pytest.mark.parametrize("name,args", DISTRIBUTIONS)
def test_distributions_fill_views_in_memory_order(name: str, args: tuple) -> None:
    for shape, view in [((3, 20), lambda t: t.t()), ((2, 3, 4), lambda t: t.permute(2, 0, 1)),
                        ((4, 10), lambda t: t[:, ::2])]:
        torch.manual_seed(5)
        expected = getattr(view(torch.empty(*shape)), name)(*args).numpy()
        engine.manual_seed(5)
        actual = getattr(view(engine.empty(*shape)), name)(*args)._data
        np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize("seed", [0, 1, 5489, 2**32 - 1, 67280421310721])
def test_mersenne_twister_matches_numpys(seed: int) -> None:
    """engine.mt19937 gives NumPy's MT19937 stream word for word, across several twists and in draws
    of every size (a few words at a time take a separate path)."""
    from engine.mt19937 import MT19937

    ours = MT19937(seed)
    theirs = np.random.RandomState(seed & 0xFFFFFFFF)._bit_generator
    sizes = [1, 2, 3, 8, 9, 0, 623, 624, 625, 5, 2000, 17, 1, 1250]
    for n in sizes:
        np.testing.assert_array_equal(ours.random_raw(n), theirs.random_raw(n).astype(np.uint32))
    state = theirs.state["state"]
    np.testing.assert_array_equal(ours.key, state["key"])
    assert ours.pos == state["pos"]
