"""torch.* functions and Tensor methods: argument handling in PyTorch's style around the op table."""

from __future__ import annotations

import builtins
from typing import Any, Sequence

import numpy as np

from engine import grad_mode, messages, observe, ops
from engine.rules import apply, scalar_binary_op, scalar_unary_op
from engine.node import Node
from engine.rules import Rule, _node_classes, node_maker
from engine.tensor import Tensor

Number = (int, float, bool)


def as_tensor(x: Any) -> Tensor:
    if isinstance(x, Tensor):
        return x
    from engine.creation import tensor

    return tensor(x)


def _check_broadcast(a: Any, b: Any) -> None:
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        sa, sb = a._data.shape, b._data.shape
        if sa == sb or sa[len(sa) - len(sb):] == sb or sb[len(sb) - len(sa):] == sa:
            return  # equal, or one shape ends the other: they broadcast
        problem = messages.broadcast_mismatch(sa, sb)
        if problem:
            raise RuntimeError(problem)


_OPERAND = (Tensor, *Number)


def _binary(rule: Any, a: Any, b: Any, attrs: dict | None = None) -> Tensor:
    if type(b) is np.ndarray:
        b = Tensor._make(b)  # constants inside gradient formulas under create_graph
    elif not isinstance(b, _OPERAND):
        return NotImplemented
    _check_broadcast(a, b)
    return apply(rule, (a, b), attrs)


# --- arithmetic -------------------------------------------------------------------------------
# add, sub, mul, div, neg, reciprocal and the unary functions below run 0-d float32 operands
# through their rule's scalar kernel (see rules.scalar_binary_op), everything else as written here.
# The operators (`x + y`, `x * 0.5`) call the fast functions directly.
def _add(input: Any, other: Any, alpha: Any = 1) -> Tensor:
    if not isinstance(input, Tensor):
        input, other = other, input
    return _binary(ops.ADD, input, other, {"alpha": alpha} if alpha != 1 else None)


add_op = scalar_binary_op(ops.ADD, _add)


def add(input: Any, other: Any, alpha: Any = 1) -> Tensor:
    if type(alpha) is int and alpha == 1:
        return add_op(input, other)
    return _add(input, other, alpha)


def _sub(input: Any, other: Any, alpha: Any = 1) -> Tensor:
    if not isinstance(input, Tensor):
        return apply(ops.RSUB, (other,), {"other": input, "alpha": alpha})
    return _binary(ops.SUB, input, other, {"alpha": alpha} if alpha != 1 else None)


sub_op = scalar_binary_op(ops.SUB, _sub)


def sub(input: Any, other: Any, alpha: Any = 1) -> Tensor:
    if type(alpha) is int and alpha == 1:
        return sub_op(input, other)
    return _sub(input, other, alpha)


def rsub(input: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    if isinstance(other, Tensor):
        return sub(other, input, alpha=alpha)
    return apply(ops.RSUB, (input,), {"other": other, "alpha": alpha} if alpha != 1 else {"other": other})


def _mul(input: Any, other: Any) -> Tensor:
    if not isinstance(input, Tensor):
        input, other = other, input
    return _binary(ops.MUL, input, other)


mul = scalar_binary_op(ops.MUL, _mul)


def _div(input: Any, other: Any) -> Tensor:
    if not isinstance(input, Tensor):
        # 2 / a is 2 * a.reciprocal() in PyTorch's graph
        return mul(apply(ops.RECIPROCAL, (other,)), input)
    return _binary(ops.DIV, input, other)


div = scalar_binary_op(ops.DIV, _div)
neg = scalar_unary_op(ops.NEG, lambda input: apply(ops.NEG, (input,)))


def pow(input: Any, exponent: Any) -> Tensor:  # noqa: A001 - PyTorch's name
    if not isinstance(input, Tensor):
        return apply(ops.RPOW, (exponent,), {"self": input})
    if isinstance(exponent, Tensor):
        _check_broadcast(input, exponent)
        return apply(ops.POW_TENSOR, (input, exponent))
    return apply(ops.POW, (input,), {"exponent": exponent})


def square(input: Tensor) -> Tensor:
    return pow(input, 2)


reciprocal = scalar_unary_op(ops.RECIPROCAL, lambda input: apply(ops.RECIPROCAL, (input,)))


def _unary(rule: Any) -> Any:
    def fn(input: Tensor) -> Tensor:
        return apply(rule, (input if type(input) is Tensor else as_tensor(input),))

    fn.__name__ = rule.name
    return fn if rule.scalar is None else scalar_unary_op(rule, fn)


exp = _unary(ops.EXP)
log = _unary(ops.LOG)
sin = _unary(ops.SIN)
cos = _unary(ops.COS)
tanh = _unary(ops.TANH)
sigmoid = _unary(ops.SIGMOID)
relu = _unary(ops.RELU)
sqrt = _unary(ops.SQRT)
abs = _unary(ops.ABS)  # noqa: A001


def _constant(array: np.ndarray) -> Tensor:
    """A result that carries no gradient (comparisons, sign, argmax...)."""
    t = Tensor._make(np.asarray(array))
    if observe.current is not None:
        observe.current.tensor_created(t, None)
    return t


def where(condition: Any, input: Any = None, other: Any = None) -> Any:
    cond = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    if input is None and other is None:
        return tuple(_constant(i.astype(np.int64)) for i in np.nonzero(cond))
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        return _constant(np.where(cond, input, other).astype(np.float32))
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        _check_broadcast(input, other)
    return apply(ops.WHERE, (input, other), {"condition": cond.astype(bool, copy=False)})


def _dtype_of(*xs: Any) -> Any:
    for x in xs:
        if isinstance(x, Tensor):
            return x._data.dtype
    return np.float32


def zeros_like(input: Tensor, dtype: Any = None) -> Tensor:
    from engine import creation

    return creation.zeros_like(input, dtype=dtype)


def ones_like(input: Tensor, dtype: Any = None) -> Tensor:
    from engine import creation

    return creation.ones_like(input, dtype=dtype)


# --- reductions -------------------------------------------------------------------------------
def _dim_tuple(dim: Any, ndim: int) -> tuple:
    """PyTorch saves dim lists as tuples: sum(1) has _saved_dim == (1,). Each dim is checked
    against `ndim` (PyTorch's IndexError) and may appear once; they are kept as given."""
    dims = tuple(dim) if isinstance(dim, (list, tuple)) else (int(dim),)
    seen = set()
    for d in dims:
        wrapped = _wrap_dim(d, ndim)
        if wrapped in seen:
            raise RuntimeError(f"dim {wrapped} appears multiple times in the list of dims")
        seen.add(wrapped)
    return dims


def _optional_dims(dim: Any, ndim: int) -> Any:
    """None (all dims) or the checked tuple of dims."""
    return None if dim is None else _dim_tuple(dim, ndim)


def _wrap_dim(dim: int, ndim: int) -> int:
    """`dim` as a non-negative index (a 0-d tensor has one dim, -1 or 0), or PyTorch's IndexError."""
    n = builtins.max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim % n


def sum(input: Tensor, dim: Any = None, keepdim: bool = False, *, axis: Any = None,  # noqa: A001
        keepdims: Any = None, dtype: Any = None) -> Tensor:
    dim = axis if dim is None else dim
    keepdim = keepdims if keepdims is not None else keepdim
    if dtype is not None:
        input = input.to(dtype)
    elif input._data.dtype.kind in "biu" and input._data.dtype != np.int64:
        input = input.to(np.int64)
    if dim is None:
        return apply(ops.SUM, (input,))
    return apply(ops.SUM_DIM, (input,), {"dim": _dim_tuple(dim, input._data.ndim), "keepdim": keepdim})


def mean(input: Tensor, dim: Any = None, keepdim: bool = False, *, axis: Any = None,
         keepdims: Any = None, dtype: Any = None) -> Tensor:
    dim = axis if dim is None else dim
    keepdim = keepdims if keepdims is not None else keepdim
    if input._data.dtype.kind != "f":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {input.dtype.legacy}"
        )
    if dim is None:
        return apply(ops.MEAN, (input,))
    return apply(ops.MEAN_DIM, (input,), {"dim": _dim_tuple(dim, input._data.ndim), "keepdim": keepdim})


