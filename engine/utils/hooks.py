"""torch.utils.hooks.BackwardHook: how nn.Module's full backward hooks see gradients.

As in PyTorch, the module's tensor inputs and outputs pass through an identity Function (its nodes
are BackwardHookFunctionBackward); node hooks on those nodes catch the gradients of the outputs
(running the backward pre-hooks) and then of the inputs (running the backward hooks).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

from engine import grad_mode
from engine.autograd.function import Function
from engine.tensor import Tensor

_NO_INPUT_GRAD = (
    "Full backward hook is firing when gradients are computed with respect to module outputs since no "
    "inputs require gradients. See https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
    "#torch.nn.Module.register_full_backward_hook for more details."
)


class BackwardHookFunction(Function):
    """The identity, so that the module's inputs and outputs have a node of their own."""

    @staticmethod
    def forward(ctx: Any, *args: Tensor) -> tuple:
        # the inputs returned as-is, as in PyTorch: the outputs are views made by a custom Function, so an
        # in-place op on them (ReLU(inplace=True) in the hooked module, or after it) raises
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple:
        return grads


def _pack_with_none(indices: list, values: Any, size: int) -> tuple:
    packed = [None] * size
    for i, v in zip(indices, values):
        packed[i] = v
    return tuple(packed)


class BackwardHook:
    """One module call's hooks: `hooks(module, grad_input, grad_output)` and
    `pre_hooks(module, grad_output)`."""

    def __init__(self, module: Any, hooks: list, pre_hooks: list) -> None:
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_outputs: tuple | None = None
        self.n_inputs = 0
        self.input_index: list | None = None

    def setup_input_hook(self, args: tuple) -> tuple:
        self.n_inputs = len(args)

        def hook(grad_inputs: tuple, grad_outputs: tuple) -> Any:  # named as PyTorch's, for its messages
            return self._input_hook(grad_inputs, grad_outputs)

        args, self.input_index = _through_identity(args, hook)
        return args

    def setup_output_hook(self, outputs: tuple) -> tuple:
        n_outputs = len(outputs)
        index: list = []

        def hook(grad_inputs: tuple, grad_outputs: tuple) -> Any:
            return self._output_hook(grad_outputs, index, n_outputs)

        outputs, found = _through_identity(outputs, hook)
        index.extend(found or ())
        return outputs

    def _output_hook(self, grads: tuple, index: list, n_outputs: int) -> Any:
        self.grad_outputs = _pack_with_none(index, grads, n_outputs)
        for pre_hook in self.pre_hooks:
            replaced = pre_hook(self.module, self.grad_outputs)
            if replaced is None:
                continue
            if len(replaced) != len(self.grad_outputs):
                raise RuntimeError(f"Backward pre hook returned an invalid number of grad_output, got "
                                   f"{len(replaced)}, but expected {len(self.grad_outputs)}")
            self.grad_outputs = replaced
        if self.input_index is None:  # no input needs a gradient: the hooks run now, with None for each
            warnings.warn(_NO_INPUT_GRAD, UserWarning, stacklevel=2)
            grad_inputs = (None,) * self.n_inputs
            for hook in self.hooks:
                result = hook(self.module, grad_inputs, self.grad_outputs)
                if result is not None and not (isinstance(result, tuple) and all(r is None for r in result)):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should always "
                                       "return None or None for all gradients.")
            self.grad_outputs = None
            return None
        return tuple(self.grad_outputs[i] for i in index)

    def _input_hook(self, grad_inputs: tuple, grad_outputs: tuple) -> Any:
        if self.grad_outputs is None:  # the gradient reached the inputs without passing the outputs
            return None
        grads = _pack_with_none(self.input_index, grad_inputs, self.n_inputs)
        for hook in self.hooks:
            result = hook(self.module, grads, self.grad_outputs)
            if result is None:
                continue
            if len(result) != len(grads):
                raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(result)}, "
                                   f"but expected {len(grads)}")
            grads = result
        self.grad_outputs = None
        return tuple(grads[i] for i in self.input_index)


def _through_identity(args: tuple, hook: Callable) -> tuple:
    """(args with their tensors passed through BackwardHookFunction, the tensors' positions), or
    (args, None) when no tensor requires grad; `hook` goes on the identity's node."""
    index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    if not (grad_mode.state.enabled and any(args[i].requires_grad for i in index)):
        return args, None
    through = BackwardHookFunction.apply(*[args[i] for i in index])
    node = next(t.grad_fn for t in through if t.grad_fn is not None)
    node.register_hook(hook)
    out = list(args)
    for i, t in zip(index, through):
        out[i] = t
    return tuple(out), index
