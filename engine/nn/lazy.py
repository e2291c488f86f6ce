"""Lazy modules (nn.LazyLinear): parameters whose shape the first forward's input decides, after which the
module becomes its eager class (Linear) and its parameters ordinary Parameters."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.tensor import Parameter, Size

_UNINITIALIZED = ("Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
                  "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
                  "`forward` to initialize the parameters before accessing their attributes.")


class UninitializedParameter(Parameter):
    """A parameter without data yet: `materialize(shape)` gives it its shape and makes it a Parameter."""

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> "UninitializedParameter":
        p = super().__new__(cls, None, requires_grad)
        if dtype is not None:
            p._data = np.zeros((0,), dtype.np)
        return p

    def __repr__(self) -> str:
        return "<UninitializedParameter>"

    @property
    def shape(self) -> Size:
        raise RuntimeError(_UNINITIALIZED)

    def size(self, dim: int | None = None) -> Any:
        raise RuntimeError(_UNINITIALIZED)

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        self._data = np.zeros(shape, self._data.dtype if dtype is None else dtype.np)
        self.__class__ = self.cls_to_become


def _infer_parameters(module: Any, args: tuple) -> None:
    """The forward pre-hook of a lazy module: shape its parameters from the inputs, then become eager."""
    module.initialize_parameters(*args)
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
    module._initialize_hook.remove()
    module.__class__ = module.cls_to_become


class LazyModuleMixin:
    """What a lazy module adds: the eager class it becomes and the check for parameters still unshaped."""

    cls_to_become: Any = None

    def has_uninitialized_params(self) -> bool:
        params = list(self._parameters.values()) + list(self._buffers.values())  # type: ignore[attr-defined]
        return any(isinstance(p, UninitializedParameter) for p in params)


def make_lazy_linear(Linear: type, Module: type) -> type:  # noqa: N803 - the classes
    class LazyLinear(LazyModuleMixin, Linear):  # type: ignore[misc, valid-type]
        """Linear whose in_features is the last dim of the first input."""

        cls_to_become = Linear

        def __init__(self, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
            Module.__init__(self)
            self.in_features = 0
            self.out_features = out_features
            self.weight = UninitializedParameter(dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(dtype=dtype)
            else:
                self.register_parameter("bias", None)
            self._initialize_hook = self.register_forward_pre_hook(_infer_parameters)

        def reset_parameters(self) -> None:
            if not self.has_uninitialized_params() and self.in_features != 0:
                super().reset_parameters()

        def initialize_parameters(self, input: Any, *args: Any) -> None:
            from engine import grad_mode

            if self.has_uninitialized_params():
                with grad_mode.no_grad():
                    self.in_features = input.shape[-1]
                    self.weight.materialize((self.out_features, self.in_features))
                    if self.bias is not None:
                        self.bias.materialize((self.out_features,))
                    self.reset_parameters()

    LazyLinear.__qualname__ = "LazyLinear"
    LazyLinear.__module__ = Linear.__module__
    return LazyLinear
