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
import types
from typing import Any, Callable, Sequence

import numpy as np

from engine import dtypes as _dtypes
from engine import grad_mode, messages, observe
from engine import node as _node_module
from engine.node import (
    FREED, SAVED_HOOKS, ZEROS as _ZEROS, Node, SavedTensor, output_numbers, raw_saved_property,
    saved_property, unpack_saved,
)
from engine.tensor import Tensor, TensorExtras

_F64 = np.dtype(np.float64)
_C128 = np.dtype(np.complex128)
_F32 = np.dtype(np.float32)
_F16 = np.dtype(np.float16)
_I64 = np.dtype(np.int64)
_F32S = np.float32
_NDARRAY = np.ndarray
_array = np.array
_object_new = object.__new__
_state = grad_mode.state
_sequence = _node_module._sequence


def _derived(slot: str, inputs: tuple[str, ...]) -> tuple[Callable, int] | None:
    """Values PyTorch saves that are computed from an input (sizes, numel, strides, dim): the function
    computing one from the input's array, and the input's index."""
    suffixes = (("_sym_sizes", _sizes), ("_sym_numel", _numel), ("_sym_strides", _strides), ("_dim", _ndim))
    for suffix, fn in suffixes:
        if slot.endswith(suffix) and slot[: -len(suffix)] in inputs:
            return fn, inputs.index(slot[: -len(suffix)])
    name, _, k = slot.rpartition("_sym_argsize_minus_")
    if name in inputs and k.isdigit():
        return (lambda a: _sizes(a)[-int(k)]), inputs.index(name)
    name, _, k = slot.rpartition("_sym_argsize_")
    if name in inputs and k.isdigit():
        return (lambda a: _sizes(a)[int(k)]), inputs.index(name)
    return None


def _sizes(a: Any) -> tuple[int, ...]:
    return a.shape if type(a) is _NDARRAY else tuple(np.shape(a))


def _ndim(a: Any) -> int:
    return a.ndim if type(a) is _NDARRAY else int(np.ndim(a))


def _numel(a: Any) -> int:
    return a.size if type(a) is _NDARRAY else int(np.size(a))


def _no_strides(a: Any) -> tuple[int, ...]:
    return ()


_STRIDES: dict[tuple, tuple[int, ...]] = {}  # (byte strides, itemsize) -> strides in elements


