"""In-place forms of elementwise ops: Tensor methods such as x.ceil_() and torch-level functions such as torch.relu_(x)."""

from __future__ import annotations

from typing import Any

from engine import functions as f
from engine import ops
from engine.tensor import Tensor


def _unary(rule: Any) -> Any:
    def method(self: Tensor) -> Tensor:
        return f._inplace(self, rule, ())

    return method


def _binary(rule: Any) -> Any:
    def method(self: Tensor, other: Any) -> Tensor:
        f._check_broadcast(self, other)
        return f._inplace(self, rule, (other,))

    return method


def _xlogy_(self: Tensor, other: Any) -> Tensor:
    if not isinstance(other, Tensor):
        return f._inplace(self, ops.XLOGY_SCALAR_OTHER, (), {"other": other})
    f._check_broadcast(self, other)
    return f._inplace(self, ops.XLOGY, (other,))


def _logit_(self: Tensor, eps: float | None = None) -> Tensor:
    return f._inplace(self, ops.LOGIT, (), {"eps": eps} if eps is not None else None)


def _nan_to_num_(self: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> Tensor:
    if self._data.dtype.kind != "f":
        return self
    return f._inplace(self, ops.NAN_TO_NUM, (), {"nan": 0.0 if nan is None else nan, "posinf": posinf,
                                                 "neginf": neginf})


def _scan_(rule: Any) -> Any:
    def method(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
        if dtype is not None and dtype != self.dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype {self.dtype.cpp} and output tensor dtype "
                               f"{dtype.cpp} should match")
        wrapped = f._wrap_dim(dim, self._data.ndim)
        return f._inplace(self, rule, (), {"dim": dim if self._data.ndim else wrapped})

    return method


_UNARY = {
    "acos_": ops.ACOS, "arccos_": ops.ACOS, "asin_": ops.ASIN, "arcsin_": ops.ASIN, "atan_": ops.ATAN,
    "arctan_": ops.ATAN, "ceil_": ops.CEIL, "cosh_": ops.COSH, "sinh_": ops.SINH, "tan_": ops.TAN,
    "trunc_": ops.TRUNC, "fix_": ops.TRUNC, "frac_": ops.FRAC, "deg2rad_": ops.DEG2RAD, "rad2deg_": ops.RAD2DEG,
    "digamma_": ops.DIGAMMA, "erf_": ops.ERF, "erfinv_": ops.ERFINV, "exp2_": ops.EXP2, "expm1_": ops.EXPM1,
    "lgamma_": ops.LGAMMA, "log10_": ops.LOG10, "log1p_": ops.LOG1P, "log2_": ops.LOG2, "rsqrt_": ops.RSQRT,
    "sgn_": ops.SGN, "sinc_": ops.SINC, "negative_": ops.NEG, "absolute_": ops.ABS,
    "acosh_": ops.ACOSH_INPLACE, "arccosh_": ops.ACOSH_INPLACE, "asinh_": ops.ASINH_INPLACE,
    "arcsinh_": ops.ASINH_INPLACE, "atanh_": ops.ATANH_INPLACE, "arctanh_": ops.ATANH_INPLACE,
}

METHODS: dict[str, Any] = {name: _unary(rule) for name, rule in _UNARY.items()}
METHODS.update({
    "atan2_": _binary(ops.ATAN2), "arctan2_": _binary(ops.ATAN2), "hypot_": _binary(ops.HYPOT),
    "xlogy_": _xlogy_, "logit_": _logit_, "nan_to_num_": _nan_to_num_,
    "cumsum_": _scan_(ops.CUMSUM), "cumprod_": _scan_(ops.CUMPROD), "fix": f.trunc,
    "acosh": f.acosh, "arccosh": f.acosh, "asinh": f.asinh, "arcsinh": f.asinh, "atanh": f.atanh,
    "arctanh": f.atanh,
})

# torch.<name>_(input, ...) is input.<name>_(...) for these
TORCH_LEVEL = (
    "abs_", "acos_", "arccos_", "arcsin_", "arctan_", "asin_", "atan_", "ceil_", "clamp_", "clamp_max_",
    "clamp_min_", "clip_", "cos_", "cosh_", "deg2rad_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_",
    "fix_", "floor_", "frac_", "i0_", "log10_", "log1p_", "log2_", "log_", "logit_", "nan_to_num_", "neg_",
    "negative_", "rad2deg_", "reciprocal_", "relu_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_",
    "sqrt_", "tan_", "tanh_", "trunc_", "xlogy_", "zero_", "acosh_", "arccosh_", "asinh_", "arcsinh_", "atanh_",
    "arctanh_", "gcd_", "lcm_",
)


def _torch_level(name: str) -> Any:
    def fn(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    return fn


def install(namespace: dict) -> None:
    """Adds the in-place methods to Tensor and the torch-level in-place functions to `namespace`."""
    for name, fn in METHODS.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
    for name in TORCH_LEVEL:
        if name not in namespace and hasattr(Tensor, name):
            namespace[name] = _torch_level(name)
