"""Runs a snippet on the engine with a recorder attached and returns its trace as a dict."""

from __future__ import annotations

import ast
import builtins
import gc
import importlib
import io
import os
import re
import sys
import tokenize
import types
import warnings
from typing import Any, Callable

import numpy as np
import orjson

import engine
from engine import grad_mode, observe
from engine import random as engine_random
from engine.node import AccumulateGrad, SavedTensor
from engine.rules import SCALAR_PLANS, ArrayMath, ScalarPlan, expand_compact, input_gradient
from engine.tensor import Tensor
from server import encode
from server.limits import TRACE_VERSION, LimitReached, Limits
from server.naming import NAME_HOOK, add_name_hooks
from server.policy import stdfacade
from server.sandbox import traces

SNIPPET = "<snippet>"


class Recorder:
    """The engine observer that turns engine events into trace tensors, nodes, edges and events."""

    def __init__(self, limits: Limits, user_file: Callable[[str], bool] | None = None) -> None:
        self.limits = limits
        # Which frames are the user's: the snippet's, or (live tracing) anything outside gradstep.
        self.user_file = user_file or SNIPPET.__eq__
        self.tensors: list[dict] = []
        self.nodes: list[dict] = []
        self.edges: list[dict] = []
        self.events: list[dict] = []
        self.notes: list[str] = []
        self.stdout: list[str] = []
        self._stdout_size = 0
        self._tensor_ids: dict[int, str] = {}
        self._node_ids: dict[int, str] = {}
        self._edge_ids: dict[int, dict[int, str]] = {}  # per node: input number -> edge id
        self._output_tensor: dict[tuple[int, int], str] = {}
        self._grad_owner: dict[int, str] = {}
        self._keep: list[Any] = []  # holds traced objects so their id() is never reused
        self.traced: list[Tensor] = []  # the traced tensors, in order of their ids (and kept alive)
        # Traced tensors by the NumPy buffer their values live in (`w`, `w.data`, `w.detach()`, views):
        # an in-place change to one shows on the others too. Built when first needed (see _aliases).
        self._by_buffer: dict[int, list[Tensor]] = {}
        self._indexed = 0  # how many of `traced` _by_buffer covers
        self._spans: dict[types.CodeType, list] = {}
        self._pass = 0
        self._in_pass = False
        self._summarising = False
        # The trace's JSON size, measured at the start of each backward pass after the first (see
        # _measure): past half of max_trace_bytes later passes are summarised; past three quarters
        # the recorder goes quiet, noting only which traced tensors and gradients change, and the
        # trace ends with their final values.
        # Within a run the size is measured too, whenever another _MEASURE_EVERY array elements were
        # recorded (see _grown): past half of the limit, arrays keep only their first elements from
        # then on (see _SHRINK); past seven eighths the run stops (LimitReached), keeping what was
        # recorded.
        self._size = 0
        self._measured = (0, 0, 0, 0)  # how many tensors, nodes, edges and events _size covers
        self._elements = 0  # array elements recorded since the size was last measured
        self._cap = limits.max_array_elements  # elements an array keeps (see encode.array)
        self._quiet = False
        self._stale: dict[str, Tensor] = {}  # traced tensors changed in place while quiet
        self._stale_grads: dict[str, Tensor] = {}  # traced tensors whose .grad changed while quiet
        # Per node waiting to run: (contribution record, gradient object) for each that arrived.
        self._received: dict[int, list] = {}
        self._run: tuple[Any, dict | None] = (None, None)  # the node that ran last and its node_run event
        self._executed: list[Any] = []
        self._current_node: Any = None
        self.failed_node: Any = None
        self._collector_paused = False

    # --- the cycle collector -----------------------------------------------------------------
    def pause_collector(self) -> None:
        """Stop cycle collection while every traced object is kept anyway: the trace's records only
        pile up, and collections would scan them again and again without finding any garbage."""
        if gc.isenabled():
            gc.disable()
            self._collector_paused = True

    def resume_collector(self) -> None:
        """Collect cycles again (summarised passes keep nothing, their graphs become garbage)."""
        if self._collector_paused:
            self._collector_paused = False
            gc.enable()

    # --- ids and records -------------------------------------------------------------------
    def _value(self, value: Any) -> Any:
        """A tensor's or array's values as a trace Value (a bare number when 0-d float32)."""
        if isinstance(value, Tensor):
            value = value._data
        if type(value) is np.ndarray:
            self._elements += value.size
        return encode.value(value, self._cap)

    def _encoded(self, grad: Any, arrived: Any) -> Any:
        """`grad` as a Value, reusing the encoding of the contribution it is, if it is one."""
        for record, sent in arrived:
            if sent is grad:
                return record["grad"]
        return self._value(grad)

    def tensor_id(self, t: Tensor, span: dict | None = None) -> str:
        tid = self._tensor_ids.get(id(t))
        return tid if tid is not None else self._add_tensor(t, span)

    def _add_tensor(self, t: Tensor, span: dict | None) -> str:
        tensors = self.tensors
        limits = self.limits
        if len(tensors) >= limits.max_tensors:
            raise LimitReached(f"tensor limit ({limits.max_tensors} tensors) reached")
        data = t._data
        size = data.size
        if size > limits.max_elements:
            self._check_size(t, "a tensor of shape {} was created")
        self._elements += size
        tid = f"t{len(tensors)}"
        self._tensor_ids[id(t)] = tid
        self.traced.append(t)
        grad_fn = t._grad_fn  # (not t.grad_fn: recording a view must not regenerate its node)
        record = {
            "id": tid,
            "names": [],
            "shape": list(data.shape),
            "dtype": encode.dtype_name(data.dtype),
            "requires_grad": t._requires_grad,
            "is_leaf": grad_fn is None,
            "grad_fn": None if grad_fn is None else self._node_ids.get(id(grad_fn)),
            "value": encode.value(data, self._cap),
            "span": span if span is not None else self._span(),
        }
        if type(t) is not Tensor and isinstance(t, engine.Parameter):
            record["is_param"] = True
        tensors.append(record)
        return tid

    def _check_size(self, t: Tensor, what: str) -> None:
        if t._data.size > self.limits.max_elements:
            raise LimitReached(f"tensor size limit ({self.limits.max_elements:,} elements) reached: "
                               + what.format(list(t._data.shape)))

    def _aliases_indexed(self) -> None:
        """Bring the index of traced tensors by buffer up to date (see _by_buffer)."""
        by_buffer = self._by_buffer
        traced = self.traced
        for other in traced[self._indexed:]:
            by_buffer.setdefault(_buffer_key(other._data), []).append(other)
        self._indexed = len(traced)

    def _aliases(self, t: Tensor) -> list[dict]:
        """The other traced tensors whose values an in-place change to `t` just changed, with those
        values. One that lays out the same memory as `t` or as an alias before it (`w.data`, the
        `w.t()` of each iteration) names that one (`same_as`) instead of repeating its values."""
        data = t._data
        self._aliases_indexed()
        aliases = []
        layouts = {_layout(data): self._tensor_ids[id(t)]}
        for other in self._by_buffer.get(_buffer_key(data), ()):
            if other is not t and np.may_share_memory(other._data, data):
                tid = self._tensor_ids[id(other)]
                alias = {"tensor": tid, "version": other._vc[0]}
                layout = _layout(other._data)
                same = layouts.get(layout)
                if same is None:
                    layouts[layout] = tid
                    alias["value"] = self._value(other._data)
                else:
                    alias["same_as"] = same
                aliases.append(alias)
        return aliases

    def _traced_alias(self, t: Tensor) -> Tensor | None:
        """A traced tensor over the memory of `t`, if there is one."""
        data = t._data
        self._aliases_indexed()
        for other in self._by_buffer.get(_buffer_key(data), ()):
            if np.may_share_memory(other._data, data):
                return other
        return None

    def node_id(self, node: Any, span: dict | None = None) -> str:
        nid = self._node_ids.get(id(node))
        if nid is None:
            nid = self._add_node(node, span)
        return nid

    def _add_node(self, node: Any, span: dict | None, formulas: list | None = None) -> str:
        if len(self.nodes) >= self.limits.max_nodes:
            raise LimitReached(f"graph node limit ({self.limits.max_nodes} nodes) reached")
        nid = f"n{len(self.nodes)}"
        self._node_ids[id(node)] = nid
        self._keep.append(node)
        record: dict[str, Any] = {"id": nid, "name": type(node).__name__}
        if type(node) is AccumulateGrad:
            record["kind"] = "accumulate"
            record["variable"] = self.tensor_id(node.variable)
            self.nodes.append(record)
            return nid
        rule = node.rule
        if rule is None:
            record["kind"] = "custom"
        else:
            record["kind"] = "op"
            record["op"] = rule.name
        record["span"] = span if span is not None else self._span()
        if self._in_pass:
            record["created_in_pass"] = self._pass
        self.nodes.append(record)
        if rule is None:
            formulas = None
        elif formulas is None:
            formulas = _formulas(node)
        self._add_edges(node, nid, formulas)
        return nid

    def _add_edges(self, node: Any, nid: str, formulas: list | None) -> None:
        """The node's edges to the nodes its inputs came from, with each input's gradient formula
        (`formulas`, None for a custom Function's node) and local derivative."""
        rule = node.rule
        if not node._next:
            self._edge_ids[id(node)] = _NO_EDGES
            return
        cap = self._cap
        # Local derivatives: none for multi-output ops or when saved_tensors_hooks hold the saved
        # values; all at once for a node of the 0-d path; else per input, from a unit gradient.
        sv = node._sv
        shown = rule is not None and rule.outputs == 1 and (type(sv) is tuple or not _has_user_hooks(sv))
        compact = unit = None
        if shown and rule.elementwise:
            if type(sv) is tuple:
                compact = _scalar_locals(sv)
            else:
                unit = np.ones(*node._out_meta[0])
        edges = self.edges
        node_ids = self._node_ids
        self._edge_ids[id(node)] = edge_ids = {}
        i = -1
        for target, output_nr in zip(node._next, node._nrs):
            i += 1
            if target is None:
                continue
            eid = f"e{len(edges)}"
            target_id = node_ids.get(id(target))
            record = {
                "id": eid,
                "source": nid,
                "target": target_id if target_id is not None else self._add_node(target, None),
                "input_nr": i,
                "output_nr": output_nr,
            }
            if formulas is not None:
                record["formula"] = formulas[i]
                if compact is not None:
                    local = compact[i]
                    if local is not None:
                        record["local"] = {"kind": "elementwise", "value": encode.value(local, cap)}
                elif shown:
                    local = self._local_gradient(node, i, unit)
                    if local is not None:
                        record["local"] = local
            edge_ids[i] = eid
            edges.append(record)

    def _local_gradient(self, node: Any, i: int, unit: np.ndarray | None) -> dict | None:
        """d output / d input i as numbers: elementwise (from `unit`, ones of the output's shape)
        where the op is, else a small Jacobian."""
        out_shape, out_dtype = node._out_meta[0]
        try:
            if unit is not None:
                local = input_gradient(node, i, unit, ArrayMath, reduce=False)
                if local is None:
                    return None
                if np.shape(local) != out_shape:
                    local = np.broadcast_to(local, out_shape)
                self._elements += np.size(local)
                return {"kind": "elementwise", "value": encode.value(local, self._cap)}
            m, n = int(np.prod(out_shape)), int(np.prod(node._in_meta[i]))
            if m * n > self.limits.jacobian_entries or m > 256:
                return None
            rows = []
            for k in range(m):
                unit = np.zeros(m, out_dtype)
                unit[k] = 1
                row = input_gradient(node, i, unit.reshape(out_shape), ArrayMath)
                if row is None:
                    return None
                rows.append(np.asarray(row).reshape(-1))
            return {"kind": "jacobian", "value": self._value(np.stack(rows).reshape(m, n))}
        except Exception:  # a local derivative that cannot be evaluated is simply not shown
            return None

    def _saved(self, node: Any) -> list[dict]:
        stored = node._sv
        if type(stored) is tuple:  # the 0-d path's compact form, read without replacing it
            layout = _compact_layout(stored[0], node)
            if layout is not None:
                return self._compact_saved(stored, layout)
            stored = expand_compact(node, stored)  # released
        saved = []
        stored = stored or {}
        for slot in node.saved_slots():
            value = stored.get(slot)
            if type(value) is SavedTensor:
                saved.append(self._saved_tensor(slot, value.tensor, value.version))
            else:
                saved.append({"slot": slot, "value": encode.scalar_or_array(value, self._cap)})
        return saved

    def _compact_saved(self, stored: tuple, layout: tuple) -> list[dict]:
        """_saved of a compact tuple (see ScalarPlan), read in place through its plan's layout."""
        saved = []
        for slot, k, constant in layout:
            if k is None:
                saved.append({"slot": slot, "value": constant})
                continue
            value = stored[k]
            if type(value) is Tensor:
                saved.append(self._saved_tensor(slot, value, stored[k + 1]))
            else:
                saved.append({"slot": slot, "value": encode.scalar_or_array(value, self._cap)})
        return saved

    def _saved_tensor(self, slot: str, tensor: Tensor, version: int) -> dict:
        """A saved slot holding a tensor: the traced tensor's id, or its values if it was never traced."""
        tid = self._tensor_ids.get(id(tensor))
        if tid is not None:
            return {"slot": slot, "tensor": tid, "version": version}
        return {"slot": slot, "value": encode.array(tensor._data, self._cap), "version": version}

    def _event(self, event: dict) -> dict:
        if len(self.events) >= self.limits.max_events:
            raise LimitReached(f"trace event limit ({self.limits.max_events} events) reached")
        self.events.append(event)
        if self._elements > _MEASURE_EVERY:
            self._grown()
        return event

    # --- source positions ------------------------------------------------------------------
    def _frame(self) -> Any:
        f = sys._getframe(2)
        user_file = self.user_file
        while f is not None and not user_file(f.f_code.co_filename):
            f = f.f_back
        return f

    def _span(self) -> dict | None:
        f = self._frame()
        if f is None:
            return None
        return self._code_span(f.f_code, f.f_lasti)

    def _code_span(self, code: types.CodeType, lasti: int) -> dict | None:
        spans = self._spans.get(code)
        if spans is None:  # one span per instruction, shared by every record made there
            spans = self._spans[code] = [_span_dict(*p) for p in code.co_positions()]
        index = lasti // 2
        return spans[index] if 0 <= index < len(spans) else None

    def _line(self) -> int | None:
        f = self._frame()
        return f.f_lineno if f is not None else None

    # --- the trace's size ------------------------------------------------------------------
    def _summarise(self, why: str) -> None:
        self._summarising = True
        self.resume_collector()
        self.notes.append(f"{why}: the graph and steps of later iterations are not recorded, only their "
                          "gradients, in-place changes and printed output.")

    def _add_size(self) -> str:
        """Measure what was recorded since the last measurement; says how far the trace got."""
        t, n, e, v = self._measured
        self._size += _json_size((self.tensors[t:], self.nodes[n:], self.edges[e:], self.events[v:]))
        self._measured = (len(self.tensors), len(self.nodes), len(self.edges), len(self.events))
        self._elements = 0
        cap = self.limits.max_trace_bytes
        return f"the trace reached {self._size / 2**20:.1f} MiB of its {cap / 2**20:g} MiB limit"

    def _grown(self) -> None:
        """Within a run: up to the end of the first backward pass (which the summarising of later
        passes cannot shorten), past half of the size limit arrays recorded from now on keep their
        first elements only (fewer past three quarters); at any time, past seven eighths, stop."""
        reached = self._add_size()
        cap = self.limits.max_trace_bytes
        if self._size > cap * 7 // 8:
            raise LimitReached(f"trace size limit ({cap / 2**20:g} MiB) reached: the trace shows the run "
                               f"up to here ({self._size / 2**20:.1f} MiB recorded)")
        for fraction, kept in _SHRINK if self._pass <= 1 else ():  # later passes: see _measure
            if self._size > cap * fraction and self._cap > kept:
                self._cap = kept
                self.notes.append(f"From step {len(self.events) + 1} on, arrays show only their first {kept} "
                                  f"elements (and their minimum, maximum and mean): {reached}.")
                break

    def _measure(self) -> None:
        """At a backward pass: measure, and summarise later passes or go quiet when the trace is large."""
        reached = self._add_size()
        cap = self.limits.max_trace_bytes
        if not self._summarising and self._size > cap // 2:
            self._summarise(f"Backward passes from pass {self._pass} on are summarised ({reached})")
        elif self._summarising and self._size > cap * 3 // 4:
            self._quiet = True
            self.notes.append(
                f"From backward pass {self._pass} on, only printed output is recorded ({reached}); the "
                "trace ends with the final values and gradients of the tensors that changed since.")

    def record_final_values(self) -> None:
        """After a quiet stretch: the final value of each traced tensor changed in it, and final .grad."""
        self._cap = self.limits.max_array_elements  # these in full, whatever the arrays before kept
        for tid, t in self._stale.items():
            event = {"kind": "inplace", "tensor": tid, "node": None, "version": t._vc[0],
                     "value": self._value(t._data), "line": None}
            aliases = self._aliases(t)
            if aliases:
                event["aliases"] = aliases
            self.events.append(event)
        for tid, t in self._stale_grads.items():
            grad = t._grad
            self.events.append({"kind": "grad_set", "tensor": tid,
                                "grad": None if grad is None else self._value(grad._data), "line": None})
        self._stale, self._stale_grads = {}, {}

    # --- observer callbacks (called by the engine) -----------------------------------------
    def tensor_created(self, t: Tensor, source: Any = None) -> None:
        if self._summarising:
            return
        tid = self.tensor_id(t)
        self._event({"kind": "tensor", "tensor": tid, "line": self._line()})

    def op_applied(self, rule: Any, node: Any, inputs: tuple, results: tuple, attrs: Any) -> None:
        if self._summarising:
            return
        span = self._span()
        known = self._tensor_ids
        input_ids = []
        for x in inputs:
            input_ids.append((known.get(id(x)) or self._add_tensor(x, None)) if isinstance(x, Tensor) else None)
        nid = None
        if node is not None:
            nodes = self.nodes
            nid = self._node_ids.get(id(node))
            formulas = _formulas(node)
            if nid is None:
                index = len(nodes)
                nid = self._add_node(node, span, formulas)
            else:
                index = int(nid[1:])
        ids = []  # before saved slots, which may name them
        for r in results:
            ids.append(known.get(id(r)) or self._add_tensor(r, span))
        if node is not None:
            record = nodes[index]
            record["inputs"] = input_ids
            record["saved"] = self._saved(node)
            record["formulas"] = formulas
            record["outputs"] = ids
            key = id(node)
            output_tensor = self._output_tensor
            for i, tid in enumerate(ids):
                output_tensor[(key, i)] = tid
        self._event({"kind": "op", "node": nid, "tensors": ids, "line": span["line"] if span else None})

    def function_applied(self, cls: Any, node: Any, args: tuple, outputs: tuple, ctx: Any) -> None:
        if self._summarising:
            return
        ids = [self.tensor_id(o) for o in outputs if isinstance(o, Tensor)]
        nid = None
        if node is not None:
            nid = self.node_id(node)
            record = self.nodes[int(nid[1:])]
            # one entry per edge: the node has edges for its tensor arguments only
            record["inputs"] = [self.tensor_id(a) for a in args if isinstance(a, Tensor)]
            record["outputs"] = ids
            record["formulas"] = [f"{cls.__name__}.backward" if e is not None else None
                                  for e in node._edges]
            record["saved"] = [
                {"slot": f"saved_tensors[{i}]", "tensor": self.tensor_id(s.tensor), "version": s.version}
                for i, s in enumerate(ctx._saved or ()) if s is not None
            ]
            for i, o in enumerate(outputs):
                if isinstance(o, Tensor) and o.grad_fn is node:
                    tid = self.tensor_id(o)
                    self._output_tensor[(id(node), i)] = tid
                    info = self.tensors[int(tid[1:])]
                    info.update(grad_fn=nid, requires_grad=True, is_leaf=False)
        self._event({"kind": "op", "node": nid, "tensors": ids, "line": self._line()})

    def inplace_applied(self, tensor: Tensor, node: Any) -> None:
        owner = self._grad_owner.get(id(tensor))
        if owner is not None:
            if self._quiet:
                self._stale_grads[owner] = self.traced[int(owner[1:])]
                return
            self._event({"kind": "grad_set", "tensor": owner, "grad": self._value(tensor._data),
                         "line": self._line()})
            return
        if self._summarising and id(tensor) not in self._tensor_ids:
            # not traced (made in a summarised pass): what shows the change is a traced tensor over
            # the same memory, such as `w` after `w.data -= ...`
            tensor = self._traced_alias(tensor)
            if tensor is None:
                return
            node = None
        self._check_size(tensor, "a tensor grew to shape {} in place")  # resize_ grows without creating
        tid = self.tensor_id(tensor)
        if self._quiet:
            self._stale[tid] = tensor
            return
        nid = None
        if node is not None and not self._summarising:
            nid = self.node_id(node)
            record = self.nodes[int(nid[1:])]
            record["inputs"] = [tid] + [None] * (len(node._edges) - 1)
            record["outputs"] = [tid]
            record["saved"] = self._saved(node)
            record["formulas"] = _formulas(node)
            self._output_tensor[(id(node), 0)] = tid
        event = {"kind": "inplace", "tensor": tid, "node": nid, "version": tensor._vc[0],
                 "value": self._value(tensor._data), "line": self._line()}
        aliases = self._aliases(tensor)
        if aliases:
            event["aliases"] = aliases
        self._event(event)

    def grad_mode_changed(self, enabled: bool) -> None:
        if not self._in_pass and not self._summarising:
            self._event({"kind": "grad_mode", "enabled": enabled, "line": self._line()})

    def grad_changed(self, t: Tensor) -> None:
        tid = self._tensor_ids.get(id(t))
        if tid is None:
            return
        if self._quiet:
            self._stale_grads[tid] = t
            return
        grad = t._grad
        if grad is not None:
            self._grad_owner[id(grad)] = tid
            self._keep.append(grad)
        self._event({"kind": "grad_set", "tensor": tid,
                     "grad": None if grad is None else self._value(grad._data), "line": self._line()})

    # --- backward --------------------------------------------------------------------------
    def backward_begin(self, api: str, run: Any, outputs: tuple, inputs: tuple) -> None:
        self._pass += 1
        self._in_pass = True
        self._executed = []
        self._received = {}
        self._run = (None, None)
        if self._pass > self.limits.full_passes and not self._summarising:
            self._summarise(f"Backward passes after the first {self.limits.full_passes} are summarised")
        if self._pass > 1 and not self._quiet:
            self._measure()
        if self._quiet:
            return
        roots = []
        if not self._summarising:
            for out, (node, _), seed in zip(outputs, run.roots, run.seeds):
                roots.append({"tensor": self.tensor_id(out), "node": self.node_id(node),
                              "grad": self._value(seed)})
        self._event({"kind": "backward_begin", "pass": self._pass, "api": api, "roots": roots,
                     "retain_graph": bool(run.retain_graph), "create_graph": bool(run.create_graph),
                     "line": self._line()})

    def grad_sent(self, src: Any, input_nr: Any, target: Any, target_nr: int, grad: Any, total: Any) -> None:
        if self._summarising:
            return
        if src is None:
            edge = None
        else:
            edge = self._edge_ids.get(id(src), _NO_EDGES).get(input_nr)
            if edge is None:
                return
        # one encoding, and one record, shown both where the gradient leaves and where it arrives
        arrival = {"edge": edge, "grad": self._value(grad)}
        node, run = self._run
        if node is src and run is not None:
            if total is grad:  # the first contribution: the running total is the gradient itself
                run["sent"].append(arrival)
            else:
                run["sent"].append({"edge": edge, "grad": arrival["grad"], "total": self._value(total)})
        key = id(target)
        received = self._received.get(key)
        if received is None:
            self._received[key] = [(arrival, grad)]
        else:
            received.append((arrival, grad))

    def node_started(self, node: Any, grads: Any) -> None:
        self._current_node = node
        if self._summarising:
            return
        self._executed.append(node)
        nid = self.node_id(node)
        arrived = self._received.pop(id(node), ())
        if len(arrived) == 1 and len(grads) == 1 and arrived[0][1] is grads[0]:  # one gradient, as it came
            record = arrived[0][0]
            received, grad_outputs = [record], [record["grad"]]
        else:
            received = [record for record, _ in arrived]
            grad_outputs = [None if g is None else self._encoded(g, arrived) for g in grads]
        self._run = (node, self._event({"kind": "node_run", "pass": self._pass, "node": nid,
                                        "received": received, "grad_outputs": grad_outputs, "sent": []}))

    def node_finished(self, node: Any, grads: Any, sent: Any) -> None:
        self._current_node = None

    def grad_accumulated(self, node: Any, leaf: Tensor, before: Any, grad: Any, after: Tensor) -> None:
        if self._quiet:
            tid = self._tensor_ids.get(id(leaf))
            if tid is not None:
                self._stale_grads[tid] = leaf
            return
        tid = self.tensor_id(leaf)
        self._grad_owner[id(after)] = tid
        self._keep.append(after)
        arrived = self._received.pop(id(node), ())
        self._event({"kind": "accumulate", "pass": self._pass,
                     "node": self.node_id(node) if not self._summarising else None,
                     "tensor": tid, "before": None if before is None else self._value(before),
                     "contribution": self._encoded(grad, arrived), "after": self._value(after)})

    def grad_retained(self, tensor: Tensor, grad: Any) -> None:
        if not self._summarising:
            self._event({"kind": "retain_grad", "pass": self._pass, "tensor": self.tensor_id(tensor),
                         "grad": self._value(grad)})

    def hook_fired(self, kind: str, node: Any, nr: int, fn: Callable, result: Any) -> None:
        if self._summarising:
            return
        if kind == "tensor" and isinstance(node, AccumulateGrad):
            target = self.tensor_id(node.variable)
        elif kind == "tensor":
            target = self._output_tensor.get((id(node), nr)) or self.node_id(node)
        else:
            target = self.node_id(node)
        value = None
        if isinstance(result, (Tensor, np.ndarray)):
            value = self._value(result)
        self._event({"kind": "hook", "pass": self._pass, "hook": kind, "target": target,
                     "name": _hook_name(fn), "result": value})

    def backward_end(self, run: Any, inputs: tuple, captured: list) -> None:
        if self._quiet:
            self._in_pass = False
            return
        if not self._summarising:
            for t, g in zip(inputs, captured):
                self._event({"kind": "capture", "pass": self._pass, "tensor": self.tensor_id(t),
                             "grad": None if g is None else self._value(g)})
        freed = []
        if not run.retain_graph and not self._summarising:
            freed = [self.node_id(n) for n in self._executed if n._was_saved]
        self._event({"kind": "backward_end", "pass": self._pass, "freed": freed})
        self._in_pass = False

    def backward_failed(self, exc: BaseException) -> None:
        self.failed_node = self._current_node
        self._in_pass = False

    # --- snippet-facing hooks ---------------------------------------------------------------
    def write(self, text: str) -> None:
        self._stdout_size += len(text)
        if self._stdout_size > self.limits.max_stdout:
            raise LimitReached(f"printed output limit ({self.limits.max_stdout // 1024} KiB) reached")
        self.stdout.append(text)
        self._event({"kind": "print", "text": text, "line": self._line()})

    def name_hook(self, value: Any, names: tuple) -> Any:
        """Called by the rewritten snippet on every assignment: labels tensors with their names."""
        for name in names:
            self._tag(value, name)
        return value

    def _tag(self, value: Any, name: Any) -> None:
        if isinstance(name, tuple):
            if isinstance(value, (tuple, list)) and len(value) == len(name):
                for v, n in zip(value, name):
                    self._tag(v, n)
            return
        if isinstance(value, Tensor):
            if self._summarising and id(value) not in self._tensor_ids:
                return
            names = self.tensors[int(self.tensor_id(value)[1:])]["names"]
            if name not in names:
                names.append(name)
        elif hasattr(value, "named_parameters") and isinstance(value, _module_type()):
            for pname, p in value.named_parameters():
                self._tag(p, f"{name}.{pname}")


