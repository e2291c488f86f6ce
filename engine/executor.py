"""The backward executor: runs ready nodes in PyTorch's order, summing what arrives at each."""

from __future__ import annotations

import gc
import sys
from collections import deque
from heapq import heappop, heappush
from typing import Any, Sequence

import numpy as np

from engine import dtypes, grad_mode, observe
from engine.node import AccumulateGrad, Node
from engine.rules import SCALAR_PLANS, backward_node
from engine.tensor import Tensor

_F32 = np.dtype(np.float32)
_getrefcount = sys.getrefcount


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
        if self.capture is None and self.accumulate_into is None:
            # backward() without inputs=: every node below the roots receives and runs.
            self._run_plain(self._walk_counting(), observe.current)
            return self.captured
        reach, runs = self._reach_and_run(self._walk())
        dependencies = self._count_dependencies(runs, reach)
        buffers: dict[Node, list] = {}
        obs = observe.current
        create_graph = self.create_graph
        release = not self.retain_graph
        ready, order = self._seed(buffers, dependencies, obs)
        previous_mode = grad_mode.state.enabled
        grad_mode.state.enabled = create_graph
        try:
            while ready:
                node = heappop(ready)[2]
                grads = buffers.pop(node)
                extra = node._extra
                if extra is not None and (extra.tensor_pre_hooks or extra.retained):
                    grads = self._run_tensor_hooks(node, grads, obs)
                if self.capture is not None:
                    for i, (target, nr) in enumerate(self.capture):
                        if target is node:
                            self.captured[i] = grads[nr]
                if node not in runs:
                    continue
                try:
                    if node._plain and _unhooked(extra) and _complete(grads):
                        if obs is None:
                            sent = backward_node(node, grads, create_graph, reach)
                        else:
                            obs.node_started(node, grads)
                            sent = backward_node(node, grads, create_graph, reach)
                            obs.node_finished(node, grads, sent)
                    else:
                        sent = self._execute(node, grads, obs)
                except Exception:
                    if grad_mode.state.anomaly and node._anomaly is not None:
                        from engine.autograd.anomaly_mode import report_failure

                        report_failure(node)
                    raise
                if grad_mode.state.anomaly and grad_mode.state.check_nan:
                    from engine.autograd.anomaly_mode import check_nan

                    check_nan(node, sent)
                i = -1
                for target, nr in zip(node._next, node._nrs):
                    i += 1
                    if target is None:
                        continue
                    g = sent[i]
                    if g is None:
                        order = self._nothing_sent(target, dependencies, buffers, ready, order)
                        continue
                    if target not in reach:
                        continue
                    if obs is not None:
                        obs.grad_sent(node, i, target, nr, g, _buffer_total(buffers, target, nr, g))
                    slots = buffers.get(target)
                    if slots is None:
                        if nr == 0 and (type(target) is AccumulateGrad or len(target._out_meta) == 1):
                            buffers[target] = [g]
                        else:
                            _add(buffers, target, nr, g)
                    else:
                        _add(buffers, target, nr, g)
                    left = dependencies[target] - 1
                    dependencies[target] = left
                    if left == 0:
                        heappush(ready, (-target._seq, order, target))
                        order += 1
                if release and (node._was_saved or not node._plain):
                    node.release()
        finally:
            grad_mode.state.enabled = previous_mode
        return self.captured

    def _seed(self, buffers: dict, dependencies: dict[Node, int], obs: Any) -> tuple[list, int]:
        """The roots act as one graph root sending each seed along its edge: the first ready heap."""
        ready: list = []
        order = 0
        for (node, nr), seed in zip(self.roots, self.seeds):
            if obs is not None:
                obs.grad_sent(None, None, node, nr, seed, _buffer_total(buffers, node, nr, seed))
            if type(seed) is np.ndarray and not seed.shape and seed.dtype is _F32:
                seed = seed[()]  # 0-d float32 gradients flow as NumPy scalars (see rules.backward_node)
            _add(buffers, node, nr, seed)
            dependencies[node] -= 1
        for node in dict.fromkeys(n for n, _ in self.roots):
            if dependencies[node] == 0:
                heappush(ready, (-node._seq, order, node))
                order += 1
        return ready, order

    def _run_plain(self, dependencies: dict[Node, int], obs: Any) -> None:
        """run() for the common case, kept tight: every node below the roots runs.

        Same order as run(): ready nodes by descending sequence number. A node that becomes ready
        while no other one waits is run next without going through the heap or the buffers. With
        an observer each node runs through _step, and every gradient sent is reported.
        """
        buffers: dict[Node, list] = {}
        create_graph = self.create_graph
        release = not self.retain_graph
        state = grad_mode.state
        ready, order = self._seed(buffers, dependencies, obs)
        previous_mode = state.enabled
        state.enabled = create_graph
        # The pass allocates many short-lived objects and frees none of the graph: generation-0
        # collections would scan young objects for cycles that are not there. Objects made by hooks
        # or under create_graph are collected as usual once the pass ends.
        collecting = gc.isenabled()
        if collecting:
            gc.disable()
        held = None  # the next node to run, when it is the only ready one
        held_grads = None
        compact = not create_graph  # 0-d path nodes run their ScalarPlan's backward
        try:
            while True:
                if held is not None:
                    node, grads = held, held_grads
                    held = held_grads = None  # no reference may outlive its node (big arrays)
                elif ready:
                    node = heappop(ready)[2]
                    grads = buffers.pop(node)
                else:
                    break
                sent = None
                try:
                    if obs is not None:
                        sent = self._step(node, grads, obs)
                        grads = None
                    elif type(sv := node._sv) is tuple and compact:  # a 0-d path node, without extras (see Node._extras)
                        plan = SCALAR_PLANS[sv[0]]
                        run = plan.backward  # gives None if released or changed (a slot: no method call)
                        sent = run(sv, grads[0])
                        if sent is not None and release:
                            node._sv = plan.released
                    if sent is None:
                        extra = node._extra
                        if extra is None and type(node) is AccumulateGrad:
                            grad = grads[0]
                            # .grad may take the gradient without a copy if nothing else refers to
                            # it (see _accumulate): the pass drops its own references first.
                            grads = held_grads = slots = previous = g = None
                            unshared = _getrefcount(grad) == 2  # `grad` and the call's argument
                            _accumulate(node, grad, create_graph, None, unshared)
                            grad = None
                            continue
                        outputs = len(node._out_meta)
                        if len(grads) < outputs:  # a buffer ends at the last output that received a gradient
                            grads += [None] * (outputs - len(grads))
                        if extra is None and node._plain and (outputs == 1 or _complete(grads)):
                            sent = backward_node(node, grads, create_graph)
                            if release and node._was_saved:
                                node.release()
                        else:  # hooks, retained outputs, a custom Function, a missing gradient
                            sent = self._step(node, grads, None)
                except Exception:
                    if state.anomaly and node._anomaly is not None:
                        from engine.autograd.anomaly_mode import report_failure

                        report_failure(node)
                    raise
                if state.anomaly and state.check_nan:
                    from engine.autograd.anomaly_mode import check_nan

                    check_nan(node, sent)
                # By index rather than zip(): a zip object costs more than one or two edges' work.
                # `sent` has one entry per edge (see _step).
                edges = node._next
                nrs = node._nrs
                i = -1
                for g in sent:
                    i += 1
                    if g is None:
                        target = edges[i]
                        if target is not None:
                            if held is not None:  # keep the order: the held node waits in the heap
                                buffers[held] = held_grads
                                heappush(ready, (-held._seq, order, held))
                                order += 1
                                held = held_grads = None
                            order = self._nothing_sent(target, dependencies, buffers, ready, order)
                        continue
                    target = edges[i]
                    if target is None:
                        continue
                    left = dependencies[target] - 1
                    slots = buffers.get(target)
                    if slots is None:
                        nr = nrs[i]
                        slots = [g] if nr == 0 else [None] * nr + [g]
                        if left:  # more gradients to come: wait in the buffers
                            buffers[target] = slots
                        if obs is not None:
                            obs.grad_sent(node, i, target, nr, g, g)
                    else:
                        nr = nrs[i]
                        if nr < len(slots):
                            previous = slots[nr]
                            slots[nr] = total = g if previous is None else _sum(previous, g)
                        else:
                            slots += [None] * (nr - len(slots)) + [g]
                            total = g
                        if obs is not None:
                            obs.grad_sent(node, i, target, nr, g, total)
                        if not left:  # ready: out of the buffers (the heap below puts it back)
                            del buffers[target]
                    if left:
                        dependencies[target] = left
                    elif held is None and not ready:
                        held = target
                        held_grads = slots
                    else:
                        if held is not None:
                            buffers[held] = held_grads
                            heappush(ready, (-held._seq, order, held))
                            order += 1
                            held = held_grads = None
                        buffers[target] = slots
                        heappush(ready, (-target._seq, order, target))
                        order += 1
        finally:
            state.enabled = previous_mode
            if collecting:
                gc.enable()

    def _nothing_sent(self, target: Node, dependencies: dict[Node, int], buffers: dict, ready: list,
                      order: int) -> int:
        """An edge into `target` carried no gradient (a backward returned None for it): `target`
        stops waiting for it. Ready with nothing received, it runs nothing, and neither does what
        waits only on it, as PyTorch passes undefined gradients through. Returns the heap counter."""
        stack = [target]
        while stack:
            node = stack.pop()
            left = dependencies.get(node)
            if left is None:  # outside what this pass reaches
                continue
            dependencies[node] = left = left - 1
            if left:
                continue
            if node in buffers:  # something did arrive: it runs in its turn
                heappush(ready, (-node._seq, order, node))
                order += 1
                continue
            if not self.retain_graph and (node._was_saved or not node._plain):
                node.release()
            stack.extend(t for t in node._next if t is not None)
        return order

    def _step(self, node: Node, grads: list, obs: Any) -> tuple:
        """One node of _run_plain off its fast path (hooks, a custom Function, an output without a
        gradient) or under an observer, as run() steps it: hooks, its backward (between node_started
        and node_finished), releasing what it saved unless the graph is retained. Returns one
        gradient per edge, as _run_plain reads them."""
        extra = node._extra
        if len(grads) < len(node._out_meta):  # a buffer ends at the last output that received a gradient
            grads += [None] * (len(node._out_meta) - len(grads))
        if extra is not None and (extra.tensor_pre_hooks or extra.retained):
            grads = self._run_tensor_hooks(node, grads, obs)
        release = not self.retain_graph
        if node._plain and _unhooked(extra) and _complete(grads):
            if obs is not None:
                obs.node_started(node, grads)
            sv = node._sv
            sent = None
            if type(sv) is tuple and not self.create_graph:  # a 0-d path node: its plan's backward
                plan = SCALAR_PLANS[sv[0]]
                sent = plan.backward(sv, grads[0])  # None if released or changed: backward_node raises
                if sent is not None and release:
                    node._sv = plan.released
                    release = False
            if sent is None:
                sent = backward_node(node, grads, self.create_graph)
            if obs is not None:
                obs.node_finished(node, grads, sent)
        else:
            sent = self._execute(node, grads, obs)
        if release and (node._was_saved or not node._plain):
            node.release()
        n = len(node._next)
        if len(sent) != n:  # drop extras, None for missing ones
            sent = (tuple(sent) + (None,) * n)[:n]
        return sent

    def _walk_counting(self) -> dict[Node, int]:
        """Every node below the roots, with how many gradients it waits for (one walk)."""
        counts: dict[Node, int] = {}
        stack: deque = deque()  # a list would shrink and grow again at each node of a chain
        for node, _ in self.roots:
            if node not in counts:
                counts[node] = 0
                stack.append(node)
        get = counts.get
        push = stack.append
        pop = stack.pop
        while stack:
            for target in pop()._next:
                if target is not None:
                    n = get(target)
                    if n is None:
                        counts[target] = 1
                        push(target)
                    else:
                        counts[target] = n + 1
        for node, _ in self.roots:
            counts[node] += 1
        return counts

    def _walk(self) -> dict[Node, None]:
        """Every node below the roots (insertion-ordered)."""
        seen: dict[Node, None] = {}
        stack = []
        for node, _ in self.roots:
            if node not in seen:
                seen[node] = None
                stack.append(node)
        while stack:
            for target in stack.pop()._next:
                if target is not None and target not in seen:
                    seen[target] = None
                    stack.append(target)
        return seen

    def _count_dependencies(self, runs: Any, reach: Any) -> dict[Node, int]:
        """How many gradients each reached node waits for before it is ready."""
        dependencies: dict[Node, int] = dict.fromkeys(reach, 0)
        for node, _ in self.roots:
            dependencies[node] = dependencies.get(node, 0) + 1
        for node in runs:
            for target in node._next:
                if target is not None and target in dependencies:
                    dependencies[target] += 1
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
                if any(n is not None and (n in leads or n in targets) for n in node._next):
                    leads.add(node)
                continue
            if node in done:
                continue
            done.add(node)
            stack.append((node, True))
            stack.extend((n, False) for n in node._next if n is not None and n not in done)
        return leads | targets, leads | accumulated

    def _run_tensor_hooks(self, node: Node, grads: list, obs: Any) -> list:
        hooks = node._tensor_pre_hooks
        if hooks:
            for nr, registry in hooks.items():
                for fn in list(registry.values()):
                    if grads[nr] is None:  # an output that got no gradient: PyTorch passes None
                        if fn(None) is not None:
                            raise RuntimeError("can't replace a None gradient with a non-None value")
                    else:
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
                given = tuple(_as_user(g) for g in grads)
                out = fn(given)
                if obs is not None:
                    obs.hook_fired("prehook", node, 0, fn, out)
                if out is not None:
                    grads = [_as_internal(g, self.create_graph) for g in _checked_hook_result(fn, given, out)]
        if isinstance(node, AccumulateGrad):
            # (a pre-hook may have taken the gradient away: nothing to accumulate, as in PyTorch)
            if grads[0] is not None and (self.accumulate_into is None or node in self.accumulate_into):
                _accumulate(node, grads[0], self.create_graph, obs)
            sent: tuple = ()
        else:
            if obs is not None:
                obs.node_started(node, grads)
            ctx = node.ctx
            if ctx is None and all(g is None for g in grads):
                sent = (None,) * len(node._next)  # pre-hooks took every gradient away: PyTorch sends none
            else:
                if ctx is None or ctx.materialize_grads:
                    grads = _materialize(node, grads, self.create_graph)
                sent = node.apply_backward(tuple(grads), self.create_graph)
            if obs is not None:
                obs.node_finished(node, grads, sent)
        if node._post_hooks:
            for fn in list(node._post_hooks.values()):
                given = tuple(_as_user(g) for g in sent)
                out = fn(given, tuple(_as_user(g) for g in grads))
                if obs is not None:
                    obs.hook_fired("posthook", node, 0, fn, out)
                if out is not None:
                    sent = tuple(_as_internal(g, self.create_graph) for g in _checked_hook_result(fn, given, out))
        return sent


