"""Gamma and Dirichlet draws and their reparameterised gradients, as PyTorch's CPU kernels compute them.

Draws follow Marsaglia and Tsang's rejection method on the generator's 53-bit uniforms and its cached
Box-Muller normals, element by element in order, with torch's float32 roundings where its kernel works
in float (the concentration shifted below 1, d = α - 1/3), so seeded samples are torch's bit for bit.
The gradients are torch's approximations of -(∂F/∂α) / f (Taylor series, Rice saddle-point expansions
and rational fits), evaluated in float64 and rounded to the sample's dtype.
"""

from __future__ import annotations

import math

import numpy as np

from engine.special_kernels import _digamma64

_THIRD_F32 = float(np.float32(1.0) / np.float32(3.0))  # 1.0f / 3.0f
_C_0331 = float(np.float32(0.0331))


def _f32(value: float) -> float:
    return float(np.float32(value))


def _sample_one(alpha: float, gen: object, in_float32: bool) -> float:
    """One standard Gamma(alpha) draw (torch's sample_gamma with a double accumulator)."""
    rnd = _f32 if in_float32 else (lambda v: v)
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        u = float(gen.uniform01(1, np.dtype(np.float64))[0])
        scale *= math.pow(1 - u, rnd(1.0 / alpha))
        alpha = rnd(alpha + 1.0)
    d = rnd(alpha - _THIRD_F32)
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = gen._normal_scalar()
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1 - float(gen.uniform01(1, np.dtype(np.float64))[0])
        xx = x * x
        if u < 1.0 - _C_0331 * xx * xx or math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def standard_gamma(alpha: np.ndarray, gen: object) -> np.ndarray:
    """torch._standard_gamma: one draw per concentration, at least the dtype's smallest normal."""
    dtype = alpha.dtype
    in_float32 = dtype == np.float32
    out = np.array([_sample_one(a, gen, in_float32) for a in alpha.reshape(-1).tolist()], np.float64)
    return np.maximum(out.astype(dtype), np.finfo(dtype).tiny).reshape(alpha.shape)


def sample_dirichlet(alpha: np.ndarray, gen: object) -> np.ndarray:
    """torch._sample_dirichlet: Gamma draws in float64 normalised over the last dim, kept inside (0, 1)."""
    draws = np.array([_sample_one(a, gen, False) for a in alpha.astype(np.float64).reshape(-1).tolist()],
                     np.float64).reshape(alpha.shape)
    draws = np.maximum(draws, np.finfo(np.float64).tiny)
    totals = np.add.accumulate(draws, axis=-1)[..., -1:] if draws.ndim else draws
    dtype = alpha.dtype
    below_one = np.nextafter(dtype.type(1), dtype.type(0))
    return np.minimum(below_one, np.maximum(np.finfo(dtype).tiny, (draws / totals).astype(dtype)))


def standard_gamma_grad(alpha: np.ndarray, x: np.ndarray) -> np.ndarray:
    """torch._standard_gamma_grad: the derivative of a standard Gamma draw x with respect to alpha."""
    a, xs = np.broadcast_arrays(alpha.astype(np.float64), x.astype(np.float64))
    with np.errstate(all="ignore"):
        # small x: Taylor series of the regularised lower incomplete gamma function
        numer, denom = np.ones_like(xs), a.copy()
        series1, series2 = numer / denom, numer / (denom * denom)
        for i in range(1, 6):
            numer = numer * (-xs / i)
            denom = denom + 1
            series1 = series1 + numer / denom
            series2 = series2 + numer / (denom * denom)
        pow_x_alpha = np.power(xs, a)
        pdf = np.power(xs, a - 1) * np.exp(-xs)
        cdf = pow_x_alpha * series1
        cdf_alpha = (np.log(xs) - _digamma64(a)) * cdf - pow_x_alpha * series2
        small = -cdf_alpha / pdf
        small = np.where(np.isnan(small), 0.0, small)
        # large alpha: Rice's saddle-point expansion (a polynomial near the mode)
        near = (1 + 24 * a * (1 + 12 * a)) * (1440 * (a * a) + 6 * xs * (53 - 120 * xs) - 65 * xs * xs / a
                                              + a * (107 + 3600 * xs)) / (1244160 * (a * a) * (a * a))
        root = np.sqrt(8 * a)
        term2 = root / (a - xs)
        term3 = np.power(xs - a - a * np.log(xs / a), -1.5)
        term23 = np.where(xs < a, term2 - term3, term2 + term3)
        term1 = np.log(xs / a) * term23 - np.sqrt(2 / a) * (a + xs) / ((a - xs) * (a - xs))
        stirling = 1 + 1 / (12 * a) * (1 + 1 / (24 * a))
        far = -stirling * (xs * term1) / root
        large = np.where((0.9 * a <= xs) & (xs <= 1.1 * a), near, far)
        # otherwise: a bivariate rational approximation in log(x / alpha) and log(alpha)
        u, v = np.log(xs / a), np.log(a)
        coef = [c0 + u * (c1 + u * c2) for c0, c1, c2 in zip(*_GAMMA_UV)]
        p = coef[0] + v * (coef[1] + v * (coef[2] + v * coef[3]))
        q = coef[4] + v * (coef[5] + v * (coef[6] + v * coef[7]))
        rational = np.exp(p / q)
    out = np.where(xs < 0.8, small, np.where(a > 8.0, large, rational))
    return out.astype(np.result_type(alpha, x))