def _buffer_key(data: np.ndarray) -> int:
    """Which memory an array's values live in: the array that owns it (a view's base)."""
    owner = data.base
    return id(data if owner is None else owner)


def _json_size(records: Any) -> int:
    try:
        return len(orjson.dumps(records, option=orjson.OPT_SERIALIZE_NUMPY))
    except (orjson.JSONEncodeError, TypeError):  # lone surrogates in names or printed text: near enough
        return len(repr(records))


def _layout(data: np.ndarray) -> tuple:
    """Which elements of which memory an array shows, in what order: equal for arrays with equal values."""
    return data.__array_interface__["data"][0], data.shape, data.strides, data.dtype


def _span_dict(line: int | None, end_line: int | None, col: int | None, end_col: int | None) -> dict | None:
    if line is None or col is None:
        return None
    return {"line": line, "col": col + 1, "end_line": end_line or line, "end_col": (end_col or col) + 1}


_ONE32 = np.float32(1)
_SHRINK = ((3 / 4, 8), (1 / 2, encode.HEAD))  # past this fraction of the size limit, arrays keep so many
_MEASURE_EVERY = 16384  # array elements recorded between measurements of a trace's size within a run
_F32S = np.float32
_NO_EDGES: dict[int, str] = {}


def _scalar_locals(sv: tuple) -> tuple | None:
    """Each input's local derivative for a node of the 0-d path (saving `sv`): its backward of a
    unit gradient."""
    try:
        return SCALAR_PLANS[sv[0]].backward(sv, _ONE32)
    except Exception:  # a local derivative that cannot be evaluated is simply not shown
        return None


