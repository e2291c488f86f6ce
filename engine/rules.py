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

from engine import grad_mode, messages, observe
from engine.node import FREED, SAVED_HOOKS, Node, SavedTensor, unpack_saved
from engine.tensor import Tensor

_F64 = np.dtype(np.float64)
_F32 = np.dtype(np.float32)
_F32S = np.float32
_NDARRAY = np.ndarray
_array = np.array
_object_new = object.__new__
_state = grad_mode.state


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
        scalar: Callable | None = None,
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
        # The same forward on Python floats, for 0-d float32 tensors (see scalar_binary): a float64
        # function whose result, rounded once to float32, is what `forward` gives bit for bit.
        self.scalar = scalar
        # Per input: its gradient function, the slots it reads, and whether any is a call context.
        self.grad_plan: tuple[tuple[Callable | None, tuple[str, ...], bool], ...] = tuple(
            (g, names, any(n in CALL_CONTEXT for n in names)) for g, names in zip(self.grads, self.needs)
        )
        self._save_plans: dict[int, tuple[tuple, tuple[str, ...]]] = {}
        self.node_cls: type[Node] = _node_class(node, self)

    def save_plan(self, mask: int) -> tuple[tuple, tuple[str, ...]]:
        """What a node saves when the inputs in bit mask `mask` require grad, and the slots among
        them holding tensors (or wrapped numbers) that backward frees: computed once per mask."""
        plan = self._save_plans.get(mask)
        if plan is None:
            plan = self._save_plans[mask] = self._make_save_plan(mask)
        return plan

    def _make_save_plan(self, mask: int) -> tuple[tuple, tuple[str, ...]]:
        wanted: set[str] = set()
        for i in range(len(self.needs)):
            if mask >> i & 1:
                wanted.update(self.needs[i])
        entries = []
        for slot in self.saves:
            if slot in self.output_names:
                if slot in wanted:
                    entries.append((slot, _OUTPUT, self.output_names.index(slot)))
            elif slot in self.inputs:
                if slot in wanted:
                    entries.append((slot, _INPUT, self.inputs.index(slot)))
            elif slot in self.derive:  # attributes and sizes are always kept, like PyTorch's node attrs
                entries.append((slot, _DERIVED, self.derive[slot]))
            else:
                entries.append((slot, _ATTR, None))
        return tuple(entries), tuple(slot for slot, kind, _ in entries if kind in (_OUTPUT, _INPUT))

    def __repr__(self) -> str:
        return f"Rule({self.name} -> {self.node_name})"


# Parameter names a gradient function may ask for that describe the call, not saved values:
# the index of the input whose gradient is wanted and the shapes of all inputs (variadic rules).
CALL_CONTEXT = ("input_nr", "input_sizes", "attrs")

# Kinds of saved slot in a save plan.
_OUTPUT, _INPUT, _DERIVED, _ATTR = range(4)

_node_classes: dict[str, type[Node]] = {}


def _node_class(name: str, rule: Rule) -> type[Node]:
    """One Python class per node name, so `type(y.grad_fn).__name__` is PyTorch's name."""
    cls = _node_classes.get(name)
    if cls is None:
        cls = type(name, (Node,), {"__slots__": (), "rule": rule, "_plain": True,
                                   "__module__": "torch.autograd.graph"})
        _node_classes[name] = cls
    return cls


def edge_to(t: Any) -> tuple[Node, int] | None:
    """The (node, input_nr) a gradient for tensor `t` flows to, or None if `t` needs none."""
    if not isinstance(t, Tensor) or not t._requires_grad:
        return None
    fn = t.grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    return (t._grad_accumulator(), 0)


