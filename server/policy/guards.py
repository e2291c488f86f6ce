"""Run-time policy: the globals a compiled snippet runs in.

Everything the snippet reaches goes through these guards:
- `_getattr_`: a per-type allowlist. Builtin types have explicit method lists; engine tensors expose
  their public API except `numpy`; graph nodes expose a tiny explicit set plus `_saved_*` and `_raw_saved_*`
  (SavedTensors, which show only `register_hooks`); other
  engine objects, user classes (subclasses of torch.autograd.Function / torch.nn.Module) and
  facades expose public names only. Every value handed back is checked: modules, NumPy objects
  (arrays, dtypes, ufuncs, scalar types), frames, code and tracebacks are refused.
- `import torch` returns a read-only `Facade` holding only allowed public names; `from torch import
  x` reads the facade directly, so the facade itself holds nothing unsafe. Each importable torch
  submodule has an explicit list of public names (`SUBMODULE_NAMES`). `import warnings` gives the
  tiny facade of warnfacade.py; `import io` one holding only the in-memory files BytesIO and
  StringIO (for torch.save / torch.load), whose instances expose an explicit list of methods.
- NumPy: `tensor.numpy()` hands out a view sharing the tensor's memory, as PyTorch does; arrays, NumPy
  scalars and dtypes are read through the allowlists of arrays.py. Other engine objects never hand out their
  own arrays (check_value copies: an optimizer's momentum buffer is no tensor's memory).
- A module's hook dicts (`m._forward_hooks`...) are read through hookdicts.HookDict: read and remove only.
- nn.Module registration (`register_buffer`, `add_module`, the keys of `ModuleDict`, `Sequential(OrderedDict)`
  and `ParameterDict`, also through `super()`)
  refuses names starting with '_' and values of the wrong type: Module.__getattr__ serves registered
  names, and NumPy reads `__array_interface__` through it, so a dict registered under that name would
  let NumPy read any memory address.
- `load_state_dict` of optimizers and LR schedulers takes plain data only (numbers, strings, None,
  tensors, and lists, tuples and dicts of them) without '__' keys: a scheduler copies the dict into
  its own __dict__ (and its lr_lambdas'), where NumPy would find `__array_interface__` too.
- Engine classes PyTorch does not let you instantiate (`torch.dtype`...) are name tags (TypeName):
  isinstance and == work, calling them does not. Engine helpers beyond PyTorch's API are refused
  (ENGINE_CLASS_ATTRS), and so are metaclass attributes of classes (`cls.mro()` would reach `object`
  and BaseException).
- builtins are a small safe set; `type(x)` returns a `TypeName` that only exposes `__name__`, and so do the
  engine functions that return the class of their argument (CLASS_RETURNING).
"""

from __future__ import annotations

import builtins
import collections
import functools
import importlib
import io
import math
import operator
import sys
import types
import weakref
from typing import Any, Callable

import numpy as np
from RestrictedPython.Guards import guarded_iter_unpack_sequence, guarded_unpack_sequence

from . import arrays, npfacade, npsizes, stdfacade, warnfacade
from .hookdicts import HOOK_DICT_METHODS, HOOK_DICT_NAMES, HookDict
from .compiler import (
    ALLOWED_IMPORT_ROOTS,
    CLASS_SPECIAL_METHODS,
    ENGINE_SUBCLASS_SPECIAL_METHODS,
    IMPORTS_ALLOWED,
    TENSOR_OPERATOR_METHODS,
    format_field_is_unsafe,
)
from .errors import OutputLimitExceeded, PolicyError

DEFAULT_MAX_OUTPUT_CHARS = 1_000_000

# Torch submodules a snippet may import or reach as attributes (torch-relative paths), each with the
# public names it shows (None: the engine module's __all__). Only those the engine provides exist.
SUBMODULE_NAMES: dict[str, frozenset[str] | None] = {
    "": None,
    "autograd": None,
    "autograd.function": frozenset({"Function", "FunctionCtx", "once_differentiable"}),
    "autograd.functional": frozenset({"jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"}),
    "autograd.graph": None,
    "autograd.forward_ad": None,
    "autograd.gradcheck": frozenset({"gradcheck", "gradgradcheck", "GradcheckError"}),
    "autograd.anomaly_mode": frozenset({"detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
                                        "is_anomaly_check_nan_enabled"}),
    "nn": None,
    "nn.functional": None,
    "nn.init": frozenset({"calculate_gain", "constant_", "eye_", "kaiming_normal_", "kaiming_uniform_",
                          "normal_", "ones_", "zeros_", "trunc_normal_", "uniform_", "xavier_normal_",
                          "xavier_uniform_", "orthogonal_", "sparse_", "dirac_"}),
    "nn.utils": None,
    "nn.utils.rnn": None,
    "nn.utils.parametrize": None,
    "nn.utils.parametrizations": None,
    "nn.modules": None,
    "nn.modules.module": None,
    "optim": frozenset({"SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam",
                        "Rprop", "ASGD", "LBFGS", "SparseAdam", "Optimizer"}),
    "optim.lr_scheduler": None,
    "utils": frozenset(),
    "utils.checkpoint": frozenset({"checkpoint", "checkpoint_sequential"}),
    "utils.data": None,
    "random": frozenset({"manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state",
                         "default_generator", "fork_rng"}),
    "linalg": None,
    "special": None,
    "sparse": None,
    "fft": None,
    "cuda": None,
    "backends": None,
    "backends.mps": None,
    "backends.cudnn": None,
    "backends.mha": None,
    "distributions": None,
    "distributions.constraints": None,
    "distributions.kl": frozenset({"kl_divergence", "register_kl"}),
    "distributions.distribution": None,
    "distributions.exp_family": None,
    "distributions.normal": None,
    "distributions.bernoulli": None,
    "distributions.categorical": None,
    "distributions.uniform": None,
    "distributions.exponential": None,
    "distributions.laplace": None,
    "distributions.multivariate_normal": None,
    "distributions.one_hot_categorical": None,
    "distributions.independent": None,
    "distributions.gamma": None,
    "distributions.beta": None,
    "distributions.dirichlet": None,
    "func": None,
}
ALLOWED_SUBMODULES = frozenset(k for k in SUBMODULE_NAMES if k)
# Extra top-level names taken from engine submodules (PyTorch has them on `torch`).
TOP_LEVEL_EXTRAS = {"is_anomaly_enabled": "autograd.anomaly_mode",
                    "is_anomaly_check_nan_enabled": "autograd.anomaly_mode"}
# Values from these modules are never facade entries (`from __future__ import annotations`, typing).
_NOT_EXPORTED_MODULES = frozenset({"typing", "__future__", "typing_extensions", "collections.abc"})
# nn.Module methods that register a name served by Module.__getattr__, and the value type each takes.
MODULE_REGISTRATION = {"register_buffer": "Tensor", "register_parameter": "Parameter",
                       "add_module": "Module", "register_module": "Module"}
# Methods that apply a snippet's dict to an object's __dict__ (optimizers and LR schedulers): the dict is
# checked first (see check_state_dict), since NumPy reads `__array_interface__` from an instance dict.
STATE_LOADING = "load_state_dict"
# An optimizer's load_state_dict pre-hooks run after that check and may change or replace the dict: what each
# hook leaves is checked again.
STATE_LOADING_HOOK = "register_load_state_dict_pre_hook"
# Engine classes a snippet may name and test against but not instantiate (PyTorch refuses them too):
# a dtype made from any NumPy dtype would put object arrays inside tensors.
NOT_CONSTRUCTIBLE = frozenset({"dtype", "Node", "AccumulateGrad"})
# Engine classes whose public attributes go beyond PyTorch's API (helpers the engine calls itself, such
# as Generator.uniform(n, low, high, dtype)): a snippet sees only PyTorch's names.
ENGINE_CLASS_ATTRS = {
    "Generator": frozenset({"device", "get_state", "set_state", "manual_seed", "seed", "initial_seed"}),
    "finfo": frozenset({"bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"}),
    "iinfo": frozenset({"bits", "max", "min", "dtype"}),
    "memory_format": frozenset(),
}
# The same for engine classes a snippet reaches without naming them, by module: a node's
# `_raw_saved_<slot>` is a SavedTensor, whose slots (`tensor`, `packed`) bypass the version check and hold
# the hooks' closures.
ENGINE_MODULE_CLASS_ATTRS = {"node": {"SavedTensor": frozenset({"register_hooks"})}}
# Engine functions returning the class of their argument (PyTorch returns the class itself): a snippet gets
# the name tag type() gives, never the class (for a class argument that is the metaclass `type`, which makes
# classes past build_class: one with an `__array_interface__` NumPy would read memory through).
CLASS_RETURNING = frozenset({("nn.utils.parametrize", "type_before_parametrizations")})
# Tensor attributes that are read-only in PyTorch (a foreign grad_fn would reach the executor).
TENSOR_READ_ONLY = frozenset({"grad_fn"})
def _class_attribute(tp: type, name: str) -> Any:
    """What `name` is on class tp (looked up without running descriptors), or None."""
    for klass in tp.__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    return None


