"""Less common torch functions and Tensor methods: triu/tril_indices, argwhere, isin and friends."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import dtypes
from engine.functions import _constant
from engine.tensor import Tensor

_NUMBER = (int, float, bool)


def _type_name(x: Any) -> str:
    return "Tensor" if isinstance(x, Tensor) else type(x).__name__


def _int_argument(fn: str, name: str, position: int, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be int, not {type(value).__name__}")
    return int(value)


def _triangle_indices(fn: str, lower: bool, args: tuple, kwargs: dict) -> Tensor:
    names = ("row", "col", "offset")
    if len(args) > 3:
        raise TypeError(f"{fn}() takes from 2 to 3 positional arguments but {len(args)} were given")
    values = dict(zip(names, args))
    options = {}
    for key, value in kwargs.items():
        if key in names and key not in values:
            values[key] = value
        elif key in ("dtype", "device", "layout", "requires_grad", "pin_memory"):
            options[key] = value
        else:
            raise TypeError(f"{fn}() got an unexpected keyword argument '{key}'")
    for name in ("row", "col"):
        if name not in values:
            raise TypeError(f'{fn}() missing 1 required positional arguments: "{name}"')
    row, col, offset = (_int_argument(fn, n, i + 1, values.get(n, 0)) for i, n in enumerate(names))
    dtype = options.get("dtype") or dtypes.int64
    if dtype not in (dtypes.int32, dtypes.int64):
        raise NotImplementedError(f'"{fn}" not implemented for \'{dtype.legacy}\'')
    if options.get("requires_grad"):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    for name, n in (("row", row), ("col", col)):
        if n < 0:
            raise RuntimeError(f"{name} must be non-negative, got{n}")
    rows, cols = np.indices((row, col)).reshape(2, -1)
    keep = cols - rows <= offset if lower else cols - rows >= offset
    return _constant(np.stack([rows[keep], cols[keep]]).astype(dtype.np).reshape(2, -1))


def triu_indices(*args: Any, **kwargs: Any) -> Tensor:
    """The (row, column) indices of the upper triangle of a row x col matrix, from diagonal `offset` on."""
    return _triangle_indices("triu_indices", False, args, kwargs)


def tril_indices(*args: Any, **kwargs: Any) -> Tensor:
    """The (row, column) indices of the lower triangle of a row x col matrix, up to diagonal `offset`."""
    return _triangle_indices("tril_indices", True, args, kwargs)


def argwhere(input: Tensor) -> Tensor:
    """The indices of the nonzero elements, one row each (as torch.nonzero)."""
    return _constant(np.asfortranarray(np.argwhere(input._data), np.int64))  # column-major, as PyTorch lays it out


_ISIN_OVERLOADS = (
    " * (Tensor elements, Tensor test_elements, *, bool assume_unique = False, bool invert = False, Tensor out = None)\n"
    " * (Number element, Tensor test_elements, *, bool assume_unique = False, bool invert = False, Tensor out = None)\n"
    " * (Tensor elements, Number test_element, *, bool assume_unique = False, bool invert = False, Tensor out = None)\n"
)


def isin(elements: Any, test_elements: Any, *args: Any, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """Whether each element of `elements` occurs in `test_elements` (a bool tensor shaped like `elements`)."""
    kinds = (isinstance(elements, Tensor), isinstance(test_elements, Tensor))
    numbers = (isinstance(elements, _NUMBER), isinstance(test_elements, _NUMBER))
    if args or not (kinds == (True, True) or kinds[0] and numbers[1] or numbers[0] and kinds[1]):
        got = ", ".join(_type_name(x) for x in (elements, test_elements, *args))
        raise TypeError(f"isin() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        + _ISIN_OVERLOADS)
    from engine import result_type

    for x in (elements, test_elements):
        if isinstance(x, Tensor) and x._data.dtype == np.bool_:
            raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    common = result_type(elements, test_elements).np
    a = elements._data if kinds[0] else np.asarray(elements)
    b = test_elements._data if kinds[1] else np.asarray(test_elements)
    return _constant(np.isin(a.astype(common), b.astype(common), invert=bool(invert)))


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input: Tensor, q: Any, dim: Any, keepdim: bool, interpolation: str, ignore_nan: bool) -> Tensor:
    """PyTorch's quantile_compute, op for op (sort, view, gather, lerp_, then in-place reshaping), so the
    graph, the grad_fn (SqueezeBackward4) and the float rounding are torch's."""
    from engine import functions as f

    if not isinstance(q, Tensor):
        if not 0 <= q <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {float(q):g}")
        q = _constant(np.asarray(q, input._data.dtype))
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    a = input._data
    if a.size == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q._data.ndim > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if a.dtype not in (np.float32, np.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if q._data.dtype != a.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    wrapped = f._wrap_dim(0 if dim is None else dim, a.ndim)
    out_shape: list[int] = []
    if dim is not None and a.ndim > 0:
        out_shape = list(a.shape)
        if keepdim:
            out_shape[wrapped] = 1
        else:
            del out_shape[wrapped]
    elif keepdim:
        out_shape = [1] * a.ndim
    qs = q._data
    if not ((qs >= 0) & (qs <= 1)).all():
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    if dim is None:
        ordered = f.sort(f.flatten(input))[0]
    else:
        ordered = f.sort(f.transpose(f.unsqueeze(input, -1), wrapped, -1))[0]
    in_shape = out_shape + [ordered._data.shape[-1]]
    ordered = f.view(ordered, in_shape)
    values = ordered._data
    nans = np.isnan(values)
    if ignore_nan:
        counts = (~nans).sum(-1, keepdims=True).astype(np.int64) - 1
        ranks = np.asarray(qs * counts.astype(a.dtype))
        ranks = np.where(ranks < 0, np.zeros((), a.dtype), ranks)
    else:
        last = values.shape[-1] - 1
        ranks = np.asarray(qs * np.asarray(last, a.dtype))
        ranks = np.where(nans.any(-1, keepdims=True), np.asarray(last, a.dtype), ranks)
    ranks = np.asarray(ranks, a.dtype)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)
    below = ranks.astype(np.int64)
    result = f.gather(ordered, -1, _constant(below))
    if interpolation in ("linear", "midpoint"):
        weights = np.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below.astype(a.dtype)
        above = f.gather(ordered, -1, _constant(np.ceil(ranks).astype(np.int64)))
        f.lerp_(result, above, _constant(np.asarray(weights, a.dtype)))
    if qs.ndim == 0:
        f.squeeze_(result, -1)
    else:
        f.squeeze_(f.transpose_(f.unsqueeze_(result, 0), 0, -1), -1)
    return result


