"""In-place comparisons (x.lt_, eq_...) and torch.gcd, lcm, nextafter with their Tensor methods."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import complex_ops, dtypes, ops
from engine.bitwise import _not_implemented
from engine.functions import _check_broadcast, _constant, _inplace, copy_
from engine.rules import apply, promoted_arrays
from engine.tensor import Tensor

_NUMBER = (int, float, bool, complex, np.number, np.bool_)
_ORDERED = ("lt", "le", "gt", "ge")


def _type_name(x: Any) -> str:
    return "Tensor" if isinstance(x, Tensor) else type(x).__name__


def _leaf_first(self: Tensor) -> None:
    """PyTorch refuses an in-place op on a leaf that requires grad before looking at the operands."""
    if not self._inference:
        self._check_inplace()


def _compare_(name: str, method: str) -> Any:
    scalar_rule, tensor_rule = ops.COMPARE_INPLACE[name]

    def fn(self: Tensor, other: Any) -> Tensor:
        if isinstance(other, _NUMBER) or isinstance(other, Tensor):
            _leaf_first(self)
        if isinstance(other, Tensor):
            if name in _ORDERED:
                complex_ops.check_ordered(name, self._data, other._data)
            _check_broadcast(self, other)
            return _inplace(self, tensor_rule, (other,))
        if isinstance(other, _NUMBER):
            if name in _ORDERED:
                complex_ops.check_ordered(name, self._data, other)
            return _inplace(self, scalar_rule, (), {"other": other})
        got = _type_name(other)
        raise TypeError(f"{method}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        f" * (Tensor other)\n      didn't match because some of the arguments have invalid types: "
                        f"(!{got}!)\n * (Number other)\n      didn't match because some of the arguments have invalid "
                        f"types: (!{got}!)\n")

    fn.__name__ = fn.__qualname__ = method
    return fn


def _tensor_other(fn: str, value: Any, position: int) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument 'other' (position {position}) must be Tensor, not {type(value).__name__}")


def _integer_operands(kernel: str, input: Tensor, other: Tensor) -> tuple[np.ndarray, np.ndarray]:
    arrays = [input._data, other._data]
    target = dtypes.result_type_np(arrays)
    if target.kind not in "iu":
        raise _not_implemented(kernel, target)
    promoted = promoted_arrays(arrays)
    a, b = promoted[0] if promoted is not None else arrays
    return np.asarray(a, target), np.asarray(b, target)


def _gcd_arrays(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.gcd(a, b)


def _lcm_arrays(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a / gcd * b| with C's wrap-around on overflow (NumPy's lcm takes the absolute values first)."""
    g = np.gcd(a, b)
    safe = np.where(g == 0, 1, g).astype(g.dtype)
    return np.where(g == 0, 0, np.abs(a // safe * b)).astype(g.dtype)


def _integer_binary(name: str, kernel: Any, position: int) -> Any:
    def fn(input: Tensor, other: Tensor) -> Tensor:
        _tensor_other(name, other, position)
        _check_broadcast(input, other)
        return _constant(np.asarray(kernel(*_integer_operands(name, input, other))))

    fn.__name__ = fn.__qualname__ = name
    return fn


def _integer_binary_(name: str, kernel: Any) -> Any:
    def fn(self: Tensor, other: Tensor) -> Tensor:
        _tensor_other(name + "_", other, 1)
        _check_broadcast(self, other)
        full = np.broadcast_shapes(self._data.shape, other._data.shape)
        if full != self._data.shape:
            raise RuntimeError(f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
                               f"{list(full)}")
        return copy_(self, _constant(np.asarray(kernel(*_integer_operands(name, self, other)))))

    fn.__name__ = fn.__qualname__ = name + "_"
    return fn


gcd = _integer_binary("gcd", _gcd_arrays, 2)
lcm = _integer_binary("lcm", _lcm_arrays, 2)


def _check_nextafter(input: Tensor, other: Tensor) -> None:
    target = dtypes.result_type_np([input._data, other._data])
    if target.kind != "f" and target != dtypes.BF16:
        raise _not_implemented("nextafter", target)


def nextafter(input: Tensor, other: Tensor) -> Tensor:
    """The next floating-point value after input towards other (NextafterBackward0)."""
    _tensor_other("nextafter", other, 2)
    _check_broadcast(input, other)
    _check_nextafter(input, other)
    return apply(ops.NEXTAFTER, (input, other))


def _nextafter_(self: Tensor, other: Tensor) -> Tensor:
    _tensor_other("nextafter_", other, 1)
    _leaf_first(self)
    _check_nextafter(self, other)
    _check_broadcast(self, other)
    return _inplace(self, ops.NEXTAFTER, (other,))


def _method_other(fn: Any, name: str) -> Any:
    def method(self: Tensor, other: Tensor) -> Tensor:
        _tensor_other(name, other, 1)
        return fn(self, other)

    method.__name__ = method.__qualname__ = name
    return method


METHODS: dict[str, Any] = {}
for _name, _aliases in (("lt", ("less_",)), ("le", ("less_equal_",)), ("gt", ("greater_",)),
                        ("ge", ("greater_equal_",)), ("eq", ()), ("ne", ("not_equal_",))):
    for _method in (_name + "_", *_aliases):
        METHODS[_method] = _compare_(_name, _method)
METHODS.update({
    "gcd": _method_other(gcd, "gcd"), "lcm": _method_other(lcm, "lcm"),
    "gcd_": _integer_binary_("gcd", _gcd_arrays), "lcm_": _integer_binary_("lcm", _lcm_arrays),
    "nextafter": _method_other(nextafter, "nextafter"), "nextafter_": _nextafter_,
})
