"""Ops behind weight normalization and orthogonal parametrizations: _weight_norm, norm_except_dim, geqrf,
linalg.householder_product."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import ops
from engine.functions import _named_result
from engine.ops import _unique_not_implemented, rule
from engine.rules import ArrayMath, apply
from engine.tensor import Tensor


# --- weight norm --------------------------------------------------------------------------------
def _other_axes(ndim: int, dim: int) -> tuple:
    return tuple(d for d in range(ndim) if d != dim)


def _weight_norm_interface(v: Any, g: Any, dim: int = 0) -> tuple:
    """w = v * g / ||v|| with the norm over all dims but `dim`, and the norms (shaped like g)."""
    v = np.asarray(v)
    norms = np.sqrt(np.sum(v.astype(np.float64) ** 2, axis=_other_axes(v.ndim, dim), keepdims=True))
    norms = norms.astype(v.dtype)
    return v * (np.asarray(g) / norms), norms


def _per_dim_sums(F: Any, x: Any, v: Any, dim: int) -> Any:
    """PyTorch's (grad_w * v).view(size0, -1).sum(1).view(bcast) (dim 0), or the last-dim twin."""
    shape = np.shape(F.raw(v))
    bcast = [1] * len(shape)
    bcast[dim] = shape[dim]
    if dim == 0:
        return F.reshape(F.sum(F.reshape(x, (shape[0], -1)), 1), tuple(bcast))
    return F.reshape(F.sum(F.reshape(x, (-1, shape[-1])), 0), tuple(bcast))


def _weight_norm_grad_v(F: Any, grad: Any, dim: int, g: Any, result1: Any, v: Any) -> Any:
    sums = _per_dim_sums(F, grad[0] * v, v, dim)
    return (g / result1) * (grad[0] - v * (sums / (result1 * result1)))


def _weight_norm_grad_g(F: Any, grad: Any, dim: int, result1: Any, v: Any) -> Any:
    return _per_dim_sums(F, grad[0] * v, v, dim) / result1


WEIGHT_NORM_INTERFACE = rule(
    "_weight_norm_interface", "WeightNormInterfaceBackward0", _weight_norm_interface,
    (_weight_norm_grad_v, _weight_norm_grad_g),
    ("(g / norms) * (grad - v * sum(grad * v) / norms^2)", "sum(grad * v) / norms"), inputs=("v", "g"),
    outputs=2, differentiable_outputs=(0,), output_names=("result0", "result1"), extra_saves=("v", "g", "result1"),
    defaults={"dim": 0})


NORM_SCALAR = rule("norm_scalar", "NormBackward0", lambda a, p=2: ops._norm_fwd(a, p),
                   (lambda F, g, p, result, self: ops._norm_grad(F, g, None, False, p, result, self),),
                   ("grad * self / result (p 2)",), defaults={"p": 2})


def _norm_dim(v: Tensor, p: float, dim: int) -> Tensor:
    return apply(ops.NORM_DIM, (v,), {"p": p, "dim": (dim,), "keepdim": False})


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """The p-norm of v over every dim but `dim`, keeping them as size 1 (all dims when dim is -1)."""
    if dim == -1:
        return apply(NORM_SCALAR, (v,), {"p": pow})
    if dim == 0:
        shape = (v.shape[0],) + (1,) * (v.dim() - 1)
        return _norm_dim(v.contiguous().view(v.shape[0], -1), pow, 1).view(shape)
    if dim == v.dim() - 1:
        shape = (1,) * (v.dim() - 1) + (v.shape[-1],)
        return _norm_dim(v.contiguous().view(-1, v.shape[-1]), pow, 0).view(shape)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """v * g / ||v||: one fused node (WeightNormInterfaceBackward0) when dim is the first or last dim."""
    if dim == 0 or dim == v.dim() - 1:
        return apply(WEIGHT_NORM_INTERFACE, (v.contiguous(), g.contiguous()), {"dim": dim})[0]
    return v * (g / norm_except_dim(v, 2, dim))


# --- QR in Householder form ---------------------------------------------------------------------
Geqrf = _named_result("geqrf", ("a", "tau"))


def _geqrf(a: Any) -> tuple:
    a = np.asarray(a)
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    flat = a.reshape((-1, m, n))
    hs, taus = [], []
    for x in flat:
        h, tau = np.linalg.qr(x, mode="raw")
        hs.append(h.T)
        taus.append(tau)
    k = min(m, n)
    return (np.array(hs, dtype=a.dtype).reshape(a.shape),
            np.array(taus, dtype=a.dtype).reshape(batch + (k,)))


