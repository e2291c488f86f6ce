"""The Tensor: an ndarray plus requires_grad, grad, grad_fn, version counter and hooks."""

from __future__ import annotations

import builtins
import warnings
from typing import Any, Callable, Iterator

import numpy as np

from engine import dtypes, grad_mode, messages, observe, printing
from engine.node import AccumulateGrad, RemovableHandle, add_hook


class _TorchClass(type):
    """The metaclass of Size, Tensor and Parameter: they print under PyTorch's names (`<class 'torch.Tensor'>`)."""

    def __repr__(cls) -> str:
        name = _TORCH_NAMES.get(cls.__name__) if cls.__module__ == __name__ else None
        return f"<class '{name}'>" if name else type.__repr__(cls)


_TORCH_NAMES = {"Size": "torch.Size", "Tensor": "torch.Tensor", "Parameter": "torch.nn.parameter.Parameter"}


class Size(tuple, metaclass=_TorchClass):
    """torch.Size: a tuple that prints as `torch.Size([2, 3])`."""

    def __repr__(self) -> str:
        return messages.size_repr(self)

    __str__ = __repr__

    def __getitem__(self, index: Any) -> Any:
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other: Any) -> Any:
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(self, other))

    def __radd__(self, other: Any) -> Any:
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, n: Any) -> "Size":
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__

    def numel(self) -> int:
        return int(np.prod(self)) if self else 1


_ONE_ELEMENT = "only one element tensors can be converted to Python scalars"
_scalar_warned = [False]


def _warn_scalar_of_grad(t: "Tensor") -> None:
    """float()/complex() of a tensor that requires grad: PyTorch warns once per process."""
    if t._requires_grad and not _scalar_warned[0]:
        _scalar_warned[0] = True
        warnings.warn(
            "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
            "Consider using tensor.detach() first. (Triggered internally at "
            "/__w/pytorch/pytorch/torch/csrc/autograd/generated/python_variable_methods.cpp:822.)",
            UserWarning, stacklevel=3,
        )


def _keep_flags(source: "Tensor", t: "Tensor") -> None:
    """t, sharing source's data (detach, .data), keeps source's conjugate bit and meta device."""
    if source._data.dtype.kind == "c":
        from engine.rules import _keep_conj_bit

        _keep_conj_bit(source, (t,))
    if source._extra is not None and source._extra.meta:
        from engine.meta import mark

        mark(t)


