"""torch.* functions and Tensor methods: argument handling in PyTorch's style around the op table."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from engine import grad_mode, messages, observe, ops
from engine.rules import apply
from engine.tensor import Tensor

Number = (int, float, bool)


def as_tensor(x: Any) -> Tensor:
    if isinstance(x, Tensor):
        return x
    from engine.creation import tensor

    return tensor(x)


def _check_broadcast(a: Any, b: Any) -> None:
    if isinstance(a, Tensor) and isinstance(b, Tensor) and a._data.shape != b._data.shape:
        problem = messages.broadcast_mismatch(a._data.shape, b._data.shape)
        if problem:
            raise RuntimeError(problem)


def _binary(rule: Any, a: Any, b: Any, attrs: dict | None = None) -> Tensor:
    if not isinstance(b, (Tensor, *Number)):
        return NotImplemented
    _check_broadcast(a, b)
    return apply(rule, (a, b), attrs)


# --- arithmetic -------------------------------------------------------------------------------
def add(input: Any, other: Any, alpha: Any = 1) -> Tensor:
    if not isinstance(input, Tensor):
        input, other = other, input
    return _binary(ops.ADD, input, other, {"alpha": alpha} if alpha != 1 else None)


def sub(input: Any, other: Any, alpha: Any = 1) -> Tensor:
    if not isinstance(input, Tensor):
        return apply(ops.RSUB, (other,), {"other": input, "alpha": alpha})
    return _binary(ops.SUB, input, other, {"alpha": alpha} if alpha != 1 else None)


def rsub(input: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    if isinstance(other, Tensor):
        return sub(other, input, alpha=alpha)
    return apply(ops.RSUB, (input,), {"other": other, "alpha": alpha} if alpha != 1 else {"other": other})


def mul(input: Any, other: Any) -> Tensor:
    if not isinstance(input, Tensor):
        input, other = other, input
    return _binary(ops.MUL, input, other)


def div(input: Any, other: Any) -> Tensor:
    if not isinstance(input, Tensor):
        # 2 / a is 2 * a.reciprocal() in PyTorch's graph
        return mul(apply(ops.RECIPROCAL, (other,)), input)
    return _binary(ops.DIV, input, other)


def neg(input: Tensor) -> Tensor:
    return apply(ops.NEG, (input,))


def pow(input: Any, exponent: Any) -> Tensor:  # noqa: A001 - PyTorch's name
    if not isinstance(input, Tensor):
        return apply(ops.RPOW, (input, exponent))
    if isinstance(exponent, Tensor):
        _check_broadcast(input, exponent)
        return apply(ops.POW_TENSOR, (input, exponent))
    return apply(ops.POW, (input,), {"exponent": exponent})


def square(input: Tensor) -> Tensor:
    return pow(input, 2)


def reciprocal(input: Tensor) -> Tensor:
    return apply(ops.RECIPROCAL, (input,))


def _unary(rule: Any) -> Any:
    def fn(input: Tensor) -> Tensor:
        return apply(rule, (as_tensor(input),))

    fn.__name__ = rule.name
    return fn


exp = _unary(ops.EXP)
log = _unary(ops.LOG)
sin = _unary(ops.SIN)
cos = _unary(ops.COS)
tanh = _unary(ops.TANH)
sigmoid = _unary(ops.SIGMOID)
relu = _unary(ops.RELU)
sqrt = _unary(ops.SQRT)
abs = _unary(ops.ABS)  # noqa: A001


def sign(input: Tensor) -> Tensor:
    return _constant(np.sign(input._data))


def _constant(array: np.ndarray) -> Tensor:
    """A result that carries no gradient (comparisons, sign, argmax...)."""
    t = Tensor._make(np.asarray(array))
    if observe.current is not None:
        observe.current.tensor_created(t, None)
    return t


def where(condition: Any, input: Any, other: Any) -> Tensor:
    cond = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    a = input._data if isinstance(input, Tensor) else input
    b = other._data if isinstance(other, Tensor) else other
    if not (isinstance(input, Tensor) and input._requires_grad) and not (
        isinstance(other, Tensor) and other._requires_grad
    ):
        return _constant(np.where(cond, a, b).astype(np.result_type(a, b), copy=False))
    zero_a = input if isinstance(input, Tensor) else input
    return zero_a * Tensor._make(cond.astype(_dtype_of(input, other))) + other * Tensor._make(
        (~cond).astype(_dtype_of(input, other))
    )


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
def _dims(dim: Any) -> Any:
    if isinstance(dim, (list, tuple)):
        return tuple(dim)
    return dim


def sum(input: Tensor, dim: Any = None, keepdim: bool = False, *, axis: Any = None,  # noqa: A001
        keepdims: Any = None, dtype: Any = None) -> Tensor:
    dim = axis if dim is None else dim
    keepdim = keepdims if keepdims is not None else keepdim
    if dim is None:
        return apply(ops.SUM, (input,))
    return apply(ops.SUM_DIM, (input,), {"dim": _dims(dim), "keepdim": keepdim})


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
    return apply(ops.MEAN_DIM, (input,), {"dim": _dims(dim), "keepdim": keepdim})


def sum_to_size(input: Tensor, *size: Any) -> Tensor:
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
    if tuple(input._data.shape) == shape:
        return input
    lead = input._data.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(
        i + lead for i, d in enumerate(shape) if d == 1 and input._data.shape[i + lead] != 1
    )
    out = sum(input, dims, keepdim=True) if dims else input
    return out.view(shape) if lead else out


# --- matrix products --------------------------------------------------------------------------
def matmul(input: Tensor, other: Tensor) -> Tensor:
    a, b = input._data.ndim, other._data.ndim
    if a == 2 and b == 2:
        return mm(input, other)
    if a == 1 and b == 1:
        return dot(input, other)
    if a == 2 and b == 1:
        return apply(ops.MV, (input, other))
    if a == 1 and b == 2:
        return mm(input.unsqueeze(0), other).squeeze(0)
    raise NotImplementedError("batched matmul is not supported yet")


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    if input._data.shape[1] != mat2._data.shape[0]:
        s1, s2 = input._data.shape, mat2._data.shape
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({s1[0]}x{s1[1]} and {s2[0]}x{s2[1]})"
        )
    return apply(ops.MM, (input, mat2))


def dot(input: Tensor, tensor: Tensor) -> Tensor:
    return apply(ops.DOT, (input, tensor))


# --- shapes -----------------------------------------------------------------------------------
def _size_args(size: Sequence) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(size)


def view(input: Tensor, *size: Any) -> Tensor:
    return apply(ops.VIEW, (input,), {"size": _size_args(size)})


def reshape(input: Tensor, *size: Any) -> Tensor:
    return apply(ops.VIEW, (input,), {"size": _size_args(size)})


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    shape = input._data.shape
    if not shape:
        return reshape(input, 1)
    start, end = start_dim % len(shape), end_dim % len(shape)
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
    return apply(ops.TRANSPOSE, (input,), {"dim0": dim0, "dim1": dim1})


def permute(input: Tensor, *dims: Any) -> Tensor:
    return apply(ops.PERMUTE, (input,), {"dims": _size_args(dims)})


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    return apply(ops.UNSQUEEZE, (input,), {"dim": dim % (input._data.ndim + 1)})


def squeeze(input: Tensor, dim: Any = None) -> Tensor:
    if dim is None:
        return apply(ops.SQUEEZE, (input,))
    return apply(ops.SQUEEZE_DIM, (input,), {"dim": dim % max(input._data.ndim, 1)})


def clone(input: Tensor) -> Tensor:
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
    """Apply `rule` and write the result into `self`, rebasing its grad_fn like PyTorch."""
    self._check_inplace()
    tracked = grad_mode.state.enabled and (
        self._requires_grad or any(isinstance(o, Tensor) and o._requires_grad for o in others)
    )
    if not tracked:
        arrays = [o._data if isinstance(o, Tensor) else o for o in others]
        out = rule.forward(self._data, *arrays, **(attrs or {}))
        np.copyto(self._data, out, casting="unsafe")
        self._vc[0] += 1
        if observe.current is not None:
            observe.current.inplace_applied(self, None)
        return self
    # The node sees the old value of self as its input: a snapshot that shares the old grad_fn.
    before = Tensor._make(self._data.copy(), self.grad_fn, [0])
    before._requires_grad = self._requires_grad
    before._output_nr = self._output_nr
    with _quiet():
        out = apply(rule, (before, *others), attrs)
    np.copyto(self._data, out._data, casting="unsafe")
    self._vc[0] += 1
    node = out.grad_fn
    self.grad_fn = node
    self._requires_grad = True
    self._output_nr = 0
    if node is not None and node._saved and "result" in node._saved:
        from engine.node import SavedTensor

        node._saved["result"] = SavedTensor(self, True)
    if observe.current is not None:
        observe.current.inplace_applied(self, node)
    return self


class _quiet:
    """Hide the helper apply inside an in-place op from the observer (it reports the op itself)."""

    def __enter__(self) -> None:
        self._prev = observe.current
        observe.current = None

    def __exit__(self, *exc: Any) -> None:
        observe.current = self._prev


def zero_(self: Tensor) -> Tensor:
    self._check_inplace()
    if grad_mode.state.enabled and self._requires_grad:
        return _inplace(self, ops.MUL, (0,))
    self._data[...] = 0
    self._vc[0] += 1
    if observe.current is not None:
        observe.current.inplace_applied(self, None)
    return self


def fill_(self: Tensor, value: Any) -> Tensor:
    self._check_inplace()
    self._data[...] = value
    self._vc[0] += 1
    if observe.current is not None:
        observe.current.inplace_applied(self, None)
    return self


def setitem(self: Tensor, key: Any, value: Any) -> None:
    key = _index_key(key)
    self._check_inplace()
    v = value._data if isinstance(value, Tensor) else value
    if grad_mode.state.enabled and (
        self._requires_grad or (isinstance(value, Tensor) and value._requires_grad)
    ):
        raise NotImplementedError("index assignment on tensors that require grad is not supported yet")
    self._data[key] = v
    self._vc[0] += 1
    if observe.current is not None:
        observe.current.inplace_applied(self, None)


def _index_key(key: Any) -> Any:
    if isinstance(key, Tensor):
        return key._data
    if isinstance(key, tuple):
        return tuple(k._data if isinstance(k, Tensor) else k for k in key)
    return key


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
    def mT(a: Any) -> Any:  # noqa: N802
        return transpose(a, -1, -2)

    @staticmethod
    def permute(a: Any, dims: tuple) -> Any:
        return permute(a, dims)

    @staticmethod
    def sum(a: Any, dim: Any = None, keepdim: bool = False) -> Any:
        return sum(a, dim, keepdim)
