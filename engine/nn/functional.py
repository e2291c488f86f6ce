"""torch.nn.functional: activations, softmax family and losses with PyTorch's nodes."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from engine import functions as f
from engine import grad_mode, messages, ops
from engine.rules import apply
from engine.tensor import Tensor, Size

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction(reduction: str, size_average: Any = None, reduce: Any = None) -> int:
    if size_average is not None or reduce is not None:
        if reduce is False:
            return 0
        return 1 if size_average in (None, True) else 2
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


# --- activations ----------------------------------------------------------------------------
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return f._inplace(input, ops.RELU, ()) if inplace else apply(ops.RELU, (input,))


def relu_(input: Tensor) -> Tensor:
    return relu(input, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return hardtanh(input, 0.0, 6.0, inplace)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    attrs = {"min_val": min_val, "max_val": max_val}
    return f._inplace(input, ops.HARDTANH, (), attrs) if inplace else apply(ops.HARDTANH, (input,), attrs)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    attrs = {"negative_slope": negative_slope}
    if inplace:
        return f._inplace(input, ops.LEAKY_RELU_INPLACE, (), attrs)
    return apply(ops.LEAKY_RELU, (input,), attrs)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return leaky_relu(input, negative_slope, inplace=True)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    return apply(ops.GELU, (input,), {"approximate": approximate})


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return _elu(input, {"alpha": alpha, "scale": 1.0, "input_scale": 1.0}, inplace)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return elu(input, alpha, inplace=True)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    attrs = {"alpha": 1.6732632423543772848170429916717, "scale": 1.0507009873554804934193349852946,
             "input_scale": 1.0}
    return _elu(input, attrs, inplace)


def selu_(input: Tensor) -> Tensor:
    return selu(input, inplace=True)


def _elu(input: Tensor, attrs: dict, inplace: bool) -> Tensor:
    """elu and selu: EluBackward0, or EluBackward1 (which saves the result) when in place."""
    return f._inplace(input, ops.ELU_INPLACE, (), attrs) if inplace else apply(ops.ELU, (input,), attrs)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return f._inplace(input, ops.SILU, ()) if inplace else apply(ops.SILU, (input,))


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    return apply(ops.SOFTPLUS, (input,), {"beta": beta, "threshold": threshold})


def logsigmoid(input: Tensor) -> Tensor:
    # PyTorch's node also keeps a `buffer` (exp(-|x|)) for its kernel.
    return apply(ops.LOGSIGMOID, (input,), {"buffer": np.exp(-np.abs(input._data))})


def softsign(input: Tensor) -> Tensor:
    return f.div(input, f.add(f.abs(input), 1))


def sigmoid(input: Tensor) -> Tensor:
    return f.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    return f.tanh(input)


def softmax(input: Tensor, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    return f.softmax(input, dim, dtype)


def log_softmax(input: Tensor, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    return f.log_softmax(input, dim, dtype)


def softmin(input: Tensor, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    return f.softmax(f.neg(input), dim, dtype)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Tensor:
    denom = f.clamp_min(f.norm(input, p, dim, keepdim=True), eps).expand_as(input)
    return f.div(input, denom)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    from engine.creation import bernoulli_draw

    keep = bernoulli_draw(input._data.shape, 1 - p, input._data.dtype)
    scale = keep / (1 - p) if p < 1 else keep * 0
    noise = Tensor._make(scale.astype(input._data.dtype))
    return f._inplace(input, ops.MUL, (noise,)) if inplace else f.mul(input, noise)


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of `weight` picked by the indices in `input` (EmbeddingBackward0)."""
    indices = input._data
    if indices.dtype.kind not in "iu" or indices.dtype.itemsize not in (4, 8):
        raise RuntimeError(messages.EMBEDDING_INDEX_DTYPE.format(legacy=input.dtype.legacy))
    rows = weight._data.shape[0]
    if indices.size and (indices.min() < 0 or indices.max() >= rows):
        raise IndexError(messages.INDEX_OUT_OF_RANGE)
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < rows, "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -rows, "Padding_idx must be within num_embeddings"
            padding_idx = rows + padding_idx
    if max_norm is not None:
        _embedding_renorm(weight, indices, max_norm, norm_type)
    attrs = {"indices": indices.astype(np.int64), "padding_idx": -1 if padding_idx is None else padding_idx,
             "scale_grad_by_freq": scale_grad_by_freq, "sparse": sparse, "weight_sym_argsize_0": rows}
    return apply(ops.EMBEDDING, (weight,), attrs)


