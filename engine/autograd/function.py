"""Custom autograd.Function: user-written forward and backward that become one graph node."""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from engine import functions as _functions, grad_mode, observe
from engine.node import Node, SavedTensor, unpack_saved
from engine.rules import edge_to


class FunctionCtx:
    """The `ctx` a custom Function's forward fills and its backward reads."""

    def __init__(self) -> None:
        self._to_save: tuple = ()
        self._saved: list[SavedTensor | None] | None = None
        self._non_differentiable: set[int] = set()
        self._dirty: set[int] = set()
        self.materialize_grads = True
        self.needs_input_grad: tuple[bool, ...] = ()
        self._node: "CustomNode | None" = None

    def save_for_backward(self, *tensors: Any) -> None:
        from engine.tensor import Tensor

        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"save_for_backward can only save variables, but argument {i} is of type "
                    f"{type(t).__name__}"
                )
        self._to_save = tensors

    def mark_non_differentiable(self, *tensors: Any) -> None:
        self._non_differentiable.update(id(t) for t in tensors)

    def mark_dirty(self, *tensors: Any) -> None:
        self._dirty.update(id(t) for t in tensors)

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = bool(value)

    @property
    def saved_tensors(self) -> tuple:
        if self._saved is None:
            from engine import messages

            raise RuntimeError(messages.BACKWARD_TWICE)
        return tuple(
            None if s is None else unpack_saved(self._node, s, as_tensor=True) for s in self._saved
        )


class CustomNode(Node):
    """The node of a custom Function; subclassed per Function as `<Name>Backward`."""

    __slots__ = ("ctx", "function")

    def saved_slots(self) -> tuple[str, ...]:
        return ()

    @property
    def saved_tensors(self) -> tuple:
        return self.ctx.saved_tensors

    def release(self) -> None:
        self.ctx._saved = None
        self._saved = None

    def __getattr__(self, name: str) -> Any:
        # PyTorch's node of a custom Function is its ctx: `y.grad_fn.needs_input_grad` and whatever
        # forward stored on ctx read through the node
        if name in ("ctx", "function"):
            raise AttributeError(name)
        return getattr(self.ctx, name)

    def __repr__(self) -> str:
        return f"<torch.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    def apply_backward(self, grads: tuple, create_graph: bool) -> tuple:
        from engine.tensor import Tensor

        ctx = self.ctx
        user_grads = tuple(
            None if g is None else (g if isinstance(g, Tensor) else Tensor._make(np.asarray(g)))
            for g in grads
        )
        with grad_mode.set_grad_enabled(create_graph):
            out = self.function.backward(ctx, *user_grads)
        out = out if isinstance(out, tuple) else (out,)
        name = type(self).__name__
        attrs = self._attrs or {}
        tensor_inputs = attrs.get("tensor_inputs", range(len(self._next)))
        expected = attrs.get("arguments", len(self._next))  # one gradient per forward argument
        if len(out) != expected:
            if len(out) > expected and all(g is None for g in out[expected:]):
                out = out[:expected]
            else:
                raise RuntimeError(
                    f"function {name} returned an incorrect number of gradients (expected {expected}, "
                    f"got {len(out)})"
                )
        for i, g in enumerate(out):
            if g is not None and i not in tensor_inputs:
                raise RuntimeError(
                    f"function {name} returned a gradient different than None at position {i + 1}, but "
                    "the corresponding forward input was not a Variable"
                )
            if g is not None and not isinstance(g, Tensor):
                kind = type(g)
                typename = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
                raise RuntimeError(f"expected Variable or None (got {typename})")
        results = []
        for i, (g, edge) in enumerate(zip([out[j] for j in tensor_inputs], self._edges)):
            if g is None:
                results.append(None)
                continue
            if edge is None:  # nothing receives it, but node hooks see it, as in PyTorch
                results.append(g if create_graph or not isinstance(g, Tensor) else g._data)
                continue
            shape = self._in_meta[i]
            if g._data.shape != shape:
                try:
                    np.broadcast_to(np.empty(shape), g._data.shape)
                    ok = g._data.size >= int(np.prod(shape))
                except ValueError:
                    ok = False
                if not ok:
                    raise RuntimeError(
                        f"Function {name} returned an invalid gradient at index {i} - got "
                        f"{list(g._data.shape)} but expected shape compatible with {list(shape)}"
                    )
                g = _functions.sum_to_size(g, shape)  # PyTorch's validate_outputs: at::sum_to
            g = _to_input_dtype(g, edge)
            results.append(g if create_graph else g._data)
        return tuple(results)


