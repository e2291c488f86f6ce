"""torch.nn.functional: activations, softmax family and losses with PyTorch's nodes."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from engine import functions as f
from engine import conv, grad_mode, messages, ops
from engine import creation as _creation
from engine.rules import apply
from engine.dim_args import int_dim, one_int_dim
from engine.nn import loss_checks
from engine.tensor import Size, Tensor

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
    return hardtanh(input, 0, 6, inplace)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    kind = input._data.dtype.kind
    if kind == "b":
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if kind == "u" and (min_val < 0 or max_val < 0):
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
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
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return apply(ops.GELU, (input,), {"approximate": approximate})


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return _elu(input, {"alpha": alpha, "scale": 1, "input_scale": 1}, inplace)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return elu(input, alpha, inplace=True)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    attrs = {"alpha": 1.6732632423543772848170429916717, "scale": 1.0507009873554804934193349852946,
             "input_scale": 1}
    return _elu(input, attrs, inplace)


def selu_(input: Tensor) -> Tensor:
    return selu(input, inplace=True)


def _elu(input: Tensor, attrs: dict, inplace: bool) -> Tensor:
    """elu and selu: EluBackward0, or EluBackward1 (which saves the result) when in place."""
    return f._inplace(input, ops.ELU_INPLACE, (), attrs) if inplace else apply(ops.ELU, (input,), attrs)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    if inplace:
        return f._inplace(input, ops.CELU_INPLACE, (), {"alpha": alpha})
    return apply(ops.CELU, (input,), {"alpha": alpha})


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return celu(input, alpha, inplace=True)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return _activation(ops.SILU, input, inplace)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    return _activation(ops.MISH, input, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    return _activation(ops.HARDSWISH, input, inplace)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    return _activation(ops.HARDSIGMOID, input, inplace)


def _activation(rule: Any, input: Tensor, inplace: bool) -> Tensor:
    """An elementwise activation whose in-place form records the same node."""
    return f._inplace(input, rule, ()) if inplace else apply(rule, (input,))


def _threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """`value` where input <= threshold (a parameter named like the function, as in torch)."""
    attrs = {"threshold": threshold, "value": value}
    if inplace:
        return f._inplace(input, ops.THRESHOLD_INPLACE, (), attrs)
    return apply(ops.THRESHOLD, (input,), attrs)


threshold = _threshold


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return _threshold(input, threshold, value, inplace=True)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    dim = int_dim("glu", dim, 2)
    shape = input._data.shape
    if not shape:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    wrapped = f._wrap_dim(dim, len(shape))
    if shape[wrapped] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {wrapped} is size "
                           f"{shape[wrapped]}")
    return apply(ops.GLU, (input,), {"dim": dim})


def tanhshrink(input: Tensor) -> Tensor:
    return f.sub(input, f.tanh(input))


def softplus(input: Tensor, beta: float = 1, threshold: float = 20) -> Tensor:
    return apply(ops.SOFTPLUS, (input,), {"beta": beta, "threshold": threshold})


def logsigmoid(input: Tensor) -> Tensor:
    # PyTorch's node also keeps a `buffer` (exp(-|x|)) for its kernel.
    if input._data.dtype.kind in "biu":
        raise NotImplementedError(f"\"log_sigmoid_cpu\" not implemented for '{input.dtype.legacy}'")
    return apply(ops.LOGSIGMOID, (input,), {"buffer": np.exp(-np.abs(input._data))})


def softsign(input: Tensor) -> Tensor:
    return f.div(input, f.add(f.abs(input), 1))


def sigmoid(input: Tensor) -> Tensor:
    return f.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    return f.tanh(input)


def softmax(input: Tensor, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    return f.softmax(input, int_dim("softmax", dim, 1, True), dtype)


def log_softmax(input: Tensor, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    return f.log_softmax(input, int_dim("log_softmax", dim, 1, True), dtype)


def softmin(input: Tensor, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    return f.softmax(f.neg(input), int_dim("softmax", dim, 1, True), dtype)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Tensor:
    denom = f.clamp_min(f.norm(input, p, dim, keepdim=True), eps).expand_as(input)
    return f.div(input, denom)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    from engine.creation import bernoulli_draw, draw_like

    keep = draw_like(input._data, bernoulli_draw((input._data.size,), 1 - p, input._data.dtype))
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


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """PyTorch's instance_norm: batch_norm of the input viewed as (1, N * C, ...), with weight, bias and the
    running statistics repeated N times (their mean over N written back), viewed back (ViewBackward0)."""
    size = input._data.shape
    if use_input_stats and math.prod(size[2:]) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {Size(size)}")
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    b, c = size[0], size[1]
    weight_, bias_, mean_, var_ = (None if t is None else f.repeat(t, b)
                                   for t in (weight, bias, running_mean, running_var))
    reshaped = f.view(f.contiguous(input), (1, b * c) + tuple(size[2:]))
    out = batch_norm(reshaped, mean_, var_, weight_, bias_, use_input_stats, momentum, eps)
    for running, repeated in ((running_mean, mean_), (running_var, var_)):
        if running is not None:
            running._data[...] = np.mean(repeated._data.reshape(b, c), axis=0)
    return f.view(out, size)


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


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    if tensor._data.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if not tensor._data.size:
        if num_classes < 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return f._constant(np.zeros(tensor._data.shape + (num_classes,), np.int64))
    if tensor._data.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes >= 0 and tensor._data.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    n = int(tensor._data.max()) + 1 if num_classes < 0 else num_classes
    out = np.eye(n, dtype=np.int64)[tensor._data]
    return f._constant(out)


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """Constant padding (ConstantPadNdBackward0): pad = (last dim's before, after, the dim before's...);
    negative amounts crop."""
    pad = tuple(int(p) for p in pad)
    shape = input._data.shape
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > len(shape):
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension "
                           f"but got padding length {len(pad)} and input of dimension {len(shape)}")
    if mode != "constant":
        return _pad_nonconstant(input, pad, mode, value)
    for i in range(len(pad) // 2):
        d = len(shape) - 1 - i
        if shape[d] + pad[2 * i] + pad[2 * i + 1] < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
    return apply(ops.CONSTANT_PAD_ND, (input,), {"pad": pad, "value": 0 if value is None else value})


_PAD_SIZES = ("Supported combinations for non-constant padding:\n"
              "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
              "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
              "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def _pad_nonconstant(input: Tensor, pad: tuple, mode: str, value: float | None) -> Tensor:
    """F.pad's 'reflect' / 'replicate' (ReflectionPad1DBackward0...) and 'circular' (slices of a new
    tensor copied in place, so CopySlices, as PyTorch's _pad_circular)."""
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    shape = input._data.shape
    dims = len(pad) // 2
    if dims not in (1, 2, 3) or len(shape) not in (dims + 1, dims + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {len(shape)}D input tensor.\n"
                                  + _PAD_SIZES)
    if mode == "circular":
        return _pad_circular(input, pad)
    kind = "reflection" if mode == "reflect" else "replication"
    if input._data.dtype == np.bool_:
        raise NotImplementedError(f'"{kind}_pad{dims}d" not implemented for \'Bool\'')
    batched = len(shape) == dims + 2
    if any(s == 0 for s in shape[1 if batched else 0:]):
        raise RuntimeError(f"Expected {dims + 1}D or {dims + 2}D (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: {list(shape)}")
    for i in range(dims):  # the last dim first (Argument #4 is its padding)
        d = len(shape) - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if mode == "reflect" and not (lo < shape[d] and hi < shape[d]):
            raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({lo}, {hi}) at dimension {d} of input {list(shape)}")
    out = list(shape)
    for i in range(dims):
        out[len(shape) - 1 - i] += pad[2 * i] + pad[2 * i + 1]
    if dims == 1 and out[-1] < 1:
        raise RuntimeError(f"input (W: {shape[-1]}) is too small. Calculated output W: {out[-1]}")
    negative = [n for n in out if n < 0]
    if negative:
        if mode == "reflect" and dims == 2:
            raise RuntimeError("numel: integer multiplication overflow")
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative[0]}: {out}")
    return apply(ops.TABLE[f"{kind}_pad{dims}d"], (input,), {"padding": pad})


