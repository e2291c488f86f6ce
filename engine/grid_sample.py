"""grid_sampler_2d / grid_sampler_3d (F.grid_sample: bilinear or nearest, padding zeros / border / reflection) and
affine_grid_generator (F.affine_grid), with PyTorch's nodes, gradients and double backward."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from engine.ops import rule
from engine.rules import ArrayMath

_INTERPOLATION = ("bilinear", "nearest", "bicubic")
_PADDING = ("zeros", "border", "reflection")


# --- where each output position samples ------------------------------------------------------------
def _source(coord: np.ndarray, size: int, padding_mode: int, align_corners: bool) -> tuple:
    """PyTorch's compute_coordinates with its gradient: the source pixel coordinate and d coord / d grid."""
    dt = coord.dtype.type
    scale = dt((size - 1) / 2) if align_corners else dt(size / 2)
    x = (coord + dt(1)) * scale
    if not align_corners:
        x = x - dt(0.5)
    mult = np.full(x.shape, scale, coord.dtype)
    if padding_mode == 2:  # reflection
        twice_span = dt(2 * (size - 1)) if align_corners else dt(2 * size)
        if twice_span == 0:
            x, mult = np.zeros_like(x), np.zeros_like(x)
        else:
            shifted = x if align_corners else x + dt(0.5)
            negative = shifted < 0
            a = np.abs(shifted)
            extra = a - np.trunc(a / twice_span) * twice_span
            reflected = twice_span - extra
            flip = extra > reflected
            x = np.where(flip, reflected, extra)
            if not align_corners:
                x = x - dt(0.5)
            mult = mult * np.where(flip ^ negative, dt(-1), dt(1))
    if padding_mode in (1, 2):  # border, or reflection then clipped
        limit = dt(size - 1)
        low = np.maximum(x, dt(0))
        x = np.minimum(low, limit)
        mult = np.where((low != 0) & (x != limit), mult, mult.dtype.type(0))  # a mask, never -0
    return x, mult


class _Plan:
    """For each output position: the corners it reads (indices, in-bounds mask) and their weights with first
    and second derivatives in the source coordinates (spatial dims in input order: (y, x) or (z, y, x))."""

    def __init__(self, input_shape: tuple, grid: np.ndarray, interpolation_mode: int, padding_mode: int,
                 align_corners: bool) -> None:
        spatial = input_shape[2:]
        d = len(spatial)
        dt = grid.dtype.type
        # grid's last axis is (x, y[, z]): reversed, it follows the input's spatial dims
        coords, mults = zip(*(_source(grid[..., d - 1 - k], spatial[k], padding_mode, align_corners)
                              for k in range(d)))
        self.mults = mults
        self.dims = d
        self.nearest = interpolation_mode == 1
        if self.nearest:
            idx = [np.rint(c).astype(np.int64) for c in coords]
            corners = [(idx, np.ones(idx[0].shape, grid.dtype), [np.zeros(idx[0].shape, grid.dtype)] * d)]
        else:
            low = [np.floor(c) for c in coords]
            frac = [c - f for c, f in zip(coords, low)]  # w (x), n (y)
            rest = [dt(1) - f for f in frac]  # e (x), s (y)
            corners = []
            # corner order as PyTorch's: nw, ne, sw, se (x varies fastest), and t before b in 3-d
            for bits in itertools.product((0, 1), repeat=d):
                factors = [frac[k] if bits[k] else rest[k] for k in range(d)]
                weight = factors[0]
                for f in factors[1:]:
                    weight = weight * f
                grads = []
                for k in range(d):
                    g = np.full(weight.shape, dt(1 if bits[k] else -1), grid.dtype)
                    for j in range(d):
                        if j != k:
                            g = g * factors[j]
                    grads.append(g)
                idx = [low[k].astype(np.int64) + bits[k] for k in range(d)]
                corners.append((idx, weight, grads, bits, factors))
        self.corners = []
        for corner in corners:
            idx = corner[0]
            inside = np.ones(idx[0].shape, bool)
            for k in range(d):
                inside &= (idx[k] >= 0) & (idx[k] < spatial[k])
            safe = [np.clip(idx[k], 0, spatial[k] - 1) for k in range(d)]
            self.corners.append((safe, inside) + tuple(corner[1:]))

    def gather(self, a: np.ndarray, safe: list, inside: np.ndarray) -> np.ndarray:
        """a[n, :, corner] for every output position, shaped (N, C, *out), zero where out of bounds."""
        n = np.arange(a.shape[0]).reshape((-1,) + (1,) * self.dims)
        vals = a[(n, slice(None)) + tuple(safe)]  # (N, *out, C)
        vals = np.moveaxis(vals, -1, 1)
        return np.where(np.expand_dims(inside, 1), vals, vals.dtype.type(0))

    def scatter(self, out: np.ndarray, parts: list) -> None:
        """out[n, :, corner] += part for each corner's (N, C, *out) part, in PyTorch's order."""
        if not parts:
            return
        safe_all, inside_all = zip(*[(c[0], c[1]) for c in self.corners])
        N, C = out.shape[:2]
        positions = []
        values = []
        for (safe, inside), part in zip(zip(safe_all, inside_all), parts):
            n = np.broadcast_to(np.arange(N).reshape((-1,) + (1,) * self.dims), inside.shape)
            positions.append([n] + list(safe) + [inside])
            values.append(np.moveaxis(part, 1, -1))  # (N, *out, C)
        # interleave: position-major, corner-minor
        idx = [np.stack([p[j] for p in positions], -1).reshape(-1) for j in range(self.dims + 2)]
        vals = np.stack(values, -2).reshape(-1, C)
        keep = idx[-1]
        target = np.moveaxis(out, 1, -1)  # (N, *spatial, C) view
        np.add.at(target, tuple(i[keep] for i in idx[:-1]), vals[keep])


