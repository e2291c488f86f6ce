"""Sparse COO tensors: torch.sparse_coo_tensor, to_sparse/to_dense, coalesce and the ops PyTorch runs on them.

A sparse tensor keeps its indices (int64, sparse_dim x nnz), its values (nnz x dense dims) and whether
it is coalesced, plus the dense array they stand for as `_data` (read-only), so that shapes, dtypes,
the tracer and the dense fallbacks (mm, sum()...) see ordinary values. rules.apply sends an op with a
sparse input to dispatch() here (see _SparseExtras). Gradients of sparse tensors flow through
backward as sparse tensors without a graph.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from engine import dtypes, grad_mode, observe, printing
from engine.methods import layout
from engine.node import Node, output_numbers
from engine.tensor import Tensor, TensorExtras

sparse_coo = layout("sparse_coo")


class _SparseExtras(TensorExtras):
    """A sparse tensor's extras: `sparse` sends rules.apply's ops to dispatch() below."""

    __slots__ = ()
    sparse = True


class SparseTensor(Tensor):
    """A tensor of layout torch.sparse_coo (prints and behaves as torch.Tensor)."""

    __slots__ = ("_sidx", "_svals", "_coalesced", "_shared")

    # --- layout and structure ------------------------------------------------------------
    layout = property(lambda self: sparse_coo)
    is_sparse = True

    def sparse_dim(self) -> int:
        return self._sidx.shape[0]

    def dense_dim(self) -> int:
        return self._svals.ndim - 1

    def _nnz(self) -> int:
        return self._sidx.shape[1]

    def is_coalesced(self) -> bool:
        return self._coalesced

    def indices(self) -> Tensor:
        if not self._coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return Tensor._make(self._sidx)

    def _indices(self) -> Tensor:
        return Tensor._make(self._sidx)

    def _values(self) -> Tensor:
        return Tensor._make(self._svals)

    def values(self) -> Tensor:
        if not self._coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return _values_op(self)

    def is_contiguous(self, memory_format: Any = None) -> bool:
        return False

    def stride(self, dim: int | None = None) -> Any:
        strides = (0,) * self._data.ndim
        return strides if dim is None else strides[dim]

    def contiguous(self, memory_format: Any = None) -> Tensor:
        raise RuntimeError("unsupported memory format option Contiguous")

    # --- conversions -----------------------------------------------------------------------
    def numpy(self, force: bool = False) -> np.ndarray:
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    def tolist(self) -> Any:
        raise RuntimeError(_NO_STORAGE)

    def data_ptr(self) -> int:
        raise RuntimeError(_NO_STORAGE)

    def to_dense(self, dtype: Any = None, *, masked_grad: Any = None) -> Tensor:
        return _unary_node(self, "ToDenseBackward0", Tensor._make(np.array(self._data)),
                           lambda g: _sparse_mask(g, self))

    def to_sparse(self, *args: Any, **kwargs: Any) -> Tensor:
        return self

    def coalesce(self) -> Tensor:
        if self._coalesced:
            return self
        indices, values = _coalesced_parts(self._sidx, self._svals, self._data.shape)
        out = _sparse(indices, values, self._data.shape, True)
        return _unary_node(self, "CoalesceBackward0", out, lambda g: g)

    def detach(self) -> Tensor:
        return _sparse(self._sidx, self._svals, self._data.shape, self._coalesced)

    def clone(self, memory_format: Any = None) -> Tensor:
        out = _sparse(self._sidx.copy(), self._svals.copy(), self._data.shape, self._coalesced)
        return _unary_node(self, "CloneBackward0", out, lambda g: g)

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        target = kwargs.get("dtype")
        for a in args:
            if isinstance(a, dtypes.dtype):
                target = a
            elif isinstance(a, Tensor):
                target = a.dtype
        return self if target is None else _cast(self, dtypes.to_numpy(target))

    def double(self) -> Tensor:
        return _cast(self, np.dtype(np.float64))

    def float(self) -> Tensor:  # noqa: A003 - PyTorch's name
        return _cast(self, np.dtype(np.float32))

    def half(self) -> Tensor:
        return _cast(self, np.dtype(np.float16))

    def long(self) -> Tensor:
        return _cast(self, np.dtype(np.int64))

    def int(self) -> Tensor:  # noqa: A003 - PyTorch's name
        return _cast(self, np.dtype(np.int32))

    def __getitem__(self, index: Any) -> Tensor:
        if isinstance(index, tuple) and len(index) == 1:
            index = index[0]
        if type(index) is not int:
            raise NotImplementedError(not_implemented("index.Tensor"))
        from engine import functions

        return functions.select(self, 0, index)

    def reshape(self, *shape: Any) -> Tensor:
        raise RuntimeError("reshape is not implemented for sparse tensors")

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        raise RuntimeError("reshape is not implemented for sparse tensors")

    def __iter__(self) -> Any:
        return iter([self[i] for i in range(self._data.shape[0])])

    def __add__(self, other: Any) -> Any:
        if type(other) is np.ndarray:  # a dense gradient meeting a sparse one in backward
            return other + self._data
        return Tensor.__add__(self, other)

    def __radd__(self, other: Any) -> Any:
        if type(other) is np.ndarray:
            return other + self._data
        if isinstance(other, Tensor):  # dense + sparse: Python asks the subclass first
            from engine import functions

            return functions.add(other, self)
        return Tensor.__radd__(self, other)

    def __repr__(self) -> str:
        return sparse_repr(self)


SparseTensor.__name__ = SparseTensor.__qualname__ = "Tensor"
SparseTensor.__module__ = "engine.tensor"  # so it prints as <class 'torch.Tensor'>

_NO_STORAGE = "Cannot access data pointer of Tensor that doesn't have storage"

_BACKENDS = (
    "[CPU, CUDA, HIP, MPS, IPU, XPU, HPU, VE, MTIA, MAIA, PrivateUse1, PrivateUse2, PrivateUse3, Meta, FPGA, "
    "Vulkan, Metal, QuantizedCPU, QuantizedCUDA, QuantizedHIP, QuantizedMPS, QuantizedIPU, QuantizedXPU, "
    "QuantizedHPU, QuantizedVE, QuantizedMTIA, QuantizedMAIA, QuantizedPrivateUse1, QuantizedPrivateUse2, "
    "QuantizedPrivateUse3, QuantizedMeta, CustomRNGKeyId, MkldnnCPU, SparseCsrCPU, SparseCsrCUDA, SparseCsrHIP, "
    "SparseCsrMPS, SparseCsrIPU, SparseCsrXPU, SparseCsrHPU, SparseCsrVE, SparseCsrMTIA, SparseCsrMAIA, "
    "SparseCsrPrivateUse1, SparseCsrPrivateUse2, SparseCsrPrivateUse3, SparseCsrMeta, BackendSelect, Python, "
    "FuncTorchDynamicLayerBackMode, Functionalize, Conjugate, Negative, ZeroTensor, ADInplaceOrView, "
    "AutogradOther, AutogradCPU, AutogradCUDA, AutogradHIP, AutogradXLA, AutogradMPS, AutogradIPU, AutogradXPU, "
    "AutogradHPU, AutogradVE, AutogradLazy, AutogradMTIA, AutogradMAIA, AutogradPrivateUse1, AutogradPrivateUse2, "
    "AutogradPrivateUse3, AutogradMeta, AutogradNestedTensor, Tracer, AutocastCPU, AutocastMTIA, AutocastMAIA, "
    "AutocastXPU, AutocastMPS, AutocastCUDA, FuncTorchBatched, BatchedNestedTensor, FuncTorchVmapMode, Batched, "
    "VmapMode, FuncTorchGradWrapper, PythonTLSSnapshot, FuncTorchDynamicLayerFrontMode, PreDispatch, "
    "PythonDispatcher]"
)


def not_implemented(op: str) -> str:
    """PyTorch's dispatcher error for an operator without a SparseCPU kernel (its first paragraph)."""
    return (f"Could not run 'aten::{op}' with arguments from the 'SparseCPU' backend. This could be because the "
            "operator doesn't exist for this backend, or was omitted during the selective/custom build process "
            "(if using custom build). If you are a Facebook employee using PyTorch on mobile, please visit "
            f"https://fburl.com/ptmfixes for possible resolutions. 'aten::{op}' is only available for these "
            f"backends: {_BACKENDS}.\n")


