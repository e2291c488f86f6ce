"""Complex tensors: each rule's complex twin (PyTorch's Wirtinger-convention gradients) and the complex-only ops."""

from __future__ import annotations

import copy
import warnings
import weakref
from typing import Any, Callable

import numpy as np

from engine import dtypes
from engine.ops import rule
from engine.rules import ArrayMath, Rule, apply
from engine.tensor import Tensor

_PY_COMPLEX = complex  # Python's type (the module defines torch.complex below)

# PyTorch's gradient for a complex input is the conjugate Wirtinger derivative: for an op holomorphic
# in its inputs it is grad * conj(f'(z)). A rule's real formula is linear in grad, so running it on
# conj(grad) and conjugating the result gives exactly that: conj(conj(grad) * f'(z)). Rules whose
# real formula already is PyTorch's complex one (the norms, written with sgn and self; var and std)
# run as they are; the others below have a formula of their own.
AS_IS = frozenset({"norm", "var", "std"})


def _conjugated(fn: Callable | None) -> Callable | None:
    if fn is None:
        return None

    def grad(F: Any, g: Any, *saved: Any) -> Any:
        if isinstance(g, (tuple, list)):  # the gradients of a multi-output op's outputs
            g = type(g)(x if x is None else F.conj(x) for x in g)
        else:
            g = F.conj(g)
        gi = fn(F, g, *saved)
        return None if gi is None else F.conj(gi)

    grad.__wrapped__ = fn  # type: ignore[attr-defined] - inspect.signature reads fn's parameter names
    return grad


def _sgn_grad(F: Any, g: Any, result: Any, self: Any) -> Any:
    # sgn_backward: (grad - real(grad * conj(sgn)) * sgn) / abs, zero where self is 0
    a = F.abs(self)
    return F.where(F.raw(a) == 0, F.zeros_like(g), (g - F.real(g * F.conj(result)) * result) / a)


OWN: dict[str, tuple[Callable, ...]] = {
    "sgn": (_sgn_grad,),
    "abs": (lambda F, g, self: g * _sgn(F, self),),  # abs_backward: grad * self.sgn()
    # vdot(a, b) = sum(conj(a) * b): linear in b, conjugate-linear in a
    "vdot": (lambda F, g, other: F.conj(g) * other, lambda F, g, self: g * self),
}

# Ops PyTorch does not run on complex tensors: the error each raises ({} is the dtype's name).
_CLAMP = (NotImplementedError, "clamp is not supported for complex types")
UNSUPPORTED: dict[str, tuple[type, str]] = {
    **dict.fromkeys(("relu", "clamp", "clamp_min", "clamp_max", "clamp_tensor", "hardtanh", "threshold"), _CLAMP),
    "max": (NotImplementedError, "\"max_all\" not implemented for '{}'"),
    "min": (NotImplementedError, "\"min_all\" not implemented for '{}'"),
    "amax": (NotImplementedError, "\"max_values_cpu\" not implemented for '{}'"),
    "amin": (NotImplementedError, "\"min_values_cpu\" not implemented for '{}'"),
    "maximum": (RuntimeError, "maximum not implemented for complex tensors."),
    "minimum": (RuntimeError, "minimum not implemented for complex tensors."),
    "sort": (RuntimeError, " Sort does not support complex dtypes on CPU"),
    "topk": (RuntimeError, " topk does not support complex dtypes on CPU"),
    "floor": (NotImplementedError, "floor is not supported for complex inputs"),
    "ceil": (NotImplementedError, "ceil is not supported for complex inputs"),
    "trunc": (NotImplementedError, "trunc is not supported for complex inputs"),
    "round": (NotImplementedError, "\"round_vml_cpu\" not implemented for '{}'"),
    "sign": (NotImplementedError, "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
                                  "torch.sgn instead."),
    "remainder": (NotImplementedError, "\"remainder_cpu\" not implemented for '{}'"),
    "atan2": (NotImplementedError, "\"atan2_cpu\" not implemented for '{}'"),
    "erf": (NotImplementedError, "\"erf_vml_cpu\" not implemented for '{}'"),
    "softmax": (NotImplementedError, "\"softmax_lastdim_kernel_impl\" not implemented for '{}'"),
    "log_softmax": (NotImplementedError, "\"log_softmax_lastdim_kernel_impl\" not implemented for '{}'"),
    "cummax": (NotImplementedError, "\"cummax_cpu\" not implemented for '{}'"),
    "cummin": (NotImplementedError, "\"cummin_cpu\" not implemented for '{}'"),
    "median": (NotImplementedError, "\"median_cpu\" not implemented for '{}'"),
    "mse_loss": (NotImplementedError, "\"mse_cpu\" not implemented for '{}'"),
}


