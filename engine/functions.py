"""torch.* functions and Tensor methods: argument handling in PyTorch's style around the op table."""

from __future__ import annotations

import builtins
import math
import operator
from typing import Any, Sequence

import numpy as np

from engine import dtypes, grad_mode, messages, observe, ops
from engine.rules import GRAD_DTYPES, apply, promoted_arrays, scalar_binary_op, scalar_unary_op
from engine.node import Node
from engine.rules import Rule, _as_result, _node_classes, node_maker
from engine.tensor import Tensor
from engine import complex_ops

Number = (int, float, bool)


def as_tensor(x: Any) -> Tensor:
    if isinstance(x, Tensor):
        return x
    from engine.creation import tensor

    return tensor(x)


def _require_tensor(fn: str, value: Any, position: int = 2) -> None:
    """PyTorch's argument parser for functions whose `other` is a Tensor only (no Python number)."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument 'other' (position {position}) must be Tensor, not {type(value).__name__}")


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
        if type(b) is not complex:
            return NotImplemented
        b = complex_ops.wrapped_scalar(a, b)
    _check_broadcast(a, b)
    return apply(rule, (a, b), attrs)


# --- arithmetic -------------------------------------------------------------------------------
# add, sub, mul, div, neg, reciprocal and the unary functions below run 0-d float32 operands
# through their rule's scalar kernel (see rules.scalar_binary_op), everything else as written here.
# The operators (`x + y`, `x * 0.5`) call the fast functions directly.
def _checked_alpha(input: Any, other: Any, alpha: Any) -> Any:
    """add/sub's alpha as PyTorch's alpha_check takes it: a bool only for a bool result (where any
    other number counts as a bool), no float for an integer or bool result."""
    if type(alpha) is int and alpha == 1:
        return alpha
    result = dtypes.result_type_np([x._data if isinstance(x, Tensor) else x for x in (input, other)])
    if isinstance(alpha, (bool, np.bool_)) and result != np.bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if result.kind in "biu" and not isinstance(alpha, (int, np.integer, np.bool_)):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    return bool(alpha) if result == np.bool_ else alpha


def _add(input: Any, other: Any, alpha: Any = 1) -> Tensor:
    alpha = _checked_alpha(input, other, alpha)
    if not isinstance(input, Tensor):
        input, other = other, input
    return _binary(ops.ADD, input, other, {"alpha": alpha} if alpha != 1 else None)


add_op = scalar_binary_op(ops.ADD, _add)


def add(input: Any, other: Any, alpha: Any = 1) -> Tensor:
    if type(alpha) is int and alpha == 1:
        return add_op(input, other)
    return _add(input, other, alpha)


def _is_bool(x: Any) -> bool:
    return type(x) is bool or (isinstance(x, Tensor) and x._data.dtype == np.bool_)


def _check_bool_sub(rule: Any, operands: tuple) -> None:
    """PyTorch refuses `-` with bool operands (a Python bool counts as one)."""
    if rule is ops.NEG and _is_bool(operands[0]):
        raise RuntimeError(messages.BOOL_NEG)
    if rule is ops.SUB or rule is ops.RSUB:
        bools = [_is_bool(x) for x in operands]
        if builtins.all(bools):
            raise RuntimeError(messages.BOOL_SUB_BOTH)
        if builtins.any(bools):
            raise RuntimeError(messages.BOOL_SUB)


def _sub(input: Any, other: Any, alpha: Any = 1) -> Tensor:
    _check_bool_sub(ops.SUB, (input, other))
    alpha = _checked_alpha(input, other, alpha)
    if not isinstance(input, Tensor):
        return apply(ops.RSUB, (other,), {"other": input, "alpha": alpha})
    return _binary(ops.SUB, input, other, {"alpha": alpha} if alpha != 1 else None)


sub_op = scalar_binary_op(ops.SUB, _sub)


def sub(input: Any, other: Any, alpha: Any = 1) -> Tensor:
    if type(alpha) is int and alpha == 1:
        return sub_op(input, other)
    return _sub(input, other, alpha)


def rsub(input: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    _check_bool_sub(ops.SUB, (input, other))
    if isinstance(other, Tensor):
        return sub(other, input, alpha=alpha)
    return apply(ops.RSUB, (input,), {"other": other, "alpha": alpha} if alpha != 1 else {"other": other})


def _mul(input: Any, other: Any) -> Tensor:
    if not isinstance(input, Tensor):
        input, other = other, input
    return _binary(ops.MUL, input, other)


mul_op = scalar_binary_op(ops.MUL, _mul)


def mul(input: Any, other: Any) -> Tensor:
    return mul_op(input, other)  # (mul_op's arguments are positional only; `x * y` calls it directly)


def _div(input: Any, other: Any) -> Tensor:
    if not isinstance(input, Tensor):
        # 2 / a is 2 * a.reciprocal() in PyTorch's graph
        return mul(apply(ops.RECIPROCAL, (other,)), input)
    return _binary(ops.DIV, input, other)


div_op = scalar_binary_op(ops.DIV, _div)
_TRUE_DIVISION = object()  # rounding_mode not given (None given explicitly records DivBackward2)


def div(input: Any, other: Any, *, rounding_mode: Any = _TRUE_DIVISION) -> Tensor:
    if rounding_mode is _TRUE_DIVISION:
        return div_op(input, other)
    _check_rounding_mode(rounding_mode)
    if not isinstance(input, Tensor):
        input = as_tensor(input)
    if rounding_mode is not None:
        _check_integer_divisor(input, other)
    return _binary(ops.DIV_MODE, input, other, {"rounding_mode": rounding_mode})


def _check_rounding_mode(rounding_mode: Any) -> None:
    if rounding_mode not in (None, "trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")


def _check_integer_divisor(input: Any, other: Any) -> None:
    """Integer division or remainder by zero: PyTorch's kernels raise (floats give inf or nan)."""
    a = input._data if isinstance(input, Tensor) else np.asarray(input)
    b = other._data if isinstance(other, Tensor) else np.asarray(other)
    if a.dtype.kind in "biu" and b.dtype.kind in "biu" and not np.all(b):
        raise RuntimeError("ZeroDivisionError")
def _neg(input: Any) -> Tensor:
    _check_bool_sub(ops.NEG, (input,))
    return apply(ops.NEG, (input,))


neg = scalar_unary_op(ops.NEG, _neg)


def pow(input: Any, exponent: Any) -> Tensor:  # noqa: A001 - PyTorch's name
    if isinstance(exponent, Tensor) and exponent._data.dtype == np.bool_ and (
            type(input) is bool or isinstance(input, Tensor) and input._data.dtype == np.bool_):
        raise NotImplementedError('"pow" not implemented for \'Bool\'')
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

    fn.__name__ = fn.__qualname__ = rule.name  # Python's argument errors name the function as PyTorch's do
    out = fn if rule.scalar is None else scalar_unary_op(rule, fn)
    out.__name__ = out.__qualname__ = rule.name
    return out


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
    if cond.dtype != np.bool_ and cond.dtype != np.uint8:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{dtypes.from_numpy(cond.dtype).legacy}")
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):  # two numbers: their own result type
        kinds = {type(v) for v in (input, other)}
        if kinds <= {bool}:
            np_dtype = np.dtype(np.bool_)
        elif complex in kinds:
            np_dtype = dtypes.complex_of(dtypes.default_float.np)
        elif float in kinds:
            np_dtype = dtypes.default_float.np
        else:
            np_dtype = np.dtype(np.int64)
        return _constant(np.where(cond, input, other).astype(np_dtype))
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
    """None (all dims) or the checked tuple of dims; an empty list of dims reduces all of them, as
    PyTorch's sum, mean, std, var, nansum, norm, amax... do (all and any reduce none)."""
    if dim is None:
        return None
    return _dim_tuple(dim, ndim) or tuple(range(ndim))


def _axes(dim: Any, ndim: int, empty_is_all: bool = True) -> Any:
    """NumPy's axis for a reduction over `dim` (checked): None for all; none at all for dim 0 or -1 of a 0-d tensor."""
    dims = _optional_dims(dim, ndim) if empty_is_all or dim is None else _dim_tuple(dim, ndim)
    return ops.reduction_axes(dims, ndim)


_NOT_GIVEN = object()


def _given_dim(dim: Any, axis: Any) -> Any:
    """A reduction's dim, NumPy's axis= standing in for it; _NOT_GIVEN when neither was given."""
    return (_NOT_GIVEN if axis is None else axis) if dim is _NOT_GIVEN or (dim is None and axis is not None) else dim


def _wrap_dim(dim: int, ndim: int) -> int:
    """`dim` as a non-negative index (a 0-d tensor has one dim, -1 or 0), or PyTorch's IndexError."""
    n = builtins.max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim % n


def sum(input: Tensor, dim: Any = _NOT_GIVEN, keepdim: bool = False, *, axis: Any = None,  # noqa: A001
        keepdims: Any = None, dtype: Any = None) -> Tensor:
    """SumBackward0 without dim; SumBackward1 for any dim given, None (all dims) included."""
    dim = _given_dim(dim, axis)
    keepdim = keepdims if keepdims is not None else keepdim
    if dtype is None and input._data.dtype.kind in "biu" and input._data.dtype != np.int64:
        dtype = np.dtype(np.int64)  # integers sum in int64
    if dim is _NOT_GIVEN:
        return _reduce_in(ops.SUM, input, None, dtype)
    return _reduce_in(ops.SUM_DIM, input, {"dim": _optional_dims(dim, input._data.ndim), "keepdim": keepdim}, dtype)


def mean(input: Tensor, dim: Any = _NOT_GIVEN, keepdim: bool = False, *, axis: Any = None,
         keepdims: Any = None, dtype: Any = None) -> Tensor:
    """MeanBackward0 without dim; MeanBackward1 for any dim given, None (all dims) included."""
    dim = _given_dim(dim, axis)
    keepdim = keepdims if keepdims is not None else keepdim
    if dtype is not None:
        if dtypes.to_numpy(dtype).kind not in "fc":
            raise RuntimeError(
                "mean(): could not infer output dtype. Optional dtype must be either a floating point or "
                f"complex dtype. Got: {dtypes.from_numpy(dtypes.to_numpy(dtype)).legacy}"
            )
    elif input._data.dtype.kind not in "fc":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {input.dtype.legacy}"
        )
    if dim is _NOT_GIVEN:
        return _reduce_in(ops.MEAN, input, None, dtype)
    return _reduce_in(ops.MEAN_DIM, input, {"dim": _optional_dims(dim, input._data.ndim), "keepdim": keepdim}, dtype)


def _reduce_in(rule: Rule, input: Tensor, attrs: dict | None, dtype: Any) -> Tensor:
    """A reduction computed in `dtype` (its dtype= argument) within the one node, as PyTorch does;
    the gradient goes back to the input in the input's dtype."""
    want = dtypes.to_numpy(dtype)
    if want is None or want == input._data.dtype:
        return apply(rule, (input,), attrs) if attrs else apply(rule, (input,))
    out = apply(rule, (input,), {**(attrs or {}), "dtype": want})
    node = out.grad_fn
    if node is not None:
        node._attrs = {**(node._attrs or {}), GRAD_DTYPES: (input._data.dtype,)}
    return out


def sum_to_size(input: Tensor, *size: Any) -> Tensor:
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
    if tuple(input._data.shape) == shape:
        return input
    have = input._data.shape
    if len(shape) > len(have) or builtins.any(d != 1 and d != n for d, n in zip(shape[::-1], have[::-1])):
        raise RuntimeError(f"size {{{list(shape)}}} is not expandable to size {{{list(have)}}}.")
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
    problem = messages.broadcast_mismatch(sa[:-2], sb[:-2])
    if problem:
        raise RuntimeError(problem)
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
    for name, v in (("self", input), ("vec2", vec2)):
        if v._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v._data.ndim}-D")
    return mul(reshape(input, -1, 1), vec2)


ger = outer


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    for name, first in (("self", input), ("mat1", mat1)):
        if first._data.dtype != mat2._data.dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got {first.dtype.legacy} and "
                               f"{mat2.dtype.legacy}")
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        if m._data.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m._data.ndim}-D tensor")
    s1, s2 = mat1._data.shape, mat2._data.shape
    if s1[1] != s2[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({s1[0]}x{s1[1]} and {s2[0]}x{s2[1]})")
    _expanded_size(input, (s1[0], s2[1]))
    attrs = {}
    if alpha != 1:
        attrs["alpha"] = alpha
    if beta != 1:
        attrs["beta"] = beta
    return apply(ops.ADDMM, (input, mat1, mat2), attrs or None)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    if batch1._data.ndim != 3 or batch2._data.ndim != 3:
        raise RuntimeError("batch1 and batch2 must be 3D tensors")
    b1, b2 = batch1._data.shape, batch2._data.shape
    if b1[0] != b2[0] or b1[2] != b2[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{b1[0]}, {b1[2]}] "
                           f"but got: [{b2[0]}, {b2[1]}].")
    _expanded_size(input, (b1[0], b1[1], b2[2]))
    attrs = {key: value for key, value in (("alpha", alpha), ("beta", beta)) if value != 1}
    return apply(ops.BADDBMM, (input, batch1, batch2), attrs or None)


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
        if known == 0 and n == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape [{', '.join(map(str, shape))}] because "
                               "the unspecified dimension size -1 can be any value and is ambiguous")
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
    if size and not isinstance(size[0], (tuple, list, int, np.integer, Tensor)):
        from engine.dtype_view import view_dtype

        return view_dtype(input, *size)
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
    return apply(ops.EXPAND, (input,), {"size": _expanded_size(input, _size_args(size))})


def _expanded_size(input: Tensor, size: Sequence) -> tuple:
    """The size `input` expands to (-1 keeps a dim), after PyTorch's checks and with its messages."""
    shape = tuple(int(d) for d in size)
    have = input._data.shape
    lead = len(shape) - len(have)
    if lead < 0:
        raise RuntimeError(
            f"expand(torch.{input.dtype.legacy}Tensor{{{list(have)}}}, size={list(shape)}): the number of sizes "
            f"provided ({len(shape)}) must be greater or equal to the number of dimensions in the tensor "
            f"({len(have)})"
        )
    out = []
    for i in reversed(range(len(shape))):  # PyTorch checks from the last dim
        d = shape[i]
        if i < lead:
            if d < 0:
                raise RuntimeError(f"The expanded size of the tensor ({d}) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
        elif d == -1:
            d = have[i - lead]
        elif have[i - lead] != 1 and d != have[i - lead]:
            raise RuntimeError(
                f"The expanded size of the tensor ({d}) must match the existing size ({have[i - lead]}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(shape)}.  Tensor sizes: {list(have)}"
            )
        out.append(d)
    return tuple(reversed(out))


def t(input: Tensor) -> Tensor:
    return apply(ops.T, (input,))


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    _wrap_dim(dim0, input._data.ndim)
    _wrap_dim(dim1, input._data.ndim)
    return apply(ops.TRANSPOSE, (input,), {"dim0": dim0, "dim1": dim1})


def permute(input: Tensor, *dims: Any) -> Tensor:
    dims = _size_args(dims)
    ndim = input._data.ndim
    if len(dims) != ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
            f"desired ordering of dimensions i.e. input.dim() = {ndim} is not equal to len(dims) = {len(dims)}"
        )
    if len({_wrap_dim(d, ndim) for d in dims}) != ndim:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return apply(ops.PERMUTE, (input,), {"dims": dims})


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
    return apply(ops.CLONE, (input,), None if memory_format is None else {"memory_format": memory_format})