# Plain values a state dict may hold (and tensors, and lists, tuples and dicts of them).
_PLAIN_TYPES = (type(None), bool, int, float, complex, str)
_PLAIN_DICTS = (dict, collections.OrderedDict, collections.defaultdict, collections.Counter)
_MAX_STATE_DEPTH = 32
# Names never exposed by a facade or through an attribute, whatever object holds them.
DENIED_NAMES = frozenset({"numpy", "np", "from_numpy", "observe", "ctypes", "tofile", "dump", "dumps",
                          "data_ptr_array", "storage", "untyped_storage"})
# Public API of graph nodes (grad_fn objects); `_saved_<slot>` and `_sequence_nr` are added by rule.
NODE_ATTRS = frozenset({"name", "next_functions", "metadata", "register_hook", "register_prehook",
                        "variable", "saved_tensors", "needs_input_grad"})
TENSOR_PRIVATE_ATTRS = frozenset({"_version", "_is_view", "_base", "_nnz"})
# `acts.__setitem__` as a hook callback: item access methods of the snippet's own plain containers.
CONTAINER_ITEM_METHODS = frozenset({"__getitem__", "__setitem__"})


def _snippet_container(base: type) -> type:
    """A subclass of `base` that only `import collections` hands out: the snippet may write into containers
    it made itself, never into the engine's (an optimizer's `state` is a defaultdict)."""
    cls = type(base.__name__, (base,), {"__slots__": (), "__module__": "collections"})
    cls.__qualname__ = base.__qualname__
    return cls


# `import collections`: OrderedDict (to build nn.Sequential with names); its instances are read-only.
# defaultdict, Counter and deque: containers the snippet fills itself (its own, see _snippet_container; their
# methods are read on instances only: `Counter.update(d, ...)` would write into any dict, a state dict's too).
COLLECTIONS_NAMES = {"OrderedDict": collections.OrderedDict, "defaultdict": _snippet_container(collections.defaultdict),
                     "Counter": _snippet_container(collections.Counter), "deque": _snippet_container(collections.deque)}
_SNIPPET_CONTAINERS = (COLLECTIONS_NAMES["defaultdict"], COLLECTIONS_NAMES["Counter"], COLLECTIONS_NAMES["deque"])
NODE_PRIVATE_ATTRS = frozenset({"_sequence_nr"})
# Private functions of torch modules that tutorials call (`nn.init._calculate_fan_in_and_fan_out(w)`).
MODULE_PRIVATE_FUNCTIONS = {"nn.init": ("_calculate_fan_in_and_fan_out", "_calculate_correct_fan")}
FACADE_PRIVATE_NAMES = frozenset(n for names in MODULE_PRIVATE_FUNCTIONS.values() for n in names)

_STR_METHODS = frozenset("""capitalize casefold center count encode endswith expandtabs find index
isalnum isalpha isascii isdecimal isdigit isidentifier islower isnumeric isprintable isspace istitle
isupper join ljust lower lstrip partition removeprefix removesuffix replace rfind rindex rjust
rpartition rsplit rstrip split splitlines startswith strip swapcase title translate upper zfill
maketrans format""".split())
_BYTES_METHODS = frozenset("decode hex count find index startswith endswith".split())
_NUM_ATTRS = frozenset("real imag conjugate bit_length bit_count as_integer_ratio is_integer "
                       "numerator denominator hex fromhex".split())
_LIST_METHODS = frozenset("append clear copy count extend index insert pop remove reverse sort".split())
_DICT_METHODS = frozenset("clear copy fromkeys get items keys pop popitem setdefault update values".split())
_SET_METHODS = frozenset("""add clear copy difference difference_update discard intersection
intersection_update isdisjoint issubset issuperset pop remove symmetric_difference
symmetric_difference_update union update""".split())

# Methods that change their object: called unbound (`dict.update(d, ...)`), only on an exact dict,
# list or set.
_MUTATING_METHODS: dict[type, frozenset[str]] = {
    dict: frozenset("clear pop popitem setdefault update".split()),
    list: frozenset("append clear extend insert pop remove reverse sort".split()),
    set: frozenset("add clear difference_update discard intersection_update pop remove "
                   "symmetric_difference_update update".split()),
}

_MEMORY_FILE_METHODS = frozenset("""read read1 readline readlines write writelines seek tell truncate getvalue
close closed flush readable writable seekable isatty""".split())
# `import io` gives only these (see Policy.io).
IO_NAMES = {"BytesIO": io.BytesIO, "StringIO": io.StringIO}
_INSTANCE_ONLY_CLASSES = frozenset(IO_NAMES.values()) | frozenset(_SNIPPET_CONTAINERS)  # attributes read on
# instances only

BUILTIN_TYPE_ATTRS: dict[type, frozenset[str]] = {
    str: _STR_METHODS,
    bytes: _BYTES_METHODS,
    int: _NUM_ATTRS,
    bool: _NUM_ATTRS,
    float: _NUM_ATTRS,
    complex: frozenset({"real", "imag", "conjugate"}),
    list: _LIST_METHODS,
    dict: _DICT_METHODS,
    set: _SET_METHODS,
    frozenset: _SET_METHODS & frozenset("copy difference intersection isdisjoint issubset issuperset "
                                        "symmetric_difference union".split()),
    tuple: frozenset({"count", "index"}),
    range: frozenset({"start", "stop", "step", "count", "index"}),
    slice: frozenset({"start", "stop", "step", "indices"}),
    type(None): frozenset(),
    # state_dict() returns one: reading is what tutorials do (writes stay refused, see check_setitem).
    collections.OrderedDict: frozenset({"get", "items", "keys", "values", "copy"}),
    # in-memory files (torch.save / torch.load): no getbuffer (a memoryview), readinto, fileno or detach
    io.BytesIO: _MEMORY_FILE_METHODS,
    io.StringIO: _MEMORY_FILE_METHODS | frozenset({"newlines", "line_buffering"}),
    COLLECTIONS_NAMES["defaultdict"]: _DICT_METHODS | frozenset({"default_factory"}),
    COLLECTIONS_NAMES["Counter"]: _DICT_METHODS | frozenset({"most_common", "elements", "subtract", "total"}),
    COLLECTIONS_NAMES["deque"]: frozenset("""append appendleft clear copy count extend extendleft index insert pop popleft
remove reverse rotate maxlen""".split()),
    # @property / @x.setter in a snippet's class
    property: frozenset({"setter", "getter", "deleter"}),
}

SAFE_EXCEPTIONS = (
    ArithmeticError, AssertionError, AttributeError, Exception, FloatingPointError, ImportError,
    IndexError, KeyError, LookupError, ModuleNotFoundError, NameError, NotImplementedError,
    OverflowError, RecursionError, RuntimeError, StopIteration, TypeError, UnboundLocalError,
    ValueError, ZeroDivisionError, Warning, UserWarning, DeprecationWarning, RuntimeWarning,
    FutureWarning, PendingDeprecationWarning,
)

_REFUSED_VALUE_TYPES = (types.ModuleType, types.FrameType, types.CodeType, types.TracebackType,
                        types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType,
                        types.CellType, types.MappingProxyType, types.GetSetDescriptorType,
                        types.MemberDescriptorType, types.WrapperDescriptorType, types.MethodWrapperType,
                        types.MethodDescriptorType, types.ClassMethodDescriptorType)


_WARNINGS_STARTED = "__gradstep_warnings_started__"
_RANDOM_FACADE = "__gradstep_random__"


def _refuse(message: str) -> PolicyError:
    return PolicyError(message)


def _is_numpy_type(tp: type) -> bool:
    mod = getattr(tp, "__module__", None) or ""
    return mod == "numpy" or mod.startswith("numpy.")


# Module flags a snippet may set, as reproducibility boilerplate does (`torch.backends.cudnn.deterministic = True`);
# they take plain booleans and change nothing on a CPU engine.
FACADE_FLAGS = {"torch.backends.cudnn": frozenset({"deterministic", "benchmark", "enabled", "allow_tf32"})}


