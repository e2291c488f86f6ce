"""torch.special: PyTorch's special functions on tensors, most of them aliases of torch functions."""

from __future__ import annotations

import math
from typing import Any, Callable

from engine import functions as _f
from engine import more_math as _more
from engine import ops as _ops
from engine.rules import apply as _apply
from engine.tensor import Tensor as _Tensor


def _named(fn: Callable, name: str) -> Callable:
    def special_fn(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    special_fn.__name__ = special_fn.__qualname__ = f"special_{name}"
    return special_fn


def _unary(rule: Any, name: str) -> Callable:
    return _named(lambda input: _apply(rule, (input,)), name)


expit = _named(_f.sigmoid, "expit")
logit = _named(_f.logit, "logit")
gammaln = _named(_f.lgamma, "gammaln")
log1p = _named(_f.log1p, "log1p")
sinc = _named(_f.sinc, "sinc")
xlogy = _named(_f.xlogy, "xlogy")
erf = _named(_f.erf, "erf")
erfc = _named(_more.erfc, "erfc")
erfinv = _named(_f.erfinv, "erfinv")
i0 = _named(_more.i0, "i0")
psi = _named(_f.digamma, "psi")
digamma = _named(_f.digamma, "digamma")
polygamma = _named(_f.polygamma, "polygamma")
expm1 = _named(_f.expm1, "expm1")
exp2 = _named(_f.exp2, "exp2")
logsumexp = _named(_f.logsumexp, "logsumexp")
softmax = _named(_f.softmax, "softmax")
log_softmax = _named(_f.log_softmax, "log_softmax")
entr = _unary(_ops.SPECIAL_ENTR, "entr")
erfcx = _unary(_ops.SPECIAL_ERFCX, "erfcx")
log_ndtr = _unary(_ops.SPECIAL_LOG_NDTR, "log_ndtr")
ndtri = _unary(_ops.SPECIAL_NDTRI, "ndtri")
i1 = _unary(_ops.SPECIAL_I1, "i1")


def _round(input: _Tensor, *, decimals: int = 0) -> _Tensor:
    return _apply(_ops.ROUND_DECIMALS, (input,), {"decimals": decimals})  # the decimals overload: RoundBackward1


def _ndtr(input: _Tensor) -> _Tensor:
    """(1 + erf(x / √2)) / 2, recorded as PyTorch's composite records it."""
    scaled = _apply(_ops.MUL_SCALAR, (input,), {"other": math.sqrt(0.5)})
    shifted = _apply(_ops.ADD_SCALAR, (_f.erf(scaled),), {"other": 1})
    return _apply(_ops.MUL_SCALAR, (shifted,), {"other": 0.5})


def _xlog1py(input: Any, other: Any) -> _Tensor:
    """input * log1p(other), 0 where input is 0."""
    if not isinstance(input, _Tensor):
        return _apply(_ops.SPECIAL_XLOG1PY_SCALAR_SELF, (other,), {"self": input})
    if not isinstance(other, _Tensor):
        return _apply(_ops.SPECIAL_XLOG1PY_SCALAR_OTHER, (input,), {"other": other})
    _f._check_broadcast(input, other)
    return _apply(_ops.SPECIAL_XLOG1PY, (input, other))


round = _named(_round, "round")  # noqa: A001 - PyTorch's name
ndtr = _named(_ndtr, "ndtr")
xlog1py = _named(_xlog1py, "xlog1py")

__all__ = ["digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammaln", "i0", "i1",
           "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "ndtr", "ndtri", "polygamma", "psi", "round",
           "sinc", "softmax", "xlog1py", "xlogy"]
