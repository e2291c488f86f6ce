"""Tensor dtypes with PyTorch's names, each tied to its NumPy dtype."""

from __future__ import annotations

from typing import Any

import numpy as np


class dtype:  # noqa: N801 - PyTorch's spelling
    __slots__ = ("name", "np", "is_floating_point", "is_complex", "legacy", "cpp", "itemsize", "is_signed")

    def __init__(self, name: str, np_dtype: type, legacy: str, cpp: str) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np.kind == "f"
        self.is_complex = self.np.kind == "c"
        self.legacy = legacy
        self.cpp = cpp  # the C++ type's name, as some of PyTorch's messages show it
        self.itemsize = self.np.itemsize
        self.is_signed = self.np.kind in "ifc"

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def to_real(self) -> "dtype":
        """The real dtype of a complex one's parts (a real dtype is itself)."""
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    def to_complex(self) -> "dtype":
        """The complex dtype with parts of this dtype (float64: complex128; float32, float16: complex64)."""
        if self.np.kind not in "fc":
            raise RuntimeError(f"Unknown Complex ScalarType for {self.legacy}")
        return from_numpy(complex_of(self.np))

    def __reduce__(self) -> str:
        return self.name


float16 = dtype("float16", np.float16, "Half", "c10::Half")
float32 = dtype("float32", np.float32, "Float", "float")
float64 = dtype("float64", np.float64, "Double", "double")
int8 = dtype("int8", np.int8, "Char", "signed char")
uint8 = dtype("uint8", np.uint8, "Byte", "unsigned char")
int16 = dtype("int16", np.int16, "Short", "short int")
int32 = dtype("int32", np.int32, "Int", "int")
int64 = dtype("int64", np.int64, "Long", "long int")
bool_ = dtype("bool", np.bool_, "Bool", "bool")
# NumPy has no bfloat16: its tensors hold float32 values rounded to bfloat16 (see round_bf16), in
# the big-endian float32 dtype, which tells them apart from float32 ones and which nothing else
# uses (from_numpy refuses non-native byte orders, as PyTorch does). NumPy computes on them in
# float32 and returns native float32; results of bfloat16 ops are rounded back (rules.apply).
BF16 = np.dtype(">f4")
bfloat16 = dtype("bfloat16", BF16, "BFloat16", "c10::BFloat16")
bfloat16.itemsize = 2

complex64 = dtype("complex64", np.complex64, "ComplexFloat", "c10::complex<float>")
complex128 = dtype("complex128", np.complex128, "ComplexDouble", "c10::complex<double>")

ALL = (float16, float32, float64, int8, uint8, int16, int32, int64, bool_, bfloat16, complex64, complex128)
_BY_NP = {d.np: d for d in ALL}
ALIASES = {
    "half": float16, "float": float32, "double": float64, "short": int16,
    "int": int32, "long": int64, "bool": bool_, "cfloat": complex64, "cdouble": complex128,
}
default_float = float32


def default_complex() -> dtype:
    """The complex dtype of the default float dtype (complex128 for float64, else complex64)."""
    return complex128 if default_float is float64 else complex64


def complex_of(d: np.dtype) -> np.dtype:
    """The complex NumPy dtype holding values of `d` (PyTorch's toComplexType; float16 and
    bfloat16, whose complex type the engine lacks, go to complex64)."""
    if d.kind == "c":
        return d
    return np.dtype(np.complex128) if d == np.float64 else np.dtype(np.complex64)


def round_bf16(a: Any) -> np.ndarray:
    """Values rounded to bfloat16 as PyTorch rounds them (through float32, then to nearest, ties
    to even, on the upper 16 bits; NaN becomes the quiet NaN): a new array of dtype BF16."""
    f = np.array(a, dtype=np.float32)  # a native copy (from float64: rounded to float32 first, as c10 does)
    bits = f.view(np.uint32)
    bits += np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))  # NaN is fixed below
    bits &= np.uint32(0xFFFF0000)
    nan = np.isnan(np.asarray(a, dtype=np.float32))
    if nan.any():
        f[nan] = np.uint32(0x7FC00000).view(np.float32)
    return f.astype(BF16)


def cast(a: np.ndarray, np_dtype: np.dtype) -> np.ndarray:
    """`a` as `np_dtype` (a new array), rounded when that is bfloat16."""
    a = np.asarray(a)
    if a.dtype.kind == "c" and np.dtype(np_dtype).kind != "c":
        a = a.real  # the imaginary part is discarded, as PyTorch does (see complex_ops)
    if np_dtype == BF16:
        return round_bf16(a)
    return a.astype(np_dtype)


