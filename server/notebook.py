"""Jupyter: show a live tensor's graph and backward pass (or a snippet's trace) as an inline player."""

from __future__ import annotations

import html
import sys
import uuid
from typing import Any, Sequence

import engine
from engine.node import AccumulateGrad
from engine.tensor import Tensor
from server.limits import Limits
from server.tracer import recording, trace_code

DEFAULT_HEIGHT = 640


def _forward_order(root: Any) -> list[Any]:
    """The grad_fn nodes under `root`, inputs before the nodes that consumed them (iterative DFS)."""
    order: list[Any] = []
    seen: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for edge in reversed(getattr(node, "_edges", ()) or ()):
            if edge is not None and id(edge[0]) not in seen:
                stack.append((edge[0], False))
    return order


def _names_in(namespace: dict[str, Any]) -> dict[int, list[str]]:
    """The caller's variable names for each tensor (by identity), so the graph says `x`, not `tensor`."""
    names: dict[int, list[str]] = {}
    for name, value in namespace.items():
        if isinstance(value, Tensor) and not name.startswith("_"):
            names.setdefault(id(value), []).append(name)
    return names


def trace_tensor(output: Tensor, inputs: Sequence[Tensor] | None = None, *, limits: Limits | None = None,
                 names: dict[int, list[str]] | None = None) -> dict:
    """The trace of `output`'s graph plus one backward pass through it, with no side effects.

    The forward pass already happened, so the trace replays it from the graph (leaves first, then each
    grad_fn node). The backward pass is `torch.autograd.grad(output, leaves, retain_graph=True)`: like
    PyTorch's, it leaves every `.grad` untouched and keeps the graph usable for a later `backward()`.
    Hooks the user registered do run, as they would in any backward pass.
    """
    if not isinstance(output, Tensor):
        raise TypeError(f"show() expects a tensor, a snippet string or a trace dict, not {type(output).__name__}")
    root = output.grad_fn
    rec = recording(limits)
    try:
        with rec:
            r = rec.recorder
            leaves: list[Tensor] = []
            if root is None:
                r._event({"kind": "tensor", "tensor": r.tensor_id(output), "line": None})
            else:
                for node in _forward_order(root):
                    if isinstance(node, AccumulateGrad):
                        tid = r.tensor_id(node.variable)
                        r.node_id(node)
                        leaves.append(node.variable)
                        r._event({"kind": "tensor", "tensor": tid, "line": None})
                        continue
                    nid = r.node_id(node)
                    record = r.nodes[int(nid[1:])]
                    try:
                        record["saved"] = r._saved(node)
                    except Exception:  # saved tensors already freed by an earlier backward()
                        record["saved"] = []
                    outputs = [r.tensor_id(output)] if node is root else []
                    if outputs:
                        record["outputs"] = outputs
                    r._event({"kind": "op", "node": nid, "tensors": outputs, "line": None})
                wanted = list(inputs) if inputs is not None else leaves
                if wanted:
                    seed = None if output._data.size == 1 else engine.ones_like(output)
                    engine.autograd.grad(output, wanted, grad_outputs=seed, retain_graph=True, allow_unused=True)
    except Exception:
        pass  # recording() put the error (for example a graph already freed) into the trace
    trace = rec.trace()
    for tensor, tid in ((t, rec.recorder._tensor_ids.get(id(t))) for t in rec.recorder.traced):
        if tid is not None and names and id(tensor) in names:
            trace["tensors"][int(tid[1:])]["names"] = names[id(tensor)]
    # Positions would point at the show() call, not at the code that built the graph: leave them out.
    for item in (*trace["tensors"], *trace["nodes"]):
        item["span"] = None
    return trace


class Lesson:
    """A trace shown as gradstep's player: inline in Jupyter, or saved as one offline HTML file."""

    def __init__(self, trace: dict, *, title: str | None = None, height: int = DEFAULT_HEIGHT,
                 panes: Sequence[str] | None = None, step: int | None = None) -> None:
        self.trace = trace
        self.title = title
        self.height = height
        self.panes = list(panes) if panes else None
        self.step = step

    def html_document(self) -> str:
        from server.export import offline_html

        panes = self.panes
        if panes is None and not self.trace.get("code"):
            panes = ["graph", "narration", "controls", "inspector"]
        return offline_html(self.trace, title=self.title, step=self.step, panes=panes)

    def _repr_html_(self) -> str:
        # The player lives in an iframe (srcdoc): its styles and scripts cannot clash with the notebook's,
        # and the same markup works in JupyterLab and in nbconvert's static HTML, with no server.
        frame_id = f"gradstep-{uuid.uuid4().hex[:12]}"
        doc = html.escape(self.html_document(), quote=True)
        label = html.escape(self.title or "gradstep: autograd, step by step", quote=True)
        return (
            f'<iframe id="{frame_id}" class="gradstep-player" title="{label}" srcdoc="{doc}" '
            f'style="width:100%;height:{int(self.height)}px;border:1px solid #d8dbe2;border-radius:8px"></iframe>'
            "<script>(function(){var f=document.getElementById(" + repr(frame_id) + ");"
            "addEventListener('message',function(e){if(f&&e.source===f.contentWindow&&e.data&&"
            "e.data.type==='gradstep:height'){f.style.height=(e.data.height+4)+'px';}});})();</script>"
        )

    def save(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.html_document())


def show(value: Any, inputs: Sequence[Tensor] | None = None, *, title: str | None = None,
         height: int = DEFAULT_HEIGHT, panes: Sequence[str] | None = None) -> Lesson:
    """Display the autograd player for a tensor (its graph and a backward pass), a snippet or a trace.

    In Jupyter, `show(loss)` as the last line of a cell (or `display(show(loss))`) draws the player
    inline; the output keeps working in a static HTML export of the notebook, with no network.
    """
    if isinstance(value, dict) and "events" in value:
        trace = value
    elif isinstance(value, str):
        trace = trace_code(value, restricted=False)
    else:
        caller = sys._getframe(1)
        trace = trace_tensor(value, inputs, names=_names_in({**caller.f_globals, **caller.f_locals}))
    return Lesson(trace, title=title, height=height, panes=panes)


def _cell_magic(line: str, cell: str) -> Lesson:
    title = line.strip() or None
    return Lesson(trace_code(cell, restricted=False), title=title)


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext gradstep` registers the `%%gradstep [title]` cell magic (the cell runs as a snippet)."""
    ipython.register_magic_function(_cell_magic, magic_kind="cell", magic_name="gradstep")