def quantile(input: Tensor, q: Any, dim: Any = None, keepdim: bool = False, *, interpolation: str = "linear") -> Tensor:
    """The q-th quantiles of `input` (over all elements, or along `dim`), interpolated as asked."""
    return _quantile(input, q, dim, keepdim, interpolation, False)


def nanquantile(input: Tensor, q: Any, dim: Any = None, keepdim: bool = False, *,
                interpolation: str = "linear") -> Tensor:
    """torch.quantile ignoring NaNs (nan only where a row holds nothing else)."""
    return _quantile(input, q, dim, keepdim, interpolation, True)


def _renorm_attrs(input: Tensor, p: Any, dim: int, maxnorm: Any) -> dict:
    from engine.functions import _wrap_dim

    if float(p) <= 0.0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if float(maxnorm) < 0.0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {float(maxnorm):g}")
    ndim = input._data.ndim
    if ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {ndim} dimensions")
    return {"p": p, "dim": _wrap_dim(dim, ndim), "maxnorm": maxnorm}


def renorm(input: Tensor, p: Any, dim: int, maxnorm: Any) -> Tensor:
    """Each slice along `dim` rescaled to p-norm at most `maxnorm` (RenormBackward0)."""
    from engine import ops
    from engine.rules import apply

    attrs = _renorm_attrs(input, p, dim, maxnorm)
    if input._data.dtype.kind != "f":
        from engine.functions import _constant

        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{dtypes.from_numpy(input._data.dtype).legacy}")
    return apply(ops.RENORM, (input,), attrs)


def renorm_(self: Tensor, p: Any, dim: int, maxnorm: Any) -> Tensor:
    from engine import ops
    from engine.functions import _inplace

    return _inplace(self, ops.RENORM, (), _renorm_attrs(self, p, dim, maxnorm))


