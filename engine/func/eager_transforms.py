"""grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian and linearize on top of the autograd engine.

Each transform swaps the differentiated inputs for stand-ins that require grad (a fresh leaf, or an
alias of an input that already requires grad, so closures over the input stay constants) and runs
autograd.grad with create_graph, so transforms nest. A result keeps its graph only where it depends
on tensors outside the transforms (an outer input requiring grad, a captured parameter), as PyTorch's
results keep their lower-level graph; otherwise it comes back detached, without grad_fn.
"""

from __future__ import annotations

import weakref
from functools import wraps
from typing import Any, Callable

import engine as torch
from engine.func.pytree import tree_flatten, tree_map, tree_unflatten
from engine.grad_mode import enable_grad, is_grad_enabled
from engine.tensor import Tensor

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "linearize"]

# Fresh leaves made by transforms: id -> (weak reference, nesting level of the transform that made it).
_STAND_INS: dict[int, tuple[Any, int]] = {}
_LEVEL = [0]  # how many transforms are running


def _mark(leaf: Tensor) -> Tensor:
    key = id(leaf)
    _STAND_INS[key] = (weakref.ref(leaf, lambda _: _STAND_INS.pop(key, None)), _LEVEL[0])
    return leaf


def _own(t: Tensor, level: int) -> bool:
    """Whether t is a stand-in of the transform at `level` or of one nested inside it."""
    entry = _STAND_INS.get(id(t))
    return entry is not None and entry[0]() is t and entry[1] >= level


class _Level:
    """One more transform running while active; its value is that transform's level."""

    def __enter__(self) -> int:
        _LEVEL[0] += 1
        return _LEVEL[0]

    def __exit__(self, *exc: Any) -> None:
        _LEVEL[0] -= 1