# --- comparisons (no gradient) ----------------------------------------------------------------
def _compare(np_fn: Any, ordering: str | None = None) -> Any:
    def fn(input: Tensor, other: Any) -> Tensor:
        if not isinstance(other, (Tensor, *Number, complex)):
            return NotImplemented
        _check_broadcast(input, other)
        b = other._data if isinstance(other, Tensor) else other
        if ordering is not None:
            complex_ops.check_ordered(ordering, input._data, b)
        a = input._data
        if type(b) is int and a.dtype.kind in "iu":  # an int out of the dtype's range wraps, as in PyTorch
            promoted = promoted_arrays([a, b])
            if promoted is not None:
                a, b = promoted[0]
        return _meta_like(_constant(np_fn(a, b)), input, other)

    return fn


def _meta_like(out: Tensor, *inputs: Any) -> Tensor:
    """out (made without rules.apply) as a meta tensor when an input is one (see engine.meta)."""
    if builtins.any(isinstance(x, Tensor) and x._extra is not None and x._extra.meta for x in inputs):
        from engine.meta import check_devices, mark

        check_devices(inputs)
        mark(out)
    return out


lt, le, gt, ge = (_compare(f, name) for f, name in ((np.less, "lt"), (np.less_equal, "le"), (np.greater, "gt"),
                                                    (np.greater_equal, "ge")))
eq, ne = _compare(np.equal), _compare(np.not_equal)


# --- in-place ---------------------------------------------------------------------------------
def _inplace(self: Tensor, rule: Any, others: tuple, attrs: dict | None = None) -> Tensor:
    """Apply `rule` and write the result into `self`, rebasing its grad_fn like PyTorch.

    On a view, the base gets a CopySlices node (the op's node applied to the viewed region) and
    the view's grad_fn becomes an AsStridedBackward0 of the base, as PyTorch does.
    """
    _check_written_to(self, rule, others)
    _check_bool_sub(rule, (self, *others))
    if self._inference and not grad_mode.state.inference:
        _write(self, rule, others, attrs)  # PyTorch writes, then refuses to count the new version
    self._check_inplace()
    if grad_mode.state.dual:
        grad_mode.state.dual(rule, (self, *others), attrs, (self,))  # forward AD: self's new tangent
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
    _check_result_cast(rule, out._data, self)
    dtypes.write(self._data, out._data)
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
        _set_grad_fn(self, node)
    if observe.current is not None:
        observe.current.inplace_applied(self, self.grad_fn)
    return self


_BROADCASTING_WRITES = frozenset({"copy_", "addcmul", "addcdiv", "masked_fill_tensor"})


def _check_written_to(self: Tensor, rule: Any, others: tuple) -> None:
    """PyTorch's checks on the tensor an in-place op writes: the other operands must broadcast to
    its shape, and no two of its elements may share memory (an expanded tensor), except for
    fill_ and zero_, which write one value everywhere."""
    data = self._data
    shape = data.shape
    if others and (rule.elementwise or rule.promotes or rule.name in _BROADCASTING_WRITES):
        for o in others:
            other = o._data.shape if isinstance(o, Tensor) else o.shape if type(o) is np.ndarray else None
            if other is None or other == shape:
                continue
            problem = messages.broadcast_mismatch(shape, other)
            if problem:
                raise RuntimeError(problem)
            full = np.broadcast_shapes(shape, other)
            if full != shape:
                raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(full)}")
    if 0 in data.strides and _overlaps(data) and rule.name not in ("fill_", "zero_"):
        raise RuntimeError(messages.INTERNAL_OVERLAP)


def _overlaps(a: Any) -> bool:
    """Some elements share memory: a zero stride along a dimension of size > 1."""
    strides = getattr(a, "strides", ())
    return 0 in strides and builtins.any(st == 0 and n > 1 for n, st in zip(a.shape, strides))


def _write(self: Tensor, rule: Any, others: tuple, attrs: dict | None) -> None:
    arrays = [o._data if isinstance(o, Tensor) else o for o in others]
    if rule.promotes:
        promoted = promoted_arrays([self._data, *arrays])
        if promoted is not None:
            arrays = promoted[0][1:]
    out = rule.forward(self._data, *arrays, **attrs) if attrs else rule.forward(self._data, *arrays)
    # a Python float makes NumPy compute in float64, PyTorch in float32
    wide = self._data.dtype == _F64 or builtins.any(isinstance(o, Tensor) and o._data.dtype == _F64 for o in others)
    out = _as_result(out, wide)
    if out.dtype == np.float16 and self._data.dtype.kind in "biu" and not builtins.any(
            isinstance(o, Tensor) and o._data.dtype == np.float16 for o in others):
        out = out.astype(dtypes.default_float.np)  # NumPy computes bool and int8 in half, PyTorch in float
    if out.dtype is not self._data.dtype:
        _check_result_cast(rule, out, self)
    dtypes.write(self._data, out)


_F64 = np.dtype(np.float64)


# Elementwise in-place ops PyTorch does not check: rounding keeps an integer tensor's dtype (where
# NumPy would compute in float), masked_fill_ casts its value.
_NOT_CHECKED = frozenset({"floor", "ceil", "round", "trunc", "sign", "round_decimals", "masked_fill"})
_ARITHMETIC = frozenset({"addcmul", "addcdiv"})  # not elementwise rules, checked all the same
_CLAMPS = frozenset({"clamp", "clamp_min", "clamp_max", "clamp_tensor"})


def _check_result_cast(rule: Any, out: np.ndarray, self: Tensor) -> None:
    """PyTorch refuses an in-place arithmetic op whose result type the tensor cannot hold (a
    float result into an integer tensor, an integer one into a bool tensor)."""
    if not (rule.elementwise or rule.promotes or rule.name in _ARITHMETIC) or rule.name in _NOT_CHECKED:
        return
    have, want = out.dtype, self._data.dtype
    if have == want or dtypes.can_cast(have, want):
        return
    src, dst = dtypes.from_numpy(have), dtypes.from_numpy(want)
    # clamp's kernel names the desired type by its C++ name
    dst_name = dst.cpp if rule.name in _CLAMPS else dst.legacy
    raise RuntimeError(f"result type {src.legacy} can't be cast to the desired output type {dst_name}")


def _rebase_view(view: Tensor, base: Tensor, fn: Any) -> None:
    """In-place on a view: CopySlices on the base, AsStridedBackward0 on the view."""
    from engine.rules import edge_to

    copy = COPY_SLICES.new_node(CopySlices, (), (), (base._data.shape, *fn._in_meta[1:]),
                                ((base._data.shape, base._data.dtype),))
    copy.fn = fn
    copy.geometry = (base._data, view._data)
    copy._edges = (edge_to(base), *fn._edges[1:])
    _set_grad_fn(base, copy)
    if observe.current is not None:
        observe.current.inplace_applied(base, copy)  # the base changed too (its grad_fn is CopySlices)
    _regenerate_view(view, base)


def refresh_view(view: Tensor) -> None:
    """Called when a view's grad_fn is read after its base (or another view of it) changed in place: like
    PyTorch, refuse views that may not be rebased, else regenerate the view's grad_fn from the base's."""
    extra = view._extra
    if extra.view_of_multi is not None:
        raise RuntimeError(messages.multi_output_view_inplace(extra.view_of_multi, messages.BASE_MODIFIED))
    if extra.no_grad_view:
        raise RuntimeError(messages.no_grad_view_inplace(messages.BASE_MODIFIED))
    _regenerate_view(view, extra.base)
    if observe.current is not None:
        observe.current.inplace_applied(view, view._grad_fn)  # its value changed with the base's


def _regenerate_view(view: Tensor, base: Tensor) -> None:
    """The view's grad_fn becomes an AsStridedBackward0 whose edge is the base's current grad_fn."""
    state = grad_mode.state
    mode = state.enabled, state.inference
    state.enabled, state.inference = True, False  # PyTorch regenerates in any grad mode
    try:
        with _quiet():
            fresh = apply(ops.AS_STRIDED, (base,), ops.as_strided_attrs(base._data, view._data))
    finally:
        state.enabled, state.inference = mode
    _set_grad_fn(view, fresh._grad_fn)


def _set_grad_fn(tensor: Tensor, node: Any) -> None:
    """A tensor's new grad_fn (after an in-place change): like PyTorch, it takes the tensor's retain_grad
    along; hooks registered before stay on the old node."""
    old, nr = tensor._grad_fn, tensor._output_nr
    tensor.grad_fn = node
    tensor._requires_grad = True
    tensor._output_nr = 0
    if tensor._retains_grad and old is not None and old._retained:
        old._retained.pop(nr, None)
        node.retain_output(0, tensor)


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
        if value._data.ndim:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value._data.ndim} dimensions.")
        return _inplace(self, ops.FILL_TENSOR, (value,))
    if type(value) is int:
        from engine.creation import scalar_int

        value = scalar_int(value, self._data.dtype)
    return _inplace(self, ops.FILL, (), {"value": value})