_GAMMA_UV = (
    (0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084),
    (0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915,
     -0.00058392623),
    (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326, 0.00085092367,
     -1.5247877e-07),
)


def _beta_grad_alpha_small(x: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """∂x/∂α of a Beta(α, β) draw x near 0 (Taylor expansion)."""
    factor = _digamma64(alpha) - _digamma64(alpha + beta) - np.log(x)
    numer = np.ones_like(x)
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer = numer * ((i - beta) * x / i)
        denom = alpha + i
        series = series + numer / denom * (factor + 1 / denom)
    result = x * np.power(1 - x, -beta) * series
    return np.where(np.isnan(result), 0.0, result)


def _beta_grad_beta_small(x: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """∂x/∂β of a Beta(α, β) draw x near 0 (Taylor expansion)."""
    factor = _digamma64(alpha + beta) - _digamma64(beta)
    numer, betas, dbetas, series = np.ones_like(x), np.ones_like(x), np.zeros_like(x), factor / alpha
    for i in range(1, 9):
        numer = numer * (-x / i)
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series = series + numer / (alpha + i) * (dbetas + factor * betas)
    result = -np.power(1 - x, 1 - beta) * series
    return np.where(np.isnan(result), 0.0, result)


def _beta_grad_alpha_mid(x: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """∂x/∂α of a Beta(α, β) draw when α and β are both large (Rice saddle-point expansion)."""
    total = alpha + beta
    mean = alpha / total
    std = np.sqrt(alpha * beta / (total + 1)) / total
    b2 = beta * beta
    poly = 47 * x * b2 * b2 + alpha * (
        (43 + 20 * (16 + 27 * beta) * x) * b2 * beta + alpha * (
            3 * (59 + 180 * beta - 90 * x) * b2 + alpha * (
                (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (8 * (1 - x) * (135 * beta - 11)))))
    near = ((1 + 12 * alpha) * (1 + 12 * beta) / (total * total)) / (1 - x) * poly / (
        12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total))
    prefactor = -x / np.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha)) * (1 + 1 / (12 * beta) + 1 / (288 * b2))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    axbx = alpha * (x - 1) + beta * x
    term1 = (2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * b2) / (
        np.sqrt(2 * alpha / beta) * np.power(total, 1.5) * axbx * axbx)
    term2 = 0.5 * np.log(alpha / (total * x))
    term3 = np.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4 = np.power(beta * np.log(beta / (total * (1 - x))) + alpha * np.log(alpha / (total * x)), -1.5)
    far = stirling * prefactor * (term1 + term2 * (term3 + np.where(x < mean, term4, -term4)))
    return np.where((mean - 0.1 * std <= x) & (x <= mean + 0.1 * std), near, far)


def dirichlet_grad(x: np.ndarray, alpha: np.ndarray, total: np.ndarray) -> np.ndarray:
    """torch._dirichlet_grad: the scaled derivative of a Beta(α, total - α) draw x with respect to α."""
    dtype = np.result_type(x, alpha, total)
    xd, ad, td = (np.asarray(v, np.float64) for v in np.broadcast_arrays(x, alpha, total))
    xs, al, tot = (np.asarray(v, dtype) for v in np.broadcast_arrays(x, alpha, total))
    beta = tot - al
    boundary = tot * xs * (1 - xs)
    bd = td - ad
    with np.errstate(all="ignore"):
        near_zero = _beta_grad_alpha_small(xd, ad, bd)
        near_one = -_beta_grad_beta_small(1 - xd, bd, ad)
        mid = _beta_grad_alpha_mid(xd, ad, bd)
        u = np.log(xd)
        a = np.log(ad) - u
        b = np.log(td) - a
        p = np.zeros_like(xd)
        q = np.zeros_like(xd)
        for i, pu in enumerate((1.0, u, u * u)):
            for j, pa in enumerate((1.0, a, a * a)):
                cp, cq = _DIRICHLET_C[0][i][j], _DIRICHLET_C[1][i][j]
                p = p + pu * pa * (cp[0] + b * (cp[1] + b * (cp[2] + b * cp[3])))
                q = q + pu * pa * (cq[0] + b * (cq[1] + b * (cq[2] + b * cq[3])))
        rational = p / q * (xd * (_digamma64(td) - _digamma64(ad)) / bd)
    out = np.where((xs <= 0.5) & (boundary < 2.5), near_zero,
                   np.where((xs >= 0.5) & (boundary < 0.75), near_one,
                            np.where((al > 6) & (beta > 6), mid, rational)))
    return out.astype(dtype)


_DIRICHLET_C = (
    (((1.003668233, -0.01061107488, -0.0657888334, 0.01201642863),
      (0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033),
      (-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013)),
     ((0.221950385, -0.3187676331, 0.01799915743, 0.01074823814),
      (-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057),
      (0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05)),
     ((-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565),
      (0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181),
      (0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05))),
    (((1, -0.02924021934, -0.04438342661, 0.007285809825),
      (0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521),
      (-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149)),
     ((0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273),
      (0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956),
      (-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05)),
     ((0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05),
      (0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05),
      (-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06))),
)
