"""torch.func.vmap by looping: f runs once per index of the mapped dims and the results are stacked.

Values match PyTorch's batched rules (nested vmap, vmap of grad and grad of vmap included); graphs of
the stacked results differ (a StackBackward0 node joins the per-example graphs). Random operations raise
in randomness='error' mode as in PyTorch; 'same' replays the generator state for each example.
"""

from __future__ import annotations

from functools import wraps
from typing import Any, Callable

import engine as torch
from engine import random as _random
from engine.func.pytree import broadcast_prefix, tree_flatten, tree_unflatten
from engine.tensor import Tensor

__all__ = ["vmap"]

_RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either use the 'same' or "
                 "'different' randomness flags on vmap or perform the randomness operation out of vmap")


def _name(func: Callable) -> str:
    return getattr(func, "__name__", repr(func))


def _check_dims_type(dims: Any, func: Callable, in_dims: Any) -> None:
    if isinstance(dims, (tuple, list, dict)):
        for d in (dims.values() if isinstance(dims, dict) else dims):
            _check_dims_type(d, func, in_dims)
    elif dims is not None and not isinstance(dims, int):
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or "
                         f"a (potentially nested) tuple matching the structure of inputs, got: {type(dims)}.")


def _batch_size(func: Callable, in_dims: Any, args: tuple) -> tuple[list, list, int]:
    """The flat args, the in_dim of each, and the size of the mapped dimension."""
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    _check_dims_type(in_dims, func, in_dims)
    if not args:
        raise ValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you "
                         "are trying to vmap over a function with no inputs. The latter is unsupported.")
    leaves, spec = tree_flatten(args)
    dims = broadcast_prefix(in_dims, args) if isinstance(in_dims, tuple) else [in_dims] * len(leaves)
    if dims is None:
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                         f"structure of `inputs`. in_dims has structure {tree_flatten(in_dims)[1]} but inputs has "
                         f"structure {spec}.")
    sizes = []
    for i, (x, d) in enumerate(zip(leaves, dims)):
        if d is None:
            continue
        if not isinstance(x, Tensor):
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but "
                             f"the input is of type {type(x)}. We cannot vmap over non-Tensor arguments, please use "
                             "None as the respective in_dim")
        n = x.dim()
        if not -n <= d < n:
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, "
                             f"but that input is a Tensor of dimensionality {n} so expected in_dim to satisfy "
                             f"-{n} <= in_dim < {n}.")
        dims[i] = d % n
        sizes.append(x.shape[d])
    if not sizes:
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): at least one input must be a "
                         "Tensor mapped over a dimension (in_dims must not be None for all of them).")
    if len(set(sizes)) > 1:
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return leaves, dims, sizes[0], spec


class _NoRandomness:
    """Random draws raise while active (vmap's default randomness='error')."""

    def __enter__(self) -> None:
        self.saved = _random.Generator.random32

        def refuse(gen: Any, n: int) -> Any:
            raise RuntimeError(_RANDOM_ERROR)

        _random.Generator.random32 = refuse  # type: ignore[method-assign]

    def __exit__(self, *exc: Any) -> None:
        _random.Generator.random32 = self.saved  # type: ignore[method-assign]


def vmap(func: Callable, in_dims: Any = 0, out_dims: Any = 0, randomness: str = "error", *,
         chunk_size: Any = None) -> Callable:
    """func mapped over a dimension of its inputs (in_dims) with the results' batch dim at out_dims."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        leaves, dims, size, spec = _batch_size(func, in_dims, args)
        results = []
        start = _random.default_generator.get_state() if randomness == "same" else None
        for i in range(max(size, 1)):
            example = [x if d is None else (x.select(d, i) if size else torch.zeros(
                x.shape[:d] + x.shape[d + 1:], dtype=x.dtype)) for x, d in zip(leaves, dims)]
            if start is not None:
                _random.default_generator.set_state(start)
            if randomness == "error":
                with _NoRandomness():
                    out = func(*tree_unflatten(example, spec), **kwargs)
            else:
                out = func(*tree_unflatten(example, spec), **kwargs)
            results.append(out)
        return _stack_outputs(func, results, out_dims, size)

    return wrapper


def _stack_outputs(func: Callable, results: list, out_dims: Any, size: int) -> Any:
    flat = [tree_flatten(r) for r in results]
    leaves0, spec = flat[0]
    dims = broadcast_prefix(out_dims, results[0]) if isinstance(out_dims, tuple) else [out_dims] * len(leaves0)
    if dims is None:
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with "
                         f"the structure of `outputs`. out_dims has structure {tree_flatten(out_dims)[1]} but "
                         f"outputs has structure {spec}.")
    stacked = []
    for j, d in enumerate(dims):
        column = [leaves[j] for leaves, _ in flat]
        if d is None:
            if isinstance(column[0], Tensor) and any(not torch.equal(c, column[0]) for c in column[1:]):
                raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` can not return a BatchedTensor when "
                                 "out_dim is None")
            stacked.append(column[0])
            continue
        if not isinstance(column[0], Tensor):
            raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return Tensors, got type "
                             f"{type(column[0])}. Did you mean to set out_dims= to None for output?")
        if not size:
            column = [c.unsqueeze(0)[:0] for c in column[:1]]
            stacked.append(torch.cat(column).movedim(0, d))
            continue
        stacked.append(torch.stack(column, dim=d))
    return tree_unflatten(stacked, spec)
