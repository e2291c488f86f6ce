"""Device arguments: tensors live on the CPU; other devices fail as on PyTorch's CPU-only build."""

from __future__ import annotations

from typing import Any

from engine import dtypes

NO_CUDA = "Torch not compiled with CUDA enabled"
NO_ACCELERATOR = "Cannot access accelerator device when none is available."


def is_device(value: Any) -> bool:
    """Whether a positional argument of Tensor.to / Module.to names a device (not a dtype or tensor)."""
    return isinstance(value, (str, dtypes.device)) or (isinstance(value, int) and not isinstance(value, bool))


def check(spec: Any, creating: bool = False) -> None:
    """Raise PyTorch's error for a device other than the CPU (None and 'meta' pass)."""
    if spec is None:
        return
    if isinstance(spec, int) and not isinstance(spec, bool):
        raise RuntimeError(NO_ACCELERATOR)
    kind = (spec if isinstance(spec, dtypes.device) else dtypes.device(spec)).type
    if kind == "cuda":
        raise AssertionError(NO_CUDA)
    if kind == "xpu":
        raise AssertionError("Torch not compiled with XPU enabled")
    if kind == "mps":
        if creating:
            raise NotImplementedError("Could not run 'aten::empty.memory_format' with arguments from the "
                                      "'MPS' backend.")
        raise RuntimeError("PyTorch is not linked with support for mps devices")


def check_cuda(device: Any = None) -> None:
    """Tensor.cuda(device): no CUDA, and no accelerator for an index."""
    if isinstance(device, int) and not isinstance(device, bool):
        raise RuntimeError(NO_ACCELERATOR)
    raise AssertionError(NO_CUDA)


def check_to(args: tuple, kwargs: dict) -> None:
    """The device given to Tensor.to / Module.to, positionally or as device=."""
    for a in args:
        if is_device(a):
            check(a)
    check(kwargs.get("device"))