def _strides(a: Any) -> tuple[int, ...]:
    if type(a) is not _NDARRAY:
        a = np.asarray(a)
    key = (a.strides, a.itemsize)
    strides = _STRIDES.get(key)
    if strides is None:
        strides = tuple(s // a.itemsize for s in a.strides) if a.itemsize else ()
        if len(_STRIDES) < 1024:
            _STRIDES[key] = strides
    return strides


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
        save_always: bool = False,
        promotes: bool = False,
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
        # save_always: every slot is saved whichever inputs need a gradient. PyTorch does so for its
        # backward ops (tanh_backward...): its code generator puts no guards on what they save.
        self.save_always = save_always
        # promotes: the inputs (tensors and Python numbers) are brought to PyTorch's result type
        # before the forward runs, as its elementwise binary ops do (see promoted_arrays).
        self.promotes = promotes
        self.differentiable_outputs: tuple[int, ...] | None = (
            None if differentiable_outputs is None and outputs < 0
            else tuple(range(outputs) if differentiable_outputs is None else differentiable_outputs)
        )
        if len(self.grads) != len(self.inputs) or len(self.formulas) != len(self.inputs):
            raise ValueError(f"rule {name}: one gradient and one formula per input")
        self.extra_saves = tuple(extra_saves)
        self.plan_grads(self.grads)
        # The same forward on Python floats, for 0-d float32 tensors (see scalar_binary): a float64
        # function whose result, rounded once to float32, is what `forward` gives bit for bit.
        self.scalar = scalar
        # The rule with complex-valued gradients that runs when an input is complex (made on first
        # use by engine.complex_ops.twin; None until then).
        self.complex_twin: Rule | None = None
        # ScalarPlan per key (see scalar_plan), built on first use.
        self.scalar_plans: list[ScalarPlan | None] = [None] * 8
        self.node_cls: type[Node] = _node_class(node, self)
        self.new_node = node_maker(self.node_cls)

    def plan_grads(self, grads: Sequence[Callable | None]) -> None:
        """Take `grads` as the gradient functions: what each reads, and so what nodes save."""
        self.grads = tuple(grads)
        # The slots each input's gradient reads, from the gradient function's parameter names.
        self.needs: tuple[tuple[str, ...], ...] = tuple(
            tuple(inspect.signature(g).parameters)[2:] if g is not None else () for g in self.grads
        )
        slots: list[str] = []
        for names in self.needs:
            slots += [s for s in names if s not in slots and s not in CALL_CONTEXT]
        slots += [s for s in self.extra_saves if s not in slots]
        self.saves = tuple(sorted(slots))
        self.derive = {s: d for s in self.saves if (d := _derived(s, self.inputs)) is not None}
        # Per input: its gradient function, the slots it reads, and whether any is a call context.
        self.grad_plan: tuple[tuple[Callable | None, tuple[str, ...], bool], ...] = tuple(
            (g, names, any(n in CALL_CONTEXT for n in names)) for g, names in zip(self.grads, self.needs)
        )
        self._save_plans: dict[int, tuple[tuple, tuple[str, ...]]] = {}

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
            if mask >> i & 1 or self.save_always:
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
                fn, index = self.derive[slot]
                if slot.endswith("_sym_strides") and not (mask >> index & 1 or self.save_always):
                    fn = _no_strides  # but an input's strides only when its own gradient is computed
                entries.append((slot, _DERIVED, (fn, index)))
            else:
                entries.append((slot, _ATTR, None))
        return tuple(entries), tuple(slot for slot, kind, _ in entries if kind in (_OUTPUT, _INPUT))

    def scalar_plan(self, key: int) -> "ScalarPlan":
        plan = self.scalar_plans[key]
        if plan is None:
            plan = self.scalar_plans[key] = ScalarPlan(self, key)
        return plan

    def released_compact(self, sv: tuple) -> tuple:
        """The compact saved form of a node after backward freed what it saved."""
        return SCALAR_PLANS[sv[0]].released

    def __repr__(self) -> str:
        return f"Rule({self.name} -> {self.node_name})"


SCALAR_PLANS: list = []  # every ScalarPlan and ReleasedPlan, by id


class ScalarPlan:
    """What a node of the 0-d fast path saves, kept compactly, and how its backward reads it.

    The key is the mask of inputs that require grad (bits 0 and 1) plus 4 when the second input is
    a tensor rather than a Python number. Instead of a dict of SavedTensor objects, such a node
    keeps one tuple: (id, value, version, value, version...) with one pair per saved input or
    output in `entries` order (version None for a Python number); attributes come from the
    rule's defaults; `SCALAR_PLANS[id]` is the plan (an int, not the plan itself: the collector
    stops tracking a tuple of numbers). After backward the tuple becomes `released`, the id of a
    ReleasedPlan. Node._saved turns the tuple into the usual dict on first read, so everything but
    the plain backward sees the dict.
    """

    __slots__ = ("key", "id", "entries", "freeable", "layout", "stored", "constants", "args", "bare", "released",
                 "backward", "pack")

    def __init__(self, rule: Rule, key: int) -> None:
        mask = key & 3
        self.key = key
        self.id = len(SCALAR_PLANS)
        SCALAR_PLANS.append(self)
        self.entries, self.freeable = rule.save_plan(mask)
        layout = []  # per stored pair: 0 self, 1 other, 2 result
        names = []
        constants = []
        for slot, kind, ref in self.entries:
            if kind == _OUTPUT:
                layout.append(2)
                names.append(slot)
            elif kind == _INPUT:
                layout.append(ref)
                names.append(slot)
            elif kind == _ATTR and slot in rule.defaults:
                constants.append((slot, rule.defaults[slot]))
            else:
                raise ValueError(f"rule {rule.name}: slot {slot} cannot be saved on the scalar path")
        self.layout = tuple(layout)
        self.stored = tuple(names)  # the slot of each stored pair
        self.constants = tuple(constants)
        # Per input: None, or (gradient function, indices into [stored values..., constants...]).
        order = names + [slot for slot, _ in constants]
        args = []
        for i, (fn, slots, context) in enumerate(rule.grad_plan):
            if not mask >> i & 1 or fn is None:
                args.append(None)
            else:
                if context:
                    raise ValueError(f"rule {rule.name}: call context on the scalar path")
                args.append((fn, tuple(order.index(slot) for slot in slots)))
        self.args = tuple(args)
        self.bare = (self.id,)
        self.released = ReleasedPlan(self).released
        self.backward = _scalar_runner(self)
        self.pack = _scalar_packer(self)


class ReleasedPlan:
    """The first item of a compact tuple whose values backward freed: no backward runs from it."""

    __slots__ = ("plan", "released")

    def __init__(self, plan: ScalarPlan) -> None:
        self.plan = plan
        self.released = (len(SCALAR_PLANS),)
        SCALAR_PLANS.append(self)

    @staticmethod
    def backward(sv: tuple, g: Any) -> None:
        return None  # the general path raises PyTorch's error (or reads the attributes that stay)


def expand_compact(node: Node, sv: tuple) -> dict:
    """The dict of saved slots equal to a compact tuple (see ScalarPlan)."""
    plan = SCALAR_PLANS[sv[0]]
    released = type(plan) is ReleasedPlan
    if released:
        plan = plan.plan
    saved: dict[str, Any] = {}
    k = 1
    constants = dict(plan.constants)
    for slot, kind, _ in plan.entries:
        if kind == _OUTPUT or kind == _INPUT:
            if released:
                saved[slot] = FREED
                continue
            value, version = sv[k], sv[k + 1]
            k += 2
            if type(value) is Tensor:
                st = _object_new(SavedTensor)
                st.tensor = value
                st.version = version
                st.is_output = kind == _OUTPUT
                st.packed = None
                value = st
            saved[slot] = value
        else:
            saved[slot] = constants[slot]
    return saved


def scalar_backward(node: Node, sv: tuple, g: Any) -> tuple | None:
    """Plain backward of a node holding a compact saved tuple; None when the general path must
    run instead (released, or a saved tensor changed since: it raises PyTorch's errors)."""
    return SCALAR_PLANS[sv[0]].backward(sv, g)  # None when released (see ReleasedPlan)


# A plan's pack and backward are straight-line functions written for its layout (as dataclasses
# write __init__): on the 0-d path each op runs them once, so a loop over the layout or a test of
# which input a slot holds would be a visible share of the op's cost.

def _plan_function(plan: ScalarPlan, name: str, lines: list[str], namespace: dict) -> Callable:
    exec("\n".join(lines), namespace)  # noqa: S102 - code generated from the plan's layout only
    fn = namespace[name]
    fn.__qualname__ = f"{type(plan).__name__}[{plan.id}].{name}"
    return fn


def _scalar_packer(plan: ScalarPlan) -> Callable[[Tensor, Any, Tensor], tuple]:
    """The compact tuple a node of the plan keeps, as a function of (self, other, result):
    (id, value, version, ...) per stored pair; version None for a Python number."""
    if not plan.layout:
        bare = plan.bare
        return lambda a, b, result: bare
    items = [str(plan.id)]
    for code in plan.layout:
        x = ("a", "b", "result")[code]
        if code == 1 and not plan.key & 4:  # `other` is a Python number
            items += [x, "None"]
        else:
            items += [x, f"{x}._vc[0]"]
    lines = ["def pack(a, b, result):",
             f"    return ({', '.join(items)})"]
    return _plan_function(plan, "pack", lines, {})


def _scalar_runner(plan: ScalarPlan) -> Callable[[tuple, Any], tuple | None]:
    """The backward of a plan's nodes as a function of (compact tuple, gradient): each stored
    value read once (a 0-d float32 tensor as a NumPy scalar: float32 math, fast), then each input's
    gradient function. None when a saved tensor changed version since it was saved: the general
    path then raises PyTorch's error."""
    lines = ["def backward(sv, g):"]
    names = []
    for k, code in enumerate(plan.layout):
        v = f"v{k}"
        names.append(v)
        lines.append(f"    {v} = sv[{2 * k + 1}]")
        if code == 1 and not plan.key & 4:  # a Python number: used as is
            continue
        lines += [f"    if {v}._vc[0] != sv[{2 * k + 2}]:",
                  "        return None",
                  f"    {v} = {v}._data[()]"]
    namespace: dict[str, Any] = {"ArrayMath": ArrayMath}
    for j, (_, value) in enumerate(plan.constants):
        names.append(f"c{j}")
        namespace[f"c{j}"] = value
    grads = []
    for i, spec in enumerate(plan.args):
        if spec is None:
            grads.append("None")
        else:
            namespace[f"f{i}"] = spec[0]
            grads.append(f"f{i}(ArrayMath, g{''.join(', ' + names[j] for j in spec[1])})")
    lines.append(f"    return ({', '.join(grads)},)")
    return _plan_function(plan, "backward", lines, namespace)


# Parameter names a gradient function may ask for that describe the call, not saved values:
# the index of the input whose gradient is wanted, the shapes of all inputs (variadic rules), the
# node's attrs, and the node itself (to share one computation among its gradients).
CALL_CONTEXT = ("input_nr", "input_sizes", "attrs", "node")

# Kinds of saved slot in a save plan.
_OUTPUT, _INPUT, _DERIVED, _ATTR = range(4)

_node_classes: dict[str, type[Node]] = {}


def _node_class(name: str, rule: Rule) -> type[Node]:
    """One Python class per node name, so `type(y.grad_fn).__name__` is PyTorch's name."""
    cls = _node_classes.get(name)
    if cls is None:
        saved = {f"_saved_{slot}": saved_property(slot) for slot in rule.saves}
        saved.update({f"_raw_saved_{slot}": raw_saved_property(slot) for slot in rule.saves})
        cls = type(name, (Node,), {"__slots__": (), "__init__": object.__init__,  # see node_maker
                                   "rule": rule, "_plain": True, "__module__": "torch.autograd.graph",
                                   **saved})
        _node_classes[name] = cls
    return cls


def edge_to(t: Any) -> tuple[Node, int] | None:
    """The (node, input_nr) a gradient for tensor `t` flows to, or None if `t` needs none."""
    if not isinstance(t, Tensor) or not t._requires_grad:
        return None
    fn = t.grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    acc = t._grad_accumulator()
    return None if acc is None else (acc, 0)


def apply(rule: Rule, inputs: tuple, attrs: dict | None = None) -> Any:
    """Run `rule` forward on `inputs` (tensors or Python numbers) and record its node if needed."""
    state = _state
    track = state.enabled
    arrays = []
    shapes = []
    targets = []  # per input, the node its gradient goes to (None where none flows)
    numbered = False  # some input is output 1, 2... of its grad_fn
    mask = 0
    bit = 1
    wide = rule.exact_dtype
    bf16 = False
    cplx = False
    meta = False
    for x in inputs:
        if isinstance(x, Tensor):
            a = x._data
            extra = x._extra
            if extra is not None:
                if extra.sparse:
                    from engine.sparse_coo import dispatch

                    return dispatch(rule, inputs, attrs)
                if extra.meta:
                    meta = True
                if track and extra.version != x._vc[0]:
                    x.grad_fn  # a view whose base changed in place gets its new grad_fn (see Tensor.grad_fn)
            if x._requires_grad and track:
                mask |= bit
                fn = x._grad_fn
                if fn is None:
                    fn = x._accumulator or x._grad_accumulator()
                elif x._output_nr:
                    numbered = True
                targets.append(fn)
            else:
                targets.append(None)
            shapes.append(a.shape)
            if a.dtype is not _F32:
                if a.dtype.byteorder == ">":  # bfloat16 (see dtypes.BF16)
                    bf16 = True
                elif not wide and a.dtype == _F64:
                    wide = True
                elif a.dtype.kind == "c":
                    cplx = True
                    wide = wide or a.dtype == _C128
        else:
            a = x
            targets.append(None)
            if type(a) is _NDARRAY:
                shapes.append(a.shape)
                if a.dtype.byteorder == ">":
                    bf16 = True
                elif not wide and a.dtype == _F64:
                    wide = True
                elif a.dtype.kind == "c":
                    cplx = True
                    wide = wide or a.dtype == _C128
            else:
                shapes.append(np.shape(a))
        arrays.append(a)
        bit <<= 1
    if meta:
        from engine.meta import check_devices

        check_devices(inputs)
    promoted = None
    if rule.promotes:
        promoted = promoted_arrays(arrays)
        if promoted is not None:
            arrays, wide = promoted
    if cplx:  # Wirtinger-convention gradients (see engine.complex_ops)
        rule = rule.complex_twin or _complex_twin(rule)
    out = rule.forward(*arrays, **attrs) if attrs else rule.forward(*arrays)
    inference = state.inference
    single = rule.outputs == 1
    if single:
        data = _as_result(out, wide)
        if data.dtype is not _F32 or bf16:
            if data.dtype == _F16:
                data = _float_from_small_ints(rule, data, arrays, attrs, wide)
            data = _bf16_result(rule, data, arrays, attrs, bf16)
        result = _new_tensor(data, inference)
        results: tuple = (result,)
    else:
        results = tuple(_new_tensor(_bf16_result(rule, _as_result(o, wide), arrays, attrs, bf16), inference)
                        for o in out)
        result = results
    if meta:
        from engine.meta import mark

        for r in results:
            mark(r)
    if rule.view:
        source = inputs[0]
        # PyTorch: a view of an inference tensor is an inference tensor (in or out of inference
        # mode) and never requires grad; a view of a normal tensor is a normal tensor
        source_inference = source._inference
        if source_inference:
            mask = 0
        for r in results:
            r._vc = source._vc
            extra = r._extras()
            extra.base = source._base if source._base is not None else source
            extra.version = source._vc[0]
            extra.no_grad_view = not track
            extra.inference = source_inference
        if not track and source._requires_grad and not source_inference:
            # PyTorch: a view made without grad mode still requires grad when its base does, but
            # no gradient flows through it (it has no grad_fn and no accumulator)
            for r in results:
                r._requires_grad = True
        if not single:
            for i, r in enumerate(results):
                r._view_of_multi = (rule.node_name[: -len("Backward0")], i)
        if source._data.dtype.kind == "c":
            _keep_conj_bit(source, results)
    node = None
    if mask:
        data = result._data if single else None
        if numbered or len(targets) >= len(_ZEROS):
            nrs = output_numbers(tuple(
                x._output_nr if t is not None and x.grad_fn is not None else 0 for x, t in zip(inputs, targets)
            ))
        else:
            nrs = _ZEROS[len(targets)]
        node = rule.new_node(
            rule.node_cls,
            tuple(targets),
            nrs,
            tuple(shapes),
            ((data.shape, data.dtype),) if single else tuple([(r._data.shape, r._data.dtype) for r in results]),
        )
        if attrs:
            node._attrs = attrs
        if (rule.promotes and promoted is not None) or bf16:
            # PyTorch hands each input a gradient of its own dtype (see cast_grads); bfloat16
            # gradients are rounded there, as each of PyTorch's backward kernels rounds its result
            node._attrs = {**(attrs or {}), GRAD_DTYPES: tuple(
                x._data.dtype if isinstance(x, Tensor) else None for x in inputs)}
        if single:
            result._grad_fn = node
            result._requires_grad = True
        else:
            outs = rule.differentiable_outputs
            for i in range(len(results)) if outs is None else outs:
                r = results[i]
                r._grad_fn = node
                r._requires_grad = True
                r._output_nr = i
        if rule.saves:
            _save(node, rule, (1 if mask else 0) if rule.variadic else mask, inputs, arrays, results, attrs)
        if state.anomaly:
            from engine.autograd.anomaly_mode import forward_stack

            node._anomaly = forward_stack()
    if state.dual:
        state.dual(rule, inputs, attrs, results)  # forward AD: the results' tangents
    if observe.current is not None:
        observe.current.op_applied(rule, node, inputs, results, attrs)
    return result


_I64_END = 2 ** 63


class _BigInt(int):
    """A Python int in [2**63, 2**64) given to an op: PyTorch reads it as uint64 and, in an integer
    op, uses its int64 bits (i + 2**63 wraps around)."""

    bits: int


def _int64_bits(a: int) -> int:
    """A Python int operand checked as PyTorch's parser checks it (int64 or uint64 range)."""
    if -_I64_END <= a < _I64_END:
        return a
    if a < 0:
        raise OverflowError("can't convert negative int to unsigned")
    if a >= 2 * _I64_END:
        raise OverflowError("int too big to convert")
    big = _BigInt(a)
    big.bits = a - 2 * _I64_END
    return big


def promoted_arrays(arrays: Sequence) -> tuple[list, bool] | None:
    """The operands of an elementwise op cast to PyTorch's result type, and whether that type is
    float64; None when NumPy's own promotion already agrees: operands of one dtype, with Python
    numbers NumPy treats as weak. Dimensioned tensors outrank 0-d ones, which outrank Python
    numbers, unless a lower-ranked operand is of a higher category (bool < integer < floating):
    float32 [2] + float64 0-d is float32, int64 [2] + float32 0-d is float32. A Python int out of
    an integer dtype's range wraps around as in PyTorch (uint8 [1] + 300 is 45)."""
    first = None
    mixed = False
    ints = False
    big = False
    for a in arrays:
        if type(a) is _NDARRAY:
            d = a.dtype
            if first is None:
                first = d
            elif d is not first and d != first:
                mixed = True
        elif type(a) is int:
            ints = True
            if not -_I64_END <= a < _I64_END:
                big = True
    if big:
        arrays = [_int64_bits(a) if type(a) is int else a for a in arrays]
    if not mixed and not big and not (ints and first is not None and first.kind in "iu" and first != _I64):
        return None
    target = _dtypes.result_type_np(arrays)
    out = []
    for a in arrays:
        if type(a) is _NDARRAY:
            if a.dtype != target:
                a = a.astype(target)
        elif type(a) is int and target.kind in "iu":
            a = np.array(a, np.int64).astype(target)  # wraps like a C cast
        elif type(a) is _BigInt:
            a = int(a) if target.kind in "fc" else np.array(a.bits, np.int64).astype(target)
        out.append(a)
    return out, target == _F64 or target == _C128


def _complex_twin(rule: Rule) -> Rule:
    from engine.complex_ops import twin

    return twin(rule)


def _new_tensor(data: np.ndarray, inference: bool) -> Tensor:
    """Tensor._make without the call overhead: a fresh result with no graph attached yet."""
    t = _object_new(Tensor)
    t._data = data
    t._grad_fn = None
    t._requires_grad = False
    t._grad = None
    t._output_nr = 0
    t._vc = [0]
    t._accumulator = None
    t._extra = TensorExtras(inference=True) if inference else None
    return t


def _float_from_small_ints(rule: Rule, data: np.ndarray, arrays: Sequence, attrs: dict | None,
                           wide: bool) -> np.ndarray:
    """NumPy runs float ops (sin, sqrt, exp...) of bool, int8 and uint8 arrays in float16; PyTorch computes
    them in the default float dtype. A float16 result with no float16 operand is computed again so."""
    if rule.view or (attrs and attrs.get("dtype") is not None):
        return data
    if any(type(a) is _NDARRAY and a.dtype == _F16 or type(a) is np.float16 for a in arrays):
        return data
    floats = [a.astype(_dtypes.default_float.np) if type(a) is _NDARRAY and a.dtype.kind in "biu" else a
              for a in arrays]
    return _as_result(rule.forward(*floats, **attrs) if attrs else rule.forward(*floats), wide)


def _bf16_result(rule: Rule, data: np.ndarray, arrays: Sequence, attrs: dict | None, bf16: bool) -> np.ndarray:
    """A result rounded to bfloat16 where PyTorch's is bfloat16: a float result of an op whose
    operands promote to bfloat16 (NumPy computed it in float32), or a new bfloat16 array (a
    conversion). Views keep their base's (already rounded) values."""
    dt = data.dtype
    if dt.kind != "f" or rule.view:
        return data
    if dt.byteorder == ">":
        return _dtypes.round_bf16(data)
    if bf16 and dt.itemsize == 4 and not (attrs and attrs.get("dtype") is not None):
        if _dtypes.result_type_np(arrays) == _dtypes.BF16:
            return _dtypes.round_bf16(data)
    return data


def _as_result(out: Any, wide: bool) -> np.ndarray:
    """Wrap NumPy scalars as 0-d arrays and keep PyTorch's float32 default where NumPy widens."""
    if type(out) is not _NDARRAY:
        out = np.asarray(out)
    if not wide and out.dtype is not _F32 and out.dtype == _F64:
        out = out.astype(_F32)
    return out


def _new_node(cls: type[Node], next_: tuple, nrs: tuple, in_meta: tuple, out_meta: tuple, sv: Any = None,
              was_saved: Any = False) -> Node:
    """A node with its edges, metadata and saved values, without Node.__init__'s call overhead.
    Each node class runs its own copy of this function (see node_maker)."""
    node = cls()  # object.__init__ (see node_maker): cheaper than object.__new__(cls)
    node._seq = next(_sequence)
    node._next = next_
    node._nrs = nrs
    node._sv = sv
    node._was_saved = was_saved
    node._attrs = None
    node._extra = None
    node._in_meta = in_meta
    node._out_meta = out_meta
    return node


def node_maker(cls: type[Node]) -> Callable[..., Node]:
    """`_new_node` for the nodes of one class. CPython specialises each attribute store for the one
    type it sees; one function storing into nodes of every class would miss at each store, so each
    class gets a copy of its code (same code, its own specialisation). The class keeps object's
    __init__: its nodes are made here only."""
    if cls.__init__ is not object.__init__:
        raise TypeError(f"{cls.__name__} nodes are made by node_maker: the class needs object.__init__")
    code = _new_node.__code__.replace()
    return types.FunctionType(code, _new_node.__globals__, _new_node.__name__, _new_node.__defaults__)


# --- the 0-d float32 path ---------------------------------------------------------------------
# A NumPy ufunc on a 0-d array costs about 300 ns; the same operation on Python floats about
# 20 ns. For 0-d float32 inputs, a rule with a `scalar` kernel computes in float64 and rounds once
# to float32 when wrapping the result. For + - * / of float32 values that single rounding gives
# exactly the float32 result (float64 has more than 2 * 24 + 2 bits); for exp, tanh, sin, cos and
# log the rule's array forward also computes in float64 and rounds once. Anything else (other
# shapes or dtypes, kernel errors such as overflow, anomaly mode) takes the array path. An observer
# hears of each op from either path.

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


_empty = np.empty  # a fresh 0-d float32 array; assigning a Python float rounds like np.array


# The scalar ops below make their result tensor inline, with Tensor._make's fields (as _new_tensor
# does): on this path a call more per op is a visible share of its cost.

def scalar_unary_op(rule: Rule, general: Callable) -> Callable:
    """`rule` as a function of one tensor that runs 0-d float32 tensors through the scalar
    kernel and everything else (other shapes and dtypes, kernel errors such as overflow,
    anomaly mode) through `general`."""
    kernel = rule.scalar
    node_cls = rule.node_cls
    new_node = rule.new_node
    plans = rule.scalar_plans
    saves = bool(rule.saves)

    def op(a: Any) -> Any:
        if type(a) is not Tensor:
            return general(a)
        d = a._data
        state = _state
        if d.shape or d.dtype is not _F32 or state.anomaly or state.dual:
            return general(a)
        try:
            value = kernel(d.item())
        except (ArithmeticError, ValueError):
            return general(a)  # overflow, log(0)...: NumPy's inf and nan come from the array path
        data = _empty((), _F32)
        data[()] = value
        # _new_tensor(data, state.inference), written out: the call costs about 2% of a 0-d op.
        result = _object_new(Tensor)
        result._data = data
        result._grad_fn = None
        result._requires_grad = False
        result._grad = None
        result._output_nr = 0
        result._vc = [0]
        result._accumulator = None
        result._extra = TensorExtras(inference=True) if state.inference else None
        if a._requires_grad and state.enabled:
            fn = a._grad_fn if a._extra is None else a.grad_fn  # a view: see Tensor.grad_fn
            if fn is None:
                edges = (a._accumulator or a._grad_accumulator(),)
                nrs = _ZEROS[1]
            else:
                edges = (fn,)
                nr = a._output_nr
                nrs = _ZEROS[1] if nr == 0 else output_numbers((nr,))
            if not saves or SAVED_HOOKS or a._extra is not None:
                result._grad_fn = node = new_node(node_cls, edges, nrs, _SCALAR_IN_META[1], _SCALAR_OUT_META)
                result._requires_grad = True
                if saves:  # with saved-tensor hooks, or an inference tensor (which raises)
                    _save(node, rule, 1, (a,), None, (result,), None)
            else:
                plan = plans[1] or rule.scalar_plan(1)
                pack = plan.pack  # a slot read, then a call: `plan.pack(...)` is an unspecialised lookup
                result._grad_fn = new_node(node_cls, edges, nrs, _SCALAR_IN_META[1], _SCALAR_OUT_META,
                                           pack(a, None, result), plan.freeable)
                result._requires_grad = True
        if observe.current is not None:
            observe.current.op_applied(rule, result._grad_fn, (a,), (result,), None)
        return result

    op.__name__ = op.__qualname__ = rule.name
    return op


def scalar_binary_op(rule: Rule, general: Callable) -> Callable:
    """`rule` as a function of a tensor and a tensor or Python number, with the 0-d float32 path
    for a 0-d float32 first operand and a 0-d float32 or Python number second one."""
    kernel = rule.scalar
    node_cls = rule.node_cls
    new_node = rule.new_node
    plans = rule.scalar_plans
    saves = bool(rule.saves)

    def op(a: Any, b: Any) -> Any:
        if type(a) is not Tensor:
            return general(a, b)
        da = a._data
        if da.shape or da.dtype is not _F32:
            return general(a, b)
        tb = type(b)
        if tb is Tensor:
            db = b._data
            if db.shape or db.dtype is not _F32:
                return general(a, b)
            y = db.item()
        elif tb is float or tb is int:
            y = _ROUNDED.get(b)
            if y is None:
                y = _round32(b)
                if y is None:
                    return general(a, b)
        else:
            return general(a, b)
        state = _state
        if state.anomaly or state.dual:
            return general(a, b)
        try:
            value = kernel(da.item(), y)
        except (ArithmeticError, ValueError):
            return general(a, b)
        mask = 1 if a._requires_grad else 0
        if tb is Tensor and b._requires_grad:
            mask |= 2
        data = _empty((), _F32)
        data[()] = value
        result = _object_new(Tensor)  # _new_tensor, written out (see the unary op)
        result._data = data
        result._grad_fn = None
        result._requires_grad = False
        result._grad = None
        result._output_nr = 0
        result._vc = [0]
        result._accumulator = None
        result._extra = TensorExtras(inference=True) if state.inference else None
        if mask and state.enabled:
            na = nb = 0
            if mask & 1:
                ea = a._grad_fn if a._extra is None else a.grad_fn  # a view: see Tensor.grad_fn
                if ea is None:
                    ea = a._accumulator or a._grad_accumulator()
                else:
                    na = a._output_nr
            else:
                ea = None
            if mask & 2:
                eb = b._grad_fn if b._extra is None else b.grad_fn  # a view: see Tensor.grad_fn
                if eb is None:
                    eb = b._accumulator or b._grad_accumulator()
                else:
                    nb = b._output_nr
            else:
                eb = None
            nrs = _ZEROS[2] if na == 0 and nb == 0 else output_numbers((na, nb))
            if not saves or SAVED_HOOKS or a._extra is not None or (tb is Tensor and b._extra is not None):
                result._grad_fn = node = new_node(node_cls, (ea, eb), nrs, _SCALAR_IN_META[2],
                                                  _SCALAR_OUT_META)
                result._requires_grad = True
                if saves:  # with saved-tensor hooks, or an inference tensor (which raises)
                    _save(node, rule, mask, (a, b), None, (result,), None)
            else:
                key = mask | 4 if tb is Tensor else mask
                plan = plans[key] or rule.scalar_plan(key)
                pack = plan.pack  # (see the unary op)
                result._grad_fn = new_node(node_cls, (ea, eb), nrs, _SCALAR_IN_META[2], _SCALAR_OUT_META,
                                           pack(a, b, result), plan.freeable)
                result._requires_grad = True
        if observe.current is not None:
            observe.current.op_applied(rule, result._grad_fn, (a, b), (result,), None)
        return result

    op.__name__ = op.__qualname__ = rule.name
    return op


_SCALAR_IN_META = ((), ((),), ((), ()))
_SCALAR_OUT_META = (((), _F32),)


def _save(node: Node, rule: Rule, mask: int, inputs: tuple, arrays: list | None, results: tuple,
          attrs: dict | None) -> None:
    plan = rule._save_plans.get(mask)
    entries, freeable = plan if plan is not None else rule.save_plan(mask)
    saved: dict[str, Any] = {}
    arrays_saved = None
    for slot, kind, ref in entries:
        if kind == _OUTPUT:
            saved[slot] = _saved_tensor(results[ref], True)
        elif kind == _INPUT:
            x = inputs[ref]
            saved[slot] = _saved_tensor(x, False) if isinstance(x, Tensor) else x
        elif kind == _DERIVED:
            if arrays is None:
                arrays = [x._data if isinstance(x, Tensor) else x for x in inputs]
            fn, index = ref
            saved[slot] = fn(arrays[index])
        elif attrs is not None and slot in attrs:
            value = saved[slot] = attrs[slot]
            if type(value) is _NDARRAY or (type(value) is tuple and _NDARRAY in map(type, value)):
                # an index or mask (or the indices of x[idx]): tensors PyTorch saves, and frees
                arrays_saved = (slot,) if arrays_saved is None else arrays_saved + (slot,)
        elif slot in rule.defaults:
            saved[slot] = rule.defaults[slot]
    node._sv = saved
    # Truthy when something backward frees was saved (wrapped Python numbers count: PyTorch saves
    # them as tensors too); the slot names themselves, so release() need not look.
    node._was_saved = freeable if arrays_saved is None else freeable + arrays_saved


def _saved_tensor(t: Tensor, is_output: bool) -> SavedTensor:
    if t._extra is not None or SAVED_HOOKS:
        return SavedTensor(t, is_output)  # raises for inference tensors; runs the pack hook
    s = _object_new(SavedTensor)
    s.tensor = t
    s.version = t._vc[0]
    s.is_output = is_output
    s.packed = None
    return s


def _check_grad_shape(node: Node, i: int, got: tuple, shape: tuple) -> None:
    """PyTorch's validate_outputs: a gradient must be the input's shape or one it expands to (then summed)."""
    if got != shape and (len(shape) > len(got) or any(s != d and s != 1 for s, d in zip(shape[::-1], got[::-1]))):
        raise RuntimeError(f"Function {type(node).__name__} returned an invalid gradient at index {i} - got "
                           f"{list(got)} but expected shape compatible with {list(shape)}")


def _keep_conj_bit(source: Tensor, views: tuple) -> None:
    """Views of a conjugate view are conjugate views too (is_conj(), numpy() refused), as in PyTorch."""
    from engine.complex_ops import _CONJ_VIEWS, is_conj

    if is_conj(source):
        for v in views:
            if v._data.dtype.kind == "c":
                _CONJ_VIEWS[id(v)] = v


def backward_node(node: Node, grads: Sequence, create_graph: bool, reach: Any = None) -> tuple:
    """Gradients for each of `node`'s inputs (None where not needed: no edge, or an edge outside `reach`,
    what an autograd.grad pass gets to), summed to input shapes."""
    rule = node.rule
    if create_graph:
        from engine.functions import TensorMath as F
    else:
        F = ArrayMath
    g = grads[0] if rule.outputs == 1 else grads
    plans = rule.grad_plan
    variadic = rule.variadic
    saved = node._sv
    if type(saved) is tuple:  # a compact tuple of the 0-d path
        if not create_graph:
            sent = scalar_backward(node, saved, g)
            if sent is not None:
                return sent
        saved = node._saved  # turned into the dict
    in_meta = node._in_meta
    out = []
    i = -1
    for target in node._next:
        i += 1
        if target is None or (reach is not None and target not in reach):
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
                    _check_grad_shape(node, i, gi.shape, shape)
                    gi = F.sum_to(gi, shape)
            elif kind is not _F32S or shape:
                _check_grad_shape(node, i, gi._data.shape if isinstance(gi, Tensor) else np.shape(gi), shape)
                gi = F.sum_to(gi, shape)
        out.append(gi)
    attrs = node._attrs
    if attrs is not None and GRAD_DTYPES in attrs:
        return cast_grads(out, attrs[GRAD_DTYPES])
    return tuple(out)


# The key under which a node whose inputs' dtypes differ from the one it computed in keeps them
# (an op on mixed dtypes, a reduction given dtype=).
GRAD_DTYPES = "input dtypes"


def cast_grads(grads: Sequence, dtypes: tuple) -> tuple:
    """Each input's gradient in the input's dtype, as PyTorch casts them (float32 x times a
    float64 0-d tensor gives x a float32 gradient)."""
    out = []
    for g, want in zip(grads, dtypes):
        if g is not None and want is not None:
            if isinstance(g, Tensor):
                if g._data.dtype != want:
                    if g._data.dtype.kind == "c" and want.kind != "c":
                        g = g.real  # a real input's gradient is the real part (handle_r_to_c)
                    g = g.to(_dtypes.from_numpy(want))
            elif g.dtype != want:
                if g.dtype.kind == "c" and want.kind != "c":
                    g = g.real
                g = _dtypes.cast(g, want)
        out.append(g)
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
    if name == "node":
        return node
    return i if name == "input_nr" else node._in_meta


# --- math namespaces that gradient functions call through `F` ---------------------------------


def _sum_to_array(g: Any, shape: tuple) -> Any:
    """Undo broadcasting: sum `g` down to `shape` (the one place this happens)."""
    g = np.asarray(g)
    if g.shape == shape:
        return g
    key = (g.shape, shape)
    axes = _SUMMED_AXES.get(key)
    if axes is None:
        lead = g.ndim - len(shape)
        axes = tuple(range(lead)) + tuple(
            i + lead for i, d in enumerate(shape) if d == 1 and g.shape[i + lead] != 1
        )
        if len(_SUMMED_AXES) < 1024:
            _SUMMED_AXES[key] = axes
    if axes:
        if shape and len(axes) == g.ndim - len(shape):  # leading dimensions only: already `shape`
            return _add_reduce(g, axes)
        g = _add_reduce(g, axes, None, None, True)
    return g.reshape(shape)


_SUMMED_AXES: dict[tuple, tuple[int, ...]] = {}  # (gradient shape, input shape) -> axes summed over
_add_reduce = np.add.reduce
_BROADCAST_STRIDES: dict[tuple, tuple[int, ...]] = {}  # (shape, strides, target shape) -> strides


def _broadcast(g: Any, shape: tuple) -> Any:
    """np.broadcast_to(g, shape), a read-only view, without its Python-level overhead.

    The view is made by the ndarray constructor over a read-only buffer of `g`'s data with the
    strides np.broadcast_to would choose (computed once per layout). Only a C-contiguous `g`
    (or a NumPy scalar) exports such a buffer; anything else goes through np.broadcast_to."""
    kind = type(g)
    if kind is _NDARRAY:
        if g.shape == shape:
            return g
        key = (g.shape, g.strides, shape)
        buffer: Any = g
    elif kind is _F32S or kind is np.float64:
        key = ((), (), shape)
        buffer = g
    else:
        return np.broadcast_to(g, shape)
    strides = _BROADCAST_STRIDES.get(key)
    if strides is None:
        strides = np.broadcast_to(g, shape).strides
        if len(_BROADCAST_STRIDES) < 1024:
            _BROADCAST_STRIDES[key] = strides
    try:
        if kind is _NDARRAY:
            buffer = memoryview(g).toreadonly()
        return _NDARRAY(shape, g.dtype, buffer, 0, strides)
    except (BufferError, TypeError, ValueError):  # not C-contiguous
        return np.broadcast_to(g, shape)


def _unsqueeze_dims(g: Any, dims: tuple[int, ...]) -> Any:
    """np.expand_dims(g, dims): one reshape when the dims are ascending and non-negative."""
    if (type(g) is not _NDARRAY or not dims or dims[0] < 0 or dims[-1] >= g.ndim + len(dims)
            or list(dims) != sorted(set(dims))):
        return np.expand_dims(g, dims)
    shape = list(g.shape)
    for d in dims:
        shape.insert(d, 1)
    return g.reshape(shape)


class ArrayMath:
    """NumPy versions of the functions gradient rules use. PyTorch's backward ops (tanh_backward,
    threshold_backward...) are added by engine.ops (see backward_function there): their kernels."""

    exp = staticmethod(np.exp)
    log = staticmethod(np.log)
    conj = staticmethod(np.conj)
    real = staticmethod(np.real)
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

    expand = staticmethod(_broadcast)

    @staticmethod
    def reshape(g: Any, shape: tuple) -> Any:
        return np.reshape(g, shape)

    unsqueeze_dims = staticmethod(_unsqueeze_dims)

    @staticmethod
    def squeeze_dim(g: Any, dim: int) -> Any:
        # Summing over the size-1 dim gives the squeezed values as a fresh array (a squeeze would
        # be a view of g, which a leaf could not take as its .grad without a copy).
        return np.sum(g, axis=dim)

    @staticmethod
    def mT(a: Any) -> Any:  # noqa: N802 - matrix transpose of the last two dims
        return np.swapaxes(a, -1, -2)

    t = staticmethod(np.transpose)  # of a matrix (TBackward0)

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

    contiguous = staticmethod(np.ascontiguousarray)

    @staticmethod
    def cat(arrays: list, dim: int) -> Any:
        return np.concatenate(arrays, axis=dim)


def kernel_gradient(F: Any, op: str, value: Any, inputs: tuple) -> Any:
    """A gradient a backward kernel computed as an array (`value`): the array itself in a plain backward;
    under create_graph, a tensor on a NotImplemented node, as PyTorch cannot differentiate `op` again."""
    if F is ArrayMath:
        return value
    from engine.functions import not_implemented_result

    return not_implemented_result(op, value, inputs)