# --- making sparse tensors -------------------------------------------------------------------------
def _dense(indices: np.ndarray, values: np.ndarray, shape: tuple) -> np.ndarray:
    data = np.zeros(shape, values.dtype)
    if indices.shape[1]:
        np.add.at(data, tuple(indices), values)
    data.flags.writeable = False
    return data


def _sparse(indices: np.ndarray, values: np.ndarray, shape: tuple, coalesced: bool,
            shared: bool = False) -> SparseTensor:
    t = SparseTensor._make(_dense(indices, values, tuple(shape)))
    t._sidx = indices
    t._svals = values
    t._coalesced = bool(coalesced)
    t._shared = shared  # its indices belong to another tensor too (see accumulate)
    t._extra = _SparseExtras(inference=grad_mode.state.inference)
    return t


def _linear(indices: np.ndarray, shape: tuple) -> np.ndarray:
    """Each entry's row-major position among the sparse dims."""
    if not indices.shape[0]:
        return np.zeros(indices.shape[1], np.int64)
    return np.ravel_multi_index(tuple(indices), shape[: indices.shape[0]]) if indices.shape[1] else \
        np.zeros(0, np.int64)


def _coalesced_parts(indices: np.ndarray, values: np.ndarray, shape: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Indices sorted and unique, duplicates' values summed."""
    keys = _linear(indices, shape)
    unique, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    summed = np.zeros((len(unique),) + values.shape[1:], values.dtype)
    np.add.at(summed, inverse.reshape(-1), values)
    return indices[:, first].astype(np.int64), summed


def sparse_coo_tensor(indices: Any, values: Any, size: Any = None, *, dtype: Any = None, device: Any = None,
                      requires_grad: bool = False, check_invariants: Any = None,
                      is_coalesced: Any = None) -> Tensor:
    """torch.sparse_coo_tensor: a leaf sparse tensor from indices (sparse_dim x nnz) and values."""
    from engine.creation import tensor

    _warn_invariants()
    index = (indices if isinstance(indices, Tensor) else tensor(indices))._data
    vals = values if isinstance(values, Tensor) else tensor(values)
    data = vals._data
    if dtype is not None:
        data = dtypes.cast(data, dtypes.to_numpy(dtype))
    if index.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(index.shape)}")
    if index.dtype != np.int64:
        raise RuntimeError("indices must be an int64 tensor")
    if data.ndim == 0 or data.shape[0] != index.shape[1]:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {index.shape[1]}, "
                           f"nnz from values: {data.shape[0] if data.ndim else 1}")
    if size is None:
        top = index.max(axis=1) + 1 if index.shape[1] else np.zeros(index.shape[0], np.int64)
        shape = tuple(int(n) for n in top) + tuple(data.shape[1:])
    else:
        shape = tuple(int(n) for n in size)
        if len(shape) != index.shape[0] + data.ndim - 1:
            raise RuntimeError(f"number of dimensions must be sparse_dim ({index.shape[0]}) + dense_dim "
                               f"({data.ndim - 1}), but got {len(shape)}")
        for d in range(index.shape[0]):
            if index.shape[1] and index[d].max() >= shape[d]:
                raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {shape[d]} but found "
                                   f"index {int(index[d].max())}")
    out = _sparse(np.array(index), np.array(data), shape, bool(is_coalesced))
    if requires_grad:
        out.requires_grad_(True)
    if observe.current is not None:
        observe.current.tensor_created(out, None)
    return out