def _pad_circular(input: Tensor, pad: tuple) -> Tensor:
    """PyTorch's _pad_circular: the input copied into the middle of a new tensor, then each padded dim's
    left and right bands copied from the opposite side (corners written more than once)."""
    shape = input._data.shape
    dims = len(pad) // 2
    if len(shape) - dims not in (1, 2):
        raise RuntimeError("Invalid padding size, expected 1 or 2 non-padded dimensions, which would be equivalent "
                           f"to padding of length {(len(shape) - 1) * 2} or {(len(shape) - 2) * 2} respectively "
                           f"but got {len(pad)}")
    out_shape = list(shape)
    for i in range(dims):
        d = len(shape) - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        out_shape[d] = shape[d] + lo + hi
        if lo > shape[d] or hi > shape[d]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if out_shape[d] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = input.new_empty(tuple(out_shape))
    if out._data.size == 0:
        return out
    out_slice, in_slice = out, input
    for i in range(dims):
        d = len(shape) - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        out_slice = f.narrow(out_slice, d, max(lo, 0), out_shape[d] - max(hi, 0) - max(lo, 0))
        in_slice = f.narrow(in_slice, d, max(-lo, 0), shape[d] - max(-hi, 0) - max(-lo, 0))
    out_slice.copy_(in_slice)
    for i in range(dims):
        d = len(shape) - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if lo > 0:
            f.narrow(out, d, 0, lo).copy_(f.narrow(out, d, out_shape[d] - lo - max(hi, 0), lo))
        if hi > 0:
            f.narrow(out, d, out_shape[d] - hi, hi).copy_(f.narrow(out, d, max(lo, 0), hi))
    return out


# --- unpooling, pixel shuffle, fold / unfold, gumbel softmax ---------------------------------------------
def _unpool_output_size(input: Tensor, kernel_size: tuple, stride: tuple, padding: tuple,
                        output_size: Any) -> list:
    input_size = input._data.shape
    n = len(kernel_size)
    default = [(input_size[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        return default
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a "
                         f"length of '{len(output_size)}'")
    for d in range(n):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < output_size[d] < high:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {low} and {high})')
    return output_size


def _max_unpool(input: Tensor, indices: Tensor, output_size: list) -> Tensor:
    """PyTorch's max_unpool2d / max_unpool3d (MaxUnpool2DBackward0...), after its index check."""
    idx = indices._data
    plane = int(np.prod(output_size))
    bad = idx[(idx < 0) | (idx >= plane)]
    if bad.size:
        sizes = "x".join(str(v) for v in output_size)
        # PyTorch's kernel keeps going and reports the last invalid index it met
        raise RuntimeError(f"Found an invalid max index: {int(bad.flat[-1])} (output volumes are of size {sizes})")
    rule = ops.MAX_UNPOOL3D if len(output_size) == 3 else ops.MAX_UNPOOL2D
    return apply(rule, (input,), {"indices": idx, "output_size": tuple(int(v) for v in output_size)})


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    kernel = _ntuple(kernel_size, 1)
    step = kernel if stride is None else _ntuple(stride, 1)
    size = _unpool_output_size(input, kernel, step, _ntuple(padding, 1), output_size)
    out = _max_unpool(f.unsqueeze(input, -1), f.unsqueeze(indices, -1), list(size) + [1])
    return f.squeeze(out, -1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    kernel = _ntuple(kernel_size, 2)
    step = kernel if stride is None else _ntuple(stride, 2)
    return _max_unpool(input, indices, _unpool_output_size(input, kernel, step, _ntuple(padding, 2), output_size))


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    kernel = _ntuple(kernel_size, 3)
    step = kernel if stride is None else _ntuple(stride, 3)
    size = _unpool_output_size(input, kernel, step, _ntuple(padding, 3), output_size)
    if input._data.ndim not in (4, 5):
        raise RuntimeError("Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with "
                           f"{input._data.ndim} dimensions.")
    return _max_unpool(input, indices, size)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    shape = input._data.shape
    if len(shape) < 3:
        raise RuntimeError("pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{len(shape)} dimension(s)")
    r = int(upscale_factor)
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    if shape[-3] % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={shape[-3]} is not divisible by {r * r}")
    return apply(ops.PIXEL_SHUFFLE, (input,), {"upscale_factor": r})


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    shape = input._data.shape
    if len(shape) < 3:
        raise RuntimeError("pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{len(shape)} dimension(s)")
    r = int(downscale_factor)
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    for name, d in (("height", -2), ("width", -1)):
        if shape[d] % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                               f"input.size({d})={shape[d]} is not divisible by {r}")
    return apply(ops.PIXEL_UNSHUFFLE, (input,), {"downscale_factor": r})


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:
    """im2col (Im2ColBackward0): (N, C * prod(kernel_size), L), one column per sliding block."""
    geometry = {"kernel_size": _ntuple(kernel_size, 2), "dilation": _ntuple(dilation, 2),
                "padding": _ntuple(padding, 2), "stride": _ntuple(stride, 2)}
    shape = input._data.shape
    if len(shape) not in (3, 4) or 0 in shape[-3:]:
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(shape)}")
    g = geometry
    blocks = tuple(conv.conv_out_size(s, k, st, p, d) for s, k, st, p, d in
                   zip(shape[-2:], g["kernel_size"], g["stride"], g["padding"], g["dilation"]))
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size {tuple(shape[-2:])}, kernel_size={g['kernel_size']}, "
                           f"dilation={g['dilation']}, padding={g['padding']}, calculated shape of the array of "
                           f"sliding blocks as {blocks}, but its components must be at least one.")
    return apply(ops.IM2COL, (input,), geometry)


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
         stride: Any = 1) -> Tensor:
    """col2im (Col2ImBackward0): the columns of unfold summed back into an image."""
    out = _ntuple(output_size, 2)
    g = {"kernel_size": _ntuple(kernel_size, 2), "dilation": _ntuple(dilation, 2),
         "padding": _ntuple(padding, 2), "stride": _ntuple(stride, 2)}
    shape = input._data.shape
    if len(shape) not in (2, 3) or 0 in shape[-2:]:
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(shape)}")
    k = g["kernel_size"][0] * g["kernel_size"][1]
    if shape[-2] % k:
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           f"but got input.size(1)={shape[-2]} and kernel_size={g['kernel_size']}.")
    blocks = tuple(conv.conv_out_size(s, kk, st, p, d) for s, kk, st, p, d in
                   zip(out, g["kernel_size"], g["stride"], g["padding"], g["dilation"]))
    if blocks[0] * blocks[1] != shape[-1]:
        raise RuntimeError(f"Given output_size={out}, kernel_size={g['kernel_size']}, dilation={g['dilation']}, "
                           f"padding={g['padding']}, stride={g['stride']}, expected size of input's dimension 2 to "
                           f"match the calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
                           f"{blocks[0] * blocks[1]}, but got input.size(2)={shape[-1]}.")
    return apply(ops.COL2IM, (input,), {"output_size": out, **g})


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    """(sum of x ** p over each window) ** (1 / p), through avg_pool1d as PyTorch computes it."""
    out = avg_pool1d(f.pow(input, norm_type), kernel_size, stride, 0, ceil_mode)
    k = kernel_size if isinstance(kernel_size, int) else kernel_size[0]
    return f.pow(f.mul(f.mul(f.sign(out), relu(f.abs(out))), k), 1.0 / norm_type)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    kw, kh = _ntuple(kernel_size, 2)
    out = avg_pool2d(f.pow(input, norm_type), kernel_size, stride, 0, ceil_mode)
    return f.pow(f.mul(f.mul(f.sign(out), relu(f.abs(out))), kw * kh), 1.0 / norm_type)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """Softmax of (logits + Gumbel noise) / tau, the noise -log(Exponential(1)) drawn from the generator as
    PyTorch draws it; hard=True gives the one-hot of the maximum with the soft gradient (straight through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = f.neg(f.log(_creation.empty_like(logits).exponential_()))
    gumbels = f.div(f.add(logits, gumbels), tau)
    y_soft = f.softmax(gumbels, int_dim("softmax", dim, 1))
    if not hard:
        return y_soft
    index = f.max(y_soft, dim, keepdim=True)[1]
    y_hard = _creation.zeros_like(logits).scatter_(dim, index, 1.0)
    return f.add(f.sub(y_hard, f.detach(y_soft)), y_soft)


# --- convolution and pooling ----------------------------------------------------------------
def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2)


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 3)


def _conv_transpose(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
                    output_padding: Any, groups: int, dilation: Any, dims: int) -> Tensor:
    """A transposed convolution (the input gradient of a convolution): ConvolutionBackward0 with
    transposed=True; weight is (in_channels, out_channels / groups, *kernel)."""
    name = f"conv_transpose{dims}d"
    if isinstance(padding, str):
        raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
    x, unbatched = _batched_input(input, dims, name)
    stride, dilation, out_pad = _ntuple(stride, dims), _ntuple(dilation, dims), _ntuple(output_padding, dims)
    _check_output_padding(out_pad, stride, dilation, dims)
    out = _convolution(x, weight, bias, stride, _ntuple(padding, dims), dilation, groups, transposed=True,
                       output_padding=out_pad)
    return f.squeeze(out, 0) if unbatched else out


def _check_output_padding(out_pad: tuple, stride: tuple, dilation: tuple, dims: int) -> None:
    """Each output padding must be smaller than its stride or its dilation (a 1-d one is checked
    as 2-d with a height of 0)."""
    sizes = [(0, 1, 1)] * (2 - dims) + list(zip(*(ops._per_dim(v, dims) for v in (out_pad, stride, dilation))))
    if any(op >= s and op >= d for op, s, d in sizes):
        names = ("depth", "height", "width")[-len(sizes):]
        parts = [f"{kind}_{name}: {sizes[i][k]}" for k, kind in enumerate(("output_padding", "stride", "dilation"))
                 for i, name in enumerate(names)]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got "
                           + " ".join(parts))


def _batched_input(input: Tensor, dims: int, name: str) -> tuple:
    """A convolution's input with a batch dim (unsqueezed when it has none), and whether it had none."""
    shape = input._data.shape
    if len(shape) not in (dims + 1, dims + 2):
        raise RuntimeError(f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input to {name}, but "
                           f"got input of size: {list(shape)}")
    unbatched = len(shape) == dims + 1
    return (f.unsqueeze(input, 0) if unbatched else input), unbatched


