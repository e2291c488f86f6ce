"""The out= keyword of torch functions: the result written into a given tensor, as PyTorch's out variants do."""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable

import numpy as np

from engine import dtypes, grad_mode, messages, observe
from engine.tensor import Tensor

# The ATen op an alias reports in out='s autograd error (torch.divide(..., out=) says "div()").
OP_NAMES = {
    "divide": "div", "true_divide": "div", "multiply": "mul", "subtract": "sub", "negative": "neg",
    "clip": "clamp", "concat": "cat", "concatenate": "cat", "hstack": "cat", "vstack": "cat", "dstack": "cat",
    "fix": "trunc", "ger": "mul", "outer": "mul", "absolute": "abs", "arccos": "acos", "arcsin": "asin",
    "arctan": "atan", "arctan2": "atan2", "square": "pow", "norm": "linalg_vector_norm",
}
# Ops whose out must have the result's dtype (PyTorch's matrix products check it instead of casting).
SAME_DTYPE = frozenset({"mm", "bmm", "addmm", "baddbmm", "mv", "matmul", "max", "min", "sort", "topk", "msort",
                        "take_along_dim", "tril", "triu", "diag", "aminmax", "linalg_vector_norm", "cross", "inverse",
                        "gather", "sum", "cumsum", "cumprod", "prod"})
# Ops whose out must have the result's dtype, each with its own message ({r}: the result's dtype, {o}: out's).
SAME_DTYPE_MESSAGES = {
    **dict.fromkeys(("abs", "neg", "floor", "ceil", "round", "trunc", "frac", "sign", "sgn", "clamp"),
                    "Found dtype {o} but expected {r}"),
    "where": "Expected out type to be {r} but got {o}",
    "amax": "Expected the dtype for input and out to match, but got {r} for input's dtype and {o} for out's dtype.",
    "amin": "Expected the dtype for input and out to match, but got {r} for input's dtype and {o} for out's dtype.",
    "kthvalue": "output values must be of same type as input",
    "mode": "expected scalar type '{r}' but got '{o}' for values output",
    **dict.fromkeys(("cummax", "cummin", "logcumsumexp"), "expected scalar_type {r} but found {o}"),
    "index_select": "index_select(): self and result must have the same scalar type",
    "masked_select": "masked_select(): self and result must have the same scalar type",
    "nan_to_num": "nan_to_num: dtype of out: {o} should be same as input: {r}",
    "median": "Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but type "
              "torch.{o}Tensor does not equal torch.{r}Tensor (while checking arguments for median)",
}
# Ops that compute in out's dtype (the input converted first), as with dtype=.
IN_OUT_DTYPE = frozenset({"sum", "cumsum", "cumprod", "prod"})
CONCATENATIONS = frozenset({"cat", "stack", "column_stack"})
# Ops with no gradient: out= is allowed whatever requires grad.
NOT_DIFFERENTIABLE = frozenset({
    "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_not", "signbit",
    "isnan", "isinf", "isfinite", "nonzero", "bucketize", "searchsorted", "argmax", "argmin", "argsort",
    "floor_divide", "sign", "histc",
})

# torch functions that take out= (as engine functions of the same name): wrapped by `install`.
FUNCTIONS = (
    "abs", "absolute", "acos", "arccos", "asin", "arcsin", "atan", "arctan", "atan2", "arctan2", "add", "sub",
    "subtract", "mul", "multiply", "div", "divide", "true_divide", "neg", "negative", "reciprocal", "pow",
    "square", "sqrt", "rsqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
    "sinh", "cosh", "tanh", "sigmoid", "erf", "erfinv", "lgamma", "digamma", "polygamma", "xlogy", "hypot",
    "logaddexp", "logit", "sinc", "deg2rad", "rad2deg", "sgn", "sign", "signbit", "ceil", "floor", "round",
    "trunc", "fix", "frac", "clamp", "clip", "fmod", "remainder", "floor_divide", "lerp", "addcmul", "addcdiv",
    "maximum", "minimum", "max", "min", "amax", "amin", "aminmax", "sum", "mean", "nanmean", "prod", "std", "var",
    "logsumexp", "cumsum", "cumprod", "cummax", "cummin", "logcumsumexp", "norm", "median", "mode", "kthvalue",
    "sort", "topk", "matmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "ger", "addmm", "baddbmm",
    "kron", "cross", "cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack",
    "index_select", "gather", "take_along_dim", "masked_select", "where", "tril", "triu", "diag", "diff",
    "nan_to_num", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_not",
    "bucketize", "searchsorted", "msort", "inverse", "matrix_power",
)


def install(namespace: dict, names: tuple = FUNCTIONS) -> None:
    """Replace each function in `namespace` by one that also takes out= (see with_out)."""
    for name in names:
        fn = namespace.get(name)
        if fn is not None:
            namespace[name] = with_out(fn, OP_NAMES.get(name, name))


def with_out(fn: Callable, op: str) -> Callable:
    """`fn` taking PyTorch's out= keyword: without it, `fn` itself."""

    @functools.wraps(fn)
    def call(*args: Any, out: Any = None, **kwargs: Any) -> Any:
        if out is None:
            return fn(*args, **kwargs)
        return _into(fn, op, args, kwargs, out)

    return call


def _tensors(values: Any) -> Any:
    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from (x for x in v if isinstance(x, Tensor))