def _plan(input: np.ndarray, grid: np.ndarray, interpolation_mode: int, padding_mode: int,
          align_corners: bool) -> _Plan:
    if interpolation_mode == 2:
        raise NotImplementedError("grid_sample: mode 'bicubic' is not supported by this engine")
    return _Plan(input.shape, grid, interpolation_mode, padding_mode, align_corners)


def _grid_sampler(input: Any, grid: Any, interpolation_mode: int = 0, padding_mode: int = 0,
                  align_corners: bool = False) -> np.ndarray:
    a, g = np.asarray(input), np.asarray(grid)
    plan = _plan(a, g, interpolation_mode, padding_mode, align_corners)
    out = None
    for safe, inside, weight, *_ in plan.corners:
        term = plan.gather(a, safe, inside) * np.expand_dims(weight, 1)
        out = term if out is None else out + term
    return out.astype(a.dtype, copy=False)


def _grid_sampler_backward(grad_output: Any, input: Any, grid: Any, interpolation_mode: int = 0,
                           padding_mode: int = 0, align_corners: bool = False) -> tuple:
    """(grad_input, grad_grid) of grid_sampler for grad_output."""
    go, a, g = np.asarray(grad_output), np.asarray(input), np.asarray(grid)
    plan = _plan(a, g, interpolation_mode, padding_mode, align_corners)
    grad_input = np.zeros(a.shape, go.dtype)
    plan.scatter(grad_input, [go * np.expand_dims(c[2], 1) for c in plan.corners])
    grad_grid = np.zeros(g.shape, go.dtype)
    if not plan.nearest:
        d = plan.dims
        vals = [plan.gather(a, c[0], c[1]) for c in plan.corners]
        bits = [c[4] for c in plan.corners]
        factors = plan.corners[0][5], plan.corners[-1][5]  # (1 - frac) and frac per dim
        for k in range(d):
            # PyTorch's form: the differences along dim k, each times the other dims' factors, in corner order
            diff = None
            for lo, b in enumerate(bits):
                if b[k]:
                    continue
                hi = bits.index(b[:k] + (1,) + b[k + 1:])
                term = vals[hi] - vals[lo]
                for j in range(d):
                    if j != k:
                        term = term * np.expand_dims(factors[b[j]][j], 1)
                diff = term if diff is None else diff + term
            total = np.zeros(g.shape[:-1], go.dtype)
            for c in range(go.shape[1]):
                total = total + diff[:, c] * go[:, c]
            grad_grid[..., d - 1 - k] = total * plan.mults[k]
    return grad_input, grad_grid


