"""gradcheck / gradgradcheck: analytical gradients against central finite differences."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from engine.tensor import Tensor


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytical and numerical gradients disagree."""


def _tuple(x: Any) -> tuple:
    return (x,) if isinstance(x, Tensor) else tuple(x)


def _real_values(o: Tensor) -> np.ndarray:
    """An output's values as real numbers: a complex one's real and imaginary parts in turn."""
    d = o._data
    if d.dtype.kind == "c":
        return np.stack([d.real, d.imag], -1).astype(np.float64).reshape(-1)
    return d.astype(np.float64).reshape(-1).copy()


def _numerical(func: Callable, inputs: tuple, i: int, eps: float) -> list[np.ndarray]:
    """d outputs / d inputs[i], one (input numel x output numel) matrix per output; a complex input
    or output counts as its real and imaginary parts (two rows, two columns per element)."""
    x = inputs[i]
    data = x._data  # perturbed in place, element by element (reshape would copy a non-contiguous one)
    steps = (eps, 1j * eps) if data.dtype.kind == "c" else (eps,)
    columns: list[list[np.ndarray]] = []
    for k in range(data.size):
        at = np.unravel_index(k, data.shape)
        original = data[at].copy()
        for step in steps:
            data[at] = original + step
            plus = [_real_values(o) for o in _tuple(func(*inputs))]
            data[at] = original - step
            minus = [_real_values(o) for o in _tuple(func(*inputs))]
            data[at] = original
            columns.append([(p - m) / (2 * eps) for p, m in zip(plus, minus)])
    n_out = len(columns[0]) if columns else len(_tuple(func(*inputs)))
    return [np.stack([c[j] for c in columns]) if columns else np.zeros((0, 0)) for j in range(n_out)]


def _analytical(outputs: tuple, inputs: tuple, i: int) -> list[np.ndarray]:
    from engine.autograd import grad

    from engine.creation import tensor

    x = inputs[i]
    rows = 2 if x._data.dtype.kind == "c" else 1
    mats = []
    for out in outputs:
        # PyTorch's convention: with grad_output 1 (1j), x's gradient is d real(out) / d real(x) +
        # 1j * d real(out) / d imag(x) (the same of imag(out))
        seeds = (1, 1j) if out._data.dtype.kind == "c" else (None,)
        m = np.zeros((x._data.size * rows, out._data.size * len(seeds)))
        if out.requires_grad:
            flat = out.reshape(-1)
            for k in range(out._data.size):
                for part, seed in enumerate(seeds):
                    v = None if seed is None else tensor(seed, dtype=out.dtype)
                    (g,) = grad(flat[k], (x,), v, retain_graph=True, allow_unused=True)
                    if g is not None:
                        column = k * len(seeds) + part
                        d = g._data.reshape(-1)
                        if rows == 2:
                            m[0::2, column] = d.real
                            m[1::2, column] = d.imag
                        else:
                            m[:, column] = d.real.astype(np.float64)
        mats.append(m)
    return mats


def _fmt(m: np.ndarray) -> str:
    from engine.creation import tensor

    return repr(tensor(m, dtype=None).double())


def gradcheck(func: Callable, inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked: Any = None) -> bool:
    inputs = _tuple(inputs)
    for idx, x in enumerate(inputs):
        if isinstance(x, Tensor) and x.requires_grad and x._data.dtype not in (np.float64, np.complex128):
            warnings.warn(
                f"Input #{idx} requires gradient and is not a double precision floating point or complex. "
                "This check will likely fail if all the inputs are not of double precision floating point "
                "or complex. ", UserWarning, stacklevel=2,
            )
    outputs = _tuple(func(*inputs))
    for i, x in enumerate(inputs):
        if not (isinstance(x, Tensor) and x.requires_grad):
            continue
        numerical = _numerical(func, inputs, i, eps)
        analytical = _analytical(outputs, inputs, i)
        for j, (n, a) in enumerate(zip(numerical, analytical)):
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {j} with respect to input {i},\n"
                    f"numerical:{_fmt(n)}\nanalytical:{_fmt(a)}\n"
                )
    return True


def gradgradcheck(func: Callable, inputs: Any, grad_outputs: Any = None, *, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, **kwargs: Any) -> bool:
    from engine.autograd import grad
    from engine.creation import randn

    inputs = _tuple(inputs)
    outputs = _tuple(func(*inputs))
    if grad_outputs is None:
        grad_outputs = tuple(
            randn(*o.shape, dtype=o.dtype).requires_grad_(True) for o in outputs if o.requires_grad
        )
    else:
        grad_outputs = _tuple(grad_outputs)
    n = len(inputs)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]

    def first_order(*args: Any) -> tuple:
        xs, gos = args[:n], args[n:]
        outs = [o for o in _tuple(func(*xs)) if o.requires_grad]
        gs = grad(outs, [xs[i] for i in diff], gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_order, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