def _unhooked(extra: Any) -> bool:
    """No pre- or post-hooks among a node's extras (see node.NodeExtras)."""
    return extra is None or (extra.pre_hooks is None and extra.post_hooks is None)


def _complete(grads: list) -> bool:
    for g in grads:
        if g is None:
            return False
    return True


def _sum(a: Any, b: Any) -> Any:
    """Two gradients of one output added up; bfloat16 ones (arrays: NumPy adds them in float32) rounded
    to bfloat16, as PyTorch adds them."""
    total = a + b
    if type(a) is np.ndarray and a.dtype is not _F32 and a.dtype.byteorder == ">":
        return dtypes.round_bf16(total)
    return total


def _buffer_total(buffers: dict, node: Node, nr: int, grad: Any) -> Any:
    slots = buffers.get(node)
    previous = slots[nr] if slots is not None and nr < len(slots) else None
    return grad if previous is None else _sum(previous, grad)


def _add(buffers: dict, node: Node, nr: int, grad: Any) -> None:
    slots = buffers.get(node)
    if slots is None:
        n = len(node._out_meta) if not isinstance(node, AccumulateGrad) and node._out_meta else 1
        slots = buffers[node] = [None] * max(n, nr + 1)
    slots[nr] = grad if slots[nr] is None else _sum(slots[nr], grad)