def _second_derivatives(plan: _Plan, corner: tuple, k: int, j: int) -> np.ndarray:
    """d² weight / d coord_k d coord_j for k != j (zero for k == j: the weights are multilinear)."""
    bits, factors = corner[4], corner[5]
    s = np.full(factors[0].shape, (1 if bits[k] else -1) * (1 if bits[j] else -1), factors[0].dtype)
    for m in range(plan.dims):
        if m not in (k, j):
            s = s * factors[m]
    return s


def _grid_sampler_double_backward(grad_grad_input: Any, grad_grad_grid: Any, grad_output: Any, input: Any,
                                  grid: Any, interpolation_mode: int, padding_mode: int,
                                  align_corners: bool) -> tuple:
    """Gradients of (grad_input, grad_grid) = grid_sampler_backward(grad_output, input, grid) with respect to
    grad_output, input and grid, given the gradients flowing into grad_input and grad_grid."""
    go, a, g = np.asarray(grad_output), np.asarray(input), np.asarray(grid)
    plan = _plan(a, g, interpolation_mode, padding_mode, align_corners)
    d = plan.dims
    gA = None if grad_grad_input is None else np.asarray(grad_grad_input)
    gB = None if grad_grad_grid is None else np.asarray(grad_grad_grid)
    g_go = np.zeros(go.shape, go.dtype)
    g_in = np.zeros(a.shape, go.dtype)
    g_grid = np.zeros(g.shape, go.dtype)
    # direction of each corner's weight change along gB: sum_k mult_k * dw/dcoord_k * gB_k
    along = []
    for corner in plan.corners:
        if gB is None or plan.nearest:
            along.append(None)
            continue
        t = None
        for k in range(d):
            term = corner[3][k] * plan.mults[k] * gB[..., d - 1 - k]
            t = term if t is None else t + term
        along.append(t)
    parts = []
    for corner, t in zip(plan.corners, along):
        safe, inside, weight = corner[0], corner[1], corner[2]
        if gA is not None:
            g_go += plan.gather(gA, safe, inside) * np.expand_dims(weight, 1)
        if t is not None:
            vals = plan.gather(a, safe, inside)
            g_go += vals * np.expand_dims(t, 1)
            parts.append(go * np.expand_dims(t * inside, 1))
        else:
            parts.append(np.zeros(go.shape, go.dtype))
    plan.scatter(g_in, parts)
    if not plan.nearest:
        for k in range(d):
            total = np.zeros(g.shape[:-1], go.dtype)
            for corner in plan.corners:
                safe, inside = corner[0], corner[1]
                if gA is not None:
                    A = np.sum(plan.gather(gA, safe, inside) * go, axis=1)
                    total += plan.mults[k] * corner[3][k] * A
                if gB is not None:
                    S = np.sum(plan.gather(a, safe, inside) * go, axis=1)
                    for j in range(d):
                        if j != k:
                            total += (gB[..., d - 1 - j] * plan.mults[k] * plan.mults[j]
                                      * _second_derivatives(plan, corner, k, j) * S)
            g_grid[..., d - 1 - k] = total
    return g_go, g_in, g_grid


def _const(F: Any, a: np.ndarray) -> Any:
    if F is ArrayMath:
        return a
    from engine.tensor import Tensor

    return Tensor._make(a)


_PAIRS: dict = {}  # node id -> (grad, both gradients), from the input's gradient to the grid's


