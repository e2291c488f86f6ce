"""How an op-table rule runs: forward on arrays, then the grad_fn node with what backward needs saved.

A rule gives one gradient function per input, `grad(F, grad, *saved)`. The names of the parameters
after `grad` say what the node must save: an input's name (`self`, `other`...), `result`, an
attribute passed to the op (`dim`, `exponent`...) or a derived value (`self_sym_sizes`). A slot is
saved only when a gradient that needs it will be computed, as PyTorch does. `F` is the math
namespace: NumPy functions during a plain backward, differentiable engine functions under
`create_graph=True`, so each rule is written once for both.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Sequence

import numpy as np

from engine import grad_mode, observe
from engine.node import Node, SavedTensor

_F64 = np.dtype(np.float64)
_F32 = np.dtype(np.float32)


def _derived(slot: str, inputs: tuple[str, ...]) -> Callable | None:
    """Values PyTorch saves that are computed from an input: sizes, numel, strides."""
    for suffix, fn in (("_sym_sizes", lambda a: tuple(np.shape(a))), ("_sym_numel", np.size),
                       ("_sym_strides", _strides)):
        if slot.endswith(suffix) and slot[: -len(suffix)] in inputs:
            index = inputs.index(slot[: -len(suffix)])
            return lambda arrays, out, fn=fn, index=index: fn(arrays[index])
    return None


def _strides(a: Any) -> tuple[int, ...]:
    a = np.asarray(a)
    return tuple(s // a.itemsize for s in a.strides) if a.itemsize else ()


class Rule:
    """One differentiable primitive: its forward, a gradient function and a formula per input."""

    def __init__(
        self,
        name: str,
        node: str,
        forward: Callable,
        grads: Sequence[Callable | None],
        formulas: Sequence[str | None],
        inputs: Sequence[str] = ("self",),
        elementwise: bool = False,
        extra_saves: Sequence[str] = (),
        outputs: int = 1,
        differentiable_outputs: Sequence[int] | None = None,
        defaults: dict[str, Any] | None = None,
        view: bool = False,
        variadic: bool = False,
        output_names: Sequence[str] = ("result",),
        exact_dtype: bool = False,
    ) -> None:
        self.name = name
        self.node_name = node
        self.forward = forward
        self.inputs = tuple(inputs)
        self.grads = tuple(grads)
        self.formulas = tuple(formulas)
        self.elementwise = elementwise
        self.defaults = defaults or {}
        self.view = view
        # outputs: how many tensors forward returns; -1 when it depends on the call (unbind, split).
        self.outputs = outputs
        # variadic: one input name (e.g. "tensors") standing for any number of tensors (cat, stack).
        self.variadic = variadic
        # Names under which outputs can be saved ("result", or "indices" for max(dim)...).
        self.output_names = tuple(output_names)
        # exact_dtype: the forward chose the output dtype itself (no float32 default to restore).
        self.exact_dtype = exact_dtype
        self.differentiable_outputs: tuple[int, ...] | None = (
            None if differentiable_outputs is None and outputs < 0
            else tuple(range(outputs) if differentiable_outputs is None else differentiable_outputs)
        )
        if len(self.grads) != len(self.inputs) or len(self.formulas) != len(self.inputs):
            raise ValueError(f"rule {name}: one gradient and one formula per input")
        # The slots each input's gradient reads, from the gradient function's parameter names.
        self.needs: tuple[tuple[str, ...], ...] = tuple(
            tuple(inspect.signature(g).parameters)[2:] if g is not None else () for g in self.grads
        )
        slots: list[str] = []
        for names in self.needs:
            slots += [s for s in names if s not in slots and s not in CALL_CONTEXT]
        slots += [s for s in extra_saves if s not in slots]
        self.saves = tuple(sorted(slots))
        self.derive = {s: d for s in self.saves if (d := _derived(s, self.inputs)) is not None}
        self.node_cls: type[Node] = _node_class(node, self)

    def __repr__(self) -> str:
        return f"Rule({self.name} -> {self.node_name})"


# Parameter names a gradient function may ask for that describe the call, not saved values:
# the index of the input whose gradient is wanted and the shapes of all inputs (variadic rules).
CALL_CONTEXT = ("input_nr", "input_sizes", "attrs")

_node_classes: dict[str, type[Node]] = {}


def _node_class(name: str, rule: Rule) -> type[Node]:
    """One Python class per node name, so `type(y.grad_fn).__name__` is PyTorch's name."""
    cls = _node_classes.get(name)
    if cls is None:
        cls = type(name, (Node,), {"__slots__": (), "rule": rule, "__module__": "torch.autograd.graph"})
        _node_classes[name] = cls
    return cls