def _has_user_hooks(saved: Any) -> bool:
    """Saved tensors (a node's `_sv`) under saved_tensors_hooks: unpacking them runs user code, so the
    tracer won't. (The 0-d path's compact saved tuple never holds hooked values; reading it through
    _saved would replace it with the slower dict for good.)"""
    if not saved or type(saved) is tuple:
        return False
    return any(type(v) is SavedTensor and v.packed is not None for v in saved.values())


_LAYOUTS: dict[int, tuple | None] = {}


def _compact_layout(plan_id: int, node: Any) -> tuple | None:
    """How a compact tuple's plan lays out the rule's saved slots: per slot (name, index of its value
    in the tuple or None, the encoded constant); None for a released tuple (read the general way)."""
    try:
        return _LAYOUTS[plan_id]
    except KeyError:
        pass
    plan = SCALAR_PLANS[plan_id]
    layout = None
    if type(plan) is ScalarPlan:
        positions = {slot: 1 + 2 * i for i, slot in enumerate(plan.stored)}
        constants = dict(plan.constants)
        layout = tuple((slot, positions.get(slot), encode.scalar_or_array(constants.get(slot), encode.HEAD))
                       for slot in node.saved_slots())
    _LAYOUTS[plan_id] = layout
    return layout


_FORMULAS: dict[tuple[Any, int], list] = {}