def _sampler_rules(dims: int) -> tuple:
    name = f"grid_sampler_{dims}d"
    node = f"GridSampler{dims}DBackward0"

    def both(F: Any, grad: Any, node: Any, align_corners: bool, grid: Any, input: Any, interpolation_mode: int,
             padding_mode: int, index: int) -> Any:
        """One grid_sampler_backward call (one node under create_graph) gives both gradients."""
        key = id(node)
        kept = _PAIRS.pop(key, None)
        if kept is not None and kept[0] is grad:
            return kept[1][index]
        pair = F.op(f"{name}_backward", grad, input, grid, interpolation_mode=interpolation_mode,
                    padding_mode=padding_mode, align_corners=align_corners)
        if index == 0 and node._next[1] is not None:
            _PAIRS[key] = (grad, pair)
        return pair[index]

    def grad_input(F: Any, grad: Any, node: Any, align_corners: bool, grid: Any, input: Any,
                   interpolation_mode: int, padding_mode: int) -> Any:
        return both(F, grad, node, align_corners, grid, input, interpolation_mode, padding_mode, 0)

    def grad_grid(F: Any, grad: Any, node: Any, align_corners: bool, grid: Any, input: Any,
                  interpolation_mode: int, padding_mode: int) -> Any:
        return both(F, grad, node, align_corners, grid, input, interpolation_mode, padding_mode, 1)

    def double(index: int) -> Any:
        def grad(F: Any, grad: Any, align_corners: bool, grad_output: Any, grid: Any, input: Any,
                 interpolation_mode: int, padding_mode: int) -> Any:
            gs = tuple(None if x is None else F.raw(x) for x in grad)
            out = _grid_sampler_double_backward(gs[0], gs[1] if len(gs) > 1 else None, F.raw(grad_output),
                                                F.raw(input), F.raw(grid), interpolation_mode, padding_mode,
                                                align_corners)[index]
            return _const(F, out)

        return grad

    forward = rule(name, node, _grid_sampler, (grad_input, grad_grid),
                   (f"{name}_backward(grad, input, grid)[0]", f"{name}_backward(grad, input, grid)[1]"),
                   inputs=("input", "grid"), defaults={"interpolation_mode": 0, "padding_mode": 0,
                                                       "align_corners": False})
    backward = rule(f"{name}_backward", f"GridSampler{dims}DBackwardBackward0", _grid_sampler_backward,
                    (double(0), double(1), double(2)),
                    ("grid_sample(gA, grid) + d grid_sample / d grid along gB", "scatter of grad_output along gB",
                     "second derivatives of the weights"),
                    inputs=("grad_output", "input", "grid"), outputs=2, save_always=True,
                    output_names=("result0", "result1"),
                    defaults={"interpolation_mode": 0, "padding_mode": 0, "align_corners": False})
    return forward, backward


GRID_SAMPLER_2D, GRID_SAMPLER_2D_BACKWARD = _sampler_rules(2)
GRID_SAMPLER_3D, GRID_SAMPLER_3D_BACKWARD = _sampler_rules(3)


# --- affine grids -----------------------------------------------------------------------------------
def _linspace(steps: int, align_corners: bool, dtype: np.dtype) -> np.ndarray:
    if steps <= 1:
        return np.zeros(max(steps, 0), dtype)
    # PyTorch's linspace: the first half counted up from -1, the second half down from 1, in the dtype
    step = dtype.type(2) / dtype.type(steps - 1)
    i = np.arange(steps)
    half = steps // 2
    r = np.where(i < half, dtype.type(-1) + step * i.astype(dtype), dtype.type(1) - step * (steps - 1 - i).astype(dtype))
    if not align_corners:
        r = r * dtype.type(steps - 1) / dtype.type(steps)
    return r.astype(dtype)


def _base_grid(size: tuple, align_corners: bool, dtype: np.dtype) -> np.ndarray:
    """(N, *spatial, dims + 1): the normalized coordinates (x, y[, z]) of each output position and a 1."""
    N, spatial = size[0], tuple(size[2:])
    d = len(spatial)
    base = np.ones((N,) + spatial + (d + 1,), dtype)
    for k in range(d):  # x follows the last spatial dim
        axis = d - 1 - k
        shape = [1] * d
        shape[axis] = spatial[axis]
        base[..., k] = _linspace(spatial[axis], align_corners, dtype).reshape(shape)
    return base


def _affine_grid(theta: Any, size: tuple, align_corners: bool) -> np.ndarray:
    t = np.asarray(theta)
    base = _base_grid(size, align_corners, t.dtype)
    N, d1 = base.shape[0], base.shape[-1]
    flat = base.reshape(N, -1, d1)
    return np.matmul(flat, np.swapaxes(t, 1, 2)).reshape(base.shape[:-1] + (d1 - 1,)).astype(t.dtype)