def _int_sequence(value: Any) -> tuple[int, ...]:
    from engine.tensor import Size

    return tuple(int(v) for v in value) if isinstance(value, (tuple, list, Size)) else (int(value),)


def as_strided(input: Tensor, size: Any, stride: Any, storage_offset: Any = None) -> Tensor:
    """A view of `input`'s storage with the given size, stride and storage offset (in elements), as
    PyTorch reads it: the storage is the row-major memory of the tensor `input` views (or owns)."""
    from engine import ops
    from engine.rules import apply

    size, stride = _int_sequence(size), _int_sequence(stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {list(stride)}")
    root = input._base if input._base is not None else input
    buffer = root._data
    shared = buffer.flags.c_contiguous and (root is input or np.shares_memory(buffer, input._data))
    if not shared:  # no row-major memory behind it: a copy of the input's values stands for its storage
        buffer = np.ascontiguousarray(input._data)
    offset = (input.storage_offset() if shared else 0) if storage_offset is None else int(storage_offset)
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    item = buffer.dtype.itemsize
    if input._data.dtype == dtypes.bfloat16.np:
        item = 2
    needed = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if needed > buffer.size:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                           f"itemsize {item} requiring a storage size of {needed * item} are out of bounds for "
                           f"storage of size {buffer.size * item}")
    step = buffer.dtype.itemsize
    flat = buffer.reshape(-1)
    view = np.ndarray(size, buffer.dtype, flat, offset * step if needed else 0, tuple(s * step for s in stride))
    attrs = {"size": size, "stride": stride, "storage_offset": storage_offset, "geometry": (buffer, view)}
    if input._data is not buffer:
        attrs["input_geometry"] = ops.where_in_base(buffer, input._data) if shared else (
            buffer.shape, buffer.shape, tuple(s // step for s in buffer.strides), 0)
    return apply(ops.AS_STRIDED, (input,), attrs)


def _split_along(fn: str, input: Tensor, indices_or_sections: Any, dim: int, min_dims: int) -> tuple:
    """hsplit/vsplit/dsplit: tensor_split along `dim`, a number of sections having to divide its size."""
    from engine.functions import tensor_split

    ndim = input._data.ndim
    if ndim < min_dims:
        raise RuntimeError(f"torch.{fn} requires a tensor with at least {min_dims} dimension, but got a tensor with "
                           f"{ndim} dimensions!")
    if isinstance(indices_or_sections, int):
        size = input._data.shape[dim]
        if indices_or_sections == 0 or size % indices_or_sections:
            raise RuntimeError(f"torch.{fn} attempted to split along dimension {dim}, but the size of the dimension "
                               f"{size} is not divisible by the split_size {indices_or_sections}!")
    return tensor_split(input, indices_or_sections, dim)


def hsplit(input: Tensor, indices_or_sections: Any) -> tuple:
    """Split along the columns (dim 1; dim 0 of a 1-D tensor)."""
    return _split_along("hsplit", input, indices_or_sections, 1 if input._data.ndim > 1 else 0, 1)


def vsplit(input: Tensor, indices_or_sections: Any) -> tuple:
    """Split along the rows (dim 0)."""
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input: Tensor, indices_or_sections: Any) -> tuple:
    """Split along the depth (dim 2)."""
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """A copy of input.narrow(dim, start, length) (NarrowCopyBackward0)."""
    from engine import ops
    from engine.functions import _wrap_dim
    from engine.rules import apply

    dim = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[dim]
    start = start + size if start < 0 else start
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return apply(ops.NARROW_COPY, (input,), {"dim": dim, "start": start, "length": length})


_scatter_reduce_warned = [False]


def scatter_reduced(input: Tensor, dim: int, index: Tensor, src: Any, reduce: str) -> Tensor:
    """scatter(..., reduce='add'|'multiply'): src (or a number) added into / multiplied onto input at index
    along dim. PyTorch has no derivative for it (a NotImplemented node) and warns once about a tensor src."""
    import warnings

    from engine.functions import _scatter_args, _wrap_dim, not_implemented_result

    if reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    if isinstance(src, Tensor) and not _scatter_reduce_warned[0]:
        _scatter_reduce_warned[0] = True
        warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a "
                      "future PyTorch release. Use torch.scatter_reduce instead for more reduction options. "
                      "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:225.)",
                      UserWarning, stacklevel=3)
    _, others, attrs = _scatter_args(input, dim, index, src)
    idx = attrs["index"]
    out = input._data.copy()
    if idx.size:
        d = _wrap_dim(dim, out.ndim)
        where = list(np.indices(idx.shape))
        where[d] = idx
        values = others[0]._data[tuple(slice(0, n) for n in idx.shape)] if others else np.asarray(attrs["value"], out.dtype)
        ufunc = np.add if reduce == "add" else np.multiply
        ufunc.at(out.reshape(out.shape or (1,)), tuple(where), np.broadcast_to(values, idx.shape).astype(out.dtype))
    return not_implemented_result("scatter", out, (input, *others))