GEQRF = rule("geqrf", "GeqrfBackward0", _geqrf, (_unique_not_implemented("geqrf"),),
             ("not implemented in PyTorch",), outputs=2, output_names=("a", "tau"))


def geqrf(input: Tensor) -> Any:
    """LAPACK's geqrf: R above the diagonal, the Householder vectors below it, and their scales tau."""
    if input.dim() < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    return Geqrf(*apply(GEQRF, (input,)))


def _reflectors(A: Any, tau: Any, i: int, m: int) -> tuple:
    """The i-th Householder vector (1 at i, A's column below it, zeros above) and its reflector."""
    dtype = np.asarray(A if isinstance(A, np.ndarray) else A.detach()._data).dtype
    below = (np.arange(m) > i).astype(dtype)
    one = (np.arange(m) == i).astype(dtype)
    v = A[..., :, i] * below + one
    vvT = v[..., :, None] * v[..., None, :]
    return v, vvT, below


def _householder_product(input: Any, tau: Any) -> Any:
    """The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H."""
    a = np.asarray(input)
    t = np.asarray(tau)
    work = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    tw = t.astype(work.dtype)
    m, n = a.shape[-2:]
    q = np.broadcast_to(np.eye(m, n, dtype=work.dtype), a.shape).copy()
    for i in reversed(range(t.shape[-1])):
        v = work[..., :, i] * (np.arange(m) > i) + (np.arange(m) == i)
        q = q - tw[..., i, None, None] * (v[..., :, None] * (np.conj(v)[..., None, :] @ q))
    return q.astype(a.dtype)


def _householder_grads(F: Any, grad: Any, input: Any, tau: Any) -> tuple:
    """Gradients of Q = (H_1 ... H_k)[:, :n] for real inputs, from the product's factors."""
    m, n = np.shape(F.raw(input))[-2:]
    k = np.shape(F.raw(tau))[-1]
    dtype = np.asarray(F.raw(input)).dtype
    const = (lambda a: a) if F is ArrayMath else Tensor._make
    eye = const(np.eye(m, dtype=dtype))
    parts, hs = [], []
    for i in range(k):
        v, vvT, below = _reflectors(input, tau, i, m)
        parts.append((v, vvT, below))
        hs.append(eye - tau[..., i, None, None] * vvT)
    left = [eye]
    for h in hs[:-1]:
        left.append(left[-1] @ h)
    right = [None] * k
    acc = const(np.eye(m, n, dtype=dtype))
    for i in reversed(range(k)):
        right[i] = acc
        acc = hs[i] @ acc
    columns, dtaus = [], []
    for i in range(k):
        v, vvT, below = parts[i]
        dh = F.mT(left[i]) @ grad @ F.mT(right[i])
        dtaus.append(-F.sum(dh * vvT, (-2, -1)))
        dv = ((dh + F.mT(dh)) @ v[..., :, None])[..., :, 0] * (-tau[..., i, None])
        columns.append(F.where(below > 0, dv, 0.0))
    zero = F.zeros_like(grad[..., :, 0]) if k < n else None
    columns += [zero] * (n - k)
    return F.stack(columns, -1), F.stack(dtaus, -1)


def _householder_grad_input(F: Any, grad: Any, input: Any, tau: Any) -> Any:
    return _householder_grads(F, grad, input, tau)[0]


def _householder_grad_tau(F: Any, grad: Any, input: Any, tau: Any) -> Any:
    return _householder_grads(F, grad, input, tau)[1]


HOUSEHOLDER_PRODUCT = rule(
    "linalg_householder_product", "LinalgHouseholderProductBackward0", _householder_product,
    (_householder_grad_input, _householder_grad_tau),
    ("householder_product_backward(grad, result, input, tau)", "householder_product_backward(...)"),
    inputs=("input", "tau"), extra_saves=("result",))


def householder_product(A: Tensor, tau: Tensor, *, out: Any = None) -> Tensor:
    """The first n columns of the product of the Householder reflectors I - tau_i v_i v_i^H."""
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.householder_product: input must have at least 2 dimensions.")
    m, n = A.shape[-2:]
    if m < n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if tau.shape[-1] > n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    return apply(HOUSEHOLDER_PRODUCT, (A, tau))
