"""Backward graph nodes (grad_fn objects): edges, saved tensors with version checks, hooks."""

from __future__ import annotations

import itertools
import re
from typing import Any, Callable

import numpy as np

from engine import messages

UINT64_MAX = 18446744073709551615
_sequence = itertools.count()
_handle_ids = itertools.count()


class RemovableHandle:
    """Returned by register_*hook; remove() unregisters the hook."""

    __slots__ = ("_registry", "id")

    def __init__(self, registry: dict) -> None:
        self._registry = registry
        self.id = next(_handle_ids)

    def remove(self) -> None:
        self._registry.pop(self.id, None)

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


def add_hook(registry: dict, fn: Callable, prepend: bool = False) -> RemovableHandle:
    """Registers `fn` last, or first with `prepend` (which needs an OrderedDict registry)."""
    handle = RemovableHandle(registry)
    registry[handle.id] = fn
    if prepend:
        registry.move_to_end(handle.id, last=False)
    return handle


FREED = object()  # marks a saved slot released after backward

ZEROS = ((), (0,), (0, 0), (0, 0, 0))  # output numbers of nodes whose inputs are all output 0
_NRS: dict[tuple, tuple] = {z: z for z in ZEROS}


def output_numbers(nrs: tuple) -> tuple:
    """The shared tuple equal to `nrs` (one per distinct value: nodes do not each own one)."""
    shared = _NRS.get(nrs)
    if shared is None:
        shared = nrs if len(_NRS) > 4096 else _NRS.setdefault(nrs, nrs)
    return shared


# Active torch.autograd.graph.saved_tensors_hooks (pack, unpack) pairs, innermost last.
SAVED_HOOKS: list = []


class SavedTensor:
    """A tensor a node saved for backward, with the version it had when saved."""

    __slots__ = ("tensor", "version", "is_output", "packed")

    def __init__(self, tensor: Any, is_output: bool) -> None:
        if tensor._inference:
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
                "inference mode in computation tracked by autograd. To work around this, you can make a "
                "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
                "`torch.inference_mode()`."
            )
        self.tensor = tensor
        self.version = tensor._vc[0]
        self.is_output = is_output
        self.packed = None
        if SAVED_HOOKS:
            pack, unpack = SAVED_HOOKS[-1]
            self.packed = (pack(tensor), unpack)

    def __repr__(self) -> str:
        return f"<torch._C._autograd.SavedTensor object at {hex(id(self))}>"

    def register_hooks(self, pack_hook: Any, unpack_hook: Any) -> None:
        """Packs the saved tensor now with `pack_hook`; `unpack_hook` gives it back when it is used."""
        if not (callable(pack_hook) and callable(unpack_hook)):
            raise TypeError(
                "register_hooks(): incompatible function arguments. The following argument types are "
                "supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: collections.abc.Callable, "
                "arg1: collections.abc.Callable) -> None\n\nInvoked with: "
                f"{self!r}, {pack_hook!r}, {unpack_hook!r}")
        if self.tensor is FREED:
            raise RuntimeError(messages.REGISTER_HOOKS_FREED)
        if self.tensor is None:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is forbidden")
        if self.packed is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already been set. "
                               "Hint: only one pair of hooks is allowed at a time.")
        from engine import grad_mode

        original = self.tensor
        owner = original.grad_fn
        with grad_mode.no_grad():
            packed = pack_hook(original.detach())

        def unpack(value: Any) -> Any:
            # the unpacked tensor takes the saved tensor's place in the graph, as in PyTorch
            value = unpack_hook(value)
            if not original.requires_grad or getattr(value, "requires_grad", True):
                return value
            out = type(original)._make(value._data, owner)
            out._requires_grad = True
            return out

        self.packed = (packed, unpack)

    @classmethod
    def placeholder(cls, value: Any) -> "SavedTensor":
        """The SavedTensor shown for a saved value kept otherwise (an array, a number, None, or FREED)."""
        saved = cls.__new__(cls)
        saved.tensor, saved.version, saved.is_output, saved.packed = value, 0, False, None
        return saved