def _formulas(node: Any) -> list[str | None]:
    """The gradient formula per input (a variadic rule such as cat has one for all its inputs)."""
    rule = node.rule
    if rule is None:
        return []
    key = (rule, len(node._next))
    formulas = _FORMULAS.get(key)
    if formulas is None:
        formulas = _FORMULAS[key] = [rule.formulas[0 if rule.variadic else i] for i in range(key[1])]
    return formulas.copy()


def _module_type() -> type:
    nn = getattr(engine, "nn", None)
    return getattr(nn, "Module", type(None))


def _hook_name(fn: Any) -> str:
    name = getattr(fn, "__name__", None)
    return name if isinstance(name, str) else "hook"


MAX_ERROR_MESSAGE = 16 * 1024  # characters of an exception's message kept in the trace


def _message(exc: BaseException) -> str:
    text = str(exc)
    if len(text) > MAX_ERROR_MESSAGE:
        text = f"{text[:MAX_ERROR_MESSAGE]}... ({len(text):,} characters, shortened)"
    return text


def _error_info(exc: BaseException, recorder: Recorder) -> dict:
    info: dict[str, Any] = {"type": type(exc).__name__, "message": _message(exc)}
    if isinstance(exc, SyntaxError):
        info["line"] = exc.lineno
        info["col"] = exc.offset
        if exc.end_lineno:
            info["end_line"] = exc.end_lineno
            info["end_col"] = exc.end_offset
        info["message"] = exc.msg
        return info
    line = getattr(exc, "line", None)
    if isinstance(line, int):  # policy errors carry their own position
        for key in ("line", "col", "end_line", "end_col"):
            if getattr(exc, key, None) is not None:
                info[key] = getattr(exc, key)
        return info
    info.update(_snippet_span(exc, recorder))
    node = recorder.failed_node
    if node is not None:
        info["node"] = recorder.node_id(node)
        for slot, saved in (node._saved or {}).items():
            if type(saved) is SavedTensor and saved.tensor._vc[0] != saved.version:
                info.update(saved_slot=slot, expected_version=saved.version,
                            actual_version=saved.tensor._vc[0])
                break
    return info