def _invalid_combination(fn: str, args: tuple, overloads: tuple) -> TypeError:
    got = ", ".join(_type_name(x) for x in args)
    expected = "".join(f" * ({o})\n" for o in overloads)
    return TypeError(f"{fn}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     + expected)


def _require_tensor(fn: str, name: str, position: int, value: Any) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be Tensor, not {type(value).__name__}")


def logaddexp2(input: Tensor, other: Tensor) -> Tensor:
    """log2(2^input + 2^other) (Logaddexp2Backward0)."""
    from engine import ops
    from engine.functions import _check_broadcast
    from engine.rules import apply

    _require_tensor("logaddexp2", "other", 2, other)
    _check_broadcast(input, other)
    from engine import result_type

    common = result_type(input, other)
    if common.np.kind in "biu":
        raise NotImplementedError(f'"logaddexp2_cpu" not implemented for \'{common.legacy}\'')
    return apply(ops.LOGADDEXP2, (input, other))


_FLOAT_POWER_OVERLOADS = ("Tensor input, Tensor exponent, *, Tensor out = None",
                          "Number self, Tensor exponent, *, Tensor out = None",
                          "Tensor input, Number exponent, *, Tensor out = None")


def float_power(input: Any, exponent: Any) -> Tensor:
    """pow in double precision: PyTorch's input.to(float64).pow(exponent.to(float64)), so the result is float64
    and the graph holds ToCopyBackward0 nodes before the PowBackward node."""
    from engine.functions import pow

    kinds = (isinstance(input, Tensor), isinstance(exponent, Tensor))
    if not (kinds == (True, True) or kinds[0] and isinstance(exponent, _NUMBER)
            or kinds[1] and isinstance(input, _NUMBER)):
        raise _invalid_combination("float_power", (input, exponent), _FLOAT_POWER_OVERLOADS)
    if not kinds[0]:
        return pow(float(input), exponent.to(dtypes.float64))
    base = input.to(dtypes.float64)
    return pow(base, exponent.to(dtypes.float64) if kinds[1] else float(exponent))


def float_power_(self: Tensor, exponent: Any) -> Tensor:
    """In-place float_power: only a float64 tensor can hold the result."""
    from engine.methods import _pow_

    if self._data.dtype != np.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {self.dtype.legacy} but the operation's "
                           "result requires dtype Double")
    return _pow_(self, exponent.to(dtypes.float64) if isinstance(exponent, Tensor) else float(exponent))


_TRUE_DIVIDE_OVERLOADS = ("Tensor input, Tensor other, *, Tensor out = None", "Tensor input, Number other")


def true_divide(input: Any, other: Any = None, *args: Any) -> Tensor:
    """input / other, always true division (div without rounding_mode)."""
    from engine.functions import div

    if other is None or args or not isinstance(input, Tensor) or not isinstance(other, (Tensor, *_NUMBER)):
        raise _invalid_combination("true_divide", (input,) + (() if other is None else (other,)) + args,
                                   _TRUE_DIVIDE_OVERLOADS)
    return div(input, other)


def true_divide_(self: Tensor, other: Any) -> Tensor:
    from engine.methods import _div_

    return _div_(self, other)


