"""nn.EmbeddingBag and F.embedding_bag: sums, means or maxima of bags of embedding rows (EmbeddingBagBackward0)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from engine import creation, ops
from engine.grad_mode import no_grad
from engine.nn import Module, init
from engine.rules import ArrayMath, apply
from engine.tensor import Parameter, Tensor

_NO_PADDING = 18446744073709551615  # PyTorch saves padding_idx -1 as this unsigned value
_MODES = {"sum": 0, "mean": 1, "max": 2}


def _bags(indices: np.ndarray, offsets: np.ndarray, include_last_offset: bool) -> tuple:
    """Each bag's [start, end) positions in indices."""
    n = indices.size
    if include_last_offset:
        starts = offsets[:-1]
        ends = np.append(offsets[1:-1], n) if len(starts) else offsets[:0]
    else:
        starts, ends = offsets, np.append(offsets[1:], n)
    return starts, np.minimum(ends, n)


def _embedding_bag(weight: Any, per_sample_weights: Any, indices: Any, offsets: Any, mode: int = 1,
                   padding_idx: int = -1, include_last_offset: bool = False, **_: Any) -> tuple:
    """(output, offset2bag, bag_size, max_indices) as PyTorch's CPU kernel computes them."""
    w = np.asarray(weight)
    padding_idx = -1 if padding_idx == _NO_PADDING else padding_idx
    starts, ends = _bags(indices, offsets, include_last_offset)
    nbags, dim = len(starts), w.shape[1]
    out = np.zeros((nbags, dim), w.dtype)
    keep = indices != padding_idx if padding_idx >= 0 else np.ones(indices.size, bool)
    offset2bag = np.zeros(indices.size, np.int64)
    bag_size = np.zeros(nbags, np.int64)
    max_indices = np.zeros((nbags, dim), np.int64)
    # with include_last_offset the last bag is summed up to offsets[-1] but sized (and maxed) up to the end
    declared = np.minimum(offsets[1:], indices.size) if include_last_offset else ends
    for b, (s, e) in enumerate(zip(starts, ends)):
        offset2bag[s:e] = b
        bag_size[b] = np.count_nonzero(keep[s:e])
        stop = ends[b] if mode == 2 else declared[b]
        pos = np.arange(s, stop)[keep[s:stop]]
        if pos.size == 0:
            continue
        rows = w[indices[pos]]
        if mode == 2:
            arg = np.argmax(rows, axis=0)
            out[b] = rows[arg, np.arange(dim)]
            max_indices[b] = indices[pos][arg]
        else:
            if per_sample_weights is not None:
                rows = rows * np.asarray(per_sample_weights)[pos, None]
            total = np.sum(rows, axis=0, dtype=w.dtype)
            out[b] = total / w.dtype.type(bag_size[b]) if mode == 1 else total
    if mode == 0 and padding_idx < 0 and per_sample_weights is None:
        return out, np.zeros(0, np.int64), np.zeros(nbags, np.int64), np.zeros(nbags, np.int64)
    if mode == 0:
        bag_size[:] = 0
        return out, offset2bag, bag_size, np.zeros(nbags, np.int64)
    if mode == 1:
        return out, offset2bag, bag_size, bag_size.copy()
    return out, offset2bag, bag_size, max_indices


