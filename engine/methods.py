"""Attaches the torch functions to Tensor as methods and Python operators."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import bitwise as _bitwise
from engine import creation as _creation
from engine import devices, messages
from engine import more_math as _more_math
from engine import extra_ops as _extra_ops
from engine import functions as f
from engine import ops
from engine.tensor import Tensor


def _reflected(fn: Any) -> Any:
    def method(self: Tensor, other: Any) -> Any:
        return fn(other, self)

    return method


def _reflected_tensor(fn: Any) -> Any:
    """A reflected operator that takes Tensors only (`2 @ x` is Python's TypeError, as in PyTorch)."""
    def method(self: Tensor, other: Any) -> Any:
        return fn(other, self) if isinstance(other, Tensor) else NotImplemented

    return method


def _inplace_binary(rule: Any, attr: str | None = None) -> Any:
    def method(self: Tensor, other: Any, **attrs: Any) -> Tensor:
        if "alpha" in attrs and (rule is ops.ADD or rule is ops.SUB):
            attrs["alpha"] = f._checked_alpha(self, other, attrs["alpha"])
        if attr is not None:
            return f._inplace(self, rule, (), {attr: other, **attrs})
        return f._inplace(self, rule, (other,), attrs or None)

    return method


def _inplace_unary(rule: Any) -> Any:
    def method(self: Tensor) -> Tensor:
        return f._inplace(self, rule, ())

    return method


def _pin_memory(self: Tensor, device: Any = None) -> Tensor:
    raise RuntimeError("Cannot access accelerator device when none is available.")  # PyTorch's CPU-only build


def _is_pinned(self: Tensor, device: Any = None) -> bool:
    return False  # nothing is pinned without an accelerator


def _round_(self: Tensor, *, decimals: Any = None) -> Tensor:
    if decimals is None:
        return f._inplace(self, ops.ROUND, ())
    return f._inplace(self, ops.ROUND_DECIMALS, (), {"decimals": decimals})


def _pow_(self: Tensor, exponent: Any) -> Tensor:
    if isinstance(exponent, Tensor):
        return f._inplace(self, ops.POW_TENSOR, (exponent,))
    return f._inplace(self, ops.POW, (), {"exponent": exponent})


def _div_(self: Tensor, other: Any, *, rounding_mode: Any = f._TRUE_DIVISION) -> Tensor:
    if rounding_mode is f._TRUE_DIVISION:
        return f._inplace(self, ops.DIV, (other,))
    f._check_rounding_mode(rounding_mode)
    if rounding_mode is not None:
        f._check_integer_divisor(self, other)
    return f._inplace(self, ops.DIV_MODE, (other,), {"rounding_mode": rounding_mode})


def _mod_inplace(tensor_rule: Any, scalar_rule: Any) -> Any:
    def method(self: Tensor, other: Any) -> Tensor:
        f._check_integer_divisor(self, other)
        if isinstance(other, Tensor):
            return f._inplace(self, tensor_rule, (other,))
        return f._inplace(self, scalar_rule, (), {"other": other})

    return method


def _clamp_(self: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    return f._inplace(self, ops.CLAMP, (), {"min": min, "max": max})


def _masked_fill_(self: Tensor, mask: Any, value: Any) -> Tensor:
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    f.check_mask(m)
    if isinstance(value, Tensor):
        f._check_fill_value(value)
        return f._inplace(self, ops.MASKED_FILL_TENSOR, (value,), {"mask": m})
    f.check_fill_number(value, "masked_fill_")
    return f._inplace(self, ops.MASKED_FILL, (), {"mask": m, "value": f.fill_value(value, self._data.dtype)})


def _flip(self: Tensor, *dims: Any, **kwargs: Any) -> Tensor:
    """Tensor.flip takes the dims as one sequence or spread out: x.flip(0, 1) == x.flip((0, 1))."""
    if not dims:
        return f.flip(self, **kwargs)
    return f.flip(self, dims[0] if len(dims) == 1 else dims, **kwargs)


def _type(self: Tensor, dtype: Any = None) -> Any:
    if dtype is None:
        return f"torch.{self.dtype.legacy}Tensor"
    from engine.legacy_tensors import dtype_of_type

    return f.to(self, dtype_of_type(dtype))


def _convert(dtype_name: str) -> Any:
    def method(self: Tensor) -> Tensor:
        from engine import dtypes

        return f.to(self, getattr(dtypes, dtype_name))

    return method


def _max(self: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    return f.max(self, dim, keepdim)


def _min(self: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    return f.min(self, dim, keepdim)


def _new_tensor(self: Tensor, data: Any, dtype: Any = None, requires_grad: bool = False,
                device: Any = None) -> Tensor:
    from engine.creation import tensor

    devices.check(device, creating=True)
    return tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _new_filled(fill: Any) -> Any:
    def method(self: Tensor, *size: Any, dtype: Any = None, requires_grad: bool = False,
               device: Any = None) -> Tensor:
        from engine.creation import full

        devices.check(device, creating=True)
        return full(f._size_args(size), fill, dtype=dtype or self.dtype, requires_grad=requires_grad)

    return method


def _new_full(self: Tensor, size: Any, fill_value: Any, *, dtype: Any = None,
              requires_grad: bool = False, device: Any = None) -> Tensor:
    from engine.creation import full

    devices.check(device, creating=True)
    return full(tuple(size), fill_value, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _relu_(self: Tensor) -> Tensor:
    return f._inplace(self, ops.RELU, ())


def _cpu(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    if self.is_meta:
        raise NotImplementedError(messages.META_NO_DATA)
    return self


def _cuda(self: Tensor, device: Any = None, non_blocking: bool = False, **kwargs: Any) -> Tensor:
    devices.check_cuda(device)
    return self


def _to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    from engine.dtype_args import check_to

    check_to(args, kwargs)
    devices.check_to(args, kwargs)
    if self.is_meta or any(devices.is_device(a) for a in args) or kwargs.get("device") is not None:
        from engine import meta

        target = meta.devices_named(args, kwargs)
        if any(meta.is_meta_device(d) for d in target):
            out = f.to(self, *[a for a in args if not devices.is_device(a)],
                       **{k: v for k, v in kwargs.items() if k != "device"})
            return meta.to_meta(self if out is self else out)
        if self.is_meta and any(d is not None for d in target):
            raise NotImplementedError(messages.META_NO_DATA)
    return f.to(self, *args, **kwargs)


def _get_device(self: Tensor) -> int:
    return -1


METHODS = {
    # operators
    "__add__": f.add_op, "__radd__": f.add_op, "__sub__": f.sub_op, "__rsub__": f.rsub,
    "__mul__": f.mul_op, "__rmul__": f.mul_op, "__truediv__": f.div_op, "__rtruediv__": _reflected(f.div_op),
    "__neg__": f.neg, "__pos__": lambda self: self, "__pow__": f.pow, "__rpow__": _reflected(f.pow),
    "__matmul__": f.matmul, "__rmatmul__": _reflected_tensor(f.matmul), "__abs__": f.abs,
    "__mod__": f.remainder, "__rmod__": _reflected(f.remainder), "__floordiv__": f.floor_divide,
    "__rfloordiv__": _reflected(f.floor_divide),
    "__lt__": f.lt, "__le__": f.le, "__gt__": f.gt, "__ge__": f.ge, "__eq__": f.eq, "__ne__": f.ne,
    "__getitem__": f.getitem, "__setitem__": f.setitem,
    "__iadd__": _inplace_binary(ops.ADD), "__isub__": _inplace_binary(ops.SUB),
    "__imul__": _inplace_binary(ops.MUL), "__itruediv__": _div_, "__ipow__": _pow_,
    # methods
    "add": f.add, "sub": f.sub, "subtract": f.sub, "mul": f.mul, "multiply": f.mul, "div": f.div,
    "divide": f.div, "true_divide": f.div, "neg": f.neg, "negative": f.neg, "pow": f.pow,
    "square": f.square, "reciprocal": f.reciprocal, "remainder": f.remainder, "fmod": f.fmod,
    "exp": f.exp, "log": f.log, "sin": f.sin, "cos": f.cos, "tanh": f.tanh, "sigmoid": f.sigmoid,
    "relu": f.relu, "sqrt": f.sqrt, "abs": f.abs, "absolute": f.abs, "sign": f.sign,
    "log1p": f.log1p, "log2": f.log2, "log10": f.log10, "expm1": f.expm1, "exp2": f.exp2,
    "rsqrt": f.rsqrt, "tan": f.tan, "sinh": f.sinh, "cosh": f.cosh, "asin": f.asin, "acos": f.acos,
    "atan": f.atan, "arcsin": f.asin, "arccos": f.acos, "arctan": f.atan, "erf": f.erf,
    "floor": f.floor, "ceil": f.ceil, "round": f.round, "trunc": f.trunc, "frac": f.frac,
    "clamp": f.clamp, "clip": f.clamp, "clamp_min": f.clamp_min, "clamp_max": f.clamp_max,
    "maximum": f.maximum, "minimum": f.minimum, "masked_fill": f.masked_fill, "where": (
        lambda self, condition, other: f.where(condition, self, other)),
    "sum": f.sum, "mean": f.mean, "sum_to_size": f.sum_to_size, "prod": f.prod, "var": f.var,
    "std": f.std, "norm": f.norm, "max": _max, "min": _min, "amax": f.amax, "amin": f.amin,
    "argmax": f.argmax, "argmin": f.argmin, "logsumexp": f.logsumexp, "cumsum": f.cumsum,
    "cumprod": f.cumprod, "msort": f.msort, "median": f.median, "nanmedian": f.nanmedian,
    "nansum": f.nansum, "nanmean": f.nanmean, "roll": f.roll,
    "softmax": f.softmax, "log_softmax": f.log_softmax, "sort": f.sort, "argsort": f.argsort, "topk": f.topk, "multinomial": _creation.multinomial,
    "diag": f.diag, "diagonal": f.diagonal, "diag_embed": f.diag_embed, "trace": f.trace, "nan_to_num": f.nan_to_num, "broadcast_to": f.broadcast_to,
    "all": f.all, "any": f.any, "nonzero": f.nonzero, "count_nonzero": f.count_nonzero,
    "isnan": f.isnan, "isinf": f.isinf, "isfinite": f.isfinite, "allclose": f.allclose,
    "isclose": f.isclose, "equal": f.equal, "logical_not": f.logical_not,
    "logical_and": f.logical_and, "logical_or": f.logical_or,
    "matmul": f.matmul, "mm": f.mm, "dot": f.dot, "mv": f.mv, "bmm": f.bmm, "outer": f.outer,
    "ger": f.outer, "addmm": f.addmm,
    "view": f.view, "view_as": f.view_as, "reshape": f.reshape, "reshape_as": f.reshape_as,
    "flatten": f.flatten, "expand": f.expand, "expand_as": f.expand_as, "t": f.t,
    "transpose": f.transpose, "swapaxes": f.transpose, "permute": f.permute, "unsqueeze": f.unsqueeze,
    "squeeze": f.squeeze, "contiguous": f.contiguous, "repeat": f.repeat, "flip": _flip,
    "narrow": f.narrow, "select": f.select, "gather": f.gather, "index_select": f.index_select,
    "scatter": f.scatter, "scatter_": f.scatter_, "scatter_add": f.scatter_add, "scatter_add_": f.scatter_add_,
    "take_along_dim": f.take_along_dim, "unbind": f.unbind, "split": f.split, "chunk": f.chunk,
    "unsafe_split": f.unsafe_split, "unsafe_chunk": f.unsafe_chunk,
    "tril": f.tril, "triu": f.triu, "repeat_interleave": f.repeat_interleave,
    "clone": f.clone, "to": _to, "type": _type, "pin_memory": _pin_memory, "is_pinned": _is_pinned,
    "type_as": f.type_as,
    "double": _convert("float64"), "float": _convert("float32"), "half": _convert("float16"),
    "bfloat16": _convert("bfloat16"),
    "long": _convert("int64"), "int": _convert("int32"), "short": _convert("int16"),
    "bool": _convert("bool_"), "byte": _convert("uint8"), "cpu": _cpu, "cuda": _cuda,
    "get_device": _get_device,
    "new_tensor": _new_tensor, "new_zeros": _new_filled(0), "new_ones": _new_filled(1),
    "new_empty": _new_filled(0),
    "lt": f.lt, "le": f.le, "gt": f.gt, "ge": f.ge, "eq": f.eq, "ne": f.ne,
    "less": f.lt, "greater": f.gt,
    # in-place
    "add_": _inplace_binary(ops.ADD), "sub_": _inplace_binary(ops.SUB), "mul_": _inplace_binary(ops.MUL),
    "div_": _div_, "pow_": _pow_, "neg_": _inplace_unary(ops.NEG),
    "exp_": _inplace_unary(ops.EXP), "log_": _inplace_unary(ops.LOG), "sin_": _inplace_unary(ops.SIN),
    "cos_": _inplace_unary(ops.COS), "sqrt_": _inplace_unary(ops.SQRT), "abs_": _inplace_unary(ops.ABS),
    "relu_": _relu_, "sigmoid_": _inplace_unary(ops.SIGMOID), "tanh_": _inplace_unary(ops.TANH),
    "floor_": _inplace_unary(ops.FLOOR), "round_": _round_,
    "sign_": _inplace_unary(ops.SIGN), "reciprocal_": _inplace_unary(ops.RECIPROCAL),
    "clamp_": _clamp_, "clip_": _clamp_, "clamp_min_": _inplace_binary(ops.CLAMP_MIN, "min"),
    "clamp_max_": _inplace_binary(ops.CLAMP_MAX, "max"), "masked_fill_": _masked_fill_,
    "zero_": f.zero_, "fill_": f.fill_, "copy_": f.copy_,
    "tril_": lambda self, diagonal=0: f._inplace(self, ops.TRIL, (), {"diagonal": diagonal}),
    "triu_": lambda self, diagonal=0: f._inplace(self, ops.TRIU, (), {"diagonal": diagonal}),
    "addcmul": f.addcmul, "addcdiv": f.addcdiv, "addcmul_": f.addcmul_, "addcdiv_": f.addcdiv_,
    "lerp": f.lerp, "lerp_": f.lerp_, "atan2": f.atan2, "arctan2": f.atan2, "hypot": f.hypot, "dist": f.dist,
    "baddbmm": f.baddbmm, "logaddexp": f.logaddexp,
    "xlogy": f.xlogy, "sgn": f.sgn, "signbit": f.signbit, "sinc": f.sinc, "deg2rad": f.deg2rad,
    "rad2deg": f.rad2deg, "logit": f.logit, "lgamma": f.lgamma, "digamma": f.digamma, "erfinv": f.erfinv,
    "polygamma": lambda self, n: f.polygamma(n, self), "square_": f.square_, "t_": f.t_,
    "transpose_": f.transpose_, "swapaxes_": f.transpose_, "swapdims_": f.transpose_, "squeeze_": f.squeeze_,
    "unsqueeze_": f.unsqueeze_,
    "ravel": f.ravel, "tile": f.tile, "movedim": f.movedim, "moveaxis": f.movedim, "swapdims": f.transpose,
    "fliplr": f.fliplr, "flipud": f.flipud, "rot90": f.rot90, "unflatten": f.unflatten,
    "tensor_split": f.tensor_split, "unfold": f.unfold, "diagflat": f.diagflat,
    "masked_select": f.masked_select,
    "masked_scatter": f.masked_scatter, "masked_scatter_": f.masked_scatter_, "take": f.take, "put": f.put,
    "put_": f.put_, "index_add": f.index_add, "index_add_": f.index_add_,
    "index_reduce": f.index_reduce, "index_reduce_": f.index_reduce_, "index_fill": f.index_fill,
    "index_fill_": f.index_fill_, "index_copy": f.index_copy, "index_copy_": f.index_copy_,
    "index_put": f.index_put, "index_put_": f.index_put_, "fill_diagonal_": f.fill_diagonal_,
    "scatter_reduce": f.scatter_reduce, "scatter_reduce_": f.scatter_reduce_, "new_full": _new_full,
    "cummax": f.cummax, "cummin": f.cummin, "logcumsumexp": f.logcumsumexp, "kthvalue": f.kthvalue,
    "mode": f.mode, "aminmax": f.aminmax, "diff": f.diff, "unique": f.unique,
    "unique_consecutive": f.unique_consecutive, "bincount": f.bincount, "histc": f.histc, "histogram": f.histogram,
    "det": f.det, "logdet": f.logdet, "slogdet": f.slogdet, "inverse": f.inverse,
    "matrix_power": f.matrix_power,
    "addmv": f.addmv, "matrix_exp": f.matrix_exp, "pinverse": f.pinverse,
    "qr": f.qr, "cholesky": f.cholesky, "lu": f._tensor_lu, "lu_solve": f.lu_solve,
    "cross": f.cross, "inner": f.inner, "vdot": f.vdot, "kron": f.kron,
    "uniform_": _creation.uniform_, "normal_": _creation.normal_, "random_": _creation.random_,
    "exponential_": _creation.exponential_, "geometric_": _creation.geometric_, "cauchy_": _creation.cauchy_,
    "log_normal_": _creation.log_normal_, "bernoulli_": _creation.bernoulli_, "bernoulli": _creation.bernoulli,
}

METHODS.update({
    "fmod_": _mod_inplace(ops.FMOD_TENSOR, ops.FMOD),
    "remainder_": _mod_inplace(ops.REMAINDER_TENSOR, ops.REMAINDER),
    "__imod__": _mod_inplace(ops.REMAINDER_TENSOR, ops.REMAINDER),
})
METHODS.update(_bitwise.METHODS)
METHODS.update(_more_math.METHODS)  # & | ^ ~ << >> and their in-place forms
METHODS.update(_extra_ops.METHODS)
from engine import compare_ops as _compare_ops  # noqa: E402

METHODS.update(_compare_ops.METHODS)  # lt_, eq_..., gcd, lcm, nextafter
for _name in ("maximum", "minimum", "fmax", "fmin", "atan2", "arctan2", "hypot", "logical_and", "logical_or",
              "logical_xor", "isclose", "allclose", "equal"):  # `other` must be a Tensor (position 1 in a method)
    METHODS[_name] = _compare_ops._method_other(METHODS[_name], _name)

for _name, _fn in METHODS.items():
    setattr(Tensor, _name, _fn)

def _reversed_dims(self: Tensor) -> Tensor:
    """x.T: the dims reversed; PyTorch warns (once) when x is not a matrix, except for vectors."""
    ndim = self._data.ndim
    if ndim == 0:
        _deprecated_on_0d("T", "This function is the identity in these cases.")
    elif ndim > 2:
        _warn_once("T", "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
                   "and it will throw an error in a future release. Consider `x.mT` to transpose batches of matrices "
                   "or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.", 4314, 3)
    return f.permute(self, tuple(reversed(range(ndim))))


Tensor.T = property(_reversed_dims)  # type: ignore[attr-defined]

_warned: set = set()
_SHAPE_CPP_LINES = {"T0": 4321, "mT0": 4373, "mH0": 4382, "H0": 4335}


def _warn_once(key: str, message: str, line: int, stacklevel: int = 4) -> None:
    """PyTorch's TORCH_WARN_ONCE from TensorShape.cpp: the first use in the process warns."""
    import warnings

    if key not in _warned:
        _warned.add(key)
        warnings.warn(f"{message} (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
                      f"TensorShape.cpp:{line}.)", UserWarning, stacklevel=stacklevel)


def _deprecated_on_0d(name: str, note: str) -> None:
    _warn_once(name + "0", f"Tensor.{name} is deprecated on 0-D tensors. {note}", _SHAPE_CPP_LINES[name + "0"])


def _matrix_transpose(name: str, zero_dim_note: str) -> Any:
    """x.mT and x.mH (the adjoint of a real tensor): the last two dims swapped."""

    def get(self: Tensor) -> Tensor:
        ndim = self._data.ndim
        if ndim == 0:
            _deprecated_on_0d(name, zero_dim_note)
            return self
        if ndim < 2:
            raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of matrices. Got "
                               f"{ndim}-D tensor.")
        return f.transpose(self, -2, -1)

    return property(get)


def _adjoint_2d(self: Tensor) -> Tensor:
    """x.H: the conjugate transpose of a matrix (a transpose for real tensors)."""
    ndim = self._data.ndim
    if ndim == 0:
        _deprecated_on_0d("H", "Consider using x.conj().")
        return self
    if ndim != 2:
        hint = " For batches of matrices, consider using tensor.mH" if ndim > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {ndim}-D tensor.{hint}")
    return f.transpose(self, 0, 1)


Tensor.mT = _matrix_transpose("mT", "This function is the identity in these cases.")  # type: ignore[attr-defined]
Tensor.mH = _matrix_transpose("mH", "Consider using x.conj().")  # type: ignore[attr-defined]
Tensor.H = property(_adjoint_2d)  # type: ignore[attr-defined]
Tensor.adjoint = lambda self: Tensor.mH.fget(self)  # type: ignore[attr-defined]
Tensor.is_sparse = False  # type: ignore[attr-defined]


def _storage_offset(self: Tensor) -> int:
    """Where a view starts in its base's storage, in elements (0 for a tensor that owns its data)."""
    base = self._base
    if base is None or not self._data.itemsize:
        return 0
    return (self.data_ptr() - base.data_ptr()) // self._data.itemsize


Tensor.storage_offset = _storage_offset  # type: ignore[attr-defined]
Tensor.itemsize = property(lambda self: self.element_size())  # type: ignore[attr-defined]
Tensor.nbytes = property(lambda self: self.numel() * self.element_size())  # type: ignore[attr-defined]
Tensor.is_complex = lambda self: self._data.dtype.kind == "c"  # type: ignore[attr-defined]


class layout:  # noqa: N801 - PyTorch's spelling
    """A tensor's memory layout: every engine tensor is strided."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


strided = layout("strided")
Tensor.layout = property(lambda self: strided)  # type: ignore[attr-defined]


# complex tensors (engine/complex_ops.py)
from engine import complex_ops as _complex  # noqa: E402

for _name in ("conj", "conj_physical", "resolve_conj", "is_conj", "angle"):
    setattr(Tensor, _name, getattr(_complex, _name))
Tensor.real = property(_complex.real)  # type: ignore[attr-defined]
Tensor.imag = property(_complex.imag)  # type: ignore[attr-defined]