def _ntuple(value: Any, n: int) -> tuple:
    """An int repeated n times (PyTorch's int[n] arguments); sequences kept as given."""
    return tuple(int(v) for v in value) if isinstance(value, (tuple, list)) else (int(value),) * n


def _conv(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any, dilation: Any,
          groups: int, dims: int) -> Tensor:
    """conv1d / conv2d / conv3d: an unbatched input is unsqueezed, convolved and squeezed, as in PyTorch."""
    x, unbatched = _batched_input(input, dims, f"conv{dims}d")
    stride, dilation = _ntuple(stride, dims), _ntuple(dilation, dims)
    if isinstance(padding, str):
        out = _conv_padding_mode(x, weight, bias, stride, padding, dilation, groups)
    else:
        out = _convolution(x, weight, bias, stride, _ntuple(padding, dims), dilation, groups)
    return f.squeeze(out, 0) if unbatched else out


_SAME_WARNED: list = []  # PyTorch warns once per process about 'same' with an asymmetric padding


def _conv_padding_mode(input: Tensor, weight: Tensor, bias: Tensor | None, stride: tuple, padding: str,
                       dilation: tuple, groups: int) -> Tensor:
    """padding='valid' (none) or 'same' (the output keeps the input's size; an odd total padding
    puts the extra element after, through a ConstantPadNdBackward0 of the input)."""
    if padding == "valid":
        return _convolution(input, weight, bias, stride, (0,), dilation, groups, output_padding=(0,))
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    kernel = weight._data.shape[2:]
    dil = dilation * len(kernel) if len(dilation) == 1 else dilation
    left = [d * (k - 1) // 2 for d, k in zip(dil, kernel)]
    right = [d * (k - 1) - lo for d, k, lo in zip(dil, kernel, left)]
    if left == right:
        return _convolution(input, weight, bias, stride, tuple(left), dilation, groups)
    if not _SAME_WARNED:
        _SAME_WARNED.append(True)
        warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a "
                      "zero-padded copy of the input be created (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/native/Convolution.cpp:1101.)", UserWarning, stacklevel=4)
    widths: list = []
    for lo, hi in reversed(list(zip(left, right))):  # F.pad's order: last dim first
        widths += [0, hi - lo]
    padded = apply(ops.CONSTANT_PAD_ND, (input,), {"pad": tuple(widths), "value": 0})
    return _convolution(padded, weight, bias, stride, tuple(left), dilation, groups)


def _convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride: tuple, padding: tuple,
                 dilation: tuple, groups: int, transposed: bool = False,
                 output_padding: tuple | None = None) -> Tensor:
    """PyTorch's convolution (ConvolutionBackward0), after its argument checks."""
    w_shape = weight._data.shape
    dims = len(w_shape) - 2
    if dims <= 0:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    output_padding = (0,) * dims if output_padding is None else output_padding
    for name, value in (("stride", stride), ("padding", padding), ("dilation", dilation),
                        ("output_padding", output_padding)):
        if len(value) not in (1, dims):
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {dims} values to "
                               f"match the convolution dimensions, but got {name}={list(value)}")
    _check_conv_shapes(input, weight, bias, stride, padding, dilation, groups, transposed)
    in_dtype, w_dtype = input._data.dtype, weight._data.dtype
    if in_dtype != w_dtype and _onednn(input):
        raise RuntimeError(f"Input type (torch.{_scalar_name(in_dtype)}Tensor) and weight type "
                           f"(torch.{_scalar_name(w_dtype)}Tensor) should be the same or input should be a "
                           "MKLDNN tensor and weight is a dense tensor")
    if in_dtype != w_dtype:
        raise RuntimeError(f"expected scalar type {_scalar_name(in_dtype)} but found {_scalar_name(w_dtype)}")
    if bias is not None and bias._data.dtype != in_dtype:
        raise RuntimeError(f"Input type ({_type_name(in_dtype)}) and bias type "
                           f"({_type_name(bias._data.dtype)}) should be the same")
    attrs = {"stride": stride, "padding": padding, "dilation": dilation, "transposed": transposed,
             "output_padding": output_padding, "groups": groups,
             "bias_sym_sizes_opt": (0,) if bias is None else bias._data.shape}
    return apply(ops.CONVOLUTION, (input, weight, bias), attrs)


def _check_conv_shapes(input: Tensor, weight: Tensor, bias: Tensor | None, stride: tuple, padding: tuple,
                       dilation: tuple, groups: int, transposed: bool) -> None:
    """PyTorch's check_shape_forward for a convolution."""
    shape, w_shape = input._data.shape, list(weight._data.shape)
    dims = len(w_shape) - 2
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        if _onednn(input):
            raise RuntimeError("non-positive dilation is not supported")
        raise RuntimeError("dilation should be greater than zero, but got "
                           f"{list(ops._per_dim(dilation, dims))}")
    if len(w_shape) != len(shape):
        raise RuntimeError(f"Expected {len(w_shape)}-dimensional input for {len(w_shape)}-dimensional weight "
                           f"{w_shape}, but got {len(shape)}-dimensional input of size {list(shape)} instead")
    if w_shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, "
                           f"but got weight of size {w_shape} instead")
    if w_shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension "
                           f"0, but got weight of size [{w_shape}] instead")
    if transposed:
        _check_transposed_shapes(shape, w_shape, bias, groups)
        return
    if shape[1] != w_shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {w_shape}, expected input{list(shape)} to "
                           f"have {w_shape[1] * groups} channels, but got {shape[1]} channels instead")
    if bias is not None and (bias._data.ndim != 1 or bias._data.shape[0] != w_shape[0]):
        raise RuntimeError(f"Given weight of size {w_shape}, expected bias to be 1-dimensional with "
                           f"{w_shape[0]} elements, but got bias of size {list(bias._data.shape)} instead")
    padded = [s + 2 * p for s, p in zip(shape[2:], ops._per_dim(padding, dims))]
    kernel = [d * (k - 1) + 1 for d, k in zip(ops._per_dim(dilation, dims), w_shape[2:])]
    if any(p < k for p, k in zip(padded, kernel)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
                           f"Kernel size: ({' x '.join(map(str, kernel))}). Kernel size can't be greater "
                           "than actual input size")