def _weight_grad_array(g: np.ndarray, weight: np.ndarray, per_sample_weights: Any, indices: np.ndarray,
                       offsets: np.ndarray, mode: int, padding_idx: int, include_last_offset: bool,
                       scale_grad_by_freq: bool, max_indices: np.ndarray) -> np.ndarray:
    """PyTorch's _embedding_bag_dense_backward on CPU, including how it scales by frequency: the k-th distinct
    index's rows are divided by the count of the index at position k of the sorted indices."""
    grad = np.zeros(weight.shape, g.dtype)
    starts, ends = _bags(indices, offsets, include_last_offset)
    offset2bag = np.zeros(indices.size, np.int64)
    bag_size = np.zeros(len(starts), np.int64)
    for b, (s, e) in enumerate(zip(starts, ends)):
        offset2bag[s:e] = b
        bag_size[b] = np.count_nonzero(indices[s:e] != padding_idx) if padding_idx >= 0 else e - s
    if mode == 2:
        for b in range(len(starts)):
            if bag_size[b]:
                np.add.at(grad, (max_indices[b], np.arange(weight.shape[1])), g[b])
        return grad
    order = np.argsort(indices, kind="stable")
    ordered = indices[order]
    counts = np.bincount(indices, minlength=weight.shape[0])
    groups = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if ordered.size else np.zeros(0, int)
    for k, start in enumerate(groups):
        index = ordered[start]
        if index == padding_idx:
            continue
        end = groups[k + 1] if k + 1 < len(groups) else ordered.size
        for j in order[start:end]:
            source = offset2bag[j]
            scale = 1.0
            if per_sample_weights is not None:
                scale = float(np.asarray(per_sample_weights)[j])
            if scale_grad_by_freq:
                scale /= counts[ordered[k]]
            if mode == 1 and bag_size[source]:
                scale /= bag_size[source]
            grad[index] += g.dtype.type(scale) * g[source]
    return grad


def _const(F: Any, a: np.ndarray) -> Any:
    """PyTorch's embedding_bag gradients are not differentiable: a plain tensor under create_graph."""
    return a if F is ArrayMath else Tensor._make(a)


def _grad_weight(F: Any, grad: Any, indices: Any, offsets: Any, mode: int, padding_idx: int,
                 per_sample_weights: Any, result1: Any, result2: Any, result3: Any, scale_grad_by_freq: bool,
                 weight: Any, attrs: dict) -> Any:
    g = np.asarray(F.raw(grad[0]))
    psw = None if per_sample_weights is None else np.asarray(F.raw(per_sample_weights))
    pad = -1 if padding_idx == _NO_PADDING else padding_idx
    return _const(F, _weight_grad_array(g, np.asarray(F.raw(weight)), psw, np.asarray(indices),
                                        np.asarray(offsets), mode, pad, attrs.get("include_last_offset", False),
                                        scale_grad_by_freq, np.asarray(result3)))


def _per_sample_weights_backward(grad: Any, weight: Any, indices: Any, offsets: Any, padding_idx: int,
                                 include_last_offset: bool) -> Any:
    """PyTorch's _embedding_bag_per_sample_weights_backward: each sample's bag grad dotted with its row."""
    g, w, idx = np.asarray(grad), np.asarray(weight), np.asarray(indices)
    starts, ends = _bags(idx, np.asarray(offsets), include_last_offset)
    out = np.zeros(idx.size, g.dtype)
    for b, (s, e) in enumerate(zip(starts, ends)):
        for p in range(s, e):
            if padding_idx == _NO_PADDING or idx[p] != padding_idx:
                out[p] = np.dot(g[b], w[idx[p]])
    return out


def _grad_per_sample_weights(F: Any, grad: Any, indices: Any, offsets: Any, mode: int, padding_idx: int,
                             weight: Any, attrs: dict) -> Any:
    out = _per_sample_weights_backward(F.raw(grad[0]), F.raw(weight), indices, offsets, padding_idx,
                                       attrs.get("include_last_offset", False))
    if F is ArrayMath:
        return out
    from engine.functions import not_implemented_result

    return not_implemented_result("_embedding_bag_per_sample_weights_backward", out, (grad[0], weight))