class Tensor(metaclass=_TorchClass):
    __slots__ = (
        "_data",
        "_requires_grad",
        "_grad_fn",
        "_grad",
        "_output_nr",
        "_vc",
        "_accumulator",
        "_extra",
        "__weakref__",
        "__dict__",  # attributes a program sets on a tensor (t.name = "w"), as PyTorch allows
    )

    # NumPy defers to Tensor's operators (ndarray * tensor calls Tensor.__rmul__).
    __array_ufunc__ = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("create tensors with torch.tensor(...), torch.zeros(...) and friends")

    @classmethod
    def _make(cls, data: np.ndarray, grad_fn: Any = None, vc: list | None = None) -> "Tensor":
        t = object.__new__(cls)
        t._data = data
        t._grad_fn = grad_fn
        t._requires_grad = grad_fn is not None
        t._grad = None
        t._output_nr = 0
        t._vc = [0] if vc is None else vc
        t._accumulator = None
        t._extra = TensorExtras(inference=True) if grad_mode.state.inference else None
        return t

    # A view's base and flags, retains_grad, post-accumulate hooks and the inference flag live in
    # one TensorExtras object that most tensors never get (`_extra` is None): making a tensor sets
    # fewer fields and the garbage collector visits fewer.
    def _extras(self) -> "TensorExtras":
        extra = self._extra
        if extra is None:
            extra = self._extra = TensorExtras()
        return extra

    _base = property(lambda self: None if self._extra is None else self._extra.base,
                     lambda self, value: setattr(self._extras(), "base", value))
    _view_of_multi = property(lambda self: None if self._extra is None else self._extra.view_of_multi,
                              lambda self, value: setattr(self._extras(), "view_of_multi", value))
    _retains_grad = property(lambda self: self._extra is not None and self._extra.retains_grad,
                             lambda self, value: setattr(self._extras(), "retains_grad", value))
    _post_acc_hooks = property(lambda self: None if self._extra is None else self._extra.post_acc_hooks,
                               lambda self, value: setattr(self._extras(), "post_acc_hooks", value))
    _inference = property(lambda self: self._extra is not None and self._extra.inference,
                          lambda self, value: setattr(self._extras(), "inference", value))
    _no_grad_view = property(lambda self: self._extra is not None and self._extra.no_grad_view,
                             lambda self, value: setattr(self._extras(), "no_grad_view", value))

    # --- basic properties ----------------------------------------------------------------
    @property
    def dtype(self) -> dtypes.dtype:
        return dtypes.from_numpy(self._data.dtype)

    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None) -> Any:
        return Size(self._data.shape) if dim is None else self._data.shape[dim]

    def dim(self) -> int:
        return self._data.ndim

    ndim = property(dim)

    def ndimension(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return int(self._data.size)

    nelement = numel

    def element_size(self) -> int:
        return self.dtype.itemsize  # bfloat16's 2, though its values are kept as float32

    @property
    def device(self) -> dtypes.device:
        if self._extra is not None and self._extra.meta:
            from engine.meta import META

            return META
        return _CPU

    @property
    def is_meta(self) -> bool:
        return self._extra is not None and self._extra.meta

    @property
    def is_cuda(self) -> bool:
        return False

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def is_contiguous(self, memory_format: Any = None) -> bool:
        from engine import info

        if memory_format is info.channels_last or memory_format is info.channels_last_3d:
            return info.is_contiguous_as(self._data.shape, self.stride(), memory_format)
        return bool(self._data.flags.c_contiguous)

    def is_inference(self) -> bool:
        return self._inference

    def stride(self, dim: int | None = None) -> Any:
        itemsize = self._data.itemsize or 1
        strides = tuple(s // itemsize for s in self._data.strides)
        if not self._data.size and not any(strides):  # NumPy's empty arrays: PyTorch's contiguous strides
            strides = tuple(int(np.prod(np.maximum(self._data.shape[i + 1:], 1))) for i in range(self._data.ndim))
        return strides if dim is None else strides[dim]

    def data_ptr(self) -> int:
        return int(self._data.__array_interface__["data"][0])

    # --- autograd state ------------------------------------------------------------------
    @property
    def grad_fn(self) -> Any:
        """The node that made this tensor. A view whose base changed in place since its node was made
        gets a new one first (AsStridedBackward0 of the base), as PyTorch does on this read."""
        extra = self._extra
        if extra is not None and extra.base is not None and extra.version != self._vc[0]:
            if self._grad_fn is not None or extra.base._requires_grad:  # else there is nothing to rebase
                from engine.functions import refresh_view

                refresh_view(self)
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, node: Any) -> None:
        self._grad_fn = node
        extra = self._extra
        if extra is not None and extra.base is not None:
            extra.version = self._vc[0]  # a view's node is current as of this version

    @property
    def requires_grad(self) -> bool:
        if self._requires_grad:
            return True
        extra = self._extra  # a view requires grad when its base does, even one that came to in place
        # (a view of an inference tensor never does)
        return extra is not None and extra.base is not None and extra.base._requires_grad and not extra.inference

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if type(value) is not bool:
            raise RuntimeError("requires_grad must be a bool")
        # the attribute refuses any change on a non-leaf (requires_grad_(True) lets it pass)
        if self.grad_fn is not None:
            raise RuntimeError(messages.REQUIRES_GRAD_NON_LEAF if not value else messages.LEAF_FLAGS_ONLY)
        if value and self._data.dtype.kind not in "fc":
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        if self.grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(messages.REQUIRES_GRAD_NON_LEAF)
        if requires_grad and self._data.dtype.kind not in "fc":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self._inference and not grad_mode.state.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def output_nr(self) -> int:
        """Which output of its grad_fn this tensor is."""
        return self._output_nr

    @property
    def grad(self) -> "Tensor | None":
        if self.grad_fn is not None and not self._retains_grad:
            warnings.warn(messages.NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: "Tensor | None") -> None:
        if value is not None:
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._data.shape)}' to a tensor of "
                    f"size '{list(self._data.shape)}'. Please ensure that the gradient and the tensor are "
                    "the same size"
                )
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{value.dtype.cpp}' to a tensor with "
                    f"grad_dtype '{self.dtype.legacy}'. The gradient must match the tensor's grad_dtype "
                    "(defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with "
                    "a specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging "
                    "the dtypes of a tensor and its gradient may break downstream systems that assume "
                    "they match."
                )
        self._grad = value
        _observe_grad(self)

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    @property
    def _version(self) -> int:
        return self._vc[0]

    def _bump_version(self) -> None:
        self._vc[0] += 1

    def _is_view(self) -> bool:
        return self._base is not None

    def _grad_accumulator(self) -> AccumulateGrad:
        acc = self._accumulator
        if acc is None:
            if self._no_grad_view and self._base is not None:
                return None  # a view made without grad mode: no gradient flows to it
            acc = self._accumulator = AccumulateGrad(self)
        return acc

    def retain_grad(self) -> None:
        if not self._requires_grad:
            raise RuntimeError(messages.RETAIN_GRAD_NO_GRAD)
        if self.grad_fn is None or self._retains_grad:
            return
        self._retains_grad = True
        self.grad_fn.retain_output(self._output_nr, self)

    def register_hook(self, hook: Callable) -> RemovableHandle:
        if not self._requires_grad:
            raise RuntimeError(messages.HOOK_NO_GRAD)
        node = self.grad_fn if self.grad_fn is not None else self._grad_accumulator()
        return node.add_tensor_pre_hook(self._output_nr, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable) -> RemovableHandle:
        if not self._requires_grad:
            raise RuntimeError(messages.HOOK_NO_GRAD)
        if self.grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        if self._post_acc_hooks is None:
            self._post_acc_hooks = {}
        return add_hook(self._post_acc_hooks, hook)

    def backward(
        self,
        gradient: "Tensor | None" = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs: Any = None,
    ) -> None:
        from engine.autograd import backward

        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self) -> "Tensor":
        t = Tensor._make(self._data, None, self._vc)  # shares storage and the version counter
        if t._inference != self._inference:  # inference-ness follows the source, as for views
            t._inference = self._inference
        _keep_flags(self, t)
        _observe_new(t, self)
        return t

    def detach_(self) -> "Tensor":
        if self._base is not None and not self._inference:
            raise RuntimeError(messages.DETACH_VIEW_INPLACE)
        self.grad_fn = None
        self._requires_grad = False
        return self

    def __deepcopy__(self, memo: dict) -> "Tensor":
        """copy.deepcopy: graph leaves only; views copied together keep sharing one new storage, and the
        grad is copied too (a Parameter's is not, as in PyTorch)."""
        if self.grad_fn is not None:
            raise RuntimeError(messages.DEEPCOPY_NON_LEAF)
        if id(self) in memo:
            return memo[id(self)]
        if getattr(self, "is_sparse", False):
            with grad_mode.no_grad():
                new = self.clone()
        else:
            new = type(self)._make(_deepcopy_storage(self._data, memo))
            _observe_new(new)
        if self._requires_grad:
            new._requires_grad = True
        if self._grad is not None and not isinstance(self, Parameter):
            new._grad = self._grad.__deepcopy__(memo)
        if self.__dict__ and not isinstance(self, Parameter):  # Parameter's deepcopy drops them, as in PyTorch
            import copy

            new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        memo[id(self)] = new
        return new

    def __copy__(self) -> "Tensor":
        """copy.copy: a new leaf sharing the storage (PyTorch rebuilds it from its storage)."""
        new = type(self)._make(self._data)
        new._requires_grad = self._requires_grad
        if self.__dict__:
            new.__dict__.update(self.__dict__)
        _observe_new(new, self)
        return new

    @property
    def data(self) -> "Tensor":
        # Shares storage but not the version counter: changes through .data go unnoticed.
        t = Tensor._make(self._data)
        _keep_flags(self, t)
        _observe_new(t, self)
        return t

    @data.setter
    def data(self, value: "Tensor") -> None:
        self._data = value._data

    def resize_(self, *sizes: Any, memory_format: Any = None) -> "Tensor":
        """Resizes in place over the same storage (read from the storage offset on), growing it with zeros
        where PyTorch would leave memory uninitialised. Not for tensors that require grad."""
        if self._requires_grad:
            raise RuntimeError("cannot resize variables that require grad")
        shape = tuple(int(s) for s in (sizes[0] if len(sizes) == 1 and isinstance(sizes[0], (tuple, list))
                                       else sizes))
        if builtins.any(s < 0 for s in shape):
            raise RuntimeError("numel: integer multiplication overflow")
        data = self._data
        if shape == data.shape and data.flags.c_contiguous:
            return self
        n = int(np.prod(shape, dtype=np.int64))
        root = data
        while isinstance(root.base, np.ndarray):
            root = root.base
        if root.flags.c_contiguous and root.dtype == data.dtype and data.size:
            offset = (data.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // data.itemsize
            storage = root.reshape(-1)[offset:]
        else:
            storage = data.reshape(-1)
        if n <= storage.size:
            self._data = storage[:n].reshape(shape)
        else:
            grown = np.zeros(n, data.dtype)
            grown[:storage.size] = storage
            self._data = grown.reshape(shape)
        self._vc[0] += 1
        if observe.current is not None:
            observe.current.inplace_applied(self, None)
        return self

    def resize_as_(self, other: "Tensor", memory_format: Any = None) -> "Tensor":
        return self.resize_(other._data.shape)

    # --- conversions ---------------------------------------------------------------------
    def item(self) -> Any:
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        if self._extra is not None and self._extra.meta:
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        return self._data.reshape(()).item()

    def tolist(self) -> Any:
        if self._extra is not None and self._extra.meta:
            raise NotImplementedError(messages.META_NO_DATA)
        return self._data.tolist()

    def numpy(self, force: bool = False) -> np.ndarray:
        if self._extra is not None and self._extra.meta:
            raise TypeError("can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor to "
                            "host memory first.")
        if self._requires_grad and not force:
            raise RuntimeError(messages.NUMPY_REQUIRES_GRAD)
        if self._data.dtype.byteorder == ">":  # bfloat16 (see dtypes.BF16): NumPy has no such type
            raise TypeError("Got unsupported ScalarType BFloat16")
        if self._data.dtype.kind == "c" and not force and self.is_conj():
            raise RuntimeError("Can't call numpy() on Tensor that has conjugate bit set. Use "
                               "tensor.resolve_conj().numpy() instead.")
        return self._data

    def __array__(self, dtype: Any = None) -> np.ndarray:
        """np.asarray(t) / np.array(t): the tensor's values (refused when it requires grad), as torch."""
        if self._data.dtype.byteorder == ">":  # bfloat16: the engine's own kernels read tensors through NumPy
            if self._requires_grad:
                raise RuntimeError(messages.NUMPY_REQUIRES_GRAD)
            array = self._data
        else:
            array = self.numpy()
        return array if dtype is None else array.astype(dtype, copy=False)

    def __float__(self) -> float:
        if self._data.size != 1:
            raise ValueError(_ONE_ELEMENT)
        _warn_scalar_of_grad(self)
        return float(self.item())

    def __int__(self) -> int:
        if self._data.size != 1:
            raise ValueError(_ONE_ELEMENT)
        return int(self.item())

    def __complex__(self) -> complex:
        if self._data.size != 1:
            raise ValueError(_ONE_ELEMENT)
        _warn_scalar_of_grad(self)
        return complex(self.item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with {'no values' if self._data.size == 0 else 'more than one value'} "
                "is ambiguous"
            )
        return bool(self.item())

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self) -> Iterator["Tensor"]:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return printing.tensor_repr(self)

    def __format__(self, spec: str) -> str:
        return printing.tensor_format(self, spec)

    # --- in-place bookkeeping --------------------------------------------------------------
    def _check_inplace(self) -> None:
        """PyTorch's refusals for in-place changes that would corrupt a graph."""
        if self._inference and not grad_mode.state.inference:
            raise RuntimeError(
                "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
                "clone to get a normal tensor before doing inplace update.See "
                "https://github.com/pytorch/rfcs/pull/17 for more details."
            )
        if not grad_mode.state.enabled:
            return
        base = self._base
        if base is not None and base._requires_grad and self._requires_grad:
            if self._view_of_multi is not None:
                raise RuntimeError(messages.multi_output_view_inplace(self._view_of_multi))
            if self._no_grad_view:
                raise RuntimeError(messages.no_grad_view_inplace())
            if base.grad_fn is None:
                raise RuntimeError(messages.LEAF_VIEW_INPLACE)
        if self._requires_grad and self.grad_fn is None:
            raise RuntimeError(messages.LEAF_INPLACE)