def short_name(node: "Node") -> str:
    """PyTorch names the producing op without its Backward suffix in version errors."""
    name = type(node).__name__
    if name == "CopySlices":
        return "torch::autograd::CopySlices"
    return re.sub(r"Backward\d*$", "", name)


class Node:
    """A grad_fn: one per differentiable op application; its class name is PyTorch's node name."""

    __slots__ = (
        "_next",
        "_nrs",
        "_sv",
        "_in_meta",
        "_out_meta",
        "_seq",
        "_attrs",
        "_was_saved",
        "_extra",
        "__weakref__",
    )
    rule: Any = None
    ctx: Any = None  # custom Function nodes have a ctx slot
    _plain = False  # a node of an op-table rule whose backward is rules.backward_node

    def __reduce_ex__(self, protocol: Any) -> Any:
        # copy.copy / copy.deepcopy / pickling of a grad_fn: PyTorch's nodes cannot be pickled
        raise TypeError(f"cannot pickle '{type(self).__name__}' object")

    def __init__(self) -> None:
        self._seq = next(_sequence)
        self._sv = None
        self._was_saved = False
        self._attrs = None
        self._extra = None

    # Hooks, retained outputs, metadata and the anomaly-mode stack live in one NodeExtras object
    # that most nodes never get: creating a node sets one slot for all of them, and the backward
    # loop tells a node without any by a single check of `_extra`.
    # A node of the 0-d path keeps its saved values as a compact tuple (rules.ScalarPlan) only while
    # it has no extras: the backward loop runs such a tuple's plan without looking at `_extra`.
    def _extras(self) -> "NodeExtras":
        extra = self._extra
        if extra is None:
            sv = self._sv
            if type(sv) is tuple:
                from engine.rules import expand_compact

                self._sv = expand_compact(self, sv)
            extra = self._extra = NodeExtras()
        return extra

    _pre_hooks = property(lambda self: None if self._extra is None else self._extra.pre_hooks)
    _post_hooks = property(lambda self: None if self._extra is None else self._extra.post_hooks)
    _tensor_pre_hooks = property(lambda self: None if self._extra is None else self._extra.tensor_pre_hooks)
    _retained = property(lambda self: None if self._extra is None else self._extra.retained)

    @property
    def _anomaly(self) -> str | None:
        return None if self._extra is None else self._extra.anomaly

    @_anomaly.setter
    def _anomaly(self, stack: str | None) -> None:
        self._extras().anomaly = stack

    # --- edges ---------------------------------------------------------------------------
    # Per input, the node its gradient flows to (None where none flows) and that node's output
    # number, kept as two parallel tuples: the output numbers are small ints (shared tuples when all
    # are 0), so a node costs the garbage collector two tracked objects, not one per edge more.
    @property
    def _edges(self) -> tuple:
        """Per input, (node, output_nr) or None: the edge view the tracer and next_functions read."""
        return tuple(None if n is None else (n, nr) for n, nr in zip(self._next, self._nrs))

    @_edges.setter
    def _edges(self, edges: Any) -> None:
        self._next = tuple(None if e is None else e[0] for e in edges)
        self._nrs = output_numbers(tuple(0 if e is None else e[1] for e in edges))

    # --- PyTorch's public Node API -------------------------------------------------------
    @property
    def next_functions(self) -> tuple:
        """One (node, input_nr) per input; (None, 0) where no gradient flows, as in PyTorch."""
        return tuple((None, 0) if n is None else (n, nr) for n, nr in zip(self._next, self._nrs))

    def name(self) -> str:
        return type(self).__name__

    def _sequence_nr(self) -> int:
        return self._seq

    @property
    def metadata(self) -> dict:
        extra = self._extras()
        if extra.metadata is None:
            extra.metadata = {}
        return extra.metadata

    def register_hook(self, fn: Callable) -> RemovableHandle:
        extra = self._extras()
        if extra.post_hooks is None:
            extra.post_hooks = {}
        return add_hook(extra.post_hooks, fn)

    def register_prehook(self, fn: Callable) -> RemovableHandle:
        extra = self._extras()
        if extra.pre_hooks is None:
            extra.pre_hooks = {}
        return add_hook(extra.pre_hooks, fn)

    def add_tensor_pre_hook(self, output_nr: int, fn: Callable) -> RemovableHandle:
        extra = self._extras()
        if extra.tensor_pre_hooks is None:
            extra.tensor_pre_hooks = {}
        return add_hook(extra.tensor_pre_hooks.setdefault(output_nr, {}), fn)

    def retain_output(self, output_nr: int, tensor: Any) -> None:
        extra = self._extras()
        if extra.retained is None:
            extra.retained = {}
        extra.retained[output_nr] = tensor

    def apply_backward(self, grads: tuple, create_graph: bool) -> tuple:
        """The gradient for each input (None where none flows), from this node's output grads."""
        from engine.rules import backward_node

        return backward_node(self, grads, create_graph)

    def __call__(self, *grads: Any) -> Any:
        from engine.executor import call_node

        return call_node(self, grads)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    def __dir__(self) -> list[str]:
        # `[a for a in dir(fn) if a.startswith("_saved")]` lists PyTorch's _saved_<name> attributes only
        return [name for name in super().__dir__() if name != "_saved"]

    # --- saved tensors -------------------------------------------------------------------
    def saved_slots(self) -> tuple[str, ...]:
        return self.rule.saves if self.rule is not None else ()

    @property
    def _saved(self) -> dict | None:
        """Slot name -> SavedTensor, Python value, or FREED; None when the node saved nothing.

        Nodes of the 0-d fast path keep what they saved in a compact tuple (see
        rules.ScalarPlan); the first read here turns it into this dict for good."""
        sv = self._sv
        if type(sv) is tuple:
            from engine.rules import expand_compact

            sv = self._sv = expand_compact(self, sv)
        return sv

    @_saved.setter
    def _saved(self, value: dict | None) -> None:
        self._sv = value

    def release(self) -> None:
        """Free the tensors saved for backward (after a pass without retain_graph); attributes stay."""
        sv = self._sv
        if type(sv) is tuple:
            self._sv = self.rule.released_compact(sv)
            return
        saved = sv
        was_saved = self._was_saved
        if saved and was_saved:
            if type(was_saved) is tuple:  # the slots to free, known when they were saved
                for slot in was_saved:
                    saved[slot] = FREED
                return
            inputs = self.rule.inputs
            for slot, value in saved.items():
                if type(value) is SavedTensor or slot in inputs:
                    saved[slot] = FREED

    def unpack(self, slot: str, as_tensor: bool) -> Any:
        """The saved value of `slot`, checking its version; raises if it was freed."""
        saved = self._sv
        if saved is None:
            return None
        if type(saved) is tuple:
            saved = self._saved
        value = saved.get(slot)
        if type(value) is SavedTensor:
            return unpack_saved(self, value, as_tensor)
        if value is FREED:
            raise RuntimeError(messages.BACKWARD_TWICE)
        return value

    def _shown_saved(self, slot: str) -> Any:
        """What `_saved_<slot>` shows, as PyTorch shows it (see saved_property)."""
        value = self.unpack(slot, as_tensor=True)
        if slot in self.rule.inputs and isinstance(value, (int, float, bool)):
            from engine.tensor import scalar_tensor

            value = scalar_tensor(value)  # PyTorch wraps a Python number in a tensor
        elif type(value) is np.ndarray:
            from engine.tensor import Tensor

            value = Tensor._make(value)  # masks, indices, targets kept as arrays
        elif type(value) is tuple and any(type(v) is np.ndarray for v in value):
            from engine.tensor import Tensor

            value = tuple(Tensor._make(v) if type(v) is np.ndarray else v for v in value)
        elif slot in _INT64_SLOTS:  # int64 in C++, shown unsigned: dim=-1 is 18446744073709551615
            if type(value) is int and value < 0:
                value += 1 << 64
            elif type(value) is tuple:
                value = tuple(v + (1 << 64) if type(v) is int and v < 0 else v for v in value)
        return value