def _embedding_renorm(weight: Tensor, indices: np.ndarray, max_norm: float, norm_type: float) -> None:
    """PyTorch's embedding_renorm_: the rows looked up whose norm exceeds max_norm are scaled
    down to it, in place and without a gradient."""
    data = weight._data
    rows = np.unique(indices)
    norms = np.linalg.norm(data[rows].astype(np.float64), ord=norm_type, axis=1)
    big = norms > max_norm
    scale = (max_norm / (norms[big] + 1e-7)).astype(data.dtype)
    data[rows[big]] *= scale[:, None]
    weight._vc[0] += 1


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    got = input._data.shape
    if len(shape) > len(got) or got[len(got) - len(shape):] != shape:
        dims = ", ".join(map(str, shape))
        raise RuntimeError(f"Given normalized_shape=[{dims}], expected input with shape [*, {dims}], but got "
                           f"input of size{list(got)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t._data.shape != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                               f"shape {list(t._data.shape)} and normalized_shape = {list(shape)}")
    return apply(ops.NATIVE_LAYER_NORM, (input, weight, bias), {"normalized_shape": shape, "eps": eps})[0]


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalizes over all dims but 1 (channels): with the batch's statistics when training (and
    updates the running ones), with the running statistics otherwise."""
    size = input._data.shape
    if training and math.prod(size[:1] + size[2:]) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {Size(size)}")
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    channels = size[1] if len(size) > 1 else 1
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is not None and t._data.size != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t._data.size}")
    if not training and (running_mean is None or running_var is None):
        missing = "running_mean" if running_mean is None else "running_var"
        raise RuntimeError(f"{missing} must be defined in evaluation mode")
    attrs = {"running_mean": None if running_mean is None else running_mean._data,
             "running_var": None if running_var is None else running_var._data,
             "training": training, "eps": eps}
    out = apply(ops.NATIVE_BATCH_NORM, (input, weight, bias), attrs)[0]
    if training:
        _update_running_stats(input._data, running_mean, running_var, momentum)
    return out


def _update_running_stats(data: np.ndarray, running_mean: Tensor | None, running_var: Tensor | None,
                          momentum: float) -> None:
    """running = (1 - momentum) * running + momentum * batch statistic (the variance unbiased),
    written without a version bump, as PyTorch's kernel does."""
    axes = (0,) + tuple(range(2, data.ndim))
    if running_mean is not None:
        mean = np.mean(data, axis=axes)
        running_mean._data[...] = (1 - momentum) * running_mean._data + momentum * mean
    if running_var is not None:
        var = np.var(data, axis=axes, ddof=1)
        running_var._data[...] = (1 - momentum) * running_var._data + momentum * var


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """PyTorch's linear: addmm for 2-D input with bias (AddmmBackward0 with TBackward0 on weight)."""
    if input._data.shape[-1] != weight._data.shape[-1]:
        s = input._data.shape
        rows = int(np.prod(s[:-1])) if len(s) > 1 else 1
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{s[-1]} and "
            f"{weight._data.shape[-1]}x{weight._data.shape[0]})"
        )
    if input._data.ndim == 2 and bias is not None:
        return f.addmm(bias, input, f.t(weight))
    if bias is not None and input._data.flags.c_contiguous:
        flat = f.reshape(input, -1, input._data.shape[-1])
        out = f.addmm(bias, flat, f.t(weight))
        return f.view(out, *input._data.shape[:-1], weight._data.shape[0])
    out = f.matmul(input, f.t(weight))
    if bias is not None:
        out = f._inplace(out, ops.ADD, (bias,)) if out.grad_fn is not None or not bias._requires_grad \
            else f.add(out, bias)
    return out


def bilinear(*args: Any, **kwargs: Any) -> Tensor:
    raise NotImplementedError("bilinear is not supported")


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    n = int(tensor._data.max()) + 1 if num_classes < 0 else num_classes
    out = np.eye(n, dtype=np.int64)[tensor._data]
    return f._constant(out)


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float = 0.0) -> Tensor:
    widths = [(0, 0)] * input._data.ndim
    for i in range(len(pad) // 2):
        widths[-1 - i] = (pad[2 * i], pad[2 * i + 1])
    return f._constant(np.pad(input._data, widths, constant_values=value))


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    dot = f.sum(f.mul(x1, x2), dim)
    n1 = f.norm(x1, 2, dim)
    n2 = f.norm(x2, 2, dim)
    return f.div(dot, f.clamp_min(f.mul(n1, n2), eps))


# --- losses ----------------------------------------------------------------------------------
def _broadcast_pair(input: Tensor, target: Tensor) -> tuple:
    if input._data.shape == target._data.shape:
        return input, target
    shape = tuple(np.broadcast_shapes(input._data.shape, target._data.shape))
    a = input if input._data.shape == shape else f.expand(input, shape)
    b = target if target._data.shape == shape else f.expand(target, shape)
    return a, b


def _warn_size(input: Tensor, target: Tensor) -> None:
    if target._data.shape != input._data.shape:
        warnings.warn(
            f"Using a target size ({Size(target._data.shape)}) that is different to the input size "
            f"({Size(input._data.shape)}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.", UserWarning, stacklevel=3,
        )


def mse_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
             reduction: str = "mean", weight: Any = None) -> Tensor:
    _warn_size(input, target)
    a, b = _broadcast_pair(input, target)
    return apply(ops.MSE_LOSS, (a, b), {"reduction": _reduction(reduction, size_average, reduce)})