class BackwardCFunction(CustomNode):
    """The common base of every custom Function's `<Name>Backward` node class, named as in PyTorch."""

    __slots__ = ()


BackwardCFunction.__module__ = "torch.autograd.function"


def _to_input_dtype(g: Any, edge: tuple) -> Any:
    """A custom backward's gradient in the dtype of the input it is for (PyTorch's validate_outputs casts
    it): the next node's formulas build NumPy views from the dtype they expect (a complex input's real view)."""
    target, nr = edge
    meta = target._out_meta
    if not meta or nr >= len(meta) or type(g._data) is not np.ndarray:
        return g
    want = meta[nr][1]
    if g._data.dtype == want:
        return g
    from engine import dtypes

    return g.to(dtypes.from_numpy(want))


class FunctionMeta(type):
    """Gives each Function subclass its node class, named `<ClassName>Backward` like PyTorch."""

    def __init__(cls, name: str, bases: tuple, namespace: dict) -> None:
        super().__init__(name, bases, namespace)
        cls._backward_cls = type(
            f"{name}Backward", (BackwardCFunction,), {"__slots__": (), "function": cls, "__module__": "torch.autograd.function"}
        )


class Function(metaclass=FunctionMeta):
    """Base class of user-defined differentiable operations (static forward and backward)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        import warnings

        warnings.warn(
            f"{type(self)} should not be instantiated. Methods on autograd functions are all static, so you "
            "should invoke them on the class itself. Instantiating an autograd function will raise an error "
            "in a future version of PyTorch.", DeprecationWarning, stacklevel=2,
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use new-style "
            "autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function "
            "to use it with backward mode AD."
        )

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        from engine.tensor import Tensor

        ctx = FunctionCtx()
        tensor_inputs = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        requires_grad = grad_mode.state.enabled and any(ctx.needs_input_grad)
        uses_setup_context = "setup_context" in vars(cls) or any(
            "setup_context" in vars(b) for b in cls.__mro__[1:-1] if b is not Function
        )
        with grad_mode.no_grad():
            if uses_setup_context:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        outputs = output if isinstance(output, tuple) else (output,)
        if ctx._dirty:
            _check_dirty(args, ctx, requires_grad)
        input_ids = {id(a) for i, a in enumerate(args) if i in tensor_inputs}
        if any(id(o) in input_ids and id(o) not in ctx._dirty for o in outputs):
            outputs = _unalias(cls, outputs, ctx, requires_grad)
            output = outputs if isinstance(output, tuple) else outputs[0]
        node = None
        if requires_grad:
            node = cls._backward_cls()
            node.ctx = ctx
            ctx._node = node
            # edges for the tensor arguments only (a Python number has none), in order
            node._edges = tuple(edge_to(args[i]) for i in tensor_inputs)
            node._in_meta = tuple(np.shape(args[i]._data) for i in tensor_inputs)
            node._attrs = {"tensor_inputs": tuple(tensor_inputs), "arguments": len(args)}
            node._out_meta = tuple(
                (o._data.shape, o._data.dtype) if isinstance(o, Tensor) else ((), np.float32)
                for o in outputs
            )
            for i, o in enumerate(outputs):
                if not isinstance(o, Tensor) or id(o) in ctx._non_differentiable:
                    continue
                o.grad_fn = node
                o._requires_grad = True
                o._output_nr = i
                if o._base is not None:  # a view made in forward: no in-place change of it (IN_CUSTOM_FUNCTION)
                    o._view_of_multi = (cls.__name__, i, True)
        output_ids = {id(o) for o in outputs}
        ctx._saved = [
            None if t is None else SavedTensor(t, id(t) in output_ids) for t in ctx._to_save
        ]
        if node is not None:
            node._was_saved = bool(ctx._saved)
        if observe.current is not None:
            observe.current.function_applied(cls, node, args, outputs, ctx)
        return output

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
        raise NotImplementedError("setup_context is not overridden")


def _unalias(cls: type, outputs: tuple, ctx: FunctionCtx, requires_grad: bool) -> tuple:
    """Outputs that are inputs returned as-is (not marked dirty) become new tensors, as in PyTorch:
    with grad mode on, a view of the input (which takes the Function's node if differentiable and
    may not be modified in place); otherwise, or if marked non-differentiable, a detached alias.
    The input itself keeps its grad_fn (a leaf stays a leaf)."""
    from engine.tensor import Tensor

    enabled = grad_mode.state.enabled
    seen: set[int] = set()
    out = []
    for i, o in enumerate(outputs):
        if not isinstance(o, Tensor) or id(o) in ctx._dirty or id(o) in seen:
            out.append(o)
            continue
        seen.add(id(o))
        alias = Tensor._make(o._data.view(), None, o._vc)
        if id(o) in ctx._non_differentiable:
            ctx._non_differentiable.add(id(alias))
        elif enabled:
            alias._base = o._base if o._base is not None else o
            if requires_grad:
                alias._view_of_multi = (cls.__name__, i, True)
        out.append(alias)
    return tuple(out)


def _check_dirty(args: tuple, ctx: FunctionCtx, requires_grad: bool) -> None:
    """Inputs marked dirty count one more version; a leaf that requires grad may not be one."""
    from engine.tensor import Tensor

    for a in args:
        if isinstance(a, Tensor) and id(a) in ctx._dirty:
            if requires_grad and a._requires_grad and a.grad_fn is None:
                raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
            a._vc[0] += 1


def once_differentiable(fn: Callable) -> Callable:
    """Marks a backward as not differentiable again: it runs with grad mode off, and a gradient
    that would need a graph gets an `Error` node that raises when differentiated."""

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        from engine.tensor import Tensor

        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode.state.enabled:
            return outputs
        needing = [a for a in args if isinstance(a, Tensor) and a._requires_grad]
        if not needing:
            return outputs
        single = not isinstance(outputs, tuple)
        wrapped = []
        for out in (outputs,) if single else outputs:
            if isinstance(out, Tensor):
                node = DelayedError()
                node._edges = tuple(edge_to(a) for a in needing)
                node._in_meta = tuple(a._data.shape for a in needing)
                node._out_meta = ((out._data.shape, out._data.dtype),)
                out = Tensor._make(out._data, node)
            wrapped.append(out)
        return wrapped[0] if single else tuple(wrapped)

    return wrapper


class DelayedError(Node):
    """The `Error` node PyTorch puts on outputs of a once_differentiable backward."""

    __slots__ = ()

    def saved_slots(self) -> tuple[str, ...]:
        return ()

    def apply_backward(self, grads: tuple, create_graph: bool) -> tuple:
        raise RuntimeError("trying to differentiate twice a function that was marked with @once_differentiable")


DelayedError.__name__ = DelayedError.__qualname__ = "Error"


class _MessageError(DelayedError):
    """PyTorch's DelayedError(msg) node: its backward raises msg."""

    __slots__ = ("message",)

    def apply_backward(self, grads: tuple, create_graph: bool) -> tuple:
        raise RuntimeError(self.message)


_MessageError.__name__ = _MessageError.__qualname__ = "Error"


def delayed_error(t: Any, message: str) -> Any:
    """t passed through an Error node whose backward raises message (when t needs a gradient)."""
    from engine.tensor import Tensor

    if not t._requires_grad or not grad_mode.state.enabled:
        return t
    node = _MessageError()
    node.message = message
    node._edges = (edge_to(t),)
    node._in_meta = (t._data.shape,)
    node._out_meta = ((t._data.shape, t._data.dtype),)
    return Tensor._make(t._data, node)
