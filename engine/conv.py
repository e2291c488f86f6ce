"""NumPy kernels of convolution and pooling over any number of spatial dims (windows by stride tricks).

Arrays are (batch, channels, *spatial); a weight is (out_channels, in_channels / groups, *kernel).
Geometry arguments are tuples with one entry per spatial dim.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np


def pool_out_size(size: int, kernel: int, stride: int, padding: int, dilation: int, ceil_mode: bool) -> int:
    """PyTorch's pooling_output_shape: windows that fit, one more in ceil mode if it starts inside
    the (left-padded) input."""
    span = size + 2 * padding - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = span // stride + 1
    if ceil_mode and (out - 1) * stride >= size + padding:
        out -= 1
    return out


def conv_out_size(size: int, kernel: int, stride: int, padding: int, dilation: int) -> int:
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def _pad(x: np.ndarray, before: tuple, after: tuple, value: Any = 0) -> np.ndarray:
    """x padded on its spatial dims (all but the first two)."""
    if not any(before) and not any(after):
        return x
    widths = [(0, 0), (0, 0)] + list(zip(before, after))
    return np.pad(x, widths, constant_values=value)


def _windows(x: np.ndarray, kernel: tuple, stride: tuple, dilation: tuple, out: tuple) -> np.ndarray:
    """A read-only view (N, C, *out, *kernel) of the windows of a padded x."""
    for size, k, st, dl, n in zip(x.shape[2:], kernel, stride, dilation, out):
        if n > 0 and k > 0 and (st < 1 or dl < 1 or (n - 1) * st + (k - 1) * dl >= size):
            # only when a tensor saved for backward was swapped for one of another shape (unpack hooks)
            raise RuntimeError(f"convolution windows do not fit the input: {tuple(out)} windows of {tuple(kernel)} "
                               f"over an input of spatial size {tuple(x.shape[2:])}")
    spatial = x.strides[2:]
    shape = x.shape[:2] + tuple(out) + tuple(kernel)
    strides = x.strides[:2] + tuple(s * st for s, st in zip(spatial, stride)) + tuple(
        s * d for s, d in zip(spatial, dilation))
    return np.lib.stride_tricks.as_strided(x, shape, strides, writeable=False)


def _columns(x: np.ndarray, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple, groups: int,
             out: tuple) -> np.ndarray:
    """im2col: (N, groups, prod(out), C / groups * prod(kernel)), one row per output position."""
    d = len(kernel)
    win = _windows(_pad(x, padding, padding), kernel, stride, dilation, out)
    n, c = x.shape[:2]
    win = win.reshape((n, groups, c // groups) + tuple(out) + tuple(kernel))
    win = np.moveaxis(win, 2, 2 + d)  # (N, g, *out, C/g, *kernel)
    return win.reshape(n, groups, math.prod(out), -1)


def conv(x: np.ndarray, w: np.ndarray, stride: tuple, padding: tuple, dilation: tuple,
         groups: int) -> np.ndarray:
    """Cross-correlation of x with w (no bias)."""
    kernel = w.shape[2:]
    out = tuple(conv_out_size(*a) for a in zip(x.shape[2:], kernel, stride, padding, dilation))
    cols = _columns(x, kernel, stride, padding, dilation, groups, out)
    o = w.shape[0]
    wm = w.reshape(groups, o // groups, -1)
    y = cols @ np.swapaxes(wm, 1, 2)  # (N, g, P, O/g)
    return np.ascontiguousarray(np.swapaxes(y, 2, 3).reshape((x.shape[0], o) + out))


def conv_grad_input(gy: np.ndarray, w: np.ndarray, input_shape: tuple, stride: tuple, padding: tuple,
                    dilation: tuple, groups: int) -> np.ndarray:
    """The gradient of conv with respect to its input (a transposed convolution of gy with w)."""
    n, o = gy.shape[:2]
    out = gy.shape[2:]
    kernel = w.shape[2:]
    c = input_shape[1]
    wm = w.reshape(groups, o // groups, -1)
    cols = np.swapaxes(wm, 1, 2) @ gy.reshape(n, groups, o // groups, -1)  # (N, g, C/g * K, P)
    cols = cols.reshape((n, c) + tuple(kernel) + tuple(out))
    padded = tuple(s + 2 * p for s, p in zip(input_shape[2:], padding))
    gx = np.zeros(input_shape[:2] + padded, np.result_type(gy, w))
    for k in itertools.product(*(range(size) for size in kernel)):
        window = tuple(slice(i * dl, i * dl + st * (m - 1) + 1, st)
                       for i, dl, st, m in zip(k, dilation, stride, out))
        gx[(slice(None), slice(None)) + window] += cols[(slice(None), slice(None)) + k]
    crop = tuple(slice(p, p + s) for p, s in zip(padding, input_shape[2:]))
    return np.ascontiguousarray(gx[(slice(None), slice(None)) + crop])


def conv_grad_weight(x: np.ndarray, gy: np.ndarray, weight_shape: tuple, stride: tuple, padding: tuple,
                     dilation: tuple, groups: int) -> np.ndarray:
    """The gradient of conv with respect to its weight."""
    n, o = gy.shape[:2]
    cols = _columns(x, weight_shape[2:], stride, padding, dilation, groups, gy.shape[2:])
    gw = np.sum(gy.reshape(n, groups, o // groups, -1) @ cols, axis=0)  # (g, O/g, C/g * K)
    return gw.reshape(weight_shape) + 0.0  # a sum of nothing but -0.0 terms is +0.0, as PyTorch accumulates


def transposed_out_shape(x_shape: tuple, w_shape: tuple, stride: tuple, padding: tuple, dilation: tuple,
                         groups: int, output_padding: tuple) -> tuple:
    """The output shape of a transposed convolution of x with w."""
    geometry = zip(x_shape[2:], w_shape[2:], stride, padding, dilation, output_padding)
    spatial = tuple((s - 1) * st - 2 * p + dl * (k - 1) + op + 1 for s, k, st, p, dl, op in geometry)
    return (x_shape[0], w_shape[1] * groups) + spatial


def max_pool(x: np.ndarray, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple,
             ceil_mode: bool) -> tuple[np.ndarray, np.ndarray]:
    """Window maxima and their int64 indices into each (flattened) input plane."""
    spatial = x.shape[2:]
    out = tuple(pool_out_size(*a, ceil_mode) for a in zip(spatial, kernel, stride, padding, dilation))
    extra = tuple(max((m - 1) * st + dl * (k - 1) + 1 - s - 2 * p, 0)
                  for m, st, dl, k, s, p in zip(out, stride, dilation, kernel, spatial, padding))
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    after = tuple(p + e for p, e in zip(padding, extra))
    count = math.prod(kernel)
    values = _windows(_pad(x, padding, after, low), kernel, stride, dilation, out)
    values = values.reshape(x.shape[:2] + out + (count,))
    inside = _windows(_pad(np.ones((1, 1) + spatial, bool), padding, after, False), kernel, stride, dilation, out)
    pick = _pick_max(values, inside.reshape((1, 1) + out + (count,)), low)
    index = np.zeros(pick.shape, np.int64)
    for d, offsets in enumerate(np.unravel_index(pick, kernel)):
        grid = np.arange(out[d]).reshape((-1,) + (1,) * (len(out) - 1 - d))
        index = index * spatial[d] + grid * stride[d] - padding[d] + offsets * dilation[d]
    result = np.take_along_axis(values, pick[..., None], -1)[..., 0]
    return np.ascontiguousarray(result), index


def _pick_max(values: np.ndarray, inside: np.ndarray, low: Any) -> np.ndarray:
    """Which element of each window (last axis) PyTorch's max pooling picks: the first maximum, the
    last NaN if there is one, and never padding (a window of padding values keeps its first element
    inside the input)."""
    pick = np.argmax(values, axis=-1)
    best = np.take_along_axis(values, pick[..., None], -1)[..., 0]
    pick = np.where(best == low, np.broadcast_to(np.argmax(inside, axis=-1), pick.shape), pick)
    if values.dtype.kind == "f":
        nan = np.isnan(values)
        pick = np.where(nan.any(-1), values.shape[-1] - 1 - np.argmax(nan[..., ::-1], axis=-1), pick)
    return pick


def max_pool_grad(g: np.ndarray, indices: np.ndarray, input_shape: tuple) -> np.ndarray:
    """The gradient of max_pool: each window's gradient added at the index of its maximum."""
    planes = math.prod(input_shape[:2])
    size = math.prod(input_shape[2:])
    flat = indices.reshape(planes, -1) + np.arange(planes)[:, None] * size
    g = np.asarray(g)
    total = np.zeros(planes * size, g.dtype)
    np.add.at(total, flat.ravel(), g.ravel())  # in order and in g's precision, as PyTorch adds them
    return total.reshape(input_shape)


