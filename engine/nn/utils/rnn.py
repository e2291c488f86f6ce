"""torch.nn.utils.rnn: padding and packing batches of variable-length sequences (PackedSequence)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from engine import creation, dtypes
from engine import functions as f
from engine.rules import apply
from engine.tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


class PackedSequence_(NamedTuple):  # noqa: N801 - PyTorch's name
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(PackedSequence_):
    """Holds the data and list of batch_sizes of a packed sequence."""

    def __new__(cls, data: Any, batch_sizes: Tensor | None = None, sorted_indices: Tensor | None = None,
                unsorted_indices: Tensor | None = None) -> "PackedSequence":
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        moved = [None if t is None else t.to(data.device) for t in (self.sorted_indices, self.unsorted_indices)]
        return type(self)(data, self.batch_sizes, *moved)

    def cuda(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        return self.to(*args, **{**kwargs, "device": "cuda"})

    def cpu(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        return self.to(*args, **{**kwargs, "device": "cpu"})

    def double(self) -> "PackedSequence":
        return self.to(dtype=dtypes.float64)

    def float(self) -> "PackedSequence":
        return self.to(dtype=dtypes.float32)

    def half(self) -> "PackedSequence":
        return self.to(dtype=dtypes.float16)

    def long(self) -> "PackedSequence":
        return self.to(dtype=dtypes.int64)

    def int(self) -> "PackedSequence":
        return self.to(dtype=dtypes.int32)

    def short(self) -> "PackedSequence":
        return self.to(dtype=dtypes.int16)

    def char(self) -> "PackedSequence":
        return self.to(dtype=dtypes.int8)

    def byte(self) -> "PackedSequence":
        return self.to(dtype=dtypes.uint8)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return False


PackedSequence_.__module__ = PackedSequence.__module__ = "torch.nn.utils.rnn"  # as type() shows them


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse of a permutation (sorted_indices to unsorted_indices)."""
    if permutation is None:
        return None
    output = creation.empty_like(permutation)
    output.scatter_(0, permutation, creation.arange(0, permutation.numel()))
    return output


def pack_padded_sequence(input: Tensor, lengths: Any, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Packs a Tensor containing padded sequences of variable length."""
    if not isinstance(lengths, Tensor):
        lengths = creation.as_tensor(lengths, dtype=dtypes.int64, device="cpu")
    else:
        lengths = lengths.to(dtype=dtypes.int64)
    sorted_indices = None
    f._wrap_dim(1, input.dim())  # a batch dim is needed (PyTorch's IndexError)
    if not enforce_sorted:
        lengths, sorted_indices = f.sort(lengths, descending=True)
        input = f.index_select(input, 0 if batch_first else 1, sorted_indices)
    data, batch_sizes = apply(_rule(), (input,), {"lengths": lengths._data, "batch_first": bool(batch_first)})
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def _rule() -> Any:
    from engine.ops import PACK_PADDED_SEQUENCE

    return PACK_PADDED_SEQUENCE


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple:
    """Pads a packed batch of variable length sequences (the inverse of pack_padded_sequence)."""
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    padded_output, lengths = _pad_packed(sequence.data, sequence.batch_sizes, batch_first, padding_value,
                                         max_seq_length)
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        return f.index_select(padded_output, 0 if batch_first else 1, unsorted_indices), lengths[unsorted_indices]
    return padded_output, lengths


def _pad_packed(data: Tensor, batch_sizes: Tensor, batch_first: bool, padding_value: Any,
                total_length: int) -> tuple:
    """_pad_packed_sequence: runs of steps with the same batch size copied into a padded tensor."""
    sizes = [int(n) for n in batch_sizes._data.tolist()]
    max_batch = sizes[0]
    steps = max(total_length, len(sizes)) if total_length > 0 else len(sizes)
    output = creation.full([steps, max_batch] + list(data.shape[1:]), padding_value, dtype=data.dtype)
    lengths = [0] * max_batch
    offset, prev_batch, prev_i, slot = 0, max_batch, 0, max_batch - 1
    for i in range(len(sizes) + 1):
        batch = sizes[i] if i != len(sizes) else 0
        if batch != prev_batch:
            n = prev_batch * (i - prev_i)
            block = data[offset:offset + n].view([i - prev_i, prev_batch] + list(data.shape[1:]))
            output[prev_i:i, :prev_batch].copy_(block)
            offset += n
            prev_i = i
            for _ in range(prev_batch - batch):
                lengths[slot] = i
                slot -= 1
        prev_batch = batch
    if batch_first:
        output = f.transpose(output, 0, 1)
    return output, creation.tensor(lengths, dtype=dtypes.int64)


def pad_sequence(sequences: Any, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Pads a list of variable length Tensors with padding_value."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    trailing = list(sequences[0].shape[1:])
    max_len = max(s.size(0) for s in sequences)
    dims = [len(sequences), max_len] if batch_first else [max_len, len(sequences)]
    out = creation.full(dims + trailing, padding_value, dtype=sequences[0].dtype)
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    for i, seq in enumerate(sequences):
        length = seq.size(0)
        start = max_len - length if padding_side == "left" else 0
        if batch_first:
            f.narrow(f.select(out, 0, i), 0, start, length).copy_(seq)
        else:
            f.select(f.narrow(out, 0, start, length), 1, i).copy_(seq)
    return out


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list:
    """Unpads a padded Tensor into a list of variable length Tensors."""
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    idx = creation.arange(padded_sequences.shape[1])
    return [seq[idx < length] for seq, length in zip(padded_sequences, lengths, strict=True)]


def pack_sequence(sequences: list, enforce_sorted: bool = True) -> PackedSequence:
    """Packs a list of variable length Tensors (pad_sequence, then pack_padded_sequence)."""
    lengths = creation.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """Unpacks a PackedSequence into a list of variable length Tensors."""
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)
