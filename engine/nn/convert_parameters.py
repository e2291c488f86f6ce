"""torch.nn.utils' conversions between a list of parameters and one flat vector."""

from __future__ import annotations

from typing import Any

from engine import functions
from engine.tensor import Tensor


def parameters_to_vector(parameters: Any) -> Tensor:
    """The parameters flattened and concatenated (differentiable, like torch.cat of their views)."""
    return functions.cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Any) -> None:
    """Makes each parameter's data the next slice of `vec` (sharing its memory)."""
    if not isinstance(vec, Tensor):
        from engine.nn import _typename

        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    pointer = 0
    for param in parameters:
        count = param.numel()
        param.data = vec[pointer:pointer + count].view_as(param).data
        pointer += count