def sum_to_size(input: Tensor, *size: Any) -> Tensor:
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
    if tuple(input._data.shape) == shape:
        return input
    if not shape:  # at::sum_to: a plain sum() to a 0-d shape (SumBackward0)
        return sum(input)
    lead = input._data.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(
        i + lead for i, d in enumerate(shape) if d == 1 and input._data.shape[i + lead] != 1
    )
    out = sum(input, dims, keepdim=True) if dims else input
    return out.view(shape) if lead else out


# --- matrix products --------------------------------------------------------------------------
def matmul(input: Tensor, other: Tensor) -> Tensor:
    """PyTorch's matmul dispatch, producing the same chain of nodes (fold to mm/mv, or expand+bmm)."""
    if not isinstance(other, Tensor):
        return NotImplemented
    a, b = input._data.ndim, other._data.ndim
    if a == 0 or b == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {a}D and {b}D"
        )
    if a == 2 and b == 2:
        return mm(input, other)
    if a == 1 and b == 1:
        return dot(input, other)
    if a == 2 and b == 1:
        return mv(input, other)
    if a == 1 and b == 2:
        out = mm(unsqueeze(input, 0), other)
        return apply(ops.SQUEEZE_INPLACE, (out,), {"dim": 0})
    if _should_fold(input, other):
        if a >= 3:
            return _folded(input, other)
        if a == 1:
            # vector @ batch: fold the batch's transposed matrices into one matrix-vector product.
            folded = reshape(transpose(other, -1, -2), -1, other._data.shape[-2])
            out = mv(folded, input)
            return apply(ops.UNSAFE_VIEW, (out,), {"size": other._data.shape[:-2] + (other._data.shape[-1],)})
        out = _folded(transpose(other, -1, -2), t(input))
        return contiguous(transpose(out, -1, -2))
    return _batched(input, other)


def _should_fold(input: Tensor, other: Tensor) -> bool:
    """PyTorch's should_fold: one mm/mv on the larger operand folded into rows, rather than bmm,
    when that costs no copy (or when the smaller operand requires grad)."""
    a, b = input._data.ndim, other._data.ndim
    larger, smaller = (input, other) if a >= b else (other, input)
    if not (larger._data.ndim >= 3 and smaller._data.ndim <= 2):
        return False
    if smaller._requires_grad:
        return True
    if a == 2:
        return False
    data = larger._data if a >= b else np.swapaxes(larger._data, -1, -2)
    if data.size == 0:
        return True
    shape, strides = data.shape, data.strides
    return builtins.all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(data.ndim - 2))


def _folded(input: Tensor, other: Tensor) -> Tensor:
    """(..., n, m) @ (m, p) or (m,): one mm/mv on the batch folded into rows, then _unsafe_view."""
    shape = input._data.shape
    rows = reshape(input, -1, shape[-1])
    if other._data.ndim == 1:
        out = mv(rows, other)
        return apply(ops.UNSAFE_VIEW, (out,), {"size": shape[:-1]})
    out = mm(rows, other)
    return apply(ops.UNSAFE_VIEW, (out,), {"size": shape[:-1] + (other._data.shape[-1],)})


def _batched(input: Tensor, other: Tensor) -> Tensor:
    """PyTorch's matmul of batches: both expanded to the broadcast batch, one bmm, _unsafe_view.
    A vector operand is a single row (left) or column (right)."""
    sa, sb = input._data.shape, other._data.shape
    n, m1 = (sa[-2] if len(sa) > 1 else 1), sa[-1]
    m2, p = (sb[-2], sb[-1]) if len(sb) > 1 else (sb[0], 1)
    batch = tuple(np.broadcast_shapes(sa[:-2], sb[:-2]))
    if m1 != m2:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{_prod(batch)}, {m1}] "
            f"but got: [{_prod(batch)}, {m2}]."
        )
    left = reshape(expand(input, batch + (n, m1)), -1, n, m1)
    if len(sb) == 1:
        right = unsqueeze(reshape(expand(other, batch + (m2,)), -1, m2), 2)
        out = apply(ops.SQUEEZE_INPLACE, (bmm(left, right),), {"dim": -1})
    else:
        out = bmm(left, reshape(expand(other, batch + (m2, p)), -1, m2, p))
    size = batch + ((n,) if len(sa) > 1 else ()) + ((p,) if len(sb) > 1 else ())
    return apply(ops.UNSAFE_VIEW, (out,), {"size": size})


def _prod(shape: tuple) -> int:
    return int(np.prod(shape)) if shape else 1


def mv(input: Tensor, vec: Tensor) -> Tensor:
    if input._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got 1, {input._data.ndim}, {vec._data.ndim}"
        )
    if input._data.dtype != vec._data.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {vec.dtype.legacy}, "
                           f"{input.dtype.legacy}, and {vec.dtype.legacy}")
    if input._data.shape[1] != vec._data.shape[0]:
        s1 = input._data.shape
        raise RuntimeError(
            f"size mismatch, got input ({s1[0]}), mat ({s1[0]}x{s1[1]}), vec ({vec._data.shape[0]})"
        )
    return apply(ops.MV, (input, vec))


def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    sa, sb = input._data.shape, mat2._data.shape
    if len(sa) != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if len(sb) != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if sb[:2] != (sa[0], sa[2]):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{sa[0]}, {sa[2]}] "
            f"but got: [{sb[0]}, {sb[1]}]."
        )
    if input._data.dtype != mat2._data.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.legacy} but found {mat2.dtype.legacy}")
    return apply(ops.BMM, (input, mat2))


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    return mul(reshape(input, -1, 1), vec2)


ger = outer


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    for name, first in (("self", input), ("mat1", mat1)):
        if first._data.dtype != mat2._data.dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got {first.dtype.legacy} and "
                               f"{mat2.dtype.legacy}")
    attrs = {}
    if alpha != 1:
        attrs["alpha"] = alpha
    if beta != 1:
        attrs["beta"] = beta
    return apply(ops.ADDMM, (input, mat1, mat2), attrs or None)


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    if input._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if input._data.shape[1] != mat2._data.shape[0]:
        s1, s2 = input._data.shape, mat2._data.shape
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({s1[0]}x{s1[1]} and {s2[0]}x{s2[1]})"
        )
    if input._data.dtype != mat2._data.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {input.dtype.cpp} != "
                           f"{mat2.dtype.cpp}")
    return apply(ops.MM, (input, mat2))


def dot(input: Tensor, tensor: Tensor) -> Tensor:
    sa, sb = input._data.shape, tensor._data.shape
    if len(sa) != 1 or len(sb) != 1:
        raise RuntimeError(f"1D tensors expected, but got {len(sa)}D and {len(sb)}D tensors")
    if sa != sb:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{sa[0]}] and src [{sb[0]}] to have the same "
            f"number of elements, but got {sa[0]} and {sb[0]} elements respectively"
        )
    if input._data.dtype != tensor._data.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {input.dtype.legacy} "
                           f"and {tensor.dtype.legacy}")
    return apply(ops.DOT, (input, tensor))


# --- shapes -----------------------------------------------------------------------------------
def _size_args(size: Sequence) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(size)


