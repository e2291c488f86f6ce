"""Graphviz DOT of a grad_fn graph: from a trace, or torchviz-style from live engine tensors."""

from __future__ import annotations

from typing import Any

import graphviz

from engine.node import AccumulateGrad, SavedTensor
from engine.tensor import Tensor

NODE_ATTR = dict(style="filled", shape="box", align="left", fontsize="10", ranksep="0.1", height="0.2",
                 fontname="monospace")


def _shape(shape: list | tuple) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ")"


def trace_to_digraph(trace: dict) -> graphviz.Digraph:
    """The trace's graph drawn forward (leaves at the top), labelled with names and formulas."""
    dot = graphviz.Digraph(node_attr=NODE_ATTR, graph_attr=dict(size="12,12"))
    tensors = {t["id"]: t for t in trace["tensors"]}
    for node in trace["nodes"]:
        if node["kind"] == "accumulate":
            leaf = tensors.get(node.get("variable") or "")
            label = "AccumulateGrad"
            dot.node(node["id"], label, fillcolor="lightgray")
            if leaf is not None:
                name = ", ".join(leaf["names"]) or leaf["id"]
                dot.node(leaf["id"], f"{name}\n{_shape(leaf['shape'])}", fillcolor="lightblue")
                dot.edge(leaf["id"], node["id"])
            continue
        dot.node(node["id"], node["name"], fillcolor="lightgray")
    for edge in trace["edges"]:
        dot.edge(edge["target"], edge["source"], label=edge.get("formula") or "")
    for t in trace["tensors"]:
        if t["grad_fn"] and t["names"]:
            dot.node(t["id"], f"{', '.join(t['names'])}\n{_shape(t['shape'])}", fillcolor="darkolivegreen1")
            dot.edge(t["grad_fn"], t["id"], style="dashed")
    return dot


def make_dot(var: Any, params: dict | None = None, show_attrs: bool = False,
             show_saved: bool = False, max_attr_chars: int = 50) -> graphviz.Digraph:
    """torchviz's make_dot for engine tensors: grad_fn nodes, leaves, saved tensors and attributes."""
    names = {id(v): k for k, v in (params or {}).items()}
    dot = graphviz.Digraph(node_attr=NODE_ATTR, graph_attr=dict(size="12,12"))
    seen: set[int] = set()

    def size(t: Tensor) -> str:
        return "(" + ", ".join(str(d) for d in t._data.shape) + ")"

    def label_of(fn: Any) -> str:
        if not show_attrs or isinstance(fn, AccumulateGrad) or fn.rule is None:
            return type(fn).__name__
        rows = []
        for slot in fn.saved_slots():
            value = (fn._saved or {}).get(slot)
            text = "[saved tensor]" if type(value) is SavedTensor else str(value)
            rows.append(f"{slot}: {text[:max_attr_chars]}")
        return type(fn).__name__ + ("\n" + "-" * 20 + "\n" + "\n".join(rows) if rows else "")

    stack = []
    outputs = var if isinstance(var, tuple) else (var,)
    for out in outputs:
        dot.node(str(id(out)), size(out), fillcolor="darkolivegreen1")
        if out.grad_fn is not None:
            stack.append(out.grad_fn)
            dot.edge(str(id(out.grad_fn)), str(id(out)))
    while stack:
        fn = stack.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        if isinstance(fn, AccumulateGrad):
            leaf = fn.variable
            name = names.get(id(leaf), "")
            dot.node(str(id(leaf)), f"{name}\n {size(leaf)}" if name else size(leaf), fillcolor="lightblue")
            dot.node(str(id(fn)), "AccumulateGrad")
            dot.edge(str(id(leaf)), str(id(fn)))
            continue
        dot.node(str(id(fn)), label_of(fn))
        if show_saved and fn.rule is not None:
            for slot, value in (fn._saved or {}).items():
                if type(value) is SavedTensor:
                    key = f"{id(fn)}-{slot}"
                    dot.node(key, f"{slot}\n{size(value.tensor)}", fillcolor="orange")
                    dot.edge(key, str(id(fn)), dir="none")
        for edge in fn._edges:
            if edge is not None:
                dot.edge(str(id(edge[0])), str(id(fn)))
                stack.append(edge[0])
    return dot