def _check_transposed_shapes(shape: tuple, w_shape: list, bias: Tensor | None, groups: int) -> None:
    if shape[1] != w_shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {w_shape}, expected input{list(shape)} to "
                           f"have {w_shape[0]} channels, but got {shape[1]} channels instead")
    if bias is not None and (bias._data.ndim != 1 or bias._data.shape[0] != w_shape[1] * groups):
        raise RuntimeError(f"Given transposed=1, weight of size {w_shape}, expected bias to be 1-dimensional "
                           f"with {w_shape[1] * groups} elements, but got bias of size "
                           f"{list(bias._data.shape)} instead")


def _onednn(input: Tensor) -> bool:
    """Whether PyTorch's CPU build runs this convolution with oneDNN (float32, batch > 1): some of
    its messages differ there."""
    return input._data.dtype == np.float32 and input._data.shape[0] > 1


def _scalar_name(dtype: np.dtype) -> str:
    """PyTorch's ScalarType name of a dtype: Float, Double, Long..."""
    from engine import dtypes

    return dtypes.from_numpy(dtype).legacy


def _type_name(dtype: np.dtype) -> str:
    """The C++ type name PyTorch's messages show for a dtype: float, double, long int..."""
    from engine import dtypes

    return dtypes.from_numpy(dtype).cpp


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """Window maxima (MaxPool2DWithIndicesBackward0); with return_indices, (values, indices)."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 2)


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """Window maxima (MaxPool3DWithIndicesBackward0); with return_indices, (values, indices)."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 3)


def _max_pool(input: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any, ceil_mode: bool,
              return_indices: bool, dims: int) -> Any:
    name = f"max_pool{dims}d"
    kernel, stride = _ntuple(kernel_size, dims), () if stride is None else _ntuple(stride, dims)
    padding, dilation = _ntuple(padding, dims), _ntuple(dilation, dims)
    _check_pool_args(name, dims, kernel_size=kernel, stride=stride, padding=padding, dilation=dilation)
    if input._data.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(f"non-empty {dims + 1}D or {dims + 2}D (batch mode) tensor expected for input")
    _check_pool(input, kernel, stride, padding, dilation, ceil_mode, f"{name}_with_indices_out_cpu_template()")
    attrs = {"kernel_size": kernel, "stride": stride, "padding": padding, "dilation": dilation,
             "ceil_mode": ceil_mode}
    values, indices = apply(ops.MAX_POOL3D if dims == 3 else ops.MAX_POOL2D, (input,), attrs)
    return (values, indices) if return_indices else values


def max_pool2d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = True) -> tuple:
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def max_pool3d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = True) -> tuple:
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """Window means (AvgPool2DBackward0)."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 2)


def avg_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """Window means (AvgPool3DBackward0)."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 3)


def _avg_pool(input: Tensor, kernel_size: Any, stride: Any, padding: Any, ceil_mode: bool, count_include_pad: bool,
              divisor_override: int | None, dims: int) -> Tensor:
    name = f"avg_pool{dims}d"
    kernel, stride = _ntuple(kernel_size, dims), () if stride is None else _ntuple(stride, dims)
    padding = _ntuple(padding, dims)
    _check_pool_args(name, dims, kernel_size=kernel, stride=stride, padding=padding)
    if dims == 3 and input._data.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    f._wrap_dim(-3, input._data.ndim)  # PyTorch reads size(-3): an IndexError for fewer dims
    _check_pool(input, kernel, stride, padding, (1,) * dims, ceil_mode, f"{name}()")
    attrs = {"kernel_size": kernel, "stride": stride, "padding": padding, "ceil_mode": ceil_mode,
             "count_include_pad": count_include_pad, "divisor_override": divisor_override}
    return apply(ops.AVG_POOL3D if dims == 3 else ops.AVG_POOL2D, (input,), attrs)


_POOL_ARG_RULES = {"stride": "must either be omitted, a single int, or a tuple of {} ints",
                   "dilation": "must be either a single int, or a tuple of {} ints"}


def _check_pool_args(op: str, dims: int, **values: tuple) -> None:
    """PyTorch's check that each pooling argument has one or dims entries (stride may have none);
    avg_pool3d words its messages without 'either'."""
    count = {2: "two", 3: "three"}[dims]
    for name, value in values.items():
        if len(value) not in ((0, 1, dims) if name == "stride" else (1, dims)):
            rule = _POOL_ARG_RULES.get(name, "must either be a single int, or a tuple of {} ints")
            if op == "avg_pool3d":
                rule = rule.replace("either ", "")
            raise RuntimeError(f"{op}: {name} {rule.format(count)}")