_invariants_warned = [False]


def _warn_invariants() -> None:
    if not _invariants_warned[0]:
        _invariants_warned[0] = True
        warnings.warn(
            "Sparse invariant checks are implicitly disabled. Memory errors (e.g. SEGFAULT) will occur when "
            "operating on a sparse tensor which violates the invariants, but checks incur performance overhead. "
            "To silence this warning, explicitly opt in or out. See "
            "`torch.sparse.check_sparse_tensor_invariants.__doc__` for guidance.  (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/Context.cpp:816.)", UserWarning, stacklevel=3)


def to_sparse(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Tensor.to_sparse of a dense tensor: its nonzero entries, coalesced (ToSparseBackward1)."""
    data = self._data
    indices = np.array(np.nonzero(data), dtype=np.int64).reshape(data.ndim, -1)
    out = _sparse(indices, data[tuple(indices)].copy(), data.shape, True)
    return _unary_node(self, "ToSparseBackward1", out, _dense_of)


def dense_to_dense(self: Tensor, dtype: Any = None, *, masked_grad: Any = None) -> Tensor:
    return self


# --- printing ---------------------------------------------------------------------------------------
def sparse_repr(t: SparseTensor) -> str:
    """torch/_tensor_str.py's _str_intern for a sparse COO tensor."""
    prefix = "tensor("
    indent = len(prefix)
    suffixes = [f"size={tuple(t._data.shape)}", f"nnz={t._sidx.shape[1]}"]
    dtype = dtypes.from_numpy(t._data.dtype)
    if dtype not in (dtypes.default_float, dtypes.int64, dtypes.bool_):
        suffixes.append(f"dtype={dtype!r}")
    parts = []
    for name, array in (("indices=tensor(", t._sidx), ("values=tensor(", t._svals)):
        text = _body(array, indent + len(name))
        if array.size == 0:
            text += f", size={tuple(array.shape)}"
        parts.append(name + text)
    suffixes.append("layout=torch.sparse_coo")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(t.grad_fn).__name__}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    text = prefix + parts[0] + "),\n" + " " * indent + parts[1] + ")"
    out = [text]
    last = len(text) - text.rfind("\n") + 1
    force = True
    for suffix in suffixes:
        if force or last + len(suffix) + 2 > printing.OPTIONS.linewidth:
            out.append(",\n" + " " * indent + suffix)
            last = indent + len(suffix)
            force = False
        else:
            out.append(", " + suffix)
            last += len(suffix) + 2
    return "".join(out) + ")"