def _divisors(spatial: tuple, out: tuple, kernel: tuple, stride: tuple, padding: tuple,
              count_include_pad: bool, divisor_override: Any) -> Any:
    """What each average-pooling window is divided by (PyTorch's rule: the window clipped to the
    padded input, or to the input itself without count_include_pad)."""
    if divisor_override:
        return divisor_override
    sizes = []
    for d, (s, m, k, st, p) in enumerate(zip(spatial, out, kernel, stride, padding)):
        start = np.arange(m) * st - p
        end = np.minimum(start + k, s + p)
        size = end - start if count_include_pad else np.minimum(end, s) - np.maximum(start, 0)
        sizes.append(size.reshape((-1,) + (1,) * (len(out) - 1 - d)))
    return math.prod(sizes) if sizes else 1


def avg_pool(x: np.ndarray, kernel: tuple, stride: tuple, padding: tuple, ceil_mode: bool,
             count_include_pad: bool, divisor_override: Any) -> np.ndarray:
    """Window means, divided as PyTorch divides them (see _divisors)."""
    spatial = x.shape[2:]
    ones = (1,) * len(kernel)
    out = tuple(pool_out_size(*a, 1, ceil_mode) for a in zip(spatial, kernel, stride, padding))
    extra = tuple(max((m - 1) * st + k - s - 2 * p, 0)
                  for m, st, k, s, p in zip(out, stride, kernel, spatial, padding))
    xp = _pad(x, padding, tuple(p + e for p, e in zip(padding, extra)))
    win = _windows(xp, kernel, stride, ones, out)
    offsets = list(itertools.product(*(range(size) for size in kernel)))
    sums = win[(Ellipsis,) + offsets[0]].copy()
    for k in offsets[1:]:  # each window's elements added in order, as PyTorch's kernel does
        sums += win[(Ellipsis,) + k]
    divisor = _divisors(spatial, out, kernel, stride, padding, count_include_pad, divisor_override)
    if x.dtype.kind == "f":  # divided in the input's precision
        divisor = np.asarray(divisor).astype(x.dtype)
    return np.ascontiguousarray(sums / divisor, x.dtype)


