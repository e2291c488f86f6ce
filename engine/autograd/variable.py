"""torch.autograd.Variable: the legacy wrapper, now a function-like class making a tensor (every tensor is one)."""

from __future__ import annotations

import warnings
from typing import Any

from engine import messages
from engine.tensor import Tensor


class VariableMeta(type):
    def __instancecheck__(cls, other: Any) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    """Variable(data, requires_grad=False): a new leaf sharing data's values (a detached alias), requiring grad
    when asked; Variable() is an empty float tensor."""

    def __new__(cls, data: Any = None, requires_grad: bool = False, volatile: bool = False) -> Any:  # type: ignore[misc]
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if data is None:
            from engine.creation import empty

            out = empty(0)
        elif not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        else:
            out = data.detach()
        if requires_grad and out._data.dtype.kind not in "fc":
            raise RuntimeError(messages.REQUIRES_GRAD_DTYPE)
        return out.requires_grad_(True) if requires_grad else out
