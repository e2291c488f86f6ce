"""The backward executor: runs ready nodes in PyTorch's order, summing what arrives at each."""

from __future__ import annotations

import heapq
from typing import Any, Sequence

import numpy as np

from engine import grad_mode, observe
from engine.node import AccumulateGrad, Node


class Pass:
    """One backward() or autograd.grad() call over the graph below `roots`."""

    def __init__(
        self,
        roots: Sequence[tuple[Node, int]],
        seeds: Sequence[Any],
        retain_graph: bool,
        create_graph: bool,
        capture: Sequence[tuple[Node, int]] | None = None,
        accumulate_into: Sequence[Node] | None = None,
    ) -> None:
        self.roots = list(roots)
        self.seeds = list(seeds)
        self.retain_graph = retain_graph
        self.create_graph = create_graph
        self.capture = list(capture) if capture is not None else None
        self.accumulate_into = set(accumulate_into) if accumulate_into is not None else None
        self.captured: list[Any] = [None] * len(self.capture or ())

    def run(self) -> list[Any]:
        reach, runs = self._reach_and_run(self._walk())
        dependencies = self._count_dependencies(runs, reach)
        buffers: dict[Node, list] = {}
        ready: list = []
        order = 0
        obs = observe.current
        # The roots behave like one graph root that sends each seed along its edge.
        for (node, nr), seed in zip(self.roots, self.seeds):
            if obs is not None:
                obs.grad_sent(None, None, node, nr, seed, _buffer_total(buffers, node, nr, seed))
            _add(buffers, node, nr, seed)
            dependencies[node] -= 1
        for node in dict.fromkeys(n for n, _ in self.roots):
            if dependencies[node] == 0:
                heapq.heappush(ready, (-node._seq, order, node))
                order += 1
        previous_mode = grad_mode.state.enabled
        grad_mode.state.enabled = self.create_graph
        try:
            while ready:
                _, _, node = heapq.heappop(ready)
                grads = buffers.pop(node)
                grads = self._run_tensor_hooks(node, grads, obs)
                if self.capture is not None:
                    for i, (target, nr) in enumerate(self.capture):
                        if target is node:
                            self.captured[i] = grads[nr]
                if node not in runs:
                    continue
                try:
                    sent = self._execute(node, grads, obs)
                except Exception:
                    if grad_mode.state.anomaly and node._anomaly is not None:
                        from engine.autograd.anomaly_mode import report_failure

                        report_failure(node)
                    raise
                if grad_mode.state.anomaly and grad_mode.state.check_nan:
                    from engine.autograd.anomaly_mode import check_nan

                    check_nan(node, sent)
                for i, edge in enumerate(node._edges):
                    if edge is None or sent[i] is None:
                        continue
                    target, nr = edge
                    if target not in reach:
                        continue
                    if obs is not None:
                        total = _buffer_total(buffers, target, nr, sent[i])
                        obs.grad_sent(node, i, target, nr, sent[i], total)
                    _add(buffers, target, nr, sent[i])
                    dependencies[target] -= 1
                    if dependencies[target] == 0:
                        heapq.heappush(ready, (-target._seq, order, target))
                        order += 1
                if not self.retain_graph:
                    node.release()
        finally:
            grad_mode.state.enabled = previous_mode
        return self.captured

    def _walk(self) -> dict[Node, None]:
        """Every node below the roots (insertion-ordered)."""
        seen: dict[Node, None] = {}
        stack = []
        for node, _ in self.roots:
            if node not in seen:
                seen[node] = None
                stack.append(node)
        while stack:
            for edge in stack.pop()._edges:
                if edge is not None and edge[0] not in seen:
                    seen[edge[0]] = None
                    stack.append(edge[0])
        return seen

    def _count_dependencies(self, runs: Any, reach: Any) -> dict[Node, int]:
        """How many gradients each reached node waits for before it is ready."""
        dependencies: dict[Node, int] = dict.fromkeys(reach, 0)
        for node, _ in self.roots:
            dependencies[node] = dependencies.get(node, 0) + 1
        for node in runs:
            for edge in node._edges:
                if edge is not None and edge[0] in dependencies:
                    dependencies[edge[0]] += 1
        return dependencies

    def _reach_and_run(self, graph: dict[Node, None]) -> tuple[Any, Any]:
        """Nodes that receive gradients, and nodes that execute.

        backward() runs everything below the roots. With targets (autograd.grad's inputs, or
        backward's `inputs=`) only nodes that lead to a target run; a captured node is reached
        but runs only if it leads to another target, as in PyTorch.
        """
        if self.capture is None and self.accumulate_into is None:
            return graph, graph
        captured = {n for n, _ in self.capture} if self.capture is not None else set()
        accumulated = self.accumulate_into or set()
        targets = captured | accumulated
        leads: set[Node] = set()
        done: set[Node] = set()
        stack: list[tuple[Node, bool]] = [(n, False) for n, _ in self.roots]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                if any(e is not None and (e[0] in leads or e[0] in targets) for e in node._edges):
                    leads.add(node)
                continue
            if node in done:
                continue
            done.add(node)
            stack.append((node, True))
            stack.extend((e[0], False) for e in node._edges if e is not None and e[0] not in done)
        return leads | targets, leads | accumulated

    def _run_tensor_hooks(self, node: Node, grads: list, obs: Any) -> list:
        hooks = node._tensor_pre_hooks
        if hooks:
            for nr, registry in hooks.items():
                for fn in list(registry.values()):
                    if grads[nr] is None:
                        continue
                    grads[nr] = _call_tensor_hook(fn, grads[nr], self.create_graph)
                    if obs is not None:
                        obs.hook_fired("tensor", node, nr, fn, grads[nr])
        retained = node._retained
        if retained:
            for nr, tensor in retained.items():
                if grads[nr] is not None:
                    _retain(tensor, grads[nr], self.create_graph)
                    if obs is not None:
                        obs.grad_retained(tensor, tensor._grad)
        return grads

    def _execute(self, node: Node, grads: list, obs: Any) -> tuple:
        if node._pre_hooks:
            for fn in list(node._pre_hooks.values()):
                out = fn(tuple(_as_user(g) for g in grads))
                if obs is not None:
                    obs.hook_fired("prehook", node, 0, fn, out)
                if out is not None:
                    grads = [_as_internal(g, self.create_graph) for g in out]
        if isinstance(node, AccumulateGrad):
            if self.accumulate_into is None or node in self.accumulate_into:
                _accumulate(node, grads[0], self.create_graph, obs)
            sent: tuple = ()
        else:
            if obs is not None:
                obs.node_started(node, grads)
            ctx = getattr(node, "ctx", None)
            if ctx is None or ctx.materialize_grads:
                grads = _materialize(node, grads, self.create_graph)
            sent = node.apply_backward(tuple(grads), self.create_graph)
            if obs is not None:
                obs.node_finished(node, grads, sent)
        if node._post_hooks:
            for fn in list(node._post_hooks.values()):
                out = fn(tuple(_as_user(g) for g in sent), tuple(_as_user(g) for g in grads))
                if obs is not None:
                    obs.hook_fired("posthook", node, 0, fn, out)
                if out is not None:
                    sent = tuple(_as_internal(g, self.create_graph) for g in out)
        return sent