def _body(values: np.ndarray, indent: int) -> str:
    if values.size == 0:
        return "[]"
    summarize = values.size > printing.OPTIONS.threshold
    fmt = printing._Formatter(printing._summarized(values) if summarize else values)
    return printing._body(values, fmt, indent, summarize)


# --- nodes ------------------------------------------------------------------------------------------
class SparseNode(Node):
    """A grad_fn of an op on sparse tensors; its backward is a function of the output's gradient."""

    __slots__ = ("_fn",)

    def apply_backward(self, grads: tuple, create_graph: bool) -> tuple:
        g = grads[0]
        if isinstance(g, Tensor) and not isinstance(g, SparseTensor):
            g = g._data
        out = self._fn(g)
        if create_graph:
            out = tuple(x if x is None or isinstance(x, Tensor) else Tensor._make(np.asarray(x)) for x in out)
        return out


_node_classes: dict[str, type] = {}


def _node(name: str, inputs: tuple, fn: Callable, result: Tensor) -> Node | None:
    """Records `result`'s grad_fn `name` when an input requires grad; fn(g) gives one gradient per input."""
    from engine.rules import edge_to

    if not grad_mode.state.enabled:
        return None
    edges = [edge_to(x) for x in inputs]
    if all(e is None for e in edges):
        return None
    cls = _node_classes.get(name)
    if cls is None:
        cls = _node_classes[name] = type(name, (SparseNode,), {"__slots__": (), "__module__": "torch.autograd.graph"})
    node = cls()
    node._next = tuple(None if e is None else e[0] for e in edges)
    node._nrs = output_numbers(tuple(0 if e is None else e[1] for e in edges))
    node._in_meta = tuple(x._data.shape if isinstance(x, Tensor) else () for x in inputs)
    node._out_meta = ((result._data.shape, result._data.dtype),)
    node._fn = fn
    result._grad_fn = node
    result._requires_grad = True
    return node


def _unary_node(x: Tensor, name: str, result: Tensor, grad: Callable) -> Tensor:
    _record(name, (x,), lambda g: (grad(g),), result)
    return result


def _record(name: str, inputs: tuple, fn: Callable, result: Tensor, attrs: dict | None = None) -> Tensor:
    node = _node(name, inputs, fn, result)
    if observe.current is not None:
        observe.current.op_applied(None, node, inputs, (result,), attrs)
    return result


# --- gradient algebra (dense arrays and sparse tensors, no graph) -----------------------------------
def _dense_of(g: Any) -> Any:
    return np.array(g._data) if isinstance(g, SparseTensor) else g


def _sparse_mask(g: Any, mask: SparseTensor) -> SparseTensor:
    """The values of `g` where `mask` has entries (mask's pattern, coalesced), as a sparse gradient."""
    dense = _dense_of(g)
    indices = mask._sidx if mask._coalesced else _coalesced_parts(mask._sidx, mask._svals,
                                                                     mask._data.shape)[0]
    return _sparse(indices.copy(), np.array(dense[tuple(indices)]), mask._data.shape, True)


def _with_values(t: SparseTensor, values: np.ndarray, coalesced: bool | None = None) -> SparseTensor:
    return _sparse(t._sidx, values, t._data.shape, t._coalesced if coalesced is None else coalesced)


def _coalesce_raw(t: SparseTensor) -> SparseTensor:
    if t._coalesced:
        return t
    indices, values = _coalesced_parts(t._sidx, t._svals, t._data.shape)
    return _sparse(indices, values, t._data.shape, True)


def _mul(a: Any, b: Any) -> Any:
    """a * b where either may be sparse (the result then is), a dense array or a number."""
    sa, sb = isinstance(a, SparseTensor), isinstance(b, SparseTensor)
    if not sa and not sb:
        return a * b
    if sa and sb:
        return _mul_sparse(a, b)
    s, other = (a, b) if sa else (b, a)
    if np.ndim(other) == 0:
        return _with_values(s, np.asarray(s._svals * other))
    other = np.broadcast_to(other, s._data.shape)
    return _with_values(s, s._svals * other[tuple(s._sidx)])


def _mul_sparse(a: SparseTensor, b: SparseTensor) -> SparseTensor:
    """Sparse times sparse: entries where both have one (coalesced operands, coalesced result)."""
    a, b = _coalesce_raw(a), _coalesce_raw(b)
    shape = a._data.shape
    common, ia, ib = np.intersect1d(_linear(a._sidx, shape), _linear(b._sidx, shape), return_indices=True)
    return _sparse(a._sidx[:, ia], a._svals[ia] * b._svals[ib], shape, True)