def _into(fn: Callable, op: str, args: tuple, kwargs: dict, out: Any) -> Any:
    if op == "sum" and len(args) < 2 and kwargs.get("dim") is None:
        raise TypeError(_SUM_OVERLOADS.format(", ".join(
            [_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()] + ["out=Tensor"])))
    if op in ("max", "min") and len(args) > 1 and isinstance(args[1], Tensor):
        op += "imum"  # max(a, b) is maximum
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    for o in outs:
        if not isinstance(o, Tensor):
            raise TypeError(f"{op}(): argument 'out' must be Tensor, not {type(o).__name__}")
    if grad_mode.state.enabled and op not in NOT_DIFFERENTIABLE and any(
            t.requires_grad for t in (*_tensors(args), *_tensors(kwargs.values()), *outs)):
        raise RuntimeError(f"{op}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")
    if op in IN_OUT_DTYPE and isinstance(out, Tensor) and kwargs.get("dtype") is None:
        kwargs["dtype"] = out.dtype
    result = fn(*args, **kwargs)
    results = tuple(result) if isinstance(result, tuple) else (result,)
    if len(results) != len(outs):
        raise TypeError(f"{op}(): expected out to be a tuple of {len(results)} Tensors, got {len(outs)}")
    if op == "matmul" and all(isinstance(a, Tensor) and a._data.ndim == 1 for a in args[:2]):
        op = "dot"  # matmul of two vectors is dot
    for n, (r, o) in enumerate(zip(results, outs)):
        _check_dtype(op, r, o, n)
    for r, o in zip(results, outs):
        _write(r._data, o)
    if isinstance(out, (tuple, list)):
        return _named_out(result, outs)
    return out


def _named_out(result: Any, outs: tuple) -> Any:
    """The out tensors as PyTorch returns them: torch.return_types.<op>_out (sort_out, max_out...)."""
    from engine.functions import ReturnType, _named_result

    if type(result) is ReturnType:
        return ReturnType(*outs, f"{result._kind}_out")
    fields = getattr(type(result), "_fields", None)
    if fields is not None:
        return _named_result(f"{type(result).__name__}_out", fields)(*outs)
    return tuple(outs)


# torch.sum takes out= only with dim
_SUM_OVERLOADS = ("sum() received an invalid combination of arguments - got ({}), but expected one of:\n"
                  " * (Tensor input, *, torch.dtype dtype = None)\n"
                  " * (Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None, "
                  "Tensor out = None)\n")


def _type_name(value: Any) -> str:
    if isinstance(value, Tensor):
        return "Tensor"
    if isinstance(value, dtypes.dtype):
        return "torch.dtype"
    return type(value).__name__


def _check_dtype(op: str, r: Tensor, o: Tensor, n: int = 0) -> None:
    have, want = r._data.dtype, o._data.dtype
    if have == want:
        return
    if op in SAME_DTYPE_MESSAGES and n == 0:
        raise RuntimeError(SAME_DTYPE_MESSAGES[op].format(r=r.dtype.legacy, o=o.dtype.legacy))
    if op in CONCATENATIONS and not dtypes.can_cast(have, want):
        raise TypeError(f"torch.cat(): input types can't be cast to the desired output type {o.dtype.legacy}")
    if op == "logsumexp" and want.kind not in "fc":
        raise RuntimeError(f"logsumexp(): Expected floating point type for result tensor, but got: {o.dtype.legacy}")
    if op in ("dot", "vdot"):
        _resize(o, r._data.shape, stacklevel=5)  # dot resizes out before it checks the dtype
        raise RuntimeError(f"result dtype {o.dtype.legacy} does not match input dtype {r.dtype.legacy}")
    if op in SAME_DTYPE:
        raise RuntimeError(f"Expected out tensor to have dtype {r.dtype.cpp}, but got {o.dtype.cpp} instead")
    if not dtypes.can_cast(have, want):
        raise RuntimeError(f"result type {r.dtype.legacy} can't be cast to the desired output type {o.dtype.legacy}")


def _write(values: np.ndarray, o: Tensor) -> None:
    """Write `values` into `o`, resized to their shape first if it differs (with PyTorch's warning
    unless `o` was empty), and count the change in its version."""
    data = _resize(o, values.shape, stacklevel=5)
    if not data.flags.writeable or _overlaps(data):
        raise RuntimeError(messages.INTERNAL_OVERLAP)
    dtypes.write(data, values)
    o._vc[0] += 1
    if observe.current is not None:
        observe.current.inplace_applied(o, o.grad_fn)


def _resize(o: Tensor, shape: tuple, stacklevel: int) -> np.ndarray:
    """o's array, resized to `shape` first if it differs (with PyTorch's warning unless it was empty)."""
    data = o._data
    if data.shape != shape:
        if data.size:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape {list(data.shape)}, which "
                f"does not match the required output shape {list(shape)}. This behavior is deprecated, "
                "and in a future PyTorch release outputs will not be resized unless they have zero elements. You "
                "can explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
                "t.resize_(0). (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)",
                UserWarning, stacklevel=stacklevel)
        size = int(np.prod(shape))
        if size <= data.size and data.flags.c_contiguous:
            data = data.reshape(-1)[:size].reshape(shape)  # the storage is kept, as resize_ does
        else:
            data = np.empty(shape, data.dtype)
        o._data = data
    return data


def _overlaps(a: np.ndarray) -> bool:
    """Do two elements of `a` share memory (an expanded tensor)?"""
    return any(s == 0 and n > 1 for s, n in zip(a.strides, a.shape))