def ldexp(input: Tensor, other: Tensor) -> Tensor:
    """input * 2^other, in floating point (LdexpBackward0)."""
    from engine import ops
    from engine.functions import _check_broadcast
    from engine.rules import apply

    _require_tensor("ldexp", "input", 1, input)
    _require_tensor("ldexp", "other", 2, other)
    _check_broadcast(input, other)
    return apply(ops.LDEXP, (input, other))


def ldexp_(self: Tensor, other: Tensor) -> Tensor:
    from engine import ops
    from engine.functions import _inplace

    _require_tensor("ldexp_", "other", 1, other)
    if self._data.dtype.kind in "biu":
        raise RuntimeError(f"ldexp can't be cast to the desired output type {self.dtype.legacy}")
    return _inplace(self, ops.LDEXP, (other,))


def frexp(input: Tensor) -> Any:
    """(mantissa, exponent) with input = mantissa * 2^exponent, |mantissa| in [0.5, 1) (FrexpBackward0)."""
    from engine import ops
    from engine.rules import apply

    _require_tensor("frexp", "input", 1, input)
    if input._data.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return Frexp(*apply(ops.FREXP, (input,)))


def _frexp_type() -> type:
    from engine.functions import _named_result

    return _named_result("frexp", ("mantissa", "exponent"))


Frexp = _frexp_type()


