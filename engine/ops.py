"""The op table: every differentiable primitive, its forward, its gradients and their formulas.

Vocabulary in every rule: `grad` is the gradient arriving from above, `result` the op's output,
inputs keep PyTorch's names (`self`, `other`, `mat2`...). A gradient function's parameters after
`(F, g)` name what it reads, and so what the node saves (see engine/rules.py). Gradients may be
returned in the broadcast shape: the engine sums them back to each input's shape in one place.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Sequence

import numpy as np

from engine import conv, dtypes, messages
from engine.creation import copy_like
from engine import special_kernels as special
from engine.rules import ArrayMath, Rule, kernel_gradient

TABLE: dict[str, Rule] = {}


def rule(name: str, node: str, forward: Any, grads: tuple, formulas: tuple, **options: Any) -> Rule:
    r = Rule(name, node, forward, grads, formulas, **options)
    if r.node_cls.rule is not r:  # one rule per node class: a second would run the first's gradients
        raise ValueError(f"node name {node} of rule {name!r} is taken by rule {r.node_cls.rule.name!r}")
    TABLE[name] = r
    return r


def _unsqueeze_reduced(F: Any, g: Any, dim: Any, keepdim: bool, ndim: int) -> Any:
    """Put back the dimensions a reduction over `dim` removed, so `g` broadcasts to the input."""
    if keepdim or dim is None or ndim == 0:
        return g
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return F.unsqueeze_dims(g, tuple(sorted(d % ndim for d in dims)))


def _pow_grad(F: Any, g: Any, exponent: Any, self: Any) -> Any:
    # PyTorch's pow_backward: grad * (exponent * self.pow(exponent - 1)), with the scalar product
    # as its own mul.Scalar node (MulBackward1) under create_graph.
    if exponent == 0:
        return F.zeros_like(self)
    power = _float_power_kernel(self, exponent - 1) if F is ArrayMath else self ** (exponent - 1)
    return g * F.op("mul_scalar", power, other=exponent)


def _via64(fn: Any) -> Any:
    """Run a float32 transcendental in float64 and round once: closer to torch's kernels than
    NumPy's float32 loops (most results then match torch bit for bit). Big arrays keep float32."""

    def forward(a: Any) -> Any:
        if type(a) is np.ndarray and a.dtype == np.float32 and a.size <= 65536:
            return fn(a.astype(np.float64)).astype(np.float32)
        return fn(a)

    forward.__name__ = fn.__name__
    return forward


# --- elementwise arithmetic ---------------------------------------------------------------------
BINARY = ("self", "other")

def _times_alpha(a: Any, b: Any, alpha: Any) -> Any:
    """alpha * b for add/sub; Python ints whose product leaves int64 wrap around in an integer op, as in PyTorch."""
    p = alpha * b
    if type(p) is int and not -2 ** 63 <= p < 2 ** 63 and a.dtype.kind in "iu":
        p = (p + 2 ** 63) % 2 ** 64 - 2 ** 63
    return p


ADD = rule("add", "AddBackward0", lambda a, b, alpha=1: a + b if alpha == 1 else a + _times_alpha(a, b, alpha),
           (lambda F, g: g, lambda F, g, alpha: g if alpha == 1 else g * alpha),
           ("grad", "grad * alpha"), inputs=BINARY, elementwise=True, defaults={"alpha": 1},
           scalar=operator.add, promotes=True)
SUB = rule("sub", "SubBackward0", lambda a, b, alpha=1: a - b if alpha == 1 else a - _times_alpha(a, b, alpha),
           (lambda F, g: g, lambda F, g, alpha: -g if alpha == 1 else -g * alpha),
           ("grad", "-grad * alpha"), inputs=BINARY, elementwise=True, defaults={"alpha": 1},
           scalar=operator.sub, promotes=True)
RSUB = rule("rsub", "RsubBackward1", lambda a, other, alpha=1: other - alpha * a,
            (lambda F, g, alpha: -g if alpha == 1 else -g * alpha,),
            ("-grad * alpha",), elementwise=True, defaults={"alpha": 1})
MUL = rule("mul", "MulBackward0", np.multiply,
           (lambda F, g, other: g * other, lambda F, g, self: g * self),
           ("grad * other", "grad * self"), inputs=BINARY, elementwise=True, scalar=operator.mul,
           promotes=True)
def _div_self_grad(F: Any, g: Any, other: Any) -> Any:
    return g / other


def _div_other_grad(F: Any, g: Any, self: Any, other: Any) -> Any:
    # PyTorch's -grad * ((self / other) / other), rounded the same way
    return -g * ((self / other) / other)


DIV = rule("div", "DivBackward0", np.true_divide, (_div_self_grad, _div_other_grad),
           ("grad / other", "-grad * self / other²"), inputs=BINARY, elementwise=True,
           scalar=operator.truediv, promotes=True)


def _div_rounded(a: Any, b: Any, rounding_mode: Any = None) -> Any:
    """div with rounding_mode: 'trunc' rounds toward zero, 'floor' down (Python's // on floats,
    exact on integers); None is true division."""
    if rounding_mode is None:
        return np.true_divide(a, b)
    if np.result_type(a, b).kind in "biu":
        q = np.floor_divide(a, b)
        if rounding_mode == "trunc":  # floor rounds negative inexact quotients one further
            q = q + ((np.remainder(a, b) != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0)))
        return q
    if rounding_mode == "trunc":
        return np.trunc(np.true_divide(a, b))
    return np.floor_divide(a, b)


# div(..., rounding_mode=...): a rounded quotient has zero gradient; without rounding, div's own.
DIV_MODE = rule("div_mode", "DivBackward2", _div_rounded,
                (lambda F, g, other, rounding_mode: _div_self_grad(F, g, other) if rounding_mode is None
                 else F.zeros_like(g),
                 lambda F, g, self, other, rounding_mode: _div_other_grad(F, g, self, other)
                 if rounding_mode is None else F.zeros_like(g)),
                ("grad / other (0 when rounded)", "-grad * self / other² (0 when rounded)"), inputs=BINARY,
                elementwise=True, extra_saves=("self", "other", "rounding_mode"), defaults={"rounding_mode": None},
                promotes=True)
MUL_SCALAR = rule("mul_scalar", "MulBackward1", lambda a, other: a * other,
                  # mul.Scalar again under create_graph (MulBackward1), as in PyTorch
                  (lambda F, g, other: g * other if F is ArrayMath else F.op("mul_scalar", g, other=other),),
                  ("grad * other",), elementwise=True, extra_saves=("other",))
# add.Scalar: what PyTorch's C++ formulas record for `tensor + number` (Python's `+` records add.Tensor).
ADD_SCALAR = rule("add_scalar", "AddBackward1", lambda a, other: a + other, (lambda F, g: g,), ("grad",),
                  elementwise=True)
# sub.Scalar and div.Scalar: what PyTorch's C++ formulas record for `tensor - number` and
# `tensor / number` (Python's operators record sub.Tensor and div.Tensor).
SUB_SCALAR = rule("sub_scalar", "SubBackward1", lambda a, other: a - other, (lambda F, g: g,), ("grad",),
                  elementwise=True)
DIV_SCALAR = rule("div_scalar", "DivBackward1", lambda a, other: a / other,
                  (lambda F, g, other: g / other if F is ArrayMath else F.op("div_scalar", g, other=other),),
                  ("grad / other",), elementwise=True, extra_saves=("other",))
NEG = rule("neg", "NegBackward0", np.negative, (lambda F, g: -g,), ("-grad",), elementwise=True,
           scalar=operator.neg)
def _pow_scalar(a: Any, exponent: Any) -> Any:
    if isinstance(exponent, int) and exponent < 0 and np.asarray(a).dtype.kind in "biu":
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if type(exponent) is bool and np.asarray(a).dtype.kind == "b":  # bool ** bool stays bool in PyTorch
        return np.array(a, copy=True) if exponent else np.ones_like(a)
    if type(exponent) is int and np.asarray(a).dtype.kind == "b":
        a = np.asarray(a, np.int64)  # bool ** int is int64 in PyTorch (NumPy would say int8)
    return _float_power_kernel(a, exponent)


def _float_power_kernel(a: Any, exponent: Any) -> Any:
    """a ** exponent (a number) rounded as PyTorch's CPU kernels round it for float32/float64:
    x*x*x for 3, 1/(x*x) for -2, 1/sqrt(x) for -0.5, other non-trivial powers of float32 in
    double precision then rounded once (NumPy's float32 pow loop is off by an ulp in ~10% of cases)."""
    dtype = getattr(a, "dtype", None)
    if (dtype is not _F32 and dtype is not _F64) or type(exponent) not in (int, float):
        return a ** exponent
    if exponent == 3:
        return a * a * a
    if exponent == -2:
        return 1 / (a * a)
    if exponent == -0.5:
        return 1 / np.sqrt(a)
    if dtype is _F32 and exponent not in (0, 1, 2, 0.5, -1):
        wide = (np.float64(a) if type(a) is np.float32 else a.astype(np.float64)) ** exponent
        return np.float32(wide) if type(wide) is np.float64 else wide.astype(np.float32)
    return a ** exponent


def _power(a: Any, b: Any) -> Any:
    """np.power, with PyTorch's integer powers for negative integer exponents (NumPy refuses
    them): 1 for base 1, ±1 for base -1, else 0."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind in "iu" and b.dtype.kind in "iu" and (b < 0).any():
        out = np.power(a, np.maximum(b, 0))
        odd = (b % 2) != 0
        small = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0)).astype(out.dtype)
        return np.where(b < 0, small, out)
    return np.power(a, b)


POW = rule("pow", "PowBackward0", _pow_scalar, (_pow_grad,),
           ("grad * exponent * self^(exponent - 1)",), elementwise=True, extra_saves=("exponent",))
# As in PyTorch, a zero exponent sends 0 to the base, and a zero base with exponent >= 0 sends 0
# to the exponent (0^x is flat there, though result * log(0) would say -inf or nan).
POW_TENSOR = rule(
    "pow_tensor", "PowBackward1", _power,
    (lambda F, g, exponent, self: F.where(exponent == 0, 0.0, g * exponent * self ** (exponent - 1)),
     lambda F, g, result, self, exponent: g * F.where((self == 0) & (exponent >= 0), 0.0, result * F.log(self))),
    ("grad * exponent * self^(exponent - 1)", "grad * result * log(self)"),
    inputs=("self", "exponent"), elementwise=True, promotes=True)
RPOW = rule("rpow", "PowBackward2", lambda exponent, self: _power(self, exponent),
            (lambda F, g, result, self, exponent: g * result * float(np.log(self)) if self != 0
             else g * F.where(exponent >= 0, 0.0, result * float(np.log(self))),),
            ("grad * result * log(self)",), inputs=("exponent",), elementwise=True,
            extra_saves=("self", "exponent"))


def _reciprocal(a: Any) -> Any:
    """1 / a; integers and booleans in float32, as PyTorch promotes them (NumPy's keeps integers)."""
    kind = np.asarray(a).dtype.kind
    if kind in "biu":
        return np.reciprocal(np.asarray(a, np.float32))
    if kind == "c":
        return 1 / a  # NumPy's complex division, as PyTorch's (np.reciprocal rounds differently)
    return np.reciprocal(a)


RECIPROCAL = rule("reciprocal", "ReciprocalBackward0", _reciprocal,
                  (lambda F, g, result: -g * result * result,), ("-grad * result²",), elementwise=True,
                  scalar=lambda a: 1.0 / a)

# --- unary math and activations -----------------------------------------------------------------
EXP = rule("exp", "ExpBackward0", _via64(np.exp), (lambda F, g, result: g * result,), ("grad * result",),
           elementwise=True, scalar=math.exp)
LOG = rule("log", "LogBackward0", _via64(np.log), (lambda F, g, self: g / self,), ("grad / self",),
           elementwise=True, scalar=math.log)
SIN = rule("sin", "SinBackward0", _via64(np.sin), (lambda F, g, self: g * F.cos(self),), ("grad * cos(self)",),
           elementwise=True, scalar=math.sin)
COS = rule("cos", "CosBackward0", _via64(np.cos), (lambda F, g, self: -g * F.sin(self),),
           ("-grad * sin(self)",), elementwise=True, scalar=math.cos)
# Gradients that PyTorch computes with one of its backward ops (tanh_backward...) call it as
# F.<name>: the NumPy kernel under a plain backward, one node under create_graph (see
# backward_function below).
def _tanh_grad(F: Any, g: Any, result: Any) -> Any:
    """tanh_backward(grad, result). Written out for ArrayMath rather than called as F.tanh_backward:
    tanh runs on the 0-d fast path, where one more Python call is a visible share of its backward."""
    if F is not ArrayMath:
        return F.tanh_backward(g, result)
    return g * (1 - result * result)


def _not_for(kinds: str, kernel: str, forward: Any) -> Any:
    """`forward`, refusing arrays of the dtype kinds PyTorch's CPU kernel `kernel` has no version for
    ("b" bool, "i" / "u" integers) with its NotImplementedError."""

    def checked(a: Any, *args: Any, **kwargs: Any) -> Any:
        kind = np.asarray(a).dtype.kind
        if kind in kinds:
            from engine.dtypes import from_numpy

            raise NotImplementedError(f'"{kernel}" not implemented for \'{from_numpy(a.dtype).legacy}\'')
        return forward(a, *args, **kwargs)

    return checked


def _relu(a: Any) -> Any:
    if np.asarray(a).dtype.kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    return np.maximum(a, 0)


def _sigmoid(a: Any) -> Any:
    if np.asarray(a).dtype.kind == "b":
        a = a.astype(np.float32)
    return 1 / (1 + np.exp(-a))


def _sign(a: Any) -> Any:
    return a.copy() if np.asarray(a).dtype.kind == "b" else np.sign(a)


TANH = rule("tanh", "TanhBackward0", _via64(np.tanh), (_tanh_grad,),
            ("grad * (1 - result²)",), elementwise=True, scalar=math.tanh)
SIGMOID = rule("sigmoid", "SigmoidBackward0", _sigmoid,
               (lambda F, g, result: F.sigmoid_backward(g, result),), ("grad * result * (1 - result)",),
               elementwise=True)
RELU = rule("relu", "ReluBackward0", _relu,
            (lambda F, g, result: F.threshold_backward(g, result, threshold=0),), ("grad * (result > 0)",),
            elementwise=True)
SQRT = rule("sqrt", "SqrtBackward0", np.sqrt, (lambda F, g, result: g / (2 * result),),
            ("grad / (2 * result)",), elementwise=True, scalar=math.sqrt)
ABS = rule("abs", "AbsBackward0", _not_for("b", "abs_cpu", np.abs),
           (lambda F, g, self: g * (F.sign(self) if F is ArrayMath else F.op("sgn", self)),),
           ("grad * sign(self)",), elementwise=True, scalar=abs)

# --- reductions ---------------------------------------------------------------------------------
def reduction_axes(dim: Any, ndim: int) -> Any:
    """NumPy's axis for a reduction over `dim`: none at all for dim 0 or -1 of a 0-d tensor (nothing to reduce)."""
    return () if dim is not None and not ndim else dim


def _int_acc(a: Any) -> Any:
    """The dtype an integer sum/product/scan keeps: NumPy would widen int8..int32 and uint8 to (u)int64;
    PyTorch computes in the tensor's own dtype (callers convert to int64 first unless dtype= is given)."""
    dt = a.dtype if type(a) is np.ndarray else np.asarray(a).dtype  # (every sum passes here: no asarray call)
    return dt if dt.kind in "iu" else None


def _sum(a: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    """np.sum without its Python layers: the same ufunc reduction (in `dtype` if given)."""
    if dtype is not None:
        a = np.asarray(a).astype(dtype)
    return np.add.reduce(a, reduction_axes(dim, np.ndim(a)), _int_acc(a), None, keepdim)


def _mean(a: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    """np.mean without its Python layers for float32 and float64 arrays: the same sum, then the
    same division by the count (as an intp, like NumPy). In `dtype` if given."""
    if dtype is not None:
        a = np.asarray(a).astype(dtype)
    dim = reduction_axes(dim, np.ndim(a))
    dtype = getattr(a, "dtype", None)
    if type(a) is np.ndarray and not a.size:  # nan (0 / 0) without NumPy's "Mean of empty slice"
        return np.true_divide(np.add.reduce(a, dim, None, None, keepdim), 0)
    if type(a) is not np.ndarray or (dtype is not _F32 and dtype is not _F64):
        return np.mean(a, axis=dim, keepdims=keepdim)
    total = np.add.reduce(a, dim, None, None, keepdim)
    count = a.size if dim is None else math.prod([a.shape[d] for d in ((dim,) if type(dim) is int else dim)])
    if type(total) is np.ndarray:
        return np.true_divide(total, np.intp(count), out=total, casting="unsafe")
    return total.dtype.type(total / np.intp(count))


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)

# exact_dtype: the reductions keep their input's dtype, or compute in the one asked for (dtype=)
SUM = rule("sum", "SumBackward0", _sum,
           (lambda F, g, self_sym_sizes: F.expand(g, self_sym_sizes),), ("grad expanded to self's shape",),
           exact_dtype=True)
SUM_DIM = rule(
    "sum_dim", "SumBackward1", _sum,
    (lambda F, g, dim, keepdim, self_sym_sizes: F.expand(
        _unsqueeze_reduced(F, g, dim, keepdim, len(self_sym_sizes)), self_sym_sizes),),
    ("grad expanded along dim",), defaults={"keepdim": False}, exact_dtype=True)
MEAN = rule("mean", "MeanBackward0", _mean,
            (lambda F, g, self_sym_numel, self_sym_sizes: F.expand(g / self_sym_numel, self_sym_sizes)
             if F is ArrayMath else F.op("div_scalar", F.expand(g, self_sym_sizes), other=self_sym_numel),),
            ("grad / numel, expanded to self's shape",), exact_dtype=True)
MEAN_DIM = rule(
    "mean_dim", "MeanBackward1", _mean,
    (lambda F, g, dim, keepdim, self_sym_numel, self_sym_sizes: F.expand(
        _unsqueeze_reduced(F, g, dim, keepdim, len(self_sym_sizes)), self_sym_sizes)
        * (float(_count(tuple(self_sym_sizes), dim))
           ** -1) if F is ArrayMath else F.op(
        "div_scalar", F.expand(_unsqueeze_reduced(F, g, dim, keepdim, len(self_sym_sizes)), self_sym_sizes),
        other=int(_count(tuple(self_sym_sizes), dim))),),
    ("grad / n, expanded along dim",), defaults={"keepdim": False}, exact_dtype=True)

# --- matrix products ----------------------------------------------------------------------------
def _column_major(sizes: tuple, strides: tuple) -> bool:
    return strides[0] == 1 and strides[1] == sizes[0]


def _mm_mat1_grad(F: Any, g: Any, mat2: Any, self_sym_sizes: tuple, self_sym_strides: tuple) -> Any:
    """mm_mat1_backward: grad @ mat2ᵀ, computed as (mat2 @ gradᵀ)ᵀ for a column-major self."""
    if _column_major(self_sym_sizes, self_sym_strides):
        return F.t(mat2 @ F.t(g))
    return g @ F.t(mat2)


def _mm_mat2_grad(F: Any, g: Any, self: Any, mat2_sym_sizes: tuple, mat2_sym_strides: tuple) -> Any:
    """mm_mat2_backward: selfᵀ @ grad, computed as (gradᵀ @ self)ᵀ for a column-major mat2."""
    if _column_major(mat2_sym_sizes, mat2_sym_strides):
        return F.t(F.t(g) @ self)
    return F.t(self) @ g


MM = rule("mm", "MmBackward0", np.matmul, (_mm_mat1_grad, _mm_mat2_grad), ("grad @ mat2ᵀ", "selfᵀ @ grad"),
          inputs=("self", "mat2"))
MV = rule("mv", "MvBackward0", np.matmul,
          (lambda F, g, vec: F.reshape(g, (-1, 1)) * vec, lambda F, g, self: F.mT(self) @ g),
          ("outer(grad, vec)", "selfᵀ @ grad"), inputs=("self", "vec"))
DOT = rule("dot", "DotBackward0", np.dot,
           (lambda F, g, tensor: g * tensor, lambda F, g, self: g * self),
           ("grad * tensor", "grad * self"), inputs=("self", "tensor"))

# --- shapes and views ---------------------------------------------------------------------------
VIEW = rule("view", "ViewBackward0", lambda a, size: np.reshape(a, size),
            (lambda F, g, self_sym_sizes: F.reshape(g, self_sym_sizes),), ("grad reshaped to self",),
            view=True)
RESHAPE_ALIAS = rule("reshape_alias", "ReshapeAliasBackward0", lambda a, size: np.reshape(a, size),
                     (lambda F, g, self_sym_sizes: F.reshape(g, self_sym_sizes),), ("grad reshaped to self",),
                     view=True)
def _expand(a: Any, size: tuple) -> Any:
    """np.broadcast_to, writable when `a` is: as in PyTorch, writing one element of an expanded
    tensor writes its base (in-place ops refuse to write through repeated elements)."""
    out = np.broadcast_to(a, size)
    if type(a) is np.ndarray and a.flags.writeable:
        out = np.lib.stride_tricks.as_strided(a, out.shape, out.strides)
    return out


EXPAND = rule("expand", "ExpandBackward0", _expand,
              (lambda F, g: g,), ("grad summed back to self's shape",), extra_saves=("self_sym_sizes",),
              view=True)
T = rule("t", "TBackward0", lambda a: a.T, (lambda F, g: F.t(g) if np.ndim(F.raw(g)) == 2 else g,),
         ("gradᵀ",),
         view=True)
TRANSPOSE = rule("transpose", "TransposeBackward0", lambda a, dim0, dim1: np.swapaxes(a, dim0, dim1),
                 (lambda F, g, dim0, dim1: F.op("transpose", g, dim0=dim0, dim1=dim1)
                  if F is not ArrayMath else F.permute(g, _swap(np.ndim(g), dim0, dim1)),),
                 ("grad transposed back",), view=True)
PERMUTE = rule("permute", "PermuteBackward0", lambda a, dims: np.transpose(a, dims),
               (lambda F, g, dims: F.permute(g, tuple(np.argsort([d % len(dims) for d in dims]))),),
               ("grad permuted back",), view=True)
UNSQUEEZE = rule("unsqueeze", "UnsqueezeBackward0", lambda a, dim: np.expand_dims(a, dim),
                 (lambda F, g, dim: F.squeeze_dim(g, dim),), ("grad squeezed at dim",), view=True)
SQUEEZE = rule("squeeze", "SqueezeBackward0", lambda a: np.squeeze(a),
               (lambda F, g, self_sym_sizes: _unsqueeze_to(F, g, self_sym_sizes),),
               ("grad unsqueezed back to self",), view=True)
SQUEEZE_DIM = rule("squeeze_dim", "SqueezeBackward1", lambda a, dim: np.squeeze(a, dim)
                   if a.ndim and a.shape[dim] == 1 else a,
                   (lambda F, g, dim, self_sym_sizes: _unsqueeze_to(F, g, self_sym_sizes, (dim,)),),
                   ("grad unsqueezed back to self",), view=True)
CLONE = rule("clone", "CloneBackward0",
             copy_like,
             (lambda F, g: g,), ("grad",), elementwise=True)


def _swap(ndim: int, dim0: int, dim1: int) -> tuple[int, ...]:
    order = list(range(ndim))
    order[dim0], order[dim1] = order[dim1], order[dim0]
    return tuple(order)


# =================================================================================================
# Helpers shared by the rules below (forward on arrays; gradients through `F`).
# =================================================================================================
INT64_MAX = 9223372036854775807
_SQRT2 = 1.4142135623730951
_SQRT_2_OVER_PI = 0.7978845608028654
_INV_SQRT_2PI = 0.3989422804014327
_erf_scalar = np.frompyfunc(__import__("math").erf, 1, 1)


def erf_array(a: Any) -> Any:
    """erf on an array (NumPy has none); keeps the input's float dtype."""
    a = np.asarray(a)
    return np.asarray(_erf_scalar(a)).astype(a.dtype if a.dtype.kind == "f" else np.float32)  # 0-d: a float


def _tuple_dims(dim: Any, ndim: int) -> tuple[int, ...]:
    if dim is None:
        return tuple(range(ndim))
    if ndim == 0:  # dim 0 or -1 of a 0-d tensor: no axis to reduce
        return ()
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return tuple(d % ndim for d in dims)


def _unsq(F: Any, g: Any, dim: Any, keepdim: bool, ndim: int) -> Any:
    """Put back reduced dimensions (dim None means all of them)."""
    if keepdim or ndim == 0:
        return g
    if dim is None:
        return F.reshape(g, (1,) * ndim)
    return F.unsqueeze_dims(g, tuple(sorted(_tuple_dims(dim, ndim))))


def _count(shape: tuple, dim: Any) -> int:
    return int(np.prod([shape[d] for d in _tuple_dims(dim, len(shape))])) if shape else 1


def _key(dim: int, index: Any) -> tuple:
    """The NumPy key for `index` along `dim`; a negative dim (kept as given, as PyTorch's nodes
    keep it) counts from the end."""
    if dim < 0:
        return (Ellipsis, index) + (slice(None),) * (-dim - 1)
    return (slice(None),) * dim + (index,)


def _select_backward(g: Any, dim: int, index: int, self_sym_sizes: tuple) -> Any:
    out = np.zeros(self_sym_sizes, np.asarray(g).dtype)
    out[_key(dim, index)] = g
    return out


def _slice_backward(g: Any, dim: int, start: int, end: int, step: int, self_sym_sizes: tuple) -> Any:
    out = np.zeros(self_sym_sizes, np.asarray(g).dtype)
    out[_key(dim, slice(start, end, step))] = g
    return out


def _index_key(indices: tuple) -> tuple:
    return tuple(slice(None) if i is None else i for i in indices)


def _index_backward(g: Any, indices: tuple, self_sym_sizes: tuple) -> Any:
    out = np.zeros(self_sym_sizes, np.asarray(g).dtype)
    np.add.at(out, _index_key(indices), g)
    return out


def _gather_index(index: np.ndarray, dim: int) -> tuple:
    grid = list(np.indices(index.shape, sparse=True))
    grid[dim] = index
    return tuple(grid)


def _gather_backward(F: Any, g: Any, dim: int, index: Any, sizes: tuple) -> Any:
    """PyTorch's gather backward: zeros(sizes).scatter_add(dim, index, grad), a ScatterAddBackward0
    node under create_graph."""
    zeros = np.zeros(sizes, np.asarray(F.raw(g)).dtype)
    if F is ArrayMath:
        np.add.at(zeros, _gather_index(np.asarray(index), dim), g)
        return zeros
    return F.op("scatter_add", zeros, g, dim=dim, index=index)


def _split_sizes(n: int, split_size: int) -> list[int]:
    if split_size == 0:
        return [0]
    return [min(split_size, n - i) for i in range(0, n, split_size)] or [0]


def _split(a: Any, dim: int, sizes: Sequence[int]) -> tuple:
    out, start = [], 0
    for s in sizes:
        out.append(a[_key(dim, slice(start, start + s))])
        start += s
    return tuple(out)


def _reduce_dim_keep(a: Any, fn: Any, dim: Any, keepdim: bool) -> Any:
    return fn(a, axis=None if dim is None else _tuple_dims(dim, a.ndim), keepdims=keepdim)


def _wide(a: np.ndarray) -> np.ndarray:
    """float32 data as float64: PyTorch's CPU var, std, cumsum and cumprod accumulate in double
    and round once (so computing in float64 matches them bit for bit)."""
    return a.astype(np.float64) if a.dtype == _F32 else a


def _var(a: Any, dim: Any = None, correction: Any = None, keepdim: bool = False, root: bool = False) -> Any:
    c = 1 if correction is None else correction
    axis = None if dim is None else _tuple_dims(dim, a.ndim)
    n = _count(a.shape, dim)
    x = _wide(a)
    mean = _mean(x, axis, True)
    d = x - mean
    if d.dtype.kind == "c":  # |x - mean|², real
        out = np.sum(d.real ** 2 + d.imag ** 2, axis=axis, keepdims=keepdim) / max(n - c, 0)
        return (np.sqrt(out) if root else out).astype(a.real.dtype)
    out = np.sum(d ** 2, axis=axis, keepdims=keepdim) / max(n - c, 0)
    return (np.sqrt(out) if root else out).astype(a.dtype)


def _max_split_even(F: Any, g: Any, self: Any, result: Any, dim: Any = None, keepdim: bool = False) -> Any:
    """Gradient of a value-picking reduction that splits ties evenly (max(), amax...)."""
    ndim = len(np.shape(F.raw(self)))
    r = _unsq(F, result, dim, keepdim, ndim)
    mask = self == r
    counts = F.sum(mask * 1.0, None if dim is None else _tuple_dims(dim, ndim), True) if dim is not None \
        else F.sum(mask * 1.0)
    return _unsq(F, g, dim, keepdim, ndim) * mask / counts


def _value_selecting_backward(F: Any, g: Any, dim: int, indices: Any, keepdim: bool, sizes: tuple) -> Any:
    """PyTorch's value_selecting_reduction_backward: grad scattered into zeros at the indices
    (max(dim), sort, topk...); a ScatterBackward0 node under create_graph."""
    if not len(sizes):
        return g  # a 0-d input: its one element was picked
    idx = np.asarray(F.raw(indices))
    if not keepdim:
        idx = np.expand_dims(idx, dim)
        g = F.unsqueeze_dims(g, (dim,))
    if F is ArrayMath:
        return _gather_backward(F, g, dim, idx, sizes)
    return F.op("scatter", np.zeros(sizes, np.asarray(F.raw(g)).dtype), g, dim=dim, index=idx)


def _value_at_indices(F: Any, g: Any, dim: int, indices: Any, keepdim: bool, self_sym_sizes: tuple) -> Any:
    """The gradient of a (values, indices) reduction along dim: grad put back at the indices."""
    return _value_selecting_backward(F, g[0], dim, indices, keepdim, self_sym_sizes)


def _prod_grad(F: Any, g: Any, self: Any, result: Any, dim: Any = None, keepdim: bool = False) -> Any:
    ndim = len(np.shape(F.raw(self)))
    if F is not ArrayMath and not (np.asarray(F.raw(self)) == 0).any():
        # PyTorch's prod_backward under create_graph: grad * (result / self), with grad and result
        # unsqueezed along dim (prod.dim_int without keepdim); a 0-d input passes grad through.
        if ndim == 0:
            return g
        if dim is not None and not keepdim:
            d = dim % ndim
            g, result = F.unsqueeze_dims(g, (d,)), F.unsqueeze_dims(result, (d,))
        return g * (result / self)
    gu = _unsq(F, g, dim, keepdim, ndim)
    ru = _unsq(F, result, dim, keepdim, ndim)
    data = np.asarray(F.raw(self))
    if not (data == 0).any():
        return gu * ru / self
    # With zeros present, the product of the other elements (computed without dividing).
    axis = None if dim is None else dim % max(ndim, 1)
    flat = data.reshape(-1) if axis is None else np.moveaxis(data, axis, -1)
    ones = np.ones_like(flat[..., :1])
    left = np.cumprod(np.concatenate([ones, flat[..., :-1]], -1), -1)
    right = np.flip(np.cumprod(np.concatenate([ones, np.flip(flat, -1)[..., :-1]], -1), -1), -1)
    others = left * right
    others = others.reshape(data.shape) if axis is None else np.moveaxis(others, -1, axis)
    return gu * others


def _norm_fwd(a: Any, ord: Any = 2, dim: Any = None, keepdim: bool = False) -> Any:
    axis = None if dim is None else _tuple_dims(dim, a.ndim)
    x = np.abs(a)
    if ord == float("inf"):
        return np.max(x, axis=axis, keepdims=keepdim)
    if ord == float("-inf"):
        return np.min(x, axis=axis, keepdims=keepdim)
    if ord == 0:
        return np.sum(x != 0, axis=axis, keepdims=keepdim).astype(x.dtype)
    if ord == 1:
        return np.sum(x, axis=axis, keepdims=keepdim)
    if ord == 2:
        return np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdim))
    return np.sum(x ** ord, axis=axis, keepdims=keepdim) ** (1.0 / ord)


def _norm_backward(F: Any, g: Any, dim: Any, keepdim: bool, ord: Any, result: Any, self: Any) -> Any:
    """PyTorch's norm_backward (linalg_vector_norm's formula) under create_graph, node for node."""
    x = np.asarray(F.raw(self))
    ndim = x.ndim
    if not keepdim and ndim != 0 and dim is not None:  # unsqueeze_multiple (no dims: unchanged)
        dims = tuple(sorted(_tuple_dims(dim, ndim)))
        g, result = F.unsqueeze_dims(g, dims), F.unsqueeze_dims(result, dims)
    p = float(ord)
    norm_zero = np.asarray(F.raw(result)) == 0
    if p == 0.0:
        return F.zeros_like(self)
    if p == 1.0:
        return F.op("sgn", self) * g
    if p == 2.0:
        return g * F.op("masked_fill", self / result, mask=norm_zero, value=0)
    if math.isinf(p):
        a = np.abs(x)
        mask = (a == np.asarray(F.raw(result))) | np.isnan(a)
        counts = np.sum(mask, axis=None if dim is None else _tuple_dims(dim, ndim), keepdims=True)
        return F.op("sgn", self) * ((g / counts.astype(x.dtype)) * mask.astype(x.dtype))
    if p < 1.0:
        scaled = F.op("sgn", self) * F.op("masked_fill", F.abs(self) ** (p - 1), mask=x == 0, value=0)
        return scaled * g * result ** (1 - p)
    scaled = F.op("sgn", self) * F.abs(self) ** (p - 1) if p < 2.0 else self * F.abs(self) ** (p - 2)
    return scaled * F.op("masked_fill", g / result ** (p - 1), mask=norm_zero, value=0)


def _norm_grad(F: Any, g: Any, dim: Any, keepdim: bool, ord: Any, result: Any, self: Any) -> Any:
    if F is not ArrayMath:
        return _norm_backward(F, g, dim, keepdim, ord, result, self)
    ndim = len(np.shape(F.raw(self)))
    gu = _unsq(F, g, dim, keepdim, ndim)
    ru = _unsq(F, result, dim, keepdim, ndim)
    if ord == 0:
        return F.zeros_like(self)
    if ord == 1:
        return gu * F.sign(self)
    if ord in (float("inf"), float("-inf")):
        mask = F.abs(self) == ru
        counts = F.sum(mask * 1.0, None if dim is None else _tuple_dims(dim, ndim), True) \
            if dim is not None else F.sum(mask * 1.0)
        return gu * F.sign(self) * mask / counts
    if ord == 2:
        return F.where(ru == 0, 0.0, gu * self / ru)
    if ord < 1:  # PyTorch zeroes |x|^(p-1) where x == 0 (it is inf there)
        scaled = F.sign(self) * F.where(self == 0, 0.0, F.abs(self) ** (ord - 1))
        return scaled * gu * ru ** (1 - ord)
    scaled = F.sign(self) * F.abs(self) ** (ord - 1) if ord < 2 else self * F.abs(self) ** (ord - 2)
    return F.where(ru == 0, 0.0, gu * scaled / ru ** (ord - 1))


def _softmax(a: Any, dim: int) -> Any:
    e = np.exp(a - np.max(a, axis=dim, keepdims=True))
    return e / np.sum(e, axis=dim, keepdims=True)


def _log_softmax(a: Any, dim: int) -> Any:
    shifted = a - np.max(a, axis=dim, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=dim, keepdims=True))


def _logsumexp(a: Any, dim: Any, keepdim: bool = False) -> Any:
    axis = _tuple_dims(dim, a.ndim)
    m = np.max(a, axis=axis, keepdims=True) if a.size else np.zeros((1,) * a.ndim, a.dtype)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return out if keepdim else np.squeeze(out, axis)


def _reduce(loss: Any, reduction: int) -> Any:
    if reduction == 1:
        return np.mean(loss)
    if reduction == 2:
        return np.sum(loss)
    return loss


def _reduce_grad(F: Any, g: Any, shape: tuple, reduction: int) -> Any:
    """The upstream gradient of a loss spread over the elements it reduced."""
    if reduction == 1:
        return g * (1.0 / max(int(np.prod(shape)), 1) if shape else 1.0)
    return g


def _huber(d: Any, delta: float) -> Any:
    a = np.abs(d)
    return np.where(a < delta, 0.5 * d * d, delta * (a - 0.5 * delta))


def _smooth_l1(d: Any, beta: float) -> Any:
    if beta == 0:
        return np.abs(d)
    a = np.abs(d)
    return np.where(a < beta, 0.5 * d * d / beta, a - 0.5 * beta)


def _nll(a: Any, target: Any, weight: Any, reduction: int, ignore_index: int) -> tuple:
    """Forward of nll_loss: (loss, total_weight)."""
    a = np.asarray(a)
    target = np.asarray(target)
    squeeze = a.ndim == 1
    if squeeze:
        a, target = a[None], target[None]
    classes = a.shape[1]
    w = np.ones(classes, a.dtype) if weight is None else np.asarray(weight, a.dtype)
    moved = np.moveaxis(a, 1, -1).reshape(-1, classes)
    t = target.reshape(-1)
    valid = t != ignore_index
    safe = np.where(valid, t, 0)
    wt = np.where(valid, w[safe], 0).astype(a.dtype)
    picked = -moved[np.arange(len(t)), safe] * wt
    total = np.asarray(wt.sum(), a.dtype)
    if reduction == 0:
        loss = picked.reshape(target.shape)
        return (loss[0] if squeeze else loss), total
    if reduction == 2:
        return np.asarray(picked.sum(), a.dtype), total
    return np.asarray(picked.sum() / total, a.dtype), total


def _nll_grad(F: Any, g: Any, ignore_index: int, reduction: int, self: Any, target: Any,
              total_weight: Any, weight: Any) -> Any:
    a = np.asarray(F.raw(self))
    t = np.asarray(F.raw(target))
    squeeze = a.ndim == 1
    a2 = a[None] if squeeze else a
    t2 = t[None] if squeeze else t
    classes = a2.shape[1]
    w = np.ones(classes, a.dtype) if weight is None else np.asarray(F.raw(weight), a.dtype)
    valid = t2 != ignore_index
    safe = np.where(valid, t2, 0)
    wt = np.where(valid, w[safe], 0).astype(a.dtype)
    # d loss_i / d self[i, t_i] = -w_{t_i}; one-hot along the class dimension.
    onehot = np.zeros(a2.shape, a.dtype)
    # an ignored target leaves +0 (PyTorch writes nothing there), not -0
    np.put_along_axis(onehot, np.expand_dims(safe, 1), np.expand_dims(np.where(valid, -wt, 0), 1), axis=1)
    if squeeze:
        onehot = onehot[0]
    if reduction == 0:
        return F.unsqueeze_dims(g, (0 if squeeze else 1,)) * onehot if not squeeze else g * onehot
    if reduction == 1:
        total = float(np.asarray(F.raw(total_weight)))
        return g * (onehot / total if total else onehot * 0)
    return g * onehot


def _bce(a: Any, target: Any, weight: Any, reduction: int) -> Any:
    loss = -(target * np.maximum(np.log(a), -100) + (1 - target) * np.maximum(np.log1p(-a), -100))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _bce_logits(a: Any, target: Any, weight: Any, pos_weight: Any, reduction: int) -> Any:
    log_sig = -np.logaddexp(0, -a)
    log_one_minus = -np.logaddexp(0, a)
    if pos_weight is not None:
        loss = -(pos_weight * target * log_sig + (1 - target) * log_one_minus)
    else:
        loss = -(target * log_sig + (1 - target) * log_one_minus)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _gelu(a: Any, approximate: str = "none") -> Any:
    if approximate == "tanh":
        return 0.5 * a * (1 + np.tanh(_SQRT_2_OVER_PI * (a + 0.044715 * a ** 3)))
    return 0.5 * a * (1 + erf_array(a / _SQRT2))


def _gelu_grad(F: Any, g: Any, approximate: str, self: Any) -> Any:
    if approximate == "tanh":
        inner = _SQRT_2_OVER_PI * (self + 0.044715 * self * self * self)
        t = F.tanh(inner)
        left = 0.5 * (1 + t)
        right = 0.5 * self * (1 - t * t) * _SQRT_2_OVER_PI * (1 + 3 * 0.044715 * self * self)
        return g * (left + right)
    cdf = 0.5 * (1 + F.erf(self * (1 / _SQRT2)))
    pdf = F.exp(self * self * -0.5) * _INV_SQRT_2PI
    return g * (cdf + self * pdf)


def _matmul_grad_mm(F: Any, g: Any, mat2: Any) -> Any:
    return g @ F.mT(mat2)


# =================================================================================================
# More elementwise math
# =================================================================================================
LOG1P = rule("log1p", "Log1PBackward0", _via64(np.log1p), (lambda F, g, self: g / (self + 1),),
             ("grad / (self + 1)",), elementwise=True)
LOG2 = rule("log2", "Log2Backward0", np.log2, (lambda F, g, self: g / (self * 0.6931471805599453),),
            ("grad / (self * ln 2)",), elementwise=True)
LOG10 = rule("log10", "Log10Backward0", np.log10,
             (lambda F, g, self: g / (self * 2.302585092994046),), ("grad / (self * ln 10)",),
             elementwise=True)
EXPM1 = rule("expm1", "Expm1Backward0", _via64(np.expm1), (lambda F, g, result: g * (result + 1),),
             ("grad * (result + 1)",), elementwise=True)
EXP2 = rule("exp2", "Exp2Backward0", np.exp2, (lambda F, g, result: _scale(F, g * result, 0.6931471805599453),),
            ("grad * result * ln 2",), elementwise=True)
RSQRT = rule("rsqrt", "RsqrtBackward0", lambda a: 1 / np.sqrt(a),
             # PyTorch's -0.5 * grad * result.pow(3), rounded as it is (its pow(3) is result * result * result)
             (lambda F, g, result: (g * -0.5) * (result * result * result) if F is ArrayMath
              else g * result * result * result * -0.5,), ("-0.5 * grad * result³",),
             elementwise=True)
TAN = rule("tan", "TanBackward0", np.tan, (lambda F, g, result: g * (result * result + 1),),
           ("grad * (1 + result²)",), elementwise=True)
SINH = rule("sinh", "SinhBackward0", np.sinh, (lambda F, g, self: g * F.cosh(self),),
            ("grad * cosh(self)",), elementwise=True)
COSH = rule("cosh", "CoshBackward0", np.cosh, (lambda F, g, self: g * F.sinh(self),),
            ("grad * sinh(self)",), elementwise=True)
ASIN = rule("asin", "AsinBackward0", np.arcsin, (lambda F, g, self: g * (1 - self * self) ** -0.5,),
            ("grad / sqrt(1 - self²)",), elementwise=True)
ACOS = rule("acos", "AcosBackward0", np.arccos, (lambda F, g, self: -g * (1 - self * self) ** -0.5,),
            ("-grad / sqrt(1 - self²)",), elementwise=True)
ATAN = rule("atan", "AtanBackward0", np.arctan, (lambda F, g, self: g / (self * self + 1),),
            ("grad / (1 + self²)",), elementwise=True)
ACOSH = rule("acosh", "AcoshBackward0", np.arccosh, (lambda F, g, self: g * F.op("rsqrt", F.op("sub_scalar", self * self, other=1)),),
             ("grad / sqrt(self² - 1)",), elementwise=True)
ASINH = rule("asinh", "AsinhBackward0", np.arcsinh, (lambda F, g, self: g * F.op("rsqrt", F.op("add_scalar", self ** 2, other=1)),),
             ("grad / sqrt(self² + 1)",), elementwise=True)
# atanh: PyTorch's grad * 1 / (1 - self.pow(2)), its 1 - x being a filled tensor minus x (SubBackward0)
ATANH = rule("atanh", "AtanhBackward0", np.arctanh,
             (lambda F, g, self: g * 1 / (F.ones_like(self) - self ** 2),), ("grad / (1 - self²)",),
             elementwise=True)
ERF = rule("erf", "ErfBackward0", erf_array,
           (lambda F, g, self: g * F.exp(self * self * -1) * 1.1283791670955126,),
           ("grad * 2/sqrt(pi) * exp(-self²)",), elementwise=True)
# sgn: what abs's gradient records under create_graph (sign for real numbers; zero gradient)
SGN = rule("sgn", "SgnBackward0", _sign, (lambda F, g, result, self: F.zeros_like(g),), ("0",),
           elementwise=True)
SIGN = rule("sign", "SignBackward0", _sign, (lambda F, g: F.zeros_like(g),), ("0",), elementwise=True)
FLOOR = rule("floor", "FloorBackward0", _not_for("b", "floor_vml_cpu", np.floor), (lambda F, g: F.zeros_like(g),), ("0",), elementwise=True)
CEIL = rule("ceil", "CeilBackward0", _not_for("b", "ceil_vml_cpu", np.ceil), (lambda F, g: F.zeros_like(g),), ("0",), elementwise=True)
ROUND = rule("round", "RoundBackward0", _not_for("b", "round_vml_cpu", np.round), (lambda F, g: F.zeros_like(g),), ("0",),
             elementwise=True)
# round.decimals: PyTorch's kernel has no integer version, not even for decimals=0 (then round_vml_cpu's message)
ROUND_DECIMALS = rule("round_decimals", "RoundBackward1", lambda a, decimals: _not_for(
                          "biu", "round_vml_cpu" if decimals == 0 else "round_cpu", np.round)(a, decimals),
                      (lambda F, g: F.zeros_like(g),), ("0",), elementwise=True)
TRUNC = rule("trunc", "TruncBackward0", _not_for("b", "trunc_vml_cpu", np.trunc), (lambda F, g: F.zeros_like(g),), ("0",), elementwise=True)
FRAC = rule("frac", "FracBackward0", _not_for("biu", "frac_cpu", lambda a: a - np.trunc(a)), (lambda F, g: g,), ("grad",),
            elementwise=True)
NAN_TO_NUM = rule("nan_to_num", "NanToNumBackward0",
                  lambda a, nan=0.0, posinf=None, neginf=None: np.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf),
                  (lambda F, g, self: g * np.isfinite(F.raw(self)),), ("grad where self is finite, else 0",),
                  elementwise=True, exact_dtype=True)
def _remainder(a: Any, other: Any) -> Any:
    """PyTorch's remainder: fmod, moved by the divisor when the signs differ (-1.5 % 1.5 is -0.0, as in C)."""
    if np.result_type(a, other).kind != "f":
        return np.remainder(a, other)
    mod = np.fmod(a, other)
    moved = (mod != 0) & ((np.asarray(other) < 0) != (mod < 0))
    return np.where(moved, mod + other, mod).astype(mod.dtype, copy=False)


REMAINDER = rule("remainder", "RemainderBackward0", _remainder,
                 (lambda F, g: g,), ("grad",), elementwise=True)
FMOD = rule("fmod", "FmodBackward0", lambda a, other: np.fmod(a, other), (lambda F, g: g,), ("grad",),
            elementwise=True)


def _rounded_quotient_grad(rounding_mode: str) -> Any:
    """-grad * self.div(other, rounding_mode): the divisor's gradient of remainder (floor) and fmod (trunc)."""

    def grad(F: Any, g: Any, self: Any, other: Any) -> Any:
        return -g * F.op("div_mode", self, other, rounding_mode=rounding_mode)

    return grad


REMAINDER_TENSOR = rule("remainder_tensor", "RemainderBackward1", _remainder,
                        (lambda F, g: g, _rounded_quotient_grad("floor")),
                        ("grad", "-grad * self.div(other, rounding_mode='floor')"), inputs=BINARY,
                        elementwise=True, promotes=True)
FMOD_TENSOR = rule("fmod_tensor", "FmodBackward1", np.fmod,
                   (lambda F, g: g, _rounded_quotient_grad("trunc")),
                   ("grad", "-grad * self.div(other, rounding_mode='trunc')"), inputs=BINARY,
                   elementwise=True, promotes=True)

# --- activations ---------------------------------------------------------------------------------
LEAKY_RELU = rule(
    "leaky_relu", "LeakyReluBackward0",
    lambda a, negative_slope=0.01: np.where(a > 0, a, a * negative_slope),
    (lambda F, g, negative_slope, self: F.leaky_relu_backward(g, self, negative_slope=negative_slope),),
    ("grad * (self > 0 ? 1 : negative_slope)",), elementwise=True, defaults={"negative_slope": 0.01})
GELU = rule("gelu", "GeluBackward0", _not_for("biu", "GeluKernelImpl", _gelu),
            (lambda F, g, approximate, self: F.gelu_backward(g, self, approximate=approximate),),
            ("grad * (Φ(self) + self * φ(self))",),
            elementwise=True, defaults={"approximate": "none"})
ELU = rule(
    "elu", "EluBackward0",
    _not_for("biu", "elu_cpu", lambda a, alpha=1.0, scale=1.0, input_scale=1.0: np.where(
        a > 0, a * scale, (np.exp(np.minimum(a, 0) * input_scale) - 1) * alpha * scale)),
    (lambda F, g, alpha, input_scale, scale, self: F.elu_backward(
        g, self, alpha=alpha, scale=scale, input_scale=input_scale, is_result=False),),
    ("grad * (self > 0 ? scale : alpha * scale * input_scale * exp(self * input_scale))",),
    elementwise=True, defaults={"alpha": 1.0, "scale": 1.0, "input_scale": 1.0})


# In-place leaky_relu_ / elu_ (and selu_): their nodes save the result, not the input.
LEAKY_RELU_INPLACE = rule(
    "leaky_relu_", "LeakyReluBackward1", LEAKY_RELU.forward,
    (lambda F, g, negative_slope, result: F.leaky_relu_backward(
        g, result, negative_slope=negative_slope, self_is_result=True),),
    ("grad * (result > 0 ? 1 : negative_slope)",), elementwise=True, defaults={"negative_slope": 0.01})
ELU_INPLACE = rule(
    "elu_", "EluBackward1", ELU.forward,
    (lambda F, g, alpha, input_scale, result, scale: F.elu_backward(
        g, result, alpha=alpha, scale=scale, input_scale=input_scale, is_result=True),),
    ("grad * (result > 0 ? scale : input_scale * (result + alpha * scale))",),
    elementwise=True, defaults={"alpha": 1.0, "scale": 1.0, "input_scale": 1.0})


def _silu_grad(F: Any, g: Any, self: Any) -> Any:
    """PyTorch's infinitely_differentiable_silu_backward under create_graph: ordinary nodes, with
    `1.0 + ...` as add.Scalar and `1.0 - sigmoid` as a sub of a filled tensor (SubBackward0)."""
    if F is ArrayMath:
        return g * F.sigmoid(self) * (1 + self * (1 - F.sigmoid(self)))
    s = F.sigmoid(self)
    return g * s * F.op("add_scalar", self * F.op("sub", F.ones_like(s), s), other=1.0)


SILU = rule("silu", "SiluBackward0", _not_for("biu", "silu_cpu", lambda a: a / (1 + np.exp(-a))), (_silu_grad,),
            ("grad * σ(self) * (1 + self * (1 - σ(self)))",), elementwise=True)
SOFTPLUS = rule(
    "softplus", "SoftplusBackward0",
    _not_for("biu", "softplus_cpu", lambda a, beta=1.0, threshold=20.0: np.where(
        a * beta > threshold, a, np.logaddexp(0, a * beta) / beta)),
    (lambda F, g, beta, self, threshold: F.softplus_backward(g, self, beta=beta, threshold=threshold),),
    ("grad * σ(beta * self)",), elementwise=True, defaults={"beta": 1.0, "threshold": 20.0})
def _hardtanh(a: Any, min_val: float = -1.0, max_val: float = 1.0) -> Any:
    out = np.clip(a, min_val, max_val)
    return out.astype(a.dtype) if a.dtype.kind in "iu" else out  # integer tensors stay integer, as PyTorch's clamp


HARDTANH = rule(
    "hardtanh", "HardtanhBackward0", _hardtanh,
    (lambda F, g, max_val, min_val, self: F.hardtanh_backward(g, self, min_val=min_val, max_val=max_val),),
    ("grad * (min_val < self < max_val)",), elementwise=True, defaults={"min_val": -1.0, "max_val": 1.0})
LOGSIGMOID = rule("logsigmoid", "LogSigmoidBackward0", lambda a, buffer=None: -np.logaddexp(0, -a),
                  (lambda F, g, buffer, self: F.log_sigmoid_backward(g, self, buffer=buffer),),
                  ("grad * σ(-self)",), elementwise=True)


def _celu_scale(alpha: Any) -> float:
    """celu's input_scale: 1 / alpha, with alpha rounded to float32 first as PyTorch does."""
    return 1.0 / float(np.float32(alpha))


def _celu(a: Any, alpha: Any = 1.0) -> Any:
    """elu with input_scale 1 / alpha: x for x > 0, alpha * (exp(x / alpha) - 1) otherwise."""
    return ELU.forward(a, alpha, 1, _celu_scale(alpha))


CELU = rule("celu", "CeluBackward0", _celu,
            (lambda F, g, alpha, self: F.elu_backward(
                g, self, alpha=alpha, scale=1, input_scale=_celu_scale(alpha), is_result=False),),
            ("grad * (self > 0 ? 1 : exp(self / alpha))",), elementwise=True, defaults={"alpha": 1.0})
CELU_INPLACE = rule("celu_", "CeluBackward1", _celu,
                    (lambda F, g, alpha, result: F.elu_backward(
                        g, result, alpha=alpha, scale=1, input_scale=_celu_scale(alpha), is_result=True),),
                    ("grad * (result > 0 ? 1 : result / alpha + 1)",), elementwise=True,
                    defaults={"alpha": 1.0})


def _mish(a: Any) -> Any:
    """self * tanh(softplus(self))."""
    return a * np.tanh(np.log1p(np.exp(a)))


def _mish_grad(F: Any, g: Any, self: Any) -> Any:
    """PyTorch's mish backward: grad * (tanh(sp) + self * σ(self) * (1 - tanh(sp)²)), sp = log1p(exp(self));
    ordinary nodes under create_graph (`1.0 - t` a sub of a filled tensor, as for silu)."""
    t = F.tanh(F.log1p(F.exp(self)))
    if F is ArrayMath:
        return g * (t + self * F.sigmoid(self) * (1 - t * t))
    return g * (t + self * F.sigmoid(self) * F.op("sub", F.ones_like(t), t * t))


MISH = rule("mish", "MishBackward0", _mish, (_mish_grad,),
            ("grad * (tanh(softplus(self)) + self * σ(self) * sech²(softplus(self)))",), elementwise=True)
HARDSWISH = rule("hardswish", "HardswishBackward0", lambda a: a * np.clip(a + 3, 0, 6) / 6,
                 (lambda F, g, self: F.hardswish_backward(g, self),),
                 ("grad * (self <= -3 ? 0 : self < 3 ? self / 3 + 0.5 : 1)",), elementwise=True)
HARDSIGMOID = rule("hardsigmoid", "HardsigmoidBackward0", lambda a: np.clip(a + 3, 0, 6) / 6,
                   (lambda F, g, self: F.hardsigmoid_backward(g, self),),
                   ("grad / 6 where -3 < self < 3, else 0",), elementwise=True)
THRESHOLD = rule("threshold", "ThresholdBackward0",
                 lambda a, threshold, value: np.where(a > threshold, a, value),
                 (lambda F, g, self, threshold: F.threshold_backward(g, self, threshold=threshold),),
                 ("grad * (self > threshold)",), elementwise=True)
THRESHOLD_INPLACE = rule("threshold_", "ThresholdBackward1", THRESHOLD.forward,
                         (lambda F, g, self, threshold: F.threshold_backward(g, self, threshold=threshold),),
                         ("grad * (self > threshold)",), elementwise=True)


def _halves(a: Any, dim: int) -> tuple:
    """The two halves of `a` along dim (glu's value and gate)."""
    n = np.shape(a)[dim] // 2
    return a[_key(dim, slice(0, n))], a[_key(dim, slice(n, 2 * n))]


def _glu(a: Any, dim: int = -1) -> Any:
    """The first half of `a` along dim, gated by the sigmoid of the second half."""
    first, second = _halves(a, dim)
    return first * ArrayMath.sigmoid(second)


GLU = rule("glu", "GluBackward0", _glu, (lambda F, g, dim, self: F.glu_backward(g, self, dim=dim),),
           ("cat(grad * σ(b), grad * a * σ(b) * (1 - σ(b))) for self = cat(a, b)",))

# --- clamping and selection --------------------------------------------------------------------
CLAMP = rule(
    "clamp", "ClampBackward1",
    lambda a, min=None, max=None: np.clip(a, min, max) if (min is not None or max is not None) else a,
    (lambda F, g, max, min, self: g * _clamp_mask(self, min, max),),
    ("grad * (min <= self <= max)",), elementwise=True, defaults={"min": None, "max": None})
CLAMP_MIN = rule("clamp_min", "ClampMinBackward0", lambda a, min: np.maximum(a, min),
                 (lambda F, g, min, self: g * (self >= min),), ("grad * (self >= min)",), elementwise=True)
CLAMP_MAX = rule("clamp_max", "ClampMaxBackward0", lambda a, max: np.minimum(a, max),
                 (lambda F, g, max, self: g * (self <= max),), ("grad * (self <= max)",), elementwise=True)
CLAMP_TENSOR = rule(
    "clamp_tensor", "ClampBackward0",
    lambda a, lo, hi: np.clip(a, lo if lo is not None else -np.inf, hi if hi is not None else np.inf),
    (lambda F, g, max, min, self: g * _clamp_mask(self, min, max),
     lambda F, g, min, self: g * (self < min),
     lambda F, g, max, self: g * (self > max)),
    ("grad * (min <= self <= max)", "grad * (self < min)", "grad * (self > max)"),
    inputs=("self", "min", "max"), elementwise=True, promotes=True)


def _clamp_mask(self: Any, lo: Any, hi: Any) -> Any:
    if lo is not None and hi is not None:
        return (self >= lo) * (self <= hi)
    if lo is not None:
        return self >= lo
    if hi is not None:
        return self <= hi
    return self == self


def _split_ties(F: Any, g: Any, self: Any, other: Any, loses: Any) -> Any:
    """PyTorch's where(self == other, grad / 2, grad).masked_fill_(loses(self, other), 0)."""
    s, o = np.asarray(F.raw(self)), np.asarray(F.raw(other))
    return F.op("masked_fill", F.where(s == o, F.op("div_scalar", g, other=2), g), mask=loses(s, o), value=0)


MAXIMUM = rule("maximum", "MaximumBackward0", np.maximum,
               (lambda F, g, other, self: _split_ties(F, g, self, other, np.less),
                lambda F, g, other, self: _split_ties(F, g, self, other, np.greater)),
               ("grad * (self > other) (ties: grad / 2)", "grad * (other > self) (ties: grad / 2)"),
               inputs=BINARY, elementwise=True, promotes=True)
MINIMUM = rule("minimum", "MinimumBackward0", np.minimum,
               (lambda F, g, other, self: _split_ties(F, g, self, other, np.greater),
                lambda F, g, other, self: _split_ties(F, g, self, other, np.less)),
               ("grad * (self < other) (ties: grad / 2)", "grad * (other < self) (ties: grad / 2)"),
               inputs=BINARY, elementwise=True, promotes=True)
WHERE = rule("where", "WhereBackward0", lambda a, b, condition: np.where(condition, a, b),
             (lambda F, g, condition: F.where(condition, g, 0.0),
              lambda F, g, condition: F.where(condition, 0.0, g)),
             ("where(condition, grad, 0)", "where(condition, 0, grad)"), inputs=BINARY, elementwise=True,
             promotes=True)
MASKED_FILL = rule("masked_fill", "MaskedFillBackward0", lambda a, mask, value: np.where(mask, value, a),
                   (lambda F, g, mask: F.where(mask, 0.0, g) if F is ArrayMath
                    else F.op("masked_fill", g, mask=mask, value=0),), ("where(mask, 0, grad)",),
                   elementwise=True)
MASKED_FILL_TENSOR = rule(
    "masked_fill_tensor", "MaskedFillBackward1", lambda a, value, mask: np.where(mask, value, a),
    (MASKED_FILL.grads[0], lambda F, g, mask: F.sum(F.where(mask, g, 0.0))),
    ("where(mask, 0, grad)", "sum of grad where mask"), inputs=("self", "value"), extra_saves=("mask",))


def _evenly_distribute(F: Any, g: Any, self: Any, result: Any) -> Any:
    """PyTorch's evenly_distribute_backward: grad shared equally by the elements equal to result
    (the NaNs when result is NaN); a MaskedFillBackward1 of grad / count under create_graph."""
    x, r = np.asarray(F.raw(self)), np.asarray(F.raw(result))
    mask = np.isnan(x) if np.isnan(r) else x == r
    if F is ArrayMath:
        return np.where(mask, g / mask.sum(), 0).astype(x.dtype)
    share = g / np.asarray(mask.sum())  # an int64 count: DivBackward0 with no edge to it
    return F.op("masked_fill_tensor", np.zeros(x.shape, x.dtype), share, mask=mask)

# --- more reductions ---------------------------------------------------------------------------
PROD = rule("prod", "ProdBackward0", lambda a: np.prod(a, dtype=_int_acc(a)),
            (lambda F, g, result, self: _prod_grad(F, g, self, result),), ("grad * result / self",))
PROD_DIM = rule(
    "prod_dim", "ProdBackward1",
    lambda a, dim, keepdim=False: np.prod(a, axis=dim, keepdims=keepdim, dtype=_int_acc(a)),
    (lambda F, g, dim, keepdim, result, self: _prod_grad(F, g, self, result, dim, keepdim),),
    ("grad * result / self (along dim)",), defaults={"keepdim": False})
def _var_backward(F: Any, g: Any, self: Any, dim: Any, correction: Any, keepdim: bool) -> Any:
    """PyTorch's var_backward under create_graph: (2 / dof) * grad (mul.Scalar) * (self - mean)."""
    x = np.asarray(F.raw(self))
    c = 1 if correction is None else correction
    if x.ndim == 0 or dim is None:
        dof = x.size - c
        if dof <= 0:
            return g * np.where(x == x.mean(), np.nan, np.inf).astype(x.dtype)
        return F.op("mul_scalar", g, other=2.0 / dof) * (self - F.op("mean", self))
    dims = tuple(sorted(_tuple_dims(dim, x.ndim)))
    if not keepdim and x.ndim > 1:
        g = F.unsqueeze_dims(g, dims)
    dof = _count(x.shape, dims) - c
    scale = 2.0 / dof if dof else math.inf
    return F.op("mul_scalar", g, other=scale) * (self - F.op("mean_dim", self, dim=dims, keepdim=True))


def _std_backward(F: Any, g: Any, self: Any, result: Any, dim: Any, correction: Any, keepdim: bool) -> Any:
    """PyTorch's std_backward: var_backward of (grad / (result * 2)).masked_fill_(result == 0, 0)."""
    grad_var = F.op("masked_fill", g / F.op("mul_scalar", result, other=2), mask=np.asarray(F.raw(result)) == 0,
                    value=0)
    return _var_backward(F, grad_var, self, dim, correction, keepdim)


def _dof(n: int, correction: Any) -> Any:
    """Degrees of freedom of a variance: N - correction (1 by default)."""
    return n - (1 if correction is None else correction)


def _inverse_dof(n: int, correction: Any, scale: float) -> float:
    """scale / (N - correction): inf when no degrees of freedom are left, as in PyTorch."""
    dof = _dof(n, correction)
    return scale / dof if dof > 0 else math.inf


def _var_grad(F: Any, g: Any, correction: Any, dim: Any, keepdim: bool, self: Any) -> Any:
    if F is not ArrayMath:
        return _var_backward(F, g, self, dim, correction, keepdim)
    ndim = len(np.shape(self))
    n = _count(np.shape(self), dim)
    centered = self - F.sum(self, _tuple_dims(dim, ndim), True) * (1.0 / n)
    return _unsq(F, g, dim, keepdim, ndim) * centered * _inverse_dof(n, correction, 2.0)


def _std_grad(F: Any, g: Any, correction: Any, dim: Any, keepdim: bool, result: Any, self: Any) -> Any:
    if F is not ArrayMath:
        return _std_backward(F, g, self, result, dim, correction, keepdim)
    ndim = len(np.shape(self))
    n = _count(np.shape(self), dim)
    centered = self - F.sum(self, _tuple_dims(dim, ndim), True) * (1.0 / n)
    return (_unsq(F, g, dim, keepdim, ndim) * centered
            / (_unsq(F, result, dim, keepdim, ndim) * max(_dof(n, correction), 0)))


def _mean_grad(F: Any, g: Any, dim: Any, keepdim: bool, self: Any) -> Any:
    """mean_backward: the gradient of self.mean(dim) (all of it when dim is None)."""
    sizes = tuple(np.shape(F.raw(self)))
    numel = math.prod(sizes)
    if dim is None:
        return MEAN.grads[0](F, g, numel, sizes)
    return MEAN_DIM.grads[0](F, g, dim, keepdim, numel, sizes)


def _std_var(a: Any, dim: Any = None, correction: Any = None, keepdim: bool = False) -> Any:
    return _var(a, dim, correction, keepdim, root=True)


def _with_mean(stat: Any) -> Any:
    """The forward of var_mean / std_mean: (stat, mean) over the same dims."""

    def forward(a: Any, dim: Any = None, correction: Any = None, keepdim: bool = False) -> tuple:
        axis = None if dim is None else _tuple_dims(dim, a.ndim)
        mean = _mean(_wide(a), axis, keepdim).astype(a.dtype)
        return stat(a, dim, correction, keepdim), mean

    return forward


STATS = {"correction": None, "keepdim": False}
VAR = rule("var", "VarBackward0", _var, (_var_grad,), ("grad * 2 * (self - mean) / (N - correction)",),
           defaults=STATS)
STD = rule("std", "StdBackward0", _std_var, (_std_grad,),
           ("grad * (self - mean) / ((N - correction) * result)",), defaults=STATS)


def _received(F: Any, g: Any) -> bool:
    """Whether an output's gradient arrived. The engine fills a missing one with zeros where PyTorch
    passes none and skips its term; under create_graph a constant zero stands for none (so the
    graph has PyTorch's nodes). A plain backward adds the zeros: the same values."""
    return F is ArrayMath or g.requires_grad or bool(np.asarray(F.raw(g)).any())


def _stat_mean_grad(F: Any, g: Any, stat_grad: Any, dim: Any, keepdim: bool, self: Any) -> Any:
    """var_mean_backward / std_mean_backward: stat_grad(grad of var or std) + mean_backward."""
    grad_stat, grad_mean = g
    terms = [stat_grad(grad_stat)] if _received(F, grad_stat) else []
    if _received(F, grad_mean):
        terms.append(_mean_grad(F, grad_mean, dim, keepdim, self))
    if not terms:
        return F.zeros_like(self)
    return terms[0] if len(terms) == 1 else terms[0] + terms[1]


VAR_MEAN = rule(
    "var_mean", "VarMeanBackward0", _with_mean(_var),
    (lambda F, g, correction, dim, keepdim, self: _stat_mean_grad(
        F, g, lambda gv: _var_grad(F, gv, correction, dim, keepdim, self), dim, keepdim, self),),
    ("grad_var * 2 * (self - mean) / (N - correction) + grad_mean / N",), outputs=2,
    output_names=("result0", "result1"), defaults=STATS)
STD_MEAN = rule(
    "std_mean", "StdMeanBackward0", _with_mean(_std_var),
    (lambda F, g, correction, dim, keepdim, result0, self: _stat_mean_grad(
        F, g, lambda gs: _std_grad(F, gs, correction, dim, keepdim, result0, self), dim, keepdim, self),),
    ("grad_std * (self - mean) / ((N - correction) * result0) + grad_mean / N",), outputs=2,
    output_names=("result0", "result1"), defaults=STATS)
NORM = rule("norm", "LinalgVectorNormBackward0", _norm_fwd, (_norm_grad,),
            ("grad * self / result (ord 2)",), defaults={"ord": 2, "dim": None, "keepdim": False})


def _other_dims(ndim: int, dim: int) -> tuple[int, ...]:
    return tuple(d for d in range(ndim) if d != dim)


def _renorm(a: Any, p: Any, dim: int, maxnorm: Any) -> Any:
    """Each slice along `dim` whose p-norm exceeds maxnorm scaled by maxnorm / (norm + 1e-7)."""
    norm = np.asarray(_norm_fwd(a, p, _other_dims(a.ndim, dim), True), a.dtype)
    limit = a.dtype.type(maxnorm)
    return a * np.where(norm > limit, limit / (norm + a.dtype.type(1e-7)), a.dtype.type(1)).astype(a.dtype)


def _renorm_grad(F: Any, g: Any, p: Any, dim: int, maxnorm: Any, self: Any) -> Any:
    """PyTorch's renorm_backward. Its norm and sums run in the CPU accumulate type (float64 for float32
    input) and the result is cast back; under create_graph the nodes are built in the input's dtype."""
    dims = _other_dims(np.ndim(F.raw(self)), dim)
    if F is ArrayMath:
        x = np.asarray(self)
        norm = _norm_fwd(x.astype(np.float64), p, dims, True)
        grad_output = np.sum(x * g, axis=dims, keepdims=True, dtype=np.float64)
    else:
        norm = F.op("norm", self, ord=p, dim=dims, keepdim=True)
        grad_output = F.sum(self * g, dims, True)
    nb = _norm_backward(F, grad_output, dims, True, p, norm, self)
    invnorm = F.op("reciprocal", F.op("add_scalar", norm, other=1e-7))
    scaled = F.op("mul_scalar", invnorm, other=maxnorm) * (g - invnorm * nb)
    if F is ArrayMath:
        return np.where(norm > maxnorm, scaled, g).astype(np.asarray(g).dtype, copy=False)
    # PyTorch's accumulate-type result is cast back before the where (ToCopyBackward0)
    dtype = np.asarray(F.raw(g)).dtype
    scaled = F.op("to_copy", scaled, dtype=dtype, self_dtype=dtype)
    return F.where(np.asarray(F.raw(norm)) > maxnorm, scaled, g)


NARROW_COPY = rule("narrow_copy", "NarrowCopyBackward0",
                   lambda a, dim, start, length: a[_key(dim, slice(start, start + length))].copy(),
                   (lambda F, g, dim, length, self_sym_sizes, start: F.op(
                       "slice_backward", g, dim=dim, start=start, end=start + length, step=1,
                       self_sym_sizes=self_sym_sizes),),
                   ("grad placed in the narrowed range, zeros elsewhere",))
RENORM = rule("renorm", "RenormBackward0", _renorm, (_renorm_grad,),
              ("where(norm > maxnorm, maxnorm / norm * (grad - norm_backward(Σ self·grad) / norm), grad)",))
MAX = rule("max", "MaxBackward1", lambda a: np.max(a), (_evenly_distribute,),
           ("grad split evenly among the maxima",))
MIN = rule("min", "MinBackward1", lambda a: np.min(a), (_evenly_distribute,),
           ("grad split evenly among the minima",))
# (values, indices) reductions along a dim: gradients flow to the values only
PICKED = {"outputs": 2, "differentiable_outputs": (0,), "output_names": ("result", "indices"),
          "defaults": {"keepdim": False}}
MAX_DIM = rule(
    "max_dim", "MaxBackward0",
    lambda a, dim, keepdim=False: (np.max(a, axis=dim, keepdims=keepdim),
                                   np.argmax(a, axis=dim, keepdims=keepdim).astype(np.int64)),
    (_value_at_indices,), ("grad at the index of each maximum",), **PICKED)
MIN_DIM = rule(
    "min_dim", "MinBackward0",
    lambda a, dim, keepdim=False: (np.min(a, axis=dim, keepdims=keepdim),
                                   np.argmin(a, axis=dim, keepdims=keepdim).astype(np.int64)),
    (_value_at_indices,), ("grad at the index of each minimum",), **PICKED)
AMAX = rule("amax", "AmaxBackward0", lambda a, dim, keepdim=False: _reduce_dim_keep(a, np.max, dim, keepdim),
            (lambda F, g, dim, keepdim, result, self: _max_split_even(F, g, self, result, dim, keepdim),),
            ("grad split evenly among the maxima along dim",), defaults={"keepdim": False})
AMIN = rule("amin", "AminBackward0", lambda a, dim, keepdim=False: _reduce_dim_keep(a, np.min, dim, keepdim),
            (lambda F, g, dim, keepdim, result, self: _max_split_even(F, g, self, result, dim, keepdim),),
            ("grad split evenly among the minima along dim",), defaults={"keepdim": False})
LOGSUMEXP = rule(
    "logsumexp", "LogsumexpBackward0", _logsumexp,
    (lambda F, g, dim, keepdim, result, self: _unsq(F, g, dim, keepdim, len(np.shape(F.raw(self))))
        * F.exp(self - _unsq(F, result, dim, keepdim, len(np.shape(F.raw(self))))),),
    ("grad * exp(self - result)",), defaults={"keepdim": False})


def _along(fn: Any) -> Any:
    """A scan along `dim` (in float64 for float32, see _wide) that also takes 0-d arrays."""

    def forward(a: Any, dim: int) -> Any:
        x = _wide(a)
        acc = _int_acc(a)
        if not np.ndim(a):
            return fn(np.reshape(x, (1,)), axis=0, dtype=acc).reshape(()).astype(a.dtype)
        out = fn(x, axis=dim, dtype=acc)
        return out.astype(a.dtype) if x is not a else out

    return forward


def _reverse_cumsum(F: Any, g: Any, dim: int) -> Any:
    return F.op("flip", F.op("cumsum", F.op("flip", g, dims=(dim,)), dim=dim), dims=(dim,))


def _cumprod_grad(F: Any, g: Any, dim: int, result: Any, self: Any) -> Any:
    """PyTorch's cumprod_backward: reversed_cumsum(grad * result) / self without zeros in self;
    with zeros, the product of the other factors (no division)."""
    x = np.asarray(F.raw(self))
    if x.size <= 1:
        return g
    if not (x == 0).any():
        return _reverse_cumsum(F, g * result, dim) / self
    if F is ArrayMath:
        return _cumprod_grad_zeros(np.asarray(g), x, np.asarray(result), dim)
    return _cumprod_backward_zeros(F, g, self, dim)


def _cumprod_grad_zeros(g: np.ndarray, x: np.ndarray, result: np.ndarray, dim: int) -> np.ndarray:
    """cumprod's gradient on arrays with zeros: before a line's first zero k the usual formula;
    at k, result[k-1] * sum_{j>=k} grad[j] * prod(self[k+1..j]); after k, nothing."""
    gm, xm, rm = (np.moveaxis(np.broadcast_to(v, x.shape), dim, -1) for v in (g, x, result))
    out = np.flip(np.cumsum(np.flip(gm * rm, -1), -1), -1) / xm
    zero = xm == 0
    first = np.argmax(zero, -1)[..., None]
    pos = np.arange(xm.shape[-1])
    has_zero = zero.any(-1, keepdims=True)
    before = np.where(first > 0, np.take_along_axis(rm, np.maximum(first - 1, 0), -1), 1)
    after = np.cumprod(np.where(pos <= first, 1, xm), -1)  # prod(self[k+1..j]) for j >= k
    at_zero = before * np.sum(np.where(pos >= first, gm * after, 0), -1, keepdims=True)
    out = np.where(has_zero & (pos == first), at_zero, np.where(has_zero & (pos > first), 0, out))
    return np.moveaxis(out.astype(x.dtype, copy=False), -1, dim)


def _cumprod_backward_zeros(F: Any, g: Any, self: Any, dim: int) -> Any:
    """The same gradient as differentiable ops (create_graph): for each position i along dim,
    sum_{j>=i} grad[j] * prod_{m<=j, m!=i} self[m]."""
    x = np.asarray(F.raw(self))
    n = x.shape[dim]
    shape = [1] * x.ndim
    shape[dim] = n
    pos = np.arange(n).reshape(shape)
    parts = []
    for i in range(n):
        others = F.op("cumprod", F.where(pos == i, 1.0, self), dim=dim)
        parts.append(F.sum(g * others * (pos >= i).astype(x.dtype), dim, True))
    return F.cat(parts, dim)


def _sorted_order(a: Any, dim: int, descending: bool) -> np.ndarray:
    """The stable sort order along dim, NaN counted as the largest value (PyTorch's order)."""
    if not descending:
        return np.argsort(a, axis=dim, kind="stable")
    nan = np.isnan(a) if a.dtype.kind in "fc" else np.zeros(a.shape, bool)
    if not nan.any():
        return np.argsort(-a if a.dtype != np.bool_ else ~a, axis=dim, kind="stable")
    moved = np.moveaxis(a, dim, -1)
    order = np.lexsort((-moved, ~np.moveaxis(nan, dim, -1)), axis=-1)
    return np.moveaxis(order, -1, dim)


def _sort(a: Any, dim: int, descending: bool = False, k: Any = None) -> tuple:
    """Values and int64 indices of a sort along dim (the first k for topk); 0-d as one element."""
    flat = np.reshape(a, (1,)) if a.ndim == 0 else a
    order = _sorted_order(flat, dim, descending)
    if k is not None:
        order = np.take(order, np.arange(k), axis=dim)
    values = np.take_along_axis(flat, order, dim)
    return values.reshape(np.shape(a) if a.ndim == 0 else values.shape), order.astype(np.int64).reshape(
        () if a.ndim == 0 else order.shape)


def _sort_grad(F: Any, g: Any, dim: int, indices: Any, self_sym_sizes: tuple) -> Any:
    """value_selecting_reduction_backward with keepdim: grad put back where each value came from."""
    if not self_sym_sizes:
        return g[0]
    return _value_selecting_backward(F, g[0], dim, indices, True, self_sym_sizes)


SORTED = {"outputs": 2, "differentiable_outputs": (0,), "output_names": ("result", "indices")}
SORT = rule("sort", "SortBackward0", lambda a, dim, descending=False: _sort(a, dim, descending),
            (_sort_grad,), ("grad put back at indices along dim",), defaults={"descending": False}, **SORTED)
# sort.stable, the overload a call naming `stable` (whatever its value) records
SORT_STABLE = rule("sort_stable", "SortBackward1", SORT.forward, (_sort_grad,), ("grad put back at indices along dim",),
                   defaults={"descending": False}, **SORTED)
TOPK = rule("topk", "TopkBackward0", lambda a, k, dim, largest=True: _sort(a, dim, largest, k), (_sort_grad,),
            ("grad put back at indices along dim, zeros elsewhere",), defaults={"largest": True}, **SORTED)
CUMSUM = rule("cumsum", "CumsumBackward0", _along(np.cumsum), (lambda F, g, dim: _reverse_cumsum(F, g, dim),),
              ("reverse cumsum of grad along dim",))
CUMPROD = rule("cumprod", "CumprodBackward0", _along(np.cumprod), (_cumprod_grad,),
               ("reverse cumsum of grad * result along dim, / self",))


def _median_rank(count: Any) -> Any:
    """The sorted position PyTorch reads as the median of `count` values: the lower middle one
    ((count - 1) / 2 rounded toward zero, so 0 when there are none)."""
    return np.maximum(count - 1, 0) // 2


def _median(a: Any, ignore_nan: bool = False) -> Any:
    """The median of all values (the lower middle one); NaN if any is NaN, unless ignore_nan."""
    flat = np.sort(np.ravel(a))  # NaN sorts last
    nan = np.isnan(flat) if flat.dtype.kind in "fc" else np.zeros(flat.shape, bool)
    if not flat.size or (nan.any() and not ignore_nan):
        return np.asarray(np.nan, a.dtype)
    return np.asarray(flat[_median_rank(flat.size - int(nan.sum()))])


def _median_dim(a: Any, dim: int, keepdim: bool = False, ignore_nan: bool = False) -> tuple:
    """Median values and int64 indices along dim. PyTorch picks among equal values by the
    (value, index) order, as a stable sort does; median gives the first NaN of a line that has one."""
    x = np.reshape(a, (1,)) if a.ndim == 0 else a
    order = np.argsort(x, axis=dim, kind="stable")
    nan = np.isnan(x) if x.dtype.kind in "fc" else np.zeros(x.shape, bool)
    count = x.shape[dim] - np.sum(nan, axis=dim, keepdims=True)
    index = np.take_along_axis(order, _median_rank(count), dim)
    if not ignore_nan:
        index = np.where(count < x.shape[dim], np.argmax(nan, axis=dim, keepdims=True), index)
    values = np.take_along_axis(x, index, dim)
    if not keepdim or a.ndim == 0:
        values, index = np.squeeze(values, dim), np.squeeze(index, dim)
    return values.reshape(values.shape if a.ndim else ()), index.astype(np.int64)


MEDIAN = rule("median", "MedianBackward0", _median, (_evenly_distribute,),
              ("grad shared equally by the elements equal to the median",))
NANMEDIAN = rule("nanmedian", "NanmedianBackward0", lambda a: _median(a, ignore_nan=True),
                 (_evenly_distribute,), ("grad shared equally by the elements equal to the median",))
MEDIAN_DIM = rule("median_dim", "MedianBackward1", _median_dim, (_value_at_indices,),
                  ("grad at the index of each median",), **PICKED)
NANMEDIAN_DIM = rule("nanmedian_dim", "NanmedianBackward1",
                     lambda a, dim, keepdim=False: _median_dim(a, dim, keepdim, ignore_nan=True),
                     (_value_at_indices,), ("grad at the index of each median",), **PICKED)


def _nansum(a: Any, dim: Any = None, keepdim: bool = False) -> Any:
    """The sum with NaNs counted as zero (int64 for integer input, as PyTorch's)."""
    return np.nansum(a, axis=reduction_axes(dim, a.ndim), keepdims=keepdim, dtype=np.int64 if a.dtype.kind in "biu" else a.dtype)


def _nansum_grad(F: Any, g: Any, dim: Any, keepdim: bool, self: Any) -> Any:
    """sum's gradient, zero where self is NaN."""
    x = np.asarray(F.raw(self))
    return F.expand(_unsqueeze_reduced(F, g, dim, keepdim, x.ndim), x.shape) * ~np.isnan(x)


NANSUM = rule("nansum", "NansumBackward0", _nansum, (_nansum_grad,),
              ("grad expanded to self, 0 where self is NaN",), defaults={"dim": None, "keepdim": False})


def _roll(a: Any, shifts: tuple, dims: tuple) -> Any:
    """np.roll along dims; with no dims, over the flattened array (the shape is kept)."""
    if not dims:
        return np.roll(np.ravel(a), shifts[0]).reshape(np.shape(a))
    return np.roll(a, shifts, dims)


ROLL = rule("roll", "RollBackward0", _roll,
            (lambda F, g, dims, shifts: F.op("roll", g, shifts=tuple(-s for s in shifts), dims=dims),),
            ("grad rolled back by -shifts",))
SOFTMAX = rule("softmax", "SoftmaxBackward0", _softmax,
               (lambda F, g, dim, result: F.softmax_backward_data(g, result, dim=dim),),
               ("result * (grad - sum(grad * result, dim))",))
LOG_SOFTMAX = rule("log_softmax", "LogSoftmaxBackward0", _log_softmax,
                   (lambda F, g, dim, result: F.log_softmax_backward_data(g, result, dim=dim),),
                   ("grad - exp(result) * sum(grad, dim)",))

# --- matrix products ---------------------------------------------------------------------------
BMM = rule("bmm", "BmmBackward0", np.matmul,
           (lambda F, g, mat2: g @ F.mT(mat2), lambda F, g, self: F.mT(self) @ g),
           ("grad @ mat2ᵀ", "selfᵀ @ grad"), inputs=("self", "mat2"))
ADDMM = rule(
    "addmm", "AddmmBackward0",
    lambda bias, m1, m2, alpha=1, beta=1: (bias * beta if beta != 1 else bias) + (
        m1 @ m2 if alpha == 1 else alpha * (m1 @ m2)),
    (lambda F, g, beta: g if beta == 1 else g * beta,
     lambda F, g, alpha, mat2: (g @ F.mT(mat2)) if alpha == 1 else (g @ F.mT(mat2)) * alpha,
     lambda F, g, alpha, mat1: (F.mT(mat1) @ g) if alpha == 1 else (F.mT(mat1) @ g) * alpha),
    ("grad * beta", "grad @ mat2ᵀ * alpha", "mat1ᵀ @ grad * alpha"),
    inputs=("self", "mat1", "mat2"), defaults={"alpha": 1, "beta": 1},
    extra_saves=("mat1_sym_sizes", "mat1_sym_strides", "mat2_sym_sizes", "mat2_sym_strides"))
BADDBMM = rule(
    "baddbmm", "BaddbmmBackward0",
    lambda a, b1, b2, alpha=1, beta=1: (a * beta if beta != 1 else a) + (
        b1 @ b2 if alpha == 1 else alpha * (b1 @ b2)),
    (lambda F, g, beta: g if beta == 1 else g * beta,
     lambda F, g, alpha, batch2: (g @ F.mT(batch2)) if alpha == 1 else (g @ F.mT(batch2)) * alpha,
     lambda F, g, alpha, batch1: (F.mT(batch1) @ g) if alpha == 1 else (F.mT(batch1) @ g) * alpha),
    ("grad * beta", "grad @ batch2ᵀ * alpha", "batch1ᵀ @ grad * alpha"),
    inputs=("self", "batch1", "batch2"), defaults={"alpha": 1, "beta": 1})

# --- more shape ops ----------------------------------------------------------------------------
UNSAFE_VIEW = rule("unsafe_view", "UnsafeViewBackward0", lambda a, size: np.reshape(a, size),
                   (lambda F, g, self_sym_sizes: F.reshape(g, self_sym_sizes),), ("grad reshaped to self",))
SQUEEZE_DIMS = rule("squeeze_dims", "SqueezeBackward2",
                    lambda a, dim: np.squeeze(a, tuple(d for d in dim if a.shape[d] == 1)),
                    (lambda F, g, dim, self_sym_sizes: _unsqueeze_to(F, g, self_sym_sizes, dim),),
                    ("grad unsqueezed back to self",), view=True)
SQUEEZE_INPLACE = rule("squeeze_inplace", "SqueezeBackward4", lambda a, dim: np.squeeze(a, dim)
                       if a.ndim and a.shape[dim] == 1 else a,
                       (lambda F, g, dim, self_sym_sizes: _unsqueeze_to(F, g, self_sym_sizes, (dim,)),),
                       ("grad unsqueezed back to self",))
REPEAT = rule(
    "repeat", "RepeatBackward0",
    lambda a, repeats: np.tile(a, repeats),
    (lambda F, g, repeats, self_sym_sizes: _repeat_grad(F, g, repeats, self_sym_sizes),),
    ("grad summed over the repeated copies",))


def _repeat_grad(F: Any, g: Any, repeats: tuple, sizes: tuple) -> Any:
    lead = len(repeats) - len(sizes)
    if F is not ArrayMath:
        return _repeat_backward(F, g, repeats, sizes, lead)
    full = (1,) * lead + tuple(sizes)
    split = []
    for r, s in zip(repeats, full):
        split += [r, s]
    g = F.reshape(g, tuple(split))
    g = F.sum(g, tuple(range(0, 2 * len(full), 2)))
    return F.reshape(g, tuple(sizes))


def _repeat_backward(F: Any, g: Any, repeats: tuple, sizes: tuple, lead: int) -> Any:
    """PyTorch's repeat_backward under create_graph: the leading new dims summed one by one
    (SumBackward1 each), then a view splitting each repeated dim into (repeat, size) and one sum
    over the repeat dims; zeros (no graph) when a repeat is 0."""
    if 0 in repeats:
        return _repeat_grad(F, F.zeros_like(g), repeats, sizes)  # a constant: no input needs grad
    for _ in range(lead):
        g = F.sum(g, (0,))
    grad_size: list = []
    sum_dims: list = []
    for r, s in zip(repeats[lead:], sizes):
        if r != 1:
            grad_size.append(r)
            sum_dims.append(len(grad_size) - 1)
        grad_size.append(s)
    if not sum_dims:
        return g
    return F.sum(F.reshape(g, tuple(grad_size)), tuple(sum_dims))


FLIP = rule("flip", "FlipBackward0", lambda a, dims: np.flip(a, dims).copy(),
            (lambda F, g, dims: F.op("flip", g, dims=dims),), ("grad flipped back",))
TRIL = rule("tril", "TrilBackward0", lambda a, diagonal=0: np.tril(a, diagonal),
            (lambda F, g, diagonal: F.op("tril", g, diagonal=diagonal),), ("tril(grad, diagonal)",),
            defaults={"diagonal": 0})
TRIU = rule("triu", "TriuBackward0", lambda a, diagonal=0: np.triu(a, diagonal),
            (lambda F, g, diagonal: F.op("triu", g, diagonal=diagonal),), ("triu(grad, diagonal)",),
            defaults={"diagonal": 0})
TRACE = rule("trace", "TraceBackward0", np.trace,
             (lambda F, g, self_sym_sizes: F.expand(g, self_sym_sizes)
              * np.eye(*self_sym_sizes, dtype=bool),),
             ("grad on the diagonal, zeros elsewhere",))
def _diagonal_view(a: Any, offset: int, dim1: int, dim2: int) -> Any:
    """The offset diagonal of dims dim1, dim2 as the last dim: a view that may be written
    (NumPy's own diagonal view is read-only; PyTorch's is not)."""
    b = np.moveaxis(np.asarray(a), (dim1, dim2), (-2, -1))
    b = b[..., :, offset:] if offset >= 0 else b[..., -offset:, :]
    n = max(min(b.shape[-2], b.shape[-1]), 0)
    return np.lib.stride_tricks.as_strided(b, b.shape[:-2] + (n,), b.strides[:-2] + (b.strides[-2] + b.strides[-1],))


def _diagonal_backward(g: Any, self_sym_sizes: tuple, offset: int, dim1: int, dim2: int) -> Any:
    out = np.zeros(self_sym_sizes, np.asarray(g).dtype)
    _diagonal_view(out, offset, dim1, dim2)[...] = g
    return out


def _diag_embed(a: Any, offset: int, dim1: int, dim2: int) -> Any:
    """The last dim of `a` written on the offset diagonal of new dims dim1, dim2 (of zeros)."""
    n = a.shape[-1] + abs(offset)
    ndim = a.ndim + 1
    out = np.zeros(a.shape[:-1] + (n, n), a.dtype)
    d1, d2 = dim1 % ndim, dim2 % ndim
    rest = [d for d in range(ndim) if d not in (d1, d2)]
    order = np.argsort(rest + [d1, d2])  # where each of out's dims goes
    out = np.transpose(out, order)
    _diagonal_view(out, offset, d1, d2)[...] = a
    return np.ascontiguousarray(out)


def _diagonal_grad(F: Any, g: Any, self_sym_sizes: tuple, offset: int, dim1: int, dim2: int) -> Any:
    return F.op("diagonal_backward", g, self_sym_sizes=tuple(self_sym_sizes), offset=offset, dim1=dim1, dim2=dim2)


DIAGONAL = rule("diagonal", "DiagonalBackward0", _diagonal_view, (_diagonal_grad,),
                ("grad on the diagonal, zeros elsewhere",), view=True)
DIAGONAL_COPY = rule("diagonal_copy", "DiagonalBackward0_copy",
                     lambda a, offset, dim1, dim2: np.diagonal(a, offset, dim1, dim2).copy(), (_diagonal_grad,),
                     ("grad on the diagonal, zeros elsewhere",))
DIAG_EMBED = rule("diag_embed", "DiagEmbedBackward0", _diag_embed,
                  (lambda F, g, offset, dim1, dim2: F.op("diagonal", g, offset=offset, dim1=dim1, dim2=dim2),),
                  ("the diagonal of grad",))
TO_COPY = rule("to_copy", "ToCopyBackward0", lambda a, dtype, self_dtype=None: dtypes.cast(a, np.dtype(dtype)),
               (lambda F, g, attrs: F.op("to_copy", g, dtype=attrs["self_dtype"], self_dtype=attrs["dtype"]),),
               ("grad converted back to self's dtype",), exact_dtype=True)
SELECT = rule("select", "SelectBackward0", lambda a, dim, index: a[_key(dim % a.ndim, index) + (Ellipsis,)],
              (lambda F, g, dim, index, self_sym_sizes: F.op(
                  "select_backward", g, dim=dim, index=index, self_sym_sizes=self_sym_sizes),),
              ("grad placed at index along dim",), view=True)
SLICE = rule("slice", "SliceBackward0", lambda a, dim, start, end, step: a[_key(dim, slice(start, end, step))],
             (lambda F, g, dim, end, self_sym_sizes, start, step: F.op(
                 "slice_backward", g, dim=dim, start=start, end=end, step=step,
                 self_sym_sizes=self_sym_sizes),),
             ("grad placed in the slice, zeros elsewhere",), view=True)
INDEX = rule("index", "IndexBackward0", lambda a, indices: a[_index_key(indices)],
             (lambda F, g, indices, self_sym_sizes: F.op(
                 "index_backward", g, indices=indices, self_sym_sizes=self_sym_sizes),),
             ("grad added at the indexed positions",))
def _gather(a: Any, dim: int, index: Any, sparse_grad: bool = False) -> Any:
    """take_along_axis over the index's extent: the output has the index's shape (the index may be
    smaller than the input along the other dims)."""
    index = np.asarray(index)
    a = np.asarray(a)
    if a.ndim == 0:  # a 0-d input: index 0 picks its one element
        return a.reshape(index.shape).copy() if index.ndim == 0 else np.broadcast_to(a, index.shape).copy()
    if index.ndim == a.ndim and index.shape != a.shape:
        a = a[tuple(slice(None) if i == dim % a.ndim else slice(0, n) for i, n in enumerate(index.shape))]
    return np.take_along_axis(a, index, dim)


GATHER = rule("gather", "GatherBackward0", _gather,
              (lambda F, g, dim, index, self, sparse_grad: _gather_backward(F, g, dim, index, np.shape(F.raw(self))),),
              ("grad scattered (added) back at index",), defaults={"sparse_grad": False})
INDEX_SELECT = rule("index_select", "IndexSelectBackward0",
                    lambda a, dim, index: np.take(a, np.asarray(index), axis=dim),
                    (lambda F, g, dim, index, self_sym_sizes: F.op(
                        "index_add", np.zeros(self_sym_sizes,
                                              np.asarray(F.raw(g)).dtype), g, dim=dim, index=index),),
                    ("grad added back at index along dim",))
UNBIND = rule("unbind", "UnbindBackward0",
              lambda a, dim: tuple(a[_key(dim, i) + (Ellipsis,)] for i in range(a.shape[dim])),
              (lambda F, g, dim: F.stack(list(g), dim),), ("grads stacked along dim",), outputs=-1,
              view=True)
SPLIT = rule("split", "SplitBackward0",
             lambda a, split_size, dim: _split(a, dim, _split_sizes(a.shape[dim], split_size)),
             (lambda F, g, dim, self_sym_sizes, split_size: F.cat(list(g), dim),),
             ("grads concatenated along dim",), outputs=-1, view=True)
SPLIT_WITH_SIZES = rule("split_with_sizes", "SplitWithSizesBackward0",
                        lambda a, split_sizes, dim: _split(a, dim, split_sizes),
                        (lambda F, g, dim, self_sym_sizes, split_sizes: F.cat(list(g), dim),),
                        ("grads concatenated along dim",), outputs=-1, view=True)
CAT = rule("cat", "CatBackward0", lambda *arrays, dim: np.concatenate(arrays, axis=dim),
           (lambda F, g, dim, input_nr, input_sizes: F.op(
               "slice", g, dim=dim % len(input_sizes[input_nr]),
               start=int(sum(s[dim] for s in input_sizes[:input_nr])),
               end=int(sum(s[dim] for s in input_sizes[:input_nr + 1])), step=1),),
           ("the slice of grad for this input",), inputs=("tensors",), variadic=True)
STACK = rule("stack", "StackBackward0", lambda *arrays, dim: np.stack(arrays, axis=dim),
             (lambda F, g, dim, input_nr: F.op("select", g, dim=dim % np.ndim(F.raw(g)), index=input_nr),),
             ("grad selected at this input's index",), inputs=("tensors",), variadic=True)


# --- scatter: what value-selecting reductions record under create_graph ----------------------------
def _put_at_index(out: np.ndarray, dim: int, index: Any, values: Any) -> None:
    """out[index along dim] = values, writing only where index has entries (np.put_along_axis would
    broadcast a smaller index across the other dims)."""
    index = np.asarray(index)
    if out.ndim and index.ndim == out.ndim:
        out[_gather_index(index, dim)] = values
    else:
        np.put_along_axis(out, index, values, dim)


def _index_shaped(src: Any, index: Any) -> Any:
    """The index-shaped corner of src: all a scatter reads of a larger src (its gradient stays index-shaped)."""
    shape = np.shape(index)
    if np.ndim(src) == len(shape) and np.shape(src) != shape:
        return np.asarray(src)[tuple(slice(0, n) for n in shape)]
    return src


def _scatter(a: Any, src: Any, dim: int, index: Any) -> Any:
    out = np.array(a, copy=True)
    _put_at_index(out, dim, index, _index_shaped(src, index))
    return out


def _scattered(shape: tuple, dim: int, index: Any) -> np.ndarray:
    """True where a scatter along dim at index writes."""
    mask = np.zeros(shape, bool)
    _put_at_index(mask, dim, index, True)
    return mask


def _unscattered_grad(F: Any, g: Any, dim: int, index: Any) -> Any:
    """grad.scatter(dim, index, 0): self's gradient, zero where the scatter wrote."""
    if F is ArrayMath:
        return np.where(_scattered(np.shape(g), dim, index), 0.0, g).astype(np.asarray(g).dtype)
    return F.op("scatter_value", g, dim=dim, index=index, value=0)


def _scatter_add(a: Any, src: Any, dim: int, index: Any) -> Any:
    out = np.array(a, copy=True)
    np.add.at(out, _gather_index(np.asarray(index), dim), _index_shaped(src, index))
    return out


SCATTER = rule("scatter", "ScatterBackward0", _scatter,
               (_unscattered_grad, lambda F, g, dim, index: F.op("gather", g, dim=dim, index=index)),
               ("grad with zeros where src was written", "grad gathered at index"), inputs=("self", "src"))
SCATTER_VALUE = rule("scatter_value", "ScatterBackward1",
                     lambda a, dim, index, value: _scatter(a, np.asarray(value, a.dtype), dim, index),
                     (_unscattered_grad,), ("grad with zeros where value was written",))
SCATTER_ADD = rule("scatter_add", "ScatterAddBackward0", _scatter_add,
                   (lambda F, g: g, lambda F, g, dim, index: F.op("gather", g, dim=dim, index=index)),
                   ("grad", "grad gathered at index"), inputs=("self", "src"))

# --- gradients of the gradient (nodes that appear under create_graph) --------------------------
SELECT_BACKWARD = rule("select_backward", "SelectBackwardBackward0", _select_backward,
                       (lambda F, g, dim, index: F.op("select", g, dim=dim, index=index),),
                       ("grad selected at index",), inputs=("grad_output",))
SLICE_BACKWARD = rule("slice_backward", "SliceBackwardBackward0", _slice_backward,
                      (lambda F, g, dim, start, end, step: F.op(
                          "slice", g, dim=dim, start=start, end=end, step=step),),
                      ("grad sliced",), inputs=("grad_output",))
INDEX_BACKWARD = rule("index_backward", "IndexPutImplBackward0", _index_backward,
                      (lambda F, g, indices: F.op("index", g, indices=indices),),
                      ("grad indexed",), inputs=("values",))
DIAGONAL_BACKWARD = rule("diagonal_backward", "DiagonalBackwardBackward0", _diagonal_backward,
                         (lambda F, g, offset, dim1, dim2: F.op("diagonal", g, offset=offset, dim1=dim1, dim2=dim2),),
                         ("the diagonal of grad",), inputs=("grad_output",))

# --- PyTorch's backward ops: the nodes a create_graph backward of tanh, relu, softmax... records ---
# PyTorch computes these gradients with ops of their own (tanh_backward(grad, result)...), each with
# a node (TanhBackwardBackward0) and derivatives (tools/autograd/derivatives.yaml). Gradient formulas
# call them as F.<name>: under ArrayMath (plain backward) that is the NumPy kernel itself, with no
# table lookup; under TensorMath (create_graph) one node of the rule (engine.functions.TensorMath).
BACKWARD_FUNCTIONS: list[Rule] = []


def backward_function(name: str, node: str, forward: Any, grads: tuple, formulas: tuple,
                      **options: Any) -> Rule:
    r = rule(name, node, forward, grads, formulas, save_always=True, **options)
    setattr(ArrayMath, name, staticmethod(forward))
    BACKWARD_FUNCTIONS.append(r)
    return r


def _scale(F: Any, a: Any, c: float) -> Any:
    """a * c as PyTorch's C++ formulas record `c * tensor`: mul.Scalar (MulBackward1)."""
    return F.op("mul_scalar", a, other=c)


def _tanh_backward(grad_output: Any, output: Any) -> Any:
    return _tanh_grad(ArrayMath, grad_output, output)


def _sigmoid_backward(grad_output: Any, output: Any) -> Any:
    return grad_output * (1 - output) * output


def _threshold_backward(grad_output: Any, self: Any, threshold: Any) -> Any:
    return np.where(self > threshold, grad_output, 0)


def _softmax_backward_data(grad_output: Any, output: Any, dim: int) -> Any:
    return output * (grad_output - np.sum(grad_output * output, axis=dim, keepdims=True))


def _log_softmax_backward_data(grad_output: Any, output: Any, dim: int) -> Any:
    return grad_output - np.exp(output) * np.sum(grad_output, axis=dim, keepdims=True)


def _mse_loss_backward(grad_output: Any, self: Any, target: Any, reduction: int) -> Any:
    return _reduce_grad(ArrayMath, grad_output, np.shape(self), reduction) * 2 * (self - target)


def _gelu_backward(grad_output: Any, self: Any, approximate: str = "none") -> Any:
    return _gelu_grad(ArrayMath, grad_output, approximate, self)


def _nll_loss_backward(grad_output: Any, self: Any, target: Any, weight: Any, reduction: int,
                       ignore_index: int, total_weight: Any) -> Any:
    return _nll_grad(ArrayMath, grad_output, ignore_index, reduction, self, target, total_weight, weight)


def _softmax_double_backward(F: Any, g: Any, grad_output: Any, dim: int, output: Any) -> Any:
    return (grad_output * g - F.sum(output * grad_output, dim, True) * g
            - grad_output * F.sum(output * g, dim, True))


def _mse_loss_double_backward(F: Any, g: Any, self: Any, reduction: int) -> Any:
    out = _scale(F, g, 2)
    if reduction == 1:
        out = out / max(int(np.prod(np.shape(F.raw(self)))), 1)
    return out


def _gelu_double_backward(F: Any, g: Any, grad_output: Any, self: Any, approximate: str) -> Any:
    """d gelu_backward(grad_output, self) / d self, times g."""
    if approximate == "tanh":
        kappa = 0.044715
        inner = _scale(F, self + _scale(F, self * self * self, kappa), _SQRT_2_OVER_PI)
        t = F.tanh(inner)
        sech2 = 1 - t * t
        h = _scale(F, _scale(F, self * self, 3 * kappa) + 1, _SQRT_2_OVER_PI)
        half = _scale(F, self, 0.5)
        d_sech2 = _scale(F, t * sech2 * h, -2)
        d_h = _scale(F, _scale(F, self, 6 * kappa), _SQRT_2_OVER_PI)
        second = _scale(F, _scale(F, sech2 * h, 0.5), 2) + half * h * d_sech2 + half * sech2 * d_h
    else:
        self_sq = self * self
        pdf = _scale(F, F.exp(_scale(F, self_sq, -0.5)), _INV_SQRT_2PI)
        second = _scale(F, pdf, 2) - self_sq * pdf
    return g * grad_output * second


GRAD_OUTPUT = ("grad_output", "output")
TANH_BACKWARD = backward_function(
    "tanh_backward", "TanhBackwardBackward0", _tanh_backward,
    (lambda F, g, output: F.tanh_backward(g, output),
     lambda F, g, grad_output, output: g * (_scale(F, output, -2) * grad_output)),
    ("grad * (1 - output²)", "grad * -2 * output * grad_output"), inputs=GRAD_OUTPUT, elementwise=True)
SIGMOID_BACKWARD = backward_function(
    "sigmoid_backward", "SigmoidBackwardBackward0", _sigmoid_backward,
    (lambda F, g, output: F.sigmoid_backward(g, output),
     lambda F, g, grad_output, output: g * grad_output * F.op("add_scalar", _scale(F, output, -2), other=1)),
    ("grad * output * (1 - output)", "grad * grad_output * (1 - 2 * output)"), inputs=GRAD_OUTPUT,
    elementwise=True)
THRESHOLD_BACKWARD = backward_function(
    "threshold_backward", "ThresholdBackwardBackward0", _threshold_backward,
    (lambda F, g, self, threshold: F.threshold_backward(g, self, threshold=threshold),
     lambda F, g: F.zeros_like(g)),
    ("grad * (self > threshold)", "0"), inputs=("grad_output", "self"), elementwise=True)
SOFTMAX_BACKWARD_DATA = backward_function(
    "softmax_backward_data", "SoftmaxBackwardDataBackward0", _softmax_backward_data,
    (lambda F, g, dim, output: F.softmax_backward_data(g, output, dim=dim),
     lambda F, g, dim, grad_output, output: _softmax_double_backward(F, g, grad_output, dim, output)),
    ("output * (grad - sum(grad * output, dim))",
     "grad_output * grad - sum(output * grad_output, dim) * grad - grad_output * sum(output * grad, dim)"),
    inputs=GRAD_OUTPUT)
LOG_SOFTMAX_BACKWARD_DATA = backward_function(
    "log_softmax_backward_data", "LogSoftmaxBackwardDataBackward0", _log_softmax_backward_data,
    (lambda F, g, dim, output: g - F.sum(g * F.exp(output), dim, True),
     lambda F, g, dim, grad_output, output: -F.sum(grad_output, dim, True) * F.exp(output) * g),
    ("grad - sum(grad * exp(output), dim)", "-sum(grad_output, dim) * exp(output) * grad"),
    inputs=GRAD_OUTPUT)
MSE_LOSS_BACKWARD = backward_function(
    "mse_loss_backward", "MseLossBackwardBackward0", _mse_loss_backward,
    (lambda F, g, reduction, self, target: F.mse_loss_backward(g, self, target, reduction=reduction),
     lambda F, g, grad_output, reduction, self: _mse_loss_double_backward(
         F, g * grad_output, self, reduction),
     lambda F, g, grad_output, reduction, target: -_mse_loss_double_backward(
         F, g * grad_output, target, reduction)),
    ("2 * (self - target) * grad / N", "2 * grad * grad_output / N", "-2 * grad * grad_output / N"),
    inputs=("grad_output", "self", "target"))
GELU_BACKWARD = backward_function(
    "gelu_backward", "GeluBackwardBackward0", _gelu_backward,
    (lambda F, g, approximate, self: F.gelu_backward(g, self, approximate=approximate),
     lambda F, g, approximate, grad_output, self: _gelu_double_backward(
         F, g, grad_output, self, approximate)),
    ("grad * (Φ(self) + self * φ(self))", "grad * grad_output * (2 - self²) * φ(self)"),
    inputs=("grad_output", "self"), elementwise=True, defaults={"approximate": "none"})
NLL_LOSS_BACKWARD = backward_function(
    "nll_loss_backward", "NllLossBackwardBackward0", _nll_loss_backward,
    (lambda F, g, ignore_index, reduction, target, weight: F.op(
        "nll_loss", g, target=target, weight=weight, reduction=reduction, ignore_index=ignore_index,
        total_weight=_nll(F.raw(g), target, weight, reduction, ignore_index)[1]),
     lambda F, g: F.zeros_like(g)),
    ("nll_loss(grad, target, weight)", "0"), inputs=("grad_output", "self"))


# Kernels of the activation and loss backward ops below: the NumPy expressions those ops' plain
# backward has always computed (so its values stay bit for bit what they were).
def _leaky_relu_backward(grad_output: Any, self: Any, negative_slope: float,
                         self_is_result: bool = False) -> Any:
    if self_is_result and negative_slope < 0:
        raise RuntimeError(messages.INPLACE_LEAKY_RELU_NEGATIVE_SLOPE)
    return np.where(self > 0, grad_output, grad_output * negative_slope)


def _hardtanh_backward(grad_output: Any, self: Any, min_val: float, max_val: float) -> Any:
    return grad_output * ((self > min_val) * (self < max_val))


def _elu_backward(grad_output: Any, self_or_result: Any, alpha: float, scale: float, input_scale: float,
                  is_result: bool = False) -> Any:
    x = self_or_result
    if is_result and alpha < 0:
        raise RuntimeError(messages.INPLACE_ELU_NEGATIVE_SLOPE)
    if is_result:  # from the output: alpha * scale * input_scale * exp(.) = input_scale * (out + alpha * scale)
        return np.where(x > 0, grad_output * scale, grad_output * (input_scale * (x + alpha * scale)))
    return np.where(x > 0, grad_output * scale,
                    grad_output * (np.exp(x * input_scale) * (alpha * scale * input_scale)))


def _softplus_backward(grad_output: Any, self: Any, beta: float, threshold: float) -> Any:
    return np.where(self * beta > threshold, grad_output, grad_output * ArrayMath.sigmoid(self * beta))


def _log_sigmoid_backward(grad_output: Any, self: Any, buffer: Any = None) -> Any:
    return grad_output * ArrayMath.sigmoid(self * -1)


def _smooth_l1_loss_backward(grad_output: Any, self: Any, target: Any, reduction: int, beta: float) -> Any:
    return _reduce_grad(ArrayMath, grad_output, np.shape(self), reduction) * _smooth_l1_grad(
        ArrayMath, self - target, beta)


def _huber_loss_backward(grad_output: Any, self: Any, target: Any, reduction: int, delta: float) -> Any:
    return _reduce_grad(ArrayMath, grad_output, np.shape(self), reduction) * _huber_grad(
        ArrayMath, self - target, delta)


def _mask(F: Any, condition: Any, like: Any) -> Any:
    """`condition.type_as(like)`: a constant of 0s and 1s (no node, as in PyTorch)."""
    return np.asarray(condition).astype(np.asarray(F.raw(like)).dtype)


def _per_element(F: Any, out: Any, self: Any, reduction: int) -> Any:
    """`out /= self.numel()` under reduction='mean' (div.Scalar, DivBackward1), as in PyTorch."""
    if reduction == 1:
        out = F.op("div_scalar", out, other=max(int(np.prod(np.shape(F.raw(self)))), 1))
    return out


def _elu_double_backward(F: Any, g: Any, grad_output: Any, alpha: float, scale: float, input_scale: float,
                         is_result: bool, self_or_result: Any) -> Any:
    negative = _mask(F, np.asarray(F.raw(self_or_result)) < 0, g)
    scaled = _scale(F, g * grad_output, input_scale)
    if is_result:
        return scaled * negative
    return F.elu_backward(scaled, self_or_result, alpha=alpha, scale=scale, input_scale=input_scale,
                          is_result=False) * negative


def _softplus_double_backward(F: Any, g: Any, self: Any, beta: float, threshold: float) -> Any:
    x = _scale(F, self, beta)
    return _scale(F, F.sigmoid_backward(g, F.sigmoid(x)) * _mask(F, np.asarray(F.raw(x)) < threshold, g), beta)


def _smooth_l1_double_backward(F: Any, g: Any, self: Any, target: Any, reduction: int, beta: float) -> Any:
    if beta == 0:
        return F.zeros_like(g)
    d = np.abs(np.asarray(F.raw(self)) - np.asarray(F.raw(target)))
    return _per_element(F, F.op("div_scalar", g * _mask(F, d < beta, g), other=beta), self, reduction)


def _huber_double_backward(F: Any, g: Any, self: Any, target: Any, reduction: int, delta: float) -> Any:
    d = np.abs(np.asarray(F.raw(self)) - np.asarray(F.raw(target)))
    return _per_element(F, g * _mask(F, d < delta, g), self, reduction)


def _huber_double_backward_grad_output(F: Any, g: Any, delta: float, grad_output: Any, reduction: int,
                                       self: Any, target: Any) -> Any:
    if reduction == 0:
        return F.huber_loss_backward(g, self, target, reduction=reduction, delta=delta)
    r = F.huber_loss_backward(F.ones_like(grad_output), self, target, reduction=reduction, delta=delta)
    return F.sum(r * g)


LEAKY_RELU_BACKWARD = backward_function(
    "leaky_relu_backward", "LeakyReluBackwardBackward0", _leaky_relu_backward,
    (lambda F, g, negative_slope, self: F.leaky_relu_backward(g, self, negative_slope=negative_slope),
     lambda F, g: F.zeros_like(g)),
    ("grad * (self > 0 ? 1 : negative_slope)", "0"), inputs=("grad_output", "self"), elementwise=True,
    defaults={"self_is_result": False})
HARDTANH_BACKWARD = backward_function(
    "hardtanh_backward", "HardtanhBackwardBackward0", _hardtanh_backward,
    (lambda F, g, max_val, min_val, self: F.hardtanh_backward(g, self, min_val=min_val, max_val=max_val),
     lambda F, g: F.zeros_like(g)),
    ("grad * (min_val < self < max_val)", "0"), inputs=("grad_output", "self"), elementwise=True)
ELU_BACKWARD = backward_function(
    "elu_backward", "EluBackwardBackward0", _elu_backward,
    (lambda F, g, alpha, input_scale, is_result, scale, self_or_result: F.elu_backward(
        g, self_or_result, alpha=alpha, scale=scale, input_scale=input_scale, is_result=is_result),
     lambda F, g, alpha, grad_output, input_scale, is_result, scale, self_or_result: _elu_double_backward(
         F, g, grad_output, alpha, scale, input_scale, is_result, self_or_result)),
    ("elu_backward(grad, ...)", "elu_backward(grad * grad_output * input_scale, ...) * (self_or_result < 0)"),
    inputs=("grad_output", "self_or_result"), elementwise=True)
SOFTPLUS_BACKWARD = backward_function(
    "softplus_backward", "SoftplusBackwardBackward0", _softplus_backward,
    (lambda F, g, beta, self, threshold: F.softplus_backward(g, self, beta=beta, threshold=threshold),
     lambda F, g, beta, grad_output, self, threshold: _softplus_double_backward(
         F, g * grad_output, self, beta, threshold)),
    ("grad * σ(beta * self)", "sigmoid_backward(grad * grad_output, σ(beta * self)) * (beta * self < threshold) * beta"),
    inputs=("grad_output", "self"), elementwise=True)
LOG_SIGMOID_BACKWARD = backward_function(
    "log_sigmoid_backward", "LogSigmoidBackwardBackward0", _log_sigmoid_backward,
    (lambda F, g, buffer, self: F.log_sigmoid_backward(g, self, buffer=buffer),
     lambda F, g, grad_output, self: _log_sigmoid_double_backward(F, g * grad_output, self)),
    ("grad * σ(-self)", "grad * grad_output * (σ(self) - 1) * σ(self)"), inputs=("grad_output", "self"),
    elementwise=True)


def _log_sigmoid_double_backward(F: Any, g: Any, self: Any) -> Any:
    z = F.sigmoid(self)
    return g * F.op("sub_scalar", z, other=1) * z


def _hardswish_backward(grad_output: Any, self: Any) -> Any:
    return np.where(self <= -3, 0, np.where(self < 3, grad_output * (self / 3 + 0.5), grad_output)).astype(
        np.result_type(grad_output, self))


def _hardsigmoid_backward(grad_output: Any, self: Any) -> Any:
    return np.where((self > -3) & (self < 3), grad_output / 6, 0).astype(np.result_type(grad_output, self))


def _not_implemented(name: str) -> Any:
    """The gradient of an op PyTorch cannot differentiate: its node raises when backward reaches it (the node
    may name another op in its attrs: see functions.not_implemented_result)."""

    def grad(F: Any, g: Any, attrs: dict) -> Any:
        raise RuntimeError(f"derivative for aten::{attrs.get('op', name)} is not implemented")

    return grad


def _glu_backward(grad_output: Any, self: Any, dim: int) -> Any:
    first, second = _halves(self, dim)
    gate = ArrayMath.sigmoid(second)
    return np.concatenate([grad_output * gate, grad_output * first * gate * (1 - gate)], axis=dim)


def _glu_double_backward_grad_output(F: Any, g: Any, dim: int, self: Any) -> Any:
    """PyTorch's glu_double_backward_grad_output: the two halves of grad * glu_backward(1, self) summed."""
    x = np.asarray(F.raw(self))
    d = dim % x.ndim
    n = x.shape[d] // 2
    ones = np.ones(x.shape[:d] + (n,) + x.shape[d + 1:], x.dtype)
    tmp = g * F.glu_backward(ones, self, dim=dim)
    first = F.op("slice", tmp, dim=d, start=0, end=n, step=1)
    return first + F.op("slice", tmp, dim=d, start=n, end=2 * n, step=1)


def _glu_double_backward(F: Any, g: Any, dim: int, grad_output: Any, self: Any) -> Any:
    """PyTorch's glu_double_backward: d glu_backward(grad_output, self) / d self, times grad."""
    d = dim % np.ndim(F.raw(self))
    n = np.shape(F.raw(self))[d] // 2
    half = (lambda t, k: F.op("slice", t, dim=d, start=k * n, end=(k + 1) * n, step=1))
    first, gate = half(self, 0), F.sigmoid(half(self, 1))
    one_minus = F.op("sub", F.ones_like(gate), gate) if F is not ArrayMath else 1 - gate
    slope = gate * one_minus
    gg_first, gg_second = half(g, 0), half(g, 1)
    grad_first = gg_second * grad_output * slope
    curve = slope * one_minus - gate * slope
    grad_second = gg_second * first * grad_output * curve + gg_first * grad_output * slope
    return F.cat([grad_first, grad_second], d)


HARDSWISH_BACKWARD = backward_function(
    "hardswish_backward", "HardswishBackwardBackward0", _hardswish_backward,
    (lambda F, g, self: F.hardswish_backward(g, self),
     lambda F, g, grad_output, self: F.where(
         (np.asarray(F.raw(self)) > -3) & (np.asarray(F.raw(self)) < 3),
         F.op("div_scalar", g * grad_output, other=3.0), 0.0)),
    ("hardswish_backward(grad, self)", "grad * grad_output / 3 where -3 < self < 3"),
    inputs=("grad_output", "self"), elementwise=True)
HARDSIGMOID_BACKWARD = backward_function(
    "hardsigmoid_backward", "NotImplemented", _hardsigmoid_backward,
    (_not_implemented("hardsigmoid_backward"), _not_implemented("hardsigmoid_backward")),
    ("not implemented in PyTorch", "not implemented in PyTorch"), inputs=("grad_output", "self"),
    elementwise=True)
HARDSIGMOID_BACKWARD.node_cls.name = lambda self: "torch::autograd::NotImplemented"  # PyTorch's C++ name
GLU_BACKWARD = backward_function(
    "glu_backward", "GluBackwardBackward0", _glu_backward,
    (_glu_double_backward_grad_output, _glu_double_backward),
    ("sum of the halves of grad * glu_backward(1, self)", "d glu_backward / d self, times grad"),
    inputs=("grad_output", "self"))


SMOOTH_L1_LOSS_BACKWARD = backward_function(
    "smooth_l1_loss_backward", "SmoothL1LossBackwardBackward0", _smooth_l1_loss_backward,
    (lambda F, g, beta, reduction, self, target: F.smooth_l1_loss_backward(
        g, self, target, reduction=reduction, beta=beta),
     lambda F, g, beta, grad_output, reduction, self, target: _smooth_l1_double_backward(
         F, g * grad_output, self, target, reduction, beta),
     lambda F, g, beta, grad_output, reduction, self, target: -_smooth_l1_double_backward(
         F, g * grad_output, self, target, reduction, beta)),
    ("smooth_l1_loss_backward(grad, ...)", "grad * grad_output * (|self - target| < beta) / beta / N",
     "-(same)"), inputs=("grad_output", "self", "target"))
HUBER_LOSS_BACKWARD = backward_function(
    "huber_loss_backward", "HuberLossBackwardBackward0", _huber_loss_backward,
    (_huber_double_backward_grad_output,
     lambda F, g, delta, grad_output, reduction, self, target: _huber_double_backward(
         F, g * grad_output, self, target, reduction, delta),
     lambda F, g, delta, grad_output, reduction, self, target: -_huber_double_backward(
         F, g * grad_output, self, target, reduction, delta)),
    ("sum(huber_loss_backward(1, ...) * grad)", "grad * grad_output * (|self - target| < delta) / N",
     "-(same)"), inputs=("grad_output", "self", "target"))

# --- embedding and normalization ---------------------------------------------------------------
def _embedding_dense_backward(grad_output: Any, indices: Any, num_weights: int, padding_idx: int,
                              scale_grad_by_freq: bool) -> Any:
    """Each row of grad added to the weight row its index picked (none to padding_idx's row)."""
    idx = np.asarray(indices).reshape(-1)
    g = np.asarray(grad_output).reshape(idx.size, -1)
    if scale_grad_by_freq:
        g = g / np.bincount(idx, minlength=num_weights)[idx, None].astype(g.dtype)
    keep = idx != padding_idx
    out = np.zeros((num_weights, g.shape[1]), g.dtype)
    np.add.at(out, idx[keep], g[keep])
    return out


def _embedding_dense_double_backward(F: Any, g: Any, indices: Any, padding_idx: int) -> Any:
    """PyTorch's embedding_dense_double_backward: the rows of grad at the indices (zeros at
    padding_idx), shaped like the lookup."""
    idx = np.asarray(indices)
    rows = F.op("index_select", g, dim=0, index=idx.reshape(-1))
    if padding_idx >= 0:
        rows = F.op("masked_fill", rows, mask=(idx == padding_idx).reshape(-1, 1), value=0)
    return F.reshape(rows, idx.shape + (-1,))


EMBEDDING_DENSE_BACKWARD = backward_function(
    "embedding_dense_backward", "EmbeddingDenseBackwardBackward0", _embedding_dense_backward,
    (lambda F, g, indices, padding_idx: _embedding_dense_double_backward(F, g, indices, padding_idx),),
    ("grad rows at indices (zeros at padding_idx)",), inputs=("grad_output",))
EMBEDDING = rule(
    "embedding", "EmbeddingBackward0",
    lambda weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False, weight_sym_argsize_0=0:
        weight[indices],
    (lambda F, g, indices, padding_idx, scale_grad_by_freq, weight_sym_argsize_0: F.embedding_dense_backward(
        g, indices=indices, num_weights=weight_sym_argsize_0, padding_idx=padding_idx,
        scale_grad_by_freq=scale_grad_by_freq),),
    ("grad rows added at the rows indices picked (none at padding_idx)",), inputs=("weight",),
    extra_saves=("sparse",), defaults={"padding_idx": -1, "scale_grad_by_freq": False, "sparse": False})


def _count_over(a: Any, axes: tuple) -> int:
    shape = np.shape(a)
    return max(math.prod(shape[d] for d in axes), 1)


def _normalize(a: Any, axes: tuple, eps: float) -> tuple:
    """(a - mean) * rstd over axes, with mean and rstd = 1 / sqrt(biased var + eps) (keepdims)."""
    mean = np.mean(a, axis=axes, keepdims=True)
    centered = a - mean
    rstd = 1 / np.sqrt(np.mean(centered * centered, axis=axes, keepdims=True) + eps)
    return centered * rstd, mean, rstd


def _statistics(F: Any, input: Any, mean: Any, rstd: Any, axes: tuple, eps: float) -> tuple:
    """Mean and rstd for a normalization's backward: the saved ones, or under create_graph the
    same recomputed from the input as differentiable ops (the gradient depends on them too)."""
    if F is ArrayMath:
        return mean, rstd
    scale = 1.0 / _count_over(F.raw(input), axes)
    mean = F.sum(input, axes, True) * scale
    centered = input - mean
    return mean, (F.sum(centered * centered, axes, True) * scale + eps) ** -0.5


def _affine(out: Any, weight: Any, bias: Any) -> Any:
    if weight is not None:
        out = out * weight
    return out if bias is None else out + bias


def _layer_axes(self: Any, normalized_shape: tuple) -> tuple:
    ndim = len(np.shape(self))
    return tuple(range(ndim - len(normalized_shape), ndim))


def _layer_norm(input: Any, weight: Any, bias: Any, normalized_shape: tuple, eps: float = 1e-5) -> tuple:
    out, mean, rstd = _normalize(input, _layer_axes(input, normalized_shape), eps)
    return _affine(out, weight, bias), mean, rstd


def _layer_norm_grad_input(F: Any, g: Any, input: Any, normalized_shape: tuple, result1: Any, result2: Any,
                           weight: Any, attrs: dict) -> Any:
    """PyTorch's layer_norm backward, in its form: rstd * dy + b * x + c per row, with dy = grad *
    weight, b = (sum(dy) * mean - sum(dy * x)) * rstd³ / N and c = -b * mean - sum(dy) * rstd / N."""
    axes = _layer_axes(F.raw(input), normalized_shape)
    mean, rstd = _statistics(F, input, result1, result2, axes, attrs.get("eps", 1e-5))
    dy = g[0] if weight is None else g[0] * weight
    scale = 1.0 / _count_over(F.raw(input), axes)
    sum_dy = F.sum(dy, axes, True)
    b = (sum_dy * mean - F.sum(dy * input, axes, True)) * rstd * rstd * rstd * scale
    return rstd * dy + b * input + (-b * mean - sum_dy * rstd * scale)


def _layer_norm_grad_weight(F: Any, g: Any, input: Any, normalized_shape: tuple, result1: Any, result2: Any,
                            attrs: dict) -> Any:
    axes = _layer_axes(F.raw(input), normalized_shape)
    mean, rstd = _statistics(F, input, result1, result2, axes, attrs.get("eps", 1e-5))
    return g[0] * ((input - mean) * rstd)  # summed to weight's shape by the engine


NATIVE_LAYER_NORM = rule(
    "native_layer_norm", "NativeLayerNormBackward0", _layer_norm,
    (_layer_norm_grad_input, _layer_norm_grad_weight, lambda F, g: g[0]),
    ("rstd * (dx̂ - mean(dx̂) - x̂ * mean(dx̂ * x̂)), dx̂ = grad * weight", "grad * x̂ summed to weight",
     "grad summed to bias"),
    inputs=("input", "weight", "bias"), outputs=3, differentiable_outputs=(0,),
    output_names=("result", "result1", "result2"), extra_saves=("bias",), defaults={"eps": 1e-5})


def _channels(ndim: int) -> tuple:
    """The axes batch norm reduces over (all but dim 1), and the shape of a per-channel view."""
    return (0,) + tuple(range(2, ndim)), (1, -1) + (1,) * (ndim - 2)


def _F32S_ONLY(*arrays: Any) -> bool:  # noqa: N802
    return all(a is None or np.asarray(a).dtype == np.float32 for a in arrays)


def _batch_norm_float32(input: Any, weight: Any, bias: Any, running_mean: Any, running_var: Any, training: bool,
                        eps: float, axes: tuple, shape: tuple) -> tuple:
    """PyTorch's float32 CPU batch norm, in its order: the mean summed in double and rounded to float, the sum
    of float squares in double, invstd = 1 / sqrt(var + eps) in double (eval: in float, from the running
    variance), then out = x * alpha + beta with alpha = invstd * weight, beta = bias - mean * alpha, both
    fused multiply-adds (emulated in double: a float product is exact there)."""
    f32, f64 = np.float32, np.float64
    if training:
        n = input.size // input.shape[1]
        mean = (np.sum(input, axis=axes, dtype=f64) / n).astype(f32)
        centered = input - mean.reshape(shape)
        var_sum = np.sum(centered * centered, axis=axes, dtype=f64).astype(f32)
        invstd = (1 / np.sqrt(var_sum.astype(f64) / n + eps)).astype(f32)
        center = mean
    else:
        center = np.asarray(running_mean, f32).reshape(-1)
        invstd = f32(1) / np.sqrt(np.asarray(running_var, f32).reshape(-1) + f32(eps))
        mean = invstd_out = np.zeros(0, f32)
    alpha = invstd if weight is None else (invstd * np.asarray(weight).reshape(-1)).astype(f32)
    b = np.zeros(1, f64) if bias is None else np.asarray(bias, f64).reshape(-1)
    beta = (b - center.astype(f64) * alpha).astype(f32)
    out = (input.astype(f64) * alpha.reshape(shape) + beta.reshape(shape)).astype(f32)
    if training:
        return out, mean, invstd
    return out, mean, invstd_out


def _batch_norm(input: Any, weight: Any, bias: Any, running_mean: Any = None, running_var: Any = None,
                training: bool = True, eps: float = 1e-5) -> tuple:
    axes, shape = _channels(input.ndim)
    per_channel = (lambda v: None if v is None else np.reshape(v, shape))
    if _F32S_ONLY(input, weight, bias, running_mean, running_var) and input.size:
        return _batch_norm_float32(input, weight, bias, running_mean, running_var, training, eps, axes, shape)
    if training:
        out, mean, invstd = _normalize(input, axes, eps)
        mean, invstd = mean.reshape(-1), invstd.reshape(-1)
    else:
        out = (input - per_channel(running_mean)) / np.sqrt(per_channel(running_var) + eps)
        mean = invstd = np.zeros(0, input.dtype)
    return _affine(out, per_channel(weight), per_channel(bias)), mean, invstd


def _batch_norm_terms(F: Any, g: Any, eps: float, input: Any, result1: Any, result2: Any, running_mean: Any,
                      running_var: Any, training: bool) -> tuple:
    """(input - mean, invstd, sum(grad * (input - mean)) per channel, reduced axes, channel shape)
    for a batch norm's backward: batch statistics when training, running ones otherwise."""
    axes, shape = _channels(len(np.shape(F.raw(input))))
    if training:
        saved = (np.reshape(F.raw(result1), shape), np.reshape(F.raw(result2), shape))
        mean, invstd = _statistics(F, input, *saved, axes, eps)
    else:
        mean = np.reshape(running_mean, shape)
        invstd = (1 / np.sqrt(np.asarray(running_var) + eps)).reshape(shape)
    centered = input - mean
    return centered, invstd, F.sum(g[0] * centered, axes, True), axes, shape


def _batch_norm_grad_input(F: Any, g: Any, eps: float, input: Any, result1: Any, result2: Any,
                           running_mean: Any, running_var: Any, training: bool, weight: Any) -> Any:
    """PyTorch's batch_norm backward, in its form: (grad - mean(grad) - (x - mean) * k) * invstd *
    weight with k = sum(grad * (x - mean)) * invstd² / N (grad * invstd * weight in eval mode)."""
    centered, invstd, dotp, axes, shape = _batch_norm_terms(
        F, g, eps, input, result1, result2, running_mean, running_var, training)
    dy = g[0]
    if training:
        scale = 1.0 / _count_over(F.raw(input), axes)
        dy = dy - F.sum(dy, axes, True) * scale - centered * (dotp * invstd * invstd * scale)
    dx = dy * invstd
    return dx if weight is None else dx * F.reshape(weight, shape)


def _batch_norm_grad_weight(F: Any, g: Any, eps: float, input: Any, result1: Any, result2: Any,
                            running_mean: Any, running_var: Any, training: bool) -> Any:
    _, invstd, dotp, _, _ = _batch_norm_terms(
        F, g, eps, input, result1, result2, running_mean, running_var, training)
    return F.reshape(dotp * invstd, (-1,))


NATIVE_BATCH_NORM = rule(
    "native_batch_norm", "NativeBatchNormBackward0", _batch_norm,
    (_batch_norm_grad_input, _batch_norm_grad_weight,
     lambda F, g: F.sum(g[0], _channels(len(np.shape(F.raw(g[0]))))[0])),
    ("(grad - mean(grad) - x̂ * mean(grad * x̂)) * invstd * weight (eval: grad * invstd * weight)",
     "sum(grad * x̂) per channel", "sum(grad) per channel"),
    inputs=("input", "weight", "bias"), outputs=3, differentiable_outputs=(0,),
    output_names=("result", "result1", "result2"),
    defaults={"running_mean": None, "running_var": None, "training": True, "eps": 1e-5})

# --- convolution and pooling -------------------------------------------------------------------
# Kernels in engine.conv. A transposed convolution is the input gradient of a convolution, so one
# pair of helpers serves both; under create_graph they record the convolution nodes instead.
def _per_dim(values: tuple, ndim: int) -> tuple:
    """A geometry tuple with one entry per spatial dim (PyTorch keeps padding=(0,) for 'valid')."""
    return tuple(values) * ndim if len(values) == 1 else tuple(values)


def _geometry(ndim: int, stride: tuple, padding: tuple, dilation: tuple) -> tuple:
    """stride, padding and dilation with one entry per spatial dim."""
    return _per_dim(stride, ndim), _per_dim(padding, ndim), _per_dim(dilation, ndim)


GEOMETRY = ("stride", "padding", "dilation", "transposed", "output_padding", "groups")


def _conv_forward(F: Any, x: Any, w: Any, stride: tuple, padding: tuple, dilation: tuple, transposed: bool,
                  output_padding: tuple, groups: int) -> Any:
    """The convolution (transposed or not) of x with w, without bias."""
    if F is not ArrayMath:
        return F.op("convolution", x, w, None, stride=stride, padding=padding, dilation=dilation,
                    transposed=transposed, output_padding=output_padding, groups=groups,
                    bias_sym_sizes_opt=(0,))
    x, w = np.asarray(x), np.asarray(w)
    st, pad, dil = _geometry(w.ndim - 2, stride, padding, dilation)
    if not transposed:
        return conv.conv(x, w, st, pad, dil, groups)
    out_pad = _per_dim(output_padding, w.ndim - 2)
    shape = conv.transposed_out_shape(x.shape, w.shape, st, pad, dil, groups, out_pad)
    return conv.conv_grad_input(x, w, shape, st, pad, dil, groups)


def _conv_input_grad(F: Any, gy: Any, w: Any, x_shape: tuple, stride: tuple, padding: tuple, dilation: tuple,
                     transposed: bool, output_padding: tuple, groups: int) -> Any:
    """The gradient of a convolution with respect to its input (of shape x_shape)."""
    if F is not ArrayMath:
        placeholder = np.zeros(x_shape, np.asarray(F.raw(gy)).dtype)
        return F.op("convolution_backward", gy, placeholder, w, stride=stride, padding=padding,
                    dilation=dilation, transposed=transposed, output_padding=output_padding, groups=groups)[0]
    gy, w = np.asarray(gy), np.asarray(w)
    st, pad, dil = _geometry(w.ndim - 2, stride, padding, dilation)
    if transposed:
        return conv.conv(gy, w, st, pad, dil, groups)
    return conv.conv_grad_input(gy, w, tuple(x_shape), st, pad, dil, groups)


def _conv_weight_grad(F: Any, x: Any, gy: Any, w_shape: tuple, stride: tuple, padding: tuple, dilation: tuple,
                      transposed: bool, output_padding: tuple, groups: int) -> Any:
    """The gradient of a convolution of x with respect to its weight (of shape w_shape)."""
    if F is not ArrayMath:
        placeholder = np.zeros(w_shape, np.asarray(F.raw(gy)).dtype)
        return F.op("convolution_backward", gy, x, placeholder, stride=stride, padding=padding,
                    dilation=dilation, transposed=transposed, output_padding=output_padding, groups=groups)[1]
    x, gy = np.asarray(x), np.asarray(gy)
    st, pad, dil = _geometry(len(w_shape) - 2, stride, padding, dilation)
    if transposed:
        return conv.conv_grad_weight(gy, x, tuple(w_shape), st, pad, dil, groups)
    return conv.conv_grad_weight(x, gy, tuple(w_shape), st, pad, dil, groups)


def _bias_grad(F: Any, gy: Any) -> Any:
    """The gradient of a convolution's bias: grad summed over all dims but the channels."""
    ndim = np.ndim(F.raw(gy))
    return F.sum(gy, (0,) + tuple(range(2, ndim)))


def _convolution(input: Any, weight: Any, bias: Any, stride: tuple, padding: tuple, dilation: tuple,
                 transposed: bool, output_padding: tuple, groups: int,
                 bias_sym_sizes_opt: tuple = (0,)) -> Any:
    geometry = (stride, padding, dilation, transposed, output_padding, groups)
    out = _conv_forward(ArrayMath, input, weight, *geometry)
    if bias is None:
        return out
    return out + np.reshape(bias, (1, -1) + (1,) * (out.ndim - 2))


_SHARED: list = [None, None, None]  # (attrs, grad, outputs) of the last convolution backward node made


def _shared_backward(F: Any, g: Any, attrs: dict, input: Any, weight: Any) -> tuple:
    """Under create_graph, PyTorch computes a convolution's three gradients with one
    ConvolutionBackwardBackward0 node: made for the first gradient asked for, reused for the others
    (the same node's attrs and the same incoming grad)."""
    if _SHARED[0] is not attrs or _SHARED[1] is not g:
        geometry = {k: attrs[k] for k in GEOMETRY}
        _SHARED[:] = [attrs, g, F.op("convolution_backward", g, input, weight, **geometry)]
    return _SHARED[2]


def _convolution_grad(index: int) -> Any:
    """The gradient of a convolution with respect to input 0 (input), 1 (weight) or 2 (bias)."""

    def grad(F: Any, g: Any, attrs: dict, dilation: tuple, groups: int, input: Any, output_padding: tuple,
             padding: tuple, stride: tuple, transposed: bool, weight: Any) -> Any:
        if F is not ArrayMath:
            return _shared_backward(F, g, attrs, input, weight)[index]
        geometry = (stride, padding, dilation, transposed, output_padding, groups)
        if index == 0:
            return _conv_input_grad(F, g, weight, np.shape(input), *geometry)
        if index == 1:
            return _conv_weight_grad(F, input, g, np.shape(weight), *geometry)
        return _bias_grad(F, g)

    return grad


CONVOLUTION = rule(
    "convolution", "ConvolutionBackward0", _convolution,
    (_convolution_grad(0), _convolution_grad(1), _convolution_grad(2)),
    ("transposed convolution of grad with weight", "convolution of input with grad",
     "grad summed over all dims but channels"),
    inputs=("input", "weight", "bias"), extra_saves=("bias_sym_sizes_opt",), save_always=True)


def _convolution_backward(grad_output: Any, input: Any, weight: Any, stride: tuple, padding: tuple,
                          dilation: tuple, transposed: bool, output_padding: tuple, groups: int) -> tuple:
    geometry = (stride, padding, dilation, transposed, output_padding, groups)
    return (_conv_input_grad(ArrayMath, grad_output, weight, np.shape(input), *geometry),
            _conv_weight_grad(ArrayMath, input, grad_output, np.shape(weight), *geometry),
            _bias_grad(ArrayMath, grad_output))


def _convolution_double_backward(F: Any, g: Any, dilation: tuple, grad_output: Any, groups: int, input: Any,
                                 output_padding: tuple, padding: tuple, stride: tuple, transposed: bool,
                                 weight: Any) -> Any:
    """The gradient of convolution_backward's outputs with respect to grad_output: the convolution
    of their incoming gradients (ggI with weight, input with ggW, plus ggb as a bias)."""
    gg_input, gg_weight, gg_bias = g
    geometry = (stride, padding, dilation, transposed, output_padding, groups)
    terms = []
    if _received(F, gg_input):
        terms.append(_conv_forward(F, gg_input, weight, *geometry))
    if _received(F, gg_weight):
        terms.append(_conv_forward(F, input, gg_weight, *geometry))
    if _received(F, gg_bias):
        shape = np.shape(F.raw(grad_output))
        terms.append(F.expand(F.reshape(gg_bias, (1, -1) + (1,) * (len(shape) - 2)), shape))
    if not terms:
        return F.zeros_like(grad_output)
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total


CONVOLUTION_BACKWARD = rule(
    "convolution_backward", "ConvolutionBackwardBackward0", _convolution_backward,
    (_convolution_double_backward,
     lambda F, g, dilation, groups, grad_output, input, output_padding, padding, stride, transposed: (
         _conv_input_grad(F, grad_output, g[1], np.shape(F.raw(input)), stride, padding, dilation, transposed,
                          output_padding, groups)),
     lambda F, g, dilation, groups, grad_output, output_padding, padding, stride, transposed, weight: (
         _conv_weight_grad(F, g[0], grad_output, np.shape(F.raw(weight)), stride, padding, dilation,
                           transposed, output_padding, groups))),
    ("conv(ggI, weight) + conv(input, ggW) + ggb", "input gradient of grad_output with weight ggW",
     "weight gradient of ggI with grad_output"),
    inputs=("grad_output", "input", "weight"), outputs=3, output_names=("result0", "result1", "result2"),
    save_always=True)


# --- attention: _safe_softmax and the CPU flash attention kernel -------------------------------------------
def _safe_softmax(a: Any, dim: int) -> Any:
    """softmax, with 0 for slices of dim that are all -inf (instead of NaN)."""
    out = _softmax(a, dim)
    empty = np.all(np.asarray(a) == -np.inf, axis=dim, keepdims=True)
    return np.where(empty, np.zeros((), out.dtype), out)


SAFE_SOFTMAX = rule("_safe_softmax", "SafeSoftmaxBackward0", _safe_softmax,
                    (lambda F, g, dim, result: F.softmax_backward_data(g, result, dim=dim),),
                    ("result * (grad - sum(grad * result, dim))",))


def _attention_scores(q: np.ndarray, k: np.ndarray, attn_mask: Any, is_causal: bool, scale: float) -> np.ndarray:
    """q kᵀ * scale plus the additive mask, -inf above the diagonal when causal."""
    s = np.matmul(q, np.swapaxes(k, -1, -2)) * q.dtype.type(scale)
    if attn_mask is not None:
        s = s + np.asarray(attn_mask).astype(q.dtype)
    if is_causal:
        rows, cols = s.shape[-2:]
        s = np.where(np.tril(np.ones((rows, cols), bool)), s, q.dtype.type(-np.inf))
    return s


def _sdpa_scale(q: Any, scale: Any) -> float:
    return 1.0 / math.sqrt(np.shape(q)[-1]) if scale is None else scale


def _flash_attention(query: Any, key: Any, value: Any, attn_mask: Any = None, dropout_p: float = 0.0,
                     is_causal: bool = False, scale: Any = None) -> tuple:
    """softmax(q kᵀ * scale + mask) v and the log-sum-exp of each row of scores; a row with no key to
    attend gives 0 (and an infinite log-sum-exp). The output takes the query's memory layout; the
    log-sum-exp is laid out (batch, length, heads) as PyTorch's kernel writes it."""
    q, k, v = np.asarray(query), np.asarray(key), np.asarray(value)
    s = _attention_scores(q, k, attn_mask, is_causal, _sdpa_scale(q, scale))
    m = np.max(s, axis=-1, keepdims=True)
    dead = m == -np.inf
    m = np.where(dead, 0, m)
    p = np.exp(s - m)
    total = np.sum(p, axis=-1, keepdims=True)
    out = np.empty_like(q)
    out[...] = np.where(dead, 0, np.matmul(p, v) / np.where(dead, 1, total))
    lse = np.where(dead, np.inf, m + np.log(np.where(dead, 1, total)))[..., 0]
    laid = np.empty(lse.shape[:1] + lse.shape[2:] + lse.shape[1:2], lse.dtype)
    laid = np.swapaxes(laid, 1, 2)
    laid[...] = lse
    return out, laid


def _flash_attention_grads(g: Any, query: Any, key: Any, value: Any, attn_mask: Any, is_causal: bool,
                           logsumexp: Any, output: Any, scale: Any) -> tuple:
    """The gradients of the flash attention output with respect to query, key and value."""
    q, k, v, go = np.asarray(query), np.asarray(key), np.asarray(value), np.asarray(g)
    sc = q.dtype.type(_sdpa_scale(q, scale))
    s = _attention_scores(q, k, attn_mask, is_causal, float(sc))
    p = np.exp(s - np.asarray(logsumexp)[..., None])
    dp = np.matmul(go, np.swapaxes(v, -1, -2))
    ds = p * (dp - np.sum(go * np.asarray(output), axis=-1, keepdims=True))
    gq = np.matmul(ds, k) * sc
    gk = np.matmul(np.swapaxes(ds, -1, -2), q) * sc
    gv = np.matmul(np.swapaxes(p, -1, -2), go)
    return gq, gk, gv


_FLASH_BACKWARD = "_scaled_dot_product_flash_attention_for_cpu_backward"


_FLASH_SHARED: list = [None, None, None]  # (attrs, grad, gradients) of the last flash attention backward


def _flash_grad(index: int) -> Any:
    """Gradient `index` (query, key, value) of flash attention: the three computed once per backward;
    under create_graph they come from a node whose derivative PyTorch does not implement."""

    def grad(F: Any, g: Any, attn_mask: Any, attrs: dict, is_causal: bool, key: Any, logsumexp: Any,
             output: Any, query: Any, scale: Any, value: Any) -> Any:
        if _FLASH_SHARED[0] is not attrs or _FLASH_SHARED[1] is not g[0]:
            raw = [None if t is None else np.asarray(F.raw(t))
                   for t in (g[0], query, key, value, attn_mask, logsumexp, output)]
            _FLASH_SHARED[:] = [attrs, g[0], _flash_attention_grads(raw[0], raw[1], raw[2], raw[3], raw[4],
                                                                     is_causal, raw[5], raw[6], scale)]
        return kernel_gradient(F, _FLASH_BACKWARD, _FLASH_SHARED[2][index], (g[0], query, key, value))

    return grad


SDPA_FLASH_CPU = rule(
    "_scaled_dot_product_flash_attention_for_cpu", "ScaledDotProductFlashAttentionForCpuBackward0",
    _flash_attention, (_flash_grad(0), _flash_grad(1), _flash_grad(2)),
    ("(dS k) * scale", "(dSᵀ q) * scale", "Pᵀ grad"),
    inputs=("query", "key", "value"), outputs=2, differentiable_outputs=(0,),
    output_names=("output", "logsumexp"), extra_saves=("dropout_p",), save_always=True,
    defaults={"attn_mask": None, "dropout_p": 0.0, "is_causal": False, "scale": None})


# --- interpolation: one rule per PyTorch upsample op, and one for its backward (for double backward) -------
_SCALE_NAMES = {1: ("scales",), 2: ("scales_h", "scales_w"), 3: ("scales_d", "scales_h", "scales_w")}


def _upsample_taps(mode: str, input_size: tuple, output_size: tuple, dtype: Any, align_corners: bool = False,
                   **scales: Any) -> list:
    kind = {"bilinear": "linear", "trilinear": "linear"}.get(mode, mode)
    per_dim = tuple(scales.get(name) for name in _SCALE_NAMES[len(output_size)])
    return [conv.upsample_taps(kind, i, o, align_corners, s, np.dtype(dtype))
            for i, o, s in zip(input_size[2:], output_size, per_dim)]


def _upsample_rules(op: str, node: str, mode: str, dims: int, align: bool) -> tuple[Rule, Rule]:
    """upsample_<op> (grad_fn `node`) and upsample_<op>_backward, its gradient; saved: output_size, the
    scales, align_corners for the interpolating modes, and the input's sizes."""
    scale_names = _SCALE_NAMES[dims]
    saved = ("output_size",) + scale_names + (("align_corners",) if align else ())

    def forward(a: Any, output_size: tuple, **attrs: Any) -> Any:
        a = np.asarray(a)
        return conv.upsample(a, _upsample_taps(mode, a.shape, output_size, a.dtype, **attrs))

    def backward(grad_output: Any, output_size: tuple, input_size: tuple, **attrs: Any) -> Any:
        g = np.asarray(grad_output)
        taps = _upsample_taps(mode, input_size, output_size, g.dtype, **attrs)
        return conv.upsample_grad(g, tuple(input_size), taps, mode)

    def grad(F: Any, g: Any, attrs: dict, input_sizes: tuple) -> Any:
        kept = {k: attrs[k] for k in saved}
        return F.op(f"upsample_{op}_backward", g, input_size=tuple(input_sizes[0]), **kept)

    def grad_of_backward(F: Any, g: Any, attrs: dict) -> Any:
        return F.op(f"upsample_{op}", g, **{k: attrs[k] for k in saved})

    defaults = dict.fromkeys(scale_names)
    forward_rule = rule(f"upsample_{op}", node, forward, (grad,), (f"upsample_{op}_backward(grad)",),
                        extra_saves=saved + ("self_sym_sizes",), defaults=defaults, exact_dtype=True)
    backward_rule = rule(f"upsample_{op}_backward", node.replace("Backward0", "BackwardBackward0"), backward,
                         (grad_of_backward,), (f"upsample_{op}(grad)",), inputs=("grad_output",),
                         extra_saves=saved, defaults=defaults, exact_dtype=True)
    return forward_rule, backward_rule


UPSAMPLE_NEAREST1D, UPSAMPLE_NEAREST1D_BACKWARD = _upsample_rules(
    "nearest1d", "UpsampleNearest1DBackward0", "nearest", 1, False)
UPSAMPLE_NEAREST_EXACT1D, UPSAMPLE_NEAREST_EXACT1D_BACKWARD = _upsample_rules(
    "nearest_exact1d", "UpsampleNearestExact1DBackward0", "nearest-exact", 1, False)
UPSAMPLE_LINEAR1D, UPSAMPLE_LINEAR1D_BACKWARD = _upsample_rules(
    "linear1d", "UpsampleLinear1DBackward0", "linear", 1, True)
UPSAMPLE_NEAREST2D, UPSAMPLE_NEAREST2D_BACKWARD = _upsample_rules(
    "nearest2d", "UpsampleNearest2DBackward0", "nearest", 2, False)
UPSAMPLE_NEAREST_EXACT2D, UPSAMPLE_NEAREST_EXACT2D_BACKWARD = _upsample_rules(
    "nearest_exact2d", "UpsampleNearestExact2DBackward0", "nearest-exact", 2, False)
UPSAMPLE_BILINEAR2D, UPSAMPLE_BILINEAR2D_BACKWARD = _upsample_rules(
    "bilinear2d", "UpsampleBilinear2DBackward0", "bilinear", 2, True)
UPSAMPLE_BICUBIC2D, UPSAMPLE_BICUBIC2D_BACKWARD = _upsample_rules(
    "bicubic2d", "UpsampleBicubic2DBackward0", "bicubic", 2, True)
UPSAMPLE_NEAREST3D, UPSAMPLE_NEAREST3D_BACKWARD = _upsample_rules(
    "nearest3d", "UpsampleNearest3DBackward0", "nearest", 3, False)
UPSAMPLE_NEAREST_EXACT3D, UPSAMPLE_NEAREST_EXACT3D_BACKWARD = _upsample_rules(
    "nearest_exact3d", "UpsampleNearestExact3DBackward0", "nearest-exact", 3, False)
UPSAMPLE_TRILINEAR3D, UPSAMPLE_TRILINEAR3D_BACKWARD = _upsample_rules(
    "trilinear3d", "UpsampleTrilinear3DBackward0", "trilinear", 3, True)


def _constant_pad(a: Any, pad: tuple, value: Any = 0) -> Any:
    """PyTorch's constant_pad_nd: pad = (last dim's before, after, the dim before's...); negative
    amounts crop."""
    a = np.asarray(a)
    widths = [(0, 0)] * a.ndim
    for i in range(len(pad) // 2):
        widths[a.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    out = np.pad(a, [(max(lo, 0), max(hi, 0)) for lo, hi in widths], constant_values=value)
    crop = tuple(slice(max(-lo, 0), out.shape[d] - max(-hi, 0)) for d, (lo, hi) in enumerate(widths))
    return out[crop].copy()


CONSTANT_PAD_ND = rule("constant_pad_nd", "ConstantPadNdBackward0", _constant_pad,
                       (lambda F, g, pad: F.op("constant_pad_nd", g, pad=tuple(-p for p in pad)),),
                       ("grad with the padding cut off",), defaults={"value": 0})


def _pad_maps(shape: tuple, padding: tuple, mode: str) -> tuple:
    """For reflection / replication padding: the input index each output position reads, per padded dim
    (the last len(padding) // 2 dims), as open-mesh index arrays."""
    maps = []
    for i in reversed(range(len(padding) // 2)):
        size, lo, hi = shape[len(shape) - 1 - i], padding[2 * i], padding[2 * i + 1]
        j = np.arange(size + lo + hi) - lo
        if mode == "reflect":
            j = np.abs(j)
            j = np.where(j > size - 1, 2 * (size - 1) - j, j)
        else:
            j = np.clip(j, 0, size - 1)
        maps.append(j)
    return (Ellipsis,) + np.ix_(*maps)


def _pad_rules(mode: str, dims: int) -> tuple[Rule, Rule]:
    """reflection_pad{dims}d / replication_pad{dims}d (grad_fn ReflectionPad1DBackward0...) and its
    backward op (the gradient summed back onto the input positions each output read)."""
    kind = "reflection" if mode == "reflect" else "replication"
    name, node = f"{kind}_pad{dims}d", f"{kind.capitalize()}Pad{dims}DBackward0"

    def forward(a: Any, padding: tuple) -> Any:
        a = np.asarray(a)
        return np.ascontiguousarray(a[_pad_maps(a.shape, padding, mode)])

    def backward(grad_output: Any, self: Any, padding: tuple) -> Any:
        g = np.asarray(grad_output)
        shape = np.shape(self)
        gi = np.zeros(shape, g.dtype)
        np.add.at(gi, _pad_maps(shape, padding, mode), g)
        return gi

    forward_rule = rule(name, node, forward,
                        (lambda F, g, padding, self: getattr(F, f"{name}_backward")(g, self, padding=padding),),
                        (f"{name}_backward(grad)",), exact_dtype=True)
    backward_rule = backward_function(
        f"{name}_backward", node.replace("Backward0", "BackwardBackward0"), backward,
        (lambda F, g, padding: F.op(name, g, padding=padding), lambda F, g: F.zeros_like(g)),
        (f"{name}(grad)", "0"), inputs=("grad_output", "self"), exact_dtype=True)
    return forward_rule, backward_rule


REFLECTION_PAD1D, REFLECTION_PAD1D_BACKWARD = _pad_rules("reflect", 1)
REFLECTION_PAD2D, REFLECTION_PAD2D_BACKWARD = _pad_rules("reflect", 2)
REFLECTION_PAD3D, REFLECTION_PAD3D_BACKWARD = _pad_rules("reflect", 3)
REPLICATION_PAD1D, REPLICATION_PAD1D_BACKWARD = _pad_rules("replicate", 1)
REPLICATION_PAD2D, REPLICATION_PAD2D_BACKWARD = _pad_rules("replicate", 2)
REPLICATION_PAD3D, REPLICATION_PAD3D_BACKWARD = _pad_rules("replicate", 3)


def _max_unpool(a: Any, indices: Any, output_size: tuple) -> Any:
    """Each value written at its index into a zero plane of output_size (the inverse of max pooling)."""
    a, idx = np.asarray(a), np.asarray(indices)
    lead = a.shape[:-len(output_size)]
    planes = int(np.prod(lead))
    out = np.zeros((planes, int(np.prod(output_size))), a.dtype)
    np.put_along_axis(out, idx.reshape(planes, -1), a.reshape(planes, -1), axis=1)
    return out.reshape(lead + tuple(output_size))


def _max_unpool_rule(dims: int) -> Rule:
    return rule(f"max_unpool{dims}d", f"MaxUnpool{dims}DBackward0", _max_unpool,
                (lambda F, g, indices: _max_pool_double_backward(F, g, indices, dims),),
                ("grad read at each index (max_pool_double_backward)",), exact_dtype=True)


MAX_UNPOOL2D = _max_unpool_rule(2)
MAX_UNPOOL3D = _max_unpool_rule(3)


def _pixel_shuffle(a: Any, upscale_factor: int) -> Any:
    a = np.asarray(a)
    r = upscale_factor
    *lead, c, h, w = a.shape
    out = a.reshape(*lead, c // (r * r), r, r, h, w)
    n = len(lead)
    out = out.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return np.ascontiguousarray(out.reshape(*lead, c // (r * r), h * r, w * r))


def _pixel_unshuffle(a: Any, downscale_factor: int) -> Any:
    a = np.asarray(a)
    r = downscale_factor
    *lead, c, h, w = a.shape
    out = a.reshape(*lead, c, h // r, r, w // r, r)
    n = len(lead)
    out = out.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return np.ascontiguousarray(out.reshape(*lead, c * r * r, h // r, w // r))


PIXEL_SHUFFLE = rule("pixel_shuffle", "PixelShuffleBackward0", _pixel_shuffle,
                     (lambda F, g, upscale_factor: F.op("pixel_unshuffle", g, downscale_factor=upscale_factor),),
                     ("pixel_unshuffle(grad, upscale_factor)",), exact_dtype=True)
PIXEL_UNSHUFFLE = rule("pixel_unshuffle", "PixelUnshuffleBackward0", _pixel_unshuffle,
                       (lambda F, g, downscale_factor: F.op("pixel_shuffle", g, upscale_factor=downscale_factor),),
                       ("pixel_shuffle(grad, downscale_factor)",), exact_dtype=True)


def _im2col(a: Any, kernel_size: tuple, dilation: tuple, padding: tuple, stride: tuple) -> Any:
    """(N, C * kh * kw, L): every sliding block of the (padded) input as a column."""
    a = np.asarray(a)
    unbatched = a.ndim == 3
    x = a[None] if unbatched else a
    out = tuple(conv.conv_out_size(*g) for g in zip(x.shape[2:], kernel_size, stride, padding, dilation))
    cols = conv._columns(x, tuple(kernel_size), tuple(stride), tuple(padding), tuple(dilation), 1, out)
    cols = np.ascontiguousarray(np.swapaxes(cols[:, 0], 1, 2))
    return cols[0] if unbatched else cols


def _col2im(a: Any, output_size: tuple, kernel_size: tuple, dilation: tuple, padding: tuple,
            stride: tuple) -> Any:
    """The columns of im2col summed back into an (N, C, *output_size) image (overlaps add up)."""
    a = np.asarray(a)
    unbatched = a.ndim == 2
    cols = a[None] if unbatched else a
    out = tuple(conv.conv_out_size(*g) for g in zip(output_size, kernel_size, stride, padding, dilation))
    n, c = cols.shape[0], cols.shape[1] // int(np.prod(kernel_size))
    cols = cols.reshape((n, c) + tuple(kernel_size) + out)
    padded = tuple(s + 2 * p for s, p in zip(output_size, padding))
    image = np.zeros((n, c) + padded, a.dtype)
    for k in np.ndindex(*kernel_size):
        window = tuple(slice(i * dl, i * dl + st * (m - 1) + 1, st) for i, dl, st, m in zip(k, dilation, stride, out))
        image[(slice(None), slice(None)) + window] += cols[(slice(None), slice(None)) + k]
    crop = tuple(slice(p, p + s) for p, s in zip(padding, output_size))
    image = np.ascontiguousarray(image[(slice(None), slice(None)) + crop])
    return image[0] if unbatched else image


IM2COL = rule("im2col", "Im2ColBackward0", _im2col,
              (lambda F, g, dilation, kernel_size, padding, self_sym_argsize_minus_2, self_sym_argsize_minus_1, stride:
               F.op("col2im", g, output_size=(self_sym_argsize_minus_2, self_sym_argsize_minus_1),
                    kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride),),
              ("col2im(grad)",), exact_dtype=True)
COL2IM = rule("col2im", "Col2ImBackward0", _col2im,
              (lambda F, g, dilation, kernel_size, padding, stride: F.op(
                  "im2col", g, kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride),),
              ("im2col(grad)",), exact_dtype=True)


def _batched(fn: Any, dims: int = 2) -> Any:
    """A pooling kernel that also takes one unbatched (C, *spatial) input, like PyTorch's; geometry
    arguments given once are repeated for each of the dims spatial dims."""

    def kernel(x: Any, kernel_size: tuple, stride: tuple, padding: tuple, *args: Any) -> Any:
        kernel_size, padding = _per_dim(kernel_size, dims), _per_dim(padding, dims)
        stride = _per_dim(_pool_geometry(kernel_size, stride), dims)
        if np.ndim(x) == dims + 1:
            out = fn(np.asarray(x)[None], kernel_size, stride, padding, *args)
            return tuple(o[0] for o in out) if isinstance(out, tuple) else out[0]
        return fn(np.asarray(x), kernel_size, stride, padding, *args)

    return kernel


def _pool_geometry(kernel_size: tuple, stride: tuple) -> tuple:
    """The stride a pooling uses: its kernel size when none was given (saved as ())."""
    return tuple(stride) if len(stride) else tuple(kernel_size)


def _max_pool_backward(dims: int) -> Any:
    """max_pool{dims}d_with_indices_backward: each window's gradient added at its maximum."""

    def backward(grad_output: Any, self: Any, indices: Any) -> Any:
        shape = np.shape(self)
        lead = (1,) if len(shape) == dims + 1 else ()  # an unbatched input: one batch of planes
        g, idx = np.asarray(grad_output), np.asarray(indices)
        out = conv.max_pool_grad(g.reshape(lead + g.shape), idx.reshape(lead + idx.shape), lead + shape)
        return out.reshape(shape)

    return backward


def _max_pool_double_backward(F: Any, g: Any, indices: Any, dims: int = 2) -> Any:
    """PyTorch's max_pool_double_backward: grad read back at each window's maximum."""
    idx = np.asarray(F.raw(indices))
    flat = idx.reshape(idx.shape[:-dims] + (-1,))
    shape = np.shape(F.raw(g))
    picked = F.op("gather", F.reshape(g, shape[:-dims] + (-1,)), dim=-1, index=flat)
    return F.reshape(picked, idx.shape)


def _max_pool_rules(dims: int) -> tuple[Rule, Rule]:
    """max_pool{dims}d (grad_fn MaxPool{dims}DWithIndicesBackward0; values and indices) and its backward op."""
    name, node = f"max_pool{dims}d", f"MaxPool{dims}DWithIndicesBackward0"
    backward_name = f"{name}_with_indices_backward"

    def forward(self: Any, kernel_size: tuple, stride: tuple, padding: tuple, dilation: tuple,
                ceil_mode: bool) -> tuple:
        return _batched(conv.max_pool, dims)(self, kernel_size, stride, padding, _per_dim(dilation, dims),
                                             ceil_mode)

    forward_rule = rule(
        name, node, forward,
        (lambda F, g, result1, self: getattr(F, backward_name)(g[0], self, indices=F.raw(result1)),),
        ("grad added at each window's maximum",), outputs=2, differentiable_outputs=(0,),
        output_names=("result", "result1"),
        extra_saves=("ceil_mode", "dilation", "kernel_size", "padding", "stride"))
    backward_rule = backward_function(
        backward_name, node.replace("Backward0", "BackwardBackward0"), _max_pool_backward(dims),
        (lambda F, g, indices: _max_pool_double_backward(F, g, indices, dims), lambda F, g: F.zeros_like(g)),
        ("grad read at each window's maximum", "0"), inputs=("grad_output", "self"))
    return forward_rule, backward_rule


MAX_POOL2D, MAX_POOL2D_BACKWARD = _max_pool_rules(2)
MAX_POOL3D, MAX_POOL3D_BACKWARD = _max_pool_rules(3)


def _avg_pool_rules(dims: int) -> tuple[Rule, Rule]:
    """avg_pool{dims}d (grad_fn AvgPool{dims}DBackward0) and its backward op (whose gradient is the
    avg_pool of grad with the same parameters)."""
    name, node = f"avg_pool{dims}d", f"AvgPool{dims}DBackward0"
    backward_name = f"{name}_backward"

    def forward(self: Any, kernel_size: tuple, stride: tuple, padding: tuple, ceil_mode: bool,
                count_include_pad: bool, divisor_override: Any) -> Any:
        return _batched(conv.avg_pool, dims)(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                             divisor_override)

    def backward(grad_output: Any, self: Any, kernel_size: tuple, stride: tuple, padding: tuple,
                 ceil_mode: bool, count_include_pad: bool, divisor_override: Any) -> Any:
        unbatched = np.ndim(self) == dims + 1
        g = np.asarray(grad_output)[None] if unbatched else np.asarray(grad_output)
        shape = (1,) + np.shape(self) if unbatched else np.shape(self)
        kernel_size = _per_dim(kernel_size, dims)
        out = conv.avg_pool_grad(g, shape, kernel_size, _per_dim(_pool_geometry(kernel_size, stride), dims),
                                 _per_dim(padding, dims), ceil_mode, count_include_pad, divisor_override)
        return out[0] if unbatched else out

    def grad(F: Any, g: Any, ceil_mode: bool, count_include_pad: bool, divisor_override: Any,
             kernel_size: tuple, padding: tuple, self: Any, stride: tuple) -> Any:
        return getattr(F, backward_name)(g, self, kernel_size=kernel_size, stride=stride, padding=padding,
                                         ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                                         divisor_override=divisor_override)

    def grad_of_backward(F: Any, g: Any, ceil_mode: bool, count_include_pad: bool, divisor_override: Any,
                         kernel_size: tuple, padding: tuple, stride: tuple) -> Any:
        return F.op(name, g, kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
                    count_include_pad=count_include_pad, divisor_override=divisor_override)

    forward_rule = rule(name, node, forward, (grad,), ("grad / divisor spread over each window",))
    backward_rule = backward_function(
        backward_name, node.replace("Backward0", "BackwardBackward0"), backward,
        (grad_of_backward, lambda F, g: F.zeros_like(g)),
        (f"{name}(grad)", "0"), inputs=("grad_output", "self"))
    return forward_rule, backward_rule


AVG_POOL2D, AVG_POOL2D_BACKWARD = _avg_pool_rules(2)
AVG_POOL3D, AVG_POOL3D_BACKWARD = _avg_pool_rules(3)

# --- losses --------------------------------------------------------------------------------------
LOSS = ("self", "target")
MSE_LOSS = rule(
    "mse_loss", "MseLossBackward0", lambda a, t, reduction=1: _reduce((a - t) ** 2, reduction),
    # target's is mse_loss_backward with self and target swapped, as in PyTorch (a zero comes out +0)
    (lambda F, g, reduction, self, target: F.mse_loss_backward(g, self, target, reduction=reduction),
     lambda F, g, reduction, self, target: F.mse_loss_backward(g, target, self, reduction=reduction)),
    ("2 * (self - target) * grad / N", "-2 * (self - target) * grad / N"), inputs=LOSS,
    defaults={"reduction": 1})
# target's gradient is the backward op with self and target swapped, as in PyTorch; the plain
# backward keeps -(self's) (the same values, but a zero comes out -0 there as it always has).
SMOOTH_L1_LOSS = rule(
    "smooth_l1_loss", "SmoothL1LossBackward0",
    lambda a, t, reduction=1, beta=1.0: _reduce(_smooth_l1(a - t, beta), reduction),
    (lambda F, g, beta, reduction, self, target: F.smooth_l1_loss_backward(
        g, self, target, reduction=reduction, beta=beta),
     lambda F, g, beta, reduction, self, target: F.smooth_l1_loss_backward(
         g, self, target, reduction=reduction, beta=beta) * -1 if F is ArrayMath
        else F.smooth_l1_loss_backward(g, target, self, reduction=reduction, beta=beta)),
    ("grad * clamp((self - target) / beta, -1, 1) / N", "-(same)"), inputs=LOSS,
    defaults={"reduction": 1, "beta": 1.0})
HUBER_LOSS = rule(
    "huber_loss", "HuberLossBackward0",
    # the loss has the input's dtype (PyTorch writes it into empty_like(input))
    lambda a, t, reduction=1, delta=1.0: np.asarray(_reduce(_huber(a - t, delta), reduction),
                                                    np.asarray(a).dtype),
    (lambda F, g, delta, reduction, self, target: F.huber_loss_backward(
        g, self, target, reduction=reduction, delta=delta),
     lambda F, g, delta, reduction, self, target: F.huber_loss_backward(
         g, self, target, reduction=reduction, delta=delta) * -1 if F is ArrayMath
        else F.huber_loss_backward(g, target, self, reduction=reduction, delta=delta)),
    ("grad * clamp(self - target, -delta, delta) / N", "-(same)"), inputs=LOSS,
    defaults={"reduction": 1, "delta": 1.0})


def _smooth_l1_grad(F: Any, d: Any, beta: float) -> Any:
    if beta == 0:
        return F.sign(d)
    return F.where(F.abs(d) < beta, d * (1.0 / beta), F.sign(d))


def _huber_grad(F: Any, d: Any, delta: float) -> Any:
    return F.where(F.abs(d) < delta, d, F.sign(d) * delta)


NLL_LOSS = rule(
    "nll_loss", "NllLossBackward0",
    lambda a, target, weight=None, reduction=1, ignore_index=-100, total_weight=None: _nll(
        a, target, weight, reduction, ignore_index)[0],
    (lambda F, g, ignore_index, reduction, self, target, total_weight, weight: F.nll_loss_backward(
        g, self, target=target, weight=weight, reduction=reduction, ignore_index=ignore_index,
        total_weight=total_weight),),
    ("-weight[target] * grad / total_weight at each target class",),
    extra_saves=("total_weight",),
    defaults={"weight": None, "reduction": 1, "ignore_index": -100})
BCE = rule(
    "binary_cross_entropy", "BinaryCrossEntropyBackward0",
    lambda a, t, weight=None, reduction=1: _bce(a, t, weight, reduction),
    (lambda F, g, reduction, self, target, weight: F.binary_cross_entropy_backward(
        g, self, target, weight=weight, reduction=reduction),
     None),
    ("grad * (self - target) / (self * (1 - self)) / N", None), inputs=LOSS,
    defaults={"weight": None, "reduction": 1})
BCE_LOGITS = rule(
    "binary_cross_entropy_with_logits", "BinaryCrossEntropyWithLogitsBackward0",
    lambda a, t, weight=None, pos_weight=None, reduction=1: _bce_logits(a, t, weight, pos_weight, reduction),
    (lambda F, g, pos_weight, reduction, self, target, weight: _bce_logits_backward(
        F, g, self, target, weight, pos_weight, reduction),
     None),
    ("grad * (σ(self) - target) / N", None), inputs=LOSS,
    defaults={"weight": None, "pos_weight": None, "reduction": 1})


def _bce_logits_grad(F: Any, self: Any, target: Any, pos_weight: Any) -> Any:
    if pos_weight is None:
        return F.sigmoid(self) - target
    return (pos_weight * target + 1 - target) * F.sigmoid(self) - pos_weight * target


def _bce_logits_backward(F: Any, g: Any, self: Any, target: Any, weight: Any, pos_weight: Any,
                         reduction: int) -> Any:
    if F is ArrayMath:
        return (_reduce_grad(F, g, np.shape(self), reduction) * _bce_logits_grad(F, self, target, pos_weight)
                * (1.0 if weight is None else weight))
    # PyTorch's binary_cross_entropy_with_logits_backward: ordinary nodes, in its order
    if pos_weight is None:
        grad_input = F.sigmoid(self) - target
    else:
        t = target * pos_weight
        grad_input = (F.op("add_scalar", t, other=1) - target) * F.sigmoid(self) - t
    grad_input = grad_input * g
    if weight is not None:
        grad_input = grad_input * weight
    return _per_element(F, grad_input, self, reduction)


_BCE_EPS = 1e-12


def _bce_backward(grad_output: Any, self: Any, target: Any, weight: Any = None, reduction: int = 1) -> Any:
    return (_reduce_grad(ArrayMath, grad_output, np.shape(self), reduction) * (self - target)
            / np.where(self * (1 - self) > 1e-12, self * (1 - self), 1e-12)
            * (1.0 if weight is None else weight))


def _one_minus_plus_eps(F: Any, self: Any) -> Any:
    """`1 - self + eps`: PyTorch's `number - tensor` subtracts from a filled tensor (SubBackward0)."""
    return F.op("add_scalar", F.op("sub", F.ones_like(self), self), other=_BCE_EPS)


def _bce_double_backward(F: Any, g: Any, grad_output: Any, reduction: int, self: Any, target: Any,
                         weight: Any) -> Any:
    """binary_cross_entropy_double_backward: d/d self of the backward op, times g."""
    numerator = self * self - _scale(F, self, 2) * target + target
    denominator = (F.op("pow", F.op("add_scalar", self, other=_BCE_EPS), exponent=2)
                   * F.op("pow", _one_minus_plus_eps(F, self), exponent=2))
    grad_input = numerator / denominator * (g * grad_output)
    if weight is not None:
        grad_input = grad_input * weight
    return _per_element(F, grad_input, self, reduction)


def _bce_double_backward_grad_output(F: Any, g: Any, reduction: int, self: Any, target: Any,
                                     weight: Any) -> Any:
    """binary_cross_entropy_double_backward_grad_output: d/d grad_output, times g (summed to
    grad_output's shape by the engine)."""
    grad_grad_output = ((self - target) / (F.op("add_scalar", self, other=_BCE_EPS)
                                           * _one_minus_plus_eps(F, self))) * g
    if weight is not None:
        grad_grad_output = grad_grad_output * weight
    return _per_element(F, grad_grad_output, self, reduction)


BCE_BACKWARD = backward_function(
    "binary_cross_entropy_backward", "BinaryCrossEntropyBackwardBackward0", _bce_backward,
    (_bce_double_backward_grad_output, _bce_double_backward, None),
    ("grad * (self - target) / ((self + eps) * (1 - self + eps)) / N",
     "grad * grad_output * (self² - 2 * self * target + target) / ((self + eps)² (1 - self + eps)²) / N",
     None),
    inputs=("grad_output", "self", "target"), defaults={"weight": None, "reduction": 1})

ALIAS = rule("alias", "AliasBackward0", lambda a: a.view(), (lambda F, g: g,), ("grad",), view=True)
# The primal view autograd.forward_ad.unpack_dual hands back: PyTorch's node for it is a C++ Identity
# (class CppFunction, printed in a tensor's repr by its short name).
UNPACK_DUAL = rule("_unpack_dual", "CppFunction", lambda a: a.view(), (lambda F, g: g,), ("grad",), view=True)
UNPACK_DUAL.node_cls.name = lambda self: "torch::autograd::Identity"

# --- in-place specific nodes --------------------------------------------------------------------
COPY = rule("copy_", "CopyBackwards",
            lambda a, src: np.broadcast_to(np.asarray(src), np.shape(a)).astype(np.asarray(a).dtype),
            (lambda F, g: F.zeros_like(g), lambda F, g: g), ("0", "grad summed to src's shape"),
            inputs=("self", "src"), exact_dtype=True)
COPY.node_cls.name = lambda self: "torch::autograd::CopyBackwards"  # PyTorch's C++ name
FILL = rule("fill_", "FillBackward2", lambda a, value: np.full(np.shape(a), value, np.asarray(a).dtype),
            (lambda F, g: F.zeros_like(g),), ("0",), exact_dtype=True)
FILL_TENSOR = rule("fill_tensor", "FillBackward3",
                   lambda a, value: np.full(np.shape(a), np.asarray(value), np.asarray(a).dtype),
                   (lambda F, g: F.zeros_like(g), lambda F, g: g), ("0", "grad.sum()"),
                   inputs=("self", "value"), exact_dtype=True)
ZERO = rule("zero_", "ZeroBackward0", lambda a: np.zeros_like(a), (lambda F, g: F.zeros_like(g),), ("0",),
            exact_dtype=True)


def _random_fill(name: str, node: str) -> Rule:
    """An in-place draw from a distribution, the drawn `values` given: no gradient flows back."""
    return rule(name, node, lambda a, values: np.asarray(values, np.asarray(a).dtype).reshape(np.shape(a)),
                (lambda F, g: F.zeros_like(g),), ("0",), exact_dtype=True)


UNIFORM_ = _random_fill("uniform_", "UniformBackward0")
NORMAL_ = _random_fill("normal_", "NormalBackward0")
RANDOM_FROM_TO = _random_fill("random_from_to_", "RandomBackward0")
RANDOM_TO = _random_fill("random_to_", "RandomBackward1")
RANDOM_ = _random_fill("random_", "RandomBackward2")
EXPONENTIAL_ = _random_fill("exponential_", "ExponentialBackward0")
GEOMETRIC_ = _random_fill("geometric_", "GeometricBackward0")
CAUCHY_ = _random_fill("cauchy_", "CauchyBackward0")
LOG_NORMAL_ = _random_fill("log_normal_", "LogNormalBackward0")
BERNOULLI_ = _random_fill("bernoulli_", "BernoulliBackward2")
POISSON = rule("poisson", "PoissonBackward0", lambda a, values: np.asarray(values, np.asarray(a).dtype),
               (lambda F, g: F.zeros_like(g),), ("0",), exact_dtype=True)
BERNOULLI = rule("bernoulli", "BernoulliBackward0", lambda a, values: np.asarray(values, np.asarray(a).dtype),
                 (lambda F, g: F.zeros_like(g),), ("0",), exact_dtype=True)
BERNOULLI_TENSOR_ = rule("bernoulli_tensor_", "BernoulliBackward1",
                         lambda a, p, values: np.asarray(values, np.asarray(a).dtype).reshape(np.shape(a)),
                         (lambda F, g: F.zeros_like(g), lambda F, g: F.zeros_like(g)), ("0", "0"),
                         inputs=("self", "p"), exact_dtype=True)


def _index_put(a: Any, values: Any, indices: tuple, accumulate: bool = False) -> Any:
    out = np.array(a, copy=True)
    if accumulate:
        np.add.at(out, _index_key(indices), values)
    else:
        out[_index_key(indices)] = values
    return out


INDEX_PUT = rule("index_put", "IndexPutBackward0", _index_put,
                 (lambda F, g, accumulate, indices: g if accumulate else F.op(
                     "index_put", g, np.zeros((),
                                              np.asarray(F.raw(g)).dtype), indices=indices, accumulate=False),
                  lambda F, g, accumulate, indices: F.op("index", g, indices=indices)),
                 ("grad with zeros where values were written", "grad at the written positions"),
                 inputs=("self", "values"), defaults={"accumulate": False}, exact_dtype=True)


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def _addresses(a: np.ndarray) -> np.ndarray:
    """The memory address of each element of `a`."""
    out = np.full(a.shape, _address(a), np.int64)
    for k, (n, step) in enumerate(zip(a.shape, a.strides)):
        out += (np.arange(n, dtype=np.int64) * step).reshape((n,) + (1,) * (a.ndim - k - 1))
    return out


def where_in_base(base: np.ndarray, view: np.ndarray) -> tuple:
    """Where `view`, a NumPy view into `base`'s memory, lies in `base` taken row-major: the base's shape,
    and the view's size, stride and storage offset in elements (the arguments of torch.as_strided)."""
    if base.flags.c_contiguous:
        stride = tuple(step // base.itemsize for step in view.strides)
        return base.shape, view.shape, stride, (_address(view) - _address(base)) // base.itemsize
    at = _addresses(base).ravel()  # another layout (a transposed result...): each element's row-major index
    order = np.argsort(at)
    index = order[np.searchsorted(at, _addresses(view), sorter=order)]
    if not index.size:
        return base.shape, view.shape, (0,) * view.ndim, 0
    first = (0,) * view.ndim
    stride = tuple(int(index[first[:k] + (1,) + first[k + 1:]] - index[first]) if n > 1 else 0
                   for k, n in enumerate(view.shape))
    return base.shape, view.shape, stride, int(index[first])


def _region(buffer: np.ndarray, geometry: tuple) -> np.ndarray:
    """The view's elements inside `buffer`, a row-major array shaped like the base (geometry: where_in_base)."""
    _, size, stride, offset = geometry
    item = buffer.itemsize
    return np.ndarray(size, buffer.dtype, buffer, offset * item, tuple(step * item for step in stride))


def _repeats(geometry: tuple) -> bool:
    """Whether the view holds some element of the base more than once (expand's stride 0, unfold's windows)."""
    span = 0
    for step, n in sorted((abs(step), n) for n, step in zip(geometry[1], geometry[2]) if n > 1):
        if step <= span:
            return True
        span += step * (n - 1)
    return False


def as_strided_attrs(base: np.ndarray, view: np.ndarray) -> dict:
    """AsStridedBackward0's attributes for `view`, a NumPy view into `base`: the size, stride and storage
    offset (in elements) PyTorch saves for it, and both arrays, from which backward finds its elements."""
    stride = [step // base.itemsize for step in view.strides]
    for k in reversed(range(view.ndim)):  # a size-1 dim: PyTorch's stride where NumPy's newaxis has 0
        if view.shape[k] == 1 and stride[k] == 0:
            stride[k] = stride[k + 1] * view.shape[k + 1] if k + 1 < view.ndim else 1
    return {"size": view.shape, "stride": tuple(stride),
            "storage_offset": (_address(view) - _address(base)) // base.itemsize, "geometry": (base, view)}


def _as_strided_grad(F: Any, g: Any, attrs: dict) -> Any:
    """PyTorch's as_strided_backward: the gradient added into zeros shaped like the storage at the view's
    elements, then read at the input's own elements (`input_geometry`, when the input is not the whole
    storage), each divided by the number of times the input holds it."""
    storage = F.op("strided_scatter", g, geometry=where_in_base(*attrs["geometry"]))
    inp = attrs.get("input_geometry")
    if F is not ArrayMath:  # as PyTorch: the storage read as the input by an as_strided node
        raw = np.ascontiguousarray(F.raw(storage))
        if inp is None:
            inp = (raw.shape, raw.shape, tuple(n // raw.itemsize for n in raw.strides), 0)
        out = F.op("as_strided", storage, geometry=(raw, _region(raw, inp)), size=inp[1], stride=inp[2],
                   storage_offset=inp[3])
    elif inp is None:
        return storage
    else:
        out = F.op("strided_gather", storage, geometry=inp)
    if _repeats(inp):
        counts = np.zeros(int(np.prod(inp[0])), np.asarray(F.raw(g)).dtype)
        np.add.at(counts, _region(np.arange(counts.size), inp), 1)
        out = out / _region(counts, inp)
    return out


AS_STRIDED = rule("as_strided", "AsStridedBackward0", lambda a, geometry, **layout: geometry[1],
                  (_as_strided_grad,),
                  ("grad added into zeros like the base at the view's elements",), view=True,
                  extra_saves=("size", "stride", "storage_offset"))


def _strided_scatter(g: Any, geometry: tuple) -> Any:
    out = np.zeros(geometry[0], np.asarray(g).dtype)
    if _repeats(geometry):  # an element the view holds more than once gets the sum
        np.add.at(out.reshape(-1), _region(np.arange(out.size), geometry), g)
    else:
        _region(out, geometry)[...] = g
    return out


def _strided_gather(g: Any, geometry: tuple) -> Any:
    g = np.asarray(g)
    buffer = np.ascontiguousarray(g if g.shape == geometry[0] else np.broadcast_to(g, geometry[0]))
    return _region(buffer, geometry).copy()


STRIDED_SCATTER = rule("strided_scatter", "AsStridedScatterBackward0", _strided_scatter,
                       (lambda F, g, geometry: F.op("strided_gather", g, geometry=geometry),),
                       ("grad at the view's elements",), inputs=("src",))
STRIDED_GATHER = rule("strided_gather", "AsStridedGatherBackward0", _strided_gather,
                      (lambda F, g, geometry: F.op("strided_scatter", g, geometry=geometry),),
                      ("grad added at the view's elements",), inputs=("self",))


def outside_mask(geometry: tuple, dtype: Any) -> np.ndarray:
    """Ones on the base except where the view lies (zeros there)."""
    mask = np.ones(geometry[0], dtype)
    _region(mask, geometry)[...] = 0
    return mask


def _constant_grad(F: Any, array: np.ndarray) -> Any:
    """A gradient computed on arrays; under create_graph it is a constant (no further graph)."""
    if F.raw is ArrayMath.raw:
        return array
    from engine.tensor import Tensor

    return Tensor._make(array)


# =================================================================================================
# Pointwise math with several operands, and special functions
# =================================================================================================
_M_PI_180 = 0.017453292519943295769236907684886127134428718885417
_M_180_PI = 57.295779513082320876798154814105170332405472466564


def _floating(a: Any) -> np.ndarray:
    """`a` as a float array: integers and booleans as float32, as PyTorch promotes them."""
    a = np.asarray(a)
    return a if a.dtype.kind == "f" else a.astype(np.float32)


def _wrapped_scalar(F: Any, value: Any, like: Any) -> np.ndarray:
    """A Python number as the 0-d constant PyTorch's C++ formulas make of it (`value / tensor`):
    in the tensor's dtype, with no edge."""
    return np.asarray(value, np.asarray(F.raw(like)).dtype)


def _one_minus(F: Any, a: Any) -> Any:
    """`1 - a` as PyTorch's C++ formulas record it: a filled tensor minus a (SubBackward0)."""
    if F is ArrayMath:
        return 1 - a
    return F.op("sub", F.ones_like(a), a)


ADDCMUL = rule(
    "addcmul", "AddcmulBackward0", lambda a, t1, t2, value=1: a + value * t1 * t2,
    (lambda F, g: g,
     lambda F, g, tensor2, value: g * _scale(F, tensor2, value),
     lambda F, g, tensor1, value: g * _scale(F, tensor1, value)),
    ("grad", "grad * tensor2 * value", "grad * tensor1 * value"),
    inputs=("self", "tensor1", "tensor2"), extra_saves=("value",), defaults={"value": 1})
ADDCDIV = rule(
    "addcdiv", "AddcdivBackward0", lambda a, t1, t2, value=1: a + value * t1 / t2,
    (lambda F, g: g,
     lambda F, g, tensor2, value: g * F.op("div", _wrapped_scalar(F, value, tensor2), tensor2),
     lambda F, g, tensor1, tensor2, value: -g * (_scale(F, tensor1, value) / (tensor2 * tensor2))),
    ("grad", "grad * value / tensor2", "-grad * value * tensor1 / tensor2²"),
    inputs=("self", "tensor1", "tensor2"), extra_saves=("value",), defaults={"value": 1})


def _lerp(a: Any, end: Any, weight: Any) -> Any:
    """PyTorch's lerp kernel: from self for |weight| < 0.5, from end otherwise (more accurate)."""
    if not isinstance(weight, np.ndarray):
        weight = np.asarray(weight, np.result_type(a, end))
    small = np.abs(weight) < 0.5
    return np.where(small, a + weight * (end - a), end - (end - a) * (1 - weight))


LERP = rule("lerp", "LerpBackward0", _lerp,
            (lambda F, g, weight: _scale(F, g, 1 - float(weight)), lambda F, g, weight: _scale(F, g, weight)),
            ("grad * (1 - weight)", "grad * weight"), inputs=("self", "end"), elementwise=True)
LERP_TENSOR = rule(
    "lerp_tensor", "LerpBackward1", _lerp,
    (lambda F, g, weight: g * _one_minus(F, weight), lambda F, g, weight: g * weight,
     lambda F, g, end, self: g * (end - self)),
    ("grad * (1 - weight)", "grad * weight", "grad * (end - self)"),
    inputs=("self", "end", "weight"), elementwise=True)


def _atan2_grad(index: int) -> Any:
    """atan2_backward: grad * other / (self² + other²) for self, -grad * self / (...) for other
    (0 where both are 0)."""

    def grad(F: Any, g: Any, other: Any, self: Any) -> Any:
        denominator = self * self + other * other
        recip = F.op("reciprocal", denominator)
        recip = F.op("masked_fill", recip, mask=np.asarray(F.raw(denominator)) == 0, value=0)
        return (g * other if index == 0 else g * -self) * recip

    return grad


ATAN2 = rule("atan2", "Atan2Backward0", np.arctan2,
             (_atan2_grad(0), _atan2_grad(1)),
             ("grad * other / (self² + other²)", "-grad * self / (self² + other²)"), inputs=BINARY,
             elementwise=True, promotes=True)

HYPOT = rule("hypot", "HypotBackward0", np.hypot,
             (lambda F, g, self, result: g * self / result, lambda F, g, other, result: g * other / result),
             ("grad * self / result", "grad * other / result"), inputs=BINARY, elementwise=True,
             promotes=True)
DIST = rule("dist", "DistBackward0", lambda a, b, p=2: _norm_fwd(a - b, p),
            (lambda F, g, p, result, self, other: _norm_grad(F, g, None, False, p, result, self - other),
             lambda F, g, p, result, self, other: -_norm_grad(F, g, None, False, p, result, self - other)),
            ("grad * d norm(self - other, p)", "-grad * d norm(self - other, p)"), inputs=BINARY,
            defaults={"p": 2})


def _logaddexp_grad(F: Any, g: Any, first: Any, second: Any) -> Any:
    """grad / (1 + exp(second - first)): the share of exp(first) in exp(first) + exp(second)."""
    if F is ArrayMath:
        return g / (1 + np.exp(second - first))
    return g / F.op("add_scalar", F.exp(second - first), other=1)


LOGADDEXP = rule("logaddexp", "LogaddexpBackward0", np.logaddexp,
                 (lambda F, g, other, self: _logaddexp_grad(F, g, self, other),
                  lambda F, g, other, self: _logaddexp_grad(F, g, other, self)),
                 ("grad / (1 + exp(other - self))", "grad / (1 + exp(self - other))"), inputs=BINARY,
                 elementwise=True, promotes=True)


def _xlogy(x: Any, y: Any) -> Any:
    """x * log(y), 0 where x is 0 (unless y is NaN)."""
    x, y = np.asarray(x), np.asarray(y)
    out = np.where(x == 0, 0, x * np.log(y))
    return np.where(np.isnan(y), np.nan, out).astype(special.float_result_type(x, y), copy=False)


def _xlogy_self_grad(F: Any, g: Any, other: Any, self: Any) -> Any:
    """xlogy(grad, other), 0 where self is 0 and other <= 0 (see PyTorch's note on xlogy at x = 0)."""
    out = F.op("xlogy", g, other)
    mask = (np.asarray(F.raw(self)) == 0) & (np.asarray(F.raw(other)) <= 0)
    return F.op("masked_fill", out, mask=mask, value=0)


def _xlogy_scalar_other_grad(F: Any, g: Any, other: Any, self: Any) -> Any:
    """xlogy(grad, other) for a number `other`; 0 where self is 0 when other <= 0."""
    out = F.op("xlogy_scalar_other", g, other=other)
    if other > 0:
        return out
    return F.op("masked_fill", out, mask=np.asarray(F.raw(self)) == 0, value=0)


XLOGY = rule("xlogy", "XlogyBackward0", _xlogy,
             (_xlogy_self_grad, lambda F, g, other, self: g * self / other),
             ("xlogy(grad, other) (0 where self = 0 and other <= 0)", "grad * self / other"), inputs=BINARY,
             elementwise=True, promotes=True)
XLOGY_SCALAR_SELF = rule("xlogy_scalar_self", "XlogyBackward1", lambda other, self: _xlogy(self, other),
                         (lambda F, g, other, self: _scale(F, g, self) / other,),
                         ("grad * self / other",), inputs=("other",), elementwise=True, extra_saves=("self",))
XLOGY_SCALAR_OTHER = rule("xlogy_scalar_other", "XlogyBackward2", lambda a, other: _xlogy(a, other),
                          (_xlogy_scalar_other_grad,), ("xlogy(grad, other)",), elementwise=True,
                          extra_saves=("other",))


def _sinc(a: Any) -> Any:
    """sin(πx) / (πx), 1 at 0, with πx rounded to the input's precision first (as PyTorch's kernel)."""
    a = _floating(a)
    product = (np.float32(math.pi) if a.dtype == _F32 else math.pi) * a
    wide = product.astype(np.float64)
    return np.where(a == 0, 1.0, np.sin(wide) / wide).astype(a.dtype)


def _sinc_grad(F: Any, g: Any, self: Any) -> Any:
    """sinc_backward: grad * (πx cos(πx) - sin(πx)) / (πx²), 0 where x is 0."""
    self_pi = _scale(F, self, math.pi)
    self_squared_pi = _scale(F, self * self, math.pi)
    out = g * ((self_pi * F.cos(self_pi) - F.sin(self_pi)) / self_squared_pi)
    return F.where(np.asarray(F.raw(self_squared_pi)) == 0, 0.0, out)


SINC = rule("sinc", "SincBackward0", _sinc, (_sinc_grad,), ("grad * (πx cos(πx) - sin(πx)) / (πx²)",),
            elementwise=True)
DEG2RAD = rule("deg2rad", "Deg2RadBackward0", lambda a: a * _M_PI_180,
               (lambda F, g: _scale(F, g, _M_PI_180),), ("grad * π / 180",), elementwise=True)
RAD2DEG = rule("rad2deg", "Rad2DegBackward0", lambda a: a * _M_180_PI,
               (lambda F, g: _scale(F, g, _M_180_PI),), ("grad * 180 / π",), elementwise=True)


def _logit(a: Any, eps: Any = None) -> Any:
    """log(x / (1 - x)), with x clamped to [eps, 1 - eps] when eps is given."""
    x = _floating(a)
    if eps is not None:
        x = np.clip(x, eps, 1 - eps).astype(x.dtype)
    return np.where(x == 1, np.inf, np.log(x / (1 - x))).astype(x.dtype)


def _logit_grad(F: Any, g: Any, eps: Any, self: Any) -> Any:
    """grad / (x (1 - x)) inside [eps, 1 - eps] ([0, 1] without eps); 0 outside (NaN without eps)."""
    x = np.asarray(F.raw(self))
    lo = 0.0 if eps is None else eps
    inside = (x >= lo) & (x <= 1 - lo)
    return F.where(inside, g / (self * _one_minus(F, self)), np.nan if eps is None else 0.0)


LOGIT = rule("logit", "LogitBackward0", _logit, (_logit_grad,), ("grad / (self * (1 - self))",),
             elementwise=True, defaults={"eps": None})
LGAMMA = rule("lgamma", "LgammaBackward0", special.lgamma, (lambda F, g, self: g * F.op("digamma", self),),
              ("grad * digamma(self)",), elementwise=True)
DIGAMMA = rule("digamma", "DigammaBackward0", special.digamma,
               (lambda F, g, self: g * F.op("polygamma", self, n=1),), ("grad * polygamma(1, self)",),
               elementwise=True)
POLYGAMMA = rule("polygamma", "PolygammaBackward0", special.polygamma,
                 (lambda F, g, n, self: g * F.op("polygamma", self,
                                                 n=n + 1),), ("grad * polygamma(n + 1, self)",),
                 elementwise=True)
_HALF_SQRT_PI = 0.5 * math.sqrt(math.pi)
ERFINV = rule("erfinv", "ErfinvBackward0", special.erfinv,
              (lambda F, g, self: _scale(
                  F, F.exp(F.op("pow", F.op("erfinv", self), exponent=2)), _HALF_SQRT_PI) * g,),
              ("grad * √π / 2 * exp(erfinv(self)²)",), elementwise=True)


# --- in-place views: the tensor itself takes the new shape ----------------------------------------
def _unsqueeze_to(F: Any, g: Any, sizes: tuple, dims: Any = None) -> Any:
    """PyTorch's unsqueeze_to: grad given back the size-1 dims a squeeze removed (those in dims)."""
    if F is ArrayMath:
        return np.reshape(g, sizes)
    ndim = len(sizes)
    wanted = range(ndim) if dims is None else sorted({d % max(ndim, 1) for d in dims})
    for d in wanted:
        if d < ndim and sizes[d] == 1:
            g = F.op("unsqueeze", g, dim=d)
    return g


T_INPLACE = rule("t_", "TBackward1", lambda a: a.T, (lambda F, g: F.op("t", g),), ("gradᵀ",))
TRANSPOSE_INPLACE = rule("transpose_", "TransposeBackward1", lambda a, dim0, dim1: np.swapaxes(a, dim0, dim1),
                         (lambda F, g, dim0, dim1: F.op("transpose", g, dim0=dim0, dim1=dim1),),
                         ("grad transposed back",))
UNSQUEEZE_INPLACE = rule("unsqueeze_", "UnsqueezeBackward1", lambda a, dim: np.expand_dims(a, dim),
                         (lambda F, g, dim: F.op("squeeze_dim", g, dim=dim) if F is not ArrayMath
                          else F.squeeze_dim(g, dim),), ("grad squeezed at dim",))
SQUEEZE_ALL_INPLACE = rule("squeeze_all_", "SqueezeBackward3", lambda a: np.squeeze(a),
                           (lambda F, g, self_sym_sizes: _unsqueeze_to(F, g, self_sym_sizes),),
                           ("grad unsqueezed back to self",))
SQUEEZE_DIMS_INPLACE = rule("squeeze_dims_", "SqueezeBackward5",
                            lambda a, dim: np.squeeze(a, tuple(d for d in dim if a.shape[d] == 1)),
                            (lambda F, g, dim, self_sym_sizes: _unsqueeze_to(F, g, self_sym_sizes, dim),),
                            ("grad unsqueezed back to self",))


# =================================================================================================
# Indexing: masked and flat selection, index_* updates, scatter_reduce, unfold, rot90
# =================================================================================================
def _unfold(a: Any, dimension: int, size: int, step: int) -> Any:
    """The windows of `size` elements every `step` along dimension, as a new last dim (a view)."""
    a = np.asarray(a)
    if a.ndim == 0:
        return a.reshape(1)
    d = dimension % a.ndim
    count = (a.shape[d] - size) // step + 1
    shape = a.shape[:d] + (count,) + a.shape[d + 1:] + (size,)
    strides = a.strides[:d] + (a.strides[d] * step,) + a.strides[d + 1:] + (a.strides[d],)
    return np.lib.stride_tricks.as_strided(a, shape, strides)


def _unfold_backward(grad_in: Any, input_sizes: tuple, dim: int, size: int, step: int) -> Any:
    """Each window of grad added back where it came from."""
    g = np.asarray(grad_in)
    out = np.zeros(input_sizes, g.dtype)
    if not input_sizes:
        return g.reshape(())
    d = dim % len(input_sizes)
    windows = g.shape[d]
    idx = np.arange(windows)[:, None] * step + np.arange(size)[None, :]
    moved = np.moveaxis(out, d, -1)
    np.add.at(moved, (Ellipsis, idx), np.moveaxis(g, d, -2))
    return out


UNFOLD = rule("unfold", "UnfoldBackward0", _unfold,
              (lambda F, g, dimension, self_sym_sizes, size, step: F.op(
                  "unfold_backward", g, input_sizes=tuple(self_sym_sizes), dim=dimension, size=size,
                  step=step),),
              ("each window of grad added back where it came from",), view=True)
UNFOLD_BACKWARD = rule("unfold_backward", "UnfoldBackwardBackward0", _unfold_backward,
                       (lambda F, g, dim, size, step: F.op(
                           "unfold", g, dimension=dim, size=size, step=step),),
                       ("grad unfolded",), inputs=("grad_in",))


def _masked_select(a: Any, mask: Any) -> Any:
    shape = np.broadcast_shapes(np.shape(a), np.shape(mask))
    return np.broadcast_to(a, shape)[np.broadcast_to(mask, shape)]


def _masked_scatter(a: Any, source: Any, mask: Any) -> Any:
    """self with source's leading elements written where mask is set (in order)."""
    shape = np.broadcast_shapes(np.shape(a), np.shape(mask))
    out = np.array(np.broadcast_to(a, shape))
    where = np.broadcast_to(mask, shape)
    out[where] = np.ravel(source)[: int(where.sum())]
    return out


def _zeros_of(F: Any, g: Any, shape: tuple) -> np.ndarray:
    """Zeros of g's dtype (the base a gradient is scattered into)."""
    return np.zeros(shape, np.asarray(F.raw(g)).dtype)


def _masked_scatter_backward(grad_output: Any, mask: Any, sizes: tuple) -> Any:
    """grad at the masked places, in order, padded with zeros to source's size."""
    g = np.asarray(grad_output)
    picked = g[np.broadcast_to(mask, g.shape)]
    out = np.zeros(math.prod(sizes), g.dtype)
    out[: picked.size] = picked
    return out.reshape(sizes)


MASKED_SELECT = rule("masked_select", "MaskedSelectBackward0", _masked_select,
                     (lambda F, g, mask, self: F.op("masked_scatter", _zeros_of(
                         F, g, np.broadcast_shapes(np.shape(F.raw(self)), np.shape(mask))), g, mask=mask),),
                     ("grad written back where mask is set",))
MASKED_SCATTER = rule(
    "masked_scatter", "MaskedScatterBackward0", _masked_scatter,
    (lambda F, g, mask: F.op("masked_fill", g, mask=mask, value=0),
     lambda F, g, mask, source_sym_sizes: F.op(
         "masked_scatter_backward", g, mask=mask, sizes=tuple(source_sym_sizes))),
    ("grad with zeros where mask is set", "grad where mask is set, in order"), inputs=("self", "source"))
MASKED_SCATTER_BACKWARD = rule(
    "masked_scatter_backward", "MaskedScatterBackwardBackward0", _masked_scatter_backward,
    (lambda F, g, input_sizes, mask: F.op("masked_scatter", _zeros_of(F, g, input_sizes[0]), g, mask=mask),),
    ("grad written where mask is set",), inputs=("grad_output",))


def _take(a: Any, index: Any) -> Any:
    return np.ravel(a)[np.asarray(index)]


def _put(a: Any, source: Any, index: Any, accumulate: bool = False) -> Any:
    """self with source written (or added) at the flat positions index."""
    out = np.array(a, copy=True)
    flat = out.reshape(-1)
    idx = np.ravel(index)
    if accumulate:
        np.add.at(flat, idx, np.ravel(source))
    else:
        flat[idx] = np.ravel(source)
    return flat.reshape(np.shape(a))


TAKE = rule("take", "TakeBackward0", _take,
            (lambda F, g, index, self: F.op(
                "put", _zeros_of(F, g, np.shape(F.raw(self))), g, index=index, accumulate=True),),
            ("grad added back at the flat positions index",))
PUT = rule(
    "put", "PutBackward0", _put,
    (lambda F, g, accumulate, index, source: g if accumulate else F.op(
        "put", g, np.zeros(np.shape(F.raw(source)),
                           np.asarray(F.raw(g)).dtype), index=index, accumulate=False),
     lambda F, g, index, source: F.reshape(F.op("take", g, index=index), np.shape(F.raw(source)))),
    ("grad (zeros where source was written)", "grad taken at index"), inputs=("self", "source"),
    extra_saves=("accumulate",), defaults={"accumulate": False})


def _index_add(a: Any, source: Any, dim: int, index: Any, alpha: Any = 1) -> Any:
    out = np.array(a, copy=True)
    np.add.at(out, _key(dim, np.asarray(index)), source if alpha == 1 else source * alpha)
    return out


def _index_write(a: Any, values: Any, dim: int, index: Any) -> Any:
    out = np.array(a, copy=True)
    out[_key(dim, np.asarray(index))] = values
    return out


def _index_source_grad(F: Any, g: Any, dim: int, index: Any, source: Any, source_dim: int) -> Any:
    """grad.index_select(dim, index).expand_as(source) (index's one entry for a 0-d source)."""
    idx = np.asarray(index)
    if not source_dim:
        return F.op("index_select", g, dim=dim, index=idx.reshape(()) if idx.ndim else idx)
    return F.expand(F.op("index_select", g, dim=dim, index=idx), np.shape(F.raw(source)))


def _index_fill_grad(F: Any, g: Any, dim: int, index: Any) -> Any:
    return F.op("index_fill", g, dim=dim, index=index, value=0)


INDEX_ADD = rule(
    "index_add", "IndexAddBackward0", _index_add,
    (lambda F, g: g,
     lambda F, g, alpha, dim, index, source, source_dim: _index_source_grad(
         F, g, dim, index, source, source_dim)
     if alpha == 1 else _scale(F, _index_source_grad(F, g, dim, index, source, source_dim), alpha)),
    ("grad", "grad selected at index, * alpha"), inputs=("self", "source"), defaults={"alpha": 1})
INDEX_COPY = rule("index_copy", "IndexCopyBackward0", _index_write,
                  (_index_fill_grad, _index_source_grad),
                  ("grad with zeros at index", "grad selected at index"), inputs=("self", "source"))
INDEX_FILL = rule("index_fill", "IndexFillBackward0",
                  lambda a, dim, index, value: _index_write(a, value, dim, index),
                  (_index_fill_grad,), ("grad with zeros at index",))
INDEX_FILL_TENSOR = rule(
    "index_fill_tensor", "IndexFillBackward1",
    lambda a, value, dim, index: _index_write(a, value, dim, index),
    (_index_fill_grad,
     lambda F, g, dim, index: F.sum(F.op("index_select", g, dim=dim, index=np.unique(index)))),
    ("grad with zeros at index", "sum of grad at index"), inputs=("self", "value"))


def _rot90(a: Any, k: int, dims: tuple) -> Any:
    return np.ascontiguousarray(np.rot90(a, k, dims))


ROT90 = rule("rot90", "Rot90Backward0", _rot90,
             (lambda F, g, dims, k: F.op("rot90", g, k=-k, dims=dims),), ("grad rotated back",))


_SCATTER_UFUNCS = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}


def _reduce_identity(reduce: str, dtype: np.dtype) -> Any:
    """The value scatter_reduce starts from when include_self is False."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    big = np.inf if dtype.kind == "f" else np.iinfo(dtype).max
    return -big if reduce == "amax" else big


def _scatter_counts(shape: tuple, dtype: Any, dim: int, index: np.ndarray, include_self: bool) -> np.ndarray:
    """How many values each position of a 'mean' scatter_reduce averages (at least 1)."""
    n = np.ones(shape, dtype) if include_self else np.zeros(shape, dtype)
    np.add.at(n, _gather_index(index, dim), 1)
    n[n == 0] = 1
    return n


def _scatter_reduce(a: Any, src: Any, dim: int, index: Any, reduce: str, include_self: bool = True) -> Any:
    """self with src's values reduced in at index along dim (sum, prod, mean, amax or amin)."""
    a, idx = np.asarray(a), np.asarray(index)
    src = np.asarray(src)[tuple(slice(0, n) for n in idx.shape)]
    out = np.array(a, copy=True)
    key = _gather_index(idx, dim)
    if not include_self:
        out[key] = _reduce_identity(reduce, a.dtype)
    _SCATTER_UFUNCS[reduce].at(out, key, src)
    if reduce == "mean":
        counts = _scatter_counts(a.shape, a.dtype, dim, idx, include_self)
        out = out // counts if a.dtype.kind in "iu" else out / counts
    return out.astype(a.dtype, copy=False)


def _scatter_reduce_grad(index_of: int) -> Any:
    """scatter_reduce_backward: the gradient of self (0) or src (1)."""

    def grad(F: Any, g: Any, dim: int, include_self: bool, index: Any, reduce: str, result: Any, self: Any,
             src: Any) -> Any:
        idx = np.asarray(index)
        gather = (lambda t: F.op("gather", t, dim=dim, index=idx))
        x, s = np.asarray(F.raw(self)), np.asarray(F.raw(src))
        if reduce in ("amax", "amin", "prod") and messages.broadcast_mismatch(s.shape, idx.shape):
            raise RuntimeError(messages.broadcast_mismatch(s.shape, idx.shape))  # src against its gathered result
        if reduce == "sum":
            grads = (g, gather(g))
        elif reduce == "mean":
            n = _scatter_counts(x.shape, x.dtype, dim, idx, include_self)
            grads = (g / n, gather(g) / n[_gather_index(idx, dim)])
        elif reduce in ("amax", "amin"):
            r = np.asarray(F.raw(result))
            self_is = x == r
            src_is = s == r[_gather_index(idx, dim)]
            count = self_is.astype(x.dtype)
            np.add.at(count, _gather_index(idx, dim), _index_shaped(src_is, idx).astype(x.dtype))
            distributed = g / count
            grads = (F.op("mul", self_is, distributed), F.op("mul", src_is, gather(distributed)))
        else:
            grads = _scatter_prod_grads(F, g, dim, include_self, idx, result, self, src, gather)
        out = grads[index_of]
        if index_of == 0 and not include_self:
            out = F.op("scatter_value", out, dim=dim, index=idx, value=0)
        return out

    return grad


def _scatter_prod_grads(F: Any, g: Any, dim: int, include_self: bool, idx: np.ndarray, result: Any, self: Any,
                        src: Any, gather: Any) -> tuple:
    """The gradients of a 'prod' scatter_reduce, exact where self or src holds zeros."""
    x, s = np.asarray(F.raw(self)), np.asarray(F.raw(src))
    reduce_attrs = {"dim": dim, "index": idx, "reduce": "prod", "include_self": include_self}
    masked_self = F.op("masked_fill", self, mask=x == 0, value=1)
    grad_self = g * F.op("scatter_reduce", masked_self, src, **reduce_attrs) / masked_self
    src_zero = s == 0
    zero_counts = np.zeros(x.shape, x.dtype)
    np.add.at(zero_counts, _gather_index(idx, dim), _index_shaped(src_zero, idx).astype(x.dtype))
    single_zero = src_zero & (zero_counts[_gather_index(idx, dim)] == 1)
    masked_src = F.op("masked_fill", src, mask=single_zero, value=1)
    masked_src_result = F.op("scatter_reduce", self, masked_src, **reduce_attrs)
    grad_src = F.where(single_zero, gather(g * masked_src_result),
                       gather(g * result) / F.op("masked_fill", src, mask=src_zero, value=1))
    return grad_self, grad_src


SCATTER_REDUCE = rule("scatter_reduce", "ScatterReduceBackward0", _scatter_reduce,
                      (_scatter_reduce_grad(0), _scatter_reduce_grad(1)),
                      ("grad at the positions self's values reached (shared among ties for amax/amin)",
                       "grad gathered at index (scaled for mean, prod; shared among ties for amax/amin)"),
                      inputs=("self", "src"), save_always=True, defaults={"include_self": True})


def _index_reduce(a: Any, source: Any, dim: int, index: Any, reduce: str, include_self: bool = True) -> Any:
    """self with source's slices reduced in at index along dim (prod, mean, amax or amin)."""
    a, key = np.asarray(a), _key(dim, np.asarray(index))
    out = np.array(a, copy=True)
    if not include_self:
        out[key] = _reduce_identity(reduce, a.dtype)
    _SCATTER_UFUNCS[reduce].at(out, key, source)
    if reduce == "mean":
        counts = _index_counts(a.shape, a.dtype, dim, key, include_self)
        out = out // counts if a.dtype.kind in "iu" else out / counts
    return out.astype(a.dtype, copy=False)


def _index_counts(shape: tuple, dtype: Any, dim: int, key: tuple, include_self: bool) -> np.ndarray:
    """How many values each position of a 'mean' index_reduce averages (at least 1)."""
    n = np.ones(shape, dtype) if include_self else np.zeros(shape, dtype)
    np.add.at(n, key, 1)
    n[n == 0] = 1
    return n


INDEX_REDUCE_ZEROS = ("index_reduce(): Double backward is unsupported for source when >1 zeros in source are "
                      "scattered to the same position in self")


def _index_reduce_grad(which: int) -> Any:
    """index_reduce_backward: the gradient of self (0) or source (1)."""

    def grad(F: Any, g: Any, dim: int, include_self: bool, index: Any, reduce: str, result: Any, self: Any,
             source: Any, node: Any) -> Any:
        return _shared_call(node, g, lambda: _index_reduce_grads(F, g, dim, include_self, index, reduce, result,
                                                                 self, source))[which]

    return grad


def _index_reduce_grads(F: Any, g: Any, dim: int, include_self: bool, index: Any, reduce: str, result: Any,
                        self: Any, source: Any) -> tuple:
    idx = np.asarray(index)
    key = _key(dim, idx)
    x, s = np.asarray(F.raw(self)), np.asarray(F.raw(source))
    axis = dim % max(x.ndim, 1)

    def select(t: Any) -> Any:
        return F.op("index_select", t, dim=dim, index=idx)

    if reduce == "prod":
        attrs = {"dim": dim, "index": idx, "reduce": "prod", "include_self": include_self}
        masked_self = F.op("masked_fill", self, mask=x == 0, value=1)
        grad_self = g * F.op("index_reduce", masked_self, source, **attrs) / masked_self
        src_zero = s == 0
        zeros = np.zeros(x.shape, x.dtype)
        np.add.at(zeros, key, src_zero.astype(x.dtype))
        zeros = np.take(zeros, idx, axis=axis)
        single_zero = src_zero & (zeros == 1)
        masked_src_result = F.op("index_reduce", self, F.op("masked_fill", source, mask=single_zero, value=1), **attrs)
        grad_src = F.where(single_zero, select(g * masked_src_result),
                           select(g * result) / F.op("masked_fill", source, mask=src_zero, value=1))
        if F is not ArrayMath and (zeros > 1).any():
            from engine.autograd.function import delayed_error

            grad_src = delayed_error(grad_src, INDEX_REDUCE_ZEROS)
    elif reduce == "mean":
        n = _index_counts(x.shape, x.dtype, dim, key, include_self)
        grad_self, grad_src = g / n, select(g) / np.take(n, idx, axis=axis)
    else:
        r = np.asarray(F.raw(result))
        self_is = (x == r).astype(x.dtype)
        source_is = (s == np.take(r, idx, axis=axis)).astype(x.dtype)
        count = self_is.copy()
        np.add.at(count, key, source_is)
        distributed = g / count
        grad_self, grad_src = F.op("mul", self_is, distributed), F.op("mul", source_is, select(distributed))
    if not include_self:
        grad_self = F.op("index_fill", grad_self, dim=dim, index=idx, value=0)
    return grad_self, grad_src


INDEX_REDUCE = rule("index_reduce", "IndexReduceBackward0", _index_reduce,
                    (_index_reduce_grad(0), _index_reduce_grad(1)),
                    ("index_reduce_backward(grad, self, dim, index, source, reduce, include_self, result)[0]",
                     "index_reduce_backward(grad, self, dim, index, source, reduce, include_self, result)[1]"),
                    inputs=("self", "source"), save_always=True, defaults={"include_self": True})


# =================================================================================================
# Scans and order statistics: cummax/cummin, logcumsumexp, kthvalue, mode, aminmax; unique
# =================================================================================================
def _cummaxmin(a: Any, dim: int, is_max: bool) -> tuple:
    """Running maxima (minima) along dim and where each came from: ties take the later index, a NaN stays."""
    x = np.reshape(a, (1,)) if np.ndim(a) == 0 else np.asarray(a)
    moved = np.moveaxis(x, dim, -1)
    values = np.empty_like(moved)
    indices = np.empty(moved.shape, np.int64)
    best, where = moved[..., 0].copy(), np.zeros(moved.shape[:-1], np.int64)
    for i in range(moved.shape[-1]):
        v = moved[..., i]
        better = v >= best if is_max else v <= best
        if x.dtype.kind == "f":
            better = np.isnan(v) | (~np.isnan(best) & better)
        best = np.where(better, v, best)
        where = np.where(better, i, where)
        values[..., i], indices[..., i] = best, where
    values, indices = np.moveaxis(values, -1, dim), np.moveaxis(indices, -1, dim)
    return values.reshape(np.shape(a)), indices.reshape(np.shape(a))


def _cummaxmin_grad(F: Any, g: Any, dim: int, indices: Any, self: Any) -> Any:
    """cummaxmin_backward: grad added at the index each running extreme came from (ScatterAddBackward0)."""
    x = np.asarray(F.raw(self))
    if x.ndim == 0:
        return g[0]
    zeros = np.zeros(x.shape, np.asarray(F.raw(g[0])).dtype)
    return F.op("scatter_add", zeros, g[0], dim=dim, index=np.asarray(F.raw(indices)))


SCANNED = {"outputs": 2, "differentiable_outputs": (0,), "output_names": ("result", "indices")}
CUMMAX = rule("cummax", "CummaxBackward0", lambda a, dim: _cummaxmin(a, dim, True), (_cummaxmin_grad,),
              ("grad added at each running maximum's index",), **SCANNED)
CUMMIN = rule("cummin", "CumminBackward0", lambda a, dim: _cummaxmin(a, dim, False), (_cummaxmin_grad,),
              ("grad added at each running minimum's index",), **SCANNED)


def _logcumsumexp(a: Any, dim: int) -> Any:
    """log(cumsum(exp(a))) along dim, accumulated in float64 without overflow."""
    x = np.asarray(a)
    wide = np.reshape(x, (1,)).astype(np.float64) if x.ndim == 0 else x.astype(np.float64)
    out = np.logaddexp.accumulate(wide, axis=dim if x.ndim else 0)
    return out.reshape(x.shape).astype(x.dtype)


def _logcumsumexp_grad(F: Any, g: Any, dim: int, result: Any, self: Any) -> Any:
    """logcumsumexp_backward: positive and negative parts of grad carried in log space, reverse-scanned."""
    gr = np.asarray(F.raw(g))
    if gr.ndim == 0 or gr.size == 0:
        return g
    lowest = float(np.finfo(gr.dtype).min)
    log_abs = F.log(F.abs(g))
    reverse = (lambda t: F.op("flip", F.op("logcumsumexp", F.op("flip", t, dims=(dim,)), dim=dim),
                              dims=(dim,)))
    parts = [F.exp(reverse(F.where(mask, log_abs, lowest) - result) + self) for mask in (gr > 0, gr < 0)]
    return parts[0] - parts[1]


LOGCUMSUMEXP = rule("logcumsumexp", "LogcumsumexpBackward0", _logcumsumexp, (_logcumsumexp_grad,),
                    ("exp(reverse logcumsumexp(log grad - result) + self), per sign of grad",))


def _quick_select(values: list, indices: list, k: int) -> None:
    """PyTorch's quick_select_template: values[k] becomes the k-th smallest (NaN largest), indices alike."""
    def gt(x: Any, y: Any) -> bool:
        return bool((x != x and y == y) or x > y)

    def swap(i: int, j: int) -> None:
        values[i], values[j] = values[j], values[i]
        indices[i], indices[j] = indices[j], indices[i]

    left, right = 0, len(values) - 1
    while True:
        if right <= left:
            return
        if right == left + 1:
            if gt(values[left], values[right]):
                swap(left, right)
            return
        mid = left + (right - left) // 2
        swap(mid, left + 1)
        if gt(values[left + 1], values[right]):
            swap(left + 1, right)
        if gt(values[left], values[right]):
            swap(left, right)
        if gt(values[left + 1], values[left]):
            swap(left + 1, left)
        i, j, pivot = left + 1, right, values[left]
        while True:
            i += 1
            while gt(pivot, values[i]):
                i += 1
            j -= 1
            while gt(values[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(left, j)
        if j <= k:
            left = i
        if j >= k:
            right = j - 1


def _kthvalue(a: Any, k: int, dim: int, keepdim: bool = False) -> tuple:
    """The k-th smallest value along dim and its index, picked among ties as PyTorch's quickselect picks."""
    x = np.reshape(a, (1,)) if np.ndim(a) == 0 else np.asarray(a)
    moved = np.moveaxis(x, dim, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    values = np.empty(rows.shape[0], x.dtype)
    indices = np.empty(rows.shape[0], np.int64)
    for r, row in enumerate(rows):
        vals, idx = row.tolist(), list(range(len(row)))
        _quick_select(vals, idx, k - 1)
        values[r], indices[r] = vals[k - 1], idx[k - 1]
    return _reduced_pair(values, indices, moved.shape[:-1], dim, keepdim, np.ndim(a))


def _reduced_pair(values: np.ndarray, indices: np.ndarray, lead: tuple, dim: int, keepdim: bool,
                  ndim: int) -> tuple:
    """(values, indices) of a reduction along dim, shaped as PyTorch returns them."""
    values, indices = values.reshape(lead), indices.reshape(lead)
    if keepdim and ndim:
        values, indices = np.expand_dims(values, dim), np.expand_dims(indices, dim)
    return values, indices


def _mode(a: Any, dim: int, keepdim: bool = False) -> tuple:
    """The most frequent value along dim (the smallest of equally frequent ones) and the index its run ends
    with once PyTorch's CPU kernel has sorted (value, index) pairs by value with std::sort."""
    x = np.reshape(a, (1,)) if np.ndim(a) == 0 else np.asarray(a)
    moved = np.moveaxis(x, dim, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    values = np.empty(rows.shape[0], x.dtype)
    indices = np.empty(rows.shape[0], np.int64)
    for r, row in enumerate(rows):
        order = _std_sort_order(row.tolist())
        ordered = row[order]
        best, best_count, run = 0, 0, 0
        for i in range(len(ordered)):
            run += 1
            if i == len(ordered) - 1 or ordered[i] != ordered[i + 1]:
                if run > best_count:
                    best, best_count = i, run
                run = 0
        values[r], indices[r] = ordered[best], order[best]
    return _reduced_pair(values, indices, moved.shape[:-1], dim, keepdim, np.ndim(a))


def _std_sort_order(keys: list) -> list:
    """The order in which libstdc++'s std::sort (introsort, then insertion sort) leaves positions sorted by
    key alone: equal keys end up in its own, not necessarily original, order."""
    items = list(range(len(keys)))
    if len(items) > 1:
        _introsort(keys, items, 0, len(items), 2 * (len(items).bit_length() - 1))
        _insertion_sort(keys, items, 0, len(items))
    return items


def _introsort(keys: list, items: list, first: int, last: int, depth: int) -> None:
    while last - first > 16:
        if depth == 0:
            _heap_sort(keys, items, first, last)
            return
        depth -= 1
        mid = first + (last - first) // 2
        a, b, c = first + 1, mid, last - 1
        key = [keys[items[i]] for i in (a, b, c)]
        if key[0] < key[1]:
            median = b if key[1] < key[2] else (c if key[0] < key[2] else a)
        else:
            median = a if key[0] < key[2] else (c if key[1] < key[2] else b)
        items[first], items[median] = items[median], items[first]
        pivot, lo, hi = keys[items[first]], first + 1, last
        while True:  # unguarded partition around the pivot at first
            while keys[items[lo]] < pivot:
                lo += 1
            hi -= 1
            while pivot < keys[items[hi]]:
                hi -= 1
            if not lo < hi:
                break
            items[lo], items[hi] = items[hi], items[lo]
            lo += 1
        _introsort(keys, items, lo, last, depth)
        last = lo


def _insertion_sort(keys: list, items: list, first: int, last: int) -> None:
    for i in range(first + 1, last):
        item, key = items[i], keys[items[i]]
        if key < keys[items[first]]:
            items[first + 1:i + 1] = items[first:i]
            items[first] = item
            continue
        j = i
        while key < keys[items[j - 1]]:
            items[j] = items[j - 1]
            j -= 1
        items[j] = item


def _heap_sort(keys: list, items: list, first: int, last: int) -> None:
    """std::make_heap then std::sort_heap over items[first:last]."""
    n = last - first
    for parent in range((n - 2) // 2, -1, -1):
        _adjust_heap(keys, items, first, parent, n, items[first + parent])
    for end in range(n - 1, 0, -1):
        value = items[first + end]
        items[first + end] = items[first]
        _adjust_heap(keys, items, first, 0, end, value)


def _adjust_heap(keys: list, items: list, first: int, hole: int, n: int, value: int) -> None:
    top, child = hole, hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if keys[items[first + child]] < keys[items[first + child - 1]]:
            child -= 1
        items[first + hole] = items[first + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        items[first + hole] = items[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and keys[items[first + parent]] < keys[value]:
        items[first + hole] = items[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    items[first + hole] = value


KTHVALUE = rule("kthvalue", "KthvalueBackward0", _kthvalue, (_value_at_indices,),
                ("grad at the index of each k-th smallest value",), **PICKED)
MODE = rule("mode", "ModeBackward0", _mode, (_value_at_indices,), ("grad at the index of each mode",),
            **PICKED)


def _aminmax(a: Any, dim: Any = None, keepdim: bool = False) -> tuple:
    axis = None if dim is None else dim
    return (np.min(a, axis=axis, keepdims=keepdim), np.max(a, axis=axis, keepdims=keepdim))


def _restore_reduced(F: Any, t: Any, dim: Any, keepdim: bool, ndim: int) -> Any:
    """restore_reduced_dims: a reduction's output given back its reduced dims (size 1)."""
    if keepdim or dim is None:
        return t
    return F.reshape(t, tuple(np.expand_dims(np.asarray(F.raw(t)), dim % ndim).shape))


def _aminmax_grad(F: Any, g: Any, dim: Any, keepdim: bool, max: Any, min: Any,
                  self: Any) -> Any:  # noqa: A002
    """Each received gradient shared by the elements equal to its extreme (scale_grad_by_count)."""
    x = np.asarray(F.raw(self))
    dims = tuple(range(x.ndim)) if dim is None else (dim,)
    terms = []
    for grad, extreme in zip(g, (min, max)):
        if not _received(F, grad):
            continue
        mask = x == np.asarray(F.raw(_restore_reduced(ArrayMath, F.raw(extreme), dim, keepdim, x.ndim)))
        count = np.sum(mask, axis=dims, keepdims=True)
        terms.append(F.op("mul", _restore_reduced(F, grad, dim, keepdim, x.ndim) / count, mask))
    if not terms:
        return F.zeros_like(self)
    return terms[0] if len(terms) == 1 else terms[0] + terms[1]


AMINMAX = rule("aminmax", "AminmaxBackward0", _aminmax, (_aminmax_grad,),
               ("grad_min and grad_max each shared by the elements equal to their extreme",), outputs=2,
               output_names=("min", "max"), defaults={"dim": None, "keepdim": False})


def _unique_not_implemented(name: str) -> Any:
    """unique's values have a node whose backward PyTorch does not implement."""

    def grad(F: Any, g: Any) -> Any:
        raise NotImplementedError(f"the derivative for '{name}' is not implemented.")

    return grad


# acosh_ / asinh_ / atanh_: PyTorch records a node of their own whose backward is not implemented
ACOSH_INPLACE = rule("acosh_", "AcoshBackward1", np.arccosh, (_unique_not_implemented("inplace version of acosh"),),
                     ("not implemented in PyTorch",), elementwise=True)
ASINH_INPLACE = rule("asinh_", "AsinhBackward1", np.arcsinh, (_unique_not_implemented("inplace version of asinh"),),
                     ("not implemented in PyTorch",), elementwise=True)
ATANH_INPLACE = rule("atanh_", "AtanhBackward1", np.arctanh, (_unique_not_implemented("inplace version of atanh"),),
                     ("not implemented in PyTorch",), elementwise=True)

UNIQUE_OUTPUTS = {"outputs": 3, "differentiable_outputs": (0,), "output_names": ("result0", "result1",
                                                                                 "result2")}


def _unique(a: Any, dim: Any = None, consecutive: bool = False) -> tuple:
    """(values, inverse, counts) of unique or unique_consecutive, along dim or over all elements."""
    x = np.asarray(a)
    if consecutive:
        return _unique_consecutive(x, dim)
    if dim is None and x.dtype.kind == "f" and np.isnan(x).any():  # each NaN is a value of its own
        perm = np.argsort(x.reshape(-1), kind="stable")
        values, inverse, counts = _unique_consecutive(x.reshape(-1)[perm], None)
        inverse[perm] = inverse.copy()
        return values, inverse.reshape(x.shape), counts
    values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True, axis=dim)
    inverse = inverse.reshape(-1) if dim is not None else inverse.reshape(x.shape)
    return values, inverse.astype(np.int64), counts.astype(np.int64)


def _unique_consecutive(x: np.ndarray, dim: Any) -> tuple:
    moved = x.reshape(-1) if dim is None else np.moveaxis(x, dim, 0)
    flat = moved.reshape(len(moved), -1)
    starts = np.ones(len(flat), bool)
    starts[1:] = np.any(flat[1:] != flat[:-1], axis=1) if flat.size else False
    group = np.cumsum(starts) - 1
    counts = np.bincount(group, minlength=int(starts.sum())) if len(group) else np.zeros(0, np.int64)
    values = moved[starts]
    values = values if dim is None else np.moveaxis(values, 0, dim)
    inverse = group if dim is not None else group.reshape(x.shape)
    return values, inverse.astype(np.int64), counts.astype(np.int64)


UNIQUE = rule("unique", "Unique2Backward0", lambda a: _unique(a), (_unique_not_implemented("_unique2"),),
              ("not implemented in PyTorch",), **UNIQUE_OUTPUTS)
UNIQUE_DIM = rule("unique_dim", "UniqueDimBackward0", lambda a, dim: _unique(a, dim),
                  (_unique_not_implemented("unique_dim"),), ("not implemented in PyTorch",), **UNIQUE_OUTPUTS)
UNIQUE_CONSECUTIVE = rule("unique_consecutive", "UniqueConsecutiveBackward0",
                          lambda a, dim=None: _unique(a, dim, consecutive=True),
                          (_unique_not_implemented("unique_consecutive"),), ("not implemented in PyTorch",),
                          **UNIQUE_OUTPUTS)


# =================================================================================================
# Linear algebra: LU-based det / slogdet / inv / solve, svd, cross, vdot, cdist
# =================================================================================================
def _shared_call(node: Any, g: Any, make: Any) -> Any:
    """One computation shared by a node's gradient functions (PyTorch computes all of a node's input
    gradients in one formula, so its intermediate nodes exist once): reused while the node and the
    incoming gradient are the same."""
    if _SHARED[0] is not node or _SHARED[1] is not g:
        _SHARED[:] = [node, g, make()]
    return _SHARED[2]


def _lu(a: np.ndarray) -> tuple:
    """LU with partial pivoting, as LAPACK's getrf: (L and U packed in one matrix, 1-based int32 pivots)."""
    lu = np.array(a, copy=True)
    n = lu.shape[-1]
    k = min(lu.shape[-2], n)
    pivots = np.zeros(lu.shape[:-2] + (k,), np.int32)
    rows = np.arange(lu.shape[-2])
    for j in range(k):
        p = j + np.argmax(np.abs(lu[..., j:, j]), axis=-1)
        pivots[..., j] = p + 1
        top = lu[..., j, :].copy()
        picked = np.take_along_axis(lu, p[..., None, None] * np.ones((1, n), np.intp), -2)[..., 0, :]
        lu[..., j, :] = picked
        np.put_along_axis(lu, (p[..., None, None] * np.ones((1, n), np.intp)), top[..., None, :], -2)
        pivot = lu[..., j, j]
        below = rows > j
        safe = np.where(pivot == 0, 1, pivot)
        factors = np.where((pivot == 0)[..., None], 0, lu[..., :, j] / safe[..., None]) * below
        lu[..., :, j] = np.where(below, factors, lu[..., :, j])
        lu[..., :, j + 1:] -= factors[..., :, None] * lu[..., j, None, j + 1:]
    return lu, pivots


def _lu_as_torch(a: np.ndarray) -> tuple:
    """The LU PyTorch keeps for det and slogdet: of Aᵀ when A is contiguous (LAPACK then reads A's
    memory as it is), of A otherwise. Both have A's determinant."""
    return _lu(np.swapaxes(a, -1, -2) if a.flags.c_contiguous else a)


def _det_from_lu(lu: np.ndarray, pivots: np.ndarray) -> np.ndarray:
    swaps = np.sum(pivots != np.arange(1, pivots.shape[-1] + 1), axis=-1)
    sign = np.where(swaps % 2, -1, 1).astype(lu.dtype)
    return sign * np.prod(np.diagonal(lu, axis1=-2, axis2=-1), axis=-1)


def _linalg_det(a: Any) -> tuple:
    lu, pivots = _lu_as_torch(np.asarray(a))
    return _det_from_lu(lu, pivots), lu, pivots


def _eye_like(F: Any, d: Any, pivots: np.ndarray) -> Any:
    """diag_embed(d.unsqueeze(-1).expand_as(pivots)).mT(): d on the diagonal (lu_solve's right side)."""
    if F is ArrayMath:
        return np.asarray(d)[..., None, None] * np.eye(pivots.shape[-1], dtype=np.asarray(d).dtype)
    expanded = F.expand(F.op("unsqueeze", d, dim=-1), pivots.shape)
    return F.mT(F.op("diag_embed", expanded, offset=0, dim1=-2, dim2=-1))


def _solve_adjoint(F: Any, A: Any, rhs: Any) -> Any:
    """A^H X = rhs: NumPy's solver on arrays, linalg_solve (LinalgSolveExBackward0) under create_graph."""
    if F is ArrayMath:
        return np.linalg.solve(np.swapaxes(A, -1, -2), rhs)
    return F.op("linalg_solve", F.mT(A), rhs, left=True)[0]


def _det_grad(F: Any, g: Any, A: Any, LU: Any, pivots: Any, result: Any) -> Any:
    """linalg_det_backward: outside grad mode for real A, PyTorch's solve with the saved LU (_det_grad_from_lu);
    otherwise the solution of A^H G = det * grad * I, and for (nearly) singular A the adjugate through the
    SVD. In a batch mixing both, each case is computed on its matrices and put in place."""
    a = np.asarray(F.raw(A))
    if not a.size:
        return F.zeros_like(A)
    if F is ArrayMath and a.dtype.kind == "f":
        return _det_grad_from_lu(g[0] * result, np.asarray(F.raw(LU)), np.asarray(F.raw(pivots)),
                                 not a.flags.c_contiguous)
    det = np.asarray(F.raw(result))
    singular = np.abs(det) < 100 * float(np.finfo(a.dtype).eps)
    if singular.all():
        return _det_grad_singular(F, g[0], A)
    if not singular.any():
        return _solve_adjoint(F, A, _eye_like(F, g[0] * result, np.asarray(F.raw(pivots))))
    adjugates = _det_grad_singular(F, _pick(F, g[0], singular), _pick(F, A, singular))
    grad = F.op("index_put", F.zeros_like(A), adjugates, indices=(singular,))
    rhs = _pick(F, _eye_like(F, g[0] * result, np.asarray(F.raw(pivots))), ~singular)
    return F.op("index_put", grad, _solve_adjoint(F, _pick(F, A, ~singular), rhs), indices=(~singular,))


def _det_grad_from_lu(d: np.ndarray, lu: np.ndarray, pivots: np.ndarray, adjoint: bool) -> np.ndarray:
    """PyTorch's det gradient outside grad mode: (det * grad) A^{-H} solved with the saved LU (of Aᵀ when
    `adjoint` is false), a zero pivot replaced by eps (so a singular A gets det * grad = 0 times that)."""
    lu = lu.copy()
    n = lu.shape[-1]
    i = np.arange(n)
    diag = lu[..., i, i]
    lu[..., i, i] = np.where(diag == 0, np.finfo(lu.dtype).eps, diag)
    rhs = np.asarray(d)[..., None, None] * np.eye(n, dtype=lu.dtype)
    return _lu_solve_arrays(lu, pivots, rhs, adjoint)


def _pick(F: Any, t: Any, mask: np.ndarray) -> Any:
    """The matrices of a batch where mask is true (IndexBackward0)."""
    return F.op("index", t, indices=(mask,))


def _det_grad_singular(F: Any, g: Any, A: Any) -> Any:
    """det's gradient for any A = U S Vh: U diag(alpha grad prod_{j != i} S_j) Vh, alpha = det U det Vh."""
    U, S, Vh = F.op("linalg_svd", A, full_matrices=True)
    alpha = F.op("linalg_det", U)[0] * F.op("linalg_det", Vh)[0]
    D = _prod_safe_zeros_backward(F, F.op("unsqueeze", alpha * g, dim=-1), S, np.ndim(F.raw(S)) - 1)
    return (U * F.op("unsqueeze", D, dim=-2)) @ Vh


def _prod_safe_zeros_backward(F: Any, grad: Any, inp: Any, dim: int) -> Any:
    """grad times the product of the other entries along dim, from exclusive cumulative products both ways
    (no division, so zeros are fine)."""
    shape = np.shape(F.raw(inp))
    ones = _constant_grad(F, np.ones(shape[:dim] + (1,) + shape[dim + 1:], np.asarray(F.raw(inp)).dtype))
    n = shape[dim]
    before = F.op("cumprod", F.cat([ones, F.op("slice", inp, dim=dim, start=0, end=n - 1, step=1)], dim),
                  dim=dim)
    after = F.op("flip", F.op("slice", inp, dim=dim, start=1, end=n, step=1), dims=(dim,))
    after = F.op("flip", F.op("cumprod", F.cat([ones, after], dim), dim=dim), dims=(dim,))
    return grad * (before * after)


LU_OUTPUTS = {"differentiable_outputs": (0,)}
LINALG_DET = rule("linalg_det", "LinalgDetBackward0", _linalg_det, (_det_grad,),
                  ("det * grad * A^{-H}",), inputs=("A",), outputs=3, output_names=("result", "LU", "pivots"),
                  **LU_OUTPUTS)


def _linalg_slogdet(a: Any) -> tuple:
    lu, pivots = _lu_as_torch(np.asarray(a))
    det = _det_from_lu(lu, pivots)
    diag = np.diagonal(lu, axis1=-2, axis2=-1)
    sign = np.sign(det).astype(lu.dtype)
    logabsdet = np.sum(np.log(np.abs(diag)), axis=-1).astype(lu.dtype)
    return sign, logabsdet, lu, pivots


def _slogdet_grad(F: Any, g: Any, A: Any, LU: Any, pivots: Any, sign: Any) -> Any:
    """slogdet_backward: grad_logabsdet * A^{-H} (the sign's gradient is zero for real A)."""
    if not _received(F, g[1]):
        return F.zeros_like(A)
    return _solve_adjoint(F, A, _eye_like(F, g[1], np.asarray(F.raw(pivots))))


LINALG_SLOGDET = rule("linalg_slogdet", "LinalgSlogdetBackward0", _linalg_slogdet, (_slogdet_grad,),
                      ("grad_logabsdet * A^{-H}",), inputs=("A",), outputs=4,
                      output_names=("sign", "logabsdet", "LU", "pivots"), differentiable_outputs=(0, 1))


def _linalg_inv_ex(a: Any) -> tuple:
    a = np.asarray(a)
    lu, pivots = _lu(a)
    info = _singular_info(lu)
    inverse = np.linalg.inv(np.where((info == 0)[..., None, None], a, np.eye(a.shape[-1], dtype=a.dtype)))
    return _lapack_layout(inverse.astype(a.dtype)), info


def _singular_info(lu: np.ndarray) -> np.ndarray:
    """LAPACK's info: the 1-based index of the first zero on U's diagonal, 0 when there is none."""
    zero = np.diagonal(lu, axis1=-2, axis2=-1) == 0
    return np.where(zero.any(-1), np.argmax(zero, -1) + 1, 0).astype(np.int32)


LINALG_INV_EX = rule(
    "linalg_inv_ex", "LinalgInvExBackward0", _linalg_inv_ex,
    (lambda F, g, inverse: -(F.mT(inverse) @ (g[0] @ F.mT(inverse))),), ("-inverseᴴ @ grad @ inverseᴴ",),
    inputs=("A",), outputs=2, output_names=("inverse", "info"), **LU_OUTPUTS)


def _is_vector_rhs(a_shape: tuple, b_shape: tuple) -> bool:
    """linalg_solve_is_vector_rhs: B is a vector (or a batch of them) rather than matrices."""
    return len(b_shape) == 1 or (len(b_shape) == len(a_shape) - 1 and tuple(b_shape) == tuple(a_shape[:-1]))


def _linalg_solve(a: Any, b: Any, left: bool = True) -> tuple:
    a, b = np.asarray(a), np.asarray(b)
    lu, pivots = _lu(a)  # solve factors A itself (det and slogdet factor Aᵀ when A is contiguous)
    info = _singular_info(lu)
    singular = np.any(info > 0)
    a = np.where((info == 0)[..., None, None], a, np.eye(a.shape[-1], dtype=a.dtype))
    vector = _is_vector_rhs(a.shape, b.shape)
    rhs = b[..., None] if vector else b
    if left:
        x = np.linalg.solve(a, rhs)
    else:
        x = np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), np.swapaxes(rhs, -1, -2)), -1, -2)
    x = x.astype(np.result_type(a, b))
    if singular:
        bad = (info > 0)[..., None, None]
        x = np.where(bad, _linalg_lu_solve(lu, rhs.astype(lu.dtype), pivots, left), x)  # LAPACK's inf and nan
    if not vector:  # LAPACK's column-major solution (row-major when solving X A = B through the transposes)
        x = _lapack_layout(x) if left else np.ascontiguousarray(x)
    return x[..., 0] if vector else x, _lapack_layout(lu), pivots, info


def _solve_grads(F: Any, g: Any, A: Any, left: bool, result: Any) -> tuple:
    """linalg_solve_backward: gB = A^{-H} grad, gA = -gB Xᴴ (-Xᴴ gB when solving X A = B)."""
    a, x = np.asarray(F.raw(A)), np.asarray(F.raw(result))
    vector = _is_vector_rhs(a.shape, x.shape)
    grad = F.op("unsqueeze", g[0], dim=-1) if vector and F is not ArrayMath else (
        np.asarray(g[0])[..., None] if vector else g[0])
    if F is ArrayMath:
        gb = np.linalg.solve(np.swapaxes(a, -1, -2), grad) if left else np.swapaxes(
            np.linalg.solve(a, np.swapaxes(grad, -1, -2)), -1, -2)
    else:
        gb = F.op("linalg_solve", F.mT(A), grad, left=left)[0]
    xm = (F.op("unsqueeze", result, dim=-1) if F is not ArrayMath else x[..., None]) if vector else result
    ga = -(gb @ F.mT(xm)) if left else -(F.mT(xm) @ gb)
    if vector:
        gb = F.op("squeeze_dim", gb, dim=-1) if F is not ArrayMath else gb[..., 0]
    return ga, gb


def _solve_grad(index: int) -> Any:
    """A's (0) or B's (1) gradient; LU and pivots are saved as PyTorch saves them (its backward without
    create_graph reuses them; NumPy's solver refactors A)."""

    def grad(F: Any, g: Any, A: Any, LU: Any, left: bool, node: Any, pivots: Any, result: Any) -> Any:
        return _shared_call(node, g[0], lambda: _solve_grads(F, g, A, left, result))[index]

    return grad


LINALG_SOLVE = rule("linalg_solve", "LinalgSolveExBackward0", _linalg_solve, (_solve_grad(0), _solve_grad(1)),
                    ("-gB @ resultᴴ", "A^{-H} @ grad"), inputs=("A", "B"), outputs=4,
                    output_names=("result", "LU", "pivots", "info"),
                    defaults={"left": True}, save_always=True, **LU_OUTPUTS)


def _svd(a: Any, full_matrices: bool = False, S_sym_argsize_minus_1: int = 0) -> tuple:  # noqa: N803
    u, s, vh = np.linalg.svd(np.asarray(a), full_matrices=full_matrices)
    return u, s.astype(np.asarray(a).dtype), vh


def _svd_grad(F: Any, g: Any, S: Any, S_sym_argsize_minus_1: int, U: Any, Vh: Any,  # noqa: N803
              full_matrices: bool) -> Any:
    """svd_backward (real case): U [(skew(UᵀgU) / E) S + S (skew(VᵀgV) / E) + diag(gS)] Vᵀ, plus the
    terms outside the span for rectangular A; full matrices are first narrowed to the k singular vectors."""
    gU, gS, gVh = (t if _received(F, t) else None for t in g)
    if full_matrices:
        k = S_sym_argsize_minus_1
        gU, U = None if gU is None else _narrow(F, gU, -1, k), _narrow(F, U, -1, k)
        gVh, Vh = None if gVh is None else _narrow(F, gVh, -2, k), _narrow(F, Vh, -2, k)
    u = np.asarray(F.raw(U))
    m, n = u.shape[-2], np.shape(F.raw(Vh))[-1]
    if gU is None and gVh is None:
        if gS is None:
            return _constant_grad(F, np.zeros(u.shape[:-1] + (n,), u.dtype))
        if m >= n:
            return U @ (F.op("unsqueeze", gS, dim=-1) * Vh)
        return (U * F.op("unsqueeze", gS, dim=-2)) @ Vh
    skew = (lambda x: x - F.mT(x))
    s2 = S * S
    e = F.op("unsqueeze", s2, dim=-2) - F.op("unsqueeze", s2, dim=-1)
    e = e + np.eye(np.shape(F.raw(e))[-1], dtype=np.asarray(F.raw(e)).dtype)  # 1 on the diagonal
    row, col = F.op("unsqueeze", S, dim=-2), F.op("unsqueeze", S, dim=-1)
    uhgu = skew(F.mT(U) @ gU) if gU is not None else None
    vhgv = skew(Vh @ F.mT(gVh)) if gVh is not None else None
    if uhgu is not None and vhgv is not None:
        ga = (uhgu * row + col * vhgv) / e
    elif uhgu is not None:
        ga = (uhgu / e) * row
    else:
        ga = col * (vhgv / e)
    if gS is not None:
        ga = ga + F.op("diag_embed", gS, offset=0, dim1=-2, dim2=-1)
    if m > n and gU is not None:
        ga = U @ ga
        gu_sinv = gU / row
        ga = (ga + gu_sinv - U @ (F.mT(U) @ gu_sinv)) @ Vh
    elif m < n and gVh is not None:
        ga = ga @ Vh
        sinv_gvh = gVh / col
        ga = U @ (ga + sinv_gvh - (sinv_gvh @ F.mT(Vh)) @ Vh)
    else:
        ga = U @ (ga @ Vh) if m >= n else (U @ ga) @ Vh
    return ga


def _narrow(F: Any, t: Any, dim: int, length: int) -> Any:
    """t.narrow(dim, 0, length) (SliceBackward0)."""
    return F.op("slice", t, dim=dim % np.ndim(F.raw(t)), start=0, end=length, step=1)


LINALG_SVD = rule("linalg_svd", "LinalgSvdBackward0", _svd, (_svd_grad,),
                  ("U [(skew(Uᵀ gU) / E) S + S (skew(Vᵀ gV) / E) + diag(gS)] Vᵀ",), inputs=("A",), outputs=3,
                  output_names=("U", "S", "Vh"), extra_saves=("S_sym_argsize_minus_1", "full_matrices"),
                  defaults={"full_matrices": False})


def _cross(a: Any, b: Any, dim: int) -> Any:
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    return np.moveaxis(np.cross(np.moveaxis(a, dim, -1), np.moveaxis(b, dim, -1)), -1, dim)


LINALG_CROSS = rule("linalg_cross", "LinalgCrossBackward0", _cross,
                    (lambda F, g, dim, other: F.op("linalg_cross", other, g, dim=dim),
                     lambda F, g, dim, self: F.op("linalg_cross", g, self, dim=dim)),
                    ("cross(other, grad)", "cross(grad, self)"), inputs=BINARY)
VDOT = rule("vdot", "VdotBackward0", np.vdot, (lambda F, g, other: g * other, lambda F, g, self: g * self),
            ("grad * other", "grad * self"), inputs=BINARY)


def _cdist(x1: Any, x2: Any, p: float) -> Any:
    """p-norm distances between the rows of x1 and x2 (batched over leading dims)."""
    x1, x2 = np.asarray(x1), np.asarray(x2)
    diff = np.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == 0:
        return np.sum(diff != 0, axis=-1).astype(x1.dtype)
    if math.isinf(p):
        return np.max(diff, axis=-1) if diff.shape[-1] else np.zeros(diff.shape[:-1], x1.dtype)
    if p == 1:
        return np.sum(diff, axis=-1)
    if p == 2:
        return np.sqrt(np.sum(diff * diff, axis=-1))
    return np.sum(diff ** p, axis=-1) ** (1.0 / p)


def _cdist_backward(grad: Any, x1: Any, x2: Any, cdist: Any, p: float) -> Any:
    """_cdist_backward: each row of x1's gradient from its distances to x2's rows (0 at distance 0)."""
    g, x1, x2, dist = (np.asarray(v) for v in (grad, x1, x2, cdist))
    diff = x1[..., :, None, :] - x2[..., None, :, :]
    d = dist[..., None]
    gd = g[..., None]
    if p == 0:
        terms = np.zeros_like(diff)
    elif p == 1:
        terms = np.sign(diff) * gd
    elif p == 2:
        terms = np.where(d == 0, 0, gd * diff / np.where(d == 0, 1, d))
    elif math.isinf(p):
        terms = gd * np.sign(diff) * (np.abs(diff) == d)
    elif p < 2:
        safe = np.where(d == 0, 1, d)
        body = np.sign(diff) * np.abs(diff) ** (p - 1) * gd / safe ** (p - 1)
        terms = np.where((d == 0) | ((diff == 0) & (p < 1)), 0, body)
    else:
        safe = np.where(d == 0, 1, d)
        terms = np.where(d == 0, 0, diff * np.abs(diff) ** (p - 2) * gd / safe ** (p - 1))
    return np.sum(terms, axis=-2).astype(x1.dtype)


def _cdist_x2_grad(F: Any, g: Any, p: float, result: Any, x1: Any, x2: Any) -> Any:
    """x2's gradient: _cdist_backward of the transposed problem."""
    return F.op("cdist_backward", F.contiguous(F.mT(g)), x2, x1, F.contiguous(F.mT(result)), p=p)


CDIST = rule("cdist", "CdistBackward0", _cdist,
             (lambda F, g, p, result, x1, x2: F.op("cdist_backward", F.contiguous(g), x1, x2, result, p=p),
              _cdist_x2_grad),
             ("sum over x2's rows of grad * ∂dist/∂x1", "sum over x1's rows of grad * ∂dist/∂x2"),
             inputs=("x1", "x2"), save_always=True)
CDIST_BACKWARD = rule("cdist_backward", "CdistBackwardBackward0", _cdist_backward,
                      tuple(_unique_not_implemented("_cdist_backward") for _ in range(4)),
                      ("not implemented in PyTorch",) * 4, inputs=("grad", "x1", "x2", "cdist"))


def _euclidean_dist(x1: Any, x2: Any) -> Any:
    """Euclidean distances from |x1|² - 2 x1·x2 + |x2|² (clamped at 1e-30 before the square root)."""
    x1, x2 = np.asarray(x1), np.asarray(x2)
    cross = x1 @ np.swapaxes(x2, -1, -2)
    sq = np.sum(x1 * x1, -1)[..., :, None] - 2 * cross + np.sum(x2 * x2, -1)[..., None, :]
    return np.sqrt(np.maximum(sq, 1e-30)).astype(x1.dtype)


def _euclidean_grads(F: Any, g: Any, result: Any, x1: Any, x2: Any) -> tuple:
    """_euclidean_dist_backward: ratio = grad / dist (0 where dist is 0), then its matrix products."""
    ratio = F.op("masked_fill", g / result, mask=np.asarray(F.raw(result)) == 0, value=0)
    return (x1 * F.sum(ratio, (-1,), True) - ratio @ x2,
            x2 * F.op("unsqueeze", F.sum(ratio, (-2,)), dim=-1) - F.mT(ratio) @ x1)


def _euclidean_grad(index: int) -> Any:
    def grad(F: Any, g: Any, node: Any, result: Any, x1: Any, x2: Any) -> Any:
        return _shared_call(node, g, lambda: _euclidean_grads(F, g, result, x1, x2))[index]

    return grad


EUCLIDEAN_DIST = rule("euclidean_dist", "EuclideanDistBackward0", _euclidean_dist,
                      (_euclidean_grad(0), _euclidean_grad(1)),
                      ("x1 * sum(grad / dist) - (grad / dist) @ x2",
                       "x2 * sum(grad / dist) - (grad / dist)ᵀ @ x1"),
                      inputs=("x1", "x2"), save_always=True)


# =================================================================================================
# Neural-network ops: shrinkage, PReLU, group norm, adaptive pooling, bilinear, more losses
# =================================================================================================
def _softshrink(a: Any, lambd: float = 0.5) -> Any:
    return np.where(a > lambd, a - lambd, np.where(a < -lambd, a + lambd, 0)).astype(np.asarray(a).dtype)


def _hardshrink(a: Any, lambd: float = 0.5) -> Any:
    return np.where((a >= -lambd) & (a <= lambd), 0, a).astype(np.asarray(a).dtype)


def _shrink_backward(grad_out: Any, self: Any, lambd: float) -> Any:
    """softshrink_backward and hardshrink_backward: grad outside [-lambd, lambd], 0 inside."""
    return np.where((self >= -lambd) & (self <= lambd), 0, grad_out).astype(np.result_type(grad_out, self))


SHRINK = {"elementwise": True, "defaults": {"lambd": 0.5}}
SOFTSHRINK = rule("softshrink", "SoftshrinkBackward0", _softshrink,
                  (lambda F, g, lambd, self: F.softshrink_backward(g, self, lambd=lambd),),
                  ("grad * (|self| > lambd)",), **SHRINK)
HARDSHRINK = rule("hardshrink", "HardshrinkBackward0", _hardshrink,
                  (lambda F, g, lambd, self: F.hardshrink_backward(g, self, lambd=lambd),),
                  ("grad * (|self| > lambd)",), **SHRINK)
SHRINK_BACKWARD = {"inputs": ("grad_out", "self"), "elementwise": True}
SOFTSHRINK_BACKWARD = backward_function(
    "softshrink_backward", "SoftshrinkBackwardBackward0", _shrink_backward,
    (lambda F, g, lambd, self: F.softshrink_backward(g, self, lambd=lambd), lambda F, g: F.zeros_like(g)),
    ("grad * (|self| > lambd)", "0"), **SHRINK_BACKWARD)
HARDSHRINK_BACKWARD = backward_function(
    "hardshrink_backward", "HardshrinkBackwardBackward0", _shrink_backward,
    (lambda F, g, lambd, self: F.hardshrink_backward(g, self, lambd=lambd), lambda F, g: F.zeros_like(g)),
    ("grad * (|self| > lambd)", "0"), **SHRINK_BACKWARD)


def _prelu_kernel_backward(grad_output: Any, self: Any, weight: Any) -> tuple:
    """(grad * (self > 0 ? 1 : weight), grad * (self > 0 ? 0 : self)), both in self's shape."""
    positive = self > 0
    return (np.where(positive, grad_output, weight * grad_output).astype(np.asarray(self).dtype),
            np.where(positive, 0, self * grad_output).astype(np.asarray(self).dtype))


def _prelu_double_backward(index: int) -> Any:
    """_prelu_kernel_backward's derivative for grad_output (0), self (1) or weight (2), given the gradients
    of its two outputs."""

    def grad(F: Any, g: Any, grad_output: Any, self: Any, weight: Any) -> Any:
        gi, gw = (t if _received(F, t) else None for t in g)
        x = np.asarray(F.raw(self))
        positive = x >= 0
        zero = np.zeros((), x.dtype)
        if index == 0:
            if gi is None:
                return F.where(positive, zero, gw * self)
            return F.where(positive, gi, gi * weight + gw * self if gw is not None else gi * weight)
        source = gw if index == 1 else gi
        if source is None:
            return F.zeros_like(self)
        return F.where(positive, zero, grad_output * source)

    return grad


def _prelu_grad(index: int) -> Any:
    """self's (0) or weight's (1) gradient: both outputs of one _prelu_kernel_backward."""

    def grad(F: Any, g: Any, node: Any, self: Any, weight: Any) -> Any:
        return _shared_call(node, g, lambda: F.prelu_kernel_backward(g, self, weight))[index]

    return grad


PRELU = rule("prelu_kernel", "PreluKernelBackward0", lambda a, w: np.where(a > 0, a, w * a),
             (_prelu_grad(0), _prelu_grad(1)),
             ("grad * (self > 0 ? 1 : weight)", "grad * (self > 0 ? 0 : self), summed to weight"),
             inputs=("self", "weight"), save_always=True)
PRELU_BACKWARD = backward_function(
    "prelu_kernel_backward", "PreluKernelBackwardBackward0", _prelu_kernel_backward,
    (_prelu_double_backward(0), _prelu_double_backward(1), _prelu_double_backward(2)),
    ("where(self >= 0, grad_input, grad_input * weight + grad_weight * self)",
     "where(self >= 0, 0, grad_output * grad_weight)", "where(self >= 0, 0, grad_output * grad_input)"),
    inputs=("grad_output", "self", "weight"), outputs=2, output_names=("result0", "result1"))


def _group_stats(x: np.ndarray, group: int, eps: float) -> tuple:
    """x viewed as (N, group, -1), its per-group mean and 1 / sqrt(biased var + eps) as (N, group)."""
    n = x.shape[0]
    rows = x.reshape(n, group, -1)
    mean = rows.mean(-1)
    var = ((rows - mean[..., None]) ** 2).mean(-1)
    return rows, mean, 1 / np.sqrt(var + eps)


def _group_norm(input: Any, weight: Any, bias: Any, N: int, C: int, HxW: int, group: int,  # noqa: N803
                eps: float) -> tuple:
    x = np.asarray(input)
    rows, mean, rstd = _group_stats(x, group, eps)
    out = ((rows - mean[..., None]) * rstd[..., None]).reshape(x.shape)
    shape = (1, C) + (1,) * (x.ndim - 2)
    if weight is not None:
        out = out * np.reshape(weight, shape)
    if bias is not None:
        out = out + np.reshape(bias, shape)
    return out.astype(x.dtype), mean.astype(x.dtype), rstd.astype(x.dtype)


def _group_norm_grads(F: Any, g: tuple, C: int, HxW: int, N: int, group: int, input: Any,  # noqa: N803
                      result1: Any, result2: Any, weight: Any) -> tuple:
    """infinitely_differentiable_native_group_norm_backward: (input, weight, bias) gradients from the
    output's gradient, and from the mean's and rstd's when they arrive."""
    dY, dmean, drstd = g
    D = C // group  # noqa: N806
    X = F.reshape(input, (N, group, D, HxW))  # noqa: N806
    mean = F.reshape(result1, (N, group, 1, 1))
    rstd = F.reshape(result2, (N, group, 1, 1))
    rstd_cube = rstd * rstd * rstd
    dX = dgamma = dbeta = None  # noqa: N806
    if _arrived(F, dY):
        dY = F.reshape(dY, (N, group, D, HxW))  # noqa: N806
        dX, dgamma, dbeta = _group_norm_output_grads(F, dY, X, mean, rstd, rstd_cube, weight,  # noqa: N806
                                                     1.0 / (D * HxW))
    if _arrived(F, dmean) or _arrived(F, drstd):  # a missing one counts as zeros
        dvar = _scale(F, rstd_cube, -0.5) * F.reshape(drstd, (N, group, 1, 1))
        statistics = _var_mean_backward(F, dvar, F.reshape(dmean, (N, group, 1, 1)), X, (2, 3))
        dX = statistics if dX is None else dX + statistics  # noqa: N806
    return None if dX is None else F.reshape(dX, np.shape(F.raw(input))), dgamma, dbeta


def _group_norm_output_grads(F: Any, dY: Any, X: Any, mean: Any, rstd: Any, rstd_cube: Any, weight: Any,
                             # noqa: N803
                             s: float) -> tuple:
    """The (input, weight, bias) gradients carried by the output's gradient, over (N, group, D, HxW) views."""
    ds = F.op("unsqueeze_", F.sum(dY * X, (3,)), dim=-1)
    db = F.op("unsqueeze_", F.sum(dY, (3,)), dim=-1)
    gamma = None if weight is None else F.reshape(weight, (1,) + np.shape(F.raw(X))[1:3] + (1,))
    a = rstd if gamma is None else rstd * gamma
    b = F.op("unsqueeze_", F.sum(ds if gamma is None else ds * gamma, (2,)), dim=-2)
    c = F.op("unsqueeze_", F.sum(db if gamma is None else db * gamma, (2,)), dim=-2)
    b = _scale(F, (c * mean - b) * rstd_cube, s)
    c = -b * mean - _scale(F, c * rstd, s)
    if weight is None:
        return a * dY + b * X + c, None, None
    shape = np.shape(F.raw(weight))
    dgamma = F.reshape(F.sum((ds - db * mean) * rstd, (0,)), shape)
    return a * dY + b * X + c, dgamma, F.reshape(F.sum(db, (0,)), shape)


def _arrived(F: Any, g: Any) -> bool:
    """Whether an output's gradient arrived (or is not all zeros: a plain backward gives zeros for a
    missing one, so skipping zeros changes no value)."""
    return _received(F, g) and (F is not ArrayMath or bool(np.any(g)))


def _var_mean_backward(F: Any, gvar: Any, gmean: Any, x: Any, dims: tuple) -> Any:
    """var_mean_backward (biased variance, keepdim): 2 / n * gvar * (x - mean(x)) + gmean / n, expanded."""
    n = int(np.prod([np.shape(F.raw(x))[d] for d in dims]))
    centered = x - F.op("mean_dim", x, dim=dims, keepdim=True)
    mean_part = F.op("div_scalar", F.expand(gmean, np.shape(F.raw(x))), other=n)
    return _scale(F, gvar, 2.0 / n) * centered + mean_part


def _group_norm_grad(index: int) -> Any:
    def grad(F: Any, g: tuple, C: int, HxW: int, N: int, group: int, input: Any, node: Any,  # noqa: N803
             result1: Any, result2: Any, weight: Any) -> Any:
        return _shared_call(node, g, lambda: _group_norm_grads(
            F, g, C, HxW, N, group, input, result1, result2, weight))[index]

    return grad


GROUP_NORM = rule(
    "native_group_norm", "NativeGroupNormBackward0", _group_norm,
    tuple(_group_norm_grad(i) for i in range(3)),
    ("rstd * (dx̂ - mean(dx̂) - x̂ * mean(dx̂ * x̂)) per group, dx̂ = grad * weight",
     "sum(grad * x̂) per channel",
     "sum(grad) per channel"),
    inputs=("input", "weight", "bias"), outputs=3, output_names=("result", "result1", "result2"),
    extra_saves=("eps",), save_always=True)


def _unbatched(fn: Any) -> Any:
    """An adaptive pooling kernel that also takes one unbatched (C, *spatial) input."""

    def kernel(x: Any, *args: Any) -> Any:
        x = np.asarray(x)
        return fn(x, *args) if x.ndim == len(args[0]) + 2 else _strip(fn(x[None], *args))

    return kernel


def _strip(out: Any) -> Any:
    return tuple(o[0] for o in out) if isinstance(out, tuple) else out[0]


def _adaptive_pool_rules(dims: int, regrad: Any) -> tuple[Rule, Rule, Rule, Rule]:
    """adaptive_avg_pool{dims}d and adaptive_max_pool{dims}d (grad_fn AdaptiveAvgPool{dims}DBackward0...)
    and their backward ops; regrad is the gradient of the average's backward (an adaptive_avg_pool of
    grad to grad_output's sizes, saved as grad_output_sym_argsize_minus_k)."""
    avg, top = f"adaptive_avg_pool{dims}d", f"adaptive_max_pool{dims}d"

    def avg_backward(grad_output: Any, self: Any) -> Any:
        g, x = np.asarray(grad_output), np.asarray(self)
        if x.ndim == dims + 1:
            return conv.adaptive_avg_pool_grad(g[None], (1,) + x.shape)[0]
        return conv.adaptive_avg_pool_grad(g, x.shape)

    avg_rule = rule(
        avg, f"AdaptiveAvgPool{dims}DBackward0",
        lambda a, output_size: _unbatched(conv.adaptive_avg_pool)(a, tuple(output_size)),
        (lambda F, g, self: getattr(F, f"{avg}_backward")(g, self),), ("grad shared by each window's inputs",))
    avg_backward_rule = backward_function(
        f"{avg}_backward", f"AdaptiveAvgPool{dims}DBackwardBackward0", avg_backward,
        (regrad, lambda F, g: F.zeros_like(g)), (f"{avg}(grad)", "0"), inputs=("grad_output", "self"))
    max_rule = rule(
        top, f"AdaptiveMaxPool{dims}DBackward0",
        lambda a, output_size: _unbatched(conv.adaptive_max_pool)(a, tuple(output_size)),
        (lambda F, g, result1, self: getattr(F, f"{top}_backward")(g[0], self, indices=F.raw(result1)),),
        ("grad added at each window's maximum",), outputs=2, differentiable_outputs=(0,),
        output_names=("result", "result1"))
    max_backward_rule = backward_function(
        f"{top}_backward", f"AdaptiveMaxPool{dims}DBackwardBackward0", _max_pool_backward(dims),
        (lambda F, g, indices: _max_pool_double_backward(F, g, indices, dims), lambda F, g: F.zeros_like(g)),
        ("grad read at each window's maximum", "0"), inputs=("grad_output", "self"))
    return avg_rule, avg_backward_rule, max_rule, max_backward_rule


ADAPTIVE_AVG_POOL2D, ADAPTIVE_AVG_POOL2D_BACKWARD, ADAPTIVE_MAX_POOL2D, ADAPTIVE_MAX_POOL2D_BACKWARD = (
    _adaptive_pool_rules(2, lambda F, g, grad_output_sym_argsize_minus_2, grad_output_sym_argsize_minus_1: F.op(
        "adaptive_avg_pool2d", g, output_size=(grad_output_sym_argsize_minus_2, grad_output_sym_argsize_minus_1))))
ADAPTIVE_AVG_POOL3D, ADAPTIVE_AVG_POOL3D_BACKWARD, ADAPTIVE_MAX_POOL3D, ADAPTIVE_MAX_POOL3D_BACKWARD = (
    _adaptive_pool_rules(3, lambda F, g, grad_output_sym_argsize_minus_3, grad_output_sym_argsize_minus_2,
                         grad_output_sym_argsize_minus_1: F.op(
                             "adaptive_avg_pool3d", g, output_size=(grad_output_sym_argsize_minus_3,
                                                                    grad_output_sym_argsize_minus_2,
                                                                    grad_output_sym_argsize_minus_1))))


def _trilinear(i1: Any, i2: Any, i3: Any, expand1: tuple, expand2: tuple, expand3: tuple, sumdim: tuple,
               unroll_dim: int = 1) -> Any:
    """(i1 * i2 * i3) summed over sumdim, each first unsqueezed at its expand dims (bilinear's kernel)."""
    a, b, c = (np.expand_dims(np.asarray(t), e) for t, e in ((i1, expand1), (i2, expand2), (i3, expand3)))
    return np.sum(a * b * c, axis=tuple(sumdim)) if sumdim else a * b * c


def _trilinear_grad(index: int) -> Any:
    """_trilinear_backward: each input's gradient is a _trilinear of grad with the other two."""

    def grad(F: Any, g: Any, expand1: tuple, expand2: tuple, expand3: tuple, i1: Any, i2: Any, i3: Any,
             sumdim: tuple) -> Any:
        operands = [i1, i2, i3]
        expands = [expand1, expand2, expand3]
        operands[index], expands[index] = g, sumdim
        return F.op("trilinear", *operands, expand1=expands[0], expand2=expands[1], expand3=expands[2],
                    sumdim=(expand1, expand2, expand3)[index])

    return grad


TRILINEAR = rule("trilinear", "TrilinearBackward0", _trilinear,
                 (_trilinear_grad(0), _trilinear_grad(1), _trilinear_grad(2)),
                 ("_trilinear(grad, i2, i3)", "_trilinear(i1, grad, i3)", "_trilinear(i1, i2, grad)"),
                 inputs=("i1", "i2", "i3"), save_always=True, defaults={"unroll_dim": 1})
NORM_DIM = rule(
    "norm_dim", "NormBackward1", lambda a, p, dim, keepdim=False: _norm_fwd(a, p, dim, keepdim),
    (lambda F, g, dim, keepdim, p, result, self: _norm_grad(F, g, dim, keepdim, p, result, self),),
    ("grad * self / result (p 2)",), defaults={"keepdim": False})


def _soft_margin_terms(self: Any, target: Any) -> Any:
    return np.log1p(np.exp(-target * self))


def _soft_margin_loss_backward(grad_output: Any, self: Any, target: Any, reduction: int) -> Any:
    """-target * sigmoid(-target * self) * grad (/ numel for 'mean')."""
    z = np.exp(-target * self)
    out = -target * z / (1 + z) * grad_output
    return (out / np.size(self) if reduction == 1 else out).astype(np.asarray(self).dtype)


def _soft_margin_double_backward(F: Any, g: Any, self: Any, target: Any, reduction: int) -> Any:
    """soft_margin_loss_double_backward: grad * target² * z / (1 + z)², z = exp(-target * self)."""
    z = F.exp(self * -target) if F is not ArrayMath else np.exp(self * -target)
    zplus1 = F.op("add_scalar", z, other=1) if F is not ArrayMath else z + 1
    out = g * (target * target) * z / (zplus1 * zplus1)
    return _per_element(F, out, self, reduction)


def _soft_margin_double_backward_grad_output(F: Any, g: Any, grad_output: Any, reduction: int, self: Any,
                                             target: Any) -> Any:
    if reduction == 0:
        return F.soft_margin_loss_backward(g, self, target=target, reduction=reduction)
    r = F.soft_margin_loss_backward(F.ones_like(grad_output), self, target=target, reduction=reduction)
    return F.sum(r * g)


SOFT_MARGIN_LOSS = rule(
    "soft_margin_loss", "SoftMarginLossBackward0",
    lambda a, target, reduction=1: _reduce(
        _soft_margin_terms(a, target), reduction).astype(np.asarray(a).dtype),
    (lambda F, g, reduction, self, target: F.soft_margin_loss_backward(
        g, self, target=target, reduction=reduction),),
    ("-target * σ(-target * self) * grad / N",), extra_saves=("target",), defaults={"reduction": 1})
SOFT_MARGIN_LOSS_BACKWARD = backward_function(
    "soft_margin_loss_backward", "SoftMarginLossBackwardBackward0", _soft_margin_loss_backward,
    (_soft_margin_double_backward_grad_output,
     lambda F, g, grad_output, reduction, target, self: _soft_margin_double_backward(
         F, g * grad_output, self, target, reduction)),
    ("sum(soft_margin_loss_backward(1, ...) * grad)", "grad * grad_output * target² * z / (1 + z)² / N"),
    inputs=("grad_output", "self"), extra_saves=("target",))


def _multi_margin(a: Any, target: Any, p: int, margin: float, weight: Any, reduction: int) -> Any:
    """sum over wrong classes of max(0, margin - x[target] + x[i])^p (* weight[target]) / classes."""
    x = np.atleast_2d(a)
    t = np.atleast_1d(target)
    picked = x[np.arange(len(t)), t][:, None]
    z = np.maximum(margin - picked + x, 0) ** p
    if weight is not None:
        z = z * np.asarray(weight)[t][:, None]
    z[np.arange(len(t)), t] = 0
    loss = z.sum(1) / x.shape[1]
    loss = loss.reshape(np.shape(target)) if np.ndim(a) == 1 else loss
    return _reduce(loss.astype(x.dtype), reduction)


def _multi_margin_backward(grad_output: Any, self: Any, target: Any, p: int, margin: float, weight: Any,
                           reduction: int) -> Any:
    x = np.atleast_2d(self)
    t = np.atleast_1d(target)
    picked = x[np.arange(len(t)), t][:, None]
    z = margin - picked + x
    active = (z > 0).astype(x.dtype)
    active[np.arange(len(t)), t] = 0
    d = active * (p * z ** (p - 1) if p != 1 else 1)
    if weight is not None:
        d = d * np.asarray(weight)[t][:, None]
    d[np.arange(len(t)), t] = -d.sum(1)
    g = np.asarray(grad_output)
    scale = (g / x.shape[0] if reduction == 1 else g) if reduction else np.atleast_1d(g)[:, None]
    out = d * scale / x.shape[1]
    return out.reshape(np.shape(self)).astype(x.dtype)


def _multi_margin_grad(F: Any, g: Any, margin: float, p: int, reduction: int, self: Any, target: Any,
                       weight: Any) -> Any:
    """multi_margin_loss_backward: a kernel PyTorch cannot differentiate again (a NotImplemented node)."""
    value = _multi_margin_backward(F.raw(g), F.raw(self), target, p, margin, weight, reduction)
    return kernel_gradient(F, "multi_margin_loss_backward", value, (g, self))


MULTI_MARGIN_LOSS = rule(
    "multi_margin_loss", "MultiMarginLossBackward0", _multi_margin, (_multi_margin_grad,),
    ("grad * p * max(0, margin - x[y] + x[i])^(p-1) per wrong class, minus their sum at y",),
    extra_saves=("target", "weight"), defaults={"p": 1, "margin": 1.0, "weight": None, "reduction": 1})


# =================================================================================================
# Recurrent layers: unsafe_split (the gates of a cell) and the fused LSTM layer of PyTorch's CPU build
# =================================================================================================
UNSAFE_SPLIT = rule("unsafe_split", "UnsafeSplitBackward0",
                    lambda a, split_size, dim: tuple(
                        np.array(p) for p in _split(a, dim, _split_sizes(a.shape[dim], split_size))),
                    (lambda F, g, dim, self_sym_sizes, split_size: F.cat(list(g), dim),),
                    ("grads concatenated along dim",), outputs=-1)


def _lstm_gates(F: Any, x: Any, h: Any, c: Any, w_ih: Any, w_hh: Any, b_ih: Any, b_hh: Any,
                hidden: int) -> tuple:
    """One LSTM step: the gates (i, f, g, o) and the new (h, c), as PyTorch's cell computes them."""
    gates = _linear(F, h, w_hh, b_hh) + _linear(F, x, w_ih, b_ih)
    i, f, g, o = F.op("unsafe_split", gates, split_size=hidden, dim=1)
    i, f, g, o = F.sigmoid(i), F.sigmoid(f), F.tanh(g), F.sigmoid(o)
    cy = f * c + i * g
    return (i, f, g, o), o * F.tanh(cy), cy


def _linear(F: Any, x: Any, w: Any, b: Any) -> Any:
    """at::linear on a matrix: addmm(b, x, wᵀ)."""
    return F.op("addmm", b, x, F.op("t", w))


def _lstm_layer(input: Any, weight0: Any, weight1: Any, weight2: Any, weight3: Any, hx_: Any, cx_: Any,
                reverse: bool, batch_sizes: tuple, mode: int, hidden_size: int, num_layers: int,
                has_biases: bool, bidirectional: bool, batch_first: bool, train: bool) -> tuple:
    """One direction of one LSTM layer over (seq, batch, features): (outputs, last h, last c, workspace)."""
    steps = range(input.shape[0] - 1, -1, -1) if reverse else range(input.shape[0])
    h, c = hx_, cx_
    outputs = [None] * input.shape[0]
    for t in steps:
        _, h, c = _lstm_gates(ArrayMath, input[t], h, c, weight0, weight1, weight2, weight3, hidden_size)
        outputs[t] = h
    dtype = np.asarray(input).dtype
    workspace = np.zeros(_onednn_lstm_workspace(*input.shape, hidden_size), np.uint8)
    return np.stack(outputs).astype(dtype), h.astype(dtype), c.astype(dtype), workspace


def _onednn_lstm_workspace(steps: int, batch: int, features: int, hidden: int) -> int:
    """The byte size of oneDNN's LSTM training workspace (its contents are opaque; only the size is kept):
    gates, outputs and states buffers, each starting on a 4096-byte page."""
    def ld(d: int) -> int:  # leading dims are 64-byte aligned and not a multiple of 1024 bytes
        d = -(-d // 16) * 16
        return d + 16 if d % 256 == 0 else d

    states = 2 * (steps + 1) * batch * 4
    sizes = ([steps * batch * ld(4 * hidden) * 4, steps * batch * ld(hidden) * 4]
             + [states * ld(max(features, hidden))] * 3 + [states * hidden] * 2)
    return sum(-(-n // 4096) * 4096 for n in sizes)


def _lstm_layer_grads(F: Any, g: tuple, cx_: Any, hidden_size: int, hx_: Any, input: Any, result0: Any,
                      reverse: bool, weight0: Any, weight1: Any, weight2: Any, weight3: Any) -> tuple:
    """mkldnn_rnn_layer_differentiable_backward: the gates recomputed step by step, then backpropagated
    through time; (input, weight_ih, weight_hh, bias_ih, bias_hh, hx, cx) gradients."""
    grad_output, grad_hy, grad_cy = (t if _received(F, t) else None for t in g[:3])
    steps = np.shape(F.raw(input))[0]
    if grad_output is None:
        grad_output = _constant_grad(F, np.zeros(np.shape(F.raw(result0)), np.asarray(F.raw(result0)).dtype))
    grad_hy = F.zeros_like(hx_) if grad_hy is None else grad_hy
    grad_cy = F.zeros_like(cx_) if grad_cy is None else grad_cy
    gates, states = [None] * steps, [(hx_, cx_)]
    for seq in range(1, steps + 1):
        t = steps - seq if reverse else seq - 1
        x = F.op("select", input, dim=0, index=t)
        gate, hy, cy = _lstm_gates(F, x, states[-1][0], states[-1][1], weight0, weight1, weight2, weight3,
                                   hidden_size)
        gates[t] = gate
        states.append((hy, cy))
    dx_steps = [None] * steps
    totals: list = [None, None, None]
    for seq in range(steps - 1, -1, -1):
        t = steps - seq - 1 if reverse else seq
        i, f, gg, o = gates[t]
        cy = states[seq + 1][1]
        hx, cx = states[seq]
        new_grad_hy = F.op("select", grad_output, dim=0, index=t) + grad_hy
        d1 = grad_cy + new_grad_hy * o * _one_minus(F, F.tanh(cy) * F.tanh(cy))
        di = d1 * gg * i * _one_minus(F, i)
        df = d1 * cx * f * _one_minus(F, f)
        dg = d1 * i * _one_minus(F, gg * gg)
        do = new_grad_hy * F.tanh(cy) * o * _one_minus(F, o)
        da = F.cat([di, df, dg, do], 1)
        x = F.op("select", input, dim=0, index=t)
        parts = (F.sum(da, (0,)), F.mT(da) @ x, F.mT(da) @ hx)
        totals = [p if s is None else s + p for s, p in zip(totals, parts)]
        dx_steps[t] = F.op("unsqueeze", da @ weight0, dim=0)
        grad_hy, grad_cy = da @ weight1, d1 * f
    db, dwx, dwh = totals
    return F.cat(dx_steps, 0), dwx, dwh, db, db, grad_hy, grad_cy


def _lstm_layer_grad(index: int) -> Any:
    def grad(F: Any, g: Any, cx_: Any, hidden_size: int, hx_: Any, input: Any, node: Any, result0: Any,
             result1: Any, result2: Any, result3: Any, reverse: bool, weight0: Any, weight1: Any,
             weight2: Any, weight3: Any) -> Any:
        return _shared_call(node, g, lambda: _lstm_layer_grads(
            F, g, cx_, hidden_size, hx_, input, result0, reverse, weight0, weight1, weight2, weight3))[index]

    return grad


LSTM_LAYER = rule(
    "mkldnn_rnn_layer", "MkldnnRnnLayerBackward0", _lstm_layer, tuple(_lstm_layer_grad(i) for i in range(7)),
    ("Σ over steps of the gates' gradient @ weight_ih", "Σ gatesᵀ @ input", "Σ gatesᵀ @ h",
     "Σ gate gradients", "Σ gate gradients", "the first step's gradient of h",
     "the first step's gradient of c"),
    inputs=("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_"), outputs=4,
    differentiable_outputs=(0, 1, 2), output_names=("result0", "result1", "result2",
                                                    "result3"), save_always=True,
    extra_saves=("batch_first", "batch_sizes", "bidirectional", "has_biases", "mode", "num_layers", "train"))


# --- Cholesky factorisation and triangular solves ------------------------------------------------
def _linalg_cholesky_ex(a: Any, upper: bool = False) -> tuple:
    """LAPACK's potf2 column by column: where a leading minor is not positive-definite, info is its
    order, that diagonal entry keeps the non-positive pivot and the columns after it are left as given."""
    a = np.asarray(a)
    work = np.tril(a).astype(np.float64)
    n = a.shape[-1]
    info = np.zeros(a.shape[:-2], np.int32)
    for j in range(n):
        live = info == 0
        pivot = work[..., j, j] - np.einsum("...k,...k->...", work[..., j, :j], work[..., j, :j])
        failed = live & ~(pivot > 0)
        info = np.where(failed, j + 1, info).astype(np.int32)
        root = np.sqrt(np.where(live & ~failed, pivot, 1.0))
        work[..., j, j] = np.where(live, np.where(failed, pivot, root), work[..., j, j])
        below = (work[..., j + 1:, j] - np.einsum("...ik,...k->...i", work[..., j + 1:, :j], work[..., j, :j]))
        go = (live & ~failed)[..., None]
        work[..., j + 1:, j] = np.where(go, below / root[..., None], work[..., j + 1:, j])
    L = work.astype(a.dtype)
    return _lapack_layout(np.swapaxes(L, -1, -2) if upper else L), info


def _lapack_layout(x: np.ndarray) -> np.ndarray:
    """The values of x with LAPACK's layout: each matrix column-major, the batch row-major."""
    return np.swapaxes(np.ascontiguousarray(np.swapaxes(x, -1, -2)), -1, -2)


def _cholesky_grad(F: Any, g: Any, L: Any, upper: bool) -> Any:
    """cholesky_backward (Murray 2016): L^{-H} Φ(Lᴴ gL) L^{-1}, symmetrised, Φ taking the lower triangle."""
    Lo, gL = (F.mT(L), F.mT(g[0])) if upper else (L, g[0])
    gA = F.op("tril", F.mT(Lo) @ gL, diagonal=0)
    gA = F.op("mul_scalar", gA + F.mT(F.op("tril", gA, diagonal=-1)), other=0.5)
    gA = F.op("linalg_solve_triangular", F.mT(Lo), gA, upper=True, left=True, unitriangular=False)
    return F.op("linalg_solve_triangular", Lo, gA, upper=False, left=False, unitriangular=False)


LINALG_CHOLESKY_EX = rule("linalg_cholesky_ex", "LinalgCholeskyExBackward0", _linalg_cholesky_ex, (_cholesky_grad,),
                          ("L^{-H} Φ(Lᴴ grad) L^{-1}",), inputs=("self",), outputs=2, output_names=("L", "info"),
                          differentiable_outputs=(0,), defaults={"upper": False})


def _linalg_solve_triangular(a: Any, b: Any, upper: bool, left: bool = True, unitriangular: bool = False) -> Any:
    """Substitution row by row (inf and nan where a diagonal entry is zero, as trsm gives them)."""
    a, b = np.asarray(a), np.asarray(b)
    dtype = np.result_type(a, b)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    A = np.broadcast_to(a, batch + a.shape[-2:]).astype(np.float64)
    B = np.broadcast_to(b, batch + b.shape[-2:]).astype(np.float64)
    if not left:  # X A = B is Aᵀ Xᵀ = Bᵀ
        A, B, upper = np.swapaxes(A, -1, -2), np.swapaxes(B, -1, -2), not upper
    n = A.shape[-1]
    X = np.zeros_like(B)
    for i in (range(n - 1, -1, -1) if upper else range(n)):
        known = slice(i + 1, n) if upper else slice(0, i)
        rest = B[..., i, :] - np.einsum("...k,...kc->...c", A[..., i, known], X[..., known, :])
        X[..., i, :] = rest if unitriangular else rest / A[..., i, i][..., None]
    return _lapack_layout((X if left else np.swapaxes(X, -1, -2)).astype(dtype))


def _solve_triangular_grads(F: Any, g: Any, self: Any, result: Any, upper: bool, left: bool,
                            unitriangular: bool) -> tuple:
    """linalg_solve_triangular_backward: gB = A^{-H} grad, gA = -gB Xᴴ (-Xᴴ gB on the right), kept triangular."""
    gB = F.op("linalg_solve_triangular", F.mT(self), g, upper=not upper, left=left, unitriangular=unitriangular)
    gA = -(gB @ F.mT(result)) if left else -(F.mT(result) @ gB)
    gA = F.op("triu", gA, diagonal=int(unitriangular)) if upper else F.op("tril", gA, diagonal=-int(unitriangular))
    return gA, gB


def _solve_triangular_grad(index: int) -> Any:
    def grad(F: Any, g: Any, left: bool, node: Any, result: Any, self: Any, unitriangular: bool,
             upper: bool) -> Any:
        return _shared_call(node, g, lambda: _solve_triangular_grads(F, g, self, result, upper, left,
                                                                      unitriangular))[index]

    return grad


LINALG_SOLVE_TRIANGULAR = rule(
    "linalg_solve_triangular", "LinalgSolveTriangularBackward0", _linalg_solve_triangular,
    (_solve_triangular_grad(0), _solve_triangular_grad(1)), ("-gB @ resultᴴ, triangular", "A^{-H} @ grad"),
    inputs=("self", "B"), defaults={"left": True, "unitriangular": False}, save_always=True)


# --- Gamma draws (the reparameterised sample of Gamma, Beta and Dirichlet distributions) --------
def _standard_gamma(a: Any, generator: Any = None) -> Any:
    from engine import gamma, random

    return gamma.standard_gamma(np.asarray(a), generator if generator is not None else random.default_generator)


def _standard_gamma_grad(a: Any, output: Any) -> Any:
    from engine import gamma

    return gamma.standard_gamma_grad(np.asarray(a), np.asarray(output))


STANDARD_GAMMA = rule("_standard_gamma", "StandardGammaBackward0", _standard_gamma,
                      (lambda F, g, result, self: g * F.op("_standard_gamma_grad", self, output=F.raw(result)),),
                      ("grad * _standard_gamma_grad(self, result)",), defaults={"generator": None})
# The factor's node: PyTorch records it under create_graph but implements no derivative for it.
STANDARD_GAMMA_GRAD = rule("_standard_gamma_grad", "StandardGammaGradBackward0", _standard_gamma_grad,
                           (_unique_not_implemented("_standard_gamma_grad"),), ("not implemented in PyTorch",))


# --- fmax, fmin, copysign, erfc, i0 and torch.special's entr, erfcx, log_ndtr, i1, xlog1py ----------------
def _nan_aware_grad(compare: Any, index: int) -> Any:
    """fmax/fmin: the gradient goes to self where self wins (compare(self, other) or other is NaN), else to other."""

    def grad(F: Any, g: Any, self: Any, other: Any) -> Any:
        s, o = np.asarray(F.raw(self)), np.asarray(F.raw(other))
        self_wins = compare(s, o) | np.isnan(o)
        return F.op("masked_fill", g, mask=~self_wins if index == 0 else self_wins, value=0)

    return grad


FMAX = rule("fmax", "FmaxBackward0", np.fmax,
            (_nan_aware_grad(np.greater_equal, 0), _nan_aware_grad(np.greater_equal, 1)),
            ("grad where self >= other or other is NaN", "grad where self < other"), inputs=BINARY,
            elementwise=True, promotes=True)
FMIN = rule("fmin", "FminBackward0", np.fmin,
            (_nan_aware_grad(np.less_equal, 0), _nan_aware_grad(np.less_equal, 1)),
            ("grad where self <= other or other is NaN", "grad where self > other"), inputs=BINARY,
            elementwise=True, promotes=True)


def _copysign_self_grad(F: Any, g: Any, self: Any, result: Any) -> Any:
    """copysign_tensor_self_backward: grad * result / self, 0 where self is 0."""
    ratio = F.op("masked_fill", result / self, mask=np.asarray(F.raw(self)) == 0, value=0)
    return g * ratio


def _copysign(a: Any, other: Any) -> Any:
    out = np.copysign(a, other)
    return out if np.result_type(a, other).kind == "f" else out.astype(np.float32)


COPYSIGN = rule("copysign", "CopysignBackward0", _copysign,
                (_copysign_self_grad, lambda F, g: F.zeros_like(g)), ("grad * result / self (0 at 0)", "0"),
                inputs=BINARY, elementwise=True, promotes=True)
COPYSIGN_SCALAR = rule("copysign_scalar", "CopysignBackward1", _copysign, (_copysign_self_grad,),
                       ("grad * result / self (0 at 0)",), elementwise=True)
ERFC = rule("erfc", "ErfcBackward0", special.erfc,
            (lambda F, g, self: _scale(F, F.exp(-(self ** 2)), -1.1283791670955126) * g,),
            ("-grad * 2/sqrt(pi) * exp(-self²)",), elementwise=True)
I0 = rule("i0", "I0Backward0", special.i0, (lambda F, g, self: g * F.op("special_i1", self),),
          ("grad * i1(self)",), elementwise=True)


def _i1_grad(F: Any, g: Any, self: Any, result: Any) -> Any:
    """i1_backward: grad * (i0(x) - i1(x) / x), 0.5 where |x| <= eps."""
    raw = np.asarray(F.raw(self))
    eps = np.finfo(raw.dtype if raw.dtype.kind == "f" else np.float32).eps
    not_tiny = np.abs(raw) > eps
    safe = F.where(not_tiny, self, np.asarray(eps, raw.dtype))
    gradx = F.op("i0", safe) - result * F.op("reciprocal", safe)
    return g * F.where(not_tiny, gradx, np.asarray(0.5, raw.dtype))


SPECIAL_I1 = rule("special_i1", "SpecialI1Backward0", special.i1, (_i1_grad,), ("grad * (i0(self) - result / self)",),
                  elementwise=True)
SPECIAL_ENTR = rule("special_entr", "SpecialEntrBackward0", special.entr,
                    (lambda F, g, self: g * -(F.log(self) + 1),), ("-grad * (1 + log(self))",), elementwise=True)
SPECIAL_ERFCX = rule("special_erfcx", "SpecialErfcxBackward0", special.erfcx,
                     (lambda F, g, self, result: (self * 2.0 * result - 1.1283791670955126) * g,),
                     ("(2 * self * result - 2/sqrt(pi)) * grad",), elementwise=True)
SPECIAL_LOG_NDTR = rule("special_log_ndtr", "SpecialLogNdtrBackward0", special.log_ndtr,
                        (lambda F, g, self, result: g / 2.5066282746310002 * F.exp(-(result + self * self / 2)),),
                        ("grad / sqrt(2π) * exp(-(result + self² / 2))",), elementwise=True)


def _xlog1py_self_grad(F: Any, g: Any, other: Any, self: Any) -> Any:
    out = F.op("special_xlog1py", g, other)
    mask = (np.asarray(F.raw(self)) == 0) & (np.asarray(F.raw(other)) <= -1)
    return F.op("masked_fill", out, mask=mask, value=0)


SPECIAL_XLOG1PY = rule("special_xlog1py", "SpecialXlog1PyBackward0", special.xlog1py,
                       (_xlog1py_self_grad, lambda F, g, other, self: g * self / (other + 1)),
                       ("xlog1py(grad, other) (0 where self = 0, other <= -1)", "grad * self / (other + 1)"),
                       inputs=BINARY, elementwise=True, promotes=True)
SPECIAL_XLOG1PY_SCALAR_SELF = rule(
    "special_xlog1py_scalar_self", "SpecialXlog1PyBackward1", lambda other, self: special.xlog1py(self, other),
    (lambda F, g, other, self: g * self / (other + 1),), ("grad * self / (other + 1)",), inputs=("other",),
    elementwise=True, extra_saves=("self",))


def _xlog1py_scalar_other_grad(F: Any, g: Any, other: Any, self: Any) -> Any:
    out = F.op("special_xlog1py", g, _wrapped_scalar(F, other, g))
    if other > -1:
        return out
    return F.op("masked_fill", out, mask=np.asarray(F.raw(self)) == 0, value=0)


SPECIAL_XLOG1PY_SCALAR_OTHER = rule(
    "special_xlog1py_scalar_other", "SpecialXlog1PyBackward2", lambda a, other: special.xlog1py(a, other),
    (_xlog1py_scalar_other_grad,), ("xlog1py(grad, other) (0 where self = 0 if other <= -1)",),
    elementwise=True, extra_saves=("other",))


def _ndtri(a: Any) -> Any:
    """The standard normal quantile: √2 erfinv(2p - 1)."""
    x = np.asarray(a, np.float64)
    out = special.erfinv(2 * x - 1) * _SQRT2
    return out.astype(a.dtype if np.asarray(a).dtype.kind == "f" else np.float32)


SPECIAL_NDTRI = rule("special_ndtri", "SpecialNdtriBackward0", _ndtri,
                     (lambda F, g, result: g * 2.5066282746310002 * F.exp(result * result / 2),),
                     ("grad * sqrt(2π) * exp(result² / 2)",), elementwise=True)


# --- eigendecomposition of symmetric matrices, pseudoinverse, matrix exponential, addmv, block_diag --
def _linalg_eigh(a: Any, UPLO: str = "L") -> tuple:  # noqa: N803
    """LAPACK's syevd (as NumPy calls it): ascending eigenvalues, eigenvectors column-major."""
    a = np.asarray(a)
    w, v = np.linalg.eigh(a, UPLO=UPLO)
    return w.astype(a.dtype), _lapack_layout(v.astype(a.dtype))


def _eigh_grad(F: Any, g: Any, eigenvalues: Any, eigenvectors: Any) -> Any:
    """linalg_eig_backward (Hermitian case): V (skew(VᴴgV) / E + diag(gL)) Vᴴ; V diag(gL) Vᴴ when only
    the eigenvalues were used."""
    gL, gV = (t if _received(F, t) else None for t in g)
    V = eigenvectors
    if gV is None:
        if gL is None:
            return _constant_grad(F, np.zeros(np.shape(F.raw(V)), np.asarray(F.raw(V)).dtype))
        return (V * F.op("unsqueeze", gL, dim=-2)) @ F.mT(V)
    VhgV = F.mT(V) @ gV
    VhgV = F.op("mul_scalar", VhgV - F.mT(VhgV), other=0.5)
    L = eigenvalues
    e = F.op("unsqueeze", L, dim=-2) - F.op("unsqueeze", L, dim=-1)
    e = e + np.eye(np.shape(F.raw(e))[-1], dtype=np.asarray(F.raw(e)).dtype)  # 1 on the diagonal
    ga = VhgV / e
    if gL is not None:
        ga = ga + F.op("diag_embed", gL, offset=0, dim1=-2, dim2=-1)
    return V @ (ga @ F.mT(V))


LINALG_EIGH = rule("linalg_eigh", "LinalgEighBackward0", _linalg_eigh, (_eigh_grad,),
                   ("V (skew(Vᴴ gV) / E + diag(gL)) Vᴴ",), inputs=("A",), outputs=2,
                   output_names=("eigenvalues", "eigenvectors"), defaults={"UPLO": "L"})


def _linalg_eig(a: Any, real_input: bool = True) -> tuple:
    """LAPACK's geev (as NumPy calls it): eigenvalues in its order, unit eigenvectors, both complex."""
    a = np.asarray(a)
    out = np.dtype(np.complex128) if a.dtype in (np.float64, np.complex128) else np.dtype(np.complex64)
    if a.size == 0:
        return np.zeros(a.shape[:-1], out), np.zeros(a.shape, out)
    w, v = np.linalg.eig(a)
    return w.astype(out), _lapack_layout(v.astype(out))


_EIG_GAUGE = ("linalg_eig_backward: The eigenvectors in the complex case are specified up to multiplication by "
              "e^{i phi}. The specified loss function depends on this quantity, so it is ill-defined.")


def _eig_grad(F: Any, g: Any, eigenvalues: Any, eigenvectors: Any, real_input: bool) -> Any:
    """linalg_eig_backward: V⁻ᴴ (VᴴgV - VᴴV diag(re(VᴴgV))) / conj(Lⱼ - Lᵢ), with gL on the diagonal) Vᴴ;
    its real part for a real A. Computed on arrays (a constant under create_graph)."""
    gL, gV = (np.asarray(F.raw(t)) for t in g)
    L, V = np.asarray(F.raw(eigenvalues)), np.asarray(F.raw(eigenvectors))
    Vh = np.conj(np.swapaxes(V, -1, -2))
    VhgV = Vh @ gV
    diag_im = np.imag(np.diagonal(VhgV, 0, -2, -1))
    if not np.allclose(diag_im, 0, rtol=1e-2, atol=1e-2):
        raise RuntimeError(_EIG_GAUGE)
    VhgV = VhgV - Vh @ (V * np.real(np.diagonal(VhgV, 0, -2, -1))[..., None, :])
    Lc = np.conj(L)
    E = Lc[..., None, :] - Lc[..., :, None]
    n = E.shape[-1]
    E[..., np.arange(n), np.arange(n)] = 1
    gA = VhgV / E
    gA[..., np.arange(n), np.arange(n)] = gL
    gA = np.linalg.solve(Vh, gA @ Vh).astype(V.dtype)
    return _constant_grad(F, np.real(gA).copy() if real_input else gA)


LINALG_EIG = rule("linalg_eig", "LinalgEigBackward0", _linalg_eig, (_eig_grad,),
                  ("V⁻ᴴ ((VᴴgV - VᴴV diag(re VᴴgV)) / conj(E), gL on the diagonal) Vᴴ",), inputs=("self",),
                  outputs=2, output_names=("eigenvalues", "eigenvectors"), exact_dtype=True)
LINALG_EIG.complex_aware = True


def _linalg_pinv(a: Any, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Any:
    """PyTorch's pinv: the SVD (eigh when hermitian) with the singular values at most
    max(atol, rtol * the largest) dropped; rtol defaults to eps * max(m, n) when neither is given."""
    a = np.asarray(a)
    if rtol is None:
        rtol = 0.0 if atol is not None else float(np.finfo(a.dtype).eps) * max(a.shape[-2:])
    atol = 0.0 if atol is None else atol
    if a.size == 0:
        return np.zeros(a.shape[:-2] + a.shape[-1:] + a.shape[-2:-1], a.dtype)
    if hermitian:
        w, u = np.linalg.eigh(a)
        s = np.abs(w)
        top = np.max(s, axis=-1, keepdims=True)
    else:
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        top = s[..., :1]
    tol = np.maximum(np.asarray(atol, s.dtype)[..., None] if np.ndim(atol) else atol,
                     (np.asarray(rtol, s.dtype)[..., None] if np.ndim(rtol) else rtol) * top)
    s_inv = np.where(s > tol, 1 / np.where(s > tol, s, 1), 0).astype(a.dtype)
    if hermitian:
        out = (u * (s_inv * np.sign(np.where(w == 0, 1, w)))[..., None, :]) @ np.swapaxes(u, -1, -2)
    else:
        out = (np.swapaxes(vh, -1, -2) * s_inv[..., None, :]) @ np.swapaxes(u, -1, -2)
    return np.ascontiguousarray(out.astype(a.dtype))


def _pinv_grad(F: Any, g: Any, result: Any, self: Any) -> Any:
    """pinv_backward, arranged to multiply the smallest matrices."""
    m, n = np.shape(F.raw(self))[-2:]
    pinvAh, gradh, A, pinvA = F.mT(result), F.mT(g), self, result
    if m <= n:
        K = gradh @ pinvA
        KpinvAh = K @ pinvAh
        return -F.mT(pinvA @ K) + KpinvAh - (A @ pinvA) @ KpinvAh + (pinvAh @ pinvA) @ (gradh - K @ A)
    K = pinvA @ gradh
    pinvAhK = pinvAh @ K
    return -F.mT(K @ pinvA) + ((gradh - A @ K) @ pinvA) @ pinvAh + pinvAhK - (pinvAhK @ pinvA) @ A


LINALG_PINV = rule("linalg_pinv", "LinalgPinvBackward0", _linalg_pinv, (_pinv_grad,),
                   ("pinv_backward(grad, result, self)",), defaults={"atol": None, "rtol": None, "hermitian": False})

# Bader, Blanes and Casas (2019), "Computing the matrix exponential with an optimized Taylor polynomial
# approximation": the 1-norm bounds of the degree 1, 2, 4, 8, 12 and 18 polynomials per precision, and the
# coefficients evaluating the degree 12 and 18 ones with 6 and 7 products (rows: combinations of I, A, A², A³(, A⁶)).
_EXP_THETAS = {np.dtype(np.float32): (1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02,
                                      5.800524627688768e-01, 1.461661507209034e+00, 3.010066362817634e+00),
               np.dtype(np.float64): (2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04,
                                      4.991228871115323e-02, 2.996158913811580e-01, 1.090863719290036e+00)}
_EXP_B12 = ((9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740),
            (5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031, 0.01108844528519167989),
            (0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968, 0.00610700528898058230),
            (-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079, -0.00675951846863086359))
_EXP_B18 = ((0., -1.00365581030144618291e-01, -8.02924648241156932449e-03, -8.92138498045729985177e-04, 0.),
            (0., 3.97849749499645077844e-01, 1.36783778460411720168e+00, 4.98289622525382669416e-01,
             -6.37898194594723280150e-04),
            (-1.09676396052962061844e+01, 1.68015813878906206114e+00, 5.71779846478865511061e-02,
             -6.98210122488052056106e-03, 3.34975017086070470649e-05),
            (-9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02,
             2.95552570429315521194e-02, -1.39180257516060693404e-05),
            (0., 0., -9.23364619367118555360e-02, -1.69364939002081722752e-02, -1.40086798182036094347e-05))


def _combine(powers: list, coefficients: Any, dtype: np.dtype) -> np.ndarray:
    """sum_j c_j P_j, accumulated term by term in dtype."""
    out = np.zeros_like(powers[0])
    for c, p in zip(coefficients, powers):
        out = out + dtype.type(c) * p
    return out


def _exp_taylor(a: np.ndarray, degree: int) -> np.ndarray:
    """The optimized Taylor polynomial of exp of that degree, in a's dtype."""
    dt = a.dtype
    eye = np.broadcast_to(np.eye(a.shape[-1], dtype=dt), a.shape).copy()
    if degree == 1:
        return eye + a
    a2 = a @ a
    if degree == 2:
        return eye + a + a2 / dt.type(2.0)
    if degree == 4:
        return _combine([eye, a, a2, a2 @ _combine([eye, a, a2], (1 / 2.0, 1 / 6.0, 1 / 24.0), dt)],
                        (1.0, 1.0, 0.0, 1.0), dt)
    if degree == 8:
        r = 0.1330413469565007072504e+2  # sqrt(177)
        x3 = 2. / 3.
        x1, x2 = x3 * ((1. + r) / 88.), x3 * ((1. + r) / 352.)
        x4, x5 = (-271. + 29. * r) / (315. * x3), (-11. + 11. * r) / (1260. * x3)
        x6, x7 = (-99. + 11. * r) / (5040. * x3), (89. - r) / (5040. * x3)
        y2 = (857. - 58. * r) / 630.
        a4 = a2 @ _combine([a, a2], (x1, x2), dt)
        a8 = _combine([a2, a4], (x3, 1.0), dt) @ _combine([eye, a, a2, a4], (x4, x5, x6, x7), dt)
        return _combine([eye, a, a2, a4, a8], (1.0, 1.0, y2, 0.0, 1.0), dt)
    a3 = a2 @ a
    if degree == 12:
        b = [_combine([eye, a, a2, a3], row, dt) for row in _EXP_B12]
        b[2] = b[2] + b[3] @ b[3]
        return b[0] + (b[1] + b[2]) @ b[2]
    b = [_combine([eye, a, a2, a3, a3 @ a3], row, dt) for row in _EXP_B18]
    b[3] = b[3] + b[0] @ b[4]
    return b[1] + (b[2] + b[3]) @ b[3]


def _linalg_matrix_exp(a: Any) -> Any:
    """PyTorch's matrix exponential: per matrix, the lowest-degree Taylor polynomial accurate at its 1-norm,
    or degree 18 on A / 2^s squared s times; computed in A's dtype."""
    a = np.asarray(a)
    if a.size == 0:
        return a.copy()
    flat = a.reshape((-1,) + a.shape[-2:])
    dt = a.dtype if a.dtype in _EXP_THETAS else np.dtype(np.float32)
    flat = flat.astype(dt)
    thetas = _EXP_THETAS[dt]
    norm = np.max(np.sum(np.abs(flat), axis=-2), axis=-1)
    out = np.empty_like(flat)
    lower = -1.0
    for theta, degree in zip(thetas[:5], (1, 2, 4, 8, 12)):
        pick = (lower < norm) & (norm <= dt.type(theta))
        if pick.any():
            out[pick] = _exp_taylor(flat[pick], degree)
        lower = dt.type(theta)
    big = norm >= dt.type(thetas[4])
    if big.any():
        s = np.maximum(0, np.ceil(np.log2(norm[big] / dt.type(thetas[5])))).astype(np.int64)
        scaled = _exp_taylor(flat[big] / (2.0 ** s).astype(dt)[:, None, None], 18)
        for k in range(len(scaled)):
            for _ in range(int(s[k])):
                scaled[k] = scaled[k] @ scaled[k]
        out[big] = scaled
    return out.reshape(a.shape).astype(a.dtype)


def _matrix_exp_grad(F: Any, g: Any, self: Any) -> Any:
    """linalg_matrix_exp_differential: the top-right block of exp([[Aᴴ, grad], [0, Aᴴ]]), the blocks
    copied into a zero matrix (CopySlices under create_graph)."""
    shape = np.shape(F.raw(self))
    n = shape[-1]
    if F is ArrayMath:
        Ah = np.swapaxes(self, -1, -2)
        meta = np.zeros(shape[:-2] + (2 * n, 2 * n), np.result_type(self, g))
        meta[..., :n, :n] = Ah
        meta[..., n:, n:] = Ah
        meta[..., :n, n:] = g
        return _linalg_matrix_exp(meta)[..., :n, n:]
    from engine import creation, functions as fn

    Ah = F.mT(self)
    meta = creation.zeros(*shape[:-2], 2 * n, 2 * n, dtype=g.dtype)
    for rows, cols, block in ((0, 0, Ah), (n, n, Ah), (0, n, g)):
        fn.copy_(fn.narrow(fn.narrow(meta, -2, rows, n), -1, cols, n), block)
    return fn.narrow(fn.narrow(F.op("linalg_matrix_exp", meta), -2, 0, n), -1, n, n)


LINALG_MATRIX_EXP = rule("linalg_matrix_exp", "LinalgMatrixExpBackward0", _linalg_matrix_exp, (_matrix_exp_grad,),
                         ("exp([[Aᴴ, grad], [0, Aᴴ]])[:n, n:]",))

def _times_scalar(F: Any, g: Any, value: Any) -> Any:
    """maybe_multiply: g * value as a mul by a Scalar (MulBackward1), nothing when value is 1."""
    return g if value == 1 else F.op("mul_scalar", g, other=value)


ADDMV = rule(
    "addmv", "AddmvBackward0",
    lambda bias, mat, vec, alpha=1, beta=1: (bias * beta if beta != 1 else bias) + (
        mat @ vec if alpha == 1 else alpha * (mat @ vec)),
    (lambda F, g, beta: _times_scalar(F, g, beta),
     lambda F, g, alpha, vec: _times_scalar(F, F.reshape(g, (-1, 1)) * vec, alpha),
     lambda F, g, alpha, mat: _times_scalar(F, F.mT(mat) @ g, alpha)),
    ("grad * beta", "outer(grad, vec) * alpha", "matᵀ @ grad * alpha"),
    inputs=("self", "mat", "vec"), extra_saves=("alpha", "beta"), defaults={"alpha": 1, "beta": 1})


ADDR = rule(
    "addr", "AddrBackward0",
    lambda bias, vec1, vec2, alpha=1, beta=1: (bias * beta if beta != 1 else bias) + (
        np.multiply.outer(vec1, vec2) if alpha == 1 else alpha * np.multiply.outer(vec1, vec2)),
    (lambda F, g, beta: _times_scalar(F, g, beta),
     lambda F, g, alpha, vec2: _times_scalar(F, F.op("mv", g, vec2), alpha),
     lambda F, g, alpha, vec1: _times_scalar(F, F.op("mv", F.t(g), vec1), alpha)),
    ("grad * beta", "grad @ vec2 * alpha", "gradᵀ @ vec1 * alpha"),
    inputs=("self", "vec1", "vec2"), extra_saves=("alpha", "beta"), defaults={"alpha": 1, "beta": 1}, promotes=True)


def _addbmm(bias: Any, batch1: Any, batch2: Any, alpha: Any = 1, beta: Any = 1) -> Any:
    """beta * bias + alpha * sum_b batch1[b] @ batch2[b], accumulated batch by batch as PyTorch's addmm_ does."""
    out = np.array(np.broadcast_to(bias * beta if beta != 1 else bias, (batch1.shape[1], batch2.shape[2])))
    for b in range(batch1.shape[0]):
        prod = batch1[b] @ batch2[b]
        out = out + (prod if alpha == 1 else alpha * prod)
    return out


def _addbmm_batch_grad(F: Any, g: Any, batch1_sym_argsize_0: int, batch1_sym_argsize_1: int,
                       batch2_sym_argsize_2: int) -> Any:
    """grad.unsqueeze(0).expand({batch, n, p}): the gradient every batch's product receives."""
    return F.expand(F.unsqueeze_dims(g, (0,)), (batch1_sym_argsize_0, batch1_sym_argsize_1, batch2_sym_argsize_2))


ADDBMM = rule(
    "addbmm", "AddbmmBackward0", _addbmm,
    (lambda F, g, beta: _times_scalar(F, g, beta),
     lambda F, g, alpha, batch2, batch1_sym_argsize_0, batch1_sym_argsize_1, batch2_sym_argsize_2: _times_scalar(
         F, F.op("bmm", _addbmm_batch_grad(F, g, batch1_sym_argsize_0, batch1_sym_argsize_1, batch2_sym_argsize_2),
                 F.op("transpose", batch2, dim0=1, dim1=2)), alpha),
     lambda F, g, alpha, batch1, batch1_sym_argsize_0, batch1_sym_argsize_1, batch2_sym_argsize_2: _times_scalar(
         F, F.op("bmm", F.op("transpose", batch1, dim0=1, dim1=2),
                 _addbmm_batch_grad(F, g, batch1_sym_argsize_0, batch1_sym_argsize_1, batch2_sym_argsize_2)), alpha)),
    ("grad * beta", "Σ grad @ batch2ᵀ * alpha", "Σ batch1ᵀ @ grad * alpha"),
    inputs=("self", "batch1", "batch2"), extra_saves=("alpha", "beta"), defaults={"alpha": 1, "beta": 1})


def _block_diag(*arrays: Any) -> Any:
    """The matrices (numbers as 1x1, vectors, even empty ones, as rows) along the diagonal of zeros."""
    from engine import dtypes

    mats = [np.reshape(a, (1, -1)) if np.ndim(a) < 2 else np.asarray(a) for a in arrays]
    dtype = np.dtype(np.float32)
    for i, a in enumerate(arrays):
        dtype = np.asarray(a).dtype if i == 0 else dtypes.promote_np(dtype, np.asarray(a).dtype)
    out = np.zeros((sum(m.shape[0] for m in mats) or 1, sum(m.shape[1] for m in mats)), dtype)
    r = c = 0
    for m in mats:
        out[r:r + m.shape[0], c:c + m.shape[1]] = m
        r, c = r + m.shape[0], c + m.shape[1]
    return out


def _block_diag_grad(F: Any, g: Any, input_nr: int, input_sizes: Any) -> Any:
    """block_diag_backward: this input's block of grad (an empty vector's gradient is empty and takes
    no rows)."""
    def block(shape: tuple) -> tuple:
        if len(shape) == 1 and shape[0] == 0:
            return 0, 0
        return (shape[0], shape[1]) if len(shape) == 2 else (1, shape[0] if shape else 1)

    shape = tuple(input_sizes[input_nr])
    if len(shape) == 1 and shape[0] == 0:
        return _constant_grad(F, np.zeros((0,), np.asarray(F.raw(g)).dtype))
    r = sum(block(tuple(s))[0] for s in input_sizes[:input_nr])
    c = sum(block(tuple(s))[1] for s in input_sizes[:input_nr])
    rows, cols = block(shape)
    out = F.op("slice", F.op("slice", g, dim=0, start=r, end=r + rows, step=1), dim=1, start=c, end=c + cols, step=1)
    return out if len(shape) == 2 else F.reshape(out, shape)


BLOCK_DIAG = rule("block_diag", "BlockDiagBackward0", _block_diag, (_block_diag_grad,),
                  ("this input's block of grad",), inputs=("tensors",), variadic=True)


# --- logaddexp2, ldexp, frexp -----------------------------------------------------------------------
def _logaddexp2_grad(F: Any, g: Any, first: Any, second: Any) -> Any:
    """grad / (1 + 2^(second - first)): the share of 2^first in 2^first + 2^second."""
    if F is ArrayMath:
        return g / (1 + np.exp2(second - first))
    return g / F.op("add_scalar", F.op("rpow", second - first, self=2), other=1)


LOGADDEXP2 = rule("logaddexp2", "Logaddexp2Backward0", np.logaddexp2,
                  (lambda F, g, other, self: _logaddexp2_grad(F, g, self, other),
                   lambda F, g, other, self: _logaddexp2_grad(F, g, other, self)),
                  ("grad / (1 + pow(2, other - self))", "grad / (1 + pow(2, self - other))"), inputs=BINARY,
                  elementwise=True, promotes=True)


def _ldexp(a: Any, b: Any) -> Any:
    """a * 2^b, in floating point (integer operands give the default float dtype)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind in "biu":
        a, b = a.astype(np.float32), b.astype(np.float32)
    return np.multiply(a, np.exp2(b.astype(a.dtype)))


LDEXP = rule("ldexp", "LdexpBackward0", _ldexp,
             (lambda F, g, other: g * F.op("rpow", other, self=2),  # an integer power for an integer other: 2^-1 is 0
              lambda F, g, result: _scale(F, g * result, 0.6931471805599453)),
             ("grad * pow(2, other)", "grad * result * ln(2)"), inputs=BINARY, elementwise=True, promotes=True)


def _frexp(a: Any) -> tuple:
    mantissa, exponent = np.frexp(a)
    exponent = np.where(np.isfinite(a), exponent, 0).astype(np.int32)
    return mantissa.astype(a.dtype, copy=False), exponent


FREXP = rule("frexp", "FrexpBackward0", _frexp,
             (lambda F, g, exponent: g[0] / F.op("exp2", exponent),),
             ("grad / 2^exponent",), outputs=2, differentiable_outputs=(0,), output_names=("mantissa", "exponent"),
             exact_dtype=True)


# --- slice_scatter, select_scatter, diagonal_scatter: src written into a copy of self ------------------
def _written_into(a: Any, src: Any, region: Any) -> Any:
    out = np.array(a, copy=True)
    region(out)[...] = src
    return out


def _zeros_like_region(F: Any, g: Any, region: Any) -> Any:
    """zeros_like(src): src is shaped as the region of grad it was written to (PyTorch keeps src's
    metadata, not a saved tensor)."""
    raw = np.asarray(F.raw(g))
    return _constant_grad(F, np.zeros(region(raw).shape, raw.dtype))


WRITTEN_INTO = {"inputs": ("self", "src"), "exact_dtype": True}
SLICE_SCATTER = rule(
    "slice_scatter", "SliceScatterBackward0",
    lambda a, src, dim, start, end, step: _written_into(a, src, lambda o: o[_key(dim, slice(start, end, step))]),
    (lambda F, g, dim, end, start, step: F.op(
        "slice_scatter", g, _zeros_like_region(F, g, lambda o: o[_key(dim, slice(start, end, step))]), dim=dim, start=start, end=end, step=step),
     lambda F, g, dim, end, start, step: F.op("slice", g, dim=dim, start=start, end=end, step=step)),
    ("slice_scatter(grad, zeros_like(src), dim, start, end, step)", "grad.slice(dim, start, end, step)"),
    **WRITTEN_INTO)
SELECT_SCATTER = rule(
    "select_scatter", "SelectScatterBackward0",
    lambda a, src, dim, index: _written_into(a, src, lambda o: o[_key(dim % o.ndim, index) + (Ellipsis,)]),
    (lambda F, g, dim, index: F.op(
        "select_scatter", g, _zeros_like_region(F, g, lambda o: o[_key(dim % o.ndim, index) + (Ellipsis,)]), dim=dim, index=index),
     lambda F, g, dim, index: F.op("select", g, dim=dim, index=index)),
    ("select_scatter(grad, zeros_like(src), dim, index)", "grad.select(dim, index)"), **WRITTEN_INTO)
DIAGONAL_SCATTER = rule(
    "diagonal_scatter", "DiagonalScatterBackward0",
    lambda a, src, offset, dim1, dim2: _written_into(a, src, lambda o: _diagonal_view(o, offset, dim1, dim2)),
    (lambda F, g, dim1, dim2, offset: F.op(
        "diagonal_scatter", g, _zeros_like_region(F, g, lambda o: _diagonal_view(o, offset, dim1, dim2)), offset=offset, dim1=dim1, dim2=dim2),
     lambda F, g, dim1, dim2, offset: F.op("diagonal", g, offset=offset, dim1=dim1, dim2=dim2)),
    ("diagonal_scatter(grad, zeros_like(src), offset, dim1, dim2)", "grad.diagonal(offset, dim1, dim2)"),
    **WRITTEN_INTO)


# --- QR decomposition -------------------------------------------------------------------------------------
_QR_R_ONLY = ("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
              "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")


def _linalg_qr(a: Any, mode: str = "reduced") -> tuple:
    """LAPACK's geqrf and orgqr (as NumPy calls them): R's diagonal takes the Householder signs; both factors
    column-major; mode 'r' leaves Q empty."""
    a = np.asarray(a)
    if mode == "r":
        r = np.linalg.qr(a, mode="r") if a.size else np.zeros(a.shape[:-2] + (min(a.shape[-2:]), a.shape[-1]), a.dtype)
        return np.ndarray((0,), a.dtype, strides=(a.dtype.itemsize,)), _lapack_layout(np.asarray(r, a.dtype))
    if a.size == 0:
        m, n = a.shape[-2:]
        k = m if mode == "complete" else min(m, n)
        q = np.broadcast_to(np.eye(m, k, dtype=a.dtype), a.shape[:-2] + (m, k))
        return _lapack_layout(q), _lapack_layout(np.zeros(a.shape[:-2] + (k, n), a.dtype))
    q, r = np.linalg.qr(a, mode=mode)
    return _lapack_layout(q.astype(a.dtype)), _lapack_layout(r.astype(a.dtype))


def _qr_grad(F: Any, g: Any, Q: Any, R: Any, mode: str) -> Any:
    """linalg_qr_backward: (gQ + Q syminvadj(triu(gR Rᴴ - Qᴴ gQ))) R^{-H} when m >= n; for wide A,
    Q trilImInvAdjSkew(Qᴴ gQ - gR Rᴴ) R₁^{-H} padded with zero columns, plus Q gR."""
    if mode == "r":
        raise RuntimeError(_QR_R_ONLY)
    m, n = np.shape(F.raw(Q))[-2], np.shape(F.raw(R))[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    gQ, gR = (t if _received(F, t) else None for t in g)
    if gQ is None and gR is None:
        return _constant_grad(F, np.zeros(np.shape(F.raw(Q))[:-1] + (n,), np.asarray(F.raw(Q)).dtype))
    if gQ is not None:
        gA = gR @ F.mT(R) - F.mT(Q) @ gQ if gR is not None else -(F.mT(Q) @ gQ)
    else:
        gA = gR @ F.mT(R)
    if m >= n:
        gA = F.op("triu", gA, diagonal=0)
        gA = Q @ _halve_diagonal(F, gA + F.mT(gA))
        if gQ is not None:
            gA = gA + gQ
        return F.op("linalg_solve_triangular", F.mT(R), gA, upper=False, left=False, unitriangular=False)
    gA = -gA
    gA = Q @ F.op("tril", gA - F.mT(gA), diagonal=0)
    gA = F.op("linalg_solve_triangular", F.mT(_narrow(F, R, -1, m)), gA, upper=False, left=False,
              unitriangular=False)
    zeros = _constant_grad(F, np.zeros(np.shape(F.raw(R))[:-1] + (n - m,), np.asarray(F.raw(R)).dtype))
    gA = F.cat([gA, zeros], -1)
    return gA + Q @ gR if gR is not None else gA


def _halve_diagonal(F: Any, x: Any) -> Any:
    """x.diagonal(0, -2, -1).mul_(0.5): in place (CopySlices under create_graph)."""
    if F is ArrayMath:
        x = np.array(x)
        np.einsum("...ii->...i", x)[...] *= 0.5
        return x
    from engine import functions as fn

    fn._inplace(fn.diagonal(x, 0, -2, -1), MUL_SCALAR, (), {"other": 0.5})
    return x


LINALG_QR = rule("linalg_qr", "LinalgQrBackward0", _linalg_qr, (_qr_grad,),
                 ("(gQ + Q syminvadj(triu(gR Rᴴ - Qᴴ gQ))) R^{-H}",), inputs=("A",), outputs=2,
                 output_names=("Q", "R"), defaults={"mode": "reduced"})


# --- least squares -------------------------------------------------------------------------------------
def _linalg_lstsq(a: Any, b: Any, rcond: Any = None, driver: str = "gelsy") -> tuple:
    """The minimum-norm least-squares solution (singular values up to rcond * the largest dropped), in the
    layout LAPACK leaves it (column-major in a max(m, n)-row buffer); the other outputs as PyTorch fills them
    per driver: residuals for tall A (not gelsy; for gelsd/gelss only at full rank), rank (not gels),
    singular values (gelsd, gelss)."""
    a, b = np.asarray(a), np.asarray(b)
    dtype = a.dtype
    m, n = a.shape[-2:]
    vector = _is_vector_rhs(a.shape, b.shape)
    rhs = b[..., None] if vector else b
    batch = np.broadcast_shapes(a.shape[:-2], rhs.shape[:-2])
    A = np.broadcast_to(a, batch + (m, n)).astype(np.float64)
    B = np.broadcast_to(rhs, batch + rhs.shape[-2:]).astype(np.float64)
    k = rhs.shape[-1]
    if rcond is None:
        rcond = float(np.finfo(dtype).eps) * max(m, n)
    if A.size:
        u, s, vh = np.linalg.svd(A, full_matrices=False)
        keep = s > rcond * s[..., :1]
        s_inv = np.where(keep, 1 / np.where(keep, s, 1), 0)
        x = np.swapaxes(vh, -1, -2) @ (s_inv[..., None] * (np.swapaxes(u, -1, -2) @ B))
        rank = keep.sum(-1).astype(np.int64)
    else:
        s = np.zeros(batch + (min(m, n),))
        x = np.zeros(batch + (n, k))
        rank = np.zeros(batch, np.int64)
    buffer = np.zeros(batch + (k, max(m, n)), dtype)
    np.swapaxes(buffer, -1, -2)[..., :n, :] = x
    solution = np.swapaxes(buffer, -1, -2)[..., :n, :]
    empty = np.zeros((0,), dtype)
    residuals = empty
    if m > n and driver != "gelsy" and (driver == "gels" or bool(np.all(rank == n))):
        residuals = np.sum((A @ x - B) ** 2, axis=-2).astype(dtype)
    return (solution[..., 0] if vector else solution, residuals,
            np.zeros((0,), np.int64) if driver == "gels" else rank,
            s.astype(dtype) if driver in ("gelsd", "gelss") else empty)


def _lstsq_grads(F: Any, g: Any, self: Any, b: Any, solution: Any, index: int, node: Any) -> Any:
    """linalg_lstsq_backward: through pinv(A) from the solution's gradient (pinv_backward for A, pinv(A)ᴴ gX
    for B), plus 2 (gL r) Xᴴ and -2 gL r from the residuals' (r = A X - B)."""
    gX, gL = g[0], g[1]
    gL = gL if np.size(F.raw(gL)) and _received(F, gL) else None
    gX = gX if _received(F, gX) or gL is None else None
    vector = _is_vector_rhs(np.shape(F.raw(self)), np.shape(F.raw(b)))
    col = (lambda t: F.op("unsqueeze", t, dim=-1)) if vector else (lambda t: t)
    B = col(b)
    grad = None
    if gX is not None:
        pinvA = _shared_call(node, g[0], lambda: F.op("linalg_pinv", self))
        if index == 0:
            grad = _pinv_grad(F, col(gX) @ F.mT(B), pinvA, self)
        else:
            grad = F.mT(pinvA) @ col(gX)
            grad = F.op("squeeze_dim", grad, dim=-1) if vector and F is not ArrayMath else (
                grad[..., 0] if vector else grad)
    if gL is None:
        return grad
    X = col(solution)
    r = self @ X - B
    gL = F.op("unsqueeze", gL, dim=-2)
    if index == 0:
        term = F.op("mul_scalar", (gL * r) @ F.mT(X), other=2)
    else:
        term = F.op("mul_scalar", gL, other=-2) * r
        term = F.op("squeeze_dim", term, dim=-1) if vector and F is not ArrayMath else (
            term[..., 0] if vector else term)
    return term if grad is None else grad + term


LINALG_LSTSQ = rule("linalg_lstsq", "LinalgLstsqBackward0", _linalg_lstsq,
                    (lambda F, g, self, b, solution, node: _lstsq_grads(F, g, self, b, solution, 0, node),
                     lambda F, g, self, b, solution, node: _lstsq_grads(F, g, self, b, solution, 1, node)),
                    ("pinv_backward(gX Bᴴ, pinv(A), A) + 2 (gL r) Xᴴ", "pinv(A)ᴴ gX - 2 gL r"),
                    inputs=("self", "b"), outputs=4, output_names=("solution", "residuals", "rank", "singular_values"),
                    differentiable_outputs=(0, 1), defaults={"rcond": None, "driver": "gelsy"})


# --- LU factorisation, its unpacked factors and solves ------------------------------------------------------
def _unpack_lu_arrays(lu: np.ndarray, pivots: np.ndarray) -> tuple:
    """P, L (unit lower, m x k) and U (upper, k x n) of LAPACK's packed LU and 1-based row swaps."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    L = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=lu.dtype)
    U = np.triu(lu[..., :k, :])
    perm = _pivots_permutation(pivots, lu.shape[:-2], m)
    P = np.zeros(lu.shape[:-2] + (m, m), lu.dtype)
    np.put_along_axis(P, perm[..., :, None], 1, axis=-1)  # row i of Pᵀ picks row perm[i] of A
    return np.swapaxes(P, -1, -2).copy(), L, U


def _pivots_permutation(pivots: np.ndarray, batch: tuple, m: int) -> np.ndarray:
    """The row order LAPACK's 1-based row swaps make: row i of Pᵀ A is row perm[i] of A."""
    k = pivots.shape[-1]
    perm = np.broadcast_to(np.arange(m), batch + (m,)).copy()
    if not k or not perm.size:
        return perm
    flat, piv = perm.reshape(-1, m), np.broadcast_to(pivots, batch + (k,)).reshape(-1, k)
    for b in range(flat.shape[0]):
        for i in range(k):
            j = int(piv[b, i]) - 1
            flat[b, i], flat[b, j] = flat[b, j], flat[b, i]
    return perm


def _linalg_lu_factor_ex(a: Any, pivot: bool = True) -> tuple:
    a = np.asarray(a)
    lu, pivots = _lu(a)
    return _lapack_layout(lu), pivots, _singular_info(lu)


def _linalg_lu(a: Any, pivot: bool = True) -> tuple:
    a = np.asarray(a)
    lu, pivots = _lu(a)
    return _unpack_lu_arrays(lu, pivots)


def _lu_backward(F: Any, L_grad: Any, U_grad: Any, P: Any, L: Any, U: Any, pivot: bool) -> Any:
    """linalg_lu_backward: P L^{-H} [Lᴴ gL ∘ 1_L + gU Uᴴ ∘ 1_U] U^{-H} for square A, with the wide and tall
    blocks handled as PyTorch does."""
    m, n = np.shape(F.raw(L))[-2], np.shape(F.raw(U))[-1]
    k = min(m, n)
    solve = (lambda A, B, upper, left, unit=False: F.op("linalg_solve_triangular", A, B, upper=upper, left=left,
                                                       unitriangular=unit))
    if m == n:
        gA = F.op("tril", F.mT(L) @ L_grad, diagonal=-1) if L_grad is not None else None
        if U_grad is not None:
            term = F.op("triu", U_grad @ F.mT(U), diagonal=0)
            gA = term if gA is None else gA + term
        gA = solve(F.mT(U), gA, False, False)
        gA = solve(F.mT(L), gA, True, True, True)
    elif m < n:
        U1 = _narrow(F, U, -1, k)
        gA = F.mT(L) @ L_grad if L_grad is not None else None
        if U_grad is not None:
            term = F.op("triu", U_grad, diagonal=0) @ F.mT(U)
            gA = -term if gA is None else gA - term
        gA = solve(F.mT(U1), F.op("tril", gA, diagonal=-1), False, False)
        if U_grad is not None:
            gA = F.cat([gA + F.op("triu", _narrow(F, U_grad, -1, k), diagonal=0),
                        F.op("slice", U_grad, dim=np.ndim(F.raw(U_grad)) - 1, start=k, end=n, step=1)], -1)
        gA = solve(F.mT(L), gA, True, True, True)
        if U_grad is None:
            gA = F.cat([gA, _constant_grad(F, np.zeros(np.shape(F.raw(U))[:-1] + (n - k,), np.asarray(F.raw(U)).dtype))],
                       -1)
    else:
        L1 = _narrow(F, L, -2, k)
        gA = U_grad @ F.mT(U) if U_grad is not None else None
        if L_grad is not None:
            term = F.mT(L) @ F.op("tril", L_grad, diagonal=-1)
            gA = -term if gA is None else gA - term
        gA = solve(F.mT(L1), F.op("triu", gA, diagonal=0), True, True, True)
        if L_grad is not None:
            gA = F.cat([gA + F.op("tril", _narrow(F, L_grad, -2, k), diagonal=-1),
                        F.op("slice", L_grad, dim=np.ndim(F.raw(L_grad)) - 2, start=k, end=m, step=1)], -2)
        gA = solve(F.mT(U), gA, False, False)
        if L_grad is None:
            shape = np.shape(F.raw(L))
            gA = F.cat([gA, _constant_grad(F, np.zeros(shape[:-2] + (m - k, k), np.asarray(F.raw(L)).dtype))], -2)
    return P @ gA if pivot else gA


def _lu_grad(F: Any, g: Any, L: Any, P: Any, U: Any, pivot: bool) -> Any:
    gL, gU = (t if _received(F, t) else None for t in g[1:])
    if gL is None and gU is None:
        return _constant_grad(F, np.zeros(np.shape(F.raw(L))[:-1] + np.shape(F.raw(U))[-1:], np.asarray(F.raw(L)).dtype))
    return _lu_backward(F, gL, gU, P, L, U, pivot)


def _lu_factor_grad(F: Any, g: Any, LU: Any, pivots: Any, pivot: bool) -> Any:
    """lu_factor_ex_backward: the factors unpacked from LU, grad's lower (m x k) and upper (k x n) blocks."""
    lu = np.asarray(F.raw(LU))
    m, n = lu.shape[-2:]
    k = min(m, n)
    P, _, _ = _unpack_lu_arrays(lu, np.asarray(F.raw(pivots)))
    eye = np.eye(m, k, dtype=lu.dtype)
    L = F.op("tril", _narrow(F, LU, -1, k), diagonal=-1) + eye
    U = F.op("triu", _narrow(F, LU, -2, k), diagonal=0)
    return _lu_backward(F, _narrow(F, g[0], -1, k), _narrow(F, g[0], -2, k), _constant_grad(F, P), L, U, pivot)


LINALG_LU_FACTOR_EX = rule("linalg_lu_factor_ex", "LinalgLuFactorExBackward0", _linalg_lu_factor_ex, (_lu_factor_grad,),
                           ("lu_factor_ex_backward(grad, LU, pivots, pivot)",), inputs=("A",), outputs=3,
                           output_names=("LU", "pivots", "info"), differentiable_outputs=(0,),
                           defaults={"pivot": True})
LINALG_LU = rule("linalg_lu", "LinalgLuBackward0", _linalg_lu, (_lu_grad,),
                 ("linalg_lu_backward(gL, gU, P, L, U, pivot)",), inputs=("A",), outputs=3,
                 output_names=("P", "L", "U"), differentiable_outputs=(1, 2), defaults={"pivot": True})


def _pack_padded_sequence(input: Any, lengths: Any, batch_first: bool) -> tuple:
    """_pack_padded_sequence: the time steps of padded sequences (sorted by decreasing length) one after
    another, each cut to the sequences still running, and how many run at each step."""
    if np.size(input) == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    x = np.swapaxes(input, 0, 1) if batch_first else input
    lengths = np.asarray(lengths)
    if lengths.ndim != 1:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.ndim}D cpu "
                           "Long tensor")
    batch = x.shape[1]
    if lengths.shape[0] != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lengths.shape[0]} "
                           f"(batch_size={batch})")
    if lengths[batch - 1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if np.any(lengths[1:] > lengths[:-1]):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                           "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                           "sidestep this requirement if you do not need ONNX exportability.")
    batch_sizes = np.zeros(int(lengths[0]), np.int64)
    steps, prev = [], 0
    for i in range(batch):
        length = int(lengths[batch - 1 - i])
        if length > prev:
            block = x[prev:length, :batch - i]
            steps.append(block.reshape((-1,) + x.shape[2:]))
            batch_sizes[prev:length] = batch - i
            prev = length
    return np.concatenate(steps), batch_sizes


def _pack_padded_grad(F: Any, g: Any, batch_first: bool, input_sym_sizes: tuple, result1: Any) -> Any:
    """_pack_padded_sequence_backward: each packed row's gradient back at its (step, sequence) place."""
    sizes = tuple(input_sym_sizes)
    if F is not ArrayMath:  # under create_graph: PyTorch's composite of slice copies into zeros
        from engine import creation, functions

        grad_input = creation.zeros(*((sizes[1], sizes[0]) + sizes[2:] if batch_first else sizes),
                                    dtype=g[0].dtype)
        offset = 0
        for i, n in enumerate(np.asarray(F.raw(result1)).tolist()):
            grad_input[i][:n].copy_(g[0][offset:offset + n])
            offset += n
        return functions.transpose(grad_input, 0, 1) if batch_first else grad_input
    steps, batch = (sizes[1], sizes[0]) if batch_first else sizes[:2]
    positions = [b * steps + t if batch_first else t * batch + b
                 for t, n in enumerate(np.asarray(F.raw(result1)).tolist()) for b in range(n)]
    zeros = np.zeros((steps * batch,) + sizes[2:], np.asarray(F.raw(g[0])).dtype)
    out = F.op("index_add", zeros, g[0], dim=0, index=np.asarray(positions, np.int64))
    return F.reshape(out, sizes)


PACK_PADDED_SEQUENCE = rule("_pack_padded_sequence", "PackPaddedSequenceBackward0", _pack_padded_sequence,
                            (_pack_padded_grad,),
                            ("_pack_padded_sequence_backward(grad, input.sizes(), batch_sizes, batch_first)",),
                            inputs=("input",), outputs=2, differentiable_outputs=(0,),
                            output_names=("result0", "result1"), extra_saves=("batch_first",))


def _lu_unpack(lu: Any, pivots: Any, unpack_data: bool = True, unpack_pivots: bool = True) -> tuple:
    """torch.lu_unpack: P, L and U of a packed LU (empty tensors for the parts not asked for)."""
    lu = np.asarray(lu)
    if unpack_pivots:
        P, L, U = _unpack_lu_arrays(lu, np.asarray(pivots))
    else:
        P, L, U = np.zeros(0, lu.dtype), *_unpack_lu_arrays(lu, np.zeros(lu.shape[:-2] + (0,), np.int32))[1:]
    if not unpack_data:
        L, U = np.zeros(0, lu.dtype), np.zeros(0, lu.dtype)
    return P, L, U


def _lu_unpack_grad(F: Any, g: Any, LU_data_sym_argsize_minus_2: int,  # noqa: N803
                    LU_data_sym_argsize_minus_1: int) -> Any:  # noqa: N803
    """lu_unpack_backward: gL's strict lower part and gU's upper part put back where LU packs them."""
    m, n = LU_data_sym_argsize_minus_2, LU_data_sym_argsize_minus_1
    gL, gU = (t if _received(F, t) else None for t in g[1:])
    if gL is None and gU is None:
        return None
    k = min(m, n)
    tril = (lambda t: F.op("tril", t, diagonal=-1))
    triu = (lambda t: F.op("triu", t, diagonal=0))
    rest = (lambda t, dim, size: F.op("slice", t, dim=np.ndim(F.raw(t)) + dim, start=k, end=k + size, step=1))
    if gL is not None and gU is not None:
        if m == n:
            return tril(gL) + triu(gU)
        A1 = tril(gL if m == k else _narrow(F, gL, -2, k)) + triu(gU if n == k else _narrow(F, gU, -1, k))
        return F.cat([A1, rest(gL, -2, m - k) if m > n else rest(gU, -1, n - k)], -2 if m > n else -1)
    if gL is not None:
        if m >= n:
            return tril(gL)
        shape = np.shape(F.raw(gL))
        return F.cat([tril(gL), _constant_grad(F, np.zeros(shape[:-1] + (n - m,), np.asarray(F.raw(gL)).dtype))], -1)
    if n >= m:
        return triu(gU)
    shape = np.shape(F.raw(gU))
    return F.cat([triu(gU), _constant_grad(F, np.zeros(shape[:-2] + (m - n, shape[-1]), np.asarray(F.raw(gU)).dtype))],
                 -2)


LU_UNPACK = rule("lu_unpack", "LuUnpackBackward0", _lu_unpack, (_lu_unpack_grad,),
                 ("lu_unpack_backward(grad_L, grad_U, LU_data.size(-2), LU_data.size(-1))",), inputs=("LU_data",),
                 outputs=3, output_names=("P", "L", "U"), differentiable_outputs=(1, 2),
                 defaults={"unpack_data": True, "unpack_pivots": True})


def _lu_solve_arrays(lu: np.ndarray, pivots: np.ndarray, b: np.ndarray, adjoint: bool) -> np.ndarray:
    """LAPACK's getrs: X with A X = B (Aᵀ X = B when adjoint) for A = P L U, by the row swaps and two
    triangular substitutions (a zero on U's diagonal gives inf and nan, as LAPACK does)."""
    n = lu.shape[-1]
    batch = np.broadcast_shapes(lu.shape[:-2], b.shape[:-2], pivots.shape[:-1])
    lu = np.broadcast_to(lu, batch + (n, n))
    perm = _pivots_permutation(pivots, batch, n)
    x = np.array(np.broadcast_to(b, batch + b.shape[-2:]), dtype=lu.dtype)
    if not adjoint:  # row i of L or U at the columns j, as a (..., 1, len(j)) block
        def rows(i: int, j: Any) -> Any:
            return lu[..., i:i + 1, j]
    else:  # row i of Uᵀ or Lᵀ
        def rows(i: int, j: Any) -> Any:
            return np.swapaxes(lu[..., j, i:i + 1], -1, -2)
    with np.errstate(all="ignore"):
        if not adjoint:  # L y = Pᵀ b (unit lower), then U x = y
            x = np.take_along_axis(x, perm[..., :, None], -2)
            order, diag = (range(n), False), (range(n - 1, -1, -1), True)
        else:  # Uᵀ y = b (lower), then Lᵀ z = y (unit upper), x = P z
            order, diag = (range(n), True), (range(n - 1, -1, -1), False)
        for steps, divide in (order, diag):
            done: list = []
            for i in steps:
                if done:
                    idx = np.array(done)
                    x[..., i, :] -= (rows(i, idx) @ x[..., idx, :])[..., 0, :]
                if divide:
                    x[..., i, :] /= lu[..., i, i][..., None]
                done.append(i)
        if adjoint:
            x = np.take_along_axis(x, np.argsort(perm, axis=-1)[..., :, None], -2)
    return x


def _linalg_lu_solve(LU: Any, B: Any, pivots: Any, left: bool = True, adjoint: bool = False) -> Any:  # noqa: N803
    lu, b, pivots = np.asarray(LU), np.asarray(B), np.asarray(pivots)
    if left:
        return _lapack_layout(_lu_solve_arrays(lu, pivots, b, adjoint))
    return np.ascontiguousarray(np.swapaxes(_lu_solve_arrays(lu, pivots, np.swapaxes(b, -1, -2), not adjoint), -1, -2))


def _lu_solve_LU_grad(F: Any, g: Any, LU: Any, pivots: Any, result: Any, left: bool,  # noqa: N802,N803
                      adjoint: bool) -> Any:
    """linalg_lu_solve_LU: gR = U^{-H} op(-gX) op(X)ᴴ, gLU = (L^{-H} gR Uᴴ).tril(-1) + gR.triu() when
    left != adjoint, else gR = -Pᵀ op(X) op(gX)ᴴ P L^{-H}, gLU = gR.tril(-1) + (Lᴴ gR U^{-H}).triu()."""
    P, L, U = F.op("lu_unpack", LU, pivots=pivots, unpack_data=True, unpack_pivots=left == adjoint)
    gX, X = g, result

    def solve(A: Any, B: Any, upper: bool, on_left: bool = True, unit: bool = False) -> Any:
        return F.op("linalg_solve_triangular", A, B, upper=upper, left=on_left, unitriangular=unit)

    if left != adjoint:
        gR = solve(F.mT(U), -((gX if left else F.mT(gX)) @ (F.mT(X) if left else X)), False)
        gL = F.op("tril", solve(F.mT(L), gR @ F.mT(U), True, True, True), diagonal=-1)
        return gL + F.op("triu", gR, diagonal=0)
    gR = -(F.mT(P) @ (X if left else F.mT(X)) @ (F.mT(gX) if left else gX) @ P)
    gR = solve(F.mT(L), gR, True, False, True)
    gU = F.op("triu", solve(F.mT(U), F.mT(L) @ gR, False, False), diagonal=0)
    return F.op("tril", gR, diagonal=-1) + gU


LINALG_LU_SOLVE = rule(
    "linalg_lu_solve", "LinalgLuSolveBackward0", _linalg_lu_solve,
    (_lu_solve_LU_grad, lambda F, g, LU, pivots, left, adjoint: F.op(
        "linalg_lu_solve", LU, g, pivots=pivots, left=left, adjoint=not adjoint)),
    ("linalg_lu_solve_LU(grad, LU, pivots, result, left, adjoint)", "linalg_lu_solve(LU, pivots, grad, left, !adjoint)"),
    inputs=("LU", "B"), defaults={"left": True, "adjoint": False})


# --- in-place comparisons (lt_, eq_...): computed in the operands' common type, written back in
# self's dtype; the gradient is zero (LtBackward0 for a Python number, LtBackward1 for a tensor).
def _compare_into(np_fn: Any) -> Any:
    def forward(self: Any, other: Any) -> Any:
        from engine.rules import promoted_arrays

        promoted = promoted_arrays([self, other])
        a, b = promoted[0] if promoted is not None else (self, other)
        return np.asarray(np_fn(a, b)).astype(self.dtype, copy=False)

    return forward


def _zero_grad(F: Any, g: Any) -> Any:
    return F.zeros_like(g)


COMPARE_INPLACE: dict[str, tuple[Rule, Rule]] = {}
for _name, _np_fn in (("lt", np.less), ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal),
                      ("eq", np.equal), ("ne", np.not_equal)):
    _node = _name.capitalize() + "Backward"
    COMPARE_INPLACE[_name] = (
        rule(f"{_name}_scalar_", _node + "0", _compare_into(_np_fn), (_zero_grad,), ("zeros_like(self)",),
             elementwise=True, exact_dtype=True),
        rule(f"{_name}_tensor_", _node + "1", _compare_into(_np_fn), (_zero_grad, _zero_grad),
             ("zeros_like(self)", "zeros_like(other)"), inputs=BINARY, elementwise=True, exact_dtype=True),
    )


def _nextafter(a: Any, b: Any) -> Any:
    """The next representable value after a towards b, in the operands' common type (bfloat16
    steps its 16 bits)."""
    from engine.rules import promoted_arrays

    promoted = promoted_arrays([a, b])
    a, b = promoted[0] if promoted is not None else (a, b)
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != dtypes.BF16:
        return np.nextafter(a, b)
    x, y = np.broadcast_arrays(a.astype(np.float32), b.astype(np.float32))
    bits = (x.view(np.uint32) >> 16).astype(np.int64)
    up = (x < y) == (x > 0)
    stepped = ((np.where(up, bits + 1, bits - 1) & 0xFFFF).astype(np.uint32) << 16).view(np.float32)
    tiny = np.where(y > 0, np.float32(2.0 ** -133), np.float32(-(2.0 ** -133)))
    out = np.where(x == 0, tiny, stepped)
    out = np.where(x == y, y, out)
    out = np.where(np.isnan(x) | np.isnan(y), np.float32(np.nan), out)
    return out.astype(dtypes.BF16)


NEXTAFTER = rule("nextafter", "NextafterBackward0", _nextafter,
                 (lambda F, g, self, other: F.where(self == other, 0.0, g), lambda F, g, other: F.zeros_like(other)),
                 ("where(self == other, 0, grad)", "zeros_like(other)"), inputs=BINARY, elementwise=True,
                 exact_dtype=True, promotes=True)


def _cholesky(a: Any, upper: bool = False) -> Any:
    """torch.cholesky: linalg.cholesky's factor, raising where a matrix is not positive-definite."""
    from engine.linalg import raise_if_not_positive_definite

    L, info = _linalg_cholesky_ex(a, upper)
    raise_if_not_positive_definite(info, "cholesky")
    return L


CHOLESKY = rule("cholesky", "CholeskyBackward0", _cholesky,
                (lambda F, g, result, upper: _cholesky_grad(F, (g,), result, upper),),
                ("cholesky_backward(grad, upper, result)",), defaults={"upper": False})


def _pdist(a: Any, p: float = 2.0) -> Any:
    """p-norm distances between the rows of a, for each pair i < j in row order."""
    a = np.asarray(a)
    i, j = np.triu_indices(a.shape[0], 1)
    return np.ascontiguousarray(_cdist(a, a, p)[i, j]).astype(a.dtype, copy=False)


def _pdist_backward(grad: Any, self: Any, pdist: Any, p: float) -> Any:
    """_pdist_backward: _cdist_backward of the rows against themselves, the pair gradients and distances
    spread into symmetric matrices."""
    x = np.asarray(self)
    n = x.shape[0]
    i, j = np.triu_indices(n, 1)
    g = np.zeros((n, n), x.dtype)
    d = np.zeros((n, n), x.dtype)
    g[i, j] = g[j, i] = np.asarray(grad)
    d[i, j] = d[j, i] = np.asarray(pdist)
    return _cdist_backward(g, x, x, d, p)


PDIST = rule("pdist", "PdistBackward0", _pdist,
             (lambda F, g, p, result, self: F.op("pdist_backward", g, self, result, p=p),),
             ("_pdist_backward(grad, self, p, result)",), defaults={"p": 2.0})
PDIST_BACKWARD = rule("pdist_backward", "PdistBackwardBackward0", _pdist_backward,
                      tuple(_unique_not_implemented("_pdist_backward") for _ in range(3)),
                      ("not implemented in PyTorch",) * 3, inputs=("grad", "self", "pdist"))


# --- rrelu: a random negative slope per element in training (drawn by the caller into `noise`),
# the mean slope (lower + upper) / 2 otherwise --------------------------------------------------
def _rrelu_with_noise(a: Any, noise: Any = None, lower: float = 1 / 8, upper: float = 1 / 3, training: bool = False,
                      slopes: Any = None) -> Any:
    """`slopes`: for half types, the float32 slopes before noise was rounded (PyTorch multiplies by those)."""
    a = np.asarray(a)
    if training and slopes is not None:
        product = a.astype(np.float32) * slopes
        return dtypes.round_bf16(product) if a.dtype == dtypes.BF16 else product.astype(a.dtype)
    if training:
        return np.asarray(a * np.asarray(noise)).astype(a.dtype, copy=False)
    return np.where(a > 0, a, a * ((lower + upper) / 2))


def _rrelu_backward(grad: Any, self: Any, noise: Any = None, lower: float = 1 / 8, upper: float = 1 / 3,
                    training: bool = False,
                    self_is_result: bool = False) -> Any:
    """rrelu_with_noise_backward: noise * grad in training, leaky_relu_backward with the mean slope otherwise."""
    g = np.asarray(grad)
    if training:
        return np.asarray(np.asarray(noise) * g).astype(g.dtype, copy=False)
    return np.where(np.asarray(self) > 0, g, g * ((lower + upper) / 2))


def _rrelu_grad(F: Any, g: Any, self: Any, noise: Any, lower: float, upper: float, training: bool) -> Any:
    return F.op("rrelu_with_noise_backward", g, self, noise=noise, lower=lower, upper=upper, training=training)


def _rrelu_inplace_grad(F: Any, g: Any, result: Any, noise: Any, lower: float, upper: float, training: bool) -> Any:
    return F.op("rrelu_with_noise_backward", g, result, noise=noise, lower=lower, upper=upper, training=training,
                self_is_result=True)


# noise is an argument PyTorch does not differentiate (no edge): kept as a saved attribute
_RRELU_DEFAULTS = {"lower": 1 / 8, "upper": 1 / 3, "training": False}
RRELU_WITH_NOISE = rule("rrelu_with_noise", "RreluWithNoiseBackward0", _rrelu_with_noise, (_rrelu_grad,),
                        ("rrelu_with_noise_backward(grad, self, noise, lower, upper, training, false)",),
                        extra_saves=("noise",), defaults=_RRELU_DEFAULTS)
RRELU_WITH_NOISE_INPLACE = rule(
    "rrelu_with_noise_", "RreluWithNoiseBackward1", _rrelu_with_noise, (_rrelu_inplace_grad,),
    ("rrelu_with_noise_backward(grad, result, noise, lower, upper, training, true)",), extra_saves=("noise",),
    defaults=_RRELU_DEFAULTS)
RRELU_WITH_NOISE_BACKWARD = rule(
    "rrelu_with_noise_backward", "RreluWithNoiseBackwardBackward0", _rrelu_backward,
    (lambda F, g, self, noise, lower, upper, training: F.op(
        "rrelu_with_noise_backward", g, self, noise=noise, lower=lower, upper=upper, training=training),
     lambda F, g: F.zeros_like(g)),
    ("rrelu_with_noise_backward(grad, self, noise, lower, upper, training, false)", "zeros_like(grad)"),
    inputs=("grad_output", "self"), defaults={**_RRELU_DEFAULTS, "self_is_result": False})


# --- multilabel_margin_loss: hinge terms between each target class and each non-target class -------
def _multilabel_pairs(x: np.ndarray, target: Any, is_target: Any) -> tuple:
    """Per sample: how often each class is listed as a target, which classes are not targets, and the
    margins 1 - x[j] + x[i] for every (target j, class i)."""
    t = np.atleast_2d(np.asarray(target)).reshape(x.shape)
    listed = np.cumprod(t >= 0, axis=1).astype(bool)
    counts = np.zeros(x.shape, np.int64)
    rows = np.broadcast_to(np.arange(x.shape[0])[:, None], t.shape)
    np.add.at(counts, (rows[listed], t[listed]), 1)
    others = ~np.asarray(is_target, bool).reshape(x.shape)
    z = 1 - x[:, :, None] + x[:, None, :]  # [n, j, i]
    return counts, others, z


def _multilabel_margin(a: Any, target: Any, is_target: Any, reduction: int = 1) -> Any:
    a = np.asarray(a)
    x = a.reshape(-1, a.shape[-1] if a.ndim else 1)
    counts, others, z = _multilabel_pairs(x, target, is_target)
    terms = np.maximum(z, 0) * others[:, None, :] * counts[:, :, None]
    loss = (terms.sum((1, 2)) / x.shape[1]).astype(a.dtype)
    loss = loss.reshape(()) if a.ndim <= 1 else loss
    if reduction == 1 and not loss.size:
        return np.asarray(np.nan, a.dtype)
    return np.asarray(_reduce(loss, reduction)).astype(a.dtype)


def _multilabel_margin_backward(grad_output: Any, self: Any, target: Any, is_target: Any, reduction: int) -> Any:
    a = np.asarray(self)
    x = a.reshape(-1, a.shape[-1] if a.ndim else 1)
    counts, others, z = _multilabel_pairs(x, target, is_target)
    active = (z > 0) * others[:, None, :] * counts[:, :, None]  # [n, j, i]
    d = (active.sum(1) - active.sum(2)).astype(x.dtype) / x.shape[1]
    g = np.asarray(grad_output)
    if reduction == 0 and a.ndim == 2:
        d = d * g.reshape(-1, 1)
    else:
        d = d * (g / x.shape[0] if reduction == 1 else g)
    return d.reshape(a.shape).astype(a.dtype)


def _multilabel_margin_grad(F: Any, g: Any, reduction: int, self: Any, target: Any, is_target: Any) -> Any:
    """multilabel_margin_loss_backward: a kernel PyTorch cannot differentiate again (a NotImplemented node)."""
    value = _multilabel_margin_backward(F.raw(g), F.raw(self), target, is_target, reduction)
    return kernel_gradient(F, "multilabel_margin_loss_backward", value, (g, self))


MULTILABEL_MARGIN_LOSS = rule(
    "multilabel_margin_loss", "MultilabelMarginLossBackward0", _multilabel_margin, (_multilabel_margin_grad,),
    ("grad * (number of active hinges against x[i] - number of active hinges of x[j]) / classes",),
    extra_saves=("target", "is_target"), defaults={"reduction": 1})

# PyTorch's CPU kernels of these activations have float versions only: bool and integer tensors raise
# (logsigmoid checks in F.logsigmoid, before it computes its buffer)
for _r, _kernel in ((LEAKY_RELU, "leaky_relu_cpu"), (LEAKY_RELU_INPLACE, "leaky_relu_cpu"), (MISH, "mish_cpu"),
                    (HARDSWISH, "hardswish_cpu"), (HARDSIGMOID, "hardsigmoid_cpu"), (HARDSHRINK, "hardshrink_cpu"), (SOFTSHRINK, "softshrink_check"), (GLU, "glu_cpu")):
    _r.forward = _not_for("biu", _kernel, _r.forward)
