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


def _numerical(func: Callable, inputs: tuple, i: int, eps: float) -> list[np.ndarray]:
    """d outputs / d inputs[i], one (input numel x output numel) matrix per output."""
    x = inputs[i]
    data = x._data  # perturbed in place, element by element (reshape would copy a non-contiguous one)
    columns: list[list[np.ndarray]] = []
    for k in range(data.size):
        at = np.unravel_index(k, data.shape)
        original = data[at].copy()
        data[at] = original + eps
        plus = [o._data.astype(np.float64).reshape(-1).copy() for o in _tuple(func(*inputs))]
        data[at] = original - eps
        minus = [o._data.astype(np.float64).reshape(-1).copy() for o in _tuple(func(*inputs))]
        data[at] = original
        columns.append([(p - m) / (2 * eps) for p, m in zip(plus, minus)])
    n_out = len(columns[0]) if columns else len(_tuple(func(*inputs)))
    return [np.stack([c[j] for c in columns]) if columns else np.zeros((0, 0)) for j in range(n_out)]


def _analytical(outputs: tuple, inputs: tuple, i: int) -> list[np.ndarray]:
    from engine.autograd import grad

    x = inputs[i]
    mats = []
    for out in outputs:
        m = np.zeros((x._data.size, out._data.size))
        if out.requires_grad:
            flat = out.reshape(-1)
            for k in range(out._data.size):
                (g,) = grad(flat[k], (x,), retain_graph=True, allow_unused=True)
                if g is not None:
                    m[:, k] = g._data.astype(np.float64).reshape(-1)
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
        if isinstance(x, Tensor) and x.requires_grad and x._data.dtype != np.float64:
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