def copy_(self: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    if isinstance(src, Tensor) and src.is_meta and not self.is_meta:
        raise NotImplementedError(messages.META_NO_DATA)
    return _inplace(self, ops.COPY, (src,))


def setitem(self: Tensor, key: Any, value: Any) -> None:
    """`x[key] = value`: copy_ into a view for basic keys, index_put_ for advanced ones."""
    if key is False:
        return  # PyTorch writes nothing and records nothing
    tracked = grad_mode.state.enabled and (
        self._requires_grad or (isinstance(value, Tensor) and value._requires_grad)
    )
    if not tracked:
        _check_masks(self, key)
        v = value._data if isinstance(value, Tensor) else value
        if self._data.dtype == dtypes.BF16:
            v = dtypes.round_bf16(v)
        if not builtins.any(_is_advanced(k) for k in (key if isinstance(key, tuple) else (key,))) and _overlaps(
                self._data[_index_key(key)]):
            raise RuntimeError(messages.INTERNAL_OVERLAP)  # a copy_ into an expanded region
        if self._inference and not grad_mode.state.inference:
            self._data[_index_key(key)] = v  # PyTorch writes, then refuses to count the new version
        self._check_inplace()
        self._data[_index_key(key)] = v
        self._vc[0] += 1
        if observe.current is not None:
            observe.current.inplace_applied(self, None)
        return
    if key is True or (isinstance(key, Tensor) and key._data.ndim == 0 and key._data.dtype == np.bool_):
        key = (None, slice(None) if bool(key) else slice(0, 0))  # a lone bool: a new dim of size 1 or 0
    keys = key if isinstance(key, tuple) else (key,)
    if builtins.any(_is_advanced(k) for k in keys):
        indices = _advanced_indices(self, key)
        _inplace(self, ops.INDEX_PUT, (value,), {"indices": indices, "accumulate": False})
        return
    if _whole(self, keys):  # `x[:] = v`, `x[...] = v`: PyTorch writes into x itself, not into a view
        if isinstance(value, Tensor) and value._data.ndim:
            _inplace(self, ops.COPY, (value,))
        else:
            if not isinstance(value, Tensor):
                value = _constant(dtypes.cast(np.asarray(value), self._data.dtype))
            _inplace(self, ops.FILL_TENSOR, (value,))
        if observe.current is not None:
            observe.current.inplace_applied(self, self.grad_fn)
        return
    with _quiet():
        region = getitem(self, key)
    if region is self:
        _inplace(self, ops.COPY, (value,))
        return
    _inplace(region, ops.COPY, (value,))
    if self._base is not None and self._grad_fn is not None:
        _regenerate_view(self, self._base)
    if observe.current is not None:
        observe.current.inplace_applied(self, self.grad_fn)


def _whole(self: Tensor, keys: tuple) -> bool:
    """Whether an index selects all of self without a view: only Ellipsis and full slices."""
    dim = 0
    for k in keys:
        if k is Ellipsis:
            dim = self._data.ndim - builtins.sum(1 for q in keys[keys.index(k) + 1:] if q is not None)
            continue
        if not isinstance(k, slice) or dim >= self._data.ndim:
            return False
        if k.indices(self._data.shape[dim]) != (0, self._data.shape[dim], 1):
            return False
        dim += 1
    return True


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
            if isinstance(k, Tensor) and k._data.dtype == np.bool_:
                _check_mask_shape(k._data.shape, self._data.shape, len(out))
            out += _index_positions(k)
    return tuple(out)


def _check_masks(self: Tensor, key: Any) -> None:
    """PyTorch's IndexError for boolean masks (of 1 or more dims) whose shape differs from the tensor's."""
    keys = key if isinstance(key, tuple) else (key,)
    if not builtins.any(isinstance(k, Tensor) and k._data.dtype == np.bool_ and k._data.ndim for k in keys):
        return
    used = [k._data.ndim if isinstance(k, Tensor) and k._data.dtype == np.bool_ else (0 if k is None else 1)
            for k in keys]
    dim = 0
    for i, k in enumerate(keys):
        if k is Ellipsis:
            dim = self._data.ndim - builtins.sum(used[i + 1:])
        elif isinstance(k, Tensor) and k._data.dtype == np.bool_ and k._data.ndim:
            _check_mask_shape(k._data.shape, self._data.shape, dim)
        dim += used[i] if k is not Ellipsis else 0


def _check_mask_shape(mask: tuple, shape: tuple, dim: int) -> None:
    for j, n in enumerate(mask):
        if dim + j < len(shape) and n != shape[dim + j]:
            raise IndexError(f"The shape of the mask {list(mask)} at index {j} does not match the shape of the "
                             f"indexed tensor {list(shape)} at index {dim + j}")


def _index_positions(k: Any) -> list:
    """An index tensor as int64 arrays: itself, or a boolean mask's nonzero positions per dim."""
    array = k._data if isinstance(k, Tensor) else np.asarray(k)
    if array.dtype == np.bool_:
        return [p.astype(np.int64) for p in np.nonzero(array)]
    return [array.astype(np.int64)]


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
        where = ops.where_in_base(*self.geometry)
        region = F.op("strided_gather", g, geometry=where)
        sent = self.fn.apply_backward((region,), create_graph)
        outside = g * ops.outside_mask(where, dtype)
        if sent[0] is not None:
            outside = outside + F.op("strided_scatter", sent[0], geometry=where)
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
acosh = _unary(ops.ACOSH)
asinh = _unary(ops.ASINH)
atanh = _unary(ops.ATANH)
arccosh, arcsinh, arctanh = acosh, asinh, atanh
erf = _unary(ops.ERF)
sign = _unary(ops.SIGN)
floor = _unary(ops.FLOOR)
ceil = _unary(ops.CEIL)
trunc = _unary(ops.TRUNC)
fix = trunc
frac = _unary(ops.FRAC)
silu = _unary(ops.SILU)


def round(input: Tensor, *, decimals: Any = None) -> Tensor:  # noqa: A001
    if decimals is not None:  # round.decimals (RoundBackward1), even for decimals=0
        return apply(ops.ROUND_DECIMALS, (input,), {"decimals": decimals})
    return apply(ops.ROUND, (input,))


def remainder(input: Any, other: Any) -> Tensor:
    _check_integer_divisor(input, other)
    if isinstance(other, Tensor):
        if not isinstance(input, Tensor):  # remainder.Scalar_Tensor: no derivative in PyTorch
            return not_implemented_result("remainder", _scalar_tensor_remainder(input, other), (other,))
        return _binary(ops.REMAINDER_TENSOR, input, other)
    return apply(ops.REMAINDER, (input,), {"other": other})


def _scalar_tensor_remainder(input: Any, other: Tensor) -> np.ndarray:
    arrays = [input, other._data]
    promoted = promoted_arrays(arrays)
    out = np.asarray(ops._remainder(*(promoted[0] if promoted is not None else arrays)))
    if out.dtype == np.float64 and other._data.dtype != np.float64:
        out = out.astype(dtypes.result_type_np(arrays))
    return out


def fmod(input: Tensor, other: Any) -> Tensor:
    _check_integer_divisor(input, other)
    if isinstance(other, Tensor):
        return _binary(ops.FMOD_TENSOR, input, other)
    return apply(ops.FMOD, (input,), {"other": other})


def floor_divide(input: Any, other: Any) -> Tensor:
    """`a // b`: no derivative in PyTorch (a NotImplemented node when an input requires grad)."""
    _check_integer_divisor(input, other)
    _check_broadcast(input, other)
    arrays = [_raw(input), _raw(other)]
    promoted = promoted_arrays(arrays)
    if promoted is not None:
        arrays = promoted[0]
    out = np.asarray(np.floor_divide(*arrays))
    if out.dtype == np.float64 and not builtins.any(type(a) is np.ndarray and a.dtype == np.float64 for a in arrays):
        out = out.astype(np.float32)  # an integer tensor // a Python float is float32 in PyTorch
    return not_implemented_result("floor_divide", out, (input, other))


def _raw(x: Any) -> Any:
    return x._data if isinstance(x, Tensor) else x


def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        lo = min if isinstance(min, Tensor) or min is None else as_tensor(min)
        hi = max if isinstance(max, Tensor) or max is None else as_tensor(max)
        _check_broadcast_all(input, lo, hi)
        return apply(ops.CLAMP_TENSOR, (input, lo, hi))
    return apply(ops.CLAMP, (input,), {"min": min, "max": max})


clip = clamp


def clamp_min(input: Tensor, min: Any) -> Tensor:  # noqa: A002
    return apply(ops.CLAMP_MIN, (input,), {"min": min})


def clamp_max(input: Tensor, max: Any) -> Tensor:  # noqa: A002
    return apply(ops.CLAMP_MAX, (input,), {"max": max})


def maximum(input: Tensor, other: Tensor) -> Tensor:
    _require_tensor("maximum", other)
    _check_broadcast(input, other)
    return apply(ops.MAXIMUM, (input, other))


def minimum(input: Tensor, other: Tensor) -> Tensor:
    _require_tensor("minimum", other)
    _check_broadcast(input, other)
    return apply(ops.MINIMUM, (input, other))


def masked_fill(input: Tensor, mask: Any, value: Any) -> Tensor:
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    check_mask(m)
    _check_broadcast(mask, input)  # PyTorch names the mask tensor a
    if isinstance(value, Tensor):
        _check_fill_value(value)
        return apply(ops.MASKED_FILL_TENSOR, (input, value), {"mask": m})
    check_fill_number(value, "masked_fill")
    return apply(ops.MASKED_FILL, (input,), {"mask": m, "value": fill_value(value, input._data.dtype)})


def fill_value(value: Any, dt: np.dtype) -> Any:
    """A number written into an integer or bool tensor, converted to its dtype as PyTorch does (3.7 -> 3)."""
    if dt.kind not in "biu" or isinstance(value, (bool, np.bool_)):
        return value
    if dt.kind == "b":
        return bool(value)
    info = np.iinfo(dt)
    # c10's overflow check lets an integer wrap into an unsigned type down to -max (-1 -> 255)
    low = -info.max if dt.kind == "u" and isinstance(value, (int, np.integer)) else info.min
    if not math.isfinite(value) or not low <= math.trunc(value) <= info.max:
        if isinstance(value, int) and not -2 ** 63 <= value < 2 ** 64:
            raise OverflowError("int too big to convert")
        names = {"int64": "int64_t", "int32": "int", "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t"}
        raise RuntimeError(f"value cannot be converted to type {names.get(dt.name, dt.name)} without overflow")
    return np.asarray(math.trunc(value)).astype(dt)[()]


def check_mask(m: np.ndarray) -> None:
    if m.dtype != np.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {_dtype_name(m)}")


def check_fill_number(value: Any, name: str) -> None:
    """masked_fill's value is a Tensor or a Number, as torch's argument parser insists."""
    if isinstance(value, (bool, int, float, np.number, np.bool_)):
        return
    got = type(value).__name__
    raise TypeError(
        f"{name}() received an invalid combination of arguments - got (Tensor, {got}), but expected one of:\n"
        f" * (Tensor mask, Tensor value)\n      didn't match because some of the arguments have invalid types: "
        f"(Tensor, !{got}!)\n * (Tensor mask, Number value)\n      didn't match because some of the arguments "
        f"have invalid types: (Tensor, !{got}!)\n")


def _check_fill_value(value: Tensor) -> None:
    if value._data.ndim:
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value._data.ndim} dimension(s).")


def _dtype_name(a: np.ndarray) -> str:
    from engine import dtypes

    return dtypes.from_numpy(a.dtype).cpp  # PyTorch's message names the C++ type ('long int')


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
    _check_reduced_dim(input, dim, kind)
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
        _no_bool_kernel(input, "median_cpu")
        return apply(rule, (input,))
    _check_reduced_dim(input, dim, "median")  # (nanmedian's message names median too)
    _no_bool_kernel(input, "median_out")
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
    count = np.sum(~np.isnan(input._data), axis=_axes(dims, input._data.ndim), keepdims=keepdim)
    return div(nansum(input, dims, keepdim, dtype=dtype), _constant(np.asarray(count, np.int64)))