def avg_pool_grad(g: np.ndarray, input_shape: tuple, kernel: tuple, stride: tuple, padding: tuple,
                  ceil_mode: bool, count_include_pad: bool, divisor_override: Any) -> np.ndarray:
    """The gradient of avg_pool: each window's gradient / divisor spread over its inputs."""
    spatial = input_shape[2:]
    out = g.shape[2:]
    share = g / np.asarray(_divisors(spatial, out, kernel, stride, padding, count_include_pad,
                                     divisor_override)).astype(g.dtype)
    padded = tuple(s + 2 * p + max((m - 1) * st + k - s - 2 * p, 0)
                   for s, p, m, st, k in zip(spatial, padding, out, stride, kernel))
    gx = np.zeros(tuple(input_shape[:2]) + padded, g.dtype)
    # offsets last to first: each input then receives its windows' shares in the order of the windows
    for k in itertools.product(*(range(size - 1, -1, -1) for size in kernel)):
        window = tuple(slice(i, i + st * (m - 1) + 1, st) for i, st, m in zip(k, stride, out))
        gx[(slice(None), slice(None)) + window] += share
    crop = tuple(slice(p, p + s) for p, s in zip(padding, spatial))
    return np.ascontiguousarray(gx[(slice(None), slice(None)) + crop], g.dtype)