def edge_to(t: Any) -> tuple[Node, int] | None:
    """The (node, input_nr) a gradient for tensor `t` flows to, or None if `t` needs none."""
    from engine.tensor import Tensor

    if not isinstance(t, Tensor) or not t._requires_grad:
        return None
    fn = t.grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    return (t._grad_accumulator(), 0)


def apply(rule: Rule, inputs: tuple, attrs: dict | None = None) -> Any:
    """Run `rule` forward on `inputs` (tensors or Python numbers) and record its node if needed."""
    from engine.tensor import Tensor

    arrays = [x._data if isinstance(x, Tensor) else x for x in inputs]
    out = rule.forward(*arrays, **attrs) if attrs else rule.forward(*arrays)
    wide = rule.exact_dtype or any(type(a) is np.ndarray and a.dtype == _F64 for a in arrays)
    requires_grad = grad_mode.state.enabled and any(
        isinstance(x, Tensor) and x._requires_grad for x in inputs
    )
    if rule.outputs == 1:
        result = Tensor._make(_as_result(out, wide))
        results: tuple = (result,)
    else:
        results = tuple(Tensor._make(_as_result(o, wide)) for o in out)
        result = results
    if rule.view:
        source = inputs[0]
        for r in results:
            r._vc = source._vc
            r._base = source._base if source._base is not None else source
            r._no_grad_view = not grad_mode.state.enabled
        if rule.outputs != 1:
            for i, r in enumerate(results):
                r._view_of_multi = (rule.node_name[: -len("Backward0")], i)
    node = None
    if requires_grad:
        node = rule.node_cls()
        node._edges = tuple(edge_to(x) for x in inputs)
        node._in_meta = tuple(np.shape(a) for a in arrays)
        node._out_meta = tuple((r._data.shape, r._data.dtype) for r in results)
        if attrs:
            node._attrs = attrs
        outs = rule.differentiable_outputs
        for i in range(len(results)) if outs is None else outs:
            r = results[i]
            r.grad_fn = node
            r._requires_grad = True
            r._output_nr = i
        if rule.saves:
            _save(node, rule, inputs, arrays, results, attrs)
        if grad_mode.state.anomaly:
            from engine.autograd.anomaly_mode import forward_stack

            node._anomaly = forward_stack()
    if observe.current is not None:
        observe.current.op_applied(rule, node, inputs, results, attrs)
    return result


def _as_result(out: Any, wide: bool) -> np.ndarray:
    """Wrap NumPy scalars as 0-d arrays and keep PyTorch's float32 default where NumPy widens."""
    if type(out) is not np.ndarray:
        out = np.asarray(out)
    if not wide and out.dtype == _F64:
        out = out.astype(_F32)
    return out


def _save(node: Node, rule: Rule, inputs: tuple, arrays: list, results: tuple, attrs: dict | None) -> None:
    from engine.tensor import Tensor

    wanted: set[str] = set()
    for i, x in enumerate(inputs):
        if isinstance(x, Tensor) and x._requires_grad:
            wanted.update(rule.needs[0 if rule.variadic else i])
    saved: dict[str, Any] = {}
    for slot in rule.saves:
        if slot not in wanted and slot not in rule.inputs and slot not in rule.output_names:
            wanted.add(slot)  # attributes and sizes are always kept, like PyTorch's node attrs
        if slot not in wanted:
            continue
        if slot in rule.output_names:
            saved[slot] = SavedTensor(results[rule.output_names.index(slot)], True)
        elif slot in rule.inputs:
            x = inputs[rule.inputs.index(slot)]
            saved[slot] = SavedTensor(x, False) if isinstance(x, Tensor) else x
        elif slot in rule.derive:
            saved[slot] = rule.derive[slot](arrays, results)
        elif attrs is not None and slot in attrs:
            saved[slot] = attrs[slot]
        elif slot in rule.defaults:
            saved[slot] = rule.defaults[slot]
    node._saved = saved
    # Wrapped Python numbers count: PyTorch saves them as tensors too.
    node._was_saved = any(type(v) is SavedTensor or s in rule.inputs for s, v in saved.items())