EMBEDDING_BAG = ops.rule(
    "embedding_bag", "EmbeddingBagBackward0", _embedding_bag, (_grad_weight, _grad_per_sample_weights),
    ("grad rows added at each bag's indices (scaled by mode, per_sample_weights, frequencies)",
     "grad rows dotted with the weight rows picked"),
    inputs=("weight", "per_sample_weights"), outputs=4, differentiable_outputs=(0,),
    output_names=("result0", "result1", "result2", "result3"),
    extra_saves=("indices", "offsets", "mode", "padding_idx", "per_sample_weights", "result1", "result2", "result3",
                 "scale_grad_by_freq", "sparse", "weight", "weight_sym_argsize_0"),
    defaults={"mode": 1, "padding_idx": -1, "include_last_offset": False, "scale_grad_by_freq": False,
              "sparse": False})


def _check_index(t: Tensor, name: str) -> np.ndarray:
    data = t._data
    if data.dtype.kind not in "iu" or data.dtype.itemsize not in (4, 8):
        raise RuntimeError(f"Expected tensor for argument #1 '{name}' to have one of the following scalar types: "
                           f"Long, Int; but got {t.type()} instead (while checking arguments for embedding_bag)")
    return data.astype(np.int64).reshape(-1)


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """Sums, means or maxima of bags of rows of `weight` (bags: rows of a 2-D input, or cut at offsets)."""
    from engine import dtypes

    if weight.dtype == dtypes.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.",
                      stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if not weight.dim() == 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences. However, found offsets of type "
                             f"{str(type(offsets)).replace('engine.tensor', 'torch')}")
        offsets = creation.arange(0, input.numel(), input.size(1), dtype=input.dtype)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    indices = _check_index(input, "indices")
    rows = weight.shape[0]
    if max_norm is not None:
        from engine.nn.functional import _embedding_renorm

        _embedding_renorm(weight, indices, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                  "on GitHub.")
    offs = _check_index(offsets, "offsets")
    if padding_idx is not None:
        if not -rows <= padding_idx < rows:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{rows} through {rows - 1}, "
                               f"but got {padding_idx}")
        padding_idx %= rows
    for i, v in enumerate(indices):
        if not 0 <= v < rows:
            raise RuntimeError(f"Index {i} of input takes value {v} which is not in the valid range [0, {rows})")
    if offs.size and offs[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {offs[0]}\n[ torch.LongTensor{{}} ]")
    if offs.size and offs[-1] > indices.size:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {indices.size} but got "
                           f"offsets[-1] of {offs[-1]}")
    attrs = {"indices": indices, "offsets": offs, "mode": _MODES[mode],
             "padding_idx": _NO_PADDING if padding_idx is None else padding_idx,
             "include_last_offset": include_last_offset, "scale_grad_by_freq": scale_grad_by_freq, "sparse": sparse,
             "weight_sym_argsize_0": rows}
    return apply(EMBEDDING_BAG, (weight, per_sample_weights), attrs)[0]


class EmbeddingBag(Module):
    """Bags of embeddings reduced by sum, mean or max, without building the per-index rows."""

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm: float | None = None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                 _weight: Tensor | None = None, include_last_offset: bool = False, padding_idx: int | None = None,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if padding_idx is not None:
            if padding_idx > 0:
                if padding_idx >= self.num_embeddings:
                    raise AssertionError("padding_idx must be within num_embeddings")
            elif padding_idx < 0:
                if padding_idx < -self.num_embeddings:
                    raise AssertionError("padding_idx must be within num_embeddings")
                padding_idx = self.num_embeddings + padding_idx
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(creation.empty(num_embeddings, embedding_dim, dtype=dtype))
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight)
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor, offsets: Tensor | None = None,
                per_sample_weights: Tensor | None = None) -> Tensor:
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                             self.mode, self.sparse, per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings!r}, {self.embedding_dim!r}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm!r}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type!r}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq!r}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx!r}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True, max_norm: float | None = None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
                        sparse: bool = False, include_last_offset: bool = False,
                        padding_idx: int | None = None) -> "EmbeddingBag":
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, max_norm=max_norm,
                  norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                  include_last_offset=include_last_offset, padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
