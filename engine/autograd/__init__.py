"""torch.autograd: backward(), grad(), custom Functions and the graph helpers."""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np

from engine import dtypes, messages, observe
from engine.autograd.function import Function, FunctionCtx, once_differentiable
from engine.autograd.graph import GradientEdge
from engine.executor import Pass
from engine.grad_mode import enable_grad, no_grad, set_grad_enabled
from engine.node import AccumulateGrad
from engine.rules import edge_to
from engine.tensor import Tensor

__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "no_grad",
           "enable_grad", "set_grad_enabled"]


def _as_tuple(x: Any) -> tuple:
    if isinstance(x, Tensor) or _is_edge(x):
        return (x,)
    return tuple(x)


def _is_edge(x: Any) -> bool:
    """x is a torch.autograd.graph.GradientEdge, which grad() and backward() take in place of a tensor."""
    return isinstance(x, GradientEdge)


def _meta(out: Any) -> tuple:
    """The shape and dtype of a gradient for `out`, a tensor or a GradientEdge."""
    if isinstance(out, Tensor):
        return out._data.shape, out._data.dtype
    return out.node._out_meta[out.output_nr]


def _observed(values: tuple) -> tuple:
    """What an observer is told of grad()'s outputs or inputs: a GradientEdge stands as a tensor of its
    gradient's shape attached to its node."""
    if not any(_is_edge(v) for v in values):
        return values
    shown = []
    for v in values:
        if _is_edge(v):
            shape, dtype = _meta(v)
            t = Tensor._make(np.zeros(shape, dtype), None if isinstance(v.node, AccumulateGrad) else v.node)
            t._requires_grad = True
            t._output_nr = v.output_nr
            v = t
        shown.append(v)
    return tuple(shown)


def _seeds(outputs: tuple, grads: Any, create_graph: bool) -> list:
    grads = (None,) * len(outputs) if grads is None else _as_tuple_or_none(grads)
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    seeds = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        shape, dtype = _meta(out)
        if g is None:
            if not isinstance(out, Tensor) or out._data.size != 1:
                raise RuntimeError(messages.IMPLICIT_SCALAR)
            if dtype.kind == "c":
                raise RuntimeError(messages.IMPLICIT_REAL.format(dtype=dtypes.from_numpy(dtype)))
            seed: Any = np.ones(shape, dtype)
            seeds.append(Tensor._make(seed) if create_graph else seed)
            continue
        if not isinstance(g, Tensor):
            g = Tensor._make(np.asarray(g, dtype))
        if g._data.shape != shape:
            raise RuntimeError(messages.shape_mismatch(i, g._data.shape, shape))
        if (g._data.dtype.kind == "c") != (dtype.kind == "c"):
            raise RuntimeError("For complex Tensors, both grad_output and output are required to have the same dtype. "
                               f"Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} and output[{i}] has a "
                               f"dtype of {dtypes.from_numpy(dtype)}.")
        seeds.append(g if create_graph else g._data)
    return seeds