def _affine_grid_grad(F: Any, grad: Any, align_corners: bool, size: tuple) -> Any:
    """PyTorch's affine_grid_generator_backward: base_grid.view(N, HW, d+1).transpose(1, 2).bmm(grad.view(N, HW, d))
    transposed."""
    dtype = np.asarray(F.raw(grad)).dtype
    base = _base_grid(tuple(size), align_corners, dtype)
    N, d1 = base.shape[0], base.shape[-1]
    flat = np.swapaxes(base.reshape(N, -1, d1), 1, 2)
    g = F.reshape(grad, (N, -1, d1 - 1))
    if F is ArrayMath:
        return np.swapaxes(np.matmul(flat, g), 1, 2)
    from engine import functions as f
    from engine.tensor import Tensor

    return f.transpose(f.bmm(Tensor._make(np.ascontiguousarray(flat)), g), 1, 2)


AFFINE_GRID_GENERATOR = rule("affine_grid_generator", "AffineGridGeneratorBackward0", _affine_grid,
                             (_affine_grid_grad,), ("base_grid^T @ grad, transposed",), inputs=("theta",))


# --- the functions ----------------------------------------------------------------------------------
_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                  "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                  "grid_sample for details.")


def grid_sampler(input: Any, grid: Any, interpolation_mode: int, padding_mode: int, align_corners: bool) -> Any:
    """torch.grid_sampler: PyTorch's checks, then grid_sampler_2d or grid_sampler_3d."""
    from engine.rules import apply

    a, g = input._data, grid._data
    if a.dtype.kind != "f":
        kernel = "grid_sampler_2d_cpu_kernel_impl" if a.ndim == 4 else "grid_sampler_3d_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{input.dtype.legacy.replace("Tensor", "")}\'')
    if a.dtype != g.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.legacy.replace('Tensor', '')} but found "
                           f"{grid.dtype.legacy.replace('Tensor', '')}")
    sizes = f"input with sizes {list(a.shape)} and grid with sizes {list(g.shape)}"
    if a.shape[:1] != g.shape[:1]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got {sizes}")
    if g.shape[-1] != a.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {a.ndim - 2} in last dimension, but got grid "
                           f"with sizes {list(g.shape)}")
    if a.ndim != g.ndim or a.ndim not in (4, 5):
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but "
                           f"got {sizes}" if a.ndim not in (4, 5) else
                           f"grid_sampler(): expected {a.ndim}D input and grid with same number of dimensions, but "
                           f"got {sizes}")
    for k in range(2, a.ndim):
        if a.shape[k] <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {list(a.shape)} with dimension {k} being empty")
    if interpolation_mode == 2:
        if a.ndim != 4:
            raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
        raise NotImplementedError("grid_sample: mode 'bicubic' is not supported by this engine")
    rule = GRID_SAMPLER_2D if a.ndim == 4 else GRID_SAMPLER_3D
    return apply(rule, (input, grid), {"interpolation_mode": interpolation_mode, "padding_mode": padding_mode,
                                       "align_corners": bool(align_corners)})


def grid_sample(input: Any, grid: Any, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Any:
    """Samples input at the normalized coordinates of grid (x, y[, z] in [-1, 1])."""
    import warnings

    if mode not in _INTERPOLATION:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in _PADDING:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    return grid_sampler(input, grid, _INTERPOLATION.index(mode), _PADDING.index(padding_mode), align_corners)


def affine_grid_generator(theta: Any, size: Any, align_corners: bool) -> Any:
    from engine.rules import apply

    size = tuple(int(s) for s in size)
    if theta.shape[0] != size[0]:
        d = len(size) - 2
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{size[0]}, "
                           f"{d + 1}] but got: [{theta.shape[0]}, {d + 1}].")
    return apply(AFFINE_GRID_GENERATOR, (theta,), {"size": size, "align_corners": bool(align_corners)})


def affine_grid(theta: Any, size: Any, align_corners: bool | None = None) -> Any:
    """The sampling grid (N, H, W, 2) or (N, D, H, W, 3) of the affine maps theta over an output of `size`."""
    import warnings

    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. "
                             f"Got {theta.shape}.")
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. "
                             f"Got {theta.shape}.")
        spatial_size = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(spatial_size) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return affine_grid_generator(theta, size, align_corners)
