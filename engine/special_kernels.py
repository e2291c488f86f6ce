"""Special functions on arrays (lgamma, digamma, polygamma, erfinv) computed as PyTorch's CPU kernels do."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

_lgamma_scalar = np.frompyfunc(math.lgamma, 1, 1)
_erf_scalar = np.frompyfunc(math.erf, 1, 1)

# cephes psi: the asymptotic series' coefficients and digamma(10)
_PSI_A = (8.33333333333333333333e-2, -2.10927960927960927961e-2, 7.57575757575757575758e-3,
          -4.16666666666666666667e-3, 3.96825396825396825397e-3, -8.33333333333333333333e-3,
          8.33333333333333333333e-2)
_PSI_10 = 2.25175258906672110764
# cephes zeta: Euler-Maclaurin correction terms
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
           -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
           1.8152105401943546773e17, -7.1661652561756670113e18)


def _float_kind(a: Any) -> np.dtype:
    """The float dtype of the result: the input's, float32 for integers and booleans."""
    dtype = np.asarray(a).dtype
    return dtype if dtype.kind == "f" else np.dtype(np.float32)


def _wide(a: Any) -> np.ndarray:
    return np.asarray(a, dtype=np.float64)


def lgamma(a: Any) -> np.ndarray:
    """log|Γ(x)|: inf at the poles (0 and the negative integers)."""
    x = _wide(a)
    poles = (x <= 0) & (x == np.floor(x))
    safe = np.where(poles | ~np.isfinite(x), 1.0, x)
    out = np.asarray(_lgamma_scalar(safe)).astype(np.float64)  # 0-d: frompyfunc gives a float
    out = np.where(poles | np.isinf(x), np.inf, np.where(np.isnan(x), np.nan, out))
    return out.astype(_float_kind(a))


def _digamma64(x: np.ndarray) -> np.ndarray:
    """digamma in float64: reflection below 0, recurrence up to 10, then cephes' series."""
    x = np.array(x, dtype=np.float64)
    out = np.empty_like(x)
    negative = x < 0
    if negative.any():
        xn = x[negative]
        r = np.modf(xn)[0]
        reflected = _digamma64(1 - xn) - np.pi / np.tan(np.pi * r)
        out[negative] = np.where(xn == np.trunc(xn), np.nan, reflected)
    zero = x == 0
    out[zero] = np.copysign(np.inf, -x[zero])
    rest = ~negative & ~zero
    xs = x[rest]
    acc = np.zeros_like(xs)
    for _ in range(10):
        small = xs < 10
        if not small.any():
            break
        acc = np.where(small, acc - 1 / np.where(small, xs, 1), acc)
        xs = np.where(small, xs + 1, xs)
    z = 1 / (xs * xs)
    poly = np.zeros_like(xs)
    for c in _PSI_A:
        poly = poly * z + c
    series = np.where(xs < 1e17, z * poly, 0.0)
    value = np.where(xs == 10, acc + _PSI_10, acc + np.log(xs) - 0.5 / xs - series)
    out[rest] = value
    return out


def digamma(a: Any) -> np.ndarray:
    """ψ(x), the derivative of lgamma: -inf at +0, +inf at -0, NaN at the negative integers."""
    return _digamma64(_wide(a)).astype(_float_kind(a))


def _trigamma64(x: np.ndarray) -> np.ndarray:
    """ψ'(x) as PyTorch's calc_trigamma: reflection below 1/2, six recurrence steps, then a series."""
    x = np.array(x, dtype=np.float64)
    sign = np.ones_like(x)
    result = np.zeros_like(x)
    low = x < 0.5
    s = np.sin(np.pi * x)
    result = np.where(low, result - (np.pi * np.pi) / (s * s), result)
    sign = np.where(low, -1.0, sign)
    x = np.where(low, 1 - x, x)
    for _ in range(6):
        result = result + 1 / (x * x)
        x = x + 1
    ixx = 1 / (x * x)
    result = result + (1 + 1 / (2 * x) + ixx * (1.0 / 6 - ixx * (1.0 / 30 - ixx * (1.0 / 42)))) / x
    return sign * result


