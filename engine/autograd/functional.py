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


def _checked(x: Any, arg_name: str, fn_name: str) -> tuple[bool, tuple]:
    """PyTorch's _as_tuple with names: a Tensor or a tuple of Tensors (a list counts as one value)."""
    is_tuple = isinstance(x, tuple)
    items = x if is_tuple else (x,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                            f"the {where} has type {type(el)}.")
    return is_tuple, items


_OUTPUTS = "outputs of the user-provided function"


def _validate_v(v: Any, other: tuple, is_other_tuple: bool, fn_name: str) -> tuple:
    """PyTorch's checks of a vector v against the outputs (vjp) or inputs (jvp, vhp, hvp) it pairs with."""
    _, vs = _checked(v, "v", fn_name)
    if len(vs) != len(other):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(vs)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(vs, other)):
        if a.shape != b.shape:
            prepend = f"Entry {i} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {b.shape} but got {a.shape}.")
    return vs


def _v_none_for_inputs(ins: tuple) -> None:
    if len(ins) != 1 or ins[0].numel() != 1:
        raise RuntimeError("The vector v can only be None if the input to the user-provided function is a single "
                           "Tensor with a single element.")


def _single_output(outputs: Any, fn_name: str, strict: bool) -> None:
    """hessian, vhp and hvp need a function returning one Tensor of one element."""
    is_tuple, outs = _checked(outputs, _OUTPUTS, fn_name)
    _check_outputs(outs, strict)
    if is_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs.numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")


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

    assert strategy in ("forward-mode", "reverse-mode"), (
        'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function has more outputs '
        'than inputs, "forward-mode" tends to be more performant. Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":  # PyTorch's option checks; the values are the same by reverse mode
        if create_graph:
            raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` and "
                                      '`strategy="forward-mode"` are not supported together (yet). Please either '
                                      'set `create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are '
                               'not supported together (yet). Please either set `strict=False` or '
                               '`strategy="reverse-mode"`.')
        if not vectorize:
            _checked(inputs, "inputs", "jacobian")
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                      "only implemented for `vectorize=True`.")
    tuple_in, ins = _checked(inputs, "inputs", "jacobian")
    with enable_grad():
        ins = _prepare(ins, create_graph)
        outputs = func(*ins)
        tuple_out, outs = _checked(outputs, _OUTPUTS, "jacobian")
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
    assert outer_jacobian_strategy in ("forward-mode", "reverse-mode"), (
        'Expected strategy to be either "forward-mode" or "reverse-mode".')
    tuple_in, ins = _checked(inputs, "inputs", "hessian")

    def gradient(*xs: Tensor) -> Any:
        out = func(*xs)
        _single_output(out, "hessian", strict)
        grads = _grad(out, xs, None, True)
        grads = tuple(g if g is not None else _zeros_for(x) for g, x in zip(grads, xs))
        for i, g in enumerate(grads):
            if strict and not g.requires_grad:
                raise RuntimeError(
                    f"While computing the hessian, found that the jacobian of the user-provided function with respect "
                    f"to input {i} is independent of the input. This is not allowed in strict mode. You should ensure "
                    "that your function is twice differentiable and that the jacobian depends on the inputs (this "
                    "would be violated by a linear function for example).")
        return grads if tuple_in else grads[0]

    return jacobian(gradient, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                    strategy=outer_jacobian_strategy)


def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    tuple_in, ins = _checked(inputs, "inputs", "vjp")
    with enable_grad():
        ins = _prepare(ins, create_graph)
        outputs = func(*ins)
        tuple_out, outs = _checked(outputs, _OUTPUTS, "vjp")
        _check_outputs(outs, strict)
        if v is None and (len(outs) != 1 or outs[0].numel() != 1):
            raise RuntimeError("The vector v can only be None if the user-provided function returns a single Tensor "
                               "with a single element.")
        vs = None if v is None else _validate_v(v, outs, tuple_out, "vjp")
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
    tuple_in, ins = _checked(inputs, "inputs", "jvp")
    if v is None:
        _v_none_for_inputs(ins)
    vs = _validate_v(v, ins, tuple_in, "jvp") if v is not None else \
        tuple(Tensor._make(np.ones_like(x._data)) for x in ins)
    with enable_grad():
        ins = _prepare(ins, create_graph)
        outputs = func(*ins)
        tuple_out, outs = _checked(outputs, _OUTPUTS, "jvp")
        _check_outputs(outs, strict)
        dummies = tuple(Tensor._make(np.zeros_like(o._data)).requires_grad_(True) for o in outs)
        grads = _grad(outs, ins, dummies, True)
        pairs = [(g, vv) for g, vv in zip(grads, vs) if g is not None]
        jv = _grad(tuple(g for g, _ in pairs), dummies, tuple(vv for _, vv in pairs), create_graph)
    result = tuple(_finish(j if j is not None else _zeros_for(o), create_graph) for j, o in zip(jv, outs))
    out_value = tuple(_finish(o, create_graph) for o in outs) if tuple_out else _finish(outputs, create_graph)
    return out_value, (result if tuple_out else result[0])


def vhp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False,
        _name: str = "vhp") -> tuple:
    tuple_in, ins = _checked(inputs, "inputs", _name)
    if v is None:
        _v_none_for_inputs(ins)
    vs = _validate_v(v, ins, tuple_in, _name) if v is not None else \
        tuple(Tensor._make(np.ones_like(x._data)) for x in ins)
    with enable_grad():
        ins = _prepare(ins, create_graph)
        out = func(*ins)
        _single_output(out, _name, strict)
        grads = _grad(out, ins, None, True)
        pairs = [(g, vv) for g, vv in zip(grads, vs) if g is not None]
        hv = _grad(tuple(g for g, _ in pairs), ins, tuple(vv for _, vv in pairs), create_graph)
    result = tuple(_finish(h if h is not None else _zeros_for(x), create_graph) for h, x in zip(hv, ins))
    return _finish(out, create_graph), (result if tuple_in else result[0])


def hvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    # For twice-differentiable functions the Hessian is symmetric, so H v equals v H.
    return vhp(func, inputs, v, create_graph, strict, _name="hvp")