def apply(rule: Rule, inputs: tuple, attrs: dict | None = None) -> Any:
    """Run `rule` forward on `inputs` (tensors or Python numbers) and record its node if needed."""
    state = grad_mode.state
    arrays = []
    mask = 0
    bit = 1
    wide = rule.exact_dtype
    for x in inputs:
        if isinstance(x, Tensor):
            a = x._data
            if x._requires_grad:
                mask |= bit
        else:
            a = x
        if not wide and type(a) is _NDARRAY and a.dtype == _F64:
            wide = True
        arrays.append(a)
        bit <<= 1
    out = rule.forward(*arrays, **attrs) if attrs else rule.forward(*arrays)
    inference = state.inference
    if rule.outputs == 1:
        result = _new_tensor(_as_result(out, wide), inference)
        results: tuple = (result,)
    else:
        results = tuple(_new_tensor(_as_result(o, wide), inference) for o in out)
        result = results
    if rule.view:
        source = inputs[0]
        for r in results:
            r._vc = source._vc
            r._base = source._base if source._base is not None else source
            r._no_grad_view = not state.enabled
        if rule.outputs != 1:
            for i, r in enumerate(results):
                r._view_of_multi = (rule.node_name[: -len("Backward0")], i)
    node = None
    if mask and state.enabled:
        node = rule.node_cls()
        node._edges = tuple([_edge(x) for x in inputs])
        node._in_meta = tuple([a.shape if type(a) is _NDARRAY else np.shape(a) for a in arrays])
        node._out_meta = tuple([(r._data.shape, r._data.dtype) for r in results])
        if attrs:
            node._attrs = attrs
        outs = rule.differentiable_outputs
        for i in range(len(results)) if outs is None else outs:
            r = results[i]
            r.grad_fn = node
            r._requires_grad = True
            r._output_nr = i
        if rule.saves:
            _save(node, rule, (1 if mask else 0) if rule.variadic else mask, inputs, arrays, results, attrs)
        if state.anomaly:
            from engine.autograd.anomaly_mode import forward_stack

            node._anomaly = forward_stack()
    if observe.current is not None:
        observe.current.op_applied(rule, node, inputs, results, attrs)
    return result


def _edge(x: Any) -> tuple[Node, int] | None:
    if type(x) is not Tensor and not isinstance(x, Tensor) or not x._requires_grad:
        return None
    fn = x.grad_fn
    if fn is not None:
        return (fn, x._output_nr)
    return (x._grad_accumulator(), 0)


def _new_tensor(data: np.ndarray, inference: bool) -> Tensor:
    """Tensor._make without the call overhead: a fresh result with no graph attached yet."""
    t = _object_new(Tensor)
    t._data = data
    t.grad_fn = None
    t._requires_grad = False
    t._grad = None
    t._output_nr = 0
    t._vc = [0]
    t._base = None
    t._view_of_multi = None
    t._accumulator = None
    t._retains_grad = False
    t._post_acc_hooks = None
    t._inference = inference
    t._no_grad_view = False
    return t


def _as_result(out: Any, wide: bool) -> np.ndarray:
    """Wrap NumPy scalars as 0-d arrays and keep PyTorch's float32 default where NumPy widens."""
    if type(out) is not _NDARRAY:
        out = np.asarray(out)
    if not wide and out.dtype == _F64:
        out = out.astype(_F32)
    return out


# --- the 0-d float32 path ---------------------------------------------------------------------
# A NumPy ufunc on a 0-d array costs about 300 ns; the same operation on Python floats about
# 20 ns. For 0-d float32 inputs, a rule with a `scalar` kernel computes in float64 and rounds once
# to float32 when wrapping the result. For + - * / of float32 values that single rounding gives
# exactly the float32 result (float64 has more than 2 * 24 + 2 bits); for exp, tanh, sin, cos and
# log the rule's array forward also computes in float64 and rounds once. Anything else (other
# shapes or dtypes, kernel errors such as overflow, an observer, anomaly mode) takes the array path.

_ROUNDED: dict[Any, float] = {}  # Python number -> its float32 value, as NumPy converts it