def backward_node(node: Node, grads: tuple, create_graph: bool) -> tuple:
    """Gradients for each of `node`'s inputs (None where not needed), summed to input shapes."""
    if create_graph:
        from engine.functions import TensorMath as F
    else:
        F = ArrayMath
    g = grads[0] if node.rule.outputs == 1 else grads
    return tuple(None if edge is None else input_gradient(node, i, g, F, create_graph)
                 for i, edge in enumerate(node._edges))


def input_gradient(node: Node, i: int, g: Any, F: Any, create_graph: bool = False,
                   reduce: bool = True) -> Any:
    """Input i's gradient from the output gradient `g`; `reduce=False` keeps the broadcast shape."""
    rule = node.rule
    k = 0 if rule.variadic else i
    grad_fn = rule.grads[k]
    if grad_fn is None:
        return None
    args = [_context(node, s, i) if s in CALL_CONTEXT else node.unpack(s, create_graph)
            for s in rule.needs[k]]
    gi = grad_fn(F, g, *args)
    if gi is None or not reduce:
        return gi
    return F.sum_to(gi, node._in_meta[i])


def _context(node: Node, name: str, i: int) -> Any:
    if name == "attrs":
        return node._attrs or {}
    return i if name == "input_nr" else node._in_meta


# --- math namespaces that gradient functions call through `F` ---------------------------------


def _sum_to_array(g: Any, shape: tuple) -> Any:
    """Undo broadcasting: sum `g` down to `shape` (the one place this happens)."""
    g = np.asarray(g)
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, d in enumerate(shape) if d == 1 and g.shape[i + lead] != 1
    )
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape)


class ArrayMath:
    """NumPy versions of the functions gradient rules use."""

    exp = staticmethod(np.exp)
    log = staticmethod(np.log)
    sin = staticmethod(np.sin)
    cos = staticmethod(np.cos)
    sqrt = staticmethod(np.sqrt)
    sign = staticmethod(np.sign)
    tanh = staticmethod(np.tanh)
    abs = staticmethod(np.abs)
    sum_to = staticmethod(_sum_to_array)

    @staticmethod
    def where(cond: Any, a: Any, b: Any) -> Any:
        return np.where(cond, a, b)

    @staticmethod
    def zeros_like(a: Any) -> Any:
        return np.zeros_like(a)

    @staticmethod
    def ones_like(a: Any) -> Any:
        return np.ones_like(a)

    @staticmethod
    def expand(g: Any, shape: tuple) -> Any:
        return np.broadcast_to(g, shape)

    @staticmethod
    def reshape(g: Any, shape: tuple) -> Any:
        return np.reshape(g, shape)

    @staticmethod
    def unsqueeze_dims(g: Any, dims: tuple[int, ...]) -> Any:
        return np.expand_dims(g, dims)

    @staticmethod
    def mT(a: Any) -> Any:  # noqa: N802 - matrix transpose of the last two dims
        return np.swapaxes(a, -1, -2)

    @staticmethod
    def permute(a: Any, dims: tuple[int, ...]) -> Any:
        return np.transpose(a, dims)

    @staticmethod
    def sum(a: Any, dim: Any = None, keepdim: bool = False) -> Any:
        return np.sum(a, axis=dim, keepdims=keepdim)

    @staticmethod
    def op(name: str, *args: Any, **attrs: Any) -> Any:
        """Run another rule of the table forward (differentiably under create_graph)."""
        from engine.ops import TABLE

        return TABLE[name].forward(*args, **attrs)

    @staticmethod
    def raw(a: Any) -> Any:
        """The array behind a value (for decisions that do not need a gradient)."""
        return a

    sigmoid = staticmethod(lambda a: 1 / (1 + np.exp(-a)))
    log1p = staticmethod(np.log1p)
    expm1 = staticmethod(np.expm1)
    cosh = staticmethod(np.cosh)
    sinh = staticmethod(np.sinh)

    @staticmethod
    def erf(a: Any) -> Any:
        from engine.ops import erf_array

        return erf_array(a)

    @staticmethod
    def stack(arrays: list, dim: int) -> Any:
        return np.stack(arrays, axis=dim)

    @staticmethod
    def cat(arrays: list, dim: int) -> Any:
        return np.concatenate(arrays, axis=dim)