def _check_pool(input: Tensor, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple,
                ceil_mode: bool, fn_name: str) -> None:
    """PyTorch's pooling_output_shape and pool2d_shape_check / pool3d_shape_check, in their order."""
    shape = input._data.shape
    dims = len(dilation)
    kernel, padding = ops._per_dim(kernel, dims), ops._per_dim(padding, dims)
    stride, dilation = ops._per_dim(stride or kernel, dims), ops._per_dim(dilation, dims)
    labels = ("T", "H", "W")[-dims:]
    sizes = []
    for size, k, s, p, d in zip(shape[-dims:], kernel, stride, padding, dilation):
        if s == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > ((k - 1) * d + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={k} and dilation={d}")
        sizes.append(conv.pool_out_size(size, k, s, p, d, ceil_mode))
    for values, what, prefix in ((kernel, "kernel size", "k"), (stride, "stride", "d"),
                                 (dilation, "dilation", "dilation")):
        if any(v <= 0 for v in values):
            got = " ".join(f"{prefix}{label}: {v}" for label, v in zip(labels, values))
            raise RuntimeError(f"{what} should be greater than zero, but got {got}")
    if dims == 2 and 0 in shape[-3:]:
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
                           f"but got:{list(shape)}")
    if dims == 3 and 0 in shape[len(shape) - 4:]:  # PyTorch's message names dimension 0 whichever it is
        raise RuntimeError(f"{fn_name}: Expected input's non-batch dimensions to have positive length, but "
                           f"input has a shape of {list(shape)} and non-batch dimension 0 has length zero!")
    if dims == 3 and fn_name == "avg_pool3d()" and any(s < k for s, k in zip(shape[-3:], kernel)):
        raise RuntimeError("input image (T: {} H: {} W: {}) smaller than kernel size (kT: {} kH: {} kW: {})"
                           .format(*shape[-3:], *kernel))
    if any(k // 2 < p for k, p in zip(kernel, padding)):
        if dims == 2:
            (kh, kw), (ph, pw) = kernel, padding
            raise RuntimeError("pad should be smaller than or equal to half of kernel size, but got padW = "
                               f"{pw}, padH = {ph}, kW = {kw}, kH = {kh}")
        (kt, kh, kw), (pt, ph, pw) = kernel, padding
        raise RuntimeError("pad should be smaller than or equal to half of kernel size, but got "
                           f"kT: {kt} kW: {kw} kH: {kh} padT: {pt} padW: {pw} padH: {ph}")
    if any(size < 1 for size in sizes):
        planes = shape[-dims - 1]
        given = "x".join(str(v) for v in (planes,) + tuple(shape[-dims:]))
        calculated = "x".join(str(v) for v in [planes] + sizes)
        raise RuntimeError(f"Given input size: ({given}). Calculated output size: ({calculated}). Output size "
                           "is too small")


@one_int_dim("cosine_similarity", 2)
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """<x1, x2> / (|x1| |x2|), each divided by its norm first (norms clamped at eps without a gradient)."""
    if x1._data.shape != x2._data.shape:
        x1, x2 = f.broadcast_tensors(x1, x2)
    norms = []
    for x in (x1, x2):
        norm = f.clone(f.norm(x, 2, dim, keepdim=True))
        with grad_mode.no_grad():
            norm.clamp_min_(eps)
        norms.append(norm)
    return f.sum(f.mul(f.div(x1, norms[0]), f.div(x2, norms[1])), dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """The p-norm of x1 - x2 + eps over the last dim (NormBackward1)."""
    dim = max(x1._data.ndim, x2._data.ndim) - 1
    diff = apply(ops.ADD_SCALAR, (f.sub(x1, x2),), {"other": eps})
    return apply(ops.NORM_DIM, (diff,), {"p": p, "dim": (dim,), "keepdim": keepdim})


# --- losses ----------------------------------------------------------------------------------
def _broadcast_pair(input: Tensor, target: Tensor) -> tuple:
    if input._data.shape == target._data.shape:
        return input, target
    problem = messages.broadcast_mismatch(input._data.shape, target._data.shape)
    if problem:
        raise RuntimeError(problem)
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
    loss_checks.pointwise_kernel("mse_cpu", a, b)
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
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    loss_checks.pointwise_kernel("smooth_l1_cpu", a, b)
    r = _reduction(reduction, size_average, reduce)
    if beta == 0.0:
        return l1_loss(a, b, reduction=reduction)
    return apply(ops.SMOOTH_L1_LOSS, (a, b), {"reduction": r, "beta": beta})


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Any = None) -> Tensor:
    _warn_size(input, target)
    a, b = _broadcast_pair(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    loss_checks.pointwise_kernel("huber_cpu", a, b)
    return apply(ops.HUBER_LOSS, (a, b), {"reduction": _reduction(reduction), "delta": delta})


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
             ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    loss_checks.nll_target(input, target, weight, ignore_index)
    t = target._data
    if input._data.ndim == 1:
        t = t.reshape(())  # a 1-d input takes a 0-d or size-1 target and gives a 0-d loss
    w = None if weight is None else weight._data
    _, total = ops._nll(input._data, t, w, r, ignore_index)
    attrs = {"target": t, "weight": w, "reduction": r, "ignore_index": ignore_index, "total_weight": total}
    return apply(ops.NLL_LOSS, (input,), attrs)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
                  ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    class_dim = 0 if input._data.ndim == 1 else 1
    r = _reduction(reduction, size_average, reduce)
    if target._data.shape == input._data.shape:
        # class probabilities as targets (a target of another shape holds class indices)
        loss_checks.class_probabilities(input, target, weight, ignore_index)
    elif label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    loss_checks.log_softmax_kernel(input, class_dim)
    logp = f.log_softmax(input, class_dim)
    if target._data.shape == input._data.shape:
        classes = input._data.shape[class_dim]
        t = target
        if label_smoothing > 0:
            t = f.add(f.mul(target, 1 - label_smoothing), label_smoothing / classes)
        terms = f.mul(logp, t) if weight is None else f.mul(f.mul(logp, t), _class_view(weight, input))
        if r == 0:
            return f.neg(f.sum(terms, class_dim))
        loss = f.neg(f.sum(terms))  # PyTorch negates the sum over all elements
        if r == 1:  # a division by a number (div.Scalar: DivBackward1), as in PyTorch
            count = input._data.size // classes if input._data.ndim > 1 else 1
            return apply(ops.DIV_SCALAR, (loss,), {"other": count})
        return loss
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
    loss_checks.bce_target(input, target, weight)
    data = input._data
    if data.size and not ((data >= 0) & (data <= 1)).all():  # NaN too
        raise RuntimeError("all elements of input should be between 0 and 1")
    t = target._data
    if t.size and not ((t >= 0) & (t <= 1)).all():
        raise RuntimeError("all elements of target should be between 0 and 1")
    w = None if weight is None else np.broadcast_to(weight._data, data.shape)
    return apply(ops.BCE, (input, target), {"weight": w, "reduction": _reduction(reduction, size_average, reduce)})


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average: Any = None, reduce: Any = None,
                                     reduction: str = "mean", pos_weight: Tensor | None = None) -> Tensor:
    loss_checks.bce_logits_target(input, target, weight, pos_weight)
    attrs = {
        "weight": None if weight is None else weight._data,
        "pos_weight": None if pos_weight is None else pos_weight._data,
        "reduction": _reduction(reduction, size_average, reduce),
    }
    return apply(ops.BCE_LOGITS, (input, target), attrs)


def kl_div(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    r = reduction
    if size_average is None and reduce is None and r == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
            "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
            stacklevel=2,
        )
    loss_checks.kl_div_inputs(input, target)
    if log_target:
        loss = f.mul(f.exp(target), f.sub(target, input))
    else:
        loss = f.sub(f.xlogy(target, target), f.mul(target, input))  # 0 where target is 0, as PyTorch
    if r == "mean":
        return f.mean(loss)
    if r == "batchmean":
        return f.div(f.sum(loss), input._data.shape[0])
    return f.sum(loss) if r == "sum" else loss



# --- more activations, normalization, dropout, pooling ------------------------------------------------------
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """max(0, x) + weight * min(0, x), weight per channel (dim 1) or shared (_prelu_kernel)."""
    if input._data.dtype != weight._data.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {input.dtype.legacy} and "
                           f"{weight.dtype.legacy}")
    ndim = input._data.ndim
    if weight._data.size != 1:
        if not ndim:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input._data.shape[1] if ndim > 1 else 1
        if channels != weight._data.size:
            raise RuntimeError("Mismatch of parameter numbers and input channel size. Found parameter "
                               f"numbers = {weight._data.size} and channel size = {channels}.")
    if weight._data.ndim > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = "
                           f"{weight._data.ndim}")
    if ndim != weight._data.ndim:
        shape = [1] * ndim
        if ndim > 1:
            shape[1] = weight._data.size
        weight = f.reshape(weight, shape)
    return apply(ops.PRELU, (input, weight))


