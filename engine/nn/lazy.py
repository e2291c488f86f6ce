"""Lazy modules (nn.LazyLinear, LazyConv*d, LazyConvTranspose*d, LazyBatchNorm*d, LazyInstanceNorm*d): parameters
and buffers whose shape the first forward's input decides, after which the module becomes its eager class (Linear...)
and its parameters and buffers ordinary ones."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.tensor import Parameter, Size, Tensor

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


class UninitializedBuffer(Tensor):
    """A buffer without data yet: `materialize(shape)` gives it its shape and makes it a Tensor."""

    __slots__ = ()
    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device: Any = None, dtype: Any = None) -> "UninitializedBuffer":
        from engine import dtypes

        b = cls._make(np.zeros((0,), (dtype or dtypes.default_float).np))
        b._requires_grad = bool(requires_grad)
        return b

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __repr__(self) -> str:
        return "<UninitializedBuffer>"

    shape = UninitializedParameter.shape
    size = UninitializedParameter.size
    materialize = UninitializedParameter.materialize


_UNINITIALIZED_TYPES = (UninitializedParameter, UninitializedBuffer)


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
        return any(isinstance(p, _UNINITIALIZED_TYPES) for p in params)


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


def _lazy_conv_weights(module: Any, bias: bool, dtype: Any) -> None:
    module.weight = UninitializedParameter(dtype=dtype)
    if bias:
        module.bias = UninitializedParameter(dtype=dtype)
    module._initialize_hook = module.register_forward_pre_hook(_infer_parameters)


def _lazy_conv_init(Conv: type) -> Any:  # noqa: N803 - the class
    def __init__(self: Any, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:
        Conv.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
        self.out_channels = out_channels
        _lazy_conv_weights(self, bias, dtype)

    return __init__


def _lazy_conv_transpose_init(Conv: type) -> Any:  # noqa: N803 - the class
    def __init__(self: Any, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        Conv.__init__(self, 0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,
                      padding_mode, device, dtype)
        self.out_channels = out_channels
        _lazy_conv_weights(self, bias, dtype)

    return __init__


def make_lazy_conv(Conv: type, transposed: bool) -> type:  # noqa: N803 - the class
    """LazyConv{1,2,3}d / LazyConvTranspose{1,2,3}d: in_channels is the channel dim of the first input."""

    class LazyConv(LazyModuleMixin, Conv):  # type: ignore[misc, valid-type]
        cls_to_become = Conv

        def reset_parameters(self) -> None:
            if not self.has_uninitialized_params() and self.in_channels != 0:
                super().reset_parameters()

        def initialize_parameters(self, input: Any, *args: Any) -> None:
            from engine import grad_mode

            if self.has_uninitialized_params():
                self.in_channels = self._get_in_channels(input)
                if self.in_channels % self.groups != 0:
                    raise ValueError("in_channels must be divisible by groups")
                with grad_mode.no_grad():
                    if transposed:
                        self.weight.materialize((self.in_channels, self.out_channels // self.groups,
                                                 *self.kernel_size))
                    else:
                        self.weight.materialize((self.out_channels, self.in_channels // self.groups,
                                                 *self.kernel_size))
                    if self.bias is not None:
                        self.bias.materialize((self.out_channels,))
                    self.reset_parameters()

        def _get_in_channels(self, input: Any) -> int:
            num_dims_no_batch = self._dims + 1
            num_dims_batch = num_dims_no_batch + 1
            if input.dim() not in (num_dims_no_batch, num_dims_batch):
                raise RuntimeError(f"Expected {num_dims_no_batch}D (unbatched) or {num_dims_batch}D (batched) input "
                                   f"to {self.__class__.__name__}, but got input of size: {input.shape}")
            return input.shape[1] if input.dim() == num_dims_batch else input.shape[0]

    LazyConv.__init__ = (_lazy_conv_transpose_init if transposed else _lazy_conv_init)(Conv)  # type: ignore
    LazyConv.__name__ = LazyConv.__qualname__ = "Lazy" + Conv.__name__
    LazyConv.__module__ = Conv.__module__
    return LazyConv


def make_lazy_norm(Norm: type) -> type:  # noqa: N803 - the class
    """LazyBatchNorm{1,2,3}d / LazyInstanceNorm{1,2,3}d: num_features is the first input's dim 1 (affine and
    running statistics by default, for the instance norms too)."""

    class LazyNorm(LazyModuleMixin, Norm):  # type: ignore[misc, valid-type]
        cls_to_become = Norm

        def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                     track_running_stats: bool = True, device: Any = None, dtype: Any = None, *,
                     bias: bool = True) -> None:
            from engine import creation

            Norm.__init__(self, 0, eps, momentum, False, False, device, dtype, bias=False)
            self.affine = affine
            self.track_running_stats = track_running_stats
            if self.affine:
                self.weight = UninitializedParameter(dtype=dtype)
                if bias:
                    self.bias = UninitializedParameter(dtype=dtype)
            if self.track_running_stats:
                self.running_mean = UninitializedBuffer(dtype=dtype)
                self.running_var = UninitializedBuffer(dtype=dtype)
                self.num_batches_tracked = creation.tensor(0)
            self._initialize_hook = self.register_forward_pre_hook(_infer_parameters)

        def reset_parameters(self) -> None:
            if not self.has_uninitialized_params() and self.num_features != 0:
                super().reset_parameters()

        def initialize_parameters(self, input: Any, *args: Any) -> None:
            from engine import grad_mode

            if self.has_uninitialized_params():
                self.num_features = input.shape[1]
                with grad_mode.no_grad():
                    if self.affine:
                        self.weight.materialize((self.num_features,))
                        if self.bias is not None:
                            self.bias.materialize((self.num_features,))
                    if self.track_running_stats:
                        self.running_mean.materialize((self.num_features,))
                        self.running_var.materialize((self.num_features,))
                    self.reset_parameters()

    LazyNorm.__name__ = LazyNorm.__qualname__ = "Lazy" + Norm.__name__
    LazyNorm.__module__ = Norm.__module__
    return LazyNorm
