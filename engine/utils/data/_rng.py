"""The random draws of torch.utils.data, made as torch.randperm, torch.randint and random_() make them."""

from __future__ import annotations

from typing import Any

from engine.random import Generator, default_generator

_INT64_SPAN = 1 << 63  # random_() on an int64 tensor: a 64-bit draw modulo 2**63


def generator_or_default(generator: Any) -> Generator:
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"expected a torch.Generator, but got {type(generator).__name__}")
    return generator


def seed_from(generator: Any) -> int:
    """int(torch.empty((), dtype=torch.int64).random_(generator=generator).item())."""
    return int(generator_or_default(generator).random_from_to(1, 0, _INT64_SPAN)[0])


def fresh_generator(generator: Any) -> Generator:
    """A new Generator seeded from one draw of `generator` (the default one when None)."""
    return Generator().manual_seed(seed_from(generator))


def randperm(n: int, generator: Any) -> list[int]:
    """torch.randperm(n, generator=generator).tolist()."""
    return generator_or_default(generator).randperm(int(n)).tolist()


def randint(high: int, count: int, generator: Any) -> list[int]:
    """torch.randint(high=high, size=(count,), dtype=torch.int64, generator=generator).tolist()."""
    if not count:
        return []
    return generator_or_default(generator).random_from_to(count, 0, int(high)).tolist()