def write(dst: np.ndarray, src: Any) -> None:
    """np.copyto(dst, src) with unsafe casting, rounding to bfloat16 when `dst` holds bfloat16."""
    if dst.dtype == BF16:
        src = round_bf16(src)
    np.copyto(dst, src, casting="unsafe")


def from_numpy(np_dtype: np.dtype) -> dtype:
    """The engine dtype of a NumPy dtype."""
    try:
        return _BY_NP[np_dtype]
    except KeyError:
        raise TypeError(f"unsupported dtype {np_dtype}") from None


def to_numpy(d: dtype | type | None) -> np.dtype | None:
    """Accept an engine dtype, a Python type (float, int, bool) or None."""
    if d is None or isinstance(d, np.dtype):
        return d
    if isinstance(d, dtype):
        return d.np
    if d is float:  # PyTorch reads the Python types as double, long, bool and cdouble
        return float64.np
    if d is int:
        return int64.np
    if d is bool:
        return bool_.np
    if d is complex:
        return complex128.np
    raise TypeError(f"dtype must be a torch.dtype, got {d!r}")


_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
                 "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")


class device:  # noqa: N801 - PyTorch's spelling
    """torch.device: a device type and optional index (the engine computes on the CPU only)."""

    __slots__ = ("type", "index")

    def __init__(self, type: "str | device", index: int | None = None) -> None:  # noqa: A002 - torch's name
        if isinstance(type, device):
            type, index = type.type, type.index
        elif ":" in type and index is None:
            type, _, number = type.partition(":")
            index = int(number)
        if type not in _DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device "
                               f"string: {type}")
        self.type = type
        self.index = index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


# --- type promotion: PyTorch's promote_types and result_type -----------------------------------
def _category(d: np.dtype) -> int:
    """bool < integer < floating < complex, the order in which a higher category wins promotion."""
    kind = d.kind
    return 0 if kind == "b" else 2 if kind == "f" else 3 if kind == "c" else 1


def promote_np(a: np.dtype, b: np.dtype) -> np.dtype:
    """PyTorch's promote_types on NumPy dtypes: the higher category wins (int64 with float16 is
    float16, unlike NumPy); within a category, the wider type (uint8 with int8 is int16)."""
    if a == b:
        return a
    ca, cb = _category(a), _category(b)
    if ca != cb:
        if ca == 3 or cb == 3:  # complex with float64 is complex128
            return _COMPLEX128 if _F64 in (a, b) else (a if ca > cb else b)
        return a if ca > cb else b
    return np.promote_types(a, b)


_COMPLEX128 = np.dtype(np.complex128)
_F64 = np.dtype(np.float64)


def _combine(higher: np.dtype | None, lower: np.dtype | None) -> np.dtype | None:
    """PyTorch's combine_categories: `lower` (a lower-priority operand class) changes the result
    only when it is of a higher category (or `higher` is bool)."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.kind == "c":
        return higher
    if lower.kind == "c":  # a float keeps its precision: float64 with a complex64 is complex128
        return complex_of(higher) if higher.kind == "f" else lower
    if higher.kind == "f":
        return higher
    if higher.kind == "b" or lower.kind == "f":
        return promote_np(higher, lower)
    return higher


def result_type_np(operands: Any) -> np.dtype:
    """The dtype PyTorch computes an elementwise op of `operands` in. Each operand is a NumPy array
    (a tensor's data; 0-d ones rank below dimensioned ones) or a Python number (ranking lowest:
    a float counts as the default dtype, an int as int64)."""
    dim = zero = wrapped = None
    for x in operands:
        if isinstance(x, np.ndarray):
            d = x.dtype
            if x.ndim:
                dim = d if dim is None else promote_np(dim, d)
            else:
                zero = d if zero is None else promote_np(zero, d)
            continue
        if isinstance(x, (bool, np.bool_)):
            d = np.dtype(np.bool_)
        elif isinstance(x, (int, np.integer)):
            d = np.dtype(np.int64)
        elif isinstance(x, (float, np.floating)):
            d = default_float.np
        elif isinstance(x, (complex, np.complexfloating)):
            d = default_complex().np
        else:
            continue
        wrapped = d if wrapped is None else promote_np(wrapped, d)
    out = _combine(dim, _combine(zero, wrapped))
    return out if out is not None else default_float.np


def can_cast(src: np.dtype, dst: np.dtype) -> bool:
    """PyTorch's canCast: no complex result into a real tensor, no floating one into an integer or
    bool tensor, no integer into bool."""
    return _category(src) <= _category(dst)