def _snippet_span(exc: BaseException, recorder: Recorder) -> dict:
    """Where in the snippet `exc` was raised: its innermost frame there (empty if none)."""
    tb = exc.__traceback__
    span = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == SNIPPET:
            span = recorder._code_span(tb.tb_frame.f_code, tb.tb_lasti) or {"line": tb.tb_lineno}
        tb = tb.tb_next
    return span or {}


def _trusted_import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
    """Maps `torch` to the engine for snippets run without the sandbox (CLI, library use)."""
    if name == "torch" or name.startswith("torch."):
        real = "engine" + name[len("torch"):]
        module = importlib.import_module(real)
        return module if fromlist else engine
    return builtins.__import__(name, globals, locals, fromlist, level)


def _globals(recorder: Recorder, restricted: bool) -> tuple[Any, dict]:
    """Compile-and-globals strategy: the sandbox's policy when restricted, plain Python otherwise."""
    extra = {NAME_HOOK: recorder.name_hook}
    if restricted:
        from server import policy

        return policy, policy.snippet_globals(engine, recorder.write, extra)

    def _print(*args: Any, sep: str = " ", end: str = "\n", **_: Any) -> None:
        recorder.write(sep.join(str(a) for a in args) + end)

    safe = dict(vars(builtins), print=_print, __import__=_trusted_import)
    return None, {"__builtins__": safe, "__name__": "__main__", **extra}


