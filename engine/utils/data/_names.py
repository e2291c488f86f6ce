"""Default object reprs naming torch's modules, as PyTorch's own objects print."""

from __future__ import annotations

from typing import Any


def torch_repr(obj: Any) -> str:
    cls = type(obj)
    module = cls.__module__
    if module == "engine" or module.startswith("engine."):
        module = "torch" + module[len("engine"):]
    return f"<{module}.{cls.__qualname__} object at {hex(id(obj))}>"
