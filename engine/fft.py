"""torch.fft: fft, ifft, rfft, irfft, fftfreq, rfftfreq through PyTorch's _fft_r2c/_fft_c2r/_fft_c2c nodes."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import dtypes
from engine import functions as f
from engine.complex_ops import _complex_rule, _real_of, conj
from engine.rules import apply
from engine.tensor import Tensor

__all__ = ["fft", "ifft", "rfft", "irfft", "fftfreq", "rfftfreq"]

_NONE, _BY_ROOT_N, _BY_N = range(3)  # PyTorch's fft_norm_mode


# NumPy's norm= giving PyTorch's normalization of a transform in the forward and in the inverse direction
_FORWARD_NORM = ("backward", "ortho", "forward")
_INVERSE_NORM = ("forward", "ortho", "backward")


def _c2c(a: Any, dim: tuple, normalization: int, forward: bool) -> np.ndarray:
    """The DFT over dim (e^{-i...} when forward, e^{+i...} otherwise), scaled as `normalization` says."""
    a = np.asarray(a)
    wide = a.astype(np.complex128)  # float32 data transformed in double, then rounded
    if forward:
        return np.fft.fftn(wide, axes=dim, norm=_FORWARD_NORM[normalization]).astype(a.dtype)
    return np.fft.ifftn(wide, axes=dim, norm=_INVERSE_NORM[normalization]).astype(a.dtype)


def _r2c(a: Any, dim: tuple, normalization: int, onesided: bool) -> np.ndarray:
    a = np.asarray(a)
    out = (np.fft.rfftn if onesided else np.fft.fftn)(a.astype(np.float64), axes=dim, norm=_FORWARD_NORM[normalization])
    return out.astype(dtypes.complex_of(a.dtype))


def _c2r(a: Any, dim: tuple, normalization: int, last_dim_size: int) -> np.ndarray:
    a = np.asarray(a)
    sizes = [a.shape[d] for d in dim[:-1]] + [last_dim_size]
    out = np.fft.irfftn(a.astype(np.complex128), s=sizes, axes=dim, norm=_INVERSE_NORM[normalization])
    return out.astype(a.real.dtype)


def _r2c_grad(F: Any, g: Any, dim: tuple, normalization: int, onesided: bool, self: Any) -> Any:
    """fft_r2c_backward: real(c2c(grad, inverse)), the onesided grad first padded with zeros to the full length."""
    self_sym_sizes = np.shape(F.raw(self))
    if onesided:
        zeros = self_sym_sizes[dim[-1]] - np.shape(F.raw(g))[dim[-1]]
        if zeros > 0:
            pad = [0, 0] * len(self_sym_sizes)
            pad[2 * (len(self_sym_sizes) - 1 - dim[-1]) + 1] = zeros
            g = F.op("constant_pad_nd", g, pad=tuple(pad))
    return _real_of(F, F.op("_fft_c2c", g, dim=dim, normalization=normalization, forward=False))


def _c2r_grad(F: Any, g: Any, dim: tuple, normalization: int) -> Any:
    """fft_c2r_backward: the onesided r2c of grad, the entries whose mirror image lies outside it doubled."""
    gI = F.op("_fft_r2c", g, dim=dim, normalization=normalization, onesided=True)
    full, half = np.shape(F.raw(g))[dim[-1]], np.shape(F.raw(gI))[dim[-1]]
    if full - half > 0:
        twice = np.ones(half, np.asarray(F.raw(gI)).real.dtype)
        twice[1: 1 + full - half] = 2
        gI = gI * twice.reshape((-1,) + (1,) * (len(np.shape(F.raw(gI))) - 1 - dim[-1]))
    return gI


FFT_R2C = _complex_rule("_fft_r2c", "FftR2CBackward0", _r2c, (_r2c_grad,), ("real(ifft(grad, zero-padded))",),
                        inputs=("self",), exact_dtype=True)
FFT_C2R = _complex_rule("_fft_c2r", "FftC2RBackward0", _c2r, (_c2r_grad,), ("rfft(grad), mirrored entries doubled",),
                        inputs=("self",), exact_dtype=True)
FFT_C2C = _complex_rule("_fft_c2c", "FftC2CBackward0", _c2c,
                        (lambda F, g, dim, normalization, forward: F.op(
                            "_fft_c2c", g, dim=dim, normalization=normalization, forward=not forward),),
                        ("c2c(grad, inverse direction)",), inputs=("self",), exact_dtype=True)


def _norm(norm: str | None, forward: bool) -> int:
    if norm is None or norm == "backward":
        return _NONE if forward else _BY_N
    if norm == "forward":
        return _BY_N if forward else _NONE
    if norm == "ortho":
        return _BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _resized(x: Tensor, dim: int, n: int) -> Tensor:
    """resize_fft_input: sliced to n along dim, or padded with zeros up to n."""
    size = x._data.shape[dim]
    if size > n:
        x = f.narrow(x, dim, 0, n)
    if size < n:
        pad = [0, 0] * x._data.ndim
        pad[2 * (x._data.ndim - 1 - dim) + 1] = n - size
        from engine.nn.functional import pad as pad_fn

        x = pad_fn(x, tuple(pad))
    return x


def _promoted(x: Tensor, complex_: bool) -> Tensor:
    """promote_tensor_fft: integers computed in the default float dtype; complex when `complex_`."""
    if x._data.dtype.kind in "biu":
        x = f.to(x, dtypes.default_float)
    if complex_ and x._data.dtype.kind != "c":
        x = f.to(x, dtypes.from_numpy(dtypes.complex_of(x._data.dtype)))
    return x


def _points(n: int) -> None:
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _c2c_call(x: Tensor, n: int | None, dim: int, norm: str | None, forward: bool) -> Tensor:
    dim = f._wrap_dim(dim, x._data.ndim)
    size = x._data.shape[dim] if n is None else n
    _points(size)
    if n is not None:
        x = _resized(x, dim, n)
    return apply(FFT_C2C, (x,), {"dim": (dim,), "normalization": _norm(norm, forward), "forward": forward})


def _r2c_call(name: str, x: Tensor, n: int | None, dim: int, norm: str | None, forward: bool,
              onesided: bool) -> Tensor:
    x = _promoted(x, False)
    if x._data.dtype.kind == "c":
        raise RuntimeError(f"{name} expects a real input tensor, but got {x.dtype.legacy}")
    dim = f._wrap_dim(dim, x._data.ndim)
    _points(x._data.shape[dim] if n is None else n)
    if n is not None:
        x = _resized(x, dim, n)
    out = apply(FFT_R2C, (x,), {"dim": (dim,), "normalization": _norm(norm, forward), "onesided": onesided})
    return out if forward else conj(out)


def fft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    if input._data.dtype.kind == "c":
        return _c2c_call(input, n, dim, norm, True)
    return _r2c_call("fft", input, n, dim, norm, True, False)


def ifft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    if input._data.dtype.kind == "c":
        return _c2c_call(input, n, dim, norm, False)
    return _r2c_call("ifft", input, n, dim, norm, False, False)


def rfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    return _r2c_call("rfft", input, n, dim, norm, True, True)


def irfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    x = _promoted(input, True)
    dim = f._wrap_dim(dim, x._data.ndim)
    size = 2 * (x._data.shape[dim] - 1) if n is None else n
    _points(size)
    if n is not None:
        x = _resized(x, dim, n // 2 + 1)
    return apply(FFT_C2R, (x,), {"dim": (dim,), "normalization": _norm(norm, False), "last_dim_size": size})


def fftfreq(n: int, d: float = 1.0, *, dtype: Any = None, requires_grad: bool = False, **kwargs: Any) -> Tensor:
    """[0, 1, ..., (n-1)//2, -(n//2), ..., -1] / (d n)."""
    from engine.creation import tensor

    values = np.concatenate([np.arange((n + 1) // 2), np.arange(-(n // 2), 0)])
    return _scaled_frequencies(values, 1.0 / (n * d), dtype, requires_grad, tensor)


def rfftfreq(n: int, d: float = 1.0, *, dtype: Any = None, requires_grad: bool = False, **kwargs: Any) -> Tensor:
    """[0, 1, ..., n//2] / (d n)."""
    from engine.creation import tensor

    return _scaled_frequencies(np.arange(n // 2 + 1), 1.0 / (n * d), dtype, requires_grad, tensor)


def _scaled_frequencies(values: np.ndarray, scale: float, dtype: Any, requires_grad: bool, tensor: Any) -> Tensor:
    d = dtype or dtypes.default_float
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError("fftfreq requires a floating point or complex dtype")
    data = values.astype(d.np) * np.asarray(scale, d.np)  # mul_ by a double: the tensor's dtype
    return tensor(data.astype(d.np), dtype=d, requires_grad=requires_grad)