def _materialize(node: Node, grads: list, create_graph: bool) -> list:
    """Outputs that received no gradient get zeros, as PyTorch materializes them."""
    if all(g is not None for g in grads):
        return grads
    out = []
    for g, (shape, dtype) in zip(grads, node._out_meta):
        if g is None:
            g = np.zeros(shape, dtype)
            if create_graph:
                            g = Tensor._make(g)
        out.append(g)
    return out


def _as_user(g: Any) -> Any:
    """Gradients are arrays inside a plain backward; hooks see tensors."""
    if g is None or isinstance(g, Tensor):
        return g
    return Tensor._make(np.asarray(g))


def _as_internal(g: Any, create_graph: bool) -> Any:
    if g is None or create_graph:
        return g
    return g._data if isinstance(g, Tensor) else np.asarray(g)


def _call_tensor_hook(fn: Any, grad: Any, create_graph: bool) -> Any:
    value = _as_user(grad)
    out = fn(value)
    if out is None:
        return grad
    _check_hook_value(fn, value, out)
    return _as_internal(out, create_graph)


def _hook_name(fn: Any) -> str:
    name = getattr(fn, "__name__", None)
    return name if type(name) is str else "hook"


def _type_string(t: Tensor) -> str:
    """How PyTorch's hook checks name a tensor's type (Tensor::toString)."""
    legacy = t.dtype.legacy
    return f"CPU{legacy}Type" if legacy.startswith("Complex") or legacy == "BFloat16" else f"torch.{legacy}Tensor"


