"""PyTorch's other names and small predicates: torch.greater_equal / less_equal / not_equal / greater / less,
torch.positive, torch.isposinf / isneginf / isreal, torch.svd, and Tensor methods (is_nonzero, is_same_size,
is_signed, resolve_neg, split_with_sizes, floor_divide, hardshrink, prelu, cov, corrcoef...)."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import functions as f
from engine.tensor import Tensor


def positive(input: Tensor) -> Tensor:
    if input._data.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def _constant(data: np.ndarray) -> Tensor:
    return Tensor._make(np.asarray(data))


def isposinf(input: Tensor) -> Tensor:
    return _constant(np.isposinf(input._data) if input._data.dtype.kind == "f" else np.zeros(input._data.shape, bool))


def isneginf(input: Tensor) -> Tensor:
    return _constant(np.isneginf(input._data) if input._data.dtype.kind == "f" else np.zeros(input._data.shape, bool))


def isreal(input: Tensor) -> Tensor:
    return _constant(np.isreal(input._data))


def resolve_neg(input: Tensor) -> Tensor:
    return input


def is_nonzero(input: Tensor) -> bool:
    n = input._data.size
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input._data.reshape(-1)[0])


def is_same_size(input: Tensor, other: Tensor) -> bool:
    return input._data.shape == other._data.shape


def is_signed(input: Tensor) -> bool:
    return input._data.dtype.kind in "fic" or input.dtype.name == "bfloat16"


def split_with_sizes(input: Tensor, split_sizes: Any, dim: int = 0) -> tuple:
    return f.split(input, list(split_sizes), dim)


_SvdResult = f._named_result("svd", ("U", "S", "V"))


def svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> Any:
    """The deprecated torch.svd: U, S and V (not Vh) of linalg.svd, V being Vh's transpose."""
    from engine import linalg

    U, S, Vh = linalg.svd(input, full_matrices=not some)
    if not compute_uv:  # zero U and V, of the full sizes
        *batch, m, n = input._data.shape
        zeros = lambda k: Tensor._make(np.zeros((*batch, k, k), input._data.dtype))  # noqa: E731
        return _SvdResult(zeros(m), S, zeros(n))
    return _SvdResult(U, S, f.transpose(Vh, -2, -1))


def _hardshrink(self: Tensor, lambd: float = 0.5) -> Tensor:
    from engine.nn import functional as F

    return F.hardshrink(self, lambd)


def _prelu(self: Tensor, weight: Tensor) -> Tensor:
    from engine.nn import functional as F

    return F.prelu(self, weight)


TORCH_LEVEL = {
    "greater_equal": f.ge, "less_equal": f.le, "not_equal": f.ne, "greater": f.gt, "less": f.lt,
    "positive": positive, "isposinf": isposinf, "isneginf": isneginf, "isreal": isreal, "resolve_neg": resolve_neg,
    "is_nonzero": is_nonzero, "is_same_size": is_same_size, "is_signed": is_signed,
    "split_with_sizes": split_with_sizes, "svd": svd, "addr": f.addr, "addbmm": f.addbmm,
    "is_neg": lambda input: False,  # the engine's tensors never carry PyTorch's negative bit
}

METHODS = {
    "greater_equal": f.ge, "less_equal": f.le, "not_equal": f.ne, "positive": positive, "isposinf": isposinf,
    "isneginf": isneginf, "isreal": isreal, "resolve_neg": resolve_neg, "is_neg": lambda self: False,
    "is_nonzero": is_nonzero, "is_same_size": is_same_size, "is_signed": is_signed,
    "split_with_sizes": split_with_sizes, "svd": svd, "floor_divide": f.floor_divide, "hardshrink": _hardshrink,
    "prelu": _prelu, "cov": f.cov, "corrcoef": f.corrcoef,
    "multiply_": Tensor.mul_, "subtract_": Tensor.sub_, "divide_": Tensor.div_, "addr": f.addr, "addbmm": f.addbmm,
}


def install(namespace: dict) -> None:
    """Adds the methods to Tensor and the functions to `namespace` (the torch module), where missing."""
    for name, fn in METHODS.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
    for name, fn in TORCH_LEVEL.items():
        namespace.setdefault(name, fn)