class Facade:
    """A read-only, module-like namespace holding only allowed names (what `import torch` returns); only
    the FACADE_FLAGS of its module can be set, to booleans."""

    __slots__ = ("_Facade__name", "_Facade__attrs")

    def __init__(self, name: str, attrs: dict[str, Any]) -> None:
        object.__setattr__(self, "_Facade__name", name)
        object.__setattr__(self, "_Facade__attrs", dict(attrs))

    def __getattr__(self, name: str) -> Any:
        if name == "__name__":  # read by `from torch import missing` for its error message
            return self.__name
        try:
            return self.__attrs[name]
        except KeyError:
            raise AttributeError(f"module '{self.__name}' has no attribute '{name}'") from None

    def __setattr__(self, name: str, value: Any) -> None:
        if name in FACADE_FLAGS.get(self.__name, ()) and type(value) is bool:
            self.__attrs[name] = value
            return
        raise PolicyError(f"modules are read-only: cannot set '{self.__name}.{name}'")

    def __delattr__(self, name: str) -> None:
        raise PolicyError(f"modules are read-only: cannot delete '{self.__name}.{name}'")

    def __repr__(self) -> str:
        return f"<module '{self.__name}'>"

    def __reduce_ex__(self, protocol: Any) -> Any:  # copy.copy / copy.deepcopy, as for a module
        raise TypeError("cannot pickle 'module' object")

    def __dir__(self) -> list[str]:
        return sorted(self.__attrs)


def facade_get(f: Facade, name: str) -> Any:
    return f._Facade__attrs[name]  # type: ignore[attr-defined]


def facade_has(f: Facade, name: str) -> bool:
    return name in f._Facade__attrs  # type: ignore[attr-defined]


def facade_name(f: Facade) -> str:
    return f._Facade__name  # type: ignore[attr-defined]


class TypeName:
    """What the snippet's `type(x)` returns: a name tag, not the class (no constructors, no mro)."""

    __slots__ = ("_cls", "_shown")

    def __init__(self, cls: type, shown: str) -> None:
        object.__setattr__(self, "_cls", cls)
        object.__setattr__(self, "_shown", shown)

    def __setattr__(self, name: str, value: Any) -> None:
        raise PolicyError("type(...) results are read-only")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"cannot create '{self._shown}' instances")

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, TypeName):
            return self._cls is other._cls
        return self._cls is other

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(self._cls)

    def __repr__(self) -> str:
        return f"<class '{self._shown}'>"

    __str__ = __repr__

    def __copy__(self) -> "TypeName":  # copies of a class are the class itself
        return self

    def __deepcopy__(self, memo: Any) -> "TypeName":
        return self


class _Bound:
    """A callable handed to a snippet in place of an engine method (no attributes, fixed repr)."""

    __slots__ = ("_fn", "_shown")

    def __init__(self, fn: Callable[..., Any], shown: str) -> None:
        object.__setattr__(self, "_fn", fn)
        object.__setattr__(self, "_shown", shown)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._fn(*args, **kwargs)

    def __setattr__(self, name: str, value: Any) -> None:
        raise PolicyError("methods are read-only")

    def __repr__(self) -> str:
        return self._shown

    def __copy__(self) -> "_Bound":  # copies of a builtin function are the function itself
        return self

    def __deepcopy__(self, memo: Any) -> "_Bound":
        return self


class _PrintFunction(_Bound):
    """The snippet's `print` as a value: named and shown as Python's builtin (`print.__name__`, `print(print)`)."""

    __slots__ = ()
    __name__ = "print"


class _WriteProxy:
    """What `_write_(obj)` returns for objects whose attribute writes are checked."""

    __slots__ = ("_obj", "_policy")

    def __init__(self, obj: Any, policy: "Policy") -> None:
        object.__setattr__(self, "_obj", obj)
        object.__setattr__(self, "_policy", policy)

    def __setattr__(self, name: str, value: Any) -> None:
        self._policy.check_setattr(self._obj, name)
        setattr(self._obj, name, value)

    def __delattr__(self, name: str) -> None:
        self._policy.check_setattr(self._obj, name)
        delattr(self._obj, name)

    def __setitem__(self, key: Any, value: Any) -> None:
        self._policy.check_setitem(self._obj, key)
        self._obj[key] = value

    def __delitem__(self, key: Any) -> None:
        self._policy.check_setitem(self._obj, key)
        del self._obj[key]


class _PrintCollector:
    """Target of RestrictedPython's print rewrite: `print(...)` calls `write(text)` once per call with
    exactly what Python's print would output; over the output cap it raises OutputLimitExceeded."""

    def __init__(self, write: Callable[[str], None], max_chars: int) -> None:
        self._write = write
        self._max = max_chars
        self._count = 0
        # what the snippet's `print` is (RestrictedPython reads `_print._call_print`): it shows as Python's print
        self._call_print = _PrintFunction(self._print, "<built-in function print>")

    def __call__(self, _getattr_: Any = None) -> "_PrintCollector":
        return self

    # The snippet's `print` is a method of this collector: copying it must not copy the collector (a copy
    # would count its output apart from the run's).
    def __copy__(self) -> "_PrintCollector":
        return self

    def __deepcopy__(self, memo: Any) -> "_PrintCollector":
        return self

    def _print(self, *objects: Any, sep: str | None = " ", end: str | None = "\n",
               file: Any = None, flush: bool = False) -> None:
        if file is not None:
            raise PolicyError("print(file=...) is not allowed")
        if sep is None:
            sep = " "
        if end is None:
            end = "\n"
        if type(sep) is not str:
            raise TypeError(f"sep must be None or a string, not {type(sep).__name__}")
        if type(end) is not str:
            raise TypeError(f"end must be None or a string, not {type(end).__name__}")
        text = sep.join([str(o) for o in objects]) + end
        self._count += len(text)
        if self._count > self._max:
            raise OutputLimitExceeded(
                f"the run was stopped: output limit ({self._max:,} characters) exceeded", "output")
        self._write(text)


def _name_of(obj: Any) -> str:
    """`obj.__name__` for a snippet: only ever a string (classes, functions, methods, modules)."""
    value = getattr(obj, "__name__", None)
    if type(value) is not str:
        raise AttributeError(f"'{type(obj).__name__}' object has no attribute '__name__'")
    return value


def _safe_format(template: str, *args: Any, **kwargs: Any) -> str:
    from .compiler import _format_fields

    for field in _format_fields(template):
        if format_field_is_unsafe(field):
            raise PolicyError(f"attribute or index access inside format strings is not allowed: {{{field}}}")
    return template.format(*args, **kwargs)


def _unbound_safe_format(self: str, *args: Any, **kwargs: Any) -> str:
    if type(self) is not str:
        raise TypeError("descriptor 'format' requires a 'str' object")
    return _safe_format(self, *args, **kwargs)


# nn containers whose keys become names on the module: ModuleDict and Sequential(OrderedDict) keys go through
# add_module (served by Module.__getattr__), ParameterDict keys through __setitem__ (instance attributes for
# values other than tensors, where NumPy would read an `__array_interface__` dict).
CHECKED_CONTAINERS = {"ModuleDict": "add_module", "Sequential": "add_module", "ParameterDict": "__setitem__"}


def _checked_container(base: type, method: str) -> type:
    """An nn container as a snippet gets it: `method`, which every key goes through (the constructor and
    update included), refuses names starting with '_', as add_module does for snippets."""
    original = getattr(base, method)

    def checked(self: Any, key: Any, *args: Any, **kwargs: Any) -> Any:
        if type(key) is str and key.startswith("_"):
            raise PolicyError(f"{base.__name__}: names starting with '_' are not allowed: {key!r}")
        return original(self, key, *args, **kwargs)

    return type(base.__name__, (base,), {method: checked, "__module__": base.__module__,
                                         "__qualname__": base.__qualname__, "__doc__": base.__doc__})


def _exact_self(method: Any, cls: type) -> "_Bound":
    """`dict.update` and friends called unbound: only on a real dict (list, set), never on a subclass
    whose writes the guards refuse (an OrderedDict from state_dict, an optimizer's state)."""
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        if type(self) is not cls:
            raise TypeError(f"descriptor '{method.__name__}' for '{cls.__name__}' objects needs a "
                            f"'{cls.__name__}' here, not '{type(self).__name__}'")
        return method(self, *args, **kwargs)

    return _Bound(call, f"<method '{method.__name__}' of '{cls.__name__}' objects>")


_INPLACE = {
    "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
    "%=": operator.imod, "**=": operator.ipow, "<<=": operator.ilshift, ">>=": operator.irshift,
    "|=": operator.ior, "^=": operator.ixor, "&=": operator.iand, "//=": operator.ifloordiv,
    "@=": operator.imatmul,
}


