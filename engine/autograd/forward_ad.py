"""torch.autograd.forward_ad: dual tensors (a primal and its tangent) within a dual level.

While a level is open, every op-table op with a dual input gives its floating outputs the tangent
J·t, computed from the op's own backward formulas by the double-vjp trick: on detached copies of
the inputs, g(u) = Jᵀu is linear in a cotangent u, so the gradient of <g(u), t> with respect to u
is J·t. In-place ops update their tensor's tangent. Exiting the level drops every tangent.
"""

from __future__ import annotations

import weakref
from typing import Any, NamedTuple

from engine import grad_mode, observe
from engine.tensor import Tensor

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual",
           "dual_level"]

_current_level = -1
# Tangents of the open level: id(tensor) -> (weak reference to the tensor, tangent).
_TANGENTS: dict[int, tuple[Any, Tensor]] = {}


def tangent_of(t: Any) -> Tensor | None:
    entry = _TANGENTS.get(id(t))
    return entry[1] if entry is not None and entry[0]() is t else None


def _set_tangent(t: Tensor, tangent: Tensor) -> None:
    key = id(t)
    _TANGENTS[key] = (weakref.ref(t, lambda _: _TANGENTS.pop(key, None)), tangent)


def enter_dual_level() -> int:
    """Open a new forward grad level (only one at a time) and return it."""
    global _current_level
    if _current_level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _current_level += 1
    grad_mode.state.dual = propagate
    return _current_level


def exit_dual_level(*, level: Any = None) -> None:
    """Close the current level, dropping the tangents of its dual tensors."""
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. "
                           "This is not supported.")
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    _TANGENTS.clear()
    grad_mode.state.dual = False
    _current_level = level - 1


def _check_float(t: Any, what: str) -> None:
    if not (t.is_floating_point() or t.is_complex()):
        raise ValueError(f"Expected {what} to be floating point or complex, but got: {t.dtype}")


def make_dual(tensor: Tensor, tangent: Tensor, *, level: Any = None) -> Tensor:
    """A view of `tensor` carrying `tangent` (as is) as its forward gradient."""
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    _check_float(tensor, "primal")
    _check_float(tangent, "tangent")
    if tuple(tensor.shape) != tuple(tangent.shape):
        raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
                           f"forward gradient is of size {list(tangent.shape)}.")
    with _off():
        dual = tensor.view_as(tensor)
    _set_tangent(dual, tangent)
    return dual


class UnpackedDualTensor(NamedTuple):
    """Namedtuple returned by :func:`unpack_dual` containing the primal and tangent components of the dual
    tensor."""

    primal: Tensor
    tangent: Tensor | None


UnpackedDualTensor.__module__ = "torch.autograd.forward_ad"


def unpack_dual(tensor: Any, *, level: Any = None) -> UnpackedDualTensor:
    """(a view of the primal, the tangent or None)."""
    if level is None:
        level = _current_level
    if level < 0 or not isinstance(tensor, Tensor):
        return UnpackedDualTensor(tensor, None)
    from engine import ops
    from engine.rules import apply

    with _off():
        primal = apply(ops.UNPACK_DUAL, (tensor,))
    return UnpackedDualTensor(primal, tangent_of(tensor))


class dual_level:  # noqa: N801 - PyTorch's name
    """Context manager (and decorator) within which forward AD computation happens."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc: Any) -> None:
        exit_dual_level()

    def __call__(self, fn: Any) -> Any:
        return grad_mode._decorate(dual_level, fn)


class _off:
    """Tangent propagation and the observer paused (for the computation of a tangent)."""

    def __enter__(self) -> None:
        self._prev = grad_mode.state.dual, observe.current
        grad_mode.state.dual = False
        observe.current = None

    def __exit__(self, *exc: Any) -> None:
        grad_mode.state.dual, observe.current = self._prev


def propagate(rule: Any, inputs: tuple, attrs: dict | None, results: tuple) -> None:
    """Give each floating result of `rule` applied to `inputs` its tangent, when an input has one."""
    tangents = [tangent_of(x) if isinstance(x, Tensor) else None for x in inputs]
    if all(t is None for t in tangents):
        return
    import engine as torch
    from engine.rules import apply

    # When a primal or a tangent requires grad, PyTorch's tangent formulas run as differentiable ops: the
    # tangent then has a graph back to them. Here the product J·t is computed with create_graph on inputs
    # still attached to their graphs.
    graph = grad_mode.state.enabled and any(
        (isinstance(x, Tensor) and x.requires_grad) or (t is not None and t.requires_grad)
        for x, t in zip(inputs, tangents))
    with _off(), grad_mode.enable_grad():
        leaves, pushed, args = [], [], []
        for x, t in zip(inputs, tangents):
            if not isinstance(x, Tensor):
                args.append(x)
                continue
            if graph and (x.requires_grad or t is None):
                copy = x.view_as(x) if t is not None else x  # an alias keeping x's graph
            else:
                copy = x.detach()
                if t is not None:
                    copy.requires_grad_()
            if t is not None:
                leaves.append(copy)
                pushed.append(t if t.dtype == copy.dtype else t.to(copy.dtype))
            args.append(copy)
        out = apply(rule, tuple(args), attrs)
        outs = out if isinstance(out, tuple) else (out,)
        for result, o in zip(results, outs):
            if not o.requires_grad:
                continue
            u = torch.zeros_like(o).requires_grad_()
            grads = torch.autograd.grad([o], leaves, [u], create_graph=True, allow_unused=True)
            used = [(g, t) for g, t in zip(grads, pushed) if g is not None and g.requires_grad]
            product = None
            if used and graph:
                total = None
                for g, t in used:
                    term = (g * t).sum()
                    total = term if total is None else total + term
                product = torch.autograd.grad([total], [u], create_graph=True, allow_unused=True)[0]
            elif used:
                product = torch.autograd.grad([g for g, _ in used], [u], [t for _, t in used],
                                              allow_unused=True)[0]
            if product is None:
                new = torch.zeros_like(o).detach()
            else:
                new = product if graph and product.requires_grad else product.detach()
            old = tangent_of(result)
            if old is not None and old.shape == new.shape and old.dtype == new.dtype:
                # an in-place op: PyTorch updates the tangent in place too (CopyBackwards when it has a graph)
                with grad_mode.set_grad_enabled(new.requires_grad or old.requires_grad):
                    old.copy_(new)
            else:
                _set_tangent(result, new)