def _compile(code: str, policy: Any) -> types.CodeType:
    if policy is not None:
        return policy.compile_snippet(code, SNIPPET, add_name_hooks)
    return compile(ast.fix_missing_locations(add_name_hooks(ast.parse(code, SNIPPET))), SNIPPET, "exec")


_OWN_DIRS = tuple(os.path.dirname(m.__file__) for m in (engine, sys.modules["server"]))


def _outside_gradstep(filename: str) -> bool:
    return not filename.startswith(_OWN_DIRS) and not filename.startswith("<frozen")


class recording:  # noqa: N801 - used like a function: `with recording() as r:`
    """Trace live engine tensors from Python (a notebook, a script) instead of a snippet string.

    with recording() as r:
        y = (x * w).sum()
        y.backward()
    trace = r.trace()
    """

    def __init__(self, limits: Limits | None = None) -> None:
        self.recorder = Recorder(limits or Limits(), user_file=_outside_gradstep)
        self.error: dict | None = None

    def __enter__(self) -> "recording":
        self._previous = observe.attach(self.recorder)
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> bool:
        observe.detach(self._previous)
        if isinstance(exc, LimitReached):
            self.error = {"type": type(exc).__name__, "message": exc.message, "status": exc.status}
            return True  # the limit ends the recording, not the caller's program
        if exc is not None:
            self.error = {"type": type(exc).__name__, "message": str(exc)}
        return False

    def trace(self, code: str = "") -> dict:
        status = "ok" if self.error is None else self.error.pop("status", "error")
        return _finish(self.recorder, code, status, self.error)