def _add_sparse(a: SparseTensor, b: SparseTensor, alpha: Any = 1) -> SparseTensor:
    """PyTorch's sparse add: one merge of the two entry lists in their order, equal positions summed."""
    shape = a._data.shape
    ka, kb = _linear(a._sidx, shape).tolist(), _linear(b._sidx, shape).tolist()
    dtype = np.result_type(a._svals, b._svals)
    va, vb = a._svals.astype(dtype), b._svals.astype(dtype) * alpha
    cols, vals = [], []
    i = j = 0
    while i < len(ka) and j < len(kb):
        if ka[i] < kb[j]:
            cols.append(a._sidx[:, i]); vals.append(va[i]); i += 1
        elif ka[i] > kb[j]:
            cols.append(b._sidx[:, j]); vals.append(vb[j]); j += 1
        else:
            cols.append(a._sidx[:, i]); vals.append(va[i] + vb[j]); i += 1; j += 1
    cols += [a._sidx[:, k] for k in range(i, len(ka))] + [b._sidx[:, k] for k in range(j, len(kb))]
    vals += [va[k] for k in range(i, len(ka))] + [vb[k] for k in range(j, len(kb))]
    indices = np.array(cols, np.int64).T.reshape(len(shape) - a._svals.ndim + 1, -1)
    values = np.array(vals, dtype).reshape((len(vals),) + a._svals.shape[1:])
    return _sparse(indices, values, shape, a._coalesced and b._coalesced)


def _transpose_sparse(t: SparseTensor, d0: int, d1: int) -> SparseTensor:
    n = t._data.ndim
    d0, d1 = d0 % n, d1 % n
    if max(d0, d1) >= t._sidx.shape[0]:
        raise NotImplementedError(not_implemented("transpose"))
    indices = t._sidx.copy()
    indices[[d0, d1]] = indices[[d1, d0]]
    shape = list(t._data.shape)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    return _sparse(indices, t._svals, tuple(shape), False)


def _transpose_grad(g: Any, d0: int, d1: int) -> Any:
    return _transpose_sparse(g, d0, d1) if isinstance(g, SparseTensor) else np.swapaxes(g, d0, d1)


# --- ops on sparse inputs (from rules.apply) -------------------------------------------------------
def dispatch(rule: Any, inputs: tuple, attrs: dict | None) -> Tensor:
    """`rule` applied to inputs of which one at least is sparse: PyTorch's sparse kernel, or its error."""
    name = rule.name
    attrs = attrs or {}
    handler = _HANDLERS.get(name)
    if handler is None:
        if name in _DENSE_OPS or (name in ("add", "sub") and not isinstance(inputs[0], SparseTensor)):
            return _apply_dense(rule, inputs, attrs)
        raise NotImplementedError(not_implemented(_ATEN_NAMES.get(name, name)))
    return handler(rule, inputs, attrs)


_ATEN_NAMES = {"mean": "mean.dim", "mean_dim": "mean.dim", "std": "std.correction", "var": "var.correction",
               "pow_tensor": "pow.Tensor_Tensor", "rpow": "pow.Scalar", "softmax": "_softmax",
               "log_softmax": "_log_softmax", "sum_dim": "sum.dim_IntList"}
# Ops whose result PyTorch computes densely from a sparse input (and whose gradient is dense).
_DENSE_OPS = frozenset({"mm", "mv", "addmm", "sum"})


def _apply_dense(rule: Any, inputs: tuple, attrs: dict) -> Tensor:
    """The rule's dense computation, with sparse inputs standing for their dense values."""
    from engine.rules import apply

    sparse = [x for x in inputs if isinstance(x, SparseTensor)]
    saved = [x._extra for x in sparse]
    for x in sparse:
        x._extra = None
    try:
        return apply(rule, inputs, attrs or None)
    finally:
        for x, extra in zip(sparse, saved):
            x._extra = extra


def _unary_values(fn: Callable, linear: bool, backward: Callable | None) -> Callable:
    """A zero-preserving elementwise op on the values (coalesced first unless it is linear)."""

    def handler(rule: Any, inputs: tuple, attrs: dict) -> Tensor:
        x = inputs[0]
        source = x if linear else _coalesce_raw(x)
        values = np.asarray(fn(source._svals, **attrs))
        if values.dtype == np.float64 and source._svals.dtype != np.float64:
            values = values.astype(source._svals.dtype if source._svals.dtype.kind == "f" else np.float32)
        out = _with_values(source, values, source._coalesced)
        grad = (lambda g: (backward(g, x, out, attrs),)) if backward is not None else \
            (lambda g: (_raise(rule.name),))
        return _record(rule.node_name, (x,), grad, out, attrs)

    return handler


def _raise(op: str) -> None:
    raise NotImplementedError(not_implemented(op))


