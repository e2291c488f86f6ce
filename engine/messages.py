"""PyTorch's exact error and warning texts, in one place."""

from __future__ import annotations

from typing import Any

BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)
IMPLICIT_SCALAR = "grad can be implicitly created only for scalar outputs"
IMPLICIT_REAL = "grad can be implicitly created only for real scalar outputs but got {dtype}"
NO_GRAD_FN = "element {i} of tensors does not require grad and does not have a grad_fn"
LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
LEAF_VIEW_INPLACE = "a view of a leaf Variable that requires grad is being used in an in-place operation."
NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
    "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
    "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf "
    "Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information. (Triggered internally at "
    "/__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)"
)
UNUSED_INPUT = (
    "The differentiated Tensor at index {i} appears to not have been used in the graph. "
    "Set allow_unused=True if this is the desired behavior."
)
INTERNAL_OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single memory "
    "location. Please clone() the tensor before performing the operation."
)
DETACH_VIEW_INPLACE = (
    "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) for "
    "training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and hence "
    "detach_() cannot be called on these gradients. To fix this error, please refer to the "
    "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
)
LEAF_FLAGS_ONLY = "you can only change requires_grad flags of leaf variables."
REQUIRES_GRAD_NON_LEAF = (
    f"{LEAF_FLAGS_ONLY} If you want to use a computed variable in a subgraph that doesn't require "
    "differentiation use var_no_grad = var.detach()."
)
DEEPCOPY_NON_LEAF = (
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment.  "
    "If you were attempting to deepcopy a module, this may be because of a torch.nn.utils.weight_norm usage, "
    "see https://github.com/pytorch/pytorch/pull/103001"
)
REQUIRES_GRAD_DTYPE = "Only Tensors of floating point and complex dtype can require gradients"
NUMPY_REQUIRES_GRAD = "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
EMPTY_INPUTS = "`inputs` argument to `backward()` cannot be empty."
RETAIN_GRAD_NO_GRAD = "can't retain_grad on Tensor that has requires_grad=False"
HOOK_NO_GRAD = "cannot register a hook on a tensor that doesn't require gradient"
CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and "
    "its gradient which can cause a memory leak. We recommend using autograd.grad when creating the "
    "graph to avoid this. If you have to use this function, make sure to reset the .grad fields of "
    "your parameters to None after use to break the cycle and avoid the leak. (Triggered internally "
    "at /__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)"
)
VERSION_HINT = (
    "Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
    "torch.autograd.set_detect_anomaly(True, check_nan=False)."
)
VERSION_HINT_ANOMALY = (
    "Hint: the backtrace further above shows the operation that failed to compute its gradient. "
    "The variable in question was changed in there or anywhere later. Good luck!"
)


INPLACE_LEAKY_RELU_NEGATIVE_SLOPE = (
    "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. "
    "This is caused by calling in-place forward function with a negative slope, please call out-of-place "
    "version instead. File an issue at https://github.com/pytorch/pytorch if you do require supporting "
    "in-place leakRelu backward calculation with negative slope"
)
INPLACE_ELU_NEGATIVE_SLOPE = (
    "In-place elu backward calculation is triggered with a negative slope which is not supported. "
    "This is caused by calling in-place forward function with a negative slope, please call out-of-place "
    "version instead."
)
EMBEDDING_INDEX_DTYPE = (
    "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got "
    "torch.{legacy}Tensor instead (while checking arguments for embedding)"
)
INDEX_OUT_OF_RANGE = "index out of range in self"
ADDCDIV_INTEGER = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform "
    "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + "
    "value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * "
    "tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: "
    "(input + value * tensor1 / tensor2), for all dtypes."
)
MESHGRID_INDEXING = (
    "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument. (Triggered "
    "internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4215.)"
)
COV_DOF = (
    "cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of observations."
)
NOT_DIFFERENTIABLE = (
    "The function '{fn}' is not differentiable with respect to argument '{arg}'. This input cannot have "
    "requires_grad True."
)
LSTM_PROJECTIONS_ONEDNN = (
    "LSTM with projections is not supported with oneDNN. Using default implementation. (Triggered "
    "internally at /__w/pytorch/pytorch/aten/src/ATen/native/RNN.cpp:1512.)"
)


