"""torch.utils.checkpoint: trade compute for memory by recomputing a segment during backward."""

from __future__ import annotations

import warnings
from typing import Any, Callable

from engine.autograd.function import Function
from engine.grad_mode import enable_grad, no_grad

_USE_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
    "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False "
    "is recommended, but if you need to preserve the current default behavior, you can pass "
    "use_reentrant=True. Refer to docs for more details on the differences between the two variants."
)


class CheckpointFunction(Function):
    """The reentrant variant: forward without a graph, recompute it with one in backward."""

    @staticmethod
    def forward(ctx: Any, run_function: Callable, preserve_rng_state: bool, *args: Any) -> Any:
        from engine.tensor import Tensor

        ctx.run_function = run_function
        ctx.inputs = args
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        from engine.autograd import backward
        from engine.tensor import Tensor

        inputs = [a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor) else a
                  for a in ctx.inputs]
        with enable_grad():
            outputs = ctx.run_function(*inputs)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads) if isinstance(o, Tensor) and o.requires_grad]
        if pairs:
            backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None, *[a.grad if isinstance(a, Tensor) else None for a in inputs])


def checkpoint(function: Callable, *args: Any, use_reentrant: bool | None = None,
               preserve_rng_state: bool = True, **kwargs: Any) -> Any:
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT_WARNING, UserWarning, stacklevel=2)
        use_reentrant = True
    if use_reentrant:
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    return _checkpoint_without_reentrant(function, preserve_rng_state, *args, **kwargs)


def _checkpoint_without_reentrant(function: Callable, preserve_rng_state: bool, *args: Any, **kwargs: Any) -> Any:
    """The graph of the segment is the graph of its ops, as PyTorch shows it, but the tensors its nodes save
    are not kept: the first one read in backward runs `function` again (with the random state it had) and
    every saved tensor is then taken from that recomputation, in the order they were saved."""
    from engine import random
    from engine.autograd.graph import saved_tensors_hooks

    rng_state = random.get_rng_state() if preserve_rng_state else None
    recomputed: list = []
    used: set = set()  # indices read since the last recomputation: reading one again starts a new one
    count = [0]

    def pack(tensor: Any) -> int:
        count[0] += 1
        return count[0] - 1

    def keep(tensor: Any) -> int:
        recomputed.append(tensor.detach())
        return len(recomputed) - 1

    def unpack(index: int) -> Any:
        if not recomputed or index in used:
            recomputed.clear()
            used.clear()
            with random.fork_rng(enabled=preserve_rng_state):
                if rng_state is not None:
                    random.set_rng_state(rng_state)
                with enable_grad(), saved_tensors_hooks(keep, lambda i: recomputed[i]):
                    function(*args, **kwargs)
        used.add(index)
        return recomputed[index]

    with saved_tensors_hooks(pack, unpack):
        return function(*args, **kwargs)


def checkpoint_sequential(functions: Any, segments: int, input: Any, use_reentrant: bool | None = None,
                          **kwargs: Any) -> Any:
    for fn in functions:
        input = checkpoint(fn, input, use_reentrant=use_reentrant if use_reentrant is not None else True)
    return input
