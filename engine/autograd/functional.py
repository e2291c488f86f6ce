"""torch.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp built on autograd.grad."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from engine.grad_mode import enable_grad
from engine.tensor import Tensor


def _as_tuple(x: Any) -> tuple[bool, tuple]:
    if isinstance(x, Tensor):
        return False, (x,)
    return True, tuple(x)


def _prepare(inputs: tuple, create_graph: bool) -> tuple:
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(True))
    return tuple(out)


def _grad(outputs: Any, inputs: tuple, grad_outputs: Any, create_graph: bool) -> tuple:
    from engine.autograd import grad

    return grad(outputs, inputs, grad_outputs, retain_graph=True, create_graph=create_graph,
                allow_unused=True)


def _zeros_for(t: Tensor) -> Tensor:
    return Tensor._make(np.zeros_like(t._data))


def _finish(t: Any, create_graph: bool) -> Any:
    if t is None:
        return None
    return t if create_graph else t.detach()


def _check_outputs(outs: tuple, strict: bool) -> None:
    """PyTorch's strict-mode error for an output that does not depend on the inputs."""
    if not strict:
        return
    for i, out in enumerate(outs):
        if not out.requires_grad:
            raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. The outputs "
                               "must be computed in a differentiable manner from the input when running in strict "
                               "mode.")


def jacobian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    from engine import functions as f

    tuple_in, ins = _as_tuple(inputs)
    with enable_grad():
        ins = _prepare(ins, create_graph)
        outputs = func(*ins)
        tuple_out, outs = _as_tuple(outputs)
        _check_outputs(outs, strict)
        if strict and vectorize:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                               "supported together. Please either set `strict=False` or `vectorize=False`.")
        rows = []
        for o, out in enumerate(outs):
            flat = out.reshape(-1)
            per_input: list[list] = [[] for _ in ins]
            for k in range(flat.numel()):
                if out.requires_grad:
                    grads = _grad(flat[k], ins, None, create_graph)
                else:
                    grads = (None,) * len(ins)
                for i, g in enumerate(grads):
                    if strict and g is None:
                        raise RuntimeError(f"Output {o} of the user-provided function is independent of input {i}. "
                                           "This is not allowed in strict mode.")
                    if strict and create_graph and not g.requires_grad:
                        raise RuntimeError(f"The jacobian of the user-provided function is independent of input {o}. "
                                           "This is not allowed in strict mode when create_graph=True.")
                    per_input[i].append(g if g is not None else _zeros_for(ins[i]))
            row = []
            for i, gs in enumerate(per_input):
                if gs:
                    stacked = f.stack(gs, 0)
                else:
                    stacked = Tensor._make(np.zeros((0,) + ins[i]._data.shape, ins[i]._data.dtype))
                row.append(_finish(stacked.reshape(tuple(out.shape) + tuple(ins[i].shape)), create_graph))
            rows.append(tuple(row) if tuple_in else row[0])
    if not tuple_out:
        return rows[0]
    return tuple(rows)


def hessian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    tuple_in, ins = _as_tuple(inputs)

    def gradient(*xs: Tensor) -> Any:
        out = func(*xs)
        grads = _grad(out, xs, None, True)
        grads = tuple(g if g is not None else _zeros_for(x) for g, x in zip(grads, xs))
        return grads if tuple_in else grads[0]

    return jacobian(gradient, inputs, create_graph=create_graph)


def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    tuple_in, ins = _as_tuple(inputs)
    with enable_grad():
        ins = _prepare(ins, create_graph)
        outputs = func(*ins)
        _, outs = _as_tuple(outputs)
        _check_outputs(outs, strict)
        vs = None if v is None else _as_tuple(v)[1]
        grads = _grad(outs, ins, vs, create_graph)
        for i, g in enumerate(grads):
            if strict and g is None:
                raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is "
                                   "not allowed in strict mode.")
    result = tuple(_finish(g if g is not None else _zeros_for(x), create_graph) for g, x in zip(grads, ins))
    out_value = tuple(_finish(o, create_graph) for o in outs) if isinstance(outputs, tuple) \
        else _finish(outputs, create_graph)
    return out_value, (result if tuple_in else result[0])


def jvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """Forward-mode product through the double-vjp trick (as PyTorch's functional.jvp does)."""
    tuple_in, ins = _as_tuple(inputs)
    vs = _as_tuple(v)[1] if v is not None else tuple(Tensor._make(np.ones_like(x._data)) for x in ins)
    with enable_grad():
        ins = _prepare(ins, create_graph)
        outputs = func(*ins)
        tuple_out, outs = _as_tuple(outputs)
        dummies = tuple(Tensor._make(np.zeros_like(o._data)).requires_grad_(True) for o in outs)
        grads = _grad(outs, ins, dummies, True)
        pairs = [(g, vv) for g, vv in zip(grads, vs) if g is not None]
        jv = _grad(tuple(g for g, _ in pairs), dummies, tuple(vv for _, vv in pairs), create_graph)
    result = tuple(_finish(j if j is not None else _zeros_for(o), create_graph) for j, o in zip(jv, outs))
    out_value = tuple(_finish(o, create_graph) for o in outs) if tuple_out else _finish(outputs, create_graph)
    return out_value, (result if tuple_out else result[0])


def vhp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    tuple_in, ins = _as_tuple(inputs)
    vs = _as_tuple(v)[1] if v is not None else tuple(Tensor._make(np.ones_like(x._data)) for x in ins)
    with enable_grad():
        ins = _prepare(ins, create_graph)
        out = func(*ins)
        grads = _grad(out, ins, None, True)
        pairs = [(g, vv) for g, vv in zip(grads, vs) if g is not None]
        hv = _grad(tuple(g for g, _ in pairs), ins, tuple(vv for _, vv in pairs), create_graph)
    result = tuple(_finish(h if h is not None else _zeros_for(x), create_graph) for h, x in zip(hv, ins))
    return _finish(out, create_graph), (result if tuple_in else result[0])


def hvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    # For twice-differentiable functions the Hessian is symmetric, so H v equals v H.
    return vhp(func, inputs, v, create_graph, strict)