def _infer_shape(input: Tensor, size: Sequence) -> tuple:
    shape = tuple(int(d) for d in _size_args(size))
    n = input._data.size
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = _prod(tuple(d for d in shape if d != -1))
    if -1 in shape:
        if known == 0 or n % known:
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {n}")
        shape = tuple(n // known if d == -1 else d for d in shape)
    elif known != n:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {n}")
    return shape


def _viewable(array: np.ndarray, shape: tuple) -> bool:
    probe = array.view()
    try:
        probe.shape = shape
    except AttributeError:
        return False
    return True


def view(input: Tensor, *size: Any) -> Tensor:
    if len(size) == 1 and not isinstance(size[0], (tuple, list, int)) and size[0] is not None:
        return input.to(size[0])  # view(dtype)
    shape = _infer_shape(input, size)
    if not _viewable(input._data, shape):
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension "
            "spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return apply(ops.VIEW, (input,), {"size": shape})


def reshape(input: Tensor, *size: Any) -> Tensor:
    shape = _infer_shape(input, size)
    if _viewable(input._data, shape):
        # PyTorch: view of a contiguous tensor, _reshape_alias (a view too) of a strided one
        rule = ops.VIEW if input._data.flags.c_contiguous else ops.RESHAPE_ALIAS
        return apply(rule, (input,), {"size": shape})
    copy = apply(ops.CLONE, (input,), {"memory_format": "contiguous"})
    return apply(ops.UNSAFE_VIEW, (copy,), {"size": shape})


def contiguous(input: Tensor, memory_format: Any = None) -> Tensor:
    if input._data.flags.c_contiguous:
        return input
    return apply(ops.CLONE, (input,), {"memory_format": "contiguous"})


def view_as(input: Tensor, other: Tensor) -> Tensor:
    return view(input, other._data.shape)


def reshape_as(input: Tensor, other: Tensor) -> Tensor:
    return reshape(input, other._data.shape)


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    return expand(input, other._data.shape)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    shape = input._data.shape
    if not shape:
        return reshape(input, 1)
    start, end = _wrap_dim(start_dim, len(shape)), _wrap_dim(end_dim, len(shape))
    new = shape[:start] + (int(np.prod(shape[start: end + 1])),) + shape[end + 1:]
    return reshape(input, new)


def expand(input: Tensor, *size: Any) -> Tensor:
    shape = _size_args(size)
    lead = len(shape) - input._data.ndim
    shape = tuple(
        input._data.shape[i - lead] if d == -1 else d for i, d in enumerate(shape)
    )
    return apply(ops.EXPAND, (input,), {"size": shape})


def t(input: Tensor) -> Tensor:
    return apply(ops.T, (input,))


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    _wrap_dim(dim0, input._data.ndim)
    _wrap_dim(dim1, input._data.ndim)
    return apply(ops.TRANSPOSE, (input,), {"dim0": dim0, "dim1": dim1})


def permute(input: Tensor, *dims: Any) -> Tensor:
    return apply(ops.PERMUTE, (input,), {"dims": _size_args(dims)})


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    _wrap_dim(dim, input._data.ndim + 1)
    return apply(ops.UNSQUEEZE, (input,), {"dim": dim})  # kept as given: PyTorch's _saved_dim


def squeeze(input: Tensor, dim: Any = None) -> Tensor:
    if dim is None:
        return apply(ops.SQUEEZE, (input,))
    if isinstance(dim, (tuple, list)):
        n = builtins.max(input._data.ndim, 1)
        return apply(ops.SQUEEZE_DIMS, (input,), {"dim": tuple(d % n for d in dim)})
    _wrap_dim(dim, input._data.ndim)
    return apply(ops.SQUEEZE_DIM, (input,), {"dim": dim if input._data.ndim else 0})


def clone(input: Tensor, memory_format: Any = None) -> Tensor:
    return apply(ops.CLONE, (input,))


# --- comparisons (no gradient) ----------------------------------------------------------------
def _compare(np_fn: Any) -> Any:
    def fn(input: Tensor, other: Any) -> Tensor:
        if not isinstance(other, (Tensor, *Number)):
            return NotImplemented
        b = other._data if isinstance(other, Tensor) else other
        return _constant(np_fn(input._data, b))

    return fn


lt, le, gt, ge, eq, ne = (_compare(f) for f in (np.less, np.less_equal, np.greater, np.greater_equal,
                                                  np.equal, np.not_equal))


# --- in-place ---------------------------------------------------------------------------------
def _inplace(self: Tensor, rule: Any, others: tuple, attrs: dict | None = None) -> Tensor:
    """Apply `rule` and write the result into `self`, rebasing its grad_fn like PyTorch.

    On a view, the base gets a CopySlices node (the op's node applied to the viewed region) and
    the view's grad_fn becomes an AsStridedBackward0 of the base, as PyTorch does.
    """
    if self._inference and not grad_mode.state.inference:
        _write(self, rule, others, attrs)  # PyTorch writes, then refuses to count the new version
    self._check_inplace()
    tracked = grad_mode.state.enabled and (
        self._requires_grad or builtins.any(isinstance(o, Tensor) and o._requires_grad for o in others)
    )
    if not tracked:
        _write(self, rule, others, attrs)
        self._vc[0] += 1
        if observe.current is not None:
            observe.current.inplace_applied(self, None)
        return self
    # The node sees the old value of self as its input: a snapshot that shares the old grad_fn.
    before = Tensor._make(self._data.copy(), self.grad_fn, [0])
    before._requires_grad = self._requires_grad
    before._output_nr = self._output_nr
    before._accumulator = self._accumulator
    with _quiet():
        out = apply(rule, (before, *others), attrs)
    np.copyto(self._data, out._data, casting="unsafe")
    self._vc[0] += 1
    node = out.grad_fn
    if node is not None and node._saved:
        from engine.node import SavedTensor

        for slot, value in node._saved.items():
            if type(value) is SavedTensor and value.is_output:
                node._saved[slot] = SavedTensor(self, True)
    base = self._base
    if base is not None:
        _rebase_view(self, base, node)
    else:
        self.grad_fn = node
        self._requires_grad = True
        self._output_nr = 0
    if observe.current is not None:
        observe.current.inplace_applied(self, self.grad_fn)
    return self


def _write(self: Tensor, rule: Any, others: tuple, attrs: dict | None) -> None:
    arrays = [o._data if isinstance(o, Tensor) else o for o in others]
    out = rule.forward(self._data, *arrays, **(attrs or {}))
    np.copyto(self._data, out, casting="unsafe")


def _rebase_view(view: Tensor, base: Tensor, fn: Any) -> None:
    """In-place on a view: CopySlices on the base, AsStridedBackward0 on the view."""
    from engine.rules import edge_to

    copy = COPY_SLICES.new_node(CopySlices, (), (), (base._data.shape, *fn._in_meta[1:]),
                                ((base._data.shape, base._data.dtype),))
    copy.fn = fn
    copy.geometry = (base._data, view._data)
    copy._edges = (edge_to(base), *fn._edges[1:])
    base.grad_fn = copy
    base._requires_grad = True
    base._output_nr = 0
    if observe.current is not None:
        observe.current.inplace_applied(base, copy)  # the base changed too (its grad_fn is CopySlices)
    _regenerate_view(view, base)


def _regenerate_view(view: Tensor, base: Tensor) -> None:
    with _quiet():
        fresh = apply(ops.AS_STRIDED, (base,), {"self_geometry": (base._data, view._data), "geometry": None})
    view.grad_fn = fresh.grad_fn
    view._requires_grad = True
    view._output_nr = 0


class _quiet:
    """Hide the helper apply inside an in-place op from the observer (it reports the op itself)."""

    def __enter__(self) -> None:
        self._prev = observe.current
        observe.current = None

    def __exit__(self, *exc: Any) -> None:
        observe.current = self._prev


def zero_(self: Tensor) -> Tensor:
    return _inplace(self, ops.ZERO, ())


def fill_(self: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        value = value.item()
    return _inplace(self, ops.FILL, (), {"value": value})


def copy_(self: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    return _inplace(self, ops.COPY, (src,))


def setitem(self: Tensor, key: Any, value: Any) -> None:
    """`x[key] = value`: copy_ into a view for basic keys, index_put_ for advanced ones."""
    tracked = grad_mode.state.enabled and (
        self._requires_grad or (isinstance(value, Tensor) and value._requires_grad)
    )
    if not tracked:
        v = value._data if isinstance(value, Tensor) else value
        if self._inference and not grad_mode.state.inference:
            self._data[_index_key(key)] = v  # PyTorch writes, then refuses to count the new version
        self._check_inplace()
        self._data[_index_key(key)] = v
        self._vc[0] += 1
        if observe.current is not None:
            observe.current.inplace_applied(self, None)
        return
    keys = key if isinstance(key, tuple) else (key,)
    if builtins.any(_is_advanced(k) for k in keys):
        indices = _advanced_indices(self, key)
        _inplace(self, ops.INDEX_PUT, (value,), {"indices": indices, "accumulate": False})
        return
    with _quiet():
        region = getitem(self, key)
    if region is self:
        _inplace(self, ops.COPY, (value,))
        return
    _inplace(region, ops.COPY, (value,))
    if self._base is not None and self.grad_fn is not None:
        _regenerate_view(self, self._base)
    if observe.current is not None:
        observe.current.inplace_applied(self, self.grad_fn)


def _advanced_indices(self: Tensor, key: Any) -> tuple:
    """The index_put_ indices (one entry per leading dim, None for full slices) of an advanced key."""
    keys = key if isinstance(key, tuple) else (key,)
    out: list = []
    for k in keys:
        if k is Ellipsis:
            used = builtins.sum(1 for q in keys if q is not Ellipsis and q is not None)
            out += [None] * (self._data.ndim - used)
        elif isinstance(k, slice):
            if k != slice(None):
                raise NotImplementedError("index assignment mixing slices and tensor indices")
            out.append(None)
        elif isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            out.append(np.asarray(k, np.int64))
        else:
            array = k._data if isinstance(k, Tensor) else np.asarray(k)
            if array.dtype == np.bool_:
                out += [p.astype(np.int64) for p in np.nonzero(array)]
            else:
                out.append(array.astype(np.int64))
    return tuple(out)


class CopySlices(Node):
    """Base of a view modified in place: the op's node applied to the view's region of the grad."""

    __slots__ = ("fn", "geometry")
    __init__ = object.__init__  # made by COPY_SLICES.new_node (rules.node_maker)

    def name(self) -> str:
        return "torch::autograd::CopySlices"  # PyTorch's C++ name; the class name is CopySlices

    def apply_backward(self, grads: tuple, create_graph: bool) -> tuple:
        from engine.rules import ArrayMath

        F: Any = TensorMath if create_graph else ArrayMath
        g = grads[0]
        dtype = (g._data if isinstance(g, Tensor) else np.asarray(g)).dtype
        region = F.op("strided_gather", g, geometry=self.geometry)
        sent = self.fn.apply_backward((region,), create_graph)
        outside = g * ops.outside_mask(self.geometry, dtype)
        if sent[0] is not None:
            outside = outside + F.op("strided_scatter", sent[0], geometry=self.geometry)
        return (outside, *sent[1:])

    def release(self) -> None:
        self.fn.release()


def _index_key(key: Any) -> Any:
    if isinstance(key, Tensor):
        return key._data
    if isinstance(key, tuple):
        return tuple(k._data if isinstance(k, Tensor) else k for k in key)
    return key


# --- more elementwise math ------------------------------------------------------------------------
log1p = _unary(ops.LOG1P)
log2 = _unary(ops.LOG2)
log10 = _unary(ops.LOG10)
expm1 = _unary(ops.EXPM1)
exp2 = _unary(ops.EXP2)
rsqrt = _unary(ops.RSQRT)
tan = _unary(ops.TAN)
sinh = _unary(ops.SINH)
cosh = _unary(ops.COSH)
asin = _unary(ops.ASIN)
acos = _unary(ops.ACOS)
atan = _unary(ops.ATAN)
arcsin, arccos, arctan = asin, acos, atan
erf = _unary(ops.ERF)
sign = _unary(ops.SIGN)
floor = _unary(ops.FLOOR)
ceil = _unary(ops.CEIL)
trunc = _unary(ops.TRUNC)
fix = trunc
frac = _unary(ops.FRAC)
silu = _unary(ops.SILU)


def round(input: Tensor, *, decimals: int = 0) -> Tensor:  # noqa: A001
    if decimals:
        return apply(ops.ROUND_DECIMALS, (input,), {"decimals": decimals})
    return apply(ops.ROUND, (input,))


def remainder(input: Any, other: Any) -> Tensor:
    if isinstance(other, Tensor):
        return _constant(np.remainder(_raw(input), other._data))
    return apply(ops.REMAINDER, (input,), {"other": other})


def fmod(input: Tensor, other: Any) -> Tensor:
    if isinstance(other, Tensor):
        return _constant(np.fmod(input._data, other._data))
    return apply(ops.FMOD, (input,), {"other": other})


def floor_divide(input: Any, other: Any) -> Tensor:
    return _constant(np.floor_divide(_raw(input), _raw(other)))


def _raw(x: Any) -> Any:
    return x._data if isinstance(x, Tensor) else x


def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        lo = min if isinstance(min, Tensor) or min is None else as_tensor(min)
        hi = max if isinstance(max, Tensor) or max is None else as_tensor(max)
        return apply(ops.CLAMP_TENSOR, (input, lo, hi))
    return apply(ops.CLAMP, (input,), {"min": min, "max": max})


clip = clamp


def clamp_min(input: Tensor, min: Any) -> Tensor:  # noqa: A002
    return apply(ops.CLAMP_MIN, (input,), {"min": min})


def clamp_max(input: Tensor, max: Any) -> Tensor:  # noqa: A002
    return apply(ops.CLAMP_MAX, (input,), {"max": max})


def maximum(input: Tensor, other: Tensor) -> Tensor:
    _check_broadcast(input, other)
    return apply(ops.MAXIMUM, (input, other))


def minimum(input: Tensor, other: Tensor) -> Tensor:
    _check_broadcast(input, other)
    return apply(ops.MINIMUM, (input, other))


def masked_fill(input: Tensor, mask: Any, value: Any) -> Tensor:
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {_dtype_name(m)}")
    if isinstance(value, Tensor):
        _check_fill_value(value)
        return apply(ops.MASKED_FILL_TENSOR, (input, value), {"mask": m})
    return apply(ops.MASKED_FILL, (input,), {"mask": m, "value": value})


def _check_fill_value(value: Tensor) -> None:
    if value._data.ndim:
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value._data.ndim} dimension(s).")


def _dtype_name(a: np.ndarray) -> str:
    from engine import dtypes

    return repr(dtypes.from_numpy(a.dtype)).replace("torch.", "")


# --- more reductions ------------------------------------------------------------------------------
class ReturnType(tuple):
    """torch.return_types.max and friends: (values, indices) with names."""

    _kind = "max"

    def __new__(cls, values: Tensor, indices: Tensor, kind: str = "max") -> "ReturnType":
        obj = super().__new__(cls, (values, indices))
        obj._kind = kind
        return obj

    @property
    def values(self) -> Tensor:
        return self[0]

    @property
    def indices(self) -> Tensor:
        return self[1]

    def __repr__(self) -> str:
        return f"torch.return_types.{self._kind}(\nvalues={self[0]!r},\nindices={self[1]!r})"


def _value_and_index(rule: Any, kind: str, input: Tensor, dim: int, keepdim: bool) -> ReturnType:
    _wrap_dim(dim, input._data.ndim)
    values, indices = apply(rule, (input,), {"dim": dim, "keepdim": keepdim})
    return ReturnType(values, indices, kind)


def max(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    if isinstance(dim, Tensor):
        return maximum(input, dim)
    if dim is None:
        _check_nonempty(input, "max")
        return apply(ops.MAX, (input,))
    return _value_and_index(ops.MAX_DIM, "max", input, dim, keepdim)


def min(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    if isinstance(dim, Tensor):
        return minimum(input, dim)
    if dim is None:
        _check_nonempty(input, "min")
        return apply(ops.MIN, (input,))
    return _value_and_index(ops.MIN_DIM, "min", input, dim, keepdim)


def median(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """The lower of the two middle values (NaN if any value is NaN); with dim, (values, indices)."""
    return _median_call(ops.MEDIAN, ops.MEDIAN_DIM, "median", input, dim, keepdim)


def nanmedian(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """median() of the values that are not NaN."""
    return _median_call(ops.NANMEDIAN, ops.NANMEDIAN_DIM, "nanmedian", input, dim, keepdim)


def _median_call(rule: Rule, dim_rule: Rule, kind: str, input: Tensor, dim: Any, keepdim: bool) -> Any:
    if dim is None:
        return apply(rule, (input,))
    wrapped = _wrap_dim(dim, input._data.ndim)
    if input._data.ndim and input._data.shape[wrapped] == 0:
        raise IndexError(f"median(): Expected reduction dim {wrapped} to have non-zero size.")
    return _value_and_index(dim_rule, kind, input, dim, keepdim)


def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    if dtype is not None:
        input = input.to(dtype)
    return apply(ops.NANSUM, (input,), {"dim": _optional_dims(dim, input._data.ndim), "keepdim": keepdim})


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """nansum / the count of values that are not NaN (a constant: DivBackward0 has no edge to it)."""
    if input._data.dtype.kind != "f":
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but got "
                           f"{input.dtype.legacy}")
    dims = _optional_dims(dim, input._data.ndim)
    count = np.sum(~np.isnan(input._data), axis=dims, keepdims=keepdim)
    return div(nansum(input, dims, keepdim, dtype=dtype), _constant(np.asarray(count, np.int64)))


def roll(input: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    shifts = tuple(shifts) if isinstance(shifts, (tuple, list)) else (shifts,)
    dims = () if dims is None else tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    if len(shifts) != len(dims) and not (len(shifts) == 1 and not dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    for d in dims:
        _wrap_dim(d, input._data.ndim)
    return apply(ops.ROLL, (input,), {"shifts": tuple(int(s) for s in shifts), "dims": dims})


def _check_nonempty(input: Tensor, name: str) -> None:
    if input._data.size == 0:
        raise RuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
            "reduction dim with the 'dim' argument."
        )


def amax(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    dims = _dim_tuple(dim, input._data.ndim) if dim != () else tuple(range(input._data.ndim))
    return apply(ops.AMAX, (input,), {"dim": dims, "keepdim": keepdim})


def amin(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    dims = _dim_tuple(dim, input._data.ndim) if dim != () else tuple(range(input._data.ndim))
    return apply(ops.AMIN, (input,), {"dim": dims, "keepdim": keepdim})


def argmax(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    if dim is None:
        return _constant(np.asarray(np.argmax(input._data), np.int64))
    _wrap_dim(dim, input._data.ndim)
    return _constant(np.argmax(input._data, axis=dim, keepdims=keepdim).astype(np.int64))


def argmin(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    if dim is None:
        return _constant(np.asarray(np.argmin(input._data), np.int64))
    _wrap_dim(dim, input._data.ndim)
    return _constant(np.argmin(input._data, axis=dim, keepdims=keepdim).astype(np.int64))


def prod(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    if dtype is not None:
        input = input.to(dtype)
    if dim is None:
        return apply(ops.PROD, (input,))
    _wrap_dim(dim, input._data.ndim)
    return apply(ops.PROD_DIM, (input,), {"dim": dim, "keepdim": keepdim})


def _correction(unbiased: Any, correction: Any) -> Any:
    if correction is not None:
        return correction
    if unbiased is None:
        return None
    return 1 if unbiased else 0


def var(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    dims = _optional_dims(dim, input._data.ndim)
    return apply(ops.VAR, (input,), {"dim": dims, "correction": _correction(unbiased, correction),
                                     "keepdim": keepdim})


def std(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    dims = _optional_dims(dim, input._data.ndim)
    return apply(ops.STD, (input,), {"dim": dims, "correction": _correction(unbiased, correction),
                                     "keepdim": keepdim})


def var_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple:
    return _stat_mean(ops.VAR_MEAN, input, dim, unbiased, keepdim, correction)


def std_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple:
    return _stat_mean(ops.STD_MEAN, input, dim, unbiased, keepdim, correction)


def _stat_mean(rule: Rule, input: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any) -> tuple:
    """(var or std, mean): a plain tuple of two outputs of one node, as in PyTorch."""
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    dims = _optional_dims(dim, input._data.ndim)
    return tuple(apply(rule, (input,), {"dim": dims, "correction": _correction(unbiased, correction),
                                        "keepdim": keepdim}))


def norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    ord = 2 if p in ("fro", None) else p
    dims = _optional_dims(dim, input._data.ndim)
    return apply(ops.NORM, (input,), {"ord": ord, "dim": dims, "keepdim": keepdim})


def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    return apply(ops.LOGSUMEXP, (input,), {"dim": _dim_tuple(dim, input._data.ndim), "keepdim": keepdim})


def cumsum(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return _scan(ops.CUMSUM, input, dim, dtype)


def cumprod(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return _scan(ops.CUMPROD, input, dim, dtype)


def _scan(rule: Rule, input: Tensor, dim: int, dtype: Any) -> Tensor:
    if dtype is not None:
        input = input.to(dtype)
    elif input._data.dtype.kind in "biu" and input._data.dtype != np.int64:
        input = input.to(np.int64)  # integer scans accumulate in int64, as in PyTorch
    wrapped = _wrap_dim(dim, input._data.ndim)
    return apply(rule, (input,), {"dim": dim if input._data.ndim else wrapped})


def softmax(input: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    if dtype is not None:
        input = input.to(dtype)
    return apply(ops.SOFTMAX, (input,), {"dim": _softmax_dim(input, dim)})


def log_softmax(input: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    if dtype is not None:
        input = input.to(dtype)
    return apply(ops.LOG_SOFTMAX, (input,), {"dim": _softmax_dim(input, dim)})


def _softmax_dim(input: Tensor, dim: Any) -> int:
    if dim is None:
        import warnings

        warnings.warn(
            "Implicit dimension choice for softmax has been deprecated. Change the call to include dim=X "
            "as an argument.", UserWarning, stacklevel=4,
        )
        dim = 0 if input._data.ndim in (0, 1, 3) else 1
    _wrap_dim(dim, input._data.ndim)  # range check; the node keeps the dim as given, like PyTorch's
    return dim


# --- indexing, joining, splitting -------------------------------------------------------------------
def select(input: Tensor, dim: int, index: int) -> Tensor:
    ndim = input._data.ndim
    if ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    size = input._data.shape[_wrap_dim(dim, ndim)]
    if not -size <= index < size:
        raise IndexError(
            f"index {index} is out of bounds for dimension {dim % ndim} with size {size}"
        )
    return apply(ops.SELECT, (input,), {"dim": dim, "index": int(index)})  # dim kept as given


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    size = input._data.shape[_wrap_dim(dim, input._data.ndim)]
    start = start % size if start < 0 else start
    return _slice(input, dim, start, start + length, 1)


def _slice(input: Tensor, dim: int, start: int, end: int, step: int) -> Tensor:
    if step <= 0:
        raise ValueError("step must be greater than zero")
    return apply(ops.SLICE, (input,), {"dim": dim, "start": start, "end": end, "step": step})


def _is_advanced(k: Any) -> bool:
    if isinstance(k, Tensor):
        return not (k._data.ndim == 0 and k._data.dtype.kind in "iu")
    return isinstance(k, (list, np.ndarray)) or isinstance(k, bool)


def getitem(self: Tensor, key: Any) -> Tensor:
    """Tensor indexing with PyTorch's node chains: Select/Slice/Unsqueeze, then Index for advanced."""
    if not isinstance(key, tuple):
        if isinstance(key, slice):
            return _slice_full(self, 0, key)
        key = (key,)
    consumed = builtins.sum(
        (k._data.ndim if isinstance(k, Tensor) and k._data.dtype == np.bool_ else 1)
        for k in key if k is not None and k is not Ellipsis
    )
    if consumed > self._data.ndim:
        raise IndexError(
            f"too many indices for tensor of dimension {self._data.ndim}"
        )
    out = self
    dim = 0
    advanced: dict[int, Any] = {}
    applied = False
    for k in key:
        if k is Ellipsis:
            dim += self._data.ndim - consumed
        elif k is None:
            out = unsqueeze(out, dim)
            dim += 1
            applied = True
        elif isinstance(k, slice):
            start, stop, step = k.start, k.stop, k.step
            length = out._data.shape[dim]
            s0, e0, st = slice(start, stop, step).indices(length)
            if not (s0 == 0 and e0 == length and st == 1):
                out = _slice(out, dim, 0 if start is None else int(start),
                             INT64_MAX if stop is None else int(stop), 1 if step is None else int(step))
                applied = True
            dim += 1
        elif _is_advanced(k):
            array = k._data if isinstance(k, Tensor) else np.asarray(k)
            if array.dtype == np.bool_ and array.ndim > 0:
                for j, part in enumerate(np.nonzero(array)):
                    advanced[dim + j] = part.astype(np.int64)
                dim += array.ndim
            elif array.dtype == np.bool_:
                out = unsqueeze(out, dim)
                advanced[dim] = np.zeros(int(bool(array)), np.int64)
                dim += 1
            else:
                if array.dtype.kind not in "iu":
                    raise IndexError(
                        "tensors used as indices must be long, int, byte or bool tensors"
                    )
                advanced[dim] = array.astype(np.int64)
                dim += 1
        else:
            index = int(k)
            out = select(out, dim, index)
            applied = True
    if advanced:
        indices = tuple(advanced.get(d) for d in range(builtins.max(advanced) + 1))
        for d, idx in advanced.items():
            size = out._data.shape[d]
            if idx.size and (idx.max() >= size or idx.min() < -size):
                bad = int(idx.max() if idx.max() >= size else idx.min())
                raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {size}")
        return apply(ops.INDEX, (out,), {"indices": indices})
    if not applied:
        return apply(ops.ALIAS, (out,))
    return out


INT64_MAX = 9223372036854775807


def _slice_full(self: Tensor, dim: int, k: slice) -> Tensor:
    if self._data.ndim == 0:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    return _slice(self, dim, 0 if k.start is None else int(k.start),
                  INT64_MAX if k.stop is None else int(k.stop), 1 if k.step is None else int(k.step))


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    _wrap_dim(dim, input._data.ndim)
    return apply(ops.GATHER, (input,), {"dim": dim if input._data.ndim else 0,  # kept as given
                                        "index": index._data, "sparse_grad": sparse_grad})


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    _wrap_dim(dim, input._data.ndim)
    return apply(ops.INDEX_SELECT, (input,), {"dim": dim if input._data.ndim else 0,  # kept as given
                                              "index": _raw(index)})


def scatter(input: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None) -> Tensor:
    """src (a tensor) or value (a number) written at index along dim: ScatterBackward0 or 1."""
    rule, others, attrs = _scatter_args(input, dim, index, src if src is not None else value)
    return apply(rule, (input, *others), attrs)


def scatter_(input: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None) -> Tensor:
    rule, others, attrs = _scatter_args(input, dim, index, src if src is not None else value)
    return _inplace(input, rule, others, attrs)


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    _, others, attrs = _scatter_args(input, dim, index, src)
    return apply(ops.SCATTER_ADD, (input, *others), attrs)


def scatter_add_(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    _, others, attrs = _scatter_args(input, dim, index, src)
    return _inplace(input, ops.SCATTER_ADD, others, attrs)


def _scatter_args(input: Tensor, dim: int, index: Tensor, src: Any) -> tuple:
    """(rule, other inputs, attrs) of a scatter, after PyTorch's checks; dim is kept as given."""
    wrapped = _wrap_dim(dim, input._data.ndim)
    idx = index._data
    if idx.dtype not in (np.int32, np.int64):
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    size = input._data.shape[wrapped] if input._data.ndim else 1
    if idx.size and (idx.min() < 0 or idx.max() >= size):
        bad = idx.min() if idx.min() < 0 else idx.max()
        raise RuntimeError(f"index {bad} is out of bounds for dimension {wrapped} with size {size}")
    attrs = {"dim": dim, "index": idx}
    if not isinstance(src, Tensor):
        return ops.SCATTER_VALUE, (), {**attrs, "value": src.item() if hasattr(src, "item") else src}
    if src._data.dtype != input._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if src._data.shape != idx.shape:  # only the index-shaped corner of src is read
        src = getitem(src, tuple(slice(0, n) for n in idx.shape))
    return ops.SCATTER, (src,), attrs


def take_along_dim(input: Tensor, indices: Tensor, dim: int) -> Tensor:
    return gather(input, dim, indices)


def _tensors(tensors: Any) -> tuple:
    return tuple(as_tensor(t) for t in tensors)


def cat(tensors: Any, dim: int = 0, *, axis: Any = None) -> Tensor:
    dim = axis if axis is not None else dim
    tensors = _tensors(tensors)
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    tensors = tuple(t for t in tensors if not (t._data.ndim == 1 and t._data.size == 0)) or tensors[:1]
    ndim = tensors[0]._data.ndim
    d = _wrap_dim(dim, ndim)
    first = tensors[0]._data.shape
    for i, t in enumerate(tensors[1:], 1):
        shape = t._data.shape
        for j, (x, y) in enumerate(zip(first, shape)):
            if j != d and x != y:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {x} but got "
                    f"size {y} for tensor number {i} in the list."
                )
    return apply(ops.CAT, tensors, {"dim": dim})


concat = concatenate = cat


def stack(tensors: Any, dim: int = 0) -> Tensor:
    tensors = _tensors(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = tensors[0]._data.shape
    for i, t in enumerate(tensors[1:], 1):
        if t._data.shape != first:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(first)} at entry 0 and "
                f"{list(t._data.shape)} at entry {i}"
            )
    _wrap_dim(dim, len(first) + 1)
    return apply(ops.STACK, tensors, {"dim": dim})


def hstack(tensors: Any) -> Tensor:
    tensors = _tensors(tensors)
    return cat(tensors, 0 if tensors[0]._data.ndim == 1 else 1)


def vstack(tensors: Any) -> Tensor:
    return cat([t if t._data.ndim > 1 else unsqueeze(t, 0) for t in _tensors(tensors)], 0)


def unbind(input: Tensor, dim: int = 0) -> tuple:
    return apply(ops.UNBIND, (input,), {"dim": _wrap_dim(dim, input._data.ndim)})


def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple:
    dim = _wrap_dim(dim, tensor._data.ndim)
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = tuple(int(s) for s in split_size_or_sections)
        if builtins.sum(sizes) != tensor._data.shape[dim]:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {tensor._data.shape[dim]} (input "
                f"tensor's size at dimension {dim}), but got split_sizes={list(sizes)}"
            )
        return apply(ops.SPLIT_WITH_SIZES, (tensor,), {"split_sizes": sizes, "dim": dim})
    return apply(ops.SPLIT, (tensor,), {"split_size": int(split_size_or_sections), "dim": dim})


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    size = input._data.shape[_wrap_dim(dim, input._data.ndim)]
    split_size = -(-size // chunks) if chunks else 0
    return split(input, builtins.max(split_size, 1) if size else 0, dim)


def repeat(input: Tensor, *sizes: Any) -> Tensor:
    repeats = _size_args(sizes)
    if len(repeats) < input._data.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        )
    return apply(ops.REPEAT, (input,), {"repeats": repeats})


def flip(input: Tensor, dims: Any) -> Tensor:
    n = input._data.ndim
    return apply(ops.FLIP, (input,), {"dims": tuple(_wrap_dim(d, n) for d in _dim_tuple(dims, n))})


def to(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    from engine import dtypes

    target = kwargs.get("dtype")
    for a in args:
        if isinstance(a, dtypes.dtype) or a in (float, int, bool):
            target = a
        elif isinstance(a, Tensor):
            target = a.dtype
    if target is None:
        return input
    np_dtype = dtypes.to_numpy(target)
    if np_dtype == input._data.dtype and not kwargs.get("copy"):
        return input
    if np_dtype.kind == "f" and input._requires_grad:
        return apply(ops.TO_COPY, (input,), {"dtype": np_dtype, "self_dtype": input._data.dtype})
    return _constant(input._data.astype(np_dtype))


def type_as(input: Tensor, other: Tensor) -> Tensor:
    return to(input, other.dtype)


def isnan(input: Tensor) -> Tensor:
    return _constant(np.isnan(input._data))


def isinf(input: Tensor) -> Tensor:
    return _constant(np.isinf(input._data))


def isfinite(input: Tensor) -> Tensor:
    return _constant(np.isfinite(input._data))


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    return bool(np.allclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    return _constant(np.isclose(input._data, _raw(other), rtol=rtol, atol=atol, equal_nan=equal_nan))


def equal(input: Tensor, other: Tensor) -> bool:
    return input._data.shape == other._data.shape and bool(np.array_equal(input._data, other._data))


def all(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    return _constant(np.all(input._data, axis=_optional_dims(dim, input._data.ndim), keepdims=keepdim))


def any(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    return _constant(np.any(input._data, axis=_optional_dims(dim, input._data.ndim), keepdims=keepdim))


def logical_not(input: Tensor) -> Tensor:
    return _constant(np.logical_not(input._data))


def logical_and(input: Tensor, other: Tensor) -> Tensor:
    return _constant(np.logical_and(input._data, _raw(other)))


def logical_or(input: Tensor, other: Tensor) -> Tensor:
    return _constant(np.logical_or(input._data, _raw(other)))


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:
    idx = np.nonzero(input._data)
    if as_tuple:
        return tuple(_constant(i.astype(np.int64)) for i in idx)
    return _constant(np.stack(idx, axis=1).astype(np.int64) if idx else np.zeros((0, 0), np.int64))


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    axis = _optional_dims(dim, input._data.ndim)
    return _constant(np.asarray(np.count_nonzero(input._data, axis=axis), np.int64))


def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> ReturnType:
    dim = _wrap_dim(dim, input._data.ndim)
    return ReturnType(*apply(ops.SORT, (input,), {"dim": dim, "descending": descending}), "sort")


def msort(input: Tensor) -> Tensor:
    return sort(input, 0)[0]


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> ReturnType:  # noqa: A002
    dim = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[dim] if input._data.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    return ReturnType(*apply(ops.TOPK, (input,), {"k": k, "dim": dim, "largest": largest}), "topk")


def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    dim = _wrap_dim(dim, input._data.ndim)
    return _constant(ops._sort(input._data, dim, descending)[1])


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """A vector written on a diagonal of zeros (DiagEmbedBackward0), or a copy of a matrix's
    diagonal (DiagonalBackward0_copy), as PyTorch records them."""
    ndim = input._data.ndim
    if ndim == 1:
        return diag_embed(input, diagonal)
    if ndim != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {ndim}D")
    return apply(ops.DIAGONAL_COPY, (input,), {"offset": diagonal, "dim1": 0, "dim2": 1})


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    _diagonal_dims(input._data.ndim, dim1, dim2)
    return apply(ops.DIAGONAL, (input,), {"offset": offset, "dim1": dim1, "dim2": dim2})


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    _diagonal_dims(input._data.ndim + 1, dim1, dim2)
    return apply(ops.DIAG_EMBED, (input,), {"offset": offset, "dim1": dim1, "dim2": dim2})


def _diagonal_dims(ndim: int, dim1: int, dim2: int) -> None:
    if _wrap_dim(dim1, ndim) == _wrap_dim(dim2, ndim):
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")


def trace(input: Tensor) -> Tensor:
    if input._data.ndim != 2:
        raise RuntimeError("trace: expected a matrix, but got tensor with dim " + str(input._data.ndim))
    if input._data.dtype.kind in "biu":
        input = input.to(np.int64)  # integer traces are int64, as in PyTorch
    return apply(ops.TRACE, (input,))


def broadcast_shapes(*shapes: Any) -> Any:
    from engine.tensor import Size

    try:
        return Size(np.broadcast_shapes(*(tuple(s) if isinstance(s, (tuple, list)) else (s,) for s in shapes)))
    except ValueError:
        raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape") from None


def broadcast_to(input: Tensor, size: Any) -> Tensor:
    return expand(input, *size)


def broadcast_tensors(*tensors: Tensor) -> tuple:
    shape = broadcast_shapes(*(t._data.shape for t in tensors))
    return tuple(expand(t, *shape) for t in tensors)


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> Tensor:
    info = np.finfo(input._data.dtype) if input._data.dtype.kind == "f" else None
    if info is None:
        return clone(input)
    data = input._data
    hi = info.max if posinf is None else posinf
    lo = info.min if neginf is None else neginf
    out = where(_constant(np.isnan(data)), nan, input)
    out = where(_constant(np.isposinf(data)), hi, out)
    return where(_constant(np.isneginf(data)), lo, out)


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    return _triangle(ops.TRIL, input, diagonal)


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    return _triangle(ops.TRIU, input, diagonal)


def _triangle(rule: Rule, input: Tensor, diagonal: int) -> Tensor:
    if input._data.ndim < 2:
        raise RuntimeError(f"{rule.name}: input tensor must have at least 2 dimensions")
    return apply(rule, (input,), {"diagonal": int(diagonal)})


_ELLIPSIS = "..."


def einsum(equation: str, *operands: Any) -> Tensor:
    """PyTorch's einsum, step for step (so the graph has its nodes): a repeated label takes a
    diagonal, every operand is permuted onto one label order, then operands are contracted left
    to right by sumproduct_pair (bmm), and leftover labels summed or viewed away."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least "
                         "one operand and its subscripts list")
    lhs, arrow, rhs = equation.partition("->")
    op_labels = _einsum_operand_labels(lhs, operands)
    counts: dict[str, int] = {}
    ell_ndim = 0
    for labels, operand in zip(op_labels, operands):
        for label in labels:
            if label != _ELLIPSIS:
                counts[label] = counts.get(label, 0) + 1
        if _ELLIPSIS in labels:
            ell_ndim = builtins.max(ell_ndim, operand._data.ndim - (len(labels) - 1))
    position, out_ndim, ell_index, ell_in_output = _einsum_output(lhs, arrow, rhs, counts, ell_ndim)
    total = out_ndim
    if not ell_in_output:
        ell_index, total = total, total + ell_ndim
    for label in sorted(counts, key=_label_order):
        if label not in position:
            position[label] = total
            total += 1
    dim_counts = [0] * total
    sizes: dict = {}
    aligned = [_einsum_align(i, operand, labels, position, ell_index, ell_ndim, total, dim_counts, sizes)
               for i, (operand, labels) in enumerate(zip(operands, op_labels))]
    while len(aligned) > 1:
        a, b = aligned.pop(0), aligned.pop(0)
        aligned.insert(0, _einsum_contract(a, b, out_ndim, total, dim_counts))
    result = aligned[0]
    if total > out_ndim:
        if len(operands) > 1:
            return view(result, *result._data.shape[:out_ndim])
        return sum(result, tuple(range(out_ndim, total)))
    return result


def _label_order(label: str) -> tuple:
    """PyTorch's order of einsum labels: A-Z, then a-z."""
    return (label.islower(), label)


def _einsum_operand_labels(lhs: str, operands: tuple) -> list:
    """Each operand's labels (letters, or _ELLIPSIS), checked against its dims."""
    op_labels: list = [[]]
    i = 0
    while i < len(lhs):
        c = lhs[i]
        if c == ".":
            if _ELLIPSIS in op_labels[-1]:
                raise RuntimeError(f"einsum(): found '.' for operand {len(op_labels) - 1} for which an "
                                   "ellipsis was already found")
            if lhs[i:i + 3] != _ELLIPSIS:
                raise RuntimeError(f"einsum(): found '.' for operand {len(op_labels) - 1} that is not part "
                                   "of any ellipsis")
            op_labels[-1].append(_ELLIPSIS)
            i += 2
        elif c == ",":
            if len(op_labels) == len(operands):
                raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
            op_labels.append([])
        elif c != " ":
            if not c.isascii() or not c.isalpha():
                raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, "
                                   "subscripts must be in [a-zA-Z]")
            op_labels[-1].append(c)
        i += 1
    if len(op_labels) != len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    for i, (labels, operand) in enumerate(zip(op_labels, operands)):
        n, ndim = len(labels) - (_ELLIPSIS in labels), operand._data.ndim
        if _ELLIPSIS in labels and n > ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n}) is more than the "
                               f"number of dimensions ({ndim}) for operand {i}")
        if _ELLIPSIS not in labels and n != ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n}) does not match the "
                               f"number of dimensions ({ndim}) for operand {i} and no ellipsis was given")
    return op_labels


def _einsum_output(lhs: str, arrow: str, rhs: str, counts: dict, ell_ndim: int) -> tuple:
    """The output labels' positions, the output's number of dims, where the ellipsis dims start and
    whether they are part of the output."""
    position: dict[str, int] = {}
    if not arrow:  # implicit output: the ellipsis, then the labels seen once, in label order
        for label in sorted((c for c, n in counts.items() if n == 1), key=_label_order):
            position[label] = ell_ndim + len(position)
        return position, ell_ndim + len(position), 0, True
    index, ell_index, ell_in_output = 0, 0, False
    i = 0
    while i < len(rhs):
        c = rhs[i]
        if c == ".":
            if ell_in_output:
                raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was already found")
            if rhs[i:i + 3] != _ELLIPSIS:
                raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis (...)")
            ell_index, ell_in_output = index, True
            index += ell_ndim
            i += 2
        elif c != " ":
            if not c.isascii() or not c.isalpha():
                raise RuntimeError(f"einsum(): invalid subscript given at index {len(lhs) + 2 + i} in the "
                                   "equation string, subscripts must be in [a-zA-Z]")
            if c in position or c not in counts:
                problem = "appears more than once in the output" if c in position else \
                    "does not appear in the equation for any input operand"
                raise RuntimeError(f"einsum(): output subscript {c} {problem}")
            position[c] = index
            index += 1
        i += 1
    return position, index, ell_index, ell_in_output


def _einsum_align(i: int, operand: Tensor, labels: list, position: dict, ell_index: int, ell_ndim: int,
                  total: int, dim_counts: list, sizes: dict) -> Tensor:
    """One operand with a diagonal taken for each repeated label, unsqueezed for the labels it lacks
    and permuted so its dims follow `position` (counting in dim_counts the dims of size > 1 and
    checking in `sizes` that each label's sizes broadcast)."""
    perm = [-1] * total
    op = operand
    dim = 0
    for label in labels:
        if label == _ELLIPSIS:
            covered = operand._data.ndim - (len(labels) - 1)
            for j in range(ell_ndim - covered, ell_ndim):
                size = op._data.shape[dim]
                if size != 1:
                    seen = sizes.setdefault((_ELLIPSIS, j), size)
                    if seen != size:
                        raise RuntimeError(f"einsum(): dimension {dim} covered by ellipsis in operand {i}has "
                                           f"size {size} which does not broadcast with previously seen "
                                           f"ellipsis with size {seen} for the respective dimension")
                    dim_counts[ell_index + j] += 1
                perm[ell_index + j] = dim
                dim += 1
        elif perm[position[label]] == -1:
            size = op._data.shape[dim]
            if size != 1:
                seen = sizes.setdefault(label, size)
                if seen != size:
                    raise RuntimeError(f"einsum(): subscript {label} has size {size} for operand {i} which "
                                       f"does not broadcast with previously seen size {seen}")
                dim_counts[position[label]] += 1
            perm[position[label]] = dim
            dim += 1
        else:
            prev = perm[position[label]]
            a, b = op._data.shape[dim], op._data.shape[prev]
            if a != b:
                raise RuntimeError(f"einsum(): subscript {label} is repeated for operand {i} but the sizes "
                                   f"don't match, {a} != {b}")
            op = diagonal(op, 0, prev, dim)
            order = list(range(op._data.ndim - 1))
            order.insert(prev, op._data.ndim - 1)
            op = permute(op, *order)  # movedim(-1, prev)
    for k in range(total):
        if perm[k] == -1:
            op = unsqueeze(op, dim)
            perm[k] = dim
            dim += 1
    return permute(op, *perm)


def _einsum_contract(a: Tensor, b: Tensor, out_ndim: int, total: int, dim_counts: list) -> Tensor:
    """Two aligned operands multiplied, summing the contraction dims no other operand still has."""
    sum_dims, a_dims, b_dims = [], [], []
    for dim in range(out_ndim, total):
        sa, sb = a._data.shape[dim] != 1, b._data.shape[dim] != 1
        if sa and sb:
            if a._data.shape[dim] != b._data.shape[dim]:
                raise RuntimeError("non-broadcast dimensions must match")
            dim_counts[dim] -= 1
            if dim_counts[dim] == 1:
                sum_dims.append(dim)
                dim_counts[dim] = 0
        elif dim_counts[dim] == 1:
            if sa:
                a_dims.append(dim)
                dim_counts[dim] = 0
            elif sb:
                b_dims.append(dim)
                dim_counts[dim] = 0
    if a_dims:
        a = sum(a, tuple(a_dims), True)
    if b_dims:
        b = sum(b, tuple(b_dims), True)
    return _sumproduct_pair(a, b, sum_dims)


def _sumproduct_pair(left: Tensor, right: Tensor, sum_dims: list) -> Tensor:
    """PyTorch's sumproduct_pair: (left * right).sum(sum_dims, keepdim=True) as one bmm over
    (batch, left-only, summed) x (batch, summed, right-only) dims, viewed and permuted back."""
    if not sum_dims:
        return mul(left, right)
    lro: list = []
    lo: list = []
    ro: list = []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(left._data.ndim):
        sl, sr = left._data.shape[i] != 1, right._data.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                if left._data.shape[i] != right._data.shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left._data.shape[i]
            elif sl:
                left = sum(left, i, True)
            elif sr:
                right = sum(right, i, True)
        elif sl and sr:
            if left._data.shape[i] != right._data.shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left._data.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left._data.shape[i]
        else:
            ro.append(i)
            ro_size *= right._data.shape[i]
    if lo and ro and ro[-1] < lo[0]:  # bmm then writes the output in its final order
        left, right, lo, ro, lo_size, ro_size = right, left, ro, lo, ro_size, lo_size
    out_size = ([left._data.shape[d] for d in lro + lo] + [1] * len(sum_dims)
                + [right._data.shape[d] for d in ro])
    operm = [0] * len(out_size)
    for k, d in enumerate(lro + lo + sum_dims + ro):
        operm[d] = k
    left = reshape(permute(left, *(lro + lo + sum_dims + ro)), lro_size, lo_size, sum_size)
    right = reshape(permute(right, *(lro + sum_dims + ro + lo)), lro_size, sum_size, ro_size)
    return permute(view(bmm(left, right), *out_size), *operm)


def detach(input: Tensor) -> Tensor:
    return input.detach()


def numel(input: Tensor) -> int:
    return input.numel()


COPY_SLICES = Rule("copy_slices", "CopySlices", None, (None,),
                   ("grad outside the view; the in-place op's gradient inside it",), inputs=("self",),
                   variadic=True)
CopySlices.rule = COPY_SLICES
CopySlices.__module__ = "torch.autograd.graph"
COPY_SLICES.node_cls = _node_classes["CopySlices"] = CopySlices
COPY_SLICES.new_node = node_maker(CopySlices)
ops.TABLE["copy_slices"] = COPY_SLICES


class TensorMath:
    """Differentiable counterparts of engine.rules.ArrayMath, for backward under create_graph."""

    exp = staticmethod(exp)
    log = staticmethod(log)
    sin = staticmethod(sin)
    cos = staticmethod(cos)
    sqrt = staticmethod(sqrt)
    tanh = staticmethod(tanh)
    abs = staticmethod(abs)
    sign = staticmethod(sign)
    where = staticmethod(where)
    zeros_like = staticmethod(zeros_like)
    ones_like = staticmethod(ones_like)
    sum_to = staticmethod(sum_to_size)

    @staticmethod
    def expand(g: Any, shape: tuple) -> Any:
        return expand(as_tensor(g), shape)

    @staticmethod
    def reshape(g: Any, shape: tuple) -> Any:
        return reshape(as_tensor(g), shape)

    @staticmethod
    def unsqueeze_dims(g: Any, dims: tuple) -> Any:
        for d in sorted(dims):
            g = unsqueeze(g, d)
        return g

    @staticmethod
    def squeeze_dim(g: Any, dim: int) -> Any:
        return squeeze(as_tensor(g), dim)

    @staticmethod
    def mT(a: Any) -> Any:  # noqa: N802
        return transpose(a, -1, -2)

    @staticmethod
    def permute(a: Any, dims: tuple) -> Any:
        return permute(a, dims)

    @staticmethod
    def sum(a: Any, dim: Any = None, keepdim: bool = False) -> Any:
        if dim is None and not keepdim:
            return sum(a)
        if dim is None:
            dim = tuple(range(a._data.ndim))
        return sum(a, dim, keepdim)

    @staticmethod
    def op(name: str, *args: Any, **attrs: Any) -> Any:
        return apply(ops.TABLE[name], tuple(args), attrs)

    @staticmethod
    def raw(a: Any) -> Any:
        return a._data if isinstance(a, Tensor) else a

    sigmoid = staticmethod(sigmoid)
    log1p = staticmethod(log1p)
    expm1 = staticmethod(expm1)
    cosh = staticmethod(cosh)
    sinh = staticmethod(sinh)
    erf = staticmethod(erf)

    @staticmethod
    def stack(tensors: list, dim: int) -> Any:
        return stack([as_tensor(t) for t in tensors], dim)

    @staticmethod
    def cat(tensors: list, dim: int) -> Any:
        return cat([as_tensor(t) for t in tensors], dim)


def _backward_op(rule: Any) -> Any:
    """One of PyTorch's backward ops (see ops.backward_function) as a differentiable function."""

    def fn(*inputs: Any, **attrs: Any) -> Tensor:
        return apply(rule, inputs, attrs or None)

    fn.__name__ = fn.__qualname__ = rule.name
    return staticmethod(fn)


for _rule in ops.BACKWARD_FUNCTIONS:
    setattr(TensorMath, _rule.name, _backward_op(_rule))