def l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
            reduction: str = "mean", weight: Any = None) -> Tensor:
    _warn_size(input, target)
    a, b = _broadcast_pair(input, target)
    loss = f.abs(f.sub(a, b))
    r = _reduction(reduction, size_average, reduce)
    return f.mean(loss) if r == 1 else (f.sum(loss) if r == 2 else loss)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    _warn_size(input, target)
    a, b = _broadcast_pair(input, target)
    r = _reduction(reduction, size_average, reduce)
    if beta == 0.0:
        return l1_loss(a, b, reduction=reduction)
    return apply(ops.SMOOTH_L1_LOSS, (a, b), {"reduction": r, "beta": beta})


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Any = None) -> Tensor:
    _warn_size(input, target)
    a, b = _broadcast_pair(input, target)
    return apply(ops.HUBER_LOSS, (a, b), {"reduction": _reduction(reduction), "delta": delta})


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
             ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    t = target._data
    if t.dtype.kind not in "iu":
        raise RuntimeError(
            f"expected scalar type Long but found {target.dtype.legacy}"
        )
    batch_in = input._data.shape[0] if input._data.ndim > 1 else None
    if batch_in is not None and t.ndim and t.shape[0] != batch_in:
        raise ValueError(f"Expected input batch_size ({batch_in}) to match target batch_size ({t.shape[0]}).")
    classes = input._data.shape[1] if input._data.ndim > 1 else input._data.shape[0]
    bad = t[(t != ignore_index) & ((t < 0) | (t >= classes))]
    if bad.size:
        raise IndexError(f"Target {int(bad.flat[0])} is out of bounds.")
    w = None if weight is None else weight._data
    _, total = ops._nll(input._data, t, w, r, ignore_index)
    attrs = {"target": t, "weight": w, "reduction": r, "ignore_index": ignore_index, "total_weight": total}
    return apply(ops.NLL_LOSS, (input,), attrs)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
                  ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    class_dim = 0 if input._data.ndim == 1 else 1
    logp = f.log_softmax(input, class_dim)
    r = _reduction(reduction, size_average, reduce)
    if target._data.dtype.kind == "f":
        # class probabilities as targets
        classes = input._data.shape[class_dim]
        t = target
        if label_smoothing > 0:
            t = f.add(f.mul(target, 1 - label_smoothing), label_smoothing / classes)
        terms = f.mul(logp, t) if weight is None else f.mul(f.mul(logp, t), _class_view(weight, input))
        loss = f.neg(f.sum(terms, class_dim))
        if r == 1:
            return f.div(f.sum(loss), input._data.size // classes if input._data.ndim > 1 else 1)
        return f.sum(loss) if r == 2 else loss
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing <= 0:
        return nll
    classes = input._data.shape[class_dim]
    terms = logp if weight is None else f.mul(logp, _class_view(weight, input))
    smooth = f.neg(f.sum(terms, class_dim))
    mask = Tensor._make(target._data != ignore_index)
    smooth = f.mul(smooth, mask)
    if r == 1:
        denom = float(mask._data.sum()) if weight is None else float(
            weight._data[np.where(mask._data, target._data, 0)][mask._data].sum())
        smooth = f.div(f.sum(smooth), denom)
    elif r == 2:
        smooth = f.sum(smooth)
    return f.add(f.mul(nll, 1 - label_smoothing), f.mul(smooth, label_smoothing / classes))


def _class_view(weight: Tensor, input: Tensor) -> Tensor:
    shape = [1] * input._data.ndim
    shape[1 if input._data.ndim > 1 else 0] = -1
    return f.reshape(weight, shape)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    if target._data.shape != input._data.shape:
        raise ValueError(
            f"Using a target size ({Size(target._data.shape)}) that is different to the input size "
            f"({Size(input._data.shape)}) is deprecated. Please ensure they have the same size."
        )
    data = input._data
    if data.size and (data.min() < 0 or data.max() > 1):
        raise RuntimeError("all elements of input should be between 0 and 1")
    w = None if weight is None else np.broadcast_to(weight._data, data.shape)
    return apply(ops.BCE, (input, target), {"weight": w, "reduction": _reduction(reduction, size_average, reduce)})


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average: Any = None, reduce: Any = None,
                                     reduction: str = "mean", pos_weight: Tensor | None = None) -> Tensor:
    if target._data.shape != input._data.shape:
        raise ValueError(
            f"Target size ({Size(target._data.shape)}) must be the same as input size "
            f"({Size(input._data.shape)})"
        )
    attrs = {
        "weight": None if weight is None else weight._data,
        "pos_weight": None if pos_weight is None else pos_weight._data,
        "reduction": _reduction(reduction, size_average, reduce),
    }
    return apply(ops.BCE_LOGITS, (input, target), attrs)


def kl_div(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    if log_target:
        loss = f.mul(f.exp(target), f.sub(target, input))
    else:
        loss = f.mul(target, f.sub(f.log(target), input))
    r = reduction
    if r == "mean":
        return f.mean(loss)
    if r == "batchmean":
        return f.div(f.sum(loss), input._data.shape[0])
    return f.sum(loss) if r == "sum" else loss


__all__ = [n for n in dir() if not n.startswith("_") and n not in ("annotations", "Any", "np", "math",
                                                                     "warnings", "f", "ops", "apply",
                                                                     "messages")]
