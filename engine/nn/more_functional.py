"""torch.pdist, F.local_response_norm, F.rrelu, F.multilabel_margin_loss and F.triplet_margin_with_distance_loss."""

from __future__ import annotations

from typing import Any

from engine import ops
from engine.rules import apply
from engine.tensor import Tensor


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """p-norm distances between each pair of rows (PdistBackward0)."""
    if input._data.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input._data.ndim}D")
    if input._data.dtype.kind != "f":
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return apply(ops.PDIST, (input,), {"p": float(p)})


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """Each element divided by (k + alpha * the mean of the squares over `size` neighbouring channels) ** beta,
    composed of the same ops as PyTorch's (average pooling over the padded squares)."""
    from engine import functions as f
    from engine.nn import functional as F

    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = F.pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = F.avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = F.pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = F.avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return f.div(input, div)


def _rrelu_noise(input: Tensor, lower: float, upper: float, training: bool, generator: Any) -> tuple:
    """The noise tensor (and for half types the float32 slopes it rounds): the per-element slopes: in training, for each element <= 0 in order one 53-bit uniform draw scaled
    to [lower, upper) (bounds first rounded to the compute type, as at::uniform_real_distribution<double> is
    given them), 1 elsewhere; PyTorch leaves the noise uninitialised outside training (zeros here)."""
    import numpy as np

    from engine import dtypes, random
    from engine.functions import _constant

    a = input._data
    if (a.dtype.kind != "f" and a.dtype != dtypes.BF16) or (training and a.dtype == np.float16):
        kernel = "rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.legacy}'")
    if not training:
        return _constant(np.zeros(a.shape, a.dtype)), None
    compute = np.float64 if a.dtype == np.float64 else np.float32
    low, high = float(compute(lower)), float(compute(upper))
    flat = np.ascontiguousarray(a).reshape(-1)
    negative = ~(flat > 0) & ~np.isnan(flat)
    noise = np.ones(flat.shape, compute)
    gen = generator or random.default_generator
    u = (gen.random64(int(negative.sum())) & np.uint64((1 << 53) - 1)).astype(np.float64) * 2.0 ** -53
    noise[negative] = (u * (high - low) + low).astype(compute)
    if a.dtype != compute:
        out = dtypes.cast(noise, a.dtype) if a.dtype == dtypes.BF16 else noise.astype(a.dtype)
        return _constant(out.reshape(a.shape)), noise.reshape(a.shape)
    return _constant(noise.reshape(a.shape)), None


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False, generator: Any = None) -> Tensor:
    """Randomized leaky ReLU (RreluWithNoiseBackward0; RreluWithNoiseBackward1 in place)."""
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    noise, slopes = _rrelu_noise(input, lower, upper, training, generator)
    attrs = {"noise": noise, "lower": lower, "upper": upper, "training": bool(training)}
    if slopes is not None:
        attrs["slopes"] = slopes
    if inplace:
        from engine.functions import _inplace

        return _inplace(input, ops.RRELU_WITH_NOISE_INPLACE, (), attrs)
    return apply(ops.RRELU_WITH_NOISE, (input,), attrs)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    return rrelu(input, lower, upper, training, inplace=True)


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                           reduction: str = "mean") -> Tensor:
    """Hinge loss between each listed target class (the list ends at the first -1) and every other class."""
    import numpy as np

    from engine.nn.functional import _reduction

    r = _reduction(reduction, size_average, reduce)
    shape, t = input._data.shape, target._data
    if not ((len(shape) == 2 and shape[1] != 0) or (len(shape) == 1 and shape[0] != 0) or len(shape) == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(shape)}")
    dim = shape[-1] if shape else 1
    if (len(shape) <= 1 and not (t.ndim <= 1 and t.size == dim)) or (
            len(shape) == 2 and t.shape != shape):
        raise RuntimeError(f"inconsistent target size: {list(t.shape)} for input of size: {list(shape)}")
    if t.dtype != np.int64:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype.legacy}")
    if t.size and (t.min() < -1 or t.max() >= dim):
        raise RuntimeError("argument #2 'target' is out of range")
    rows = t.reshape(-1, dim)
    listed = np.cumprod(rows >= 0, axis=1).astype(bool)
    is_target = np.zeros(rows.shape, input._data.dtype)
    is_target[np.nonzero(listed)[0], rows[listed]] = 1
    attrs = {"target": t, "is_target": is_target.reshape(t.shape), "reduction": r}
    return apply(ops.MULTILABEL_MARGIN_LOSS, (input,), attrs)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Any = None, margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean") -> Tensor:
    """max(margin + d(anchor, positive) - d(anchor, negative), 0), composed as PyTorch composes it."""
    import engine

    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim = anchor.ndim
    p_dim = positive.ndim
    n_dim = negative.ndim
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have "
            f"the same number of dimensions, but got: anchor {a_dim}D, "
            f"positive {p_dim}D, and negative {n_dim}D inputs"
        )
    if distance_function is None:
        distance_function = engine.nn.functional.pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_swap = distance_function(positive, negative)
        dist_neg = engine.minimum(dist_neg, dist_swap)
    loss = engine.clamp_min(margin + dist_pos - dist_neg, 0)
    if reduction == "sum":
        return engine.sum(loss)
    if reduction == "mean":
        return engine.mean(loss)
    return loss