def roll(input: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    shifts = tuple(shifts) if isinstance(shifts, (tuple, list)) else (shifts,)
    dims = () if dims is None else tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    if len(shifts) != len(dims) and not (len(shifts) == 1 and not dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    for d in dims:
        _wrap_dim(d, input._data.ndim)
    return apply(ops.ROLL, (input,), {"shifts": tuple(int(s) for s in shifts), "dims": dims})


def _check_reduced_dim(input: Tensor, dim: Any, name: str) -> None:
    """PyTorch's check that a dim reduced to a value/index (max, argmax, amax...) is not empty."""
    wrapped = _wrap_dim(dim, input._data.ndim)
    if input._data.ndim and input._data.shape[wrapped] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {wrapped} to have non-zero size.")


def _no_bool_kernel(input: Tensor, kernel: str) -> None:
    """PyTorch's error for the CPU kernels that have no bool version (median, kthvalue, logcumsumexp)."""
    if input._data.dtype == np.bool_:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def _check_nonempty(input: Tensor, name: str) -> None:
    if input._data.size == 0:
        raise RuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
            "reduction dim with the 'dim' argument."
        )


def amax(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    return _amax_amin(ops.AMAX, "amax", input, dim, keepdim)


def amin(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    return _amax_amin(ops.AMIN, "amin", input, dim, keepdim)


def _amax_amin(rule: Rule, name: str, input: Tensor, dim: Any, keepdim: bool) -> Tensor:
    dims = _optional_dims(dim, input._data.ndim) or tuple(range(input._data.ndim))
    if input._data.size == 0:
        if dim is None or (isinstance(dim, (tuple, list)) and not dim):
            _check_nonempty(input, name)
        for d in (dim if isinstance(dim, (tuple, list)) else (dim,)):  # named as given, unwrapped
            if input._data.ndim and input._data.shape[_wrap_dim(d, input._data.ndim)] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    return apply(rule, (input,), {"dim": dims, "keepdim": keepdim})


def _check_arg_reduction(name: str, input: Tensor, dim: Any) -> None:
    """argmax/argmin over nothing: PyTorch's IndexError (no dim given, or the dim has size 0)."""
    if dim is None:
        if input._data.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
    else:
        _check_reduced_dim(input, dim, name)


def argmax(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    if input._data.dtype.kind == "c":
        raise RuntimeError("argmax(): does not support complex input")
    if input._data.dtype == np.bool_:
        raise RuntimeError("argmax(): does not support bool input")
    _check_arg_reduction("argmax", input, dim)
    if dim is None:
        flat = np.asarray(np.argmax(input._data), np.int64)
        return _meta_like(_constant(flat.reshape((1,) * input._data.ndim) if keepdim else flat), input)
    return _meta_like(_constant(np.argmax(input._data, axis=dim, keepdims=keepdim).astype(np.int64)), input)


def argmin(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    if input._data.dtype.kind == "c":
        raise RuntimeError("argmin(): does not support complex input")
    if input._data.dtype == np.bool_:
        raise RuntimeError("argmin(): does not support bool input")
    _check_arg_reduction("argmin", input, dim)
    if dim is None:
        flat = np.asarray(np.argmin(input._data), np.int64)
        return _meta_like(_constant(flat.reshape((1,) * input._data.ndim) if keepdim else flat), input)
    return _meta_like(_constant(np.argmin(input._data, axis=dim, keepdims=keepdim).astype(np.int64)), input)


def _accumulating(input: Tensor, dtype: Any) -> Tensor:
    """input in the dtype a product, scan or trace computes in: dtype if given, else int64 for bool and integer
    tensors, as in PyTorch."""
    if dtype is not None:
        return input.to(dtype)
    if input._data.dtype.kind in "biu" and input._data.dtype != np.int64:
        return input.to(dtypes.int64)
    return input


def prod(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    input = _accumulating(input, dtype)
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
    _check_std_var(input, "std and var")
    dims = _optional_dims(dim, input._data.ndim)
    correction = _correction(unbiased, correction)
    _warn_no_dof("var", input, dims, correction)
    return apply(ops.VAR, (input,), {"dim": dims, "correction": correction, "keepdim": keepdim})


def std(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    _check_std_var(input, "std and var")
    dims = _optional_dims(dim, input._data.ndim)
    correction = _correction(unbiased, correction)
    _warn_no_dof("std", input, dims, correction)
    return apply(ops.STD, (input,), {"dim": dims, "correction": correction, "keepdim": keepdim})


def var_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple:
    return _stat_mean(ops.VAR_MEAN, input, dim, unbiased, keepdim, correction)


def std_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple:
    return _stat_mean(ops.STD_MEAN, input, dim, unbiased, keepdim, correction)


def _check_std_var(input: Tensor, name: str) -> None:
    if input._data.dtype.kind not in "fc":
        raise RuntimeError(f"{name} only support floating point and complex dtypes")


def _warn_no_dof(name: str, input: Tensor, dims: Any, correction: Any) -> None:
    """PyTorch's warning when the correction leaves no degrees of freedom (input numel divided by
    output numel, at most the correction); twice for complex input (real and imaginary parts)."""
    shape = input._data.shape
    out = math.prod(n for d, n in enumerate(shape) if d not in dims) if dims else 1
    if math.prod(shape) / builtins.max(out, 1) - (1 if correction is None else correction) > 0:
        return
    import warnings
    for _ in range(2 if input._data.dtype.kind == "c" else 1):
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                      "reduction factor (input numel divided by output numel). (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp:1861.)", UserWarning, stacklevel=3)


def _stat_mean(rule: Rule, input: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any) -> tuple:
    """(var or std, mean): a plain tuple of two outputs of one node, as in PyTorch."""
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    _check_std_var(input, "var_mean" if rule is ops.VAR_MEAN else "std_mean")
    dims = _optional_dims(dim, input._data.ndim)
    correction = _correction(unbiased, correction)
    _warn_no_dof("var_mean" if rule is ops.VAR_MEAN else "std_mean", input, dims, correction)
    return tuple(apply(rule, (input,), {"dim": dims, "correction": correction, "keepdim": keepdim}))


def norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    "torch.norm: linalg's vector norm, or its nuclear matrix norm for p='nuc'."
    from engine import linalg

    if isinstance(p, (tuple, list)):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not {type(p).__name__}")
    if isinstance(p, str) and p == "nuc":
        return linalg.matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    return linalg.vector_norm(input, 2 if p in ("fro", None) else p, dim, keepdim, dtype=dtype)


def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    dims = _dim_tuple(dim, input._data.ndim)
    if not dims and input._data.ndim:  # PyTorch reduces all dims but writes into a 0-d output unless keepdim
        if not keepdim:
            raise RuntimeError("output with shape [] doesn't match the broadcast shape "
                               f"[{', '.join('1' * input._data.ndim)}]")
        dims = tuple(range(input._data.ndim))
    return apply(ops.LOGSUMEXP, (input,), {"dim": dims, "keepdim": keepdim})


def cumsum(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return _scan(ops.CUMSUM, input, dim, dtype)


def cumprod(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return _scan(ops.CUMPROD, input, dim, dtype)


def _scan(rule: Rule, input: Tensor, dim: int, dtype: Any) -> Tensor:
    input = _accumulating(input, dtype)
    wrapped = _wrap_dim(dim, input._data.ndim)
    return apply(rule, (input,), {"dim": dim if input._data.ndim else wrapped})


def softmax(input: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    if dtype is not None:
        input = input.to(dtype)
    return apply(ops.SOFTMAX, (input,), {"dim": _softmax_dim(input, dim, "softmax")})


def log_softmax(input: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    if dtype is not None:
        input = input.to(dtype)
    return apply(ops.LOG_SOFTMAX, (input,), {"dim": _softmax_dim(input, dim, "log_softmax")})


def _softmax_dim(input: Tensor, dim: Any, kernel: str = "") -> int:
    if dim is None:
        import warnings

        warnings.warn(
            "Implicit dimension choice for softmax has been deprecated. Change the call to include dim=X "
            "as an argument.", UserWarning, stacklevel=4,
        )
        dim = 0 if input._data.ndim in (0, 1, 3) else 1
    d = _wrap_dim(dim, input._data.ndim)  # range check; the node keeps the dim as given, like PyTorch's
    dt = input._data.dtype
    if kernel and dt.kind in "biu":  # PyTorch's CPU kernels have no integer or bool versions
        last = input._data.ndim == 0 or d == input._data.ndim - 1
        name = f"{kernel}_lastdim_kernel_impl" if last else f"{kernel}_kernel_impl"
        raise NotImplementedError(f'"{name}" not implemented for \'{dtypes.from_numpy(dt).legacy}\'')
    return dim


# --- indexing, joining, splitting -----------------------------------------------------------------
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
    if input._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    size = input._data.shape[_wrap_dim(dim, input._data.ndim)]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    start = start + size if start < 0 else start
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
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
    if not self._data.ndim and (isinstance(key, slice) or type(key) is int):  # x[0] of a 0-d tensor (loss[0])
        if isinstance(key, slice):
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        if key == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
                             "C++ to convert a 0-dim tensor to a number")
        raise IndexError(f"index {key} is out of bounds for dimension 0 with size 0")
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
    for position, k in enumerate(key):
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
                out = _slice(out, dim, _slice_bound(start, 0), _slice_bound(stop, INT64_MAX), _slice_bound(step, 1))
                applied = True
            dim += 1
        elif _is_advanced(k):
            array = k._data if isinstance(k, Tensor) else np.asarray(k)
            if array.dtype == np.bool_ and array.ndim > 0:
                _check_mask_shape(array.shape, out._data.shape, dim)
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
            index = _integer_index(k)
            size = out._data.shape[dim]
            if not -size <= index < size:  # PyTorch names the index's position in the key, not the tensor dim
                raise IndexError(f"index {index} is out of bounds for dimension {position} with size {size}")
            out = select(out, dim, index)
            applied = True
    if advanced:
        indices = tuple(advanced.get(d) for d in range(builtins.max(advanced) + 1))
        _check_advanced_bounds(advanced, out._data.shape)
        return apply(ops.INDEX, (out,), {"indices": indices})
    if not applied:
        return apply(ops.ALIAS, (out,))
    return out


INT64_MAX = 9223372036854775807


def _check_advanced_bounds(advanced: dict[int, Any], shape: tuple[int, ...]) -> None:
    """PyTorch's index kernel walks the broadcast index positions in order and, at each, the index tensors in order;
    its error names the first bad entry and that tensor's ordinal among the index tensors."""
    dims = sorted(advanced)
    if not builtins.any(a.size and (a.max() >= shape[d] or a.min() < -shape[d]) for d, a in advanced.items()):
        return
    arrays = np.broadcast_arrays(*(advanced[d] for d in dims))
    bad = np.stack([(a >= shape[d]) | (a < -shape[d]) for d, a in zip(dims, arrays)]).reshape(len(dims), -1)
    flat = int(np.argmax(bad.any(axis=0)))
    ordinal = int(np.argmax(bad[:, flat]))
    d = dims[ordinal]
    value = int(arrays[ordinal].reshape(-1)[flat])
    raise IndexError(f"index {value} is out of bounds for dimension {ordinal} with size {shape[d]}")


def _integer_index(k: Any) -> int:
    """A basic index as an int: PyTorch takes integers (and 0-d integer tensors) only."""
    if isinstance(k, Tensor):
        return int(k)
    try:
        return operator.index(k)
    except TypeError:
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                         f"valid indices (got {type(k).__name__})") from None


def _slice_bound(v: Any, default: int) -> int:
    if v is None:
        return default
    if isinstance(v, Tensor):
        return int(v)
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError("slice indices must be integers or None or have an __index__ method") from None


def _slice_full(self: Tensor, dim: int, k: slice) -> Tensor:
    if self._data.ndim == 0:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    return _slice(self, dim, _slice_bound(k.start, 0), _slice_bound(k.stop, INT64_MAX), _slice_bound(k.step, 1))


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    d = _wrap_dim(dim, input._data.ndim)
    idx = np.asarray(index._data)
    if idx.dtype != np.int64 and idx.dtype != np.int32:
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    have = input._data.shape
    if idx.ndim != input._data.ndim and idx.ndim and input._data.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    if idx.ndim == input._data.ndim:
        for i, (n, m) in enumerate(zip(idx.shape, have)):
            if i != d and n > m:
                raise RuntimeError(f"Size does not match at dimension {i} expected index {list(idx.shape)} to be no "
                                   f"larger than self {list(have)} apart from dimension {d}")
    if idx.size and input._data.ndim:
        size = input._data.shape[d]
        bad = (idx < 0) | (idx >= size)
        if bad.any():
            value = int(idx.reshape(-1)[np.argmax(bad.reshape(-1))])
            raise RuntimeError(f"index {value} is out of bounds for dimension {d} with size {size}")
    return apply(ops.GATHER, (input,), {"dim": dim if input._data.ndim else 0,  # kept as given
                                        "index": index._data, "sparse_grad": sparse_grad})


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    d = _wrap_dim(dim, input._data.ndim)
    idx = np.asarray(_raw(index))
    if idx.dtype not in (np.int32, np.int64):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if idx.ndim == 0 and input._data.ndim:  # a 0-d index selects like a one-element vector
        index = idx = idx.reshape(1)
    size = input._data.shape[d] if input._data.ndim else 1
    if idx.size and ((idx < 0) | (idx >= size)).any():
        if d == 1 and input._data.ndim > 1:  # PyTorch's CPU kernel for dim 1 checks with its own message
            bad = idx.reshape(-1)[((idx < 0) | (idx >= size)).reshape(-1)][0]
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
        raise IndexError("index out of range in self")
    return apply(ops.INDEX_SELECT, (input,), {"dim": dim if input._data.ndim else 0,  # kept as given
                                              "index": _raw(index)})


def scatter(input: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None, reduce: Any = None) -> Tensor:
    """src (a tensor) or value (a number) written at index along dim: ScatterBackward0 or 1."""
    if reduce is not None:
        from engine.extra_ops import scatter_reduced

        return scatter_reduced(input, dim, index, src if src is not None else value, reduce)
    rule, others, attrs = _scatter_args(input, dim, index, src if src is not None else value)
    return apply(rule, (input, *others), attrs)


def scatter_(input: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
             reduce: Any = None) -> Tensor:
    if reduce is not None:
        from engine.extra_ops import scatter_reduced

        return copy_(input, scatter_reduced(input, dim, index, src if src is not None else value, reduce))
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
    if isinstance(src, Tensor) and src._data.dtype != input._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if idx.size:
        _check_scatter_shapes(input, wrapped, idx, src)
    size = input._data.shape[wrapped] if input._data.ndim else 1
    if idx.size and (idx.min() < 0 or idx.max() >= size):
        bad = idx.min() if idx.min() < 0 else idx.max()
        raise RuntimeError(f"index {bad} is out of bounds for dimension {wrapped} with size {size}")
    attrs = {"dim": dim, "index": idx}
    if not isinstance(src, Tensor):
        return ops.SCATTER_VALUE, (), {**attrs, "value": src.item() if hasattr(src, "item") else src}
    if src._data.dtype != input._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    return ops.SCATTER, (src,), attrs


def _check_scatter_shapes(input: Tensor, dim: int, idx: np.ndarray, src: Any) -> None:
    """PyTorch's scatter_shape_check: index has self's number of dims and is no larger than self (apart from
    dim) nor than a tensor src."""
    shape = input._data.shape
    if builtins.max(idx.ndim, 1) != builtins.max(len(shape), 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    src_shape = src._data.shape if isinstance(src, Tensor) else None
    if src_shape is not None:
        for d in range(idx.ndim):
            _wrap_dim(d, len(src_shape))  # PyTorch's IndexError when src has fewer dims than index
    ishape, sshape = idx.shape or (1,), (shape or (1,))
    bad = builtins.any(d != dim and ishape[d] > sshape[d] for d in range(len(ishape)))
    if src_shape is not None:
        bad = bad or builtins.any(ishape[d] > (src_shape or (1,))[d] for d in range(len(ishape)))
    if bad:
        msg = f"Expected index {list(idx.shape)} to be no larger than self {list(shape)} apart from dimension {dim}"
        if src_shape is not None:
            msg += f" and to be no larger size than src {list(src_shape)}"
        raise RuntimeError(msg)


def take_along_dim(input: Tensor, indices: Tensor, dim: int) -> Tensor:
    return gather(input, dim, indices)


def _tensors(tensors: Any) -> tuple:
    return tuple(as_tensor(t) for t in tensors)


def cat(tensors: Any, dim: int = 0, *, axis: Any = None) -> Tensor:
    dim = axis if axis is not None else dim
    tensors = _tensors(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if not t._data.ndim:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    tensors = tuple(t for t in tensors if not (t._data.ndim == 1 and t._data.size == 0)) or tensors[:1]
    ndim = tensors[0]._data.ndim
    d = _wrap_dim(dim, ndim)
    first = tensors[0]._data.shape
    for i, t in enumerate(tensors[1:], 1):
        shape = t._data.shape
        if len(shape) != ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ndim} and {len(shape)}")
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
    if not tensor._data.ndim:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = _wrap_dim(dim, tensor._data.ndim)
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = tuple(int(s) for s in split_size_or_sections)
        if builtins.sum(sizes) != tensor._data.shape[dim]:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {tensor._data.shape[dim]} (input "
                f"tensor's size at dimension {dim}), but got split_sizes={list(sizes)}"
            )
        return apply(ops.SPLIT_WITH_SIZES, (tensor,), {"split_sizes": sizes, "dim": dim})
    split_size = int(split_size_or_sections)
    _check_split_size(split_size, tensor._data.shape[dim])
    return apply(ops.SPLIT, (tensor,), {"split_size": split_size, "dim": dim})


def _check_split_size(split_size: int, size: int) -> None:
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    if split_size == 0 and size != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")


def _check_chunks(chunks: int) -> None:
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    if not input._data.ndim:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    _check_chunks(chunks)
    size = input._data.shape[_wrap_dim(dim, input._data.ndim)]
    if not size:
        return split(input, [0] * chunks, dim)  # `chunks` empty pieces, as in PyTorch
    split_size = -(-size // chunks) if chunks else 0
    return split(input, builtins.max(split_size, 1) if size else 0, dim)


def unsafe_split(tensor: Tensor, split_size: int, dim: int = 0) -> tuple:
    """split whose parts are not views of the input (UnsafeSplitBackward0)."""
    dim = _wrap_dim(dim, tensor._data.ndim)
    _check_split_size(int(split_size), tensor._data.shape[dim])
    return apply(ops.UNSAFE_SPLIT, (tensor,), {"split_size": int(split_size), "dim": dim})


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    _check_chunks(chunks)
    size = input._data.shape[_wrap_dim(dim, input._data.ndim)]
    return unsafe_split(input, builtins.max(-(-size // chunks), 1) if size else 0, dim)


def repeat(input: Tensor, *sizes: Any) -> Tensor:
    repeats = _size_args(sizes)
    if len(repeats) < input._data.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        )
    return apply(ops.REPEAT, (input,), {"repeats": repeats})


def flip(input: Tensor, dims: Any) -> Tensor:
    n = input._data.ndim
    dims = tuple(_wrap_dim(d, n) for d in _dim_tuple(dims, n))
    return apply(ops.FLIP, (input,), {"dims": dims if n else ()})


def to(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    from engine import dtypes

    target = kwargs.get("dtype")
    for a in args:
        if isinstance(a, dtypes.dtype) or a in (float, int, bool, complex):
            target = a
        elif isinstance(a, Tensor):
            target = a.dtype
    if target is None:
        return input
    np_dtype = dtypes.to_numpy(target)
    if np_dtype == input._data.dtype and not kwargs.get("copy"):
        return input
    if input._data.dtype.kind == "c" and np_dtype.kind != "c":
        complex_ops.warn_discarded_imaginary()
    if np_dtype.kind in "fc" and input._requires_grad:
        return apply(ops.TO_COPY, (input,), {"dtype": np_dtype, "self_dtype": input._data.dtype})
    return _meta_like(_constant(dtypes.cast(input._data, np_dtype)), input)


def type_as(input: Tensor, other: Tensor) -> Tensor:
    return to(input, other.dtype)


def isnan(input: Tensor) -> Tensor:
    return _meta_like(_constant(np.isnan(input._data)), input)


def isinf(input: Tensor) -> Tensor:
    return _meta_like(_constant(np.isinf(input._data)), input)


def isfinite(input: Tensor) -> Tensor:
    return _meta_like(_constant(np.isfinite(input._data)), input)


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    _require_tensor("allclose", other)
    _check_broadcast(input, other)
    return bool(np.allclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    _require_tensor("isclose", other)
    _check_broadcast(input, other)
    return _constant(np.isclose(input._data, _raw(other), rtol=rtol, atol=atol, equal_nan=equal_nan))


def equal(input: Tensor, other: Tensor) -> bool:
    _require_tensor("equal", other)
    return input._data.shape == other._data.shape and bool(np.array_equal(input._data, other._data))


def all(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    return _meta_like(_constant(np.all(input._data, axis=_axes(dim, input._data.ndim, False), keepdims=keepdim)), input)


def any(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    return _meta_like(_constant(np.any(input._data, axis=_axes(dim, input._data.ndim, False), keepdims=keepdim)), input)


def logical_not(input: Tensor) -> Tensor:
    return _meta_like(_constant(np.logical_not(input._data)), input)


def logical_and(input: Tensor, other: Tensor) -> Tensor:
    _require_tensor("logical_and", other)
    _check_broadcast(input, other)
    return _meta_like(_constant(np.logical_and(input._data, _raw(other))), input, other)


def logical_or(input: Tensor, other: Tensor) -> Tensor:
    _require_tensor("logical_or", other)
    _check_broadcast(input, other)
    return _meta_like(_constant(np.logical_or(input._data, _raw(other))), input, other)


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:
    idx = np.nonzero(input._data)
    if as_tuple:
        return tuple(_constant(i.astype(np.int64)) for i in idx)
    return _constant(np.stack(idx, axis=1).astype(np.int64) if idx else np.zeros((0, 0), np.int64))


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    axis = _axes(dim, input._data.ndim)
    return _constant(np.asarray(np.count_nonzero(input._data, axis=axis), np.int64))




def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: Any = _NOT_GIVEN) -> ReturnType:
    dim = _wrap_dim(dim, input._data.ndim)
    rule = ops.SORT if stable is _NOT_GIVEN else ops.SORT_STABLE  # sort.stable: SortBackward1
    return ReturnType(*apply(rule, (input,), {"dim": dim, "descending": descending}), "sort")


def msort(input: Tensor) -> Tensor:
    return sort(input, 0)[0]


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> ReturnType:  # noqa: A002
    dim = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[dim] if input._data.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if input._data.dtype == np.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
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
    return apply(ops.TRACE, (_accumulating(input, None),))


def broadcast_shapes(*shapes: Any) -> Any:
    """The common shape, checked as torch._refs._broadcast_shapes does (and with its messages)."""
    from engine.tensor import Size

    shapes = tuple((s,) if isinstance(s, (int, np.integer)) and not isinstance(s, bool) else s
                   for s in shapes if s is not None)
    if not shapes:
        return Size(())
    for shape in shapes:
        if not isinstance(shape, (tuple, list)):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {shape}")
    common = [1] * builtins.max(len(shape) for shape in shapes)
    for arg_idx, shape in enumerate(shapes):
        for idx in range(-1, -1 - len(shape), -1):
            if shape[idx] == common[idx]:
                continue
            if common[idx] == 1:
                if shape[idx] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[idx] = shape[idx]
            if shape[idx] != 1 and common[idx] != shape[idx]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[idx]} at {idx}! Mismatching "
                                   f"argument at index {arg_idx} had {shape}; but expected shape should be "
                                   f"broadcastable to {common}")
    return Size(common)


def broadcast_to(input: Tensor, size: Any) -> Tensor:
    return expand(input, *size)


def broadcast_tensors(*tensors: Tensor) -> tuple:
    shape: tuple = ()
    for t in tensors:  # PyTorch's infer_size, pair by pair
        problem = messages.broadcast_mismatch(shape, t._data.shape)
        if problem:
            raise RuntimeError(problem)
        shape = np.broadcast_shapes(shape, t._data.shape)
    return tuple(t if t._data.shape == shape else expand(t, *shape) for t in tensors)  # as is when it fits


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> Tensor:
    info = np.finfo(input._data.dtype) if input._data.dtype.kind == "f" else None
    if info is None:
        return clone(input)
    return apply(ops.NAN_TO_NUM, (input,), {"nan": 0.0 if nan is None else nan, "posinf": posinf, "neginf": neginf})


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    return _triangle(ops.TRIL, input, diagonal)


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    return _triangle(ops.TRIU, input, diagonal)


def _triangle(rule: Rule, input: Tensor, diagonal: int) -> Tensor:
    if input._data.ndim < 2:
        raise RuntimeError(f"{rule.name}: input tensor must have at least 2 dimensions")
    return apply(rule, (input,), {"diagonal": int(diagonal)})


_ELLIPSIS = "..."


def _einsum_subscript(n: Any) -> str:
    """A label of einsum's sublist form: Ellipsis, or 0-25 for A-Z and 26-51 for a-z, as torch.einsum reads them."""
    if n is Ellipsis:
        return "..."
    if 0 <= n < 26:
        return chr(ord("A") + n)
    if 26 <= n < 52:
        return chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")


def einsum(*args: Any) -> Tensor:
    """torch.einsum(equation, *operands), or its sublist form einsum(a, [0, 1], b, [1, 2], [0, 2])."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least "
                         "one operand and its subscripts list")
    if not isinstance(args[0], Tensor):
        return _einsum(*args)
    equation = ",".join("".join(_einsum_subscript(s) for s in sub) for sub in args[1::2])
    if len(args) % 2:
        return _einsum(equation + "->" + "".join(_einsum_subscript(s) for s in args[-1]), *args[:-1:2])
    return _einsum(equation, *args[::2])


def _einsum(equation: str, *operands: Any) -> Tensor:
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

    t = staticmethod(t)

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

    contiguous = staticmethod(contiguous)
    conj = staticmethod(complex_ops.conj)
    real = staticmethod(complex_ops.real)

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


# --- pointwise math with several operands, and special functions ----------------------------------
def _check_broadcast_all(*operands: Any) -> None:
    """PyTorch's size error for operands that do not broadcast together (folded left to right)."""
    shape: tuple = ()
    for x in operands:
        if isinstance(x, Tensor):
            problem = messages.broadcast_mismatch(shape, x._data.shape)
            if problem:
                raise RuntimeError(problem)
            shape = tuple(np.broadcast_shapes(shape, x._data.shape))


def _check_same_dtype(input: Tensor, **others: Any) -> None:
    """lerp's check that `end` and `weight` have self's dtype."""
    for name, other in others.items():
        if isinstance(other, Tensor) and other._data.dtype != input._data.dtype:
            raise RuntimeError(f"expected dtype {input.dtype.cpp} for `{name}` but got dtype "
                               f"{other.dtype.cpp}")


def _addc_args(rule: Rule, input: Tensor, tensor1: Tensor, tensor2: Tensor) -> tuple:
    if rule is ops.ADDCDIV and builtins.all(t._data.dtype.kind in "biu" for t in (tensor1, tensor2)):
        raise RuntimeError(messages.ADDCDIV_INTEGER)
    _check_broadcast_all(input, tensor1, tensor2)
    return (input, tensor1, tensor2)


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    return apply(ops.ADDCMUL, _addc_args(ops.ADDCMUL, input, tensor1, tensor2), {"value": value})


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    return apply(ops.ADDCDIV, _addc_args(ops.ADDCDIV, input, tensor1, tensor2), {"value": value})


def addcmul_(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    _, t1, t2 = _addc_args(ops.ADDCMUL, input, tensor1, tensor2)
    return _inplace(input, ops.ADDCMUL, (t1, t2), {"value": value})


def addcdiv_(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    _, t1, t2 = _addc_args(ops.ADDCDIV, input, tensor1, tensor2)
    return _inplace(input, ops.ADDCDIV, (t1, t2), {"value": value})


def _lerp_args(input: Tensor, end: Tensor, weight: Any) -> tuple:
    """(rule, other inputs, attrs): LerpBackward0 for a number weight, LerpBackward1 for a tensor."""
    _check_same_dtype(input, end=end, weight=weight)
    _check_broadcast_all(input, end, weight)
    if isinstance(weight, Tensor):
        return ops.LERP_TENSOR, (end, weight), None
    return ops.LERP, (end,), {"weight": weight}


def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    rule, others, attrs = _lerp_args(input, end, weight)
    return apply(rule, (input, *others), attrs)


def lerp_(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    rule, others, attrs = _lerp_args(input, end, weight)
    return _inplace(input, rule, others, attrs)


def atan2(input: Tensor, other: Tensor) -> Tensor:
    _require_tensor("atan2", other)
    _check_broadcast(input, other)
    return apply(ops.ATAN2, (input, other))


def arctan2(input: Tensor, other: Tensor) -> Tensor:
    _require_tensor("arctan2", other)
    return atan2(input, other)


def hypot(input: Tensor, other: Tensor) -> Tensor:
    _require_tensor("hypot", other)
    _check_broadcast(input, other)
    return apply(ops.HYPOT, (input, other))


def dist(input: Tensor, other: Tensor, p: Any = 2) -> Tensor:
    _check_broadcast(input, other)
    return apply(ops.DIST, (input, other), {"p": p} if p != 2 else None)


def logaddexp(input: Tensor, other: Tensor) -> Tensor:
    _check_broadcast(input, other)
    for t in (input, other):
        if t._data.dtype.kind in "biu":
            raise NotImplementedError(f'"logaddexp_cpu" not implemented for \'{t.dtype.legacy}\'')
    return apply(ops.LOGADDEXP, (input, other))


def xlogy(input: Any, other: Any) -> Tensor:
    """input * log(other), 0 where input is 0: XlogyBackward0, or 1 / 2 when input / other is a number."""
    if not isinstance(input, Tensor):
        return apply(ops.XLOGY_SCALAR_SELF, (other,), {"self": input})
    if not isinstance(other, Tensor):
        return apply(ops.XLOGY_SCALAR_OTHER, (input,), {"other": other})
    _check_broadcast(input, other)
    return apply(ops.XLOGY, (input, other))


sgn = _unary(ops.SGN)
sinc = _unary(ops.SINC)
deg2rad = _unary(ops.DEG2RAD)
rad2deg = _unary(ops.RAD2DEG)
lgamma = _unary(ops.LGAMMA)
digamma = _unary(ops.DIGAMMA)
erfinv = _unary(ops.ERFINV)


def signbit(input: Tensor) -> Tensor:
    return _constant(np.signbit(input._data))


def logit(input: Tensor, eps: float | None = None) -> Tensor:
    return apply(ops.LOGIT, (input,), {"eps": eps} if eps is not None else None)


def polygamma(n: int, input: Tensor) -> Tensor:
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return apply(ops.POLYGAMMA, (input,), {"n": n})


# --- in-place views (t_, transpose_, squeeze_, unsqueeze_): the tensor itself takes the new shape ---
def _inplace_view(self: Tensor, rule: Rule, attrs: dict | None = None) -> Tensor:
    """Reshape `self` in place as a view op would; its grad_fn becomes the op's node (no CopySlices)."""
    self._check_inplace()
    if grad_mode.state.enabled and self._requires_grad:
        with _quiet():
            out = apply(rule, (self,), attrs)
        self._data = out._data
        self._vc[0] += 1
        self.grad_fn = out.grad_fn  # after the bump: a view's grad_fn is current as of the new version
        self._output_nr = 0
    else:
        self._data = rule.forward(self._data, **(attrs or {}))
        self._vc[0] += 1
    if observe.current is not None:
        observe.current.inplace_applied(self, self.grad_fn)
    return self


def t_(input: Tensor) -> Tensor:
    if input._data.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {input._data.ndim}D")
    return _inplace_view(input, ops.T_INPLACE)


def transpose_(input: Tensor, dim0: int, dim1: int) -> Tensor:
    _wrap_dim(dim0, input._data.ndim)
    _wrap_dim(dim1, input._data.ndim)
    return _inplace_view(input, ops.TRANSPOSE_INPLACE, {"dim0": dim0, "dim1": dim1})


def unsqueeze_(input: Tensor, dim: int) -> Tensor:
    _wrap_dim(dim, input._data.ndim + 1)
    return _inplace_view(input, ops.UNSQUEEZE_INPLACE, {"dim": dim})


def squeeze_(input: Tensor, dim: Any = None) -> Tensor:
    if dim is None:
        return _inplace_view(input, ops.SQUEEZE_ALL_INPLACE)
    if isinstance(dim, (tuple, list)):
        dims = _dim_tuple(dim, input._data.ndim)
        n = builtins.max(input._data.ndim, 1)
        return _inplace_view(input, ops.SQUEEZE_DIMS_INPLACE, {"dim": tuple(d % n for d in dims)})
    _wrap_dim(dim, input._data.ndim)
    return _inplace_view(input, ops.SQUEEZE_INPLACE, {"dim": dim if input._data.ndim else 0})


def square_(input: Tensor) -> Tensor:
    return _inplace(input, ops.POW, (), {"exponent": 2})


# --- shape helpers built from other ops (PyTorch records their parts) -----------------------------
def ravel(input: Tensor) -> Tensor:
    return view(contiguous(input), -1)


def tile(input: Tensor, *dims: Any) -> Tensor:
    reps = _size_args(dims)
    reps = (1,) * (input._data.ndim - len(reps)) + tuple(reps)
    return repeat(input, *reps)


def repeat_interleave(input: Any, repeats: Any = None, dim: int | None = None, *,
                      output_size: int | None = None) -> Tensor:
    """Each element repeated: unsqueeze, expand, clone, flatten for a number; index_select for a tensor."""
    if repeats is None:  # torch.repeat_interleave(repeats): indices repeated by their counts
        counts = input._data
        return _constant(np.repeat(np.arange(counts.size), counts).astype(np.int64))
    source = input if dim is not None else flatten(input)
    d = _wrap_dim(0 if dim is None else dim, input._data.ndim)
    if isinstance(repeats, Tensor) and repeats._data.ndim:
        counts = repeats._data.reshape(-1)
        size = source._data.shape[d] if source._data.ndim else 1
        if counts.size == 1:
            counts = np.repeat(counts, size)
        elif counts.size != size:
            raise RuntimeError("repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {counts.size} and input.size({d}) = {size}")
        return index_select(source, d, _constant(np.repeat(np.arange(size), counts).astype(np.int64)))
    times = int(repeats.item() if isinstance(repeats, Tensor) else repeats)
    if times < 0:
        raise RuntimeError("Repeats must be non-negative")
    shape = source._data.shape
    expanded = expand(unsqueeze(source, d + 1), *(shape[: d + 1] + (times,) + shape[d + 1:]))
    return flatten(clone(expanded), d, d + 1)


def movedim(input: Tensor, source: Any, destination: Any) -> Tensor:
    src = tuple(source) if isinstance(source, (tuple, list)) else (source,)
    dst = tuple(destination) if isinstance(destination, (tuple, list)) else (destination,)
    n = input._data.ndim
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
                           f"contain the same number of dims as destination ({list(dst)} dims)")
    src_w = [_wrap_dim(d, n) for d in src]
    dst_w = [_wrap_dim(d, n) for d in dst]
    for name, given, wrapped in (("source", src, src_w), ("destination", dst, dst_w)):
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(given)})")
    order = [d for d in range(n) if d not in src_w]
    for dest, s in sorted(zip(dst_w, src_w)):
        order.insert(dest, s)
    return permute(input, *order)


moveaxis = movedim


def swapaxes(input: Tensor, axis0: int, axis1: int) -> Tensor:
    return transpose(input, axis0, axis1)


swapdims = swapaxes


def fliplr(input: Tensor) -> Tensor:
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input: Tensor) -> Tensor:
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


def rot90(input: Tensor, k: int = 1, dims: Any = (0, 1)) -> Tensor:
    dims = tuple(dims)
    n = input._data.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    if dims[0] == dims[1] or abs(dims[0] - dims[1]) == n:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = "
                           f"{dims[1]}")
    for d in dims:
        _wrap_dim(d, n)
    return apply(ops.ROT90, (input,), {"k": int(k), "dims": dims})


def unflatten(input: Tensor, dim: int, sizes: Any) -> Tensor:
    d = _wrap_dim(dim, input._data.ndim)
    sizes = tuple(sizes)
    size = input._data.shape[d]
    known = _prod(tuple(s for s in sizes if s != -1))
    if (-1 not in sizes and known != size) or (-1 in sizes and (known == 0 or size % known)):
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
                           f"{dim} ({size}) in the input tensor")
    shape = input._data.shape
    return view(input, *(shape[:d] + sizes + shape[d + 1:]))


def tensor_split(input: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple:
    """Slices of input along dim: n nearly equal ones (the first size % n one longer), or cut at indices."""
    d = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    sections = indices_or_sections
    if isinstance(sections, Tensor):
        sections = sections._data.tolist() if sections._data.ndim else int(sections.item())
    if isinstance(sections, (tuple, list)):
        bounds = [0] + [int(i) for i in sections] + [size]
    else:
        n = int(sections)
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        lengths = [size // n + (1 if i < size % n else 0) for i in range(n)]
        bounds = [0] + list(np.cumsum(lengths).tolist())
    parts = []
    for start, end in zip(bounds[:-1], bounds[1:]):
        start, end = builtins.min(builtins.max(start, 0), size), builtins.min(builtins.max(end, 0), size)
        parts.append(_slice(input, d, start, builtins.max(end, start), 1))
    return tuple(parts)


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    return diag_embed(view(contiguous(input), -1), offset)


def atleast_1d(*tensors: Any) -> Any:
    return _atleast(tensors, lambda t: reshape(t, 1) if t._data.ndim == 0 else t)


def atleast_2d(*tensors: Any) -> Any:
    def lift(t: Tensor) -> Tensor:
        if t._data.ndim == 0:
            return reshape(t, 1, 1)
        return unsqueeze(t, 0) if t._data.ndim == 1 else t

    return _atleast(tensors, lift)


def atleast_3d(*tensors: Any) -> Any:
    def lift(t: Tensor) -> Tensor:
        if t._data.ndim == 0:
            return reshape(t, 1, 1, 1)
        if t._data.ndim == 1:
            return unsqueeze(unsqueeze(t, 0), -1)
        return unsqueeze(t, -1) if t._data.ndim == 2 else t

    return _atleast(tensors, lift)


def _atleast(tensors: tuple, lift: Any) -> Any:
    """atleast_Nd on one tensor (a tensor back) or several (a tuple back)."""
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        return tuple(lift(t) for t in tensors[0])
    if len(tensors) == 1:
        return lift(tensors[0])
    return tuple(lift(t) for t in tensors)


def column_stack(tensors: Any) -> Tensor:
    parts = [reshape(t, t._data.size, 1) if t._data.ndim <= 1 else t for t in _tensors(tensors)]
    return hstack(parts)


def dstack(tensors: Any) -> Tensor:
    return cat(list(atleast_3d(_tensors(tensors))), 2)


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple:
    """Coordinate grids: each input viewed along its own dim and expanded ('xy' swaps the first two)."""
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tuple(tensors[0])
    if indexing is None:
        import warnings

        warnings.warn(messages.MESHGRID_INDEXING, UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in tensors:
        if t._data.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t!r}")
    refs = list(tensors)
    swap = indexing == "xy" and len(refs) >= 2
    if swap:
        refs[0], refs[1] = refs[1], refs[0]
    shape = tuple(t._data.size for t in refs)
    grids = []
    for i, t in enumerate(refs):
        view_shape = [1] * len(refs)
        view_shape[i] = -1
        grids.append(expand(view(t, *view_shape), *shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    for t in tensors:
        if t._data.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._data.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    return stack([flatten(g) for g in meshgrid(*tensors, indexing="ij")], 1)


# --- indexing: masked and flat selection, index_* updates -----------------------------------------
def _bool_mask(mask: Any, name: str) -> np.ndarray:
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        raise RuntimeError(f"{name}: expected BoolTensor for mask")
    return m


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    m = _bool_mask(mask, "masked_select")
    problem = messages.broadcast_mismatch(m.shape, input._data.shape)
    if problem:
        raise RuntimeError(problem)
    return apply(ops.MASKED_SELECT, (input,), {"mask": m})


def _masked_scatter_args(input: Tensor, mask: Tensor, source: Tensor) -> dict:
    m = _bool_mask(mask, "masked_scatter_")
    if source._data.size < int(np.broadcast_to(m, np.broadcast_shapes(m.shape, input._data.shape)).sum()):
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return {"mask": m}


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    return apply(ops.MASKED_SCATTER, (input, source), _masked_scatter_args(input, mask, source))


def masked_scatter_(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    return _inplace(input, ops.MASKED_SCATTER, (source,), _masked_scatter_args(input, mask, source))


def _flat_index(input: Tensor, index: Tensor, name: str) -> np.ndarray:
    """A flat index into input (negative counting from the end), checked as take() and put_() check it."""
    idx = index._data
    if idx.dtype != np.int64:
        raise RuntimeError(f"{name}(): Expected a long tensor for index, but got {index.dtype.legacy}")
    n = input._data.size
    bad = idx[(idx >= n) | (idx < -n)]
    if bad.size:
        raise IndexError(f"out of range: tried to access index {int(bad.flat[0])} on a tensor of {n} "
                         "elements.")
    return np.where(idx < 0, idx + n, idx)


def take(input: Tensor, index: Tensor) -> Tensor:
    return apply(ops.TAKE, (input,), {"index": _flat_index(input, index, "take")})


def put_(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    attrs = {"index": _flat_index(input, index, "put_"), "accumulate": accumulate}
    return _inplace(input, ops.PUT, (source,), attrs)


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    attrs = {"index": _flat_index(input, index, "put"), "accumulate": accumulate}
    return apply(ops.PUT, (input, source), attrs)


def _index_args(name: str, input: Tensor, dim: int, index: Tensor, source: Any = None) -> dict:
    """attrs of an index_* op after PyTorch's checks (dim kept as given)."""
    wrapped = _wrap_dim(dim, input._data.ndim)
    idx = index._data
    if name == "index_add_" and idx.dtype not in (np.int32, np.int64):
        raise RuntimeError(
            f"index_add_(): Expected dtype int32/int64 for index but got: {index.dtype.legacy}")
    if name == "index_copy_" and idx.dtype != np.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {index.dtype.legacy}")
    if name == "index_fill_" and idx.dtype != np.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    idx = idx.reshape(-1).astype(np.int64)
    size = input._data.shape[wrapped] if input._data.ndim else 1
    if isinstance(source, Tensor) and source._data.ndim:
        count = source._data.shape[_wrap_dim(dim, source._data.ndim)]
        if count != idx.size and name == "index_add_":
            raise RuntimeError(f"index_add_(): Number of indices ({idx.size}) should be equal to "
                               f"source.size(dim): ({count}), for dim: {wrapped}")
        if count != idx.size:
            raise IndexError(f"{name}(): Number of indices ({idx.size}) should be equal to source.size(dim) "
                             f"({count})")
    bad = idx[(idx >= size) | (idx < -size)]
    if bad.size:
        problem = f"index {int(bad.flat[0])} is out of bounds for dimension {wrapped} with size {size}"
        if name == "index_add_":
            raise RuntimeError(problem)
        raise IndexError(f"index_copy_(): {problem}" if name == "index_copy_" else problem)
    return {"dim": dim, "index": np.where(idx < 0, idx + size, idx)}


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    attrs = {**_index_args("index_add_", input, dim, index, source), "alpha": alpha}
    return apply(ops.INDEX_ADD, (input, source), attrs)


def index_add_(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    attrs = {**_index_args("index_add_", input, dim, index, source), "alpha": alpha}
    return _inplace(input, ops.INDEX_ADD, (source,), attrs)


_index_reduce_warned = [False]


def _index_reduce_args(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str,
                       include_self: bool) -> dict:
    """attrs of index_reduce after PyTorch's checks, with its beta warning (once per process)."""
    if not _index_reduce_warned[0]:
        _index_reduce_warned[0] = True
        import warnings

        warnings.warn("index_reduce() is in beta and the API may change at any time. (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:1523.)", UserWarning,
                      stacklevel=3)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    wrapped = _wrap_dim(dim, input._data.ndim)
    idx, src = index._data, source._data
    if idx.ndim > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: {idx.ndim} with type: "
                         f"{index.dtype.legacy} and size: {list(idx.shape)}")
    if idx.dtype not in (np.int32, np.int64):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: {index.dtype.legacy}")
    if input._data.dtype != src.dtype:
        raise RuntimeError(f"index_reduce_(): self ({input.dtype.legacy}) and source ({source.dtype.legacy}) must "
                           "have the same scalar type")
    if not (wrapped == 0 or wrapped < src.ndim):
        raise IndexError(f"index_reduce_(): Indexing dim {wrapped} is out of bounds of the source tensor with dim "
                         f"{src.ndim}")
    count = src.shape[wrapped] if src.ndim else 1
    if idx.size != count:
        raise RuntimeError(f"index_reduce_(): Number of indices ({idx.size}) should be equal to source.size(dim): "
                           f"({count}), for dim: {wrapped}")
    shapes = [list(input._data.shape), list(src.shape)]
    if src.ndim and input._data.ndim:
        del shapes[0][wrapped], shapes[1][wrapped]
    if shapes[0] != shapes[1]:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. Got "
                           f"self.shape = {list(input._data.shape)} source.shape = {list(src.shape)}")
    size = input._data.shape[wrapped] if input._data.ndim else 1
    flat = idx.reshape(-1).astype(np.int64)
    if flat.size and (flat.min() < 0 or flat.max() >= size):
        raise IndexError("index out of range in self")
    return {"dim": dim, "index": flat, "reduce": reduce, "include_self": include_self}


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    return apply(ops.INDEX_REDUCE, (input, source), _index_reduce_args(input, dim, index, source, reduce, include_self))


def index_reduce_(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: bool = True) -> Tensor:
    attrs = _index_reduce_args(input, dim, index, source, reduce, include_self)
    return _inplace(input, ops.INDEX_REDUCE, (source,), attrs)


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    return apply(ops.INDEX_COPY, (input, source), _index_args("index_copy_", input, dim, index, source))


def index_copy_(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    return _inplace(input, ops.INDEX_COPY, (source,), _index_args("index_copy_", input, dim, index, source))


def _index_fill_call(input: Tensor, dim: int, index: Tensor, value: Any) -> tuple:
    """(rule, other inputs, attrs): IndexFillBackward0 for a number, IndexFillBackward1 for a 0-d tensor."""
    attrs = _index_args("index_fill_", input, dim, index)
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value._data.ndim} dimension(s).")
        return ops.INDEX_FILL_TENSOR, (value,), attrs
    return ops.INDEX_FILL, (), {**attrs, "value": value}


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    rule, others, attrs = _index_fill_call(input, dim, index, value)
    return apply(rule, (input, *others), attrs)


def index_fill_(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    rule, others, attrs = _index_fill_call(input, dim, index, value)
    return _inplace(input, rule, others, attrs)


def _put_indices(indices: Any) -> tuple:
    """index_put's indices: int64 arrays (booleans as their nonzero positions), None for full slices."""
    out: list = []
    for k in indices:
        if k is None:
            out.append(None)
        else:
            out += _index_positions(k)
    return tuple(out)


def index_put(input: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    attrs = {"indices": _put_indices(indices), "accumulate": accumulate}
    return apply(ops.INDEX_PUT, (input, values), attrs)


def index_put_(input: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    attrs = {"indices": _put_indices(indices), "accumulate": accumulate}
    return _inplace(input, ops.INDEX_PUT, (as_tensor(values),), attrs)


def _in_storage(input: Tensor, start: np.ndarray, size: int, stride: int) -> np.ndarray:
    """`size` elements `stride` bytes apart from `start`, a view into `input`'s memory; refused as PyTorch's
    as_strided refuses it when they reach past the storage (a transposed tall matrix's wrapped diagonal)."""
    owner = input._data
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    low, high = np.lib.array_utils.byte_bounds(owner)
    first = start.__array_interface__["data"][0]
    last = first + (size - 1) * stride + start.itemsize
    if size > 0 and (first < low or last > high):
        item, step = input.element_size(), start.itemsize
        offset, elems = (first - low) // step, stride // step
        raise RuntimeError(f"setStorage: sizes [{size}], strides [{elems}], storage offset {offset}, and itemsize "
                           f"{item} requiring a storage size of {(offset + 1 + (size - 1) * elems) * item} are out "
                           f"of bounds for storage of size {(high - low) // step * item}")
    return np.lib.stride_tricks.as_strided(start, (builtins.max(size, 0),), (stride,))


def fill_diagonal_(input: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """The main diagonal (of all dims) filled in place through a strided view of it (CopySlices); with wrap,
    a tall matrix's diagonal starts again after each blank row."""
    data = input._data
    if data.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if data.ndim > 2 and len(set(data.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    height, width = data.shape[0], data.shape[1]
    size = builtins.min(height, width)
    stride = builtins.sum(data.strides)
    regions = [np.lib.stride_tricks.as_strided(data, (size,), (stride,))]
    if wrap and data.ndim == 2 and height > width + 1:
        wrap_size = -(-data.size // (width + 1)) - size
        regions.append(_in_storage(input, data[width + 1:], wrap_size, stride))
    for region in regions:
        with _quiet():
            part = apply(ops.AS_STRIDED, (input,), ops.as_strided_attrs(input._data, region))
            fill_(part, fill_value)
    if input._base is not None and input._grad_fn is not None:
        _regenerate_view(input, input._base)
    if observe.current is not None:
        observe.current.inplace_applied(input, input.grad_fn)
    return input


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    attrs = _scatter_reduce_args(input, dim, index, src, reduce, include_self)
    return apply(ops.SCATTER_REDUCE, (input, src), attrs)


def scatter_reduce_(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                    include_self: bool = True) -> Tensor:
    attrs = _scatter_reduce_args(input, dim, index, src, reduce, include_self)
    return _inplace(input, ops.SCATTER_REDUCE, (src,), attrs)


def _scatter_reduce_args(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str,
                         include_self: bool) -> dict:
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    _, _, attrs = _scatter_args(input, dim, index, src)
    return {"dim": dim, "index": attrs["index"], "reduce": reduce, "include_self": include_self}


def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Tensor.unfold: the windows of `size` every `step` along dimension, as a new last dim (a view)."""
    d = _wrap_dim(dimension, input._data.ndim)
    length = input._data.shape[d] if input._data.ndim else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return apply(ops.UNFOLD, (input,), {"dimension": dimension, "size": size, "step": step})


# --- scans and order statistics -------------------------------------------------------------------
def _named_result(kind: str, fields: tuple) -> type:
    """torch.return_types.<kind>: a tuple whose items are also fields (min and max, sign and logabsdet...)."""

    def __new__(cls: type, *items: Any) -> Any:
        return tuple.__new__(cls, items)

    def __repr__(self: tuple) -> str:
        shown = ",\n".join(f"{name}={item!r}" for name, item in zip(fields, self))
        return f"torch.return_types.{kind}(\n{shown})"

    attrs = {name: property(lambda self, i=i: self[i]) for i, name in enumerate(fields)}
    return type(kind, (tuple,), {"__new__": __new__, "__repr__": __repr__, "__slots__": (), "_fields": fields,
                                 "__module__": __name__, **attrs})


MinMax = _named_result("aminmax", ("min", "max"))


def cummax(input: Tensor, dim: int) -> ReturnType:
    return _scan_pair(ops.CUMMAX, "cummax", input, dim)


def cummin(input: Tensor, dim: int) -> ReturnType:
    return _scan_pair(ops.CUMMIN, "cummin", input, dim)


def _scan_pair(rule: Rule, kind: str, input: Tensor, dim: int) -> ReturnType:
    wrapped = _wrap_dim(dim, input._data.ndim)
    values, indices = apply(rule, (input,), {"dim": dim if input._data.ndim else wrapped})
    return ReturnType(values, indices, kind)


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    wrapped = _wrap_dim(dim, input._data.ndim)
    _no_bool_kernel(input, "logcumsumexp_out_cpu")
    return apply(ops.LOGCUMSUMEXP, (input,), {"dim": dim if input._data.ndim else wrapped})


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> ReturnType:
    wrapped = _wrap_dim(dim, input._data.ndim)
    _check_reduced_dim(input, dim, "kthvalue")
    size = input._data.shape[wrapped] if input._data.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {wrapped}")
    _no_bool_kernel(input, "kthvalue_cpu")
    values, indices = apply(ops.KTHVALUE, (input,), {"k": k, "dim": dim, "keepdim": keepdim})
    return ReturnType(values, indices, "kthvalue")


def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> ReturnType:
    _check_reduced_dim(input, dim, "mode")
    values, indices = apply(ops.MODE, (input,), {"dim": dim, "keepdim": keepdim})
    return ReturnType(values, indices, "mode")


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False) -> Any:
    if dim is not None:
        _wrap_dim(dim, input._data.ndim)
        if input._data.ndim and input._data.shape[dim] == 0:
            raise IndexError(f"aminmax(): Expected reduction dim {dim % input._data.ndim} to have non-zero "
                             "size.")
    elif input._data.size == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has "
                           "no identity.")
    low, high = apply(ops.AMINMAX, (input,), {"dim": dim, "keepdim": keepdim})
    return MinMax(low, high)


def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """n-th forward differences along dim: narrow(1, len - 1) - narrow(0, len - 1), n times."""
    if input._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(dim, input._data.ndim)
    parts = [t for t in (prepend, input, append) if t is not None]
    result = cat(parts, d) if len(parts) > 1 and n else input
    if n == 0:
        return clone(input)
    for _ in range(builtins.min(n, result._data.shape[d])):
        length = result._data.shape[d] - 1
        later, earlier = narrow(result, d, 1, length), narrow(result, d, 0, length)
        if result._data.dtype == np.bool_:  # bool differences are logical_xor, as in PyTorch
            from engine.bitwise import logical_xor

            result = logical_xor(later, earlier)
        else:
            result = sub(later, earlier)
    return result


def trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The trapezoid rule along dim: with sample points x, or a constant spacing dx (1 by default)."""
    d = _wrap_dim(dim, y._data.ndim)
    if y._data.shape[d] == 0:
        return zeros_like(sum(y, d))
    if isinstance(x, Tensor):
        spacing = _sample_spacing("trapezoid", y, x, d)
        left, right = _slice(y, d, 0, -1, 1), _slice(y, d, 1, INT64_MAX, 1)
        return apply(ops.DIV_SCALAR, (sum(mul(add(left, right), spacing), d),), {"other": 2.0})
    step = 1.0 if dx is None and x is None else float(dx if dx is not None else x)
    ends = apply(ops.MUL_SCALAR, (add(select(y, d, 0), select(y, d, -1)),), {"other": 0.5})
    return apply(ops.MUL_SCALAR, (sub(sum(y, d), ends),), {"other": step})


def trapz(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """Running trapezoid-rule integrals along dim: cumsum of (y[i] + y[i+1]) * spacing / 2."""
    if (x is not None and not isinstance(x, Tensor)) or (x is not None and dx is not None):
        got = "(Tensor, " + ("dx=" + type(dx).__name__ + ", x=Tensor" if dx is not None else type(x).__name__) + ")"
        raise TypeError(f"cumulative_trapezoid() received an invalid combination of arguments - got {got}, but "
                        "expected one of:\n * (Tensor y, Tensor x, *, int dim = -1)\n"
                        " * (Tensor y, *, Number dx = 1, int dim = -1)\n")
    d = _wrap_dim(dim, y._data.ndim)
    pairs = add(_slice(y, d, 0, -1, 1), _slice(y, d, 1, INT64_MAX, 1))
    if x is None:
        step = 1.0 if dx is None else dx
        return cumsum(apply(ops.MUL_SCALAR, (pairs,), {"other": step / 2.0}), d)
    spacing = _sample_spacing("cumulative_trapezoid", y, x, d)
    return apply(ops.DIV_SCALAR, (cumsum(mul(pairs, spacing), d),), {"other": 2.0})


def _sample_spacing(name: str, y: Tensor, x: Tensor, d: int) -> Tensor:
    """x[i+1] - x[i] along dim d of y, for sample points x given along d (1-d) or broadcasting with y."""
    if x._data.ndim == 1:
        if x._data.shape[0] != y._data.shape[d]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        shape = [1] * y._data.ndim
        shape[d] = x._data.shape[0]
        x = view(x, *shape)
    elif x._data.ndim < y._data.ndim:
        x = view(x, *((1,) * (y._data.ndim - x._data.ndim) + x._data.shape))
    return sub(_slice(x, d, 1, INT64_MAX, 1), _slice(x, d, 0, -1, 1))


def _unique_outputs(outputs: tuple, return_inverse: bool, return_counts: bool) -> Any:
    values, inverse, counts = outputs
    extra = ([inverse] if return_inverse else []) + ([counts] if return_counts else [])
    return (values, *extra) if extra else values


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim: int | None = None) -> Any:
    """The distinct values (sorted), with the inverse indices and counts when asked."""
    if dim is None:
        outputs = apply(ops.UNIQUE, (input,))
    else:
        if not input._data.ndim:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        outputs = apply(ops.UNIQUE_DIM, (input,), {"dim": _wrap_dim(dim, input._data.ndim)})
    return _unique_outputs(outputs, return_inverse, return_counts)


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None) -> Any:
    """The values of each run of equal consecutive values, with inverse indices and run lengths when asked."""
    attrs = {"dim": None if dim is None else _wrap_dim(dim, input._data.ndim)}
    return _unique_outputs(apply(ops.UNIQUE_CONSECUTIVE, (input,), attrs), return_inverse, return_counts)


def not_implemented_result(op: str, array: np.ndarray, inputs: tuple) -> Tensor:
    """A result whose backward PyTorch does not implement: a NotImplemented node on the inputs that need
    a gradient (its backward raises `derivative for aten::<op> is not implemented`)."""
    return not_implemented_results(op, (array,), inputs)[0]


def not_implemented_results(op: str, arrays: tuple, inputs: tuple) -> tuple:
    """not_implemented_result for an op with several outputs: one NotImplemented node they all share."""
    results = tuple(_constant(array) for array in arrays)
    tracked = [x for x in inputs if isinstance(x, Tensor) and x._requires_grad]
    if not tracked or not grad_mode.state.enabled:
        return results
    from engine.rules import edge_to
    from engine.node import output_numbers

    rule = ops.HARDSIGMOID_BACKWARD
    edges = [edge_to(x) for x in tracked]
    node = rule.new_node(rule.node_cls, tuple(e[0] for e in edges),
                         output_numbers(tuple(e[1] for e in edges)),
                         tuple(x._data.shape for x in tracked), tuple((a.shape, a.dtype) for a in arrays))
    node._attrs = {"op": op}
    for i, result in enumerate(results):
        result.grad_fn = node
        result._output_nr = i
        result._requires_grad = True
    return results


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    data = input._data
    if data.ndim != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if data.dtype.kind not in "iu":
        raise NotImplementedError(f'"bincount_cpu" not implemented for \'{input.dtype.legacy}\'')
    if data.size and data.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return _constant(np.bincount(data, minlength=minlength).astype(np.int64))
    if weights._data.shape != data.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    wdtype = np.dtype(np.float32 if weights._data.dtype == np.float32 else np.float64)  # others count in double
    counts = np.bincount(data, weights=weights._data.astype(np.float64), minlength=minlength).astype(wdtype)
    return not_implemented_result("bincount", counts, (weights,))


def histc(input: Tensor, bins: int = 100, min: Any = 0, max: Any = 0) -> Tensor:  # noqa: A002
    """Counts in `bins` equal bins over [min, max] (the data's range when both are 0); others are ignored."""
    data = input._data
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if data.dtype.kind != "f":
        raise NotImplementedError(f'"histogram_cpu" not implemented for \'{input.dtype.legacy}\'')
    lo, hi = float(min), float(max)
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    from_data = lo == hi and data.size
    if from_data:
        lo, hi = float(data.min()), float(data.max())
    if not (math.isfinite(lo) and math.isfinite(hi)):
        shown = [("-nan" if from_data else "nan") if math.isnan(v) else _c10_double(v) for v in (lo, hi)]
        raise RuntimeError(f"torch.histc: range of [{shown[0]}, {shown[1]}] is not finite")
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    low, high = data.dtype.type(lo), data.dtype.type(hi)
    inside = data[(data >= low) & (data <= high)]
    pos = ((inside - low) * data.dtype.type(bins) / (high - low)).astype(np.int64)
    pos = np.minimum(pos, bins - 1)
    return _constant(np.bincount(pos, minlength=bins).astype(data.dtype))


def _c10_double(v: float) -> str:
    "A double as PyTorch's messages print it (an ostream's 6 significant digits: 1, -0.5, inf, nan)."
    return f"{v:g}"


HistogramResult = _named_result("histogram", ("hist", "bin_edges"))


def histogram(input: Tensor, bins: Any, *, range: Any = None, weight: Tensor | None = None,  # noqa: A002
              density: bool = False) -> Any:
    """Counts (or weights' sums) of input's values in the bins between the edges: `bins` equal bins over range
    (the data's min and max by default), or the given edges; the last bin includes its right edge."""
    data = input._data
    if data.dtype.kind != "f" or data.dtype == np.float16 or data.dtype == dtypes.BF16:
        raise NotImplementedError(f'"histogramdd" not implemented for \'{input.dtype.legacy}\'')
    values = data.reshape(-1)
    if weight is not None:
        if weight._data.dtype != data.dtype:
            raise RuntimeError("torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should "
                               f"have the same dtype, but got input({input.dtype.cpp}), and weight({weight.dtype.cpp})")
        if weight._data.size != values.size:
            raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the same shape as the "
                               "input tensor excluding its innermost dimension, but got input with shape "
                               f"[{values.size}, 1] and weight with shape {[weight._data.size]}")
    if isinstance(bins, Tensor):
        edges = bins._data
        if edges.dtype != data.dtype:
            raise RuntimeError("torch.histogramdd: input tensor and bins tensors should have the same dtype, but got "
                               f"input with dtype {input.dtype.cpp} and bins for dimension 0 with dtype "
                               f"{bins.dtype.cpp}")
        if edges.ndim != 1:
            raise RuntimeError("torch.histogramdd: bins tensor should have one dimension, but got "
                               f"{edges.ndim} dimensions in the bins tensor for dimension 0")
        if edges.size == 0:
            raise RuntimeError("torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements in "
                               "the bins tensor for dimension 0")
        if edges.size == 1:
            raise RuntimeError("torch.histogram(): bins must be > 0, but got 0 for dimension 0")
        edges = np.array(edges)
    else:
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
        if range is not None:
            if len(range) != 2:
                raise RuntimeError("torch.histogramdd: for a 1-dimensional histogram range should have 2 elements, but "
                                   f"got {len(range)}")
            lo, hi = float(range[0]), float(range[1])
        else:
            lo, hi = (float(values.min()), float(values.max())) if values.size else (0.0, 1.0)
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension 0's range [{_c10_double(lo)}, {_c10_double(hi)}] is not "
                               "finite")
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {_c10_double(lo)} max "
                               f"{_c10_double(hi)} for dimension 0")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        from engine.creation import _linspace

        edges = _linspace(lo, hi, bins + 1, data.dtype)
    hist = np.zeros(edges.size - 1, data.dtype)
    inside = (values >= edges[0]) & (values <= edges[-1])
    pos = np.minimum(np.searchsorted(edges, values[inside], side="right") - 1, edges.size - 2)
    np.add.at(hist, pos, 1 if weight is None else weight._data.reshape(-1)[inside])
    if density:
        with np.errstate(all="ignore"):
            hist = hist / hist.sum(dtype=data.dtype) / np.diff(edges)
    result = not_implemented_results("histogram", (hist.astype(data.dtype), edges),
                                     (input, bins, weight))
    return HistogramResult(*result)


def searchsorted(sorted_sequence: Tensor, input: Any, *, out_int32: bool = False, right: bool = False,
                 side: str | None = None, sorter: Tensor | None = None) -> Tensor:
    """Where each value would be inserted to keep each row of sorted_sequence sorted."""
    seq = sorted_sequence._data
    values = input._data if isinstance(input, Tensor) else np.asarray(input)
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of "
                               "left while right was True")
        right = side == "right"
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter._data, -1)
    how = "right" if right else "left"
    if seq.ndim <= 1:
        out = np.searchsorted(seq, values, side=how)
    else:
        if seq.shape[:-1] != values.shape[:-1]:
            raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first "
                               "N-1 dimensions of boundaries tensor and input value tensor must match, but "
                               f"we got boundaries tensor {list(seq.shape)} and input value tensor "
                               f"{list(values.shape)}")
        rows_s, rows_v = seq.reshape(-1, seq.shape[-1]), values.reshape(-1, values.shape[-1])
        out = np.stack([np.searchsorted(s, v, side=how) for s, v in zip(rows_s, rows_v)])
        out = out.reshape(values.shape)
    return _constant(np.asarray(out).astype(np.int32 if out_int32 else np.int64))


def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    if boundaries._data.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    """Covariance of the rows (variables) over the columns (observations), optionally weighted."""
    if input._data.ndim > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input._data.ndim} dimensions")
    data = input if input._data.ndim == 2 else view(input, 1, -1)
    observations = data._data.shape[1]
    w = _cov_weights(observations, fweights, aweights)
    w_sum = sum(w) if w is not None else _constant(np.asarray(observations, np.int64))
    if w is not None and not w_sum._data:
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = div(sum(mul(data, w) if w is not None else data, 1), w_sum)
    if w is not None and aweights is not None and correction:
        norm_factor = sub(w_sum, div(mul(sum(mul(w, aweights)), correction), w_sum))
    else:
        norm_factor = sub(w_sum, correction)
    if norm_factor._data <= 0:
        import warnings

        warnings.warn(messages.COV_DOF, UserWarning, stacklevel=2)
        norm_factor = zeros_like(norm_factor)
    centered = sub(data, unsqueeze(avg, 1))
    c = mm(centered, t(mul(centered, w) if w is not None else centered))
    return squeeze(div(c, norm_factor))


def _cov_weights(observations: int, fweights: Tensor | None, aweights: Tensor | None) -> Any:
    """fweights * aweights (either may be missing), after cov()'s checks."""
    w = None
    for name, weight in (("fweights", fweights), ("aweights", aweights)):
        if weight is None:
            continue
        if weight._data.ndim > 1:
            raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
                               f"{weight._data.ndim} dimensions")
        kind_ok = weight._data.dtype.kind in "iu" if name == "fweights" else weight._data.dtype.kind == "f"
        if not kind_ok:
            wanted = "integral" if name == "fweights" else "floating point"
            raise RuntimeError(f"cov(): expected {name} to have {wanted} dtype but got {name} with "
                               f"{weight.dtype.legacy} dtype")
        if weight._data.size != observations:
            raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in "
                               f"the input but got {weight._data.size} != {observations}")
        if observations and weight._data.min() < 0:
            raise RuntimeError(f"cov(): {name} cannot be negative")
        w = weight if w is None else mul(w, weight)
    return w


def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of the rows: cov normalized by the standard deviations, clipped."""
    if input._data.ndim > 2:
        raise RuntimeError("corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input._data.ndim} dimensions")
    c = cov(input)
    if c._data.ndim == 0:
        return div(c, c)
    stddev = sqrt(diagonal(c))
    c = div(c, view(stddev, -1, 1))
    c = div(c, view(stddev, 1, -1))
    return clamp(c, -1, 1)


# --- linear algebra (torch.linalg has the rest) ---------------------------------------------------
def det(input: Tensor) -> Tensor:
    from engine import linalg

    return linalg.det(input)


def logdet(input: Tensor) -> Tensor:
    """log(det): NaN for a negative determinant (a where over slogdet's logabsdet)."""
    from engine import linalg

    linalg._check_matrices("logdet", input)
    sign, logabsdet = linalg.slogdet(input)
    return where(_constant(sign._data == -1), float("nan"), logabsdet)


def slogdet(input: Tensor) -> Any:
    from engine import linalg

    sign, logabsdet = linalg.slogdet(input)
    return _SlogdetResult(sign, logabsdet)


_SlogdetResult = _named_result("slogdet", ("sign", "logabsdet"))


def inverse(input: Tensor) -> Tensor:
    from engine import linalg

    return linalg.inv(input)


def matrix_power(input: Tensor, n: int) -> Tensor:
    from engine import linalg

    return linalg.matrix_power(input, n)


def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    from engine import linalg

    return linalg.cross(input, other, dim=linalg.cross_default_dim(input) if dim is None else dim)


def vdot(input: Tensor, other: Tensor) -> Tensor:
    sa, sb = input._data.shape, other._data.shape
    if len(sa) != 1 or len(sb) != 1:
        raise RuntimeError(f"1D tensors expected, but got {len(sa)}D and {len(sb)}D tensors")
    if sa != sb:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{sa[0]}] and src [{sb[0]}] to have "
                           f"the same number of elements, but got {sa[0]} and {sb[0]} elements respectively")
    if input._data.dtype != other._data.dtype:
        raise RuntimeError("vdot : expected both vectors to have same dtype, but found "
                           f"{input.dtype.legacy} and {other.dtype.legacy}")
    return apply(ops.VDOT, (input, other))


def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Any = None) -> Tensor:
    """Contraction over dims of a and b: permuted, reshaped and multiplied as one mm (or a dot / a summed
    product when no dims are left)."""
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    t1, t2, csize = a, b, 1
    for d1, d2 in zip(dims_a, dims_b):
        s1, s2 = a._data.shape[d1], b._data.shape[d2]
        if s2 == 1:
            t1 = sum(t1, d1, True)
        elif s1 == 1:
            t2 = sum(t2, d2, True)
        else:
            if s1 != s2:
                raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} in dim "
                                   f"{d1} and second has size {s2} in dim {d2}")
            csize *= s1
    cd1 = {d % builtins.max(a._data.ndim, 1) for d in dims_a}
    cd2 = {d % builtins.max(b._data.ndim, 1) for d in dims_b}
    free1 = [i for i in range(a._data.ndim) if i not in cd1]
    free2 = [i for i in range(b._data.ndim) if i not in cd2]
    rsizes = [t1._data.shape[i] for i in free1] + [t2._data.shape[i] for i in free2]
    p1 = permute(t1, *(free1 + dims_a))
    p2 = permute(t2, *(dims_b + free2))
    if not rsizes:
        product = dot(p1, p2) if p1._data.ndim == 1 else sum(mul(squeeze(p1), squeeze(p2)))
        return reshape(product, ())
    size1 = _prod(tuple(t1._data.shape[i] for i in free1))
    size2 = _prod(tuple(t2._data.shape[i] for i in free2))
    return reshape(mm(reshape(p1, size1, csize), reshape(p2, csize, size2)), *rsizes)


def inner(input: Tensor, other: Tensor) -> Tensor:
    if input._data.ndim == 0 or other._data.ndim == 0:
        return mul(input, other)
    if input._data.shape[-1] != other._data.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input._data.shape)} and {list(other._data.shape)}")
    return tensordot(input, other, ([-1], [-1]))


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: both viewed with interleaved size-1 dims, multiplied, then merged."""
    n = builtins.max(input._data.ndim, other._data.ndim)
    sa = (1,) * (n - input._data.ndim) + input._data.shape
    sb = (1,) * (n - other._data.ndim) + other._data.shape
    a_shape = tuple(x for s in sa for x in (s, 1))
    b_shape = tuple(x for s in sb for x in (1, s))
    a = apply(ops.UNSAFE_VIEW, (input,), {"size": a_shape})
    b = apply(ops.UNSAFE_VIEW, (other,), {"size": b_shape})
    return apply(ops.UNSAFE_VIEW, (mul(a, b),), {"size": tuple(x * y for x, y in zip(sa, sb))})


_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """p-norm distances between the rows of x1 and x2; for p = 2 with more than 25 rows, through matrix
    products (EuclideanDistBackward0) as PyTorch does."""
    for name, t in (("X1", x1), ("X2", x2)):
        if t._data.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {t._data.ndim}D")
    c1, c2 = x1._data.shape[-1], x2._data.shape[-1]
    if c1 != c2:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {c1} X2: {c2}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    mode = _CDIST_MODES[compute_mode]
    r1, r2 = x1._data.shape[-2], x2._data.shape[-2]
    if p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25))):
        batch = tuple(np.broadcast_shapes(x1._data.shape[:-2], x2._data.shape[:-2]))
        a, b = x1, x2
        if _prod(batch) != 1:
            a, b = expand(x1, *(batch + x1._data.shape[-2:])), expand(x2, *(batch + x2._data.shape[-2:]))
        return view(apply(ops.EUCLIDEAN_DIST, (a, b)), *(batch + (r1, r2)))
    return apply(ops.CDIST, (x1, x2), {"p": float(p)})


def mkldnn_rnn_layer(input: Tensor, weight0: Tensor, weight1: Tensor, weight2: Tensor, weight3: Tensor,
                     hx_: Tensor, cx_: Tensor, reverse: bool, batch_sizes: Any, mode: int, hidden_size: int,
                     num_layers: int, has_biases: bool, bidirectional: bool, batch_first: bool,
                     train: bool) -> tuple:
    """One direction of one LSTM layer over (seq, batch, features), as PyTorch's CPU build runs float32
    LSTMs: (output, last h, last c, workspace)."""
    attrs = {"reverse": bool(reverse), "batch_sizes": tuple(batch_sizes), "mode": int(mode),
             "hidden_size": int(hidden_size), "num_layers": int(num_layers), "has_biases": bool(has_biases),
             "bidirectional": bool(bidirectional), "batch_first": bool(batch_first), "train": bool(train)}
    return apply(ops.LSTM_LAYER, (input, weight0, weight1, weight2, weight3, hx_, cx_), attrs)


# --- Gamma and Dirichlet draws (torch._standard_gamma and friends, used by torch.distributions) --------------
def _standard_gamma(input: Tensor, generator: Any = None) -> Tensor:
    return apply(ops.STANDARD_GAMMA, (input,), {"generator": generator})


def _standard_gamma_grad(input: Tensor, output: Tensor) -> Tensor:
    return apply(ops.STANDARD_GAMMA_GRAD, (input,), {"output": output._data})


def _sample_dirichlet(input: Tensor, generator: Any = None) -> Tensor:
    from engine import gamma, random

    return _constant(gamma.sample_dirichlet(np.asarray(input._data), generator or random.default_generator))


def _dirichlet_grad(x: Tensor, alpha: Tensor, total: Tensor) -> Tensor:
    from engine import gamma

    return _constant(gamma.dirichlet_grad(x._data, alpha._data, total._data))


# --- addmv, block_diag, vander, and the torch-level names of matrix_exp and pinverse -------------------------
def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    "beta * input + alpha * (mat @ vec)."
    if mat._data.ndim != 2 or vec._data.ndim != 1 or input._data.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input._data.ndim}, {mat._data.ndim}, "
                           f"{vec._data.ndim}")
    if not (input._data.dtype == mat._data.dtype == vec._data.dtype):
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {input.dtype.legacy}, "
                           f"{mat.dtype.legacy}, and {vec.dtype.legacy}")
    rows, cols = mat._data.shape
    n = input._data.shape[0] if input._data.ndim else 1
    if cols != vec._data.shape[0] or n not in (1, rows):
        raise RuntimeError(f"size mismatch, got input ({n}), mat ({rows}x{cols}), vec ({vec._data.shape[0]})")
    attrs = {key: value for key, value in (("alpha", alpha), ("beta", beta)) if value != 1}
    return apply(ops.ADDMV, (input, mat, vec), attrs or None)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    "beta * input + alpha * outer(vec1, vec2)."
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v._data.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v._data.ndim}-D")
    shape = (vec1._data.shape[0], vec2._data.shape[0])
    if np.broadcast_shapes(input._data.shape, shape) != shape if _broadcasts(input._data.shape, shape) else True:
        expand(input, shape)  # raises PyTorch's expand message
    attrs = {key: value for key, value in (("alpha", alpha), ("beta", beta)) if value != 1}
    return apply(ops.ADDR, (input, vec1, vec2), attrs or None)


def _broadcasts(a: tuple, b: tuple) -> bool:
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    "beta * input + alpha * the sum over the batch of batch1[b] @ batch2[b]."
    for t in (batch1, batch2):
        if t._data.ndim != 3:
            _wrap_dim(2, t._data.ndim)  # PyTorch's IndexError for a missing dim
            raise RuntimeError(f"batch1 must be a 3D tensor, got {t._data.ndim}D")
    b1, b2 = batch1._data.shape, batch2._data.shape
    if b1[0] != b2[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {b1[0]} and {b2[0]}")
    if b1[2] != b2[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({b1[1]}x{b1[2]} and {b2[1]}x{b2[2]})")
    if batch1._data.dtype != batch2._data.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {batch1.dtype.legacy} and "
                           f"{batch2.dtype.legacy}")
    shape = (b1[1], b2[2])
    if np.broadcast_shapes(input._data.shape, shape) != shape if _broadcasts(input._data.shape, shape) else True:
        expand(input, shape)
    attrs = {key: value for key, value in (("alpha", alpha), ("beta", beta)) if value != 1}
    return apply(ops.ADDBMM, (input, batch1, batch2), attrs or None)


def block_diag(*tensors: Tensor) -> Tensor:
    "The tensors (numbers as 1x1 blocks, vectors as rows) along the diagonal of a zero matrix."
    tensors = _tensors(tensors)
    for i, t in enumerate(tensors):
        if t._data.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t._data.ndim} dimensions")
    return apply(ops.BLOCK_DIAG, tensors)


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:  # noqa: N803
    "The powers of x as columns (highest first unless increasing), as PyTorch builds them with cumprod."
    from engine import creation

    if x._data.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._data.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dtype = x.dtype if x._data.dtype.kind in "fc" else _long()
    result = creation.empty(x._data.shape[0], n, dtype=dtype)
    if n > 0:
        fill_(result, 1)
    if n > 1:
        copy_(_slice(result, 1, 1, n, 1), unsqueeze(x, 1))
        copy_(_slice(result, 1, 1, n, 1), cumprod(_slice(result, 1, 1, n, 1), 1))
    return result if increasing else flip(result, [1])


def _long() -> Any:
    from engine import dtypes

    return dtypes.from_numpy(np.dtype(np.int64))


def matrix_exp(input: Tensor) -> Tensor:
    from engine import linalg

    return linalg.matrix_exp(input)


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    from engine import linalg

    return linalg.pinverse(input, rcond)


def qr(input: Tensor, some: bool = True) -> Any:
    from engine import linalg

    return linalg.torch_qr(input, some)


def cholesky(input: Tensor, upper: bool = False) -> Tensor:
    from engine import linalg

    return linalg.torch_cholesky(input, upper)


def lu(A: Tensor, pivot: bool = True, get_infos: bool = False, out: Any = None) -> Any:
    from engine import linalg

    return linalg.torch_lu(A, pivot, get_infos)


def lu_solve(input: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:  # noqa: N803
    from engine import linalg

    return linalg.torch_lu_solve(input, LU_data, LU_pivots)


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True,  # noqa: N803
              unpack_pivots: bool = True) -> Any:
    from engine import linalg

    return linalg.lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots)


def _tensor_lu(self: Tensor, pivot: bool = True, get_infos: bool = False) -> tuple:
    from engine import linalg

    return linalg.tensor_lu(self, pivot, get_infos)