def _zeta64(s: float, q: np.ndarray) -> np.ndarray:
    """The Hurwitz zeta function ζ(s, q) for an integer s > 1 (cephes' Euler-Maclaurin summation)."""
    q = np.array(q, dtype=np.float64)
    out = np.empty_like(q)
    bad = (q <= 0) & (q == np.floor(q))
    out[bad] = np.inf
    ok = ~bad  # s is an integer here, so q^-s is defined for negative q too
    qs = q[ok]
    total = qs ** -s
    a = qs.copy()
    done = np.zeros(qs.shape, bool)
    b = np.zeros_like(qs)
    i = 0
    while True:  # at least 9 terms, and on until a > 9
        active = ~done & ((i < 9) | (a <= 9.0))
        if not active.any():
            break
        i += 1
        a = np.where(active, a + 1.0, a)
        b = np.where(active, a ** -s, b)
        total = np.where(active, total + b, total)
        done |= active & (np.abs(b / total) < 1.11e-16)
    w = a
    total = total + np.where(done, 0.0, b * w / (s - 1) - 0.5 * b)
    fac = np.ones_like(qs)
    k = 0.0
    term_done = done.copy()
    for coeff in _ZETA_A:
        fac = fac * (s + k)
        b = b / w
        t = fac * b / coeff
        total = np.where(term_done, total, total + t)
        term_done |= np.abs(t / total) < 1.11e-16
        k += 1.0
        fac = fac * (s + k)
        b = b / w
        k += 1.0
    out[ok] = total
    return out


def polygamma(a: Any, n: int) -> np.ndarray:
    """ψ⁽ⁿ⁾(x): digamma for n = 0, trigamma for n = 1, (-1)^(n+1) n! ζ(n+1, x) above."""
    x = _wide(a)
    if n == 0:
        out = _digamma64(x)
    elif n == 1:
        out = _trigamma64(x)
    else:
        out = (-1.0) ** (n + 1) * math.exp(math.lgamma(n + 1.0)) * _zeta64(n + 1.0, x)
    return out.astype(_float_kind(a))


# erfinv's initial rational approximations (the central range and the tails), as in PyTorch's calc_erfinv
_ERFINV_A = (0.886226899, -1.645349621, 0.914624893, -0.140543331)
_ERFINV_B = (-2.118377725, 1.442710462, -0.329097515, 0.012229801)
_ERFINV_C = (-1.970840454, -1.624906493, 3.429567803, 1.641345311)
_ERFINV_D = (3.543889200, 1.637067800)


def erfinv(a: Any) -> np.ndarray:
    """The inverse of erf on [-1, 1] (±inf at ±1, NaN outside): a rational first guess refined by
    two Newton steps in float64."""
    y = _wide(a)
    ay = np.abs(y)
    z = y * y
    central = y * (((_ERFINV_A[3] * z + _ERFINV_A[2]) * z + _ERFINV_A[1]) * z + _ERFINV_A[0]) / (
        (((_ERFINV_B[3] * z + _ERFINV_B[2]) * z + _ERFINV_B[1]) * z + _ERFINV_B[0]) * z + 1.0)
    t = np.sqrt(-np.log(np.clip((1.0 - ay) / 2.0, 1e-300, None)))
    tail = np.copysign(((_ERFINV_C[3] * t + _ERFINV_C[2]) * t + _ERFINV_C[1]) * t + _ERFINV_C[0], y) / (
        (_ERFINV_D[1] * t + _ERFINV_D[0]) * t + 1.0)
    x = np.where(ay <= 0.7, central, tail)
    inside = ay < 1
    x = np.where(inside, x, 0.0)
    for _ in range(2):
        err = np.asarray(_erf_scalar(x)).astype(np.float64) - np.where(inside, y, 0.0)
        x = x - err / (2.0 / math.sqrt(math.pi) * np.exp(-x * x))
    out = np.where(ay == 1, np.copysign(np.inf, y), np.where(ay > 1, np.nan, x))
    out = np.where(np.isnan(y), np.nan, out)
    return out.astype(_float_kind(a))