def _check_hook_value(fn: Any, original: Any, out: Any) -> None:
    """A gradient a hook returned in place of `original`: a tensor of the same type and size (PyTorch's
    check_single_result). The backward formulas rely on it: a gradient of another dtype or shape would
    reach NumPy views built from the shapes and strides the node expects."""
    if not isinstance(out, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(out).__name__}'")
    if original is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if out._data.dtype != original._data.dtype or out.dtype is not original.dtype:
        raise RuntimeError(f"hook '{_hook_name(fn)}' has changed the type of value (was {_type_string(original)} "
                           f"got {_type_string(out)})")
    if out._data.shape != original._data.shape:
        raise RuntimeError(f"hook '{_hook_name(fn)}' has changed the size of value")


def _checked_hook_result(fn: Any, given: tuple, out: Any) -> tuple:
    """What a node pre-hook or hook returned in place of the gradients `given` (PyTorch's check_result):
    a tuple of as many values, each None or a tensor like the one it replaces."""
    if type(out) is not tuple:
        raise TypeError(f"expected tuple, but hook returned '{type(out).__name__}'")
    if len(out) != len(given):
        raise RuntimeError(f"hook '{_hook_name(fn)}' has returned an incorrect number of values (got {len(out)}, "
                           f"but expected {len(given)})")
    for original, value in zip(given, out):
        if value is not None:
            _check_hook_value(fn, original, value)
    return out