def _round32(c: Any) -> float | None:
    r = _ROUNDED.get(c)
    if r is None:
        try:
            r = float(_F32S(c))
        except (OverflowError, ValueError):
            return None
        if len(_ROUNDED) < 512:
            _ROUNDED[c] = r
    return r


def scalar_unary(rule: Rule, a: Tensor) -> Tensor | None:
    """`rule` on a 0-d float32 tensor through its scalar kernel, or None to take the array path."""
    d = a._data
    if d.shape or d.dtype is not _F32 or observe.current is not None:
        return None
    state = _state
    if state.anomaly:
        return None
    try:
        value = rule.scalar(d.item())
    except (ArithmeticError, ValueError):
        return None  # overflow, log(0)...: NumPy's inf and nan come from the array path
    result = _new_tensor(_array(value, _F32), state.inference)
    if a._requires_grad and state.enabled:
        node = rule.node_cls()
        fn = a.grad_fn
        node._edges = ((fn, a._output_nr) if fn is not None else (a._grad_accumulator(), 0),)
        node._in_meta = _SCALAR_IN_META[1]
        node._out_meta = _SCALAR_OUT_META
        result.grad_fn = node
        result._requires_grad = True
        if rule.saves:
            _save_scalar(node, rule, 1, a, None, result)
    return result


def scalar_binary(rule: Rule, a: Tensor, b: Any) -> Tensor | None:
    """`rule` on a 0-d float32 tensor and a 0-d float32 tensor or Python number, or None."""
    da = a._data
    if da.shape or da.dtype is not _F32 or observe.current is not None:
        return None
    tb = type(b)
    if tb is Tensor:
        db = b._data
        if db.shape or db.dtype is not _F32:
            return None
        y = db.item()
    elif tb is float or tb is int:
        y = _ROUNDED.get(b)
        if y is None:
            y = _round32(b)
            if y is None:
                return None
    else:
        return None
    state = _state
    if state.anomaly:
        return None
    try:
        value = rule.scalar(da.item(), y)
    except (ArithmeticError, ValueError):
        return None
    result = _new_tensor(_array(value, _F32), state.inference)
    mask = 1 if a._requires_grad else 0
    if tb is Tensor and b._requires_grad:
        mask |= 2
    if mask and state.enabled:
        node = rule.node_cls()
        if mask & 1:
            fn = a.grad_fn
            ea = (fn, a._output_nr) if fn is not None else (a._grad_accumulator(), 0)
        else:
            ea = None
        if mask & 2:
            fn = b.grad_fn
            eb = (fn, b._output_nr) if fn is not None else (b._grad_accumulator(), 0)
        else:
            eb = None
        node._edges = (ea, eb)
        node._in_meta = _SCALAR_IN_META[2]
        node._out_meta = _SCALAR_OUT_META
        result.grad_fn = node
        result._requires_grad = True
        if rule.saves:
            _save_scalar(node, rule, mask, a, b, result)
    return result


def _save_scalar(node: Node, rule: Rule, mask: int, a: Tensor, b: Any, result: Tensor) -> None:
    """_save for the scalar path: one or two inputs, one output, no attributes passed."""
    plan = rule._save_plans.get(mask)
    entries, freeable = plan if plan is not None else rule.save_plan(mask)
    if SAVED_HOOKS or a._inference or (type(b) is Tensor and b._inference):
        _save(node, rule, mask, (a,) if b is None else (a, b), None, (result,), None)
        return
    saved: dict[str, Any] = {}
    for slot, kind, ref in entries:
        if kind == _INPUT:
            x = a if ref == 0 else b
            if type(x) is not Tensor:
                saved[slot] = x
                continue
            is_output = False
        elif kind == _OUTPUT:
            x = result
            is_output = True
        elif slot in rule.defaults:
            saved[slot] = rule.defaults[slot]
            continue
        else:
            continue
        st = _object_new(SavedTensor)
        st.tensor = x
        st.version = x._vc[0]
        st.is_output = is_output
        st.packed = None
        saved[slot] = st
    node._saved = saved
    node._was_saved = freeable


