"""torch.utils.data datasets (map-style, iterable, tensor, subset, concat, stack) and random_split."""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from typing import Any, Iterable, Sequence

from engine.random import default_generator
from engine.utils.data import _rng
from engine.utils.data._names import torch_repr


class Dataset:
    """A map-style dataset: subclasses define __getitem__ (and usually __len__)."""

    __repr__ = torch_repr

    def __class_getitem__(cls, item: Any) -> type:  # Dataset[T] in type hints and base lists
        return cls

    def __getitem__(self, index: Any) -> Any:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Any) -> "ConcatDataset":
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A stream of samples: subclasses define __iter__."""

    def __add__(self, other: Any) -> "ChainDataset":
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are the rows of tensors sharing their first dimension."""

    def __init__(self, *tensors: Any) -> None:
        rows = tensors[0].size(0)
        for t in tensors:
            if t.size(0) != rows:
                raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Samples of several equally long datasets side by side, as a tuple (positional) or a dict (keywords)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                             "input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        self._length = len(parts[0])
        if any(len(d) != self._length for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index: Any) -> Any:
        if isinstance(self.datasets, dict):
            return {key: d[index] for key, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset):
    """Several map-style datasets one after another."""

    def __init__(self, datasets: Iterable[Any]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        if any(isinstance(d, IterableDataset) for d in self.datasets):
            raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> Any:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += len(self)
        part = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[part - 1] if part else 0
        return self.datasets[part][idx - start]


class ChainDataset(IterableDataset):
    """Iterable datasets one after another."""

    def __init__(self, datasets: Iterable[Any]) -> None:
        self.datasets = datasets

    def _parts(self) -> Iterable[Any]:
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield d

    def __iter__(self) -> Any:
        for d in self._parts():
            yield from d

    def __len__(self) -> int:
        return sum(len(d) for d in self._parts())


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order."""

    def __init__(self, dataset: Any, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list) -> list:
        many = getattr(self.dataset, "__getitems__", None)
        if callable(many):
            return many([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)


def _split_lengths(total: int, fractions: Sequence[float]) -> list[int]:
    """Fractions to lengths: floor of each share, then the remainder handed out one by one from the first."""
    lengths = []
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(total * frac))
    for i in range(total - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, n in enumerate(lengths):
        if n == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                          stacklevel=3)
    return lengths


def random_split(dataset: Any, lengths: Sequence[Any], generator: Any = default_generator) -> list[Subset]:
    """Non-overlapping random subsets of the given lengths (or fractions of len(dataset))."""
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:
        lengths = _split_lengths(len(dataset), lengths)
        total = sum(lengths)
    if total != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = _rng.randperm(total, generator)
    return [Subset(dataset, order[end - n:end]) for end, n in zip(itertools.accumulate(lengths), lengths)]
