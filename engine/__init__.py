"""A NumPy autograd engine with PyTorch's semantics: `import engine as torch` runs PyTorch snippets."""

from __future__ import annotations

from engine import methods as _methods  # noqa: F401 - attaches Tensor methods
from engine import autograd, optim
from engine.creation import (
    arange, as_tensor, empty, eye, full, full_like, linspace, ones, ones_like, tensor, zeros,
    zeros_like,
)
from engine.dtypes import (
    bool_ as bool,  # noqa: A001
    dtype,
    float16, float32, float64, int8, int16, int32, int64, uint8,
)
from engine.functions import (
    abs, add, clone, cos, div, dot, eq, exp, expand, flatten, ge, gt, le, log, lt, matmul, mean, mm,
    mul, ne, neg, permute, pow, reciprocal, relu, reshape, sigmoid, sign, sin, sqrt, square, squeeze,
    sub, sum, t, tanh, transpose, unsqueeze, where,
)
from engine.grad_mode import (
    enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled,
)
from engine.tensor import Parameter, Size, Tensor

half, float, double = float16, float32, float64  # noqa: A001
short, int, long = int16, int32, int64  # noqa: A001

__version__ = "2.13.0"


def is_tensor(obj: object) -> bool:
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> int:
    return input.numel()