def _refusing(name: str) -> Callable:
    error, message = UNSUPPORTED[name]

    def forward(*arrays: Any, **attrs: Any) -> Any:
        kind = next(a.dtype for a in arrays if isinstance(a, np.ndarray) and a.dtype.kind == "c")
        raise error(message.format(dtypes.from_numpy(kind).legacy))

    return forward


def check_ordered(name: str, a: np.ndarray, b: Any) -> None:
    """<, <=, >, >= refuse complex operands, as PyTorch's kernels do."""
    for x in (a, b):
        if type(x) is _PY_COMPLEX or (isinstance(x, np.ndarray) and x.dtype.kind == "c"):
            legacy = dtypes.from_numpy(np.result_type(a, b)).legacy if isinstance(x, np.ndarray) else "ComplexFloat"
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{legacy}\'')


def twin(r: Rule) -> Rule:
    """`r` for complex inputs: the same forward, node name and saved values, with gradients in
    PyTorch's convention; its nodes are of a subclass of r's node class (the same name)."""
    if getattr(r, "complex_aware", False):
        r.complex_twin = r
        return r
    t = copy.copy(r)
    if r.name in UNSUPPORTED:
        t.forward = _refusing(r.name)
    elif r.name == "sgn":
        t.forward = sgn_array
    if r.name in AS_IS:
        pass
    elif r.name in OWN:
        t.plan_grads(OWN[r.name])
    else:
        t.plan_grads([_conjugated(g) for g in r.grads])
    t.complex_twin = t
    base = r.node_cls
    t.node_cls = type(base.__name__, (base,), {"__slots__": (), "rule": t, "__module__": base.__module__})
    from engine.rules import node_maker

    t.new_node = node_maker(t.node_cls)
    t.scalar_plans = [None] * len(r.scalar_plans)
    r.complex_twin = t
    return t


# --- helpers for the rules ------------------------------------------------------------------------
def _view_as_real(a: np.ndarray) -> np.ndarray:
    """The (..., 2) real view of a complex array (its real and imaginary parts, sharing memory)."""
    if a.dtype.kind != "c":  # never a view past a real array's elements (each is read as a pair)
        a = a.astype(dtypes.complex_of(a.dtype))
    re = a.real
    step = a.itemsize // 2
    return np.lib.stride_tricks.as_strided(re, a.shape + (2,), re.strides + (step,),
                                           writeable=bool(a.flags.writeable))


def _view_as_complex(a: np.ndarray) -> np.ndarray:
    """The complex view of a real array whose last dimension holds (real, imaginary) pairs."""
    c = dtypes.complex_of(a.dtype)
    try:
        return a.view(c)[..., 0]
    except ValueError:  # pairs not adjacent in memory (a gradient): a copy
        return (a[..., 0] + 1j * a[..., 1]).astype(c)


def _complex_forward(real: np.ndarray, imag: np.ndarray) -> np.ndarray:
    out = np.empty(np.broadcast_shapes(np.shape(real), np.shape(imag)), dtypes.complex_of(np.asarray(real).dtype))
    out.real = real
    out.imag = imag
    return out


def _polar_forward(abs: np.ndarray, angle: np.ndarray) -> np.ndarray:  # noqa: A002 - torch's name
    return _complex_forward(abs * np.cos(angle), abs * np.sin(angle))