def trace_code(code: str, *, limits: Limits | None = None, restricted: bool = True,
               keep: list | None = None, native: bool = False) -> dict:
    """Run `code` (a PyTorch snippet) on the engine and return its trace (see server/schema.py).

    With `native`, float32 values stay NumPy values, for a caller that writes the trace as JSON with
    server.sandbox.traces.encode (much faster than making them Python floats first); else the trace
    holds plain JSON types.

    `keep`, when given, receives the run's recorder and namespace instead of them being freed on
    return: a sandbox child exits right after, and letting the process end frees a large graph far
    faster than releasing it object by object. Every object then alive is frozen (gc.freeze): the
    first collection after the run would otherwise scan all the records the recorder made."""
    limits = limits or Limits()
    recorder = Recorder(limits)
    namespace = None
    status, error = "ok", None
    if len(code.encode("utf-8", "surrogatepass")) > limits.max_source_bytes:
        status = "limit"
        error = {"type": "LimitReached",
                 "message": f"source size limit ({limits.max_source_bytes // 1024} KiB) exceeded"}
        return _finish(recorder, code, status, error, native)
    previous_mode = (grad_mode.state.enabled, grad_mode.state.inference)
    engine_random.forget_entropy_read()
    stdfacade.forget_clock_or_entropy()
    previous_observer = observe.attach(recorder)
    recorder.pause_collector()
    try:
        policy, namespace = _globals(recorder, restricted)
        compiled = _compile(code, policy)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compiled, namespace)
    except LimitReached as exc:  # where the run stopped, but no failed node: naming it could break the limit
        status, error = exc.status, {"type": type(exc).__name__, "message": exc.message, **_snippet_span(exc, recorder)}
    except RecursionError as exc:
        status = "limit"
        error = _error_info(exc, recorder)
        error["message"] = f"recursion depth limit ({sys.getrecursionlimit()}) exceeded"
    except MemoryError as exc:
        status = "limit"
        error = _error_info(exc, recorder)
        error["message"] = "memory limit exceeded"
    except Exception as exc:  # the snippet's own error: reported in the trace, not raised
        status, error = "error", _error_info(exc, recorder)
    finally:
        observe.detach(previous_observer)
        grad_mode.state.enabled, grad_mode.state.inference = previous_mode
        if keep is not None:
            keep.append((recorder, namespace))
            gc.freeze()  # what the caller keeps until it exits is left out of every later collection
        recorder.resume_collector()
    return _finish(recorder, code, status, error, native)