_INT64_SLOTS = frozenset({"dim", "dim0", "dim1", "dim2", "dims", "offset", "diagonal", "pad", "padding", "shifts", "k",
                          "dimension", "ignore_index"})


_OPTIONAL_TENSOR_SLOTS = frozenset({"weight", "bias", "pos_weight"})


def raw_saved_property(slot: str) -> property:
    """`_raw_saved_<slot>`: the SavedTensor of a tensor slot (AttributeError for other slots, as PyTorch
    has the attribute for saved tensors only)."""

    def get(node: Node) -> Any:
        saved = node._saved or {}
        value = saved.get(slot)
        if type(value) is SavedTensor:
            return value
        number = slot in node.rule.inputs and isinstance(value, (int, float, bool))
        optional = value is None and slot in _OPTIONAL_TENSOR_SLOTS
        if slot not in saved or not (value is FREED or type(value) is np.ndarray or number or optional):
            raise AttributeError(f"'{type(node).__name__}' object has no attribute '_raw_saved_{slot}'")
        if value is not FREED and value is not None:
            from engine.tensor import Tensor, scalar_tensor

            value = Tensor._make(value) if type(value) is np.ndarray else scalar_tensor(value)
        return SavedTensor.placeholder(value)

    return property(get)


def saved_property(slot: str) -> property:
    """The `_saved_<slot>` attribute of a node class. Properties rather than a `__getattr__` on
    Node: a class with `__getattr__` makes every attribute read of its instances a slow lookup."""
    return property(lambda node: node._shown_saved(slot))