def _sgn(x: SparseTensor) -> SparseTensor:
    c = _coalesce_raw(x)
    return _with_values(c, np.sign(c._svals))


def _pow_handler(rule: Any, inputs: tuple, attrs: dict) -> Tensor:
    if attrs.get("exponent") == 0:
        raise RuntimeError("pow: cannot raise to zeroth power on sparse tensor; it would make the result tensor dense")
    return _POW(rule, inputs, attrs)


def _pow_grad(g: Any, x: SparseTensor, out: SparseTensor, attrs: dict) -> Any:
    e = attrs["exponent"]
    c = _coalesce_raw(x)
    return _mul(g, _with_values(c, (e * c._svals ** (e - 1)).astype(c._svals.dtype)))


def _relu_grad(g: Any, x: SparseTensor, out: SparseTensor, attrs: dict) -> Any:
    return _mul(g, _with_values(out, (out._svals > 0).astype(out._svals.dtype)))


def _divide_error(g: Any, x: Any, out: Any, attrs: dict) -> Any:
    raise RuntimeError("Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
                       f"{list(out._data.shape)} for divisor)")


_POW = _unary_values(lambda v, exponent: v ** exponent, False, _pow_grad)


def _mul_handler(rule: Any, inputs: tuple, attrs: dict) -> Tensor:
    a, b = inputs
    av = a if isinstance(a, SparseTensor) else (a._data if isinstance(a, Tensor) else a)
    bv = b if isinstance(b, SparseTensor) else (b._data if isinstance(b, Tensor) else b)
    out = _mul(av, bv)
    if not isinstance(a, SparseTensor) and np.ndim(av) == 0 and isinstance(b, SparseTensor):
        out = _with_values(b, np.asarray(b._svals * av))
    if out._svals.dtype == np.float64 and not any(
            (isinstance(x, Tensor) and x._data.dtype == np.float64) for x in inputs):
        out = _with_values(out, out._svals.astype(np.float32))
    return _record("MulBackward0", inputs, lambda g: (_mul(g, bv), _mul(g, av)), out)


def _div_handler(rule: Any, inputs: tuple, attrs: dict) -> Tensor:
    a, b = inputs
    if not isinstance(a, SparseTensor) or isinstance(b, Tensor) and b._data.ndim:
        shape = list((b if isinstance(a, SparseTensor) else a)._data.shape) if isinstance(b, Tensor) and \
            b._data.ndim else list(b._data.shape)
        raise RuntimeError("Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
                           f"{shape} for divisor)")
    bv = b._data if isinstance(b, Tensor) else b
    values = np.asarray(a._svals / bv)
    if values.dtype == np.float64 and a._svals.dtype != np.float64 and not (
            isinstance(b, Tensor) and b._data.dtype == np.float64):
        values = values.astype(np.float32)
    out = _with_values(a, values)
    return _record("DivBackward0", inputs, lambda g: (_mul(g, 1 / bv), None), out)


def _add_handler(rule: Any, inputs: tuple, attrs: dict) -> Tensor:
    a, b = inputs
    alpha = attrs.get("alpha", 1) * (-1 if rule.name == "sub" else 1)
    if not isinstance(a, SparseTensor):
        return _apply_dense(rule, inputs, attrs)
    if not isinstance(b, SparseTensor):
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    out = _add_sparse(a, b, alpha)
    # Two gradients of one tensor summed in backward: PyTorch's .grad then keeps the sum's flag.
    out._shared = a is b and not grad_mode.state.enabled
    node = "SubBackward0" if rule.name == "sub" else "AddBackward0"
    return _record(node, inputs, lambda g: (g, g if alpha == 1 else _mul(g, alpha)), out)


def _t_handler(rule: Any, inputs: tuple, attrs: dict) -> Tensor:
    x = inputs[0]
    if rule.name == "t":
        d0, d1, node = 0, 1, "TBackward0"
        if x._data.ndim < 2:
            return _record(node, (x,), lambda g: (g,), _with_values(x, x._svals))
    else:
        d0, d1, node = attrs["dim0"], attrs["dim1"], "TransposeBackward0"
    out = _transpose_sparse(x, d0, d1)
    return _record(node, (x,), lambda g: (_transpose_grad(g, d0, d1),), out)


def _clone_handler(rule: Any, inputs: tuple, attrs: dict) -> Tensor:
    return inputs[0].clone()


def _cast(x: SparseTensor, dtype: np.dtype) -> Tensor:
    if dtype == x._data.dtype:
        return x
    out = _with_values(x, dtypes.cast(x._svals, dtype))
    if dtype.kind != "f":
        return out
    source = x._data.dtype
    return _unary_node(x, "ToCopyBackward0", out, lambda g: _cast_grad(g, source))


