"""torch.autograd.graph: Node, saved-tensor hooks, gradient edges, multi-grad hooks."""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Generator, NamedTuple, Sequence

from engine.node import SAVED_HOOKS, Node, RemovableHandle


class GradientEdge(NamedTuple):
    node: Any
    output_nr: int
    ownership_token: Any = None


def get_gradient_edge(tensor: Any) -> GradientEdge:
    """The (node, output_nr) a gradient for `tensor` flows into: usable as an input or output of
    torch.autograd.grad and backward."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    if tensor.grad_fn is not None:
        return GradientEdge(tensor.grad_fn, tensor._output_nr)
    return GradientEdge(tensor._grad_accumulator(), 0)


class saved_tensors_hooks:  # noqa: N801
    """Every tensor saved for backward inside the block is packed, and unpacked when read."""

    def __init__(self, pack_hook: Callable, unpack_hook: Callable) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        if _HOOKS_DISABLED[0] is not None:
            raise RuntimeError(_HOOKS_DISABLED[0])
        SAVED_HOOKS.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc: Any) -> None:
        SAVED_HOOKS.pop()


class save_on_cpu(saved_tensors_hooks):  # noqa: N801
    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        super().__init__(lambda t: t, lambda t: t)


# The message of the innermost disable_saved_tensors_hooks block (None outside any).
_HOOKS_DISABLED: list = [None]


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str) -> Generator[None, None, None]:
    """Inside the block, entering saved_tensors_hooks raises RuntimeError(error_message); so does entering the
    block while such hooks are active."""
    previous = _HOOKS_DISABLED[0]
    try:
        _HOOKS_DISABLED[0] = error_message
        if SAVED_HOOKS:
            raise RuntimeError(error_message)
        yield
    finally:
        _HOOKS_DISABLED[0] = previous


def increment_version(tensor: Any) -> None:
    tensors = tensor if isinstance(tensor, (list, tuple)) else (tensor,)
    for t in tensors:
        t._vc[0] += 1


def register_multi_grad_hook(tensors: Sequence[Any], fn: Callable, *, mode: str = "all") -> RemovableHandle:
    """Calls fn(grads) once the gradients of all `tensors` in one backward pass are known."""
    tensors = list(tensors)
    state: dict = {"grads": [None] * len(tensors), "seen": 0}
    handles = []

    def make(i: int) -> Callable:
        def hook(grad: Any) -> None:
            state["grads"][i] = grad
            state["seen"] += 1
            if mode == "any":
                fn(grad)
            elif state["seen"] == len([t for t in tensors if t.requires_grad]):
                grads, state["grads"], state["seen"] = state["grads"], [None] * len(tensors), 0
                fn(grads)
            return None

        return hook

    for i, t in enumerate(tensors):
        if t.requires_grad:
            handles.append(t.register_hook(make(i)))
    return _MultiHandle(handles)


class _MultiHandle:
    def __init__(self, handles: list) -> None:
        self._handles = handles

    def remove(self) -> None:
        for h in self._handles:
            h.remove()


class _Handle:
    """What allow_mutation_on_saved_tensors packs in place of a saved tensor."""


class _AllowMutationOnSavedContext:
    """The state of an allow_mutation_on_saved_tensors block: the saved tensors by handle, and the copies
    taken of those changed in place since (cleared when the block exits)."""

    def __init__(self) -> None:
        self.cloned: dict = {}
        self.original: dict = {}
        self._versions: dict = {}
        self._values: dict = {}

    def clear(self) -> None:
        self.cloned.clear()
        self.original.clear()
        self._versions.clear()
        self._values.clear()


_MUTATION_ALLOWED = [False]
_OUTSIDE = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
            "in which the graph was originally recorded.")


def _swap_with_cloned(ctx: _AllowMutationOnSavedContext) -> saved_tensors_hooks:
    """Saved-tensor hooks giving backward each saved tensor as it was when saved. PyTorch copies a saved
    tensor just before an in-place op changes it; here its value is copied when it is saved and used when
    the tensor's version has moved on since (the same values)."""

    def pack(t: Any) -> _Handle:
        handle = _Handle()
        ctx.original[handle] = t
        ctx._versions[handle] = t._vc[0]
        ctx._values[handle] = (t._data.copy(), t.grad_fn, t._output_nr, t._requires_grad, t._accumulator)
        return handle

    def unpack(handle: _Handle) -> Any:
        if not _MUTATION_ALLOWED[0] or handle not in ctx.original:
            raise AssertionError(_OUTSIDE)
        if handle in ctx.cloned:
            return ctx.cloned[handle]
        t = ctx.original[handle]
        if t._vc[0] == ctx._versions[handle]:
            return t
        from engine.tensor import Tensor

        data, grad_fn, output_nr, requires_grad, accumulator = ctx._values[handle]
        clone = Tensor._make(data, grad_fn)
        clone._output_nr, clone._requires_grad, clone._accumulator = output_nr, requires_grad, accumulator
        ctx.cloned[handle] = clone
        return clone

    return saved_tensors_hooks(pack, unpack)


@contextlib.contextmanager
def allow_mutation_on_saved_tensors() -> Generator[_AllowMutationOnSavedContext, None, None]:
    """Inside the block, changing a tensor saved for backward in place does not break that backward:
    it uses the value the tensor had when saved. Backward must run inside the same block."""
    ctx = _AllowMutationOnSavedContext()
    with _swap_with_cloned(ctx):
        try:
            if _MUTATION_ALLOWED[0]:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _MUTATION_ALLOWED[0] = True
            yield ctx
        finally:
            ctx.clear()
            _MUTATION_ALLOWED[0] = False


__all__ = ["Node", "GradientEdge", "get_gradient_edge", "saved_tensors_hooks", "save_on_cpu",
           "disable_saved_tensors_hooks", "increment_version", "register_multi_grad_hook",
           "allow_mutation_on_saved_tensors"]
