"""torch.autograd.graph: Node, saved-tensor hooks, gradient edges, multi-grad hooks."""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Sequence

from engine.node import SAVED_HOOKS, Node, RemovableHandle


class GradientEdge(NamedTuple):
    node: Any
    output_nr: int
    ownership_token: Any = None


def get_gradient_edge(tensor: Any) -> GradientEdge:
    if tensor.grad_fn is not None:
        return GradientEdge(tensor.grad_fn, tensor._output_nr)
    return GradientEdge(tensor._grad_accumulator(), 0)


class saved_tensors_hooks:  # noqa: N801
    """Every tensor saved for backward inside the block is packed, and unpacked when read."""

    def __init__(self, pack_hook: Callable, unpack_hook: Callable) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        SAVED_HOOKS.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc: Any) -> None:
        SAVED_HOOKS.pop()


class save_on_cpu(saved_tensors_hooks):  # noqa: N801
    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        super().__init__(lambda t: t, lambda t: t)


class disable_saved_tensors_hooks:  # noqa: N801
    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        self._saved = list(SAVED_HOOKS)
        SAVED_HOOKS.clear()

    def __exit__(self, *exc: Any) -> None:
        SAVED_HOOKS.extend(self._saved)


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


class allow_mutation_on_saved_tensors:  # noqa: N801
    """Accepted for compatibility; mutations of saved tensors still raise the version error."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


__all__ = ["Node", "GradientEdge", "get_gradient_edge", "saved_tensors_hooks", "save_on_cpu",
           "disable_saved_tensors_hooks", "increment_version", "register_multi_grad_hook"]