def adaptive_windows(size: int, out: int) -> list[tuple[int, int]]:
    """PyTorch's adaptive pooling windows along a dim: [floor(i * size / out), ceil((i + 1) * size / out))."""
    return [((i * size) // out, -((-(i + 1) * size) // out)) for i in range(out)]


def adaptive_avg_pool(x: np.ndarray, out: tuple) -> np.ndarray:
    """The mean of each adaptive window of the spatial dims: its elements added in order, the sum
    divided by the window's size along each dim in turn (as PyTorch's CPU kernel)."""
    spatial = x.shape[2:]
    result = np.empty(x.shape[:2] + tuple(out), x.dtype)
    for position in itertools.product(*(range(m) for m in out)):
        bounds = [adaptive_windows(s, m)[i] for s, m, i in zip(spatial, out, position)]
        window = x[(Ellipsis,) + tuple(slice(lo, hi) for lo, hi in bounds)].reshape(x.shape[:2] + (-1,))
        total = window[..., 0]
        for k in range(1, window.shape[-1]):
            total = total + window[..., k]
        for lo, hi in bounds:
            total = total / x.dtype.type(hi - lo)
        result[(Ellipsis,) + position] = total
    return result


def adaptive_avg_pool_grad(g: np.ndarray, input_shape: tuple) -> np.ndarray:
    """Each window's gradient shared equally by its inputs (windows may overlap)."""
    spatial, out = input_shape[2:], g.shape[2:]
    gx = np.zeros(tuple(input_shape), g.dtype)
    for position in itertools.product(*(range(m) for m in out)):
        bounds = [adaptive_windows(s, m)[i] for s, m, i in zip(spatial, out, position)]
        share = g[(Ellipsis,) + position]
        for lo, hi in bounds:
            share = share / g.dtype.type(hi - lo)
        gx[(Ellipsis,) + tuple(slice(lo, hi) for lo,
                               hi in bounds)] += share.reshape(share.shape + (1,) * len(out))
    return gx


def adaptive_max_pool(x: np.ndarray, out: tuple) -> tuple[np.ndarray, np.ndarray]:
    """The maximum of each adaptive window (the first one; a NaN wins) and its int64 index into the plane."""
    spatial = x.shape[2:]
    values = np.empty(x.shape[:2] + tuple(out), x.dtype)
    indices = np.empty(x.shape[:2] + tuple(out), np.int64)
    for position in itertools.product(*(range(m) for m in out)):
        bounds = [adaptive_windows(s, m)[i] for s, m, i in zip(spatial, out, position)]
        window = x[(Ellipsis,) + tuple(slice(lo, hi) for lo, hi in bounds)]
        flat = window.reshape(x.shape[:2] + (-1,))
        pick = np.argmax(flat, axis=-1)
        if x.dtype.kind == "f":
            nan = np.isnan(flat)
            pick = np.where(nan.any(-1), flat.shape[-1] - 1 - np.argmax(nan[..., ::-1], axis=-1), pick)
        offsets = np.unravel_index(pick, tuple(hi - lo for lo, hi in bounds))
        index = np.zeros(pick.shape, np.int64)
        for d, (lo, _) in enumerate(bounds):
            index = index * spatial[d] + lo + offsets[d]
        values[(Ellipsis,) + position] = np.take_along_axis(flat, pick[..., None], -1)[..., 0]
        indices[(Ellipsis,) + position] = index
    return values, indices


# --- interpolation (upsample_nearest / _nearest_exact / _linear / _bilinear2d / _bicubic2d) ------------------
# Per spatial dim, each output position reads K input positions (taps) with weights, computed as
# PyTorch's CPU kernels compute them: in float for float32 input (double for float64).
_CUBIC_A = -0.75


def _opmath(dtype: np.dtype) -> type:
    return np.float64 if dtype == np.float64 else np.float32


def _fma(a: Any, b: Any, c: Any) -> np.ndarray:
    """a * b + c rounded once, as PyTorch's compiled kernels contract it (float32 through float64;
    float64 by an exact product split in two halves, Dekker's TwoProduct, and TwoSum)."""
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    if np.result_type(a, b, c) != np.float64:
        return (a.astype(np.float64) * b + c).astype(np.float32)
    p = a * b
    split = 134217729.0  # 2 ** 27 + 1

    def halves(x: np.ndarray) -> tuple:
        big = split * x
        high = big - (big - x)
        return high, x - high

    ah, al = halves(a)
    bh, bl = halves(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl  # a * b == p + e exactly
    s = p + c
    v = s - p
    t = (p - (s - v)) + (c - v)  # p + c == s + t exactly
    return s + (t + e)


def _area_scale(in_size: int, out_size: int, align_corners: bool, scale: Any, t: type) -> Any:
    """area_pixel_compute_scale: the step between source positions of consecutive outputs."""
    if align_corners:
        return t(in_size - 1) / t(out_size - 1) if out_size > 1 else t(0)
    if scale is not None and scale > 0:
        return t(1.0 / scale)
    return t(in_size) / t(out_size)


def upsample_taps(mode: str, in_size: int, out_size: int, align_corners: bool, scale: Any,
                  dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """(indices, weights), each (out_size, K): where each output reads along one dim, and how much."""
    t = _opmath(dtype)
    out = np.arange(out_size)
    if mode in ("nearest", "nearest-exact"):
        step = np.float32(_area_scale(in_size, out_size, False, scale, t))
        if mode == "nearest":
            source = np.floor(out.astype(np.float32) * step)
        else:  # (i + 0.5) * scale in double, rounded to float, floored
            source = np.floor(((out + 0.5) * np.float64(step)).astype(np.float32))
        index = np.minimum(source.astype(np.int64), in_size - 1)
        return index[:, None], np.ones((out_size, 1), t)
    step = _area_scale(in_size, out_size, align_corners, scale, t)
    i = out.astype(t)
    real = step * i if align_corners else _fma(step, i + t(0.5), t(-0.5))
    if mode == "linear":
        if out_size == in_size:
            return np.stack([out, out], 1), np.stack([np.ones(out_size, t), np.zeros(out_size, t)], 1)
        real = real if align_corners else np.maximum(real, t(0))
        i0 = np.minimum(np.floor(real).astype(np.int64), in_size - 1)
        lam = np.clip(real - i0.astype(t), t(0), t(1))
        i1 = i0 + (i0 < in_size - 1)
        return np.stack([i0, i1], 1), np.stack([t(1) - lam, lam], 1)
    i0 = np.minimum(np.floor(real).astype(np.int64), in_size - 1)
    lam = np.clip(real - i0.astype(t), t(0), t(1))
    a = t(_CUBIC_A)

    def near(x: Any) -> Any:  # |x| <= 1
        return ((a + t(2)) * x - (a + t(3))) * x * x + t(1)

    def far(x: Any) -> Any:  # 1 < |x| < 2
        return ((a * x - t(5) * a) * x + t(8) * a) * x - t(4) * a

    weights = np.stack([far(lam + t(1)), near(lam), near(t(1) - lam), far(t(1) - lam + t(1))], 1)
    index = np.clip(i0[:, None] + np.arange(-1, 3), 0, in_size - 1)
    return index, weights


def upsample(x: np.ndarray, taps: list) -> np.ndarray:
    """The interpolated x: taps (indices, weights) per spatial dim; the last dim summed innermost."""
    if taps[0][0].shape[1] == 1 and np.all(taps[0][1] == 1):  # nearest: a gather, any dtype
        for d, (index, _) in enumerate(taps):
            x = np.take(x, index[:, 0], axis=2 + d)
        return np.ascontiguousarray(x)
    out = _interpolate(x.astype(_opmath(x.dtype), copy=False), taps, fused=len(taps) == 3)
    if x.dtype == np.uint8:
        return np.clip(np.round(out), 0, 255).astype(np.uint8)
    return out.astype(x.dtype)


def _interpolate(xs: np.ndarray, taps: list, fused: bool = False) -> np.ndarray:
    """sum_k w[:, k] * (the inner dims interpolated at index[:, k]), over the first of taps' dims, as
    PyTorch's generic N-d kernel nests them; fused (its trilinear kernel): each t0 * w0 + t1 * w1 as
    fma(t0, w0, t1 * w1)."""
    index, w = taps[0]
    n = len(taps)
    if n == 1:
        gathered = xs[..., index]
        if fused:
            return _fma(gathered[..., 0], w[:, 0], gathered[..., 1] * w[:, 1])
        return _weighted(gathered, w)
    shape = (-1,) + (1,) * (n - 1)
    inner = [_interpolate(np.take(xs, index[:, k], axis=xs.ndim - n), taps[1:], fused) for k in range(index.shape[1])]
    if fused:
        return _fma(inner[0], w[:, 0].reshape(shape), inner[1] * w[:, 1].reshape(shape))
    out = inner[0] * w[:, 0].reshape(shape)
    for k in range(1, len(inner)):
        out = out + inner[k] * w[:, k].reshape(shape)
    return out


def _weighted(gathered: np.ndarray, w: np.ndarray) -> np.ndarray:
    """sum_k gathered[..., k] * w[:, k], added left to right."""
    out = gathered[..., 0] * w[:, 0]
    for k in range(1, w.shape[1]):
        out = out + gathered[..., k] * w[:, k]
    return out


def upsample_grad(g: np.ndarray, input_shape: tuple, taps: list, mode: str) -> np.ndarray:
    """The gradient of upsample: each output's gradient times its weights added to the inputs it read,
    output by output in PyTorch's order (bicubic: width taps outside height taps)."""
    t = _opmath(g.dtype)
    planes = math.prod(input_shape[:2])
    spatial = tuple(input_shape[2:])
    gf = g.astype(t, copy=False).reshape((planes,) + g.shape[2:])
    n = len(taps)
    flat: Any = 0
    weights: Any = 1
    for d, (index, w) in enumerate(taps):  # (*out, *taps) grids of flat input positions and weights
        shape = [1] * (2 * n)
        shape[d], shape[n + d] = index.shape
        flat = flat * spatial[d] + index.reshape(shape)
        weights = w.reshape(shape) if d == 0 else weights * w.reshape(shape)
    grads = gf.reshape(gf.shape + (1,) * n)
    if mode.startswith("nearest"):
        values = np.broadcast_to(grads, np.broadcast_shapes(grads.shape, (1,) + flat.shape))
    elif mode == "bicubic":
        (_, wh), (_, ww) = taps
        flat = np.swapaxes(flat, 2, 3)
        values = (grads * wh[:, None, None, :]) * ww[None, :, :, None]
    elif n == 3:  # trilinear: each grad_input += (wd * wh * ww) * grad contracted to one fma
        return _fused_accumulate(planes, math.prod(spatial), t, flat, weights, grads).astype(g.dtype).reshape(
            input_shape)
    else:
        values = weights * grads
    gi = np.zeros((planes, math.prod(spatial)), t)
    np.add.at(gi, (slice(None), flat.reshape(-1)), values.reshape(planes, -1))
    return gi.astype(g.dtype).reshape(input_shape)


def _fused_accumulate(planes: int, size: int, t: type, flat: np.ndarray, weights: np.ndarray,
                      grads: np.ndarray) -> np.ndarray:
    """acc[flat] = fma(weights, grads, acc[flat]) for each (output, tap) in order: done in rounds,
    the r-th contribution to every input position in round r."""
    targets = flat.reshape(-1)
    w = np.broadcast_to(weights, flat.shape).reshape(-1)
    values = np.broadcast_to(grads, (planes,) + flat.shape).reshape(planes, -1)
    order = np.argsort(targets, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(targets[order]) != 0])
    rank = np.empty(targets.size, np.int64)
    rank[order] = np.arange(targets.size) - np.repeat(starts, np.diff(np.r_[starts, targets.size]))
    acc = np.zeros((planes, size), t)
    for r in range(int(rank.max(initial=-1)) + 1):
        pick = np.flatnonzero(rank == r)
        where = targets[pick]
        acc[:, where] = _fma(w[pick], values[:, pick], acc[:, where])
    return acc
