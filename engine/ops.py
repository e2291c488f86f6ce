"""The op table: every differentiable primitive, its forward, its gradients and their formulas.

Vocabulary in every rule: `grad` is the gradient arriving from above, `result` the op's output,
inputs keep PyTorch's names (`self`, `other`, `mat2`...). A gradient function's parameters after
`(F, g)` name what it reads, and so what the node saves (see engine/rules.py). Gradients may be
returned in the broadcast shape: the engine sums them back to each input's shape in one place.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.rules import Rule

TABLE: dict[str, Rule] = {}


def rule(name: str, node: str, forward: Any, grads: tuple, formulas: tuple, **options: Any) -> Rule:
    r = Rule(name, node, forward, grads, formulas, **options)
    TABLE[name] = r
    return r


def _unsqueeze_reduced(F: Any, g: Any, dim: Any, keepdim: bool, ndim: int) -> Any:
    """Put back the dimensions a reduction over `dim` removed, so `g` broadcasts to the input."""
    if keepdim or dim is None:
        return g
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return F.unsqueeze_dims(g, tuple(sorted(d % ndim for d in dims)))


def _pow_grad(F: Any, g: Any, exponent: Any, self: Any) -> Any:
    if exponent == 0:
        return F.zeros_like(self)
    return g * exponent * self ** (exponent - 1)


# --- elementwise arithmetic ---------------------------------------------------------------------
BINARY = ("self", "other")

ADD = rule("add", "AddBackward0", lambda a, b, alpha=1: a + b if alpha == 1 else a + alpha * b,
           (lambda F, g: g, lambda F, g, alpha: g if alpha == 1 else g * alpha),
           ("grad", "grad * alpha"), inputs=BINARY, elementwise=True, defaults={"alpha": 1})
SUB = rule("sub", "SubBackward0", lambda a, b, alpha=1: a - b if alpha == 1 else a - alpha * b,
           (lambda F, g: g, lambda F, g, alpha: -g if alpha == 1 else -g * alpha),
           ("grad", "-grad * alpha"), inputs=BINARY, elementwise=True, defaults={"alpha": 1})
RSUB = rule("rsub", "RsubBackward1", lambda a, other, alpha=1: other - alpha * a,
            (lambda F, g, alpha: -g if alpha == 1 else -g * alpha,),
            ("-grad * alpha",), elementwise=True, defaults={"alpha": 1})
MUL = rule("mul", "MulBackward0", np.multiply,
           (lambda F, g, other: g * other, lambda F, g, self: g * self),
           ("grad * other", "grad * self"), inputs=BINARY, elementwise=True)
DIV = rule("div", "DivBackward0", np.true_divide,
           (lambda F, g, other: g / other, lambda F, g, self, other: -g * self / (other * other)),
           ("grad / other", "-grad * self / other²"), inputs=BINARY, elementwise=True)
NEG = rule("neg", "NegBackward0", np.negative, (lambda F, g: -g,), ("-grad",), elementwise=True)
POW = rule("pow", "PowBackward0", lambda a, exponent: a ** exponent, (_pow_grad,),
           ("grad * exponent * self^(exponent - 1)",), elementwise=True, extra_saves=("exponent",))
POW_TENSOR = rule(
    "pow_tensor", "PowBackward1", np.power,
    (lambda F, g, exponent, self: g * exponent * self ** (exponent - 1),
     lambda F, g, result, self: g * result * F.log(self)),
    ("grad * exponent * self^(exponent - 1)", "grad * result * log(self)"),
    inputs=("self", "exponent"), elementwise=True)
RPOW = rule("rpow", "PowBackward2", lambda self, exponent: np.power(self, exponent),
            (None, lambda F, g, result, self: g * result * np.log(self)),
            (None, "grad * result * log(self)"), inputs=("self", "exponent"), elementwise=True)
RECIPROCAL = rule("reciprocal", "ReciprocalBackward0", np.reciprocal,
                  (lambda F, g, result: -g * result * result,), ("-grad * result²",), elementwise=True)

# --- unary math and activations -----------------------------------------------------------------
EXP = rule("exp", "ExpBackward0", np.exp, (lambda F, g, result: g * result,), ("grad * result",),
           elementwise=True)
LOG = rule("log", "LogBackward0", np.log, (lambda F, g, self: g / self,), ("grad / self",),
           elementwise=True)
SIN = rule("sin", "SinBackward0", np.sin, (lambda F, g, self: g * F.cos(self),), ("grad * cos(self)",),
           elementwise=True)
COS = rule("cos", "CosBackward0", np.cos, (lambda F, g, self: -g * F.sin(self),),
           ("-grad * sin(self)",), elementwise=True)
TANH = rule("tanh", "TanhBackward0", np.tanh, (lambda F, g, result: g * (1 - result * result),),
            ("grad * (1 - result²)",), elementwise=True)
SIGMOID = rule("sigmoid", "SigmoidBackward0", lambda a: 1 / (1 + np.exp(-a)),
               (lambda F, g, result: g * (1 - result) * result,), ("grad * result * (1 - result)",),
               elementwise=True)
RELU = rule("relu", "ReluBackward0", lambda a: np.maximum(a, 0),
            (lambda F, g, result: F.where(result > 0, g, 0),), ("grad * (result > 0)",), elementwise=True)
SQRT = rule("sqrt", "SqrtBackward0", np.sqrt, (lambda F, g, result: g / (2 * result),),
            ("grad / (2 * result)",), elementwise=True)
ABS = rule("abs", "AbsBackward0", np.abs, (lambda F, g, self: g * F.sign(self),),
           ("grad * sign(self)",), elementwise=True)

# --- reductions ---------------------------------------------------------------------------------
SUM = rule("sum", "SumBackward0", lambda a: np.sum(a),
           (lambda F, g, self_sym_sizes: F.expand(g, self_sym_sizes),), ("grad expanded to self's shape",))
SUM_DIM = rule(
    "sum_dim", "SumBackward1", lambda a, dim, keepdim=False: np.sum(a, axis=dim, keepdims=keepdim),
    (lambda F, g, dim, keepdim, self_sym_sizes: F.expand(
        _unsqueeze_reduced(F, g, dim, keepdim, len(self_sym_sizes)), self_sym_sizes),),
    ("grad expanded along dim",), defaults={"keepdim": False})
MEAN = rule("mean", "MeanBackward0", lambda a: np.mean(a),
            (lambda F, g, self_sym_numel, self_sym_sizes: F.expand(g / self_sym_numel, self_sym_sizes),),
            ("grad / numel, expanded to self's shape",))
MEAN_DIM = rule(
    "mean_dim", "MeanBackward1", lambda a, dim, keepdim=False: np.mean(a, axis=dim, keepdims=keepdim),
    (lambda F, g, dim, keepdim, self_sym_numel, self_sym_sizes: F.expand(
        _unsqueeze_reduced(F, g, dim, keepdim, len(self_sym_sizes)), self_sym_sizes)
        * (float(np.prod([self_sym_sizes[d] for d in ((dim,) if isinstance(dim, int) else dim)]))
           ** -1),),
    ("grad / n, expanded along dim",), defaults={"keepdim": False})

# --- matrix products ----------------------------------------------------------------------------
MM = rule("mm", "MmBackward0", np.matmul,
          (lambda F, g, mat2: g @ F.mT(mat2), lambda F, g, self: F.mT(self) @ g),
          ("grad @ mat2ᵀ", "selfᵀ @ grad"), inputs=("self", "mat2"),
          extra_saves=("mat2_sym_sizes", "mat2_sym_strides", "self_sym_sizes", "self_sym_strides"))
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
EXPAND = rule("expand", "ExpandBackward0", lambda a, size: np.broadcast_to(a, size),
              (lambda F, g: g,), ("grad summed back to self's shape",), extra_saves=("self_sym_sizes",),
              view=True)
T = rule("t", "TBackward0", lambda a: a.T, (lambda F, g: F.mT(g) if np.ndim(g) == 2 else g,), ("gradᵀ",),
         view=True)
TRANSPOSE = rule("transpose", "TransposeBackward0", lambda a, dim0, dim1: np.swapaxes(a, dim0, dim1),
                 (lambda F, g, dim0, dim1: F.permute(g, _swap(np.ndim(g), dim0, dim1)),),
                 ("grad transposed back",), view=True)
PERMUTE = rule("permute", "PermuteBackward0", lambda a, dims: np.transpose(a, dims),
               (lambda F, g, dims: F.permute(g, tuple(np.argsort([d % len(dims) for d in dims]))),),
               ("grad permuted back",), view=True)
UNSQUEEZE = rule("unsqueeze", "UnsqueezeBackward0", lambda a, dim: np.expand_dims(a, dim),
                 (lambda F, g, dim: F.sum(g, dim),), ("grad squeezed at dim",), view=True)
SQUEEZE = rule("squeeze", "SqueezeBackward0", lambda a: np.squeeze(a),
               (lambda F, g, self_sym_sizes: F.reshape(g, self_sym_sizes),), ("grad reshaped to self",),
               view=True)
SQUEEZE_DIM = rule("squeeze_dim", "SqueezeBackward1", lambda a, dim: np.squeeze(a, dim)
                   if a.shape[dim] == 1 else a,
                   (lambda F, g, self_sym_sizes: F.reshape(g, self_sym_sizes),), ("grad reshaped to self",),
                   extra_saves=("dim",), view=True)
CLONE = rule("clone", "CloneBackward0", lambda a: np.array(a, copy=True), (lambda F, g: g,), ("grad",),
             elementwise=True)


def _swap(ndim: int, dim0: int, dim1: int) -> tuple[int, ...]:
    order = list(range(ndim))
    order[dim0], order[dim1] = order[dim1], order[dim0]
    return tuple(order)
