"""Argument checks of the loss functions, in PyTorch's order and with its messages."""
from __future__ import annotations

from typing import Any

import numpy as np

from engine import messages
from engine.tensor import Size, Tensor


def _dims(shape: tuple) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def nll_target(input: Tensor, target: Tensor, weight: Tensor | None, ignore_index: int) -> None:
    """nll_loss_nd's checks: batch size, target rank/shape, target dtype, weight, class range."""
    shape, tshape = input._data.shape, target._data.shape
    if not shape:
        raise ValueError(f"Expected 1 or more dimensions (got {len(shape)})")
    if len(shape) != 1 and shape[0] != (tshape[0] if tshape else 0):
        raise ValueError(f"Expected input batch_size ({shape[0]}) to match target batch_size "
                         f"({tshape[0] if tshape else 0}).")
    if len(shape) > 2 and len(shape) != 4 and tshape[1:] != shape[2:]:
        raise RuntimeError(f"Expected target size {_dims((shape[0],) + shape[2:])}, got {_dims(tshape)}")
    spatial = len(shape) > 2
    if not spatial and len(tshape) > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if len(shape) == 4 and len(tshape) != 3:
        raise RuntimeError("only batches of spatial targets supported (3D tensors) but got targets of "
                           f"dimension: {len(tshape)}")
    if target._data.dtype not in (np.int64, np.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target.dtype.legacy}")
    if len(shape) == 1 and len(tshape) == 1 and tshape[0] != 1:
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {tshape[0]}")
    classes = shape[1] if len(shape) > 1 else shape[0]
    if weight is not None:
        wshape = weight._data.shape
        if spatial and weight._data.size != classes:
            raise RuntimeError("weight tensor should be defined either for all or no classes")
        if not spatial and (len(wshape) != 1 or wshape[0] != classes):
            raise RuntimeError(f"weight tensor should be defined either for all {classes} classes or no "
                               f"classes but got weight tensor of shape: {_dims(wshape)}")
    if len(shape) == 4 and tshape != (shape[0],) + shape[2:]:
        raise RuntimeError(f"size mismatch (got input: {_dims(shape)} , target: {_dims(tshape)}")
    if input._data.dtype.kind != "f":
        kernel = "nll_loss2d_forward_out_frame" if spatial else "nll_loss_out_frame"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.legacy}'")
    if weight is not None and weight._data.dtype != input._data.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.legacy} but found {weight.dtype.legacy}")
    t = target._data
    bad = t[(t != ignore_index) & ((t < 0) | (t >= classes))]
    if bad.size:
        raise IndexError(f"Target {int(bad.flat[0])} is out of bounds.")


def class_probabilities(input: Tensor, target: Tensor, weight: Tensor | None, ignore_index: int) -> None:
    """cross_entropy's checks for a target of class probabilities (same shape as the input)."""
    if target._data.dtype.kind != "f":
        raise RuntimeError("Expected floating point type for target with class probabilities, got "
                           f"{target.dtype.legacy}")
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    shape = input._data.shape
    classes = shape[1] if len(shape) > 1 else shape[0]
    if weight is not None and (weight._data.ndim != 1 or weight._data.size != classes):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {classes} classes "
                           f"or no classes but got weight tensor of shape: {_dims(weight._data.shape)}")


def broadcast_shapes(*shapes: Any) -> list:
    """torch.broadcast_shapes' result and error text (a shape shows as its repr, e.g. torch.Size([3]))."""
    result = [1] * max(len(s) for s in shapes)
    for index, shape in enumerate(shapes):
        for i in range(-1, -1 - len(shape), -1):
            if shape[i] == 1 or shape[i] == result[i]:
                continue
            if result[i] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[i]} at {i}! "
                                   f"Mismatching argument at index {index} had {shape!r}; but expected shape "
                                   f"should be broadcastable to {result}")
            result[i] = shape[i]
    return result


def bce_target(input: Tensor, target: Tensor, weight: Tensor | None) -> None:
    """binary_cross_entropy: same shape, same dtype, weight broadcastable to the target."""
    if target._data.shape != input._data.shape:
        raise ValueError(
            f"Using a target size ({Size(target._data.shape)}) that is different to the input size "
            f"({Size(input._data.shape)}) is deprecated. Please ensure they have the same size."
        )
    if weight is not None:
        shape = broadcast_shapes(Size(target._data.shape), Size(weight._data.shape))
        if tuple(shape) != target._data.shape:
            raise RuntimeError(f"output with shape {_dims(target._data.shape)} doesn't match the broadcast "
                               f"shape {_dims(shape)}")
    if target._data.dtype != input._data.dtype:
        raise RuntimeError(f"Found dtype {target.dtype.legacy} but expected {input.dtype.legacy}")


def bce_logits_target(input: Tensor, target: Tensor, weight: Tensor | None,
                      pos_weight: Tensor | None) -> None:
    """binary_cross_entropy_with_logits: same shapes, and no integer or bool target (the float loss
    cannot be cast to its dtype)."""
    if target._data.shape != input._data.shape:
        raise ValueError(f"Target size ({Size(target._data.shape)}) must be the same as input size "
                         f"({Size(input._data.shape)})")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"log_sigmoid_cpu\" not implemented for '{input.dtype.legacy}'")
    kind = target._data.dtype.kind
    if kind == "b":
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
                           "or `logical_xor()` operator instead.")
    if kind in "iu":
        raise RuntimeError(f"result type {input.dtype.legacy} can't be cast to the desired output type "
                           f"{target.dtype.legacy}")
    shape = input._data.shape
    problem = pos_weight is not None and messages.broadcast_mismatch(pos_weight._data.shape, shape)
    problem = problem or (weight is not None and messages.broadcast_mismatch(shape, weight._data.shape))
    if problem:
        raise RuntimeError(problem)
    if weight is not None and weight._data.ndim > len(shape):
        wide = np.broadcast_shapes(shape, weight._data.shape)
        raise RuntimeError(f"output with shape {_dims(shape)} doesn't match the broadcast shape "
                           f"{_dims(wide)}")


def pointwise_kernel(name: str, input: Tensor, target: Tensor) -> None:
    """mse/smooth_l1/huber kernels exist for floating types only (checked on the promoted dtype)."""
    kinds = {input._data.dtype.kind, target._data.dtype.kind}
    if "f" not in kinds and "c" not in kinds:
        legacy = input.dtype.legacy if input._data.dtype.itemsize >= target._data.dtype.itemsize else \
            target.dtype.legacy
        raise NotImplementedError(f"\"{name}\" not implemented for '{legacy}'")


def kl_div_inputs(input: Tensor, target: Tensor) -> None:
    if input._data.dtype.kind in "iub" or target._data.dtype.kind in "iub":
        raise RuntimeError("kl_div: Integral inputs not supported.")


def log_softmax_kernel(input: Tensor, dim: int) -> None:
    """cross_entropy's log_softmax runs for floating inputs only."""
    if input._data.dtype.kind not in "fc":
        last = dim == input._data.ndim - 1
        kernel = "log_softmax_lastdim_kernel_impl" if last else "log_softmax_kernel_impl"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.legacy}'")
