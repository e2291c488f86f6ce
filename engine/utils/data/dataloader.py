"""torch.utils.data.DataLoader: batches of a dataset in sampler order, loaded in the calling process."""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable, Iterator

from engine.functions import _quiet
from engine.utils.data import _rng
from engine.utils.data._names import torch_repr
from engine.utils.data.collate import default_collate, default_convert
from engine.utils.data.dataset import ConcatDataset, IterableDataset, StackDataset, Subset, TensorDataset
from engine.utils.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

# Attributes PyTorch refuses to change once the loader is built.
_FIXED = frozenset({"batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers"})
_NO_ACCELERATOR = ("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                   "memory won't be used.")


def get_worker_info() -> None:
    """Loading always happens in the calling process, so there is never worker information."""
    return None


class _InfiniteConstantSampler(Sampler):
    """None forever: the index stream of an iterable-style dataset."""

    def __iter__(self) -> Iterator[None]:
        while True:
            yield None


def _reads_quietly(dataset: Any) -> bool:
    """Is indexing `dataset` the engine's own work only (no user code), so a tracer need not see each step?"""
    tp = type(dataset)
    if tp in (list, tuple, range, dict, TensorDataset):
        return True
    if tp is Subset:
        return _reads_quietly(dataset.dataset)
    if tp is ConcatDataset:
        return all(_reads_quietly(d) for d in dataset.datasets)
    if tp is StackDataset:
        parts = dataset.datasets.values() if isinstance(dataset.datasets, dict) else dataset.datasets
        return all(_reads_quietly(d) for d in parts)
    return False


class DataLoader:
    """Iterates over a dataset in batches (or sample by sample with batch_size=None)."""

    __repr__ = torch_repr
    _initialized = False

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Any = None, batch_sampler: Any = None, num_workers: int = 0,
                 collate_fn: Callable | None = None, pin_memory: bool = False, drop_last: bool = False,
                 timeout: float = 0, worker_init_fn: Callable | None = None,
                 multiprocessing_context: Any = None, generator: Any = None, *,
                 prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        self._check_workers(num_workers, timeout, prefetch_factor, persistent_workers,
                            multiprocessing_context)
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            self._check_iterable(shuffle, sampler, batch_sampler, num_workers, worker_init_fn)
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, "
                                 "sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        if sampler is None:
            if iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert

        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        self.collate_fn = collate_fn
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor if num_workers == 0 or prefetch_factor is not None else 2
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        self._iterable = iterable
        self._initialized = True

    @staticmethod
    def _check_workers(num_workers: int, timeout: float, prefetch_factor: int | None,
                       persistent_workers: bool, multiprocessing_context: Any) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let "
                             "num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to "
                             "None.")
        if prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if multiprocessing_context is not None and num_workers == 0:
            raise ValueError("multiprocessing_context can only be used with multi-process loading "
                             f"(num_workers > 0), but got num_workers={num_workers}")

    @staticmethod
    def _check_iterable(shuffle: Any, sampler: Any, batch_sampler: Any, num_workers: int,
                        worker_init_fn: Any) -> None:
        if shuffle not in {False, None}:
            raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                             f"shuffle={shuffle}")
        if sampler is not None:
            raise ValueError("DataLoader with IterableDataset: expected unspecified sampler option, but got "
                             f"sampler={sampler}")
        if batch_sampler is not None:
            raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler option, "
                             f"but got batch_sampler={batch_sampler}")
        if num_workers > 0:
            # Each worker would iterate its own copy of the stream; loading here runs in one process only.
            raise NotImplementedError("DataLoader with IterableDataset: num_workers > 0 is not supported "
                                      "(worker processes each replay the stream); use num_workers=0")

    def __setattr__(self, name: str, value: Any) -> None:
        if self._initialized and name in _FIXED:
            raise ValueError(f"{name} attribute should not be set after {type(self).__name__} is initialized")
        object.__setattr__(self, name, value)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self) -> "_SingleProcessDataLoaderIter":
        return _SingleProcessDataLoaderIter(self)

    def __len__(self) -> int:
        if not self._iterable:
            return len(self._index_sampler)
        length = len(self.dataset)
        if self.batch_size is None:
            return length
        return length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)


class _SingleProcessDataLoaderIter:
    """One pass over a DataLoader. Workers, when asked for, are not started: their batches are the same ones,
    loaded here in order."""

    __repr__ = torch_repr

    def __init__(self, loader: DataLoader) -> None:
        self._dataset = loader.dataset
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._collate_fn = loader.collate_fn
        self._index_sampler = loader._index_sampler
        if loader.pin_memory:
            warnings.warn(_NO_ACCELERATOR, stacklevel=3)
        # As in torch: the index stream starts, then one int64 seed is drawn for the (here unused) workers.
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = _rng.seed_from(loader.generator)
        if loader.timeout != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        self._stream = iter(self._dataset) if loader._iterable else None
        self._ended = False
        self._quiet_reads = not loader._iterable and _reads_quietly(self._dataset)

    def __iter__(self) -> "_SingleProcessDataLoaderIter":
        return self

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __next__(self) -> Any:
        index = next(self._sampler_iter)
        if self._stream is not None:
            return self._collate_fn(self._next_from_stream(index))
        if self._quiet_reads:
            with _quiet():
                data = self._read(index)
        else:
            data = self._read(index)
        return self._collate_fn(data)

    def _read(self, index: Any) -> Any:
        if not self._auto_collation:
            return self._dataset[index]
        many = getattr(self._dataset, "__getitems__", None)
        if many:
            return many(index)
        return [self._dataset[i] for i in index]

    def _next_from_stream(self, index: Any) -> Any:
        if self._ended:
            raise StopIteration
        if not self._auto_collation:
            return next(self._stream)
        samples = []
        for _ in index:
            try:
                samples.append(next(self._stream))
            except StopIteration:
                self._ended = True
                break
        if not samples or (self._drop_last and len(samples) < len(index)):
            raise StopIteration
        return samples