_CAPTION = re.compile(r"#\s*step:\s*(.*\S)", re.IGNORECASE)


def captions(code: str) -> list[dict]:
    """Lesson captions: `# step: text` comments, by the line they describe.

    A comment after code describes its own line; a comment on a line of its own describes the next
    line that has code. Captions on consecutive comment lines are joined with a space.
    """
    if not _CAPTION.search(code):
        return []
    found: dict[int, list[str]] = {}
    code_lines: set[int] = set()
    comments: list[tuple[int, bool, str]] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type == tokenize.COMMENT:
                match = _CAPTION.match(tok.string)
                if match:
                    alone = not tok.line[: tok.start[1]].strip()
                    comments.append((tok.start[0], alone, match.group(1)))
            elif tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                                  tokenize.ENDMARKER, tokenize.COMMENT):
                code_lines.update(range(tok.start[0], tok.end[0] + 1))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass  # a snippet that does not tokenize has its error in the trace; no captions then
    for line, alone, text in comments:
        if not alone:
            found.setdefault(line, []).append(text)
            continue
        following = [n for n in code_lines if n > line]
        if following:
            found.setdefault(min(following), []).append(text)
    return [{"line": line, "text": " ".join(texts)} for line, texts in sorted(found.items())]


def _finish(recorder: Recorder, code: str, status: str, error: dict | None, native: bool = False) -> dict:
    recorder.record_final_values()
    if error is not None:
        recorder.events.append({"kind": "error", "error": error})
    trace = {
        "version": TRACE_VERSION,
        "status": status,
        "code": code,
        "stdout": "".join(recorder.stdout),
        "error": error,
        "tensors": recorder.tensors,
        "nodes": recorder.nodes,
        "edges": recorder.edges,
        "events": recorder.events,
        "notes": recorder.notes,
        "captions": captions(code),
    }
    if engine_random.entropy_read() or stdfacade.clock_or_entropy_read():
        trace["nondeterministic"] = True  # the same code may print something else next time: never cached
    return trace if native else traces.plain(trace)

