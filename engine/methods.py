"""Attaches the torch functions to Tensor as methods and Python operators."""

from __future__ import annotations

from typing import Any

from engine import functions as f
from engine import ops
from engine.tensor import Tensor


def _reflected(fn: Any) -> Any:
    def method(self: Tensor, other: Any) -> Any:
        return fn(other, self)

    return method


def _inplace_binary(rule: Any) -> Any:
    def method(self: Tensor, other: Any, **attrs: Any) -> Tensor:
        return f._inplace(self, rule, (other,), attrs or None)

    return method


def _inplace_unary(rule: Any) -> Any:
    def method(self: Tensor) -> Tensor:
        return f._inplace(self, rule, ())

    return method


METHODS = {
    # operators
    "__add__": f.add, "__radd__": f.add, "__sub__": f.sub, "__rsub__": f.rsub,
    "__mul__": f.mul, "__rmul__": f.mul, "__truediv__": f.div, "__rtruediv__": _reflected(f.div),
    "__neg__": f.neg, "__pow__": f.pow, "__rpow__": _reflected(f.pow), "__matmul__": f.matmul,
    "__rmatmul__": _reflected(f.matmul), "__abs__": f.abs,
    "__lt__": f.lt, "__le__": f.le, "__gt__": f.gt, "__ge__": f.ge, "__eq__": f.eq, "__ne__": f.ne,
    "__setitem__": f.setitem,
    "__iadd__": _inplace_binary(ops.ADD), "__isub__": _inplace_binary(ops.SUB),
    "__imul__": _inplace_binary(ops.MUL), "__itruediv__": _inplace_binary(ops.DIV),
    # methods
    "add": f.add, "sub": f.sub, "mul": f.mul, "div": f.div, "neg": f.neg, "pow": f.pow,
    "square": f.square, "reciprocal": f.reciprocal,
    "exp": f.exp, "log": f.log, "sin": f.sin, "cos": f.cos, "tanh": f.tanh, "sigmoid": f.sigmoid,
    "relu": f.relu, "sqrt": f.sqrt, "abs": f.abs, "sign": f.sign,
    "sum": f.sum, "mean": f.mean, "sum_to_size": f.sum_to_size,
    "matmul": f.matmul, "mm": f.mm, "dot": f.dot,
    "view": f.view, "reshape": f.reshape, "flatten": f.flatten, "expand": f.expand, "t": f.t,
    "transpose": f.transpose, "permute": f.permute, "unsqueeze": f.unsqueeze, "squeeze": f.squeeze,
    "clone": f.clone,
    "lt": f.lt, "le": f.le, "gt": f.gt, "ge": f.ge, "eq": f.eq, "ne": f.ne,
    # in-place
    "add_": _inplace_binary(ops.ADD), "sub_": _inplace_binary(ops.SUB), "mul_": _inplace_binary(ops.MUL),
    "div_": _inplace_binary(ops.DIV), "exp_": _inplace_unary(ops.EXP), "relu_": _inplace_unary(ops.RELU),
    "sigmoid_": _inplace_unary(ops.SIGMOID), "tanh_": _inplace_unary(ops.TANH),
    "zero_": f.zero_, "fill_": f.fill_,
}

for _name, _fn in METHODS.items():
    setattr(Tensor, _name, _fn)

Tensor.T = property(lambda self: f.permute(self, tuple(reversed(range(self.dim())))))  # type: ignore[attr-defined]
Tensor.mT = property(lambda self: f.transpose(self, -2, -1))  # type: ignore[attr-defined]