def _check_tensor(x: Any) -> None:
    if not isinstance(x, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")


def _stand_in(x: Any, outer_grad: bool) -> Tensor:
    _check_tensor(x)
    if outer_grad and x.requires_grad:
        return x.view_as(x)  # keeps the path to the outer graph
    return _mark(x.detach().requires_grad_())


def _depends_outside(t: Tensor, level: int) -> bool:
    """Whether t's graph reaches a leaf that is not a stand-in of the transform at `level` (or deeper)."""
    fn = t.grad_fn
    if fn is None:
        return t.requires_grad and not _own(t, level)
    seen: set[int] = set()
    stack = [fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        variable = getattr(node, "variable", None)
        if isinstance(variable, Tensor) and not _own(variable, level):
            return True
        stack.extend(n for n, _ in node.next_functions)
    return False


def _finish(tree: Any, outer_grad: bool, level: int) -> Any:
    """Results as PyTorch hands them back: detached unless they depend on something outside."""
    def one(t: Any) -> Any:
        if not isinstance(t, Tensor) or not t.requires_grad:
            return t
        if outer_grad and _depends_outside(t, level):
            return t
        return t.detach()

    return tree_map(one, tree)


def _argnums_check(argnums: Any, n: int) -> tuple[int, ...]:
    if isinstance(argnums, int):
        nums = (argnums,)
    elif isinstance(argnums, tuple) and all(isinstance(a, int) for a in argnums):
        nums = argnums
        if len(set(nums)) != len(nums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    else:
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    for a in nums:
        if not -n <= a < n:
            raise RuntimeError(f"Got argnum={a}, but only {n} positional inputs")
    return tuple(a % n for a in nums)


def _with_stand_ins(args: tuple, argnums: Any, outer_grad: bool) -> tuple[tuple, Any, list]:
    """args with the differentiated ones replaced; the replaced trees (argnums' shape) and their leaves."""
    nums = _argnums_check(argnums, len(args))
    args = list(args)
    for a in nums:
        args[a] = tree_map(lambda x: _stand_in(x, outer_grad), args[a])
    picked = args[nums[0]] if isinstance(argnums, int) else tuple(args[a] for a in nums)
    return tuple(args), picked, tree_flatten(picked)[0]


def _grads(outputs: Any, inputs: list, grad_outputs: Any = None) -> list:
    """Gradients of outputs w.r.t. inputs (zeros where unused), keeping the graph for nesting."""
    needed = [o for o in (outputs if isinstance(outputs, (list, tuple)) else [outputs]) if o.requires_grad]
    if not needed:
        return [torch.zeros_like(x) for x in inputs]
    if grad_outputs is not None:
        pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
        needed, grad_outputs = [o for o, _ in pairs], [g for _, g in pairs]
    got = torch.autograd.grad(needed, inputs, grad_outputs, retain_graph=True, create_graph=True,
                              allow_unused=True)
    return [torch.zeros_like(x) if g is None else g for x, g in zip(inputs, got)]


def grad_and_value(func: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """A function returning (gradient of func's scalar output w.r.t. args[argnums], output)."""
    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        outer_grad = is_grad_enabled()
        with enable_grad(), _Level() as level:
            args, picked, leaves = _with_stand_ins(args, argnums, outer_grad)
            output = func(*args, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError("grad_and_value(f)(*args): output of function f should be a tuple: "
                                       "(output, aux) if has_aux is True")
                output, aux = output
            if not isinstance(output, Tensor):
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                   f"{type(output)}")
            if output.dim() != 0:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev "
                                   "APIs instead?")
            grads = tree_unflatten(_grads(output, leaves), tree_flatten(picked)[1])
        grads, output = _finish(grads, outer_grad, level), _finish(output, outer_grad, level)
        if has_aux:
            return grads, (output, _finish(aux, outer_grad, level))
        return grads, output

    return wrapper


def grad(func: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """A function returning the gradient of func's scalar output w.r.t. args[argnums] (and aux)."""
    run = grad_and_value(func, argnums, has_aux)

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        grads, value = run(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    return wrapper


def vjp(func: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """(func(*primals), vjp_fn[, aux]): vjp_fn(cotangents) gives one gradient per primal."""
    outer_grad = is_grad_enabled()
    with enable_grad(), _Level() as level:
        inputs = tree_map(lambda x: _stand_in(x, outer_grad), primals)
        leaves = tree_flatten(inputs)[0]
        output = func(*inputs)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError("vjp(f, *primals): output of function f should be a tuple: (output, aux) "
                                   "if has_aux is True")
            output, aux = output
    out_leaves, out_spec = tree_flatten(output)
    for o in out_leaves:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"vjp(f, *primals): Expected f(*primals) to return only tensors, got unsupported "
                               f"type {type(o)}")

    def vjp_fn(cotangents: Any, retain_graph: bool = True, create_graph: Any = None) -> tuple:
        grad_enabled = is_grad_enabled()
        cot_leaves, cot_spec = tree_flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of "
                               f"outputs to the function. cotangents: {cot_spec}, primal output: {out_spec}")
        for o, c in zip(out_leaves, cot_leaves):
            if tuple(o.shape) != tuple(c.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {c.shape} and output[0] "
                                   f"has a shape of {o.shape}.")
        with enable_grad():
            grads = _grads(out_leaves, leaves, cot_leaves)
        return _finish(tree_unflatten(grads, tree_flatten(primals)[1]), grad_enabled and outer_grad, level)

    result = (_finish(output, outer_grad, level), vjp_fn)
    return result + (_finish(aux, outer_grad, level),) if has_aux else result


def jvp(func: Callable, primals: Any, tangents: Any, *, strict: bool = False, has_aux: bool = False) -> tuple:
    """(func(*primals), J @ tangents), the product computed as the vjp of a vjp (linear in the cotangent)."""
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid "
                           "to call f(*primals).")
    if not isinstance(tangents, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected tangents to be a tuple. E.g. it should be valid "
                           "to call f(*primals).")
    if len(primals) != len(tangents):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           f"structure. For example, if primals is a tuple of 3 tensors, tangents also must be. "
                           f"Got primals with structure {tree_flatten(primals)[1]} and tangents with structure "
                           f"{tree_flatten(tangents)[1]}")
    p_leaves, t_leaves = tree_flatten(primals)[0], tree_flatten(tangents)[0]
    for p, t in zip(p_leaves, t_leaves):
        _check_tensor(p)
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError("Trying to set a forward gradient that has a different size than that of the "
                               f"original Tensor, this is not supported. Tensor is of size {list(p.shape)} while "
                               f"the given forward gradient is of size {list(t.shape)}.")
    outer_grad = is_grad_enabled()
    with enable_grad(), _Level() as level:
        inputs = tree_map(lambda x: _stand_in(x, outer_grad), primals)
        leaves = tree_flatten(inputs)[0]
        output = func(*inputs)
        aux = None
        if has_aux:
            output, aux = output
        out_leaves, out_spec = tree_flatten(output)
        products = []
        for o in out_leaves:
            if not o.requires_grad:  # constant (or integer) outputs: a zero tangent
                products.append(torch.zeros_like(o))
                continue
            u = _mark(torch.zeros_like(o).requires_grad_())
            g = _grads([o], leaves, [u])
            used = [(gi, t) for gi, t in zip(g, t_leaves) if gi.requires_grad]
            if used:
                product = torch.autograd.grad([gi for gi, _ in used], [u], [t for _, t in used],
                                              retain_graph=True, create_graph=True, allow_unused=True)[0]
            else:
                product = None
            products.append(torch.zeros_like(o) if product is None else product)
    result = (_finish(output, outer_grad, level),
              _finish(tree_unflatten(products, out_spec), outer_grad, level))
    return result + (_finish(aux, outer_grad, level),) if has_aux else result


def linearize(func: Callable, *primals: Any) -> tuple:
    """(func(*primals), jvp_fn): jvp_fn(*tangents) is J @ tangents at the primals."""
    output = jvp(func, primals, tuple(torch.zeros_like(p) for p in primals))[0]
    return output, lambda *tangents: jvp(func, primals, tangents)[1]


def _jacobian(func: Callable, argnums: Any, has_aux: bool, forward: bool) -> Callable:
    @wraps(func)
    def wrapper(*args: Any) -> Any:
        outer_grad = is_grad_enabled()
        with enable_grad(), _Level() as level:
            args, picked, leaves = _with_stand_ins(args, argnums, outer_grad)
            output = func(*args)
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError(f"{'jacfwd' if forward else 'jacrev'}(f, ...)(*args): output of function f "
                                       "should be a tuple: (output, aux) if has_aux is True")
                output, aux = output
            out_leaves, out_spec = tree_flatten(output)
            in_spec = tree_flatten(picked)[1]
            per_output = []
            for o in out_leaves:
                if not isinstance(o, Tensor):
                    raise RuntimeError(f"{'jacfwd' if forward else 'jacrev'}(f, ...): Expected f to return only "
                                       f"tensors, got unsupported type {type(o)}")
                blocks = _forward_blocks(o, leaves) if forward else _reverse_blocks(o, leaves)
                per_output.append(tree_unflatten(blocks, in_spec))
        jac = _finish(tree_unflatten(per_output, out_spec), outer_grad, level)
        return (jac, _finish(aux, outer_grad, level)) if has_aux else jac

    return wrapper


def _reverse_blocks(o: Tensor, leaves: list) -> list:
    """d o / d leaf for each leaf, one vjp per element of o (shape o.shape + leaf.shape)."""
    flat = o.reshape(-1)
    rows: list[list] = [[] for _ in leaves]
    for k in range(flat.numel()):
        basis = torch.zeros_like(flat)
        basis[k] = 1
        for r, g in zip(rows, _grads([flat], leaves, [basis])):
            r.append(g)
    return [torch.stack(r).reshape(tuple(o.shape) + tuple(x.shape)) if r else
            torch.zeros(tuple(o.shape) + tuple(x.shape), dtype=x.dtype) for r, x in zip(rows, leaves)]


def _forward_blocks(o: Tensor, leaves: list) -> list:
    """d o / d leaf for each leaf, one jvp per element of the leaf (columns of the Jacobian)."""
    u = _mark(torch.zeros_like(o).requires_grad_()) if o.requires_grad else None
    g = _grads([o], leaves, [u]) if u is not None else None
    blocks = []
    for i, x in enumerate(leaves):
        cols = []
        for k in range(x.numel()):
            basis = torch.zeros(x.numel(), dtype=x.dtype)
            basis[k] = 1
            gi = None if g is None else g[i]
            if gi is not None and gi.requires_grad:
                col = torch.autograd.grad([gi], [u], [basis.reshape(x.shape)], retain_graph=True,
                                          create_graph=True, allow_unused=True)[0]
            else:
                col = None
            cols.append(torch.zeros_like(o) if col is None else col)
        shape = tuple(o.shape) + tuple(x.shape)
        blocks.append(torch.stack(cols, dim=-1).reshape(shape) if cols else torch.zeros(shape, dtype=o.dtype))
    return blocks


def jacrev(func: Callable, argnums: Any = 0, *, has_aux: bool = False, chunk_size: Any = None,
           _preallocate_and_copy: bool = False) -> Callable:
    """The Jacobian of func w.r.t. args[argnums] by reverse mode: shape output.shape + input.shape."""
    return _jacobian(func, argnums, has_aux, forward=False)


def jacfwd(func: Callable, argnums: Any = 0, has_aux: bool = False, *, randomness: str = "error") -> Callable:
    """The Jacobian of func w.r.t. args[argnums], column by column (forward-mode products)."""
    return _jacobian(func, argnums, has_aux, forward=True)


def hessian(func: Callable, argnums: Any = 0) -> Callable:
    """The Hessian of a scalar func: jacfwd(jacrev(func))."""
    return jacfwd(jacrev(func, argnums), argnums)