def _cast_grad(g: Any, dtype: np.dtype) -> Any:
    if isinstance(g, SparseTensor):
        return _with_values(g, dtypes.cast(g._svals, dtype))
    return dtypes.cast(np.asarray(g), dtype)


def _to_copy_handler(rule: Any, inputs: tuple, attrs: dict) -> Tensor:
    return _cast(inputs[0], attrs["dtype"])


def _select_handler(rule: Any, inputs: tuple, attrs: dict) -> Tensor:
    x = inputs[0]
    dim, index = attrs["dim"] % x._data.ndim, attrs["index"] % x._data.shape[attrs["dim"]]
    if dim >= x._sidx.shape[0]:
        raise NotImplementedError(not_implemented("select"))
    keep = x._sidx[dim] == index
    indices = np.delete(x._sidx[:, keep], dim, axis=0)
    shape = x._data.shape[:dim] + x._data.shape[dim + 1:]
    out = _sparse(indices, x._svals[keep], shape, indices.shape[1] <= 1)
    full = x._data.shape

    def grad(g: Any) -> tuple:
        if isinstance(g, SparseTensor):
            _raise("select_backward")
        dense = np.zeros(full, np.asarray(g).dtype)
        dense[(slice(None),) * dim + (index,)] = g
        return (dense,)

    return _record("SelectBackward0", (x,), grad, out)


def _sum_dim_handler(rule: Any, inputs: tuple, attrs: dict) -> Tensor:
    out = _sparse_sum(inputs[0], attrs["dim"])
    if not isinstance(out, SparseTensor):
        return out

    def grad(g: Any) -> tuple:
        raise RuntimeError("expand is unsupported for Sparse tensors")

    return _record("SumBackward1", inputs, grad, out)


def _sparse_sum(x: SparseTensor, dims: tuple) -> Tensor:
    """The sum over sparse dims `dims`, a coalesced sparse tensor (dense and 0-d when all are summed)."""
    n = x._sidx.shape[0]
    dims = sorted({d % x._data.ndim for d in dims})
    if any(d >= n for d in dims):
        raise NotImplementedError(not_implemented("sum.dim_IntList"))
    keep = [d for d in range(n) if d not in dims]
    shape = tuple(x._data.shape[d] for d in keep) + x._svals.shape[1:]
    c = _coalesce_raw(_sparse(x._sidx[keep], x._svals, shape, False))
    return c


def _mm_handler(rule: Any, inputs: tuple, attrs: dict) -> Tensor:
    return _apply_dense(rule, inputs, attrs)


_UNARY = {
    "neg": (np.negative, True, lambda g, x, out, a: _mul(g, -1)),
    "abs": (np.abs, False, lambda g, x, out, a: _mul(g, _sgn(x))),
    "relu": (lambda v: np.maximum(v, 0), False, _relu_grad),
    "sqrt": (np.sqrt, False, _divide_error),
    "sin": (np.sin, False, None),
    "tanh": (np.tanh, False, None),
    "sign": (np.sign, False, None),
    "floor": (np.floor, False, None),
    "ceil": (np.ceil, False, None),
    "trunc": (np.trunc, False, None),
    "sinh": (np.sinh, False, None),
    "tan": (np.tan, False, None),
    "asin": (np.arcsin, False, None),
    "atan": (np.arctan, False, None),
    "expm1": (np.expm1, False, None),
    "log1p": (np.log1p, False, lambda g, x, out, a: _mul(g, _with_values(_coalesce_raw(x), 1 / (
        _coalesce_raw(x)._svals + 1)))),
}
# Backward of sin, tanh...: the kernel PyTorch's formula calls has no sparse version.
_BACKWARD_OPS = {"sin": "cos", "tanh": "tanh_backward", "sinh": "cosh", "tan": "mul.Tensor", "asin": "sqrt",
                 "atan": "reciprocal", "expm1": "exp", "sign": "zeros_like", "floor": "zeros_like",
                 "ceil": "zeros_like", "trunc": "zeros_like"}

_HANDLERS: dict[str, Callable] = {
    "mul": _mul_handler, "div": _div_handler, "add": _add_handler, "sub": _add_handler,
    "t": _t_handler, "transpose": _t_handler, "clone": _clone_handler, "to_copy": _to_copy_handler,
    "select": _select_handler, "sum_dim": _sum_dim_handler, "pow": _pow_handler,
}
for _name, (_fn, _linear_op, _backward) in _UNARY.items():
    if _backward is None:
        _op = _BACKWARD_OPS[_name]
        _backward = (lambda op: lambda g, x, out, a: _raise(op))(_op)
    _HANDLERS[_name] = _unary_values(_fn, _linear_op, _backward)


def _add_dense_first(rule: Any, inputs: tuple, attrs: dict) -> Tensor:
    return _apply_dense(rule, inputs, attrs)