def type_string(tensor: Any) -> str:
    """PyTorch's legacy type and shape, e.g. `[torch.FloatTensor [3]]`."""
    dims = ", ".join(str(d) for d in tensor._data.shape)
    return f"[torch.{tensor.dtype.legacy}Tensor [{dims}]]"


# How a view's base changed, in the two errors below: through the view itself, or through its base or
# another view of it (found when the view's grad_fn is next read).
VIEW_MODIFIED = "is being"
BASE_MODIFIED = "its base or another view of its base has been"


def multi_output_view_inplace(origin: tuple, modified: str = VIEW_MODIFIED) -> str:
    """`origin`: (op name, output index) of a multi-output op's view, or (Function name, output index,
    True) of an input a custom Function returned as-is."""
    name, index, *custom = origin
    if custom:
        return (
            f"Output {index} of {name} is a view and {modified} modified inplace. This view was created inside a "
            "custom Function (or because an input was returned as-is) and the autograd logic to handle "
            "view+inplace would override the custom backward associated with the custom Function, leading to "
            "incorrect gradients. This behavior is forbidden. You can fix this by cloning the output of the "
            "custom Function."
        )
    return (
        f"Output {index} of {name} is a view and {modified} modified inplace. This view is the output of a "
        "function that returns multiple views. Such functions do not allow the output views to be modified "
        "inplace. You should replace the inplace operation by an out-of-place one."
    )


def no_grad_view_inplace(modified: str = VIEW_MODIFIED) -> str:
    return (
        f"A view was created in no_grad mode and {modified} modified inplace with grad mode enabled. "
        "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code "
        "by moving both the view and the inplace either both inside the no_grad block (if you don't want "
        "the inplace to be tracked) or both outside (if you want the inplace to be tracked)."
    )


def version_mismatch(tensor: Any, where: str, actual: int, expected: int, anomaly: bool = False) -> str:
    hint = VERSION_HINT_ANOMALY if anomaly else VERSION_HINT
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: {type_string(tensor)}{where} is at version {actual}; expected version {expected} "
        f"instead. {hint}"
    )


def shape_mismatch(i: int, grad_shape: tuple, out_shape: tuple) -> str:
    return (
        f"Mismatch in shape: grad_output[{i}] has a shape of {size_repr(grad_shape)} and output[{i}] "
        f"has a shape of {size_repr(out_shape)}."
    )


def size_repr(shape: tuple) -> str:
    return f"torch.Size([{', '.join(str(d) for d in shape)}])"


def broadcast_mismatch(a: tuple, b: tuple) -> str | None:
    """PyTorch's message for shapes that do not broadcast, or None when they do."""
    for i in range(1, max(len(a), len(b)) + 1):
        da = a[-i] if i <= len(a) else 1
        db = b[-i] if i <= len(b) else 1
        if da != db and da != 1 and db != 1:
            dim = max(len(a), len(b)) - i
            return (
                f"The size of tensor a ({da}) must match the size of tensor b ({db}) "
                f"at non-singleton dimension {dim}"
            )
    return None

BOOL_SUB_BOTH = ("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                 "`logical_xor()` operator instead.")
BOOL_SUB = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
            "mask, use the `~` or `logical_not()` operator instead.")
BOOL_NEG = ("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, "
            "use the `~` or `logical_not()` operator instead.")


REGISTER_HOOKS_FREED = (
    "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values of the "
    "graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved variables after calling "
    "backward."
)

# Reading the values of a meta tensor (tolist, cpu, to("cpu"), copying one into a real tensor).
META_NO_DATA = "Cannot copy out of meta tensor; no data!"
