"""Bitwise ops (& | ^ ~ << >>) and logical_xor on integer and bool tensors, with PyTorch's promotion and errors."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from engine import dtypes, observe
from engine.functions import _check_broadcast, _constant, _raw
from engine.rules import promoted_arrays
from engine.tensor import Tensor

Number = (int, float, bool, np.number, np.bool_)


def _not_implemented(kernel: str, dt: np.dtype) -> NotImplementedError:
    return NotImplementedError(f'"{kernel}_cpu" not implemented for \'{dtypes.from_numpy(dt).legacy}\'')


def _operands(input: Any, other: Any, kernel: str, bool_ok: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Both operands in PyTorch's result type, which must be an integer (or bool) type."""
    arrays = [_raw(input), _raw(other)]
    target = dtypes.result_type_np(arrays)
    if target.kind == "f" or (target.kind == "b" and not bool_ok):
        raise _not_implemented(kernel, target)
    promoted = promoted_arrays(arrays)
    if promoted is not None:
        arrays = promoted[0]
    a, b = (np.asarray(x, target) if not isinstance(x, np.ndarray) or x.dtype != target else x for x in arrays)
    return a, b


def _binary(kernel: str, fn: Callable, bool_ok: bool = True) -> Callable:
    def op(input: Any, other: Any) -> Any:
        if not isinstance(input, Tensor) and not isinstance(input, Number):
            return NotImplemented
        if not isinstance(other, (Tensor, *Number)):
            return NotImplemented
        if isinstance(input, Tensor):
            _check_broadcast(input, other)
        a, b = _operands(input, other, kernel, bool_ok)
        return _constant(np.asarray(fn(a, b)))

    return op


bitwise_and = _binary("bitwise_and", np.bitwise_and)
bitwise_or = _binary("bitwise_or", np.bitwise_or)
bitwise_xor = _binary("bitwise_xor", np.bitwise_xor)
# NumPy's shifts already give PyTorch's results for shifts out of range (0; -1 for a negative >>).
bitwise_left_shift = _binary("lshift", np.left_shift, bool_ok=False)
bitwise_right_shift = _binary("rshift", np.right_shift, bool_ok=False)


def bitwise_not(input: Tensor) -> Tensor:
    a = input._data
    if a.dtype.kind == "f" or a.dtype == dtypes.BF16:
        raise _not_implemented("bitwise_not", a.dtype)
    return _constant(np.invert(a))


def invert(input: Tensor) -> Tensor:
    """`~t`: bitwise_not, with Python's TypeError for floating tensors."""
    if input._data.dtype.kind not in "biu":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return bitwise_not(input)


def logical_xor(input: Tensor, other: Tensor) -> Tensor:
    if not isinstance(other, Tensor):
        raise TypeError(f"logical_xor(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    _check_broadcast(input, other)
    return _constant(np.logical_xor(input._data, other._data))


def _reflected(fn: Callable) -> Callable:
    def op(self: Tensor, other: Any) -> Any:
        return fn(other, self)

    return op


def _write(self: Tensor, out: Tensor) -> Tensor:
    """The result written into `self` (these ops have no gradient: integer and bool tensors)."""
    self._check_inplace()
    have, want = out._data.dtype, self._data.dtype
    if have != want and not dtypes.can_cast(have, want):
        raise RuntimeError(f"result type {dtypes.from_numpy(have).legacy} can't be cast to the desired output "
                           f"type {dtypes.from_numpy(want).legacy}")
    if out._data.shape != self._data.shape:
        _check_written_to_shape(self, out)
    dtypes.write(self._data, out._data)
    self._vc[0] += 1
    if observe.current is not None:
        observe.current.inplace_applied(self, None)
    return self


def _check_written_to_shape(self: Tensor, out: Tensor) -> None:
    from engine import messages

    problem = messages.broadcast_mismatch(self._data.shape, out._data.shape)
    if problem or np.broadcast_shapes(self._data.shape, out._data.shape) != self._data.shape:
        raise RuntimeError(f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
                           f"{list(np.broadcast_shapes(self._data.shape, out._data.shape))}")


def _inplace(fn: Callable) -> Callable:
    def op(self: Tensor, *args: Any) -> Tensor:
        return _write(self, fn(self, *args))

    return op


def _logical_xor_(self: Tensor, other: Tensor) -> Tensor:
    out = logical_xor(self, other)
    self._check_inplace()
    dtypes.write(self._data, out._data.astype(self._data.dtype))
    self._vc[0] += 1
    if observe.current is not None:
        observe.current.inplace_applied(self, None)
    return self


METHODS = {
    "__and__": bitwise_and, "__or__": bitwise_or, "__xor__": bitwise_xor, "__invert__": invert,
    "__lshift__": bitwise_left_shift, "__rshift__": bitwise_right_shift,
    "__rand__": _reflected(bitwise_and), "__ror__": _reflected(bitwise_or), "__rxor__": _reflected(bitwise_xor),
    "__rlshift__": _reflected(bitwise_left_shift), "__rrshift__": _reflected(bitwise_right_shift),
    "__iand__": _inplace(bitwise_and), "__ior__": _inplace(bitwise_or), "__ixor__": _inplace(bitwise_xor),
    "__ilshift__": _inplace(bitwise_left_shift), "__irshift__": _inplace(bitwise_right_shift),
    "bitwise_and": bitwise_and, "bitwise_or": bitwise_or, "bitwise_xor": bitwise_xor, "bitwise_not": bitwise_not,
    "bitwise_left_shift": bitwise_left_shift, "bitwise_right_shift": bitwise_right_shift,
    "bitwise_and_": _inplace(bitwise_and), "bitwise_or_": _inplace(bitwise_or),
    "bitwise_xor_": _inplace(bitwise_xor), "bitwise_not_": _inplace(bitwise_not),
    "bitwise_left_shift_": _inplace(bitwise_left_shift), "bitwise_right_shift_": _inplace(bitwise_right_shift),
    "logical_xor": logical_xor, "logical_xor_": _logical_xor_,
}