def _check_scattered_size(src: Tensor, region: np.ndarray) -> None:
    if src._data.shape != region.shape:
        raise RuntimeError("expected src to have a size equal to the slice of self. src size = "
                           f"{list(src._data.shape)}, slice size = {list(region.shape)}")


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: Any = None, end: Any = None,
                  step: int = 1) -> Tensor:
    """A copy of input with src written into input[..., start:end:step] along dim (SliceScatterBackward0)."""
    from engine import ops
    from engine.functions import _wrap_dim
    from engine.rules import apply

    _require_tensor("slice_scatter", "src", 2, src)
    d = _wrap_dim(dim, input._data.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    _check_scattered_size(src, input._data[ops._key(d, slice(start, end, step))])
    return apply(ops.SLICE_SCATTER, (input, src), {"dim": dim, "start": start, "end": end, "step": step})


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of input with src written into input.select(dim, index) (SelectScatterBackward0)."""
    from engine import ops
    from engine.functions import _wrap_dim
    from engine.rules import apply

    _require_tensor("select_scatter", "src", 2, src)
    a = input._data
    if a.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, a.ndim)
    if not -a.shape[d] <= index < a.shape[d]:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(a.shape)} at dimension {d}")
    _check_scattered_size(src, a[ops._key(d, index)])
    return apply(ops.SELECT_SCATTER, (input, src), {"dim": dim, "index": int(index)})


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """A copy of input with src written onto its diagonal(offset, dim1, dim2) (DiagonalScatterBackward0)."""
    from engine import ops
    from engine.functions import _diagonal_dims, _wrap_dim
    from engine.rules import apply

    _require_tensor("diagonal_scatter", "src", 2, src)
    ndim = input._data.ndim
    d1, d2 = _wrap_dim(dim1, ndim), _wrap_dim(dim2, ndim)
    _diagonal_dims(ndim, dim1, dim2)
    _check_scattered_size(src, ops._diagonal_view(input._data, offset, d1, d2))
    return apply(ops.DIAGONAL_SCATTER, (input, src), {"offset": offset, "dim1": dim1, "dim2": dim2})


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The length-r combinations of a 1-D tensor's elements, one per row: PyTorch's meshgrid, masked_select per
    grid and stack (StackBackward0 over MaskedSelectBackward0 nodes)."""
    from engine.functions import _constant as constant, masked_select, meshgrid, stack

    if input._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input._data.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return constant(np.zeros((0,), input._data.dtype))
    n = input._data.shape[0]
    grids = meshgrid(*[input] * r, indexing="ij")
    index = np.indices((n,) * r)
    mask = np.ones((n,) * r, bool)
    for k in range(r - 1):
        mask &= index[k] <= index[k + 1] if with_replacement else index[k] < index[k + 1]
    mask_tensor = constant(mask)
    return stack([masked_select(g, mask_tensor) for g in grids], 1)


def gradient(input: Tensor, *, spacing: Any = 1, dim: Any = None, edge_order: int = 1) -> tuple:
    """Central differences along each dim (one-sided at the edges, to first or second order), as PyTorch's
    gradient_helper_float / gradient_helper compose them from slices, arithmetic and cat."""
    from engine.functions import _dim_tuple, _slice, cat, diff
    from engine.rules import apply
    from engine import ops

    ndim = input._data.ndim
    dims = tuple(range(ndim)) if dim is None else _dim_tuple(dim, ndim)
    if isinstance(spacing, (list, tuple)):
        spacings = list(spacing)
        if dim is None and len(spacings) != ndim:
            raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal "
                               f"to 'self.dim() = {ndim}', since dim argument was not given, but got a list of length "
                               f"{len(spacings)}")
        if dim is not None and len(spacings) != len(dims):
            raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                               f"arguments to have the same length, but got a spacing argument of length {len(spacings)}"
                               f" and a dim argument of length {len(dims)}.")
    else:
        spacings = [spacing] * len(dims)
    if input._data.dtype == np.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    for d in dims:
        if input._data.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")

    def part(d: int, start: Any, end: Any = None) -> Tensor:
        return _slice(input, d, start, end, 1)

    def scaled(x: Tensor, c: float) -> Tensor:
        return apply(ops.MUL_SCALAR, (x,), {"other": c})

    def divided(x: Tensor, c: Any) -> Tensor:
        return x / c if isinstance(c, Tensor) else apply(ops.DIV_SCALAR, (x,), {"other": c})

    result = []
    for d, h in zip(dims, spacings):
        d = d % ndim
        if isinstance(h, Tensor):
            if h._data.ndim != 1:
                raise RuntimeError("torch.gradient expected each element of spacing to have one dimension, but got an "
                                   f"element with {h._data.ndim} dimensions!")
            shape = [1] * ndim
            shape[d] = -1
            dx = diff(h, 1, 0)
            dx1, dx2 = _slice(dx, 0, 0, -1, 1), _slice(dx, 0, 1, None, 1)
            a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
            b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
            c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
            center = a * part(d, 0, -2) + b * part(d, 1, -1) + c * part(d, 2)
            first, second, last, before = dx[0], dx[1], dx[-1], dx[-2]
            if edge_order == 1:
                prepend = (part(d, 1, 2) - part(d, 0, 1)) / first
                append = (part(d, -1) - part(d, -2, -1)) / last
            else:
                a = -(2.0 * first + second) / (first * (first + second))
                b = (first + second) / (first * second)
                c = (-first) / (second * (first + second))
                prepend = a * part(d, 0, 1) + b * part(d, 1, 2) + c * part(d, 2, 3)
                a = last / (before * (last + before))
                b = -(last + before) / (last * before)
                c = (2 * last + before) / (last * (last + before))
                append = a * part(d, -3, -2) + b * part(d, -2, -1) + c * part(d, -1)
        else:
            center = divided(part(d, 2) - part(d, 0, -2), h)
            if edge_order == 1:
                prepend = divided(part(d, 1, 2) - part(d, 0, 1), h)
                append = divided(part(d, -1) - part(d, -2, -1), h)
            else:
                prepend = divided(scaled(part(d, 0, 1), -1.5) + scaled(part(d, 1, 2), 2) - scaled(part(d, 2, 3), 0.5), h)
                append = divided(scaled(part(d, -3, -2), 0.5) - scaled(part(d, -2, -1), 2) + scaled(part(d, -1), 1.5), h)
            center = divided(center, 2)
        result.append(cat([prepend, center, append], d))
    return tuple(result)


METHODS = {"hsplit": hsplit, "vsplit": vsplit, "dsplit": dsplit, "narrow_copy": narrow_copy, "as_strided": as_strided, "argwhere": argwhere, "quantile": quantile, "nanquantile": nanquantile, "renorm": renorm,
           "renorm_": renorm_, "logaddexp2": logaddexp2, "float_power": float_power, "float_power_": float_power_,
           "true_divide": true_divide, "true_divide_": true_divide_, "ldexp": ldexp, "ldexp_": ldexp_,
           "frexp": frexp, "slice_scatter": slice_scatter, "select_scatter": select_scatter,
           "diagonal_scatter": diagonal_scatter}