def _as_tuple_or_none(x: Any) -> tuple:
    if x is None or isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _root_edges(outputs: tuple) -> list:
    edges = []
    for i, out in enumerate(outputs):
        edge = (out.node, out.output_nr) if _is_edge(out) else edge_to(out)
        if edge is None:
            raise RuntimeError(messages.NO_GRAD_FN.format(i=i))
        edges.append(edge)
    return edges


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: Any = None,
    inputs: Any = None,
) -> None:
    outputs = _as_tuple(tensors)
    if retain_graph is None:
        retain_graph = create_graph
    roots = _root_edges(outputs)
    seeds = _seeds(outputs, grad_tensors if grad_tensors is not None else grad_variables, create_graph)
    accumulate_into = None
    if inputs is not None:
        targets = _as_tuple(inputs)
        if not targets:
            raise RuntimeError(messages.EMPTY_INPUTS)
        accumulate_into = []
        for t in targets:
            if _is_edge(t):
                accumulate_into.append(t.node)
                continue
            if not t._requires_grad:
                raise RuntimeError(messages.RETAIN_GRAD_NO_GRAD)
            if t.grad_fn is not None:
                t.retain_grad()
                accumulate_into.append(t.grad_fn)
            else:
                accumulate_into.append(t._grad_accumulator())
    if create_graph:
        warnings.warn(messages.CREATE_GRAPH_WARNING, UserWarning, stacklevel=3)
    run = Pass(roots, seeds, retain_graph, create_graph, accumulate_into=accumulate_into)
    _run_observed(run, "backward", outputs)


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple:
    outputs_t = _as_tuple(outputs)
    inputs_t = _as_tuple(inputs)
    if not inputs_t:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
                         "allow_unused=False.")
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        return _batched_grad(outputs_t, inputs_t, _as_tuple(grad_outputs), retain_graph, create_graph,
                             allow_unused, materialize_grads)
    if allow_unused is None:
        allow_unused = materialize_grads
    roots = _root_edges(outputs_t)
    seeds = _seeds(outputs_t, grad_outputs, create_graph)
    capture = []
    for i, t in enumerate(inputs_t):
        edge = (t.node, t.output_nr) if _is_edge(t) else edge_to(t)
        if edge is None:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        capture.append(edge)
    run = Pass(roots, seeds, retain_graph, create_graph, capture=capture)
    captured = _run_observed(run, "grad", outputs_t, inputs_t)
    results = []
    for i, (t, g) in enumerate(zip(inputs_t, captured)):
        if g is None:
            if materialize_grads and _is_edge(t):
                raise RuntimeError("materialize_grads cannot be used when the given input is a GradientEdge")
            if materialize_grads:
                results.append(Tensor._make(np.zeros_like(t._data)))
                continue
            if not allow_unused:
                raise RuntimeError(messages.UNUSED_INPUT.format(i=i))
            results.append(None)
            continue
        if not isinstance(g, Tensor):
            g = Tensor._make(np.array(g, dtype=_meta(t)[1] if _is_edge(t) else t._data.dtype, copy=True))
        results.append(g)
    return tuple(results)


def _batched_grad(outputs: tuple, inputs: tuple, grad_outputs: tuple, retain_graph: bool, create_graph: bool,
                  allow_unused: Any, materialize_grads: bool) -> tuple:
    """is_grads_batched: one vector-Jacobian product per row of the grad_outputs, stacked (PyTorch
    runs them under vmap; the values are the same)."""
    from engine import functions

    rows = grad_outputs[0].shape[0]
    per_row = [
        grad(outputs, inputs, tuple(g[k] for g in grad_outputs), retain_graph or k < rows - 1, create_graph,
             allow_unused=allow_unused, materialize_grads=materialize_grads)
        for k in range(rows)
    ]
    return tuple(None if column[0] is None else functions.stack(list(column)) for column in zip(*per_row))


def _run_observed(run: Pass, api: str, outputs: tuple, inputs: tuple = ()) -> list:
    obs = observe.current
    if obs is None:
        return run.run()
    outputs, inputs = _observed(outputs), _observed(inputs)
    obs.backward_begin(api, run, outputs, inputs)
    try:
        captured = run.run()
    except BaseException as exc:
        obs.backward_failed(exc)
        raise
    obs.backward_end(run, inputs, captured)
    return captured


from engine.autograd import forward_ad, functional, graph  # noqa: E402
from engine.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: E402
from engine.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: E402
from engine.autograd import gradcheck as _gradcheck_module  # noqa: E402,F401
from engine.autograd.variable import Variable  # noqa: E402

gradcheck.GradcheckError = GradcheckError  # type: ignore[attr-defined]
GradcheckError.__module__ = "torch.autograd.gradcheck"

__all__ += ["AccumulateGrad", "forward_ad", "functional", "graph", "detect_anomaly", "set_detect_anomaly", "gradcheck",
            "gradgradcheck", "GradcheckError", "Variable"]