_SCALAR_IN_META = ((), ((),), ((), ()))
_SCALAR_OUT_META = (((), _F32),)


def _save(node: Node, rule: Rule, mask: int, inputs: tuple, arrays: list | None, results: tuple,
          attrs: dict | None) -> None:
    entries, freeable = rule.save_plan(mask)
    saved: dict[str, Any] = {}
    for slot, kind, ref in entries:
        if kind == _OUTPUT:
            saved[slot] = _saved_tensor(results[ref], True)
        elif kind == _INPUT:
            x = inputs[ref]
            saved[slot] = _saved_tensor(x, False) if isinstance(x, Tensor) else x
        elif kind == _DERIVED:
            if arrays is None:
                arrays = [x._data if isinstance(x, Tensor) else x for x in inputs]
            saved[slot] = ref(arrays, results)
        elif attrs is not None and slot in attrs:
            saved[slot] = attrs[slot]
        elif slot in rule.defaults:
            saved[slot] = rule.defaults[slot]
    node._saved = saved
    # Truthy when something backward frees was saved (wrapped Python numbers count: PyTorch saves
    # them as tensors too); the slot names themselves, so release() need not look.
    node._was_saved = freeable


def _saved_tensor(t: Tensor, is_output: bool) -> SavedTensor:
    if t._inference or SAVED_HOOKS:
        return SavedTensor(t, is_output)  # raises for inference tensors; runs the pack hook
    s = _object_new(SavedTensor)
    s.tensor = t
    s.version = t._vc[0]
    s.is_output = is_output
    s.packed = None
    return s


def backward_node(node: Node, grads: Sequence, create_graph: bool) -> tuple:
    """Gradients for each of `node`'s inputs (None where not needed), summed to input shapes."""
    rule = node.rule
    if create_graph:
        from engine.functions import TensorMath as F
    else:
        F = ArrayMath
    g = grads[0] if rule.outputs == 1 else grads
    plans = rule.grad_plan
    variadic = rule.variadic
    saved = node._saved
    in_meta = node._in_meta
    out = []
    i = -1
    for edge in node._edges:
        i += 1
        if edge is None:
            out.append(None)
            continue
        fn, slots, context = plans[0 if variadic else i]
        if fn is None:
            out.append(None)
            continue
        if not slots:
            gi = fn(F, g)
        elif context or saved is None or create_graph:
            gi = fn(F, g, *[_context(node, s, i) if s in CALL_CONTEXT else node.unpack(s, create_graph)
                            for s in slots])
        else:
            args = []
            for slot in slots:
                value = saved.get(slot)
                if type(value) is SavedTensor:
                    if value.packed is not None or value.tensor._vc[0] != value.version:
                        value = unpack_saved(node, value, False)
                    else:
                        value = value.tensor._data
                        if not value.shape and value.dtype is _F32:
                            value = value[()]  # 0-d float32 as a NumPy scalar: fast float32 math
                elif value is FREED:
                    raise RuntimeError(messages.BACKWARD_TWICE)
                args.append(value)
            gi = fn(F, g, *args)
        if gi is not None:
            shape = in_meta[i]
            kind = type(gi)
            if kind is _NDARRAY:
                if gi.shape != shape:
                    gi = F.sum_to(gi, shape)
            elif kind is not _F32S or shape:
                gi = F.sum_to(gi, shape)
        out.append(gi)
    return tuple(out)


def input_gradient(node: Node, i: int, g: Any, F: Any, create_graph: bool = False,
                   reduce: bool = True) -> Any:
    """Input i's gradient from the output gradient `g`; `reduce=False` keeps the broadcast shape."""
    rule = node.rule
    grad_fn, slots, _ = rule.grad_plan[0 if rule.variadic else i]
    if grad_fn is None:
        return None
    args = [_context(node, s, i) if s in CALL_CONTEXT else node.unpack(s, create_graph) for s in slots]
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
