"""default_collate and default_convert: samples to batches as torch's DataLoader builds them."""

from __future__ import annotations

import collections.abc
import copy
from typing import Any, Callable

import numpy as np

from engine.creation import as_tensor, tensor
from engine.dtypes import float64
from engine.functions import _quiet, stack
from engine.tensor import Tensor

_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def _non_numeric(array: np.ndarray) -> bool:
    """Strings, bytes and objects: arrays that do not become tensors."""
    return array.dtype.kind in "SaUO"


def _rebuild(elem: Any, values: dict | list, mapping: bool) -> Any:
    """`values` in the container type of `elem` (a copy updated in place when mutable), else a plain one."""
    kind = collections.abc.MutableMapping if mapping else collections.abc.MutableSequence
    try:
        if isinstance(elem, kind):
            out = copy.copy(elem)
            if mapping:
                out.update(values)
            else:
                for i, v in enumerate(values):
                    out[i] = v
            return out
        return type(elem)(values)
    except TypeError:
        return values


def _is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(x, "_fields")


def _collate(batch: Any) -> Any:
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(batch, 0)
    if isinstance(elem, np.ndarray):
        if _non_numeric(elem):
            raise TypeError(_ERROR.format(elem.dtype))
        return _collate([as_tensor(b) for b in batch])
    if isinstance(elem, (np.bool_, np.number, np.object_)):
        return as_tensor(batch)
    if isinstance(elem, float):
        return tensor(batch, dtype=float64)
    if isinstance(elem, int):  # bools too: a bool tensor
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild(elem, {key: _collate([d[key] for d in batch]) for key in elem}, True)
    if _is_namedtuple(elem):
        return type(elem)(*(_collate(field) for field in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(sample) != size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        fields = [_collate(field) for field in zip(*batch)]
        return fields if isinstance(elem, tuple) else _rebuild(elem, fields, False)
    raise TypeError(_ERROR.format(type(elem)))


def _convert(data: Any) -> Any:
    if isinstance(data, Tensor):
        return data
    if type(data).__module__ == "numpy" and not isinstance(data, np.str_):
        if isinstance(data, np.ndarray) and _non_numeric(data):
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild(data, {key: _convert(data[key]) for key in data}, True)
    if _is_namedtuple(data):
        return type(data)(*(_convert(d) for d in data))
    if isinstance(data, tuple):
        return [_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild(data, [_convert(d) for d in data], False)
    return data


def _unobserved(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Run the engine's own stacking and conversions without reporting each step to an attached tracer:
    a batch appears as one tensor where the snippet first uses it."""
    def run(data: Any) -> Any:
        with _quiet():
            return fn(data)

    run.__name__, run.__qualname__, run.__doc__ = fn.__name__, fn.__name__, fn.__doc__
    return run


@_unobserved
def default_collate(batch: Any) -> Any:
    """Stack a list of samples into a batch: tensors, arrays and numbers become tensors with a leading
    batch dimension; dicts, tuples and lists are collated field by field; strings stay a list."""
    return _collate(batch)


@_unobserved
def default_convert(data: Any) -> Any:
    """NumPy arrays and scalars to tensors, inside dicts, tuples (which become lists) and lists too."""
    return _convert(data)