def _retain(tensor: Any, grad: Any, create_graph: bool) -> None:
    if tensor._grad is None:
        tensor._grad = grad.clone() if create_graph else Tensor._make(np.array(grad, copy=True))
    elif create_graph:
        tensor._grad = tensor._grad + grad
    else:
        tensor._grad = Tensor._make(np.asarray(tensor._grad._data + grad))


def _accumulate(node: AccumulateGrad, grad: Any, create_graph: bool, obs: Any, unshared: bool = False) -> None:
    """Add `grad` into the leaf's .grad. Like PyTorch, a first gradient that no one else refers to
    (`unshared`: only the caller holds it) becomes .grad itself when it is an array of the leaf's
    dtype owning C-contiguous, writable data; anything else is copied."""
    leaf = node.variable
    before = leaf._grad
    dtype = leaf._data.dtype
    if not leaf._requires_grad:  # requires_grad_(False) after the graph was built: .grad is left as it is
        pass
    elif create_graph:
        g = grad if isinstance(grad, Tensor) else Tensor._make(np.asarray(grad))
        if g._data.dtype != dtype:
            g = g.to(leaf.dtype)
        # PyTorch copies a first gradient into a fresh tensor (CopyBackwards when it has a graph)
        leaf._grad = _copy_of(g) if before is None else before + g
    else:
        try:
            array = np.asarray(grad)
        except TypeError:  # a sparse gradient (see engine.sparse_coo)
            array = None
        if array is None or (before is not None and before.is_sparse):
            from engine.sparse_coo import accumulate

            if obs is not None and before is not None:
                before = before.detach()
            accumulate(leaf, grad)
        elif before is None:
            data = leaf._data
            if unshared and _own_array(array, dtype) and array.strides == data.strides:
                leaf._grad = Tensor._make(array)
            elif dtype == dtypes.BF16:
                leaf._grad = Tensor._make(dtypes.cast(array, dtype))
            elif data.flags.c_contiguous or not _dense(data):
                leaf._grad = Tensor._make(np.array(array, dtype=dtype, copy=True, order="C"))
            else:  # a first .grad takes the layout of a dense leaf (a transposed one...), as in PyTorch
                grad = np.empty_like(data, dtype=dtype)
                grad[...] = array
                leaf._grad = Tensor._make(grad)
        else:
            if obs is not None:
                before = Tensor._make(before._data.copy())
            if dtype == dtypes.BF16:
                dtypes.write(leaf._grad._data, leaf._grad._data + array)
            else:
                np.add(leaf._grad._data, array, out=leaf._grad._data, casting="unsafe")
            leaf._grad._vc[0] += 1
    if leaf._extra is not None and leaf._extra.meta and leaf._grad is not None:
        from engine.meta import mark

        mark(leaf._grad)  # a meta leaf's gradient is a meta tensor
    if obs is not None and leaf._requires_grad:
        obs.grad_accumulated(node, leaf, before, grad, leaf._grad)
    hooks = leaf._post_acc_hooks
    if hooks:
        for fn in list(hooks.values()):
            fn(leaf)
            if obs is not None:
                obs.hook_fired("post_accumulate", node, 0, fn, None)