def _real_of(F: Any, g: Any) -> Any:
    return F.real(g) if F is not ArrayMath else np.real(g)


def _sgn(F: Any, x: Any) -> Any:
    return sgn_array(x) if F is ArrayMath else F.op("sgn", x)


def sgn_array(a: Any) -> Any:
    """torch.sgn: a / |a| for complex values (times the reciprocal, as PyTorch's kernel rounds), 0 at 0."""
    a = np.asarray(a)
    if a.dtype.kind != "c":
        return np.sign(a)
    size = np.abs(a)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = a * (1 / size).astype(a.dtype)
    return np.where(size == 0, np.zeros((), a.dtype), out)


def _angle(a: Any) -> Any:
    """torch.angle: for complex64 computed in double and rounded once (as atan2f rounds)."""
    a = np.asarray(a)
    if a.dtype == np.complex64:
        return np.angle(a.astype(np.complex128)).astype(np.float32)
    return np.angle(a)


def _angle_grad(F: Any, g: Any, self: Any) -> Any:
    x = F.raw(self)
    if np.asarray(x).dtype.kind != "c":
        return F.zeros_like(self)
    a = F.abs(self)
    value = g * self / (a * a) * 1j
    return F.where(np.asarray(x) == 0, F.zeros_like(value), value)


def _complex_rule(name: str, node: str, forward: Callable, grads: tuple, formulas: tuple, **options: Any) -> Rule:
    r = rule(name, node, forward, grads, formulas, **options)
    r.complex_aware = True  # its gradients are written for complex values already
    return r


CONJ = _complex_rule("conj", "ConjBackward0", np.conj, (lambda F, g: F.conj(g),), ("grad.conj()",),
                     elementwise=True, exact_dtype=True)
VIEW_AS_REAL = _complex_rule("view_as_real", "ViewAsRealBackward0", _view_as_real,
                             (lambda F, g: F.op("view_as_complex", F.contiguous(g)),),
                             ("view_as_complex(grad)",), view=True, exact_dtype=True)
VIEW_AS_COMPLEX = _complex_rule("view_as_complex", "ViewAsComplexBackward0", _view_as_complex,
                                (lambda F, g: F.op("view_as_real", g),), ("view_as_real(grad)",),
                                view=True, exact_dtype=True)
COMPLEX = _complex_rule("complex", "ComplexBackward0", _complex_forward,
                        (lambda F, g: _real_of(F, g), lambda F, g: _real_of(F, g * -1j)),
                        ("at::real(grad)", "at::imag(grad)"), inputs=("real", "imag"), exact_dtype=True)
POLAR = _complex_rule("polar", "PolarBackward0", _polar_forward,
                      (lambda F, g, result: _real_of(F, F.conj(g) * _sgn(F, result)),
                       lambda F, g, result: _real_of(F, F.conj(g) * (result * 1j))),
                      ("at::real(grad.conj() * result.sgn())", "at::real(grad.conj() * result * 1j)"),
                      inputs=("abs", "angle"), exact_dtype=True)
ANGLE = _complex_rule("angle", "AngleBackward0", _angle, (_angle_grad,),
                      ("grad * self / abs(self)² * 1j (0 where self is 0; 0 for real self)",),
                      elementwise=True)

# --- the functions --------------------------------------------------------------------------------
_CONJ_VIEWS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # id -> tensor with the conj bit


def conj(input: Tensor) -> Tensor:
    """torch.conj: a real tensor itself; a complex one's conjugate (PyTorch's lazy view with the
    conjugate bit: is_conj() is True, resolve_conj() gives a plain copy)."""
    if input._data.dtype.kind != "c":
        return input
    out = apply(CONJ, (input,))
    if not is_conj(input):  # the conjugate of a conjugate view has the bit cleared
        _CONJ_VIEWS[id(out)] = out
    return out


def is_conj(input: Tensor) -> bool:
    return _CONJ_VIEWS.get(id(input)) is input


def resolve_conj(input: Tensor) -> Tensor:
    if not is_conj(input):
        return input
    from engine.functions import clone

    return clone(input)