def _shrink(rule: Any, input: Tensor, lambd: float) -> Tensor:
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    return apply(rule, (input,), {"lambd": lambd})


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return _shrink(ops.SOFTSHRINK, input, lambd)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return _shrink(ops.HARDSHRINK, input, lambd)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalizes each group of channels of each sample (NativeGroupNormBackward0)."""
    shape = input._data.shape
    if len(shape) < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {len(shape)}")
    n, c = shape[0], shape[1]
    if c % num_groups:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, but got "
                           f"input of shape {list(shape)} and num_groups={num_groups}")
    per_group = (n * c // num_groups, num_groups) + shape[2:]
    if math.prod(per_group[2:]) * per_group[0] == 1 or math.prod(per_group) // num_groups == 1:
        raise ValueError("Expected more than 1 value per channel when training, got input size "
                         f"{Size(per_group)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t._data.ndim != 1 or t._data.size != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in "
                               f"input, but got {name} of shape {list(t._data.shape)} and input of shape "
                               f"{list(shape)}")
    attrs = {"N": n, "C": c, "HxW": math.prod(shape[2:]), "group": num_groups, "eps": eps}
    return apply(ops.GROUP_NORM, (input, weight, bias), attrs)[0]


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool) -> Tensor:
    """Zeroes whole channels: one Bernoulli draw per (sample, channel), scaled by 1 / (1 - p)."""
    if not training or p == 0.0 or not input._data.size:
        return input
    if p == 1.0:
        zero = Tensor._make(np.zeros((), input._data.dtype))
        return f._inplace(input, ops.MUL, (zero,)) if inplace else f.mul(input, zero)
    from engine.creation import bernoulli_draw

    shape = input._data.shape[:2] + (1,) * (input._data.ndim - 2)
    keep = bernoulli_draw(shape, 1 - p, input._data.dtype)
    noise = Tensor._make((keep / input._data.dtype.type(1 - p)).astype(input._data.dtype))
    return f._inplace(input, ops.MUL, (noise,)) if inplace else f.mul(input, noise)


def _check_dropout_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    _check_dropout_p(p)
    ndim = input._data.ndim
    if ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {ndim}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
                           "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
                           "inputs).")
    if ndim == 2:
        x = f.unsqueeze_(input, 0) if inplace else f.unsqueeze(input, 0)
        out = _feature_dropout(x, p, training, inplace)
        return f.squeeze_(out, 0) if inplace else f.squeeze(out, 0)
    return _feature_dropout(input, p, training, inplace)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    _check_dropout_p(p)
    ndim = input._data.ndim
    if ndim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {ndim}-D input to dropout2d, which is deprecated and will "
                      "result in an error in a future release. To retain the behavior and silence this "
                      "warning, please use dropout instead. Note that dropout2d exists to provide "
                      "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, and "
                      "an optional batch dimension (i.e. 3D or 4D inputs).", stacklevel=2)
    if ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
                      "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
                      "the channel dim. This behavior will change in a future release to interpret the "
                      "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
                      "channel-wise dropout behavior, please switch to using dropout1d "
                      "instead.", stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


_SELU_ALPHA = 1.7580993408473766  # -selu's scale * alpha: where alpha dropout sends dropped units


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool, feature: bool) -> Tensor:
    """PyTorch's _dropout_impl with alpha=True: x * (a * keep) + (alpha * a * (keep - 1) + alpha * a * p),
    a = 1 / sqrt((alpha² p + 1)(1 - p)), keeping mean and variance (MulBackward0 then AddBackward0);
    `feature` draws one keep per (sample, channel)."""
    _check_dropout_p(p)
    data = input._data
    if p == 0 or not training or not data.size:
        return input
    if p == 1:
        zero = Tensor._make(np.zeros((), data.dtype))
        return f._inplace(input, ops.MUL, (zero,)) if inplace else f.mul(input, zero)
    if feature and data.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    from engine.creation import bernoulli_draw

    shape = data.shape[:2] + (1,) * (data.ndim - 2) if feature else data.shape
    keep = bernoulli_draw(shape, 1 - p, data.dtype)
    t = data.dtype.type
    a = 1.0 / math.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
    b = Tensor._make((keep + t(-1)) * t(_SELU_ALPHA * a) + t(_SELU_ALPHA * a * p))
    noise = Tensor._make(keep * t(a))
    if inplace:
        return f._inplace(f._inplace(input, ops.MUL, (noise,)), ops.ADD, (b,))
    return f._inplace(f.mul(input, noise), ops.ADD, (b,))


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    return _alpha_dropout(input, p, training, inplace, feature=False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:
    return _alpha_dropout(input, p, training, inplace, feature=True)


# torch.dropout, torch.alpha_dropout...: the functions F's dropouts call, with `train` required
def _vf_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return dropout(input, p, train)


def _vf_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return dropout(input, p, train, inplace=True)


def _vf_feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return _feature_dropout(input, p, train, False)


def _vf_feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return _feature_dropout(input, p, train, True)


def _vf_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return _alpha_dropout(input, p, train, False, feature=False)


def _vf_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return _alpha_dropout(input, p, train, True, feature=False)


def _vf_feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return _alpha_dropout(input, p, train, False, feature=True)


def _vf_feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return _alpha_dropout(input, p, train, True, feature=True)


def _pool1d_args(name: str, input: Tensor, kernel_size: Any, stride: Any, padding: Any) -> tuple:
    if input._data.ndim not in (2, 3):
        raise RuntimeError(f"{name}() Expected 2D or 3D input tensor, but got {list(input._data.shape)}")
    kernel = _ntuple(kernel_size, 1)
    stride = kernel if stride is None or stride == () or stride == [] else _ntuple(stride, 1)
    return (1, kernel[0]), (1, stride[0]), (0, _ntuple(padding, 1)[0])


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """max_pool2d over the input unsqueezed at -2, squeezed back (as PyTorch records it)."""
    kernel, stride, padding = _pool1d_args("max_pool1d", input, kernel_size, stride, padding)
    dilation = (1, _ntuple(dilation, 1)[0])
    values, indices = max_pool2d(f.unsqueeze(input, -2), kernel, stride, padding, dilation, ceil_mode,
                                 return_indices=True)
    values = f.squeeze(values, -2)
    return (values, f.squeeze(indices, -2)) if return_indices else values


def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = True) -> tuple:
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    kernel, stride, padding = _pool1d_args("avg_pool1d", input, kernel_size, stride, padding)
    return f.squeeze(avg_pool2d(f.unsqueeze(input, -2), kernel, stride, padding, ceil_mode,
                                count_include_pad), -2)


def _adaptive_size(output_size: Any, input: Tensor, dims: int) -> tuple:
    """output_size with one entry per spatial dim (None keeps the input's size)."""
    sizes = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * dims
    spatial = input._data.shape[-dims:]
    return tuple(spatial[i] if v is None else int(v) for i, v in enumerate(sizes))


def _check_adaptive(name: str, input: Tensor, out: tuple) -> None:
    dims = len(out)
    if input._data.ndim not in (dims + 1, dims + 2):
        colon = ":" if name != "adaptive_avg_pool3d" else ""
        raise RuntimeError(f"{name}(): Expected {dims + 1}D or {dims + 2}D tensor, but got{colon} "
                           f"{list(input._data.shape)}")
    for d in range(1, input._data.ndim):
        if input._data.shape[d] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, "
                               f"but input has sizes {list(input._data.shape)} with dimension {d} being "
                               "empty")


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """The mean of each of output_size windows; a mean over the last two dims for a 1x1 output."""
    return _adaptive_avg_pool(input, output_size, 2)


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """The mean of each of output_size windows; a mean over the last three dims for a 1x1x1 output."""
    return _adaptive_avg_pool(input, output_size, 3)


def _adaptive_avg_pool(input: Tensor, output_size: Any, dims: int) -> Tensor:
    name = f"adaptive_avg_pool{dims}d"
    out = _adaptive_size(output_size, input, dims)
    if len(out) != dims:
        raise RuntimeError(f"{name}: output_size must be {dims}")
    if out == (1,) * dims:
        return f.mean(input, tuple(range(-1, -dims - 1, -1)), keepdim=True)
    _check_adaptive(name, input, out)
    return apply(ops.ADAPTIVE_AVG_POOL3D if dims == 3 else ops.ADAPTIVE_AVG_POOL2D, (input,), {"output_size": out})


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    if input._data.ndim not in (2, 3):
        raise RuntimeError("adaptive_avg_pool1d() argument 'input' must be 2D or 3D, but got "
                           f"{input._data.ndim}D")
    return f.squeeze(adaptive_avg_pool2d(f.unsqueeze(input, -2), (1, _ntuple(output_size, 1)[0])), -2)


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    return _adaptive_max_pool(input, output_size, return_indices, 2)


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    return _adaptive_max_pool(input, output_size, return_indices, 3)