class TensorExtras:
    """A tensor's rarely set state (see Tensor._extras)."""

    __slots__ = ("base", "version", "view_of_multi", "retains_grad", "post_acc_hooks", "inference",
                 "no_grad_view")
    sparse = False  # a sparse tensor's extras say so (engine.sparse_coo), for rules.apply
    meta = False  # a meta tensor's extras say so (engine.meta)

    def __init__(self, inference: bool = False) -> None:
        self.base: Tensor | None = None
        self.version = 0  # of a view: the version counter's value when its grad_fn was made
        # (op name, output index) of a view output of a multi-output op; (Function name, output index,
        # True) of an input a custom Function returned as-is: in-place changes to it are refused
        self.view_of_multi: tuple | None = None
        self.retains_grad = False
        self.post_acc_hooks: dict | None = None
        self.inference = inference
        self.no_grad_view = False


_CPU = dtypes.device("cpu")


class Parameter(Tensor):
    """A leaf tensor that requires grad by default; modules register these as parameters."""

    __slots__ = ()

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> "Parameter":
        array = np.zeros((0,), np.float32) if data is None else data._data
        if requires_grad and array.dtype.kind not in "fc":
            raise RuntimeError(messages.REQUIRES_GRAD_DTYPE)
        p = cls._make(array)
        p._requires_grad = bool(requires_grad)
        _observe_new(p, data)
        return p

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()