def _buffer_total(buffers: dict, node: Node, nr: int, grad: Any) -> Any:
    slots = buffers.get(node)
    previous = slots[nr] if slots is not None and nr < len(slots) else None
    return grad if previous is None else previous + grad


def _add(buffers: dict, node: Node, nr: int, grad: Any) -> None:
    slots = buffers.get(node)
    if slots is None:
        n = len(node._out_meta) if not isinstance(node, AccumulateGrad) and node._out_meta else 1
        slots = buffers[node] = [None] * max(n, nr + 1)
    slots[nr] = grad if slots[nr] is None else slots[nr] + grad


def _materialize(node: Node, grads: list, create_graph: bool) -> list:
    """Outputs that received no gradient get zeros, as PyTorch materializes them."""
    if all(g is not None for g in grads):
        return grads
    out = []
    for g, (shape, dtype) in zip(grads, node._out_meta):
        if g is None:
            g = np.zeros(shape, dtype)
            if create_graph:
                from engine.tensor import Tensor

                g = Tensor._make(g)
        out.append(g)
    return out


def _as_user(g: Any) -> Any:
    """Gradients are arrays inside a plain backward; hooks see tensors."""
    from engine.tensor import Tensor

    if g is None or isinstance(g, Tensor):
        return g
    return Tensor._make(np.asarray(g))


def _as_internal(g: Any, create_graph: bool) -> Any:
    from engine.tensor import Tensor

    if g is None or create_graph:
        return g
    return g._data if isinstance(g, Tensor) else np.asarray(g)


def _call_tensor_hook(fn: Any, grad: Any, create_graph: bool) -> Any:
    from engine.tensor import Tensor

    value = _as_user(grad)
    out = fn(value)
    if out is None:
        return grad
    name = getattr(fn, "__name__", "hook")
    if not isinstance(out, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(out).__name__}'")
    if out._data.shape != value._data.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")
    if out._data.dtype != value._data.dtype:
        raise RuntimeError(
            f"hook '{name}' has changed the type of value (was torch.{value.dtype.legacy}Tensor got "
            f"torch.{out.dtype.legacy}Tensor)"
        )
    return _as_internal(out, create_graph)


def _retain(tensor: Any, grad: Any, create_graph: bool) -> None:
    from engine.tensor import Tensor

    if tensor._grad is None:
        tensor._grad = grad if create_graph else Tensor._make(np.array(grad, copy=True))
    elif create_graph:
        tensor._grad = tensor._grad + grad
    else:
        tensor._grad = Tensor._make(tensor._grad._data + grad)


def _accumulate(node: AccumulateGrad, grad: Any, create_graph: bool, obs: Any) -> None:
    from engine.tensor import Tensor

    leaf = node.variable
    before = leaf._grad
    dtype = leaf._data.dtype
    if create_graph:
        g = grad if isinstance(grad, Tensor) else Tensor._make(np.asarray(grad))
        if g._data.dtype != dtype:
            g = g.to(leaf.dtype)
        leaf._grad = g if before is None else before + g
    else:
        array = np.asarray(grad)
        if before is None:
            leaf._grad = Tensor._make(np.array(array, dtype=dtype, copy=True))
        else:
            if obs is not None:
                before = Tensor._make(before._data.copy())
            np.add(leaf._grad._data, array, out=leaf._grad._data, casting="unsafe")
            leaf._grad._vc[0] += 1
    if obs is not None:
        obs.grad_accumulated(node, leaf, before, grad, leaf._grad)
    hooks = leaf._post_acc_hooks
    if hooks:
        for fn in list(hooks.values()):
            fn(leaf)
            if obs is not None:
                obs.hook_fired("post_accumulate", node, 0, fn, None)


def call_node(node: Node, grads: tuple) -> Any:
    """Calling a grad_fn directly, as `y.grad_fn(g)` does in PyTorch."""
    from engine.tensor import Tensor

    inner = [g._data if isinstance(g, Tensor) else g for g in grads]
    out = node.apply_backward(tuple(inner), False)
    results = tuple(None if g is None else Tensor._make(np.asarray(g)) for g in out)
    return results if len(results) != 1 else results[0]