def _inplacevar_(op: str, x: Any, y: Any) -> Any:
    try:
        fn = _INPLACE[op]
    except KeyError:
        raise PolicyError(f"operator {op!r} is not allowed") from None
    return fn(x, y)


def _apply_(f: Callable, *args: Any, **kwargs: Any) -> Any:
    """Calls with `*args` / `**kwargs`: keyword names from a `**` mapping follow the compile-time rule for
    written ones (an engine constructor that sets its keywords as attributes would take `__array_interface__`)."""
    for key in kwargs:
        if key[:1] == "_":
            raise PolicyError(f"keyword arguments starting with '_' are not allowed: {key!r}")
    return f(*args, **kwargs)


class Policy:
    """The run-time guards for one engine module (cached per module; stateless across runs apart
    from the registry of snippet-defined classes, which dies with the run's process)."""

    def __init__(self, torch_module: types.ModuleType) -> None:
        self.torch_module = torch_module
        self.engine_prefix = torch_module.__name__.split(".")[0]
        self.user_classes: "weakref.WeakSet[type]" = weakref.WeakSet()
        self.plain_classes: "weakref.WeakSet[type]" = weakref.WeakSet()  # no engine class among their bases
        self.checked_classes: set[type] = set()  # facade classes that check what their engine base allows
        self._tensor_cls = getattr(torch_module, "Tensor", None)
        self._parameter_cls = getattr(torch_module, "Parameter", None) or getattr(
            getattr(torch_module, "nn", None), "Parameter", None)
        node_mod = sys.modules.get(f"{self.engine_prefix}.node")
        self._node_cls = getattr(node_mod, "Node", None) if node_mod else None
        function_mod = sys.modules.get(f"{self.engine_prefix}.autograd.function")
        self._custom_node_cls = getattr(function_mod, "CustomNode", None) if function_mod else None
        autograd = getattr(torch_module, "autograd", None)
        nn = getattr(torch_module, "nn", None)
        self.function_base = getattr(autograd, "Function", None)
        self.module_base = getattr(nn, "Module", None)
        data = self._engine_module("utils.data")
        data_bases = tuple(getattr(data, n, None) for n in ("Dataset", "IterableDataset", "Sampler"))
        self.class_bases = tuple(c for c in (self.function_base, self.module_base, *data_bases)
                                 if isinstance(c, type))
        optim = self._engine_module("optim")
        schedulers = self._engine_module("optim.lr_scheduler")
        loaders = (getattr(optim, "Optimizer", None), getattr(schedulers, "LRScheduler", None))
        self.state_loaders = tuple(c for c in loaders if isinstance(c, type))
        self._scheduler_base = getattr(schedulers, "LRScheduler", None)
        self.allowlists = {cls: names for name, names in ENGINE_CLASS_ATTRS.items()
                           if isinstance(cls := getattr(torch_module, name, None), type)}
        for rel, classes in ENGINE_MODULE_CLASS_ATTRS.items():
            module = sys.modules.get(f"{self.engine_prefix}.{rel}")
            self.allowlists.update((cls, names) for name, names in classes.items()
                                   if isinstance(cls := getattr(module, name, None), type))
        self.facades = self._build_facades()
        self.torch = self.facades["torch"]
        # the importable modules besides torch (compiler.SINGLE_MODULE_ROOTS), each a facade
        self.copy_as_is: list[Any] = [self]  # see below
        self.modules = {
            "math": Facade("math", {n: getattr(math, n) for n in dir(math) if not n.startswith("_")}),
            "warnings": Facade("warnings", warnfacade.facade_attrs()),
            "numpy": self._numpy_facade(),
            "io": Facade("io", IO_NAMES),
            "collections": Facade("collections", COLLECTIONS_NAMES),
            "copy": Facade("copy", stdfacade.copy_attrs(self.check_value, self.copy_as_is)),
            "itertools": Facade("itertools", stdfacade.itertools_attrs()),
            "functools": Facade("functools", stdfacade.functools_attrs()),
            "time": Facade("time", stdfacade.time_attrs()),
            "typing": Facade("typing", stdfacade.typing_attrs()),
        }
        self._kind_cache: dict[type, Any] = {}
        self._value_cache: dict[type, str] = {}
        self._exposed_names = self._index_exposed()
        self.safe_builtin_ids = set()  # filled by builtins_dict()
        self.builtins = self.builtins_dict()
        # what copy.copy / copy.deepcopy hand back as they are: the guards (the snippet's `type` is a method of
        # this Policy, which a deep copy of the method would copy) and the builtins, as copy does with builtins
        self.copy_as_is.extend(self.builtins.values())
        # the stdlib facades' C functions (time.time, functools.reduce) stay callable when read back from a
        # snippet's containers, as math's do
        self.safe_builtin_ids |= {id(v) for f in self.modules.values() if facade_name(f) in stdfacade.MODULES
                                  for n in dir(f) if type(v := facade_get(f, n)) is types.BuiltinFunctionType}

    # -- facades --------------------------------------------------------------------------------
    def _engine_module(self, rel: str) -> types.ModuleType | None:
        if not rel:
            return self.torch_module
        name = f"{self.torch_module.__name__}.{rel}"
        try:
            module = importlib.import_module(name)
        except ImportError:
            return None
        return module if module.__name__.startswith(self.engine_prefix) else None

    def _public_values(self, module: types.ModuleType, rel: str) -> dict[str, Any]:
        names = SUBMODULE_NAMES.get(rel)
        if names is None:
            names = getattr(module, "__all__", None)
        if names is None:
            names = [n for n in dir(module) if not n.startswith("_")]
        attrs: dict[str, Any] = {}
        for name in names:
            if not isinstance(name, str) or name.startswith("_") or name in DENIED_NAMES:
                continue
            try:
                value = getattr(module, name)
            except Exception:
                continue
            if isinstance(value, types.ModuleType) or self._value_kind_static(value) != "ok":
                continue
            if name in CHECKED_CONTAINERS and rel == "nn" and isinstance(value, type):
                value = _checked_container(value, CHECKED_CONTAINERS[name])
                self.checked_classes.add(value)
            if name in NOT_CONSTRUCTIBLE and isinstance(value, type) and self.is_engine_class(value):
                value = TypeName(value, "torch." + (f"{rel}." if rel else "") + name)
            if (rel, name) in CLASS_RETURNING:
                value = _Bound(self._class_tags(value), f"<function {name}>")
            attrs[name] = value
        return attrs

    def _build_facades(self) -> dict[str, Facade]:
        """One read-only facade per importable torch (sub)module, children before parents."""
        modules = {rel: m for rel in SUBMODULE_NAMES if (m := self._engine_module(rel)) is not None}
        facades: dict[str, Facade] = {}
        for rel in sorted(modules, key=lambda r: -r.count(".") if r else 1):
            module = modules[rel]
            attrs = self._public_values(module, rel)
            attrs.update((name, getattr(module, name)) for name in MODULE_PRIVATE_FUNCTIONS.get(rel, ()))
            if not rel:
                for name, sub in TOP_LEVEL_EXTRAS.items():
                    if sub in modules and hasattr(modules[sub], name):
                        attrs[name] = getattr(modules[sub], name)
                attrs["from_numpy"] = _Bound(self.from_numpy, "<built-in method from_numpy of type object>")
            prefix = f"{rel}." if rel else ""
            for child_rel, child in facades.items():
                child_rel = child_rel[len("torch."):]
                if child_rel.startswith(prefix) and "." not in child_rel[len(prefix):]:
                    short = child_rel[len(prefix):]
                    engine_value = getattr(module, short, None)
                    if engine_value is None or isinstance(engine_value, types.ModuleType):
                        attrs[short] = child
            facades["torch" + (f".{rel}" if rel else "")] = Facade("torch" + (f".{rel}" if rel else ""), attrs)
        return facades

    def _value_kind_static(self, value: Any) -> str:
        tp = type(value)
        if _is_numpy_type(tp) or isinstance(value, _REFUSED_VALUE_TYPES):
            return "refuse"
        if isinstance(value, type) and (_is_numpy_type(value) or issubclass(value, type)):
            return "refuse"  # NumPy classes; metaclasses would create classes past build_class
        if (getattr(tp, "__module__", None) in _NOT_EXPORTED_MODULES
                or getattr(value, "__module__", None) in _NOT_EXPORTED_MODULES):
            return "refuse"
        if isinstance(value, (types.BuiltinFunctionType,)):
            owner = getattr(value, "__self__", None)
            if isinstance(owner, types.ModuleType) or owner is None:
                mod = getattr(value, "__module__", None) or ""
                if mod != "math":
                    return "refuse"
        return "ok"

    def _index_exposed(self) -> dict[type, str]:
        shown: dict[type, str] = {cls: f"collections.{cls.__name__}" for cls in _SNIPPET_CONTAINERS}
        for path, f in sorted(self.facades.items(), key=lambda kv: -len(kv[0])):
            for name in dir(f):
                v = facade_get(f, name)
                if isinstance(v, TypeName):
                    v = v._cls
                if isinstance(v, type):
                    shown[v] = f"{path}.{name}"
        shown[np.ndarray] = "numpy.ndarray"
        shown[HookDict] = "collections.OrderedDict"
        shown[_Bound] = shown[_PrintFunction] = "builtin_function_or_method"  # print, getattr, setattr...
        for cls in IO_NAMES.values():
            shown[cls] = f"{cls.__module__}.{cls.__qualname__}"  # _io.BytesIO, as Python names it
        for f in self.modules.values():
            for name in dir(f):
                v = facade_get(f, name)
                if isinstance(v, type) and facade_name(f) in stdfacade.MODULES:
                    shown[v] = f"{v.__module__}.{v.__qualname__}"  # itertools.chain, functools.partial
        return shown

    def guarded_import(self, name: str, globals: Any = None, locals: Any = None,
                       fromlist: Any = (), level: int = 0) -> Any:
        if level:
            raise ImportError("relative imports are not allowed")
        if type(name) is str and name.startswith("numpy.") and name in sys.modules:
            # NumPy's C code imports its own helpers lazily (array repr, dtype comparison) through the
            # current frame's __import__, which inside a snippet is this one. PyImport_Import drops
            # what __import__ returns and reads sys.modules itself, so nothing is handed out here;
            # a snippet's own `import numpy...` never gets this far (refused at compile time).
            return None
        if name == "random":
            module = self._run_random(globals)
        elif name in self.modules:
            module = self.modules[name]
            if name == "warnings" and type(globals) is dict and not globals.get(_WARNINGS_STARTED):
                globals[_WARNINGS_STARTED] = True  # once per run: a snippet's globals are fresh
                warnfacade.start_run()
        elif name in self.facades:
            module = self.facades[name] if fromlist else self.torch
        else:
            if name.split(".")[0] in ALLOWED_IMPORT_ROOTS:
                raise ModuleNotFoundError(f"No module named '{name}' (not available in gradstep)")
            raise ImportError(f"import of '{name}' is not allowed: {IMPORTS_ALLOWED}")
        for item in fromlist or ():
            # checked here: for a name the facade lacks, `from m import x` would fall back to
            # sys.modules["<m.__name__>.x"], which is the real module of that name
            if type(item) is not str or not facade_has(module, item):
                raise ImportError(f"cannot import name {item!r} from {facade_name(module)!r} (unknown location)")
        return module

    def _run_random(self, globals: Any) -> Facade:
        """`import random`: one generator per run (kept in the snippet's globals, fresh for each run)."""
        module = globals.get(_RANDOM_FACADE) if type(globals) is dict else None
        if type(module) is not Facade:
            module = Facade("random", stdfacade.random_attrs(self.check_value, self.check_setitem))
            if type(globals) is dict:
                globals[_RANDOM_FACADE] = module
        return module

    # -- NumPy and nn.Module capabilities ----------------------------------------------------------
    def _numpy_facade(self) -> Facade:
        """`import numpy`: the allowlisted functions of npfacade.py; tensors go in as fresh copies."""
        def to_array(value: Any) -> np.ndarray | None:
            if self._tensor_cls is not None and isinstance(value, self._tensor_cls):
                return self.tensor_numpy(value)()
            return None

        limit = npsizes.limit_from(sys.modules.get(f"{self.engine_prefix}.observe"))  # the tracer's Limits
        top, linalg = npfacade.facade_attrs(to_array, limit)
        top["linalg"] = Facade("numpy.linalg", linalg)
        top["ndarray"] = TypeName(np.ndarray, "numpy.ndarray")
        return Facade("numpy", top)

    def from_numpy(self, array: Any) -> Any:
        """torch.from_numpy for a snippet's own numeric array (shares its memory, as in PyTorch)."""
        if type(array) is not np.ndarray:
            raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
        if not arrays.is_plain_array(array) or array.dtype.kind == "c":
            raise TypeError(f"can't convert np.ndarray of type numpy.{array.dtype.name}. The only supported "
                            "types are: float64, float32, float16, int64, int32, int16, int8, uint8, and bool.")
        return self.torch_module.from_numpy(array)

    def tensor_numpy(self, tensor: Any) -> "_Bound":
        """What `t.numpy` gives a snippet: PyTorch's checks and errors, then a view sharing the tensor's memory
        (writes show in the tensor, as in PyTorch); see arrays.py for why a view is safe to hand out."""
        def numpy(*, force: bool = False) -> np.ndarray:
            return arrays.shared_view(tensor.numpy(force=bool(force)))

        return _Bound(numpy, "<built-in method numpy of Tensor object>")

    def hook_dict(self, module: Any, name: str) -> HookDict:
        """`m._forward_hooks` and the other hook dicts of a module, as a snippet reads them (hookdicts.py)."""
        hooks = getattr(module, name)
        if type(hooks) is not collections.OrderedDict:
            raise PolicyError(f"names starting with '_' are not allowed: {name!r}")
        return HookDict(hooks, self.check_value)

    def module_registration(self, method: Callable, name: str) -> Callable[..., Any]:
        expected = MODULE_REGISTRATION[name]

        def register(key: Any, value: Any, *args: Any, **kwargs: Any) -> Any:
            if type(key) is not str:
                raise TypeError(f"{name}() name should be a string. Got {type(key).__name__}")
            if key.startswith("_") or "." in key or not key:
                raise PolicyError(f"{name}(): names starting with '_', empty names and names with '.' "
                                  f"are not allowed: {key!r}")
            if value is not None and not self._registration_type_ok(value, expected):
                raise TypeError(f"cannot assign '{type(value).__name__}' object to {name}() "
                                f"({expected} or None required)")
            return method(key, value, *args, **kwargs)

        return _Bound(register, f"<bound method Module.{name}>")

    def state_loading(self, method: Callable, owner: Any) -> "_Bound":
        """What `opt.load_state_dict` / `scheduler.load_state_dict` gives a snippet: the state dict is
        checked (check_state_dict), then loaded by the engine."""
        def load_state_dict(state_dict: Any, *args: Any, **kwargs: Any) -> Any:
            self.check_state_dict(owner, state_dict)
            return method(state_dict, *args, **kwargs)

        return _Bound(load_state_dict, f"<bound method {type(owner).__name__}.load_state_dict>")

    def state_loading_hook(self, method: Callable, owner: Any) -> "_Bound":
        """What `opt.register_load_state_dict_pre_hook` gives a snippet: the dict each hook leaves (changed in
        place or returned) is checked as load_state_dict checks its argument."""
        def register(hook: Any, *args: Any, **kwargs: Any) -> Any:
            if not callable(hook):
                return method(hook, *args, **kwargs)

            def checked(optimizer: Any, state_dict: Any) -> Any:
                out = hook(optimizer, state_dict)
                self.check_state_dict(owner, state_dict if out is None else out)
                return out

            return method(checked, *args, **kwargs)

        return _Bound(register, f"<bound method {type(owner).__name__}.{STATE_LOADING_HOOK}>")

    def check_state_dict(self, owner: Any, state: Any) -> None:
        """A state dict for an optimizer or a scheduler holds plain data only (numbers, strings, None,
        tensors, and lists, tuples and dicts of them) with no '__' keys. A scheduler copies its state
        into its own __dict__ (and its lr_lambdas' __dict__), so there every top-level key must also
        name an attribute the scheduler already has."""
        what = f"{type(owner).__name__}.load_state_dict()"
        if type(state) not in _PLAIN_DICTS:
            raise TypeError(f"{what} expects a dict, not {type(state).__name__}")
        self._check_plain(state, what)
        sched = self._scheduler_base
        if isinstance(sched, type) and isinstance(owner, sched):
            own = vars(owner)
            for key in state:
                if key not in own:
                    raise PolicyError(f"{what}: {key!r} is not an attribute of this scheduler")

    def _check_plain(self, root: Any, what: str) -> None:
        stack = [(root, 0)]
        while stack:
            value, depth = stack.pop()
            tp = type(value)
            if tp in _PLAIN_TYPES or (self._tensor_cls is not None and isinstance(value, self._tensor_cls)):
                continue
            if depth >= _MAX_STATE_DEPTH:
                raise PolicyError(f"{what}: the state dict is nested too deeply")
            if tp in (list, tuple):
                stack.extend((v, depth + 1) for v in value)
            elif tp in _PLAIN_DICTS:
                for key, v in value.items():
                    if type(key) is str and key.startswith("__"):
                        raise PolicyError(f"{what}: keys starting with '__' are not allowed: {key!r}")
                    stack.append((key, depth + 1))
                    stack.append((v, depth + 1))
            else:
                raise PolicyError(f"{what}: a state dict may hold only numbers, strings, None, tensors and "
                                  f"lists, tuples and dicts of them, not {tp.__name__}")

    def _registration_type_ok(self, value: Any, expected: str) -> bool:
        if expected == "Module":
            return isinstance(self.module_base, type) and isinstance(value, self.module_base)
        if expected == "Parameter":
            return isinstance(self._parameter_cls, type) and isinstance(value, self._parameter_cls)
        return isinstance(self._tensor_cls, type) and isinstance(value, self._tensor_cls)

    # -- classification --------------------------------------------------------------------------
    def is_engine_class(self, cls: type) -> bool:
        mod = getattr(cls, "__module__", "") or ""
        if mod == "torch" or mod.startswith("torch."):
            # an engine class carrying PyTorch's module name (forward_ad's UnpackedDualTensor), never
            # a class of real PyTorch, should that be loaded in this process
            return getattr(sys.modules.get(mod), cls.__name__, None) is not cls and cls not in self.user_classes
        return (mod == self.engine_prefix or mod.startswith(self.engine_prefix + ".")) \
            and cls not in self.user_classes

    def _is_user_class(self, cls: type) -> bool:
        try:
            return cls in self.user_classes
        except TypeError:
            return False

    def _instance_kind(self, tp: type) -> Any:
        """How attribute reads on instances of `tp` are decided (cached per type)."""
        kind = self._kind_cache.get(tp)
        if kind is not None:
            return kind
        if tp in BUILTIN_TYPE_ATTRS:
            kind = ("set", BUILTIN_TYPE_ATTRS[tp])
        elif tp is Facade:
            kind = ("facade",)
        elif tp is TypeName:
            kind = ("typename",)
        elif tp is super:
            kind = ("super",)
        elif tp is np.ndarray:
            kind = ("ndarray",)
        elif issubclass(tp, np.generic):
            kind = ("npscalar",)
        elif issubclass(tp, np.dtype):
            kind = ("npdtype",)
        elif tp is HookDict:
            kind = ("set", HOOK_DICT_METHODS)
        elif tp is warnfacade.WarningMessage:
            kind = ("set", warnfacade.WARNING_MESSAGE_ATTRS)
        elif _is_numpy_type(tp) or tp in (arrays.ArrayMethod, npfacade.NumpyFunction, _Bound,
                                           warnfacade.catch_warnings):
            kind = ("set", frozenset())
        elif self._tensor_cls is not None and issubclass(tp, self._tensor_cls):
            names = frozenset(n for n in dir(tp) if not n.startswith("_")) - DENIED_NAMES
            kind = ("tensor", names)
        elif self._is_node_type(tp):
            if hasattr(tp, "save_for_backward"):
                kind = ("public",)  # a custom Function's ctx (PyTorch's ctx is its backward node)
            else:
                kind = ("node", NODE_ATTRS)
        elif issubclass(tp, BaseException):
            user = self._is_user_class(tp) or any(self._is_user_class(b) for b in tp.__mro__)
            kind = ("public",) if self.is_engine_class(tp) or user else ("set", frozenset({"args"}))
        elif self._is_user_class(tp) or any(self._is_user_class(b) for b in tp.__mro__):
            kind = ("public",)
        elif allowed := [names for cls, names in self.allowlists.items() if issubclass(tp, cls)]:
            kind = ("allow", allowed[0])  # (finfo and iinfo name their module builtins, as PyTorch's do)
        elif self.is_engine_class(tp):
            kind = ("public",)
        elif tp.__module__ == "math" or tp is types.BuiltinFunctionType:
            kind = ("set", frozenset())
        else:
            kind = ("set", frozenset())
        if not self._is_user_class(tp):
            self._kind_cache[tp] = kind
        return kind

    def _is_node_type(self, tp: type) -> bool:
        if self._node_cls is not None:
            return issubclass(tp, self._node_cls)
        return self.is_engine_class(tp) and hasattr(tp, "next_functions")

    def check_value(self, value: Any, owner: Any, name: str) -> Any:
        tp = type(value)
        verdict = self._value_cache.get(tp)
        if verdict is None:
            if tp is np.ndarray:
                verdict = "array"
            elif _is_numpy_type(tp) and issubclass(tp, np.dtype):
                verdict = "dtype"
            elif _is_numpy_type(tp):
                verdict = "scalar" if issubclass(tp, np.generic) else "refuse"
            elif issubclass(tp, _REFUSED_VALUE_TYPES):
                verdict = "refuse"
            elif tp is types.BuiltinFunctionType:
                verdict = "builtin"
            elif tp is type or isinstance(value, type):
                verdict = "class"
            else:
                verdict = "ok"
            if verdict != "class":
                self._value_cache[tp] = verdict
        if verdict == "ok":
            return value
        if verdict == "scalar":
            if arrays.is_plain_scalar(value) and isinstance(owner, (np.ndarray, np.generic)):
                return value  # a snippet's own NumPy number keeps printing like NumPy
            return value.item()
        if verdict == "array":
            if arrays.is_plain_array(value):
                # Views of a snippet's own arrays stay views; an engine object's array is copied.
                return value if isinstance(owner, np.ndarray) else arrays.fresh_copy(value)
        elif verdict == "dtype":
            if arrays.is_numeric_dtype(value):
                return value
        if verdict == "builtin":
            owner_obj = getattr(value, "__self__", None)
            if owner_obj is None or isinstance(owner_obj, types.ModuleType):
                if id(value) in self.safe_builtin_ids or getattr(value, "__module__", None) == "math":
                    return value
            elif not _is_numpy_type(type(owner_obj)) and not isinstance(owner_obj, _REFUSED_VALUE_TYPES):
                return value
        elif verdict == "class":
            if not _is_numpy_type(value) and not issubclass(value, type):
                return value
        raise PolicyError(f"'.{name}' is not allowed here: it would hand out an internal object "
                          f"({tp.__name__})")

    # -- the guards --------------------------------------------------------------------------------
    def getattr_(self, obj: Any, name: Any, *default: Any) -> Any:
        if type(name) is not str:
            raise PolicyError("attribute names must be strings")
        if isinstance(obj, type):
            return self._class_getattr(obj, name)
        kind = self._instance_kind(type(obj))
        k = kind[0]
        if name.startswith("_"):
            if name == "__name__":
                return obj._cls.__name__ if k == "typename" else _name_of(obj)
            if name == "__class__":  # the same name tag as type(obj)
                return self.type_(obj)
            if k == "tensor" and name in TENSOR_OPERATOR_METHODS:
                return getattr(obj, name)
            if k == "super" and name == "__init__":
                if isinstance(obj.__self__, type):  # super(C, C).__init__ would re-run __init__ on any object
                    raise PolicyError("super(...).__init__ is only allowed on an instance")
                if obj.__thisclass__ in self.checked_classes:  # the engine's __init__ is next: keep checking
                    return functools.partial(obj.__thisclass__.__init__, obj.__self__)
                return getattr(obj, name)
            if name in CONTAINER_ITEM_METHODS and type(obj) in (list, dict):
                return getattr(obj, name)
            if k == "tensor" and name in TENSOR_PRIVATE_ATTRS:
                return self.check_value(getattr(obj, name), obj, name)
            if k == "node" and (name.startswith(("_saved_", "_raw_saved_")) or name in NODE_PRIVATE_ATTRS):
                return self.check_value(getattr(obj, name), obj, name)
            if k == "public" and self._is_node_type(type(obj)) and name.startswith("_saved_"):
                return self.check_value(getattr(obj, name), obj, name)
            if name in HOOK_DICT_NAMES and k == "public" and self._is_module_type(type(obj)):
                return self.hook_dict(obj, name)
            if k == "facade" and name in FACADE_PRIVATE_NAMES:
                try:
                    return facade_get(obj, name)
                except KeyError:
                    raise AttributeError(f"module '{facade_name(obj)}' has no attribute '{name}'") from None
            raise PolicyError(f"names starting with '_' are not allowed: {name!r}")
        if k == "ndarray":
            return arrays.array_getattr(obj, name)
        if k == "npscalar":
            return arrays.scalar_getattr(obj, name)
        if k == "npdtype":
            return arrays.dtype_getattr(obj, name)
        if name == "numpy" and k == "tensor":
            return self.tensor_numpy(obj)
        if k == "facade" and name == "from_numpy":  # the policy's own wrapper (see from_numpy)
            return facade_get(obj, name)
        if name in DENIED_NAMES:
            raise PolicyError(f"'.{name}' is not allowed")
        if name in MODULE_REGISTRATION or name == STATE_LOADING or name == STATE_LOADING_HOOK:
            guarded = self._guarded_method(obj, k, name)
            if guarded is not None:
                return guarded
        if k == "set" or k == "tensor" or k == "node" or k == "allow":
            if name not in kind[1]:
                if k == "node" and self._is_custom_node(obj) and name in vars(obj.ctx):
                    # what the custom Function's forward stored on ctx (`ctx.k = k`; `grad_fn.k`)
                    return self.check_value(vars(obj.ctx)[name], obj, name)
                if k == "tensor" and name in getattr(obj, "__dict__", ()):  # the program's own (t.name = "w")
                    return self.check_value(obj.__dict__[name], obj, name)
                if not hasattr(type(obj), name):
                    raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'")
                raise PolicyError(f"'{type(obj).__name__}.{name}' is not allowed")
            if k == "set":
                if name == "format" and type(obj) is str:
                    return functools.partial(_safe_format, obj)
                return getattr(obj, name)
            return self.check_value(getattr(obj, name), obj, name)
        if k == "facade":
            try:
                return facade_get(obj, name)
            except KeyError:
                raise AttributeError(f"module '{facade_name(obj)}' has no attribute '{name}'") from None
        if k == "public" or k == "super":
            return self.check_value(getattr(obj, name), obj, name)
        raise PolicyError(f"'{type(obj).__name__}.{name}' is not allowed")

    def _is_custom_node(self, obj: Any) -> bool:
        return self._custom_node_cls is not None and isinstance(obj, self._custom_node_cls)

    def getattr_builtin(self, obj: Any, name: Any, *default: Any) -> Any:
        """The snippet's `getattr(obj, name[, default])`: the same checks as `obj.name`."""
        if len(default) > 1:
            raise TypeError(f"getattr expected at most 3 arguments, got {2 + len(default)}")
        if type(name) is not str:
            raise TypeError(f"attribute name must be string, not '{type(name).__name__}'")
        try:
            return self.getattr_(obj, name)
        except AttributeError:
            if default:
                return default[0]
            raise

    def setattr_builtin(self, obj: Any, name: Any, value: Any) -> None:
        """The snippet's `setattr(obj, name, value)`: the same checks as `obj.name = value`."""
        if type(name) is not str:
            raise TypeError(f"attribute name must be string, not '{type(name).__name__}'")
        setattr(self.write_(obj), name, value)

    def _has_guarded_method(self, cls: type, name: str) -> bool:
        """Is `name` a registration method of a module class or the state loader of an optimizer or
        scheduler class (methods snippets get only in their checked form, on an instance)?"""
        return (name in MODULE_REGISTRATION and self._is_module_type(cls)) or (
            name in (STATE_LOADING, STATE_LOADING_HOOK) and issubclass(cls, self.state_loaders) and hasattr(cls, name))

    def _guarded_method(self, obj: Any, kind: str, name: str) -> Any:
        """The checked wrapper for a registration or state-loading method read on an instance (also
        through `super(...)`), or None when `obj` has no such guarded method."""
        owner = obj.__self__ if kind == "super" else obj
        if not self._has_guarded_method(type(owner), name):
            return None
        if isinstance(owner, type):
            raise PolicyError(f"'{name}' is not allowed here (call it on an instance)")
        if name == STATE_LOADING:
            return self.state_loading(getattr(obj, name), owner)
        if name == STATE_LOADING_HOOK:
            return self.state_loading_hook(getattr(obj, name), owner)
        return self.module_registration(getattr(obj, name), name)

    def _class_getattr(self, cls: type, name: str) -> Any:
        if name == "__name__":
            return _name_of(cls)
        if name == "__class__":
            return self.type_(cls)
        if name.startswith("_"):
            raise PolicyError(f"names starting with '_' are not allowed: {name!r}")
        if name in DENIED_NAMES:
            raise PolicyError(f"'.{name}' is not allowed")
        if cls in BUILTIN_TYPE_ATTRS and cls is not type(None) and cls not in _INSTANCE_ONLY_CLASSES:
            if name not in BUILTIN_TYPE_ATTRS[cls]:
                raise PolicyError(f"'{cls.__name__}.{name}' is not allowed")
            if cls is str and name == "format":
                return _unbound_safe_format
            value = getattr(cls, name)
            if name in _MUTATING_METHODS.get(cls, ()):
                return _exact_self(value, cls)
            return value
        if self._is_user_class(cls) or self.is_engine_class(cls):
            if self._is_node_type(cls):
                raise PolicyError(f"'{cls.__name__}.{name}' is not allowed")
            if self._has_guarded_method(cls, name):
                raise PolicyError(f"'{cls.__name__}.{name}' is not allowed (call it on an instance)")
            for allowed_cls, names in self.allowlists.items():
                if issubclass(cls, allowed_cls) and name not in names:
                    raise PolicyError(f"'{cls.__name__}.{name}' is not allowed")
            if not any(name in vars(c) for c in cls.__mro__):
                # an attribute of the metaclass (`mro`): not the class's own API
                raise PolicyError(f"'{cls.__name__}.{name}' is not allowed")
            return self.check_value(getattr(cls, name), cls, name)
        if name in stdfacade.CLASS_ATTRS.get(cls, ()):
            return self.check_value(getattr(cls, name), cls, name)
        if cls in SAFE_EXCEPTIONS:
            raise PolicyError(f"'{cls.__name__}.{name}' is not allowed")
        raise PolicyError(f"'{getattr(cls, '__name__', '?')}.{name}' is not allowed")

    def getitem_(self, obj: Any, key: Any) -> Any:
        if type(obj) is np.ndarray:
            return arrays.item_of_array(obj, key)
        value = obj[key]
        tp = type(value)
        if self._value_cache.get(tp) == "ok":
            return value
        return self.check_value(value, obj, "[]")

    def getiter_(self, obj: Any) -> Any:
        return iter(obj)

    def write_(self, obj: Any) -> Any:
        tp = type(obj)
        if tp is list or tp is dict:
            return obj
        return _WriteProxy(obj, self)

    def check_setattr(self, obj: Any, name: Any) -> None:
        if type(name) is not str or name.startswith("_"):
            raise PolicyError(f"names starting with '_' are not allowed: {name!r}")
        if name in DENIED_NAMES:
            raise PolicyError(f"'.{name}' is not allowed")
        if isinstance(obj, type):
            if self._is_user_class(obj):
                return
            raise PolicyError(f"cannot set attributes of '{getattr(obj, '__name__', '?')}'")
        tp = type(obj)
        if self._tensor_cls is not None and isinstance(obj, self._tensor_cls):
            if name in TENSOR_READ_ONLY:
                raise AttributeError(f"attribute '{name}' of 'torch._C.TensorBase' objects is not writable")
            if not isinstance(_class_attribute(tp, name), (property, type(None))):
                # a program's own attributes are fine; one shadowing a method (x.tolist = print) is not
                raise PolicyError(f"cannot replace the tensor method '{name}'")
            return
        if self._is_user_class(tp) or any(self._is_user_class(b) for b in tp.__mro__):
            return
        if self.is_engine_class(tp) and (hasattr(tp, "save_for_backward") or self._is_module_type(tp)):
            return
        if tp is Facade:
            return  # Facade.__setattr__ decides (module flags only)
        raise PolicyError(f"cannot set attributes of '{tp.__name__}' objects")

    def _is_module_type(self, tp: type) -> bool:
        return isinstance(self.module_base, type) and issubclass(tp, self.module_base)

    def check_setitem(self, obj: Any, key: Any = None) -> None:
        tp = type(obj)
        if tp in (list, dict) or tp in _SNIPPET_CONTAINERS:
            return
        if type(key) is str and key.startswith("_") and self._is_module_type(tp):
            # ModuleDict registers its keys as attribute names served by Module.__getattr__
            raise PolicyError(f"names starting with '_' are not allowed: {key!r}")
        if self._tensor_cls is not None and isinstance(obj, self._tensor_cls):
            return
        if tp is HookDict:
            return  # it removes hooks and refuses new ones itself
        if tp is np.ndarray:
            if not arrays.is_plain_array(obj):
                raise PolicyError("only numeric NumPy arrays can be changed")
            return
        if self.is_engine_class(tp) or self._is_user_class(tp):
            return
        raise PolicyError(f"item assignment on '{tp.__name__}' objects is not allowed")

    def augattr_(self, obj: Any, name: str, op: str, value: Any) -> None:
        current = self.getattr_(obj, name)
        setattr(self.write_(obj), name, _inplacevar_(op, current, value))

    def augitem_(self, obj: Any, key: Any, op: str, value: Any) -> None:
        current = self.getitem_(obj, key)
        self.write_(obj)[key] = _inplacevar_(op, current, value)

    def build_class(self, name: str, bases: tuple, namespace: dict) -> type:
        """RestrictedPython's `__metaclass__`: plain classes, or subclasses of Function, nn.Module, a Dataset or
        Sampler, or of the snippet's own classes."""
        for base in bases:
            ok = isinstance(base, type) and (
                base is object or self._is_user_class(base) or base in SAFE_EXCEPTIONS
                or (self.is_engine_class(base) and any(issubclass(base, b) for b in self.class_bases)))
            if not ok:
                shown = base._shown if isinstance(base, TypeName) else getattr(base, "__name__", type(base).__name__)
                raise PolicyError(f"class {name}: deriving from {shown} is not allowed (only object, "
                                  "torch.autograd.Function, torch.nn.Module, torch.utils.data's "
                                  "Dataset, IterableDataset and Sampler, Exception and the built-in "
                                  "exceptions, and the snippet's own classes)")
        # A class of the snippet's own (no engine class among its bases) may define the learner special methods;
        # one deriving from an engine class (nn.Module, Function, Dataset...) only __init__ and the Dataset protocol.
        plain = all(base is object or base in SAFE_EXCEPTIONS or base in self.plain_classes for base in bases)
        for key in namespace:
            if key.startswith("_") and key not in CLASS_SPECIAL_METHODS and key not in (
                    "__module__", "__qualname__", "__classcell__", "__doc__"):
                raise PolicyError(f"class {name}: names starting with '_' are not allowed: {key!r}")
            if key in CLASS_SPECIAL_METHODS and key not in ENGINE_SUBCLASS_SPECIAL_METHODS and not plain:
                raise PolicyError(f"class {name}: defining {key!r} is not allowed in a class deriving from a "
                                  "PyTorch class (only __init__, __len__, __getitem__ and __iter__)")
        if "__exit__" in namespace:
            namespace = dict(namespace, __exit__=_limit_keeping_exit(namespace["__exit__"]))
        meta = type(bases[0]) if bases else type
        for b in bases[1:]:
            if issubclass(type(b), meta):
                meta = type(b)
        cls = meta(name, bases, namespace)
        self.user_classes.add(cls)
        if plain:
            self.plain_classes.add(cls)
        return cls

    def _class_tags(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """An engine function returning a class (the class of its argument), as a snippet gets it: the class
        comes back as the name tag type() gives, so the metaclass `type` or a class PyTorch does not let you
        instantiate never comes back raw."""
        def call(*args: Any, **kwargs: Any) -> Any:
            cls = fn(*args, **kwargs)
            return self.class_tag(cls) if isinstance(cls, type) else cls

        return call

    def type_(self, obj: Any, *rest: Any) -> TypeName:
        if rest:
            raise PolicyError("type() with three arguments (creating classes) is not allowed")
        return self.class_tag(type(obj))

    def class_tag(self, cls: type) -> TypeName:
        """The TypeName the snippet sees for the class `cls`."""
        if cls is TypeName or issubclass(cls, type):  # the type of a class
            return TypeName(type, "type")
        if cls is Facade:  # what `import torch` gave: a module, as far as the snippet can tell
            return TypeName(types.ModuleType, "module")
        shown = self._exposed_names.get(cls)
        if type(cls).__repr__ is not type.__repr__ and self.is_engine_class(cls):  # named as PyTorch names it
            shown = repr(cls)[len("<class '"):-len("'>")]
        if shown is None and _is_numpy_type(cls):
            shown = f"{cls.__module__}.{cls.__qualname__}"
        if shown is None:
            mod = getattr(cls, "__module__", "") or ""
            if self.is_engine_class(cls) or mod in ("builtins", "__main__") or self._is_user_class(cls):
                shown = cls.__qualname__ if mod == "builtins" else (
                    f"__main__.{cls.__qualname__}" if mod == "__main__" else cls.__name__)
            else:
                shown = cls.__name__
        return TypeName(cls, shown)

    def hasattr_(self, obj: Any, name: str) -> bool:
        try:
            self.getattr_(obj, name)
            return True
        except (AttributeError, PolicyError):
            return False

    def isinstance_(self, obj: Any, classinfo: Any) -> bool:
        return builtins.isinstance(obj, _unwrap_classinfo(classinfo))

    def issubclass_(self, cls: Any, classinfo: Any) -> bool:
        if isinstance(cls, TypeName):
            cls = cls._cls
        return builtins.issubclass(cls, _unwrap_classinfo(classinfo))

    # -- globals ----------------------------------------------------------------------------------
    def builtins_dict(self) -> dict[str, Any]:
        b: dict[str, Any] = {}
        for name in ("abs", "all", "any", "ascii", "bin", "bool", "callable", "chr", "complex", "dict",
                     "divmod", "enumerate", "filter", "float", "format", "frozenset", "hash", "hex", "id", "int",
                     "iter", "len", "list", "map", "max", "min", "next", "oct", "ord", "pow", "range",
                     "repr", "reversed", "round", "set", "slice", "sorted", "str", "sum", "tuple", "zip",
                     "staticmethod", "classmethod", "property", "super", "bytes", "object"):
            b[name] = getattr(builtins, name)
        for exc in SAFE_EXCEPTIONS:
            b[exc.__name__] = exc
        b["None"] = None
        b["True"] = True
        b["False"] = False
        b["NotImplemented"] = NotImplemented
        b["Ellipsis"] = Ellipsis
        b["type"] = self.type_
        b["hasattr"] = self.hasattr_
        b["getattr"] = _Bound(self.getattr_builtin, "<built-in function getattr>")
        b["setattr"] = _Bound(self.setattr_builtin, "<built-in function setattr>")
        b["isinstance"] = self.isinstance_
        b["issubclass"] = self.issubclass_
        b["__import__"] = self.guarded_import
        b["__build_class__"] = builtins.__build_class__  # class statements always pass metaclass=__metaclass__
        self.safe_builtin_ids = {id(v) for v in b.values()}
        return b


def _limit_keeping_exit(user_exit: Callable[..., Any]) -> Callable[..., Any]:
    """A snippet's `__exit__` as its class gets it: it never sees a traceback, and cannot swallow anything but
    an Exception (a sandbox limit is a BaseException, like the ones a bare `except:` must not catch)."""
    def __exit__(self: Any, exc_type: Any, exc: Any, tb: Any) -> Any:
        result = user_exit(self, exc_type, exc, None)
        if exc_type is not None and not issubclass(exc_type, Exception):
            return False
        return result

    return __exit__


def _unwrap_classinfo(classinfo: Any) -> Any:
    if isinstance(classinfo, TypeName):
        return classinfo._cls
    if isinstance(classinfo, tuple):
        return tuple(_unwrap_classinfo(c) for c in classinfo)
    return classinfo


_POLICIES: dict[int, Policy] = {}


def policy_for(torch_module: types.ModuleType) -> Policy:
    p = _POLICIES.get(id(torch_module))
    if p is None or p.torch_module is not torch_module:
        p = Policy(torch_module)
        _POLICIES[id(torch_module)] = p
    return p


def snippet_globals(
    torch_module: types.ModuleType,
    write: Callable[[str], None],
    extra: dict | None = None,
    *,
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
) -> dict:
    """The globals dict to `exec` a `compile_snippet` code object in (a fresh dict per run)."""
    p = policy_for(torch_module)
    g: dict[str, Any] = {
        "__builtins__": dict(p.builtins),
        "__name__": "__main__",
        "__metaclass__": p.build_class,
        "_getattr_": p.getattr_,
        "_getitem_": p.getitem_,
        "_getiter_": p.getiter_,
        "_write_": p.write_,
        "_inplacevar_": _inplacevar_,
        "_augattr_": p.augattr_,
        "_augitem_": p.augitem_,
        "_apply_": _apply_,
        "_print_": _PrintCollector(write, max_output_chars),
        "_unpack_sequence_": guarded_unpack_sequence,
        "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
    }
    if extra:
        g.update(extra)
    return g


__all__ = ["Facade", "Policy", "TypeName", "policy_for", "snippet_globals"]