def _deepcopy_storage(data: np.ndarray, memo: dict) -> np.ndarray:
    """A copy of `data`; arrays viewing one buffer are copied as views of one new buffer (kept in `memo`)."""
    root = data
    while isinstance(root.base, np.ndarray):
        root = root.base
    if not (root.flags.c_contiguous or root.flags.f_contiguous):
        return np.array(data, copy=True, order="K")
    key = ("gradstep-storage", id(root))
    new_root = memo.get(key)
    if new_root is None:
        new_root = memo[key] = root.copy(order="K")
        memo.setdefault(id(memo), []).append(root)  # keeps id(root) from being reused meanwhile
    if root is data:
        return new_root
    offset = data.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    try:  # the ndarray constructor checks the view fits inside the buffer
        return np.ndarray(data.shape, data.dtype, buffer=new_root, offset=offset, strides=data.strides)
    except (TypeError, ValueError):
        return np.array(data, copy=True, order="K")


def _observe_new(t: Tensor, source: Any = None) -> None:
    if observe.current is not None:
        observe.current.tensor_created(t, source)


def _observe_grad(t: Tensor) -> None:
    if observe.current is not None:
        observe.current.grad_changed(t)


def scalar_tensor(value: Any) -> Tensor:
    """A Python number as the 0-d tensor PyTorch wraps it in (e.g. `_saved_other` of `x * 3`)."""
    if isinstance(value, bool):
        array = np.asarray(value)
    elif isinstance(value, int):
        array = np.asarray(value, np.int64)
    else:
        array = np.asarray(value, np.float64 if isinstance(value, float) else None)
    return Tensor._make(array)


def refuse_writes() -> None:
    """Tensor's read-only properties (shape, dtype, is_leaf, T...) refuse assignment with PyTorch's message
    (other attribute names are free for a program's own use)."""
    for name, prop in list(vars(Tensor).items()):
        if isinstance(prop, property) and prop.fset is None and not name.startswith("_"):
            setattr(Tensor, name, property(prop.fget, _refuse(name), None, prop.__doc__))


def _refuse(name: str) -> Any:
    def refuse(self: Tensor, value: Any) -> None:
        raise AttributeError(f"attribute '{name}' of 'torch._C.TensorBase' objects is not writable")

    return refuse
