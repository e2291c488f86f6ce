"""The legacy constructors and type objects: torch.Tensor(...), torch.FloatTensor([1, 2]), torch.LongTensor(2, 3),
isinstance(x, torch.FloatTensor), x.type(torch.DoubleTensor) / x.type("torch.DoubleTensor")."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import dtypes
from engine.tensor import Size, Tensor, _TorchClass

_SIGNATURES = (" * (*, torch.device device = None)\n * (torch.Storage storage)\n * (Tensor other)\n"
               " * (tuple of ints size, *, torch.device device = None)\n * (object data, *, torch.device device = None)\n")


def _options(dtype: Any) -> str:
    return (f"TensorOptions(dtype={dtype.cpp}, device=cpu, layout=Strided, requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt))")


def _kind(value: Any) -> str:
    return "torch.dtype" if isinstance(value, dtypes.dtype) else type(value).__name__


def legacy_new(dtype: Any, args: tuple, kwargs: dict, exact: bool = True) -> Tensor:
    """What torch.<Type>Tensor(*args) makes: empty, of a size, an alias of a tensor, or data converted to dtype
    (`exact` False for torch.Tensor, which aliases a tensor of any dtype)."""
    from engine import creation, devices
    from engine import functions as f

    bad = [k for k in kwargs if k != "device"]
    if bad:
        kinds = ", ".join([type(a).__name__ for a in args] + [f"{k}={_kind(v)}" for k, v in kwargs.items()])
        raise TypeError(f"new() received an invalid combination of arguments - got ({kinds}), but expected one "
                        f"of:\n{_SIGNATURES}")
    devices.check(kwargs.get("device"), creating=True)
    if not args:
        return creation.empty(0, dtype=dtype)
    first = args[0]
    if len(args) == 1 and isinstance(first, Tensor):
        if exact and first.dtype != dtype:
            raise TypeError(f"expected {_options(dtype)} (got {_options(first.dtype)})")
        return f.apply(f.ops.ALIAS, (first,))
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args) or (
            len(args) == 1 and isinstance(first, Size)):
        size = tuple(first) if isinstance(first, Size) else tuple(int(a) for a in args)
        for n in size:
            if n < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(size)}")
        return creation.zeros(*size, dtype=dtype)
    if len(args) == 1:
        if isinstance(first, str):
            raise TypeError("new(): invalid data type 'str'")
        if isinstance(first, (int, float, bool, complex)):
            raise TypeError(f"new(): data must be a sequence (got {type(first).__name__})")
        return creation.tensor(first, dtype=dtype)
    kinds = ", ".join(type(a).__name__ for a in args)
    raise TypeError(f"new() received an invalid combination of arguments - got ({kinds}), but expected one of:\n"
                    f"{_SIGNATURES}")


class LegacyTensorType(_TorchClass):
    """The metaclass of torch.FloatTensor & co.: calling one constructs a tensor of its dtype; isinstance checks
    the dtype."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Tensor:
        return legacy_new(cls.dtype, args, kwargs)

    def __instancecheck__(cls, other: Any) -> bool:
        return isinstance(other, Tensor) and other.dtype == cls.dtype

    def __repr__(cls) -> str:
        return f"<class 'torch.{cls.__name__}'>"


_TYPES = {"FloatTensor": dtypes.float32, "DoubleTensor": dtypes.float64, "HalfTensor": dtypes.float16,
          "BFloat16Tensor": dtypes.bfloat16, "LongTensor": dtypes.int64, "IntTensor": dtypes.int32,
          "ShortTensor": dtypes.int16, "CharTensor": dtypes.int8, "ByteTensor": dtypes.uint8,
          "BoolTensor": dtypes.bool_}
TYPES = {name: LegacyTensorType(name, (), {"dtype": dt, "__module__": "torch"}) for name, dt in _TYPES.items()}


def dtype_of_type(value: Any) -> Any:
    """The dtype x.type(value) converts to: a legacy type object or its name ('torch.FloatTensor')."""
    if isinstance(value, LegacyTensorType):
        return value.dtype
    if isinstance(value, str):
        name = value[len("torch."):] if value.startswith("torch.") else None
        if name in _TYPES:
            return _TYPES[name]
        raise ValueError(f"invalid type: '{value}'")
    if any(value is t for t in (float, int, bool, complex)):  # x.type(float): PyTorch takes a Python type for its name
        raise ValueError(f"invalid type: '{value.__name__}'")
    if isinstance(value, type):  # x.type(np.float32)
        raise ValueError(f"invalid type: '{value.__module__}.{value.__name__}'")
    if not isinstance(value, dtypes.dtype):
        raise TypeError("dtype must be a type, str, or dtype object")
    return value


def _tensor_new(cls: Any, *args: Any, **kwargs: Any) -> Any:
    if cls is Tensor:
        return legacy_new(dtypes.default_float, args, kwargs, exact=False)
    return object.__new__(cls)


def install(namespace: dict) -> None:
    """torch.Tensor(...) constructs; torch.FloatTensor & co. join `namespace`."""
    Tensor.__new__ = _tensor_new  # type: ignore[method-assign]
    Tensor.__init__ = lambda self, *args, **kwargs: None  # type: ignore[method-assign]
    namespace.update(TYPES)