# --- erfc, erfcx, log_ndtr, entr, i0, i1, xlog1py ------------------------------------------------------
_erfc_scalar = np.frompyfunc(math.erfc, 1, 1)
_SQRT_PI = math.sqrt(math.pi)


def _erfc64(x: np.ndarray) -> np.ndarray:
    return np.asarray(_erfc_scalar(x)).astype(np.float64)


def erfc(a: Any) -> np.ndarray:
    """1 - erf(x), accurate in the tail."""
    return _erfc64(_wide(a)).astype(_float_kind(a))


def _erfcx64(x: np.ndarray) -> np.ndarray:
    """exp(x²) erfc(x): directly up to 25, then the asymptotic series (erfc underflows further out)."""
    small = np.where(x < 25, x, 0.0)
    direct = np.exp(small * small) * _erfc64(small)
    big = np.where(x >= 25, x, 25.0)
    inv2 = 1.0 / (big * big)
    asymptotic = (1 - 0.5 * inv2 * (1 - 1.5 * inv2 * (1 - 2.5 * inv2))) / (big * _SQRT_PI)
    out = np.where(x < 25, direct, asymptotic)
    return np.where(np.isnan(x), np.nan, out)


def erfcx(a: Any) -> np.ndarray:
    return _erfcx64(_wide(a)).astype(_float_kind(a))


def log_ndtr(a: Any) -> np.ndarray:
    """log of the standard normal CDF as PyTorch's kernel computes it, in the input's precision:
    log(erfcx(-t) / 2) - t² below -1, log1p(-erfc(t) / 2) above (t = x / √2)."""
    kind = _float_kind(a)
    x = np.asarray(a).astype(kind)
    t = x * kind.type(math.sqrt(0.5))
    low = x < -1
    tw = np.where(low, -t, 0.0).astype(np.float64)
    negative = np.log(_erfcx64(tw).astype(kind) / kind.type(2)) - t * t
    positive = np.log1p(-_erfc64(np.where(low, 0.0, t).astype(np.float64)).astype(kind) / kind.type(2))
    return np.where(np.isnan(x), np.nan, np.where(low, negative, positive)).astype(kind)


def entr(a: Any) -> np.ndarray:
    """-x log(x): 0 at 0, -inf below 0, NaN for NaN."""
    x = _wide(a)
    safe = np.where(x > 0, x, 1.0)
    out = np.where(x > 0, -x * np.log(safe), np.where(x == 0, 0.0, -np.inf))
    return np.where(np.isnan(x), np.nan, out).astype(_float_kind(a))


def i0(a: Any) -> np.ndarray:
    """The modified Bessel function of the first kind, order 0."""
    return np.i0(_wide(a)).astype(_float_kind(a))


def i1(a: Any) -> np.ndarray:
    """The modified Bessel function of the first kind, order 1: its power series (all terms of one sign)."""
    x = _wide(a)
    finite = np.where(np.isfinite(x), x, 0.0)
    half = finite / 2
    q = half * half
    term = half.copy()
    total = half.copy()
    limit = int(np.max(np.abs(finite), initial=0.0)) + 40
    for k in range(1, min(limit, 800)):
        term = term * q / (k * (k + 1))
        total = total + term
    out = np.where(np.isfinite(x), total, np.nan)  # PyTorch's i1 is NaN at ±inf
    return out.astype(_float_kind(a))


def xlog1py(x: Any, y: Any) -> np.ndarray:
    """x * log1p(y), 0 where x is 0 (unless y is NaN)."""
    x, y = np.asarray(x), np.asarray(y)
    out = np.where(x == 0, 0, x * np.log1p(y))
    return np.where(np.isnan(y), np.nan, out).astype(float_result_type(x, y), copy=False)


def float_result_type(x: np.ndarray, y: np.ndarray) -> np.dtype:
    """The dtype of a floating op of x and y: integers and bools give the default float dtype, as in PyTorch."""
    from engine import dtypes

    dt = np.result_type(x, y)
    return dt if dt.kind in "fc" else dtypes.default_float.np