def _adaptive_max_pool(input: Tensor, output_size: Any, return_indices: bool, dims: int) -> Any:
    name = f"adaptive_max_pool{dims}d"
    out = _adaptive_size(output_size, input, dims)
    if len(out) != dims:
        raise RuntimeError(f"{name}(): internal error: output_size.size() must be {dims}")
    _check_adaptive(name, input, out)
    rule = ops.ADAPTIVE_MAX_POOL3D if dims == 3 else ops.ADAPTIVE_MAX_POOL2D
    values, indices = apply(rule, (input,), {"output_size": out})
    return (values, indices) if return_indices else values


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: Any, return_indices: bool = True) -> tuple:
    return adaptive_max_pool2d(input, output_size, return_indices=True)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: Any, return_indices: bool = True) -> tuple:
    return adaptive_max_pool3d(input, output_size, return_indices=True)


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    values, indices = adaptive_max_pool2d(f.unsqueeze(input, -2), (1, _ntuple(output_size, 1)[0]), True)
    values = f.squeeze(values, -2)
    return (values, f.squeeze(indices, -2)) if return_indices else values


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """x1ᵀ W x2 + b for each output feature (_trilinear over the flattened inputs, reshaped back)."""
    if input1._data.ndim != input2._data.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1._data.ndim} and "
                           f"{input2._data.ndim}")
    for a, b in zip(input1._data.shape[:-1], input2._data.shape[:-1]):
        if a != b:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {a} and {b}")
    w = weight._data.shape
    for k, x in ((1, input1), (2, input2)):
        if x._data.shape[-1] != w[k]:
            raise RuntimeError(f"bilinear(): input{k} size does not match weight size: got "
                               f"{x._data.shape[-1]} but expected {w[k]}")
    if bias is not None and bias._data.shape[0] != w[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias._data.shape[0]} but "
                           f"expected {w[0]}")
    flat1 = f.reshape(input1, -1, input1._data.shape[-1])
    flat2 = f.reshape(input2, -1, input2._data.shape[-1])
    attrs = {"expand1": (1, 3), "expand2": (0,), "expand3": (1, 2), "sumdim": (2, 3)}
    out = f.reshape(apply(ops.TRILINEAR, (flat1, weight, flat2), attrs), *(input1._data.shape[:-1] + (w[0],)))
    return out if bias is None else f.add(out, bias)


# --- interpolation ----------------------------------------------------------------------------------------
_INTERPOLATE_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_UPSAMPLE_OPS = {(3, "nearest"): ops.UPSAMPLE_NEAREST1D, (4, "nearest"): ops.UPSAMPLE_NEAREST2D,
                 (3, "nearest-exact"): ops.UPSAMPLE_NEAREST_EXACT1D,
                 (4, "nearest-exact"): ops.UPSAMPLE_NEAREST_EXACT2D,
                 (3, "linear"): ops.UPSAMPLE_LINEAR1D, (4, "bilinear"): ops.UPSAMPLE_BILINEAR2D,
                 (4, "bicubic"): ops.UPSAMPLE_BICUBIC2D, (5, "nearest"): ops.UPSAMPLE_NEAREST3D,
                 (5, "nearest-exact"): ops.UPSAMPLE_NEAREST_EXACT3D, (5, "trilinear"): ops.UPSAMPLE_TRILINEAR3D}
_MODE_DIMS = {"linear": 3, "bilinear": 4, "trilinear": 5}


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:
    """Resamples the spatial dims of a 3-d, 4-d or 5-d input to `size` (or `size` * scale_factor, floored)
    as torch's interpolate does: upsample_nearest1d (UpsampleNearest1DBackward0), upsample_linear1d,
    upsample_bilinear2d, upsample_bicubic2d, upsample_trilinear3d, the nearest and nearest-exact forms;
    adaptive average pooling for 'area'."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    ndim = input._data.ndim
    dim = ndim - 2
    spatial = list(input._data.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError("Input and output must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {spatial} and output size of {size}. Please "
                                 "provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, "
                                 "o2, ...,oK) format.")
            if not all(isinstance(x, int) or (isinstance(x, Tensor) and x.dim() == 0
                                              and not x.is_floating_point()) for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, "
                                f"int, int], but got size with types {[type(x) for x in size]}")
            output_size = [int(x) for x in size]
        else:
            output_size = [int(size)] * dim
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {spatial} and scale_factor of shape "
                                 f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                                 "and scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = [float(s) for s in scale_factor]
        else:
            scale_factors = [float(scale_factor)] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [int(s * f) for s, f in zip(spatial, scale_factors)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires "
                         "a 4-D tensor as input")
    if mode == "area" and ndim in (3, 4, 5):
        pool = {3: adaptive_avg_pool1d, 4: adaptive_avg_pool2d, 5: adaptive_avg_pool3d}[ndim]
        return pool(input, output_size)
    rule = _UPSAMPLE_OPS.get((ndim, mode))
    if rule is None or antialias:
        wanted = _MODE_DIMS.get(mode)
        if wanted is not None and ndim in (3, 4, 5) and ndim != wanted:
            raise NotImplementedError(f"Got {ndim}D input, but {mode} mode needs {wanted}D input")
        if antialias or (ndim == 4 and mode == "lanczos"):
            raise NotImplementedError(f"interpolate with mode={mode!r}{' and antialias' if antialias else ''} "
                                      f"is not supported for {ndim}D input")
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {ndim}D) for the "
                                  f"modes: {_INTERPOLATE_MODES} (got {mode})")
    if output_size is None:
        output_size = [math.floor(s * f) for s, f in zip(spatial, scale_factors)]
    _check_upsample(input, output_size, rule)
    attrs: dict = {"output_size": tuple(output_size)}
    scales = scale_factors or [None] * dim
    attrs.update(zip(ops._SCALE_NAMES[dim], scales))
    if mode not in ("nearest", "nearest-exact"):
        attrs["align_corners"] = align_corners
    return apply(rule, (input,), attrs)


def _check_upsample(input: Tensor, output_size: list, rule: Any) -> None:
    """upsample_1d/2d/3d_common_check, the dtypes the CPU kernels take, and their non-empty input check."""
    shape = input._data.shape
    names = ("D", "H", "W")[-len(output_size):]
    if any(s <= 0 for s in shape[2:]) or any(o <= 0 for o in output_size):
        given = ", ".join(f"{n}: {s}" for n, s in zip(names, shape[2:]))
        wanted = ", ".join(f"{n}: {o}" for n, o in zip(names, output_size))
        joint = " and output" if len(names) == 1 else " output"
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({given}){joint} "
                           f"({wanted})")
    if 0 in shape[1:]:
        raise RuntimeError(f"Non-empty {len(shape)}D data tensor expected but got a tensor with sizes {list(shape)}")
    kind = input._data.dtype
    nearest = rule.name.startswith("upsample_nearest")
    if kind.kind != "f" and not (kind == np.uint8 and (nearest or len(names) == 2)):
        if len(names) != 2:
            kernel = "compute_indices_weights_nearest" if nearest else "compute_indices_weights_linear"
        else:
            kernel = {"upsample_bilinear2d": "upsample_bilinear2d_channels_last",
                      "upsample_bicubic2d": "compute_indices_weights_cubic"}.get(
                rule.name, "upsample_nearest2d_channels_last")
        raise NotImplementedError(f'"{kernel}" not implemented for \'{input.dtype.legacy}\'')


def upsample(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# --- more losses -------------------------------------------------------------------------------------------
def _reduced(loss: Tensor, reduction: int) -> Tensor:
    """apply_loss_reduction: mean, sum or the elementwise losses."""
    return f.mean(loss) if reduction == 1 else (f.sum(loss) if reduction == 2 else loss)


def _sub_scalar(t: Tensor, value: float) -> Tensor:
    return apply(ops.SUB_SCALAR, (t,), {"other": value})


def _add_scalar(t: Tensor, value: float) -> Tensor:
    return apply(ops.ADD_SCALAR, (t,), {"other": value})


def _rsub_scalar(value: float, t: Tensor) -> Tensor:
    """`value - t` as PyTorch's C++ records it: a filled tensor minus t (SubBackward0)."""
    return f.sub(Tensor._make(np.full(t._data.shape, value, t._data.dtype)), t)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        size_average: Any = None,
                        reduce: Any = None, reduction: str = "mean") -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    dims = {input1._data.ndim, input2._data.ndim, target._data.ndim}
    if len(dims) != 1:
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension but got "
                           f"sizes: input1: {Size(input1._data.shape)}, input2: {Size(input2._data.shape)}, "
                           f"target: {Size(target._data.shape)} ")
    loss = _add_scalar(f.mul(f.neg(target), f.sub(input1, input2)), margin).clamp_min_(0)
    return _reduced(loss, r)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average: Any = None,
                         reduce: Any = None, reduction: str = "mean") -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    zeros = f.zeros_like(input)
    margin_clamp = _rsub_scalar(margin, input).clamp_min_(0)
    output_margin = f.where(f._constant(target._data != 1), margin_clamp, zeros)
    output_self = f.where(f._constant(target._data != -1), input, zeros)
    return _reduced(f.add(output_margin, output_self), r)