# --- values(), torch.sparse.sum/mm/addmm ------------------------------------------------------------
def _values_op(x: SparseTensor) -> Tensor:
    out = Tensor._make(x._svals)
    return _unary_node(x, "ValuesBackward0", out,
                       lambda g: _sparse(x._sidx, np.array(_dense_of(g)), x._data.shape, True, shared=True))


def sparse_sum(input: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    """torch.sparse.sum: all entries (a dense 0-d tensor, through coalesce and values) or over dims."""
    if not isinstance(input, SparseTensor):
        from engine import functions

        return functions.sum(input, dim) if dim is not None else functions.sum(input)
    if dim is None:
        from engine import functions

        return functions.sum(input.coalesce().values())
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if len({d % input._data.ndim for d in dims}) == input._data.ndim:
        dense = Tensor._make(np.asarray(input._svals.sum(axis=0)))
        return _record("SparseSumBackward0", (input,), lambda g: (_sparse_mask(np.broadcast_to(
            _dense_of(g), input._data.shape), input),), dense)
    out = _sparse_sum(input, dims)
    kept = [d for d in range(input._data.ndim) if d % input._data.ndim not in {x % input._data.ndim for x in dims}]

    def grad(g: Any) -> tuple:
        dense = _dense_of(g)
        for d in sorted(set(range(input._data.ndim)) - set(kept)):
            dense = np.expand_dims(dense, d)
        return (_sparse_mask(np.broadcast_to(dense, input._data.shape), input),)

    return _record("SparseSumBackward0", (input,), grad, out)


def sparse_addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """torch.sparse.addmm: beta * input + alpha * mat1 @ mat2 with a sparse mat1 (SparseAddmmBackward0)."""
    if not isinstance(mat1, SparseTensor):
        from engine import functions

        return functions.addmm(input, mat1, mat2, beta=beta, alpha=alpha)
    if isinstance(mat2, SparseTensor):
        raise NotImplementedError(not_implemented("addmm"))
    a, b = mat1._data, mat2._data
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1] if a.ndim > 1 else 1}"
                           f" and {b.shape[0]}x{b.shape[1] if b.ndim > 1 else 1})")
    base = input._data if isinstance(input, Tensor) else np.asarray(input, b.dtype)
    result = np.asarray(alpha * (a @ b), b.dtype)
    if beta != 0:
        result = np.asarray(result + beta * base, b.dtype)
    out = Tensor._make(np.broadcast_to(result, (a.shape[0], b.shape[1])).copy())

    def grad(g: Any) -> tuple:
        g = _dense_of(g)
        return (np.asarray(g * beta, base.dtype) if beta != 1 else g,
                _mul(_sparse_mask(g @ b.T, mat1), alpha) if alpha != 1 else _sparse_mask(g @ b.T, mat1),
                np.asarray(alpha * (a.T @ g), b.dtype))

    return _record("SparseAddmmBackward0", (input, mat1, mat2), grad, out)


def sparse_mm(mat1: Tensor, mat2: Tensor) -> Tensor:
    """torch.sparse.mm: sparse @ dense, dense result (SparseAddmmBackward0 of a zero input, beta 0)."""
    if not isinstance(mat1, SparseTensor):
        from engine import functions

        return functions.mm(mat1, mat2)
    zeros = Tensor._make(np.zeros((mat1._data.shape[0], mat2._data.shape[-1]), mat2._data.dtype))
    return sparse_addmm(zeros, mat1, mat2, beta=0)


# --- gradient accumulation ---------------------------------------------------------------------------
def accumulate(leaf: Tensor, grad: Any) -> None:
    """Add a gradient into `.grad` when either is sparse. A first sparse gradient becomes .grad
    without a copy (marked uncoalesced, as PyTorch rewraps it) unless its indices belong to another
    tensor; sparse + sparse merges; dense with sparse gives dense."""
    before = leaf._grad
    if before is None:
        if isinstance(grad, SparseTensor):
            leaf._grad = _sparse(grad._sidx, grad._svals, grad._data.shape,
                                 grad._coalesced and grad._shared)
        else:
            leaf._grad = Tensor._make(np.array(grad, dtype=leaf._data.dtype))
    elif isinstance(before, SparseTensor) and isinstance(grad, SparseTensor):
        leaf._grad = _add_sparse(before, grad)
    elif isinstance(before, SparseTensor):
        leaf._grad = Tensor._make(np.asarray(np.asarray(grad) + before._data, leaf._data.dtype))
    else:
        np.add(before._data, grad._data, out=before._data, casting="unsafe")
        before._vc[0] += 1


Tensor.to_sparse = to_sparse  # type: ignore[attr-defined]
Tensor.to_dense = dense_to_dense  # type: ignore[attr-defined]