def _copy_of(g: Tensor) -> Tensor:
    from engine.functions import copy_

    return copy_(Tensor._make(np.empty_like(g._data)), g)


def _dense(a: np.ndarray) -> bool:
    """Elements without gaps or overlaps, in some order of the dimensions (PyTorch's
    is_non_overlapping_and_dense)."""
    expected = a.itemsize
    for stride, size in sorted(zip(a.strides, a.shape)):
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def _own_array(array: Any, dtype: Any) -> bool:
    """An array owning its data (no view of another), C-contiguous, writable, of `dtype`: what the
    copy for a first .grad of a contiguous leaf would make of it."""
    if type(array) is not np.ndarray or array.base is not None or array.dtype != dtype:
        return False
    flags = array.flags
    return flags.c_contiguous and flags.writeable


def call_node(node: Node, grads: tuple) -> Any:
    """Calling a grad_fn directly, as `y.grad_fn(g)` does in PyTorch."""
    # with grad mode on, the call is recorded like any computation (PyTorch runs it as ops)
    graph = grad_mode.state.enabled
    inner = [g if graph or not isinstance(g, Tensor) else g._data for g in grads]
    out = node.apply_backward(tuple(inner), graph)
    results = tuple(None if g is None else g if isinstance(g, Tensor) else Tensor._make(np.asarray(g))
                    for g in out)
    return results if len(results) != 1 else results[0]