def conj_physical(input: Tensor) -> Tensor:
    if input._data.dtype.kind != "c":
        return input
    return apply(CONJ_PHYSICAL, (input,))


CONJ_PHYSICAL = _complex_rule("conj_physical", "ConjPhysicalBackward0", np.conj,
                              (lambda F, g: F.conj(g),), ("grad.conj()",), elementwise=True, exact_dtype=True)


def view_as_real(input: Tensor) -> Tensor:
    if input._data.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if is_conj(input):
        raise RuntimeError("view_as_real doesn't work on unresolved conjugated tensors.  To resolve the "
                           "conjugate tensor so you can view it as real, use self.resolve_conj(); however, be warned that the resulting tensor will NOT alias the original.")
    return apply(VIEW_AS_REAL, (input,))


def view_as_complex(input: Tensor) -> Tensor:
    a = input._data
    if a.dtype not in (np.float32, np.float64):
        raise RuntimeError("view_as_complex is only supported for float and double tensors, but got a tensor "
                           f"of scalar type: {dtypes.from_numpy(a.dtype).legacy}")
    if not a.ndim or a.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if a.strides[-1] != a.itemsize:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    return apply(VIEW_AS_COMPLEX, (input,))


def real(input: Tensor) -> Tensor:
    """torch.real: a real tensor itself; for a complex one, view_as_real(input).select(-1, 0)."""
    if input._data.dtype.kind != "c":
        return input
    from engine.functions import select

    return select(view_as_real(resolve_conj(input)), -1, 0)


def imag(input: Tensor) -> Tensor:
    if input._data.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    from engine.functions import select

    return select(view_as_real(resolve_conj(input)), -1, 1)


def complex(real: Tensor, imag: Tensor) -> Tensor:  # noqa: A001 - torch's name
    for t in (real, imag):
        if not isinstance(t, Tensor):
            raise TypeError(f"complex(): argument 'real' (position 1) must be Tensor, not {type(t).__name__}")
    _check_parts(real, imag)
    return apply(COMPLEX, (real, imag))


def polar(abs: Tensor, angle: Tensor) -> Tensor:  # noqa: A002 - torch's name
    _check_parts(abs, angle)
    return apply(POLAR, (abs, angle))


def _check_parts(first: Tensor, second: Tensor) -> None:
    """PyTorch's checks of complex()'s and polar()'s two real parts: one dtype, float32 or float64."""
    d1, d2 = first._data.dtype, second._data.dtype
    if d1 != d2:
        raise RuntimeError(f"Expected object of scalar type {dtypes.from_numpy(d1).legacy} but got scalar type "
                           f"{dtypes.from_numpy(d2).legacy} for second argument")
    if d1 not in (np.float32, np.float64):
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{dtypes.from_numpy(d1).legacy} and {dtypes.from_numpy(d2).legacy}")


def angle(input: Tensor) -> Tensor:
    return apply(ANGLE, (input,))


_warned = [False]


def warn_discarded_imaginary() -> None:
    """A complex tensor converted to a real dtype: PyTorch warns once per process."""
    if not _warned[0]:
        _warned[0] = True
        import sys  # the caller's frame, for the warning's line (nothing kept on the module)

        level, frame = 1, sys._getframe(0)
        while frame is not None and frame.f_code.co_filename.startswith(_ENGINE_DIR):  # shown at the user's line
            frame, level = frame.f_back, level + 1
        warnings.warn("Casting complex values to real discards the imaginary part (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/native/Copy.cpp:307.)", UserWarning, stacklevel=level)


_ENGINE_DIR = __file__[: -len("complex_ops.py")]


def wrapped_scalar(tensor: Tensor, value: complex) -> np.ndarray:
    """A Python complex operand of an elementwise op with `tensor`, as the 0-d array PyTorch computes
    with: of the op's result dtype (a wrapped number ranks below tensors, see dtypes.result_type_np)."""
    return np.array(value, dtypes.result_type_np([tensor._data, value]))