class NodeExtras:
    """A node's rarely used state: hooks, retained outputs, user metadata, the anomaly-mode stack."""

    __slots__ = ("pre_hooks", "post_hooks", "tensor_pre_hooks", "retained", "metadata", "anomaly")

    def __init__(self) -> None:
        self.pre_hooks: dict | None = None
        self.post_hooks: dict | None = None
        self.tensor_pre_hooks: dict | None = None
        self.retained: dict | None = None
        self.metadata: dict | None = None
        self.anomaly: str | None = None


def unpack_saved(node: Node, saved: SavedTensor, as_tensor: bool) -> Any:
    tensor = saved.tensor
    if saved.packed is not None:
        packed, unpack = saved.packed
        value = unpack(packed)
        from engine.tensor import Tensor

        if not isinstance(value, Tensor):  # the engine reads its _data below: never another object's
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                            f"{type(value).__name__}")
        return value if as_tensor else value._data
    if tensor._vc[0] != saved.version:
        raise RuntimeError(version_error(node, saved))
    if saved.is_output:
        from engine.tensor import Tensor

        # The saved output is a new tensor object whose grad_fn is the node that saved it.
        out = Tensor._make(tensor._data, node if tensor.requires_grad else None, tensor._vc)
        out._output_nr = tensor._output_nr  # which of the node's outputs it is (U, S or Vh of an SVD...)
        return out if as_tensor else out._data
    return tensor if as_tensor else tensor._data


def version_error(node: Node, saved: SavedTensor) -> str:
    tensor = saved.tensor
    owner = node if saved.is_output else tensor.grad_fn
    where = f", which is output {tensor._output_nr} of {short_name(owner)}," if owner is not None else ""
    from engine.grad_mode import state

    return messages.version_mismatch(tensor, where, tensor._vc[0], saved.version, state.anomaly)


class AccumulateGrad(Node):
    """The sink node of a leaf that requires grad: adds incoming gradients into `.grad`."""

    __slots__ = ("variable",)

    def __init__(self, variable: Any) -> None:
        self._seq = UINT64_MAX  # as in PyTorch, it takes no sequence number
        self._sv = None
        self._was_saved = False
        self._attrs = None
        self._extra = None
        self.variable = variable
        self._next = ()
        self._nrs = ()
        self._in_meta = self._out_meta = ((variable._data.shape, variable._data.dtype),)  # one output, like any node

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"  # PyTorch's C++ name; the class name is AccumulateGrad


class GraphRoot(Node):
    """Feeds the seed gradients of several roots into the graph (not user-visible)."""

    __slots__ = ("grads",)