def _check_no_requires_grad(fn: str, **args: Tensor | None) -> None:
    """PyTorch's error for arguments its kernel cannot differentiate that require grad."""
    for name, t in args.items():
        if t is not None and t.requires_grad and grad_mode.state.enabled:
            raise RuntimeError(messages.NOT_DIFFERENTIABLE.format(fn=fn, arg=name))


def soft_margin_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    _check_no_requires_grad("soft_margin_loss", target=target)
    if target._data.shape != input._data.shape:
        raise ValueError(f"Using a target size ({Size(target._data.shape)}) that is different to the input "
                         f"size ({Size(input._data.shape)}) is deprecated. Please ensure they have the same "
                         "size.")
    r = _reduction(reduction, size_average, reduce)
    return apply(ops.SOFT_MARGIN_LOSS, (input,), {"target": target._data.astype(input._data.dtype),
                                                  "reduction": r})


_EPSILON = 1e-12


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """1 - cos(x1, x2) where target is 1, max(0, cos - margin) where it is -1."""
    r = _reduction(reduction, size_average, reduce)
    tdim = target._data.ndim
    if tdim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    wanted = 2 if tdim == 1 else 1
    if input1._data.ndim != wanted or input2._data.ndim != wanted:
        raise RuntimeError(f"{tdim}D target tensor expects {wanted}D input tensors, but found inputs with "
                           f"sizes {list(input1._data.shape)} and {list(input2._data.shape)}.")
    prod_sum = f.sum(f.mul(input1, input2), tdim)
    mag1 = _add_scalar(f.sum(f.mul(input1, input1), tdim), _EPSILON)
    mag2 = _add_scalar(f.sum(f.mul(input2, input2), tdim), _EPSILON)
    denom = f.mul(mag1, mag2).sqrt_()
    cos = f.div(prod_sum, denom)
    zeros = f.zeros_like(cos)
    pos = _rsub_scalar(1.0, cos)
    neg = _sub_scalar(cos, margin).clamp_min_(0)
    output_pos = f.where(f._constant(target._data == 1), pos, zeros)
    output_neg = f.where(f._constant(target._data == -1), neg, zeros)
    return _reduced(f.add(output_pos, output_neg), r)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    dims = (anchor._data.ndim, positive._data.ndim, negative._data.ndim)
    if len(set(dims)) != 1:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the same "
                           f"number of dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and "
                           f"negative {dims[2]}D inputs")
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = f.minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    loss = f.clamp_min(f.sub(_add_scalar(dist_pos, margin), dist_neg), 0)
    return _reduced(loss, r)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average: Any = None, eps: float = 1e-8, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    if log_input:
        loss = f.sub(f.exp(input), f.mul(target, input))
    else:
        loss = f.sub(input, f.mul(target, f.log(_add_scalar(input, eps))))
    if full:
        t = target._data
        stirling = t * np.log(t) - t + 0.5 * np.log(2 * math.pi * t)
        stirling = np.where(t <= 1, 0, stirling).astype(t.dtype)
        loss = f._inplace(loss, ops.ADD, (Tensor._make(stirling),))
    return _reduced(loss, r)


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Any, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """0.5 * (log(var) + (input - target)² / var), var clamped at eps without a gradient."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = f.mul(f.ones_like(input), var)
    elif (var._data < 0).any():
        raise ValueError("var has negative entry/entries")
    if var._data.shape != input._data.shape:
        if input._data.shape[:-1] == var._data.shape:
            var = f.unsqueeze(var, -1)
        elif not (input._data.ndim == var._data.ndim and sum(
                y for x, y in zip(input._data.shape, var._data.shape) if x != y) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = f.clone(var)
    with grad_mode.no_grad():
        var.clamp_(min=eps)
    loss = f.mul(f.add(f.log(var), f.div(f.pow(f.sub(input, target), 2), var)), 0.5)
    if full:
        loss = f._inplace(loss, ops.ADD, (0.5 * math.log(2 * math.pi),))
    return f.mean(loss) if reduction == "mean" else (f.sum(loss) if reduction == "sum" else loss)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                size_average: Any = None, reduce: Any = None,
                                reduction: str = "mean") -> Tensor:
    if size_average is not None or reduce is not None:
        reduction = {0: "none", 1: "mean", 2: "sum"}[_reduction(reduction, size_average, reduce)]
    loss = f.neg(f.add(f.mul(target, logsigmoid(input)), f.mul(f.rsub(target, 1), logsigmoid(f.neg(input)))))
    if weight is not None:
        loss = f.mul(loss, weight)
    class_dim = input._data.ndim - 1
    loss = f.div(f.sum(loss, class_dim), input._data.shape[class_dim])
    if reduction == "none":
        return loss
    if reduction == "mean":
        return f.mean(loss)
    if reduction == "sum":
        return f.sum(loss)
    raise ValueError(reduction + " is not valid")


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,
                      weight: Tensor | None = None,
                      size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight._data.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    classes = input._data.shape[-1] if input._data.ndim else 1
    t = target._data
    if t.size and (t.min() < 0 or t.max() >= classes):
        raise RuntimeError("target out of range")
    _check_no_requires_grad("multi_margin_loss", weight=weight)
    attrs = {"target": t.astype(np.int64), "p": p, "margin": margin,
             "weight": None if weight is None else weight._data, "reduction": r}
    return apply(ops.MULTI_MARGIN_LOSS, (input,), attrs)

def rms_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """PyTorch's composite rms_norm: input * rsqrt(mean(input², last dims) + eps) (in float32 for half
    types), times weight; eps defaults to the computing dtype's machine epsilon."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    got = input._data.shape
    if len(shape) > len(got) or got[len(got) - len(shape):] != shape:
        dims = ", ".join(map(str, shape))
        raise RuntimeError(f"Given normalized_shape=[{dims}], expected input with shape [*{dims}], but got "
                           f"input of size{list(got)}")
    if weight is not None and weight._data.shape != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of "
                           f"shape {list(weight._data.shape)} and normalized_shape = {list(shape)}")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f'"rms_norm" not implemented for \'{input.dtype.legacy}\'')
    from engine import dtypes

    opmath = dtypes.float32 if input.dtype.itemsize == 2 else input.dtype
    upcast = input if input.dtype == opmath else input.to(opmath)
    if eps is None:
        eps = float(np.finfo(opmath.np).eps)
    dims = [input._data.ndim - i - 1 for i in range(len(shape))]
    mean_square = f.mean(f.pow(upcast, 2), dims, keepdim=True)
    inv = f.rsqrt(f._inplace(mean_square, ops.ADD_SCALAR, (), {"other": eps}))  # add_(eps): AddBackward1
    result = f.mul(upcast, inv).type_as(input)
    return result if weight is None else f.mul(result, weight)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Channel-wise dropout of (N, C, D, H, W) inputs ((C, D, H, W) ones as a batch of one)."""
    _check_dropout_p(p)
    ndim = input._data.ndim
    if ndim not in (4, 5):
        warnings.warn(f"dropout3d: Received a {ndim}-D input to dropout3d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D "
                      "inputs).", stacklevel=2)
    if ndim != 5:
        x = f.unsqueeze_(input, 0) if inplace else f.unsqueeze(input, 0)
        out = _feature_dropout(x, p, training, inplace)
        return f.squeeze_(out, 0) if inplace else f.squeeze(out, 0)
    return _feature_dropout(input, p, training, inplace)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, inplace=True)


from engine.nn.attention import (  # noqa: E402
    _canonical_mask, _in_projection, _in_projection_packed, _mha_shape_check, _none_or_dtype,
    multi_head_attention_forward, scaled_dot_product_attention,
)
from engine.nn.more_functional import (  # noqa: E402
    local_response_norm, multilabel_margin_loss, pdist, rrelu, rrelu_, triplet_margin_with_distance_loss,
)

__all__ = [n for n in dir() if not n.startswith("_") and n not in ("annotations", "Any", "np", "math",
                                                                     "warnings", "f", "ops", "apply",
                                                                     "messages", "conv")]
