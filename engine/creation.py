"""Tensor constructors: tensor, zeros, ones, full, arange, linspace, eye, rand, randn, randint."""

from __future__ import annotations

import math
import warnings
from typing import Any, Sequence

import numpy as np

from engine import devices, dtypes, info, observe
from engine.tensor import Tensor


def _finish(array: np.ndarray, requires_grad: bool, source: Any = None) -> Tensor:
    if array.dtype.byteorder == ">":  # bfloat16 (see dtypes.BF16)
        array = dtypes.round_bf16(array)
    t = Tensor._make(array)
    if requires_grad:
        if array.dtype.kind not in "fc":
            from engine import messages

            raise RuntimeError(messages.REQUIRES_GRAD_DTYPE)
        t.requires_grad_(True)
    if observe.current is not None:
        observe.current.tensor_created(t, source)
    return t


def _int_like(x: Any) -> bool:
    """An element PyTorch's parser takes as an int: an int (a bool too), a NumPy integer or an integer 0-d tensor."""
    if isinstance(x, (int, np.integer)):
        return True
    return isinstance(x, Tensor) and x._data.ndim == 0 and x._data.dtype.kind in "iub"


def _type_name(x: Any) -> str:
    tp = type(x)
    if isinstance(x, Tensor) or tp.__module__ == "builtins":
        return "Tensor" if isinstance(x, Tensor) else tp.__name__
    return f"{tp.__module__}.{tp.__name__}"


_RAND_SIGNATURES = (
    " * (tuple of ints size, *, torch.Generator generator, Tensor out = None, torch.dtype dtype = None, "
    "torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n"
    " * (tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
    "torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n")


def check_size(size: Sequence, name: str, position: int = 1, keywords: dict | None = None) -> None:
    """PyTorch's TypeErrors for a size that is not ints: zeros(2.0), zeros((2.0,)), zeros(2, 3.0)..."""
    given = {k: v for k, v in (keywords or {}).items() if v is not None and v is not False}
    if name in ("rand", "randn") and size and not isinstance(size[0], (tuple, list)) and not _int_like(size[0]) \
            and (len(size) > 1 or given):
        names = {"dtype": "torch.dtype", "generator": "torch._C.Generator", "device": "torch.device"}
        got = [_type_name(x) for x in size] + [f"{k}={names.get(k, _type_name(v))}" for k, v in given.items()]
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({', '.join(got)}), but "
                        f"expected one of:\n{_RAND_SIGNATURES}")
    if len(size) == 1 and not isinstance(size[0], (tuple, list)):
        x = size[0]
        if not _int_like(x) or isinstance(x, bool) or name == "full":
            raise TypeError(f"{name}(): argument 'size' (position {position}) must be tuple of ints, not {_type_name(x)}")
        return
    items = size[0] if len(size) == 1 else size
    for i, x in enumerate(items):
        if _int_like(x):
            continue
        if i == 0 and len(size) == 1:
            raise TypeError(f"{name}(): argument 'size' (position {position}) must be tuple of ints, but found "
                            f"element of type {_type_name(x)} at pos 0")
        if i == 0 and name in ("zeros", "ones", "empty"):
            raise TypeError(f"{name}() takes 1 positional argument but {len(size)} were given")
        if i > 0:
            raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                            f"\"type must be tuple of ints,but got {_type_name(x)}\"")


def _size(size: Sequence) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        shape = tuple(int(s) for s in size[0])
    else:
        shape = tuple(int(s) for s in size)
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(shape)}")
    return shape


def _unwrap(data: Any) -> Any:
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_unwrap(d) for d in data]
    tp = type(data)
    if hasattr(tp, "__len__") and hasattr(tp, "__getitem__") and not isinstance(data, (np.ndarray, str, bytes, dict)):
        # another sequence (a Dataset...): read by index as PyTorch does (NumPy would iterate until an
        # IndexError that a user's __getitem__ may never raise)
        return [_unwrap(data[i]) for i in range(len(data))]
    return data


_BYTE_ORDER = ("given numpy array has byte order different from the native byte order. Conversion between "
               "byte orders is currently not supported.")


def tensor(data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    from engine.dtype_args import check

    check("tensor", dtype)
    devices.check(device, creating=True)
    if device is not None:
        from engine import meta

        if meta.is_meta_device(device):
            return meta.emptied(tensor(data, dtype, None, requires_grad))
    if isinstance(data, np.ndarray) and data.dtype.byteorder == ">":
        raise ValueError(_BYTE_ORDER)
    if type(data) is np.ndarray and dtype is None and data.dtype.kind in "fiubc":
        return _finish(np.array(data), requires_grad)  # NumPy data keeps its dtype, as in PyTorch
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
    np_dtype = dtypes.to_numpy(dtype)
    try:
        array = np.array(_unwrap(data), dtype=np_dtype)
    except OverflowError:
        if np_dtype is None or np_dtype.kind not in "iu":
            raise
        array = _fitted_ints(data, np_dtype)
    except ValueError:
        _check_ragged(data)
        _raise_data_error(data, final=False)
        raise
    except TypeError as e:
        if "complex" in str(e) and np_dtype is not None and np_dtype.kind == "f":
            raise TypeError("must be real number, not complex") from None
        if "complex" in str(e) and np_dtype is not None and np_dtype.kind in "iu":
            raise TypeError("'complex' object cannot be interpreted as an integer") from None
        raise
    if np_dtype is None and isinstance(data, (int, list, tuple)) and (array.dtype.kind in "Ou" or (
            array.dtype.kind == "f" and array.size and np.abs(array).max() >= 2.0 ** 63)):
        array = _inferred_with_big_ints(data, array)
    if np_dtype is None and isinstance(data, (np.ndarray, np.generic, Tensor)) and array.dtype.kind in "fiubc":
        return _finish(array, requires_grad)  # NumPy data and tensors keep their dtype, as in PyTorch
    if np_dtype is None and isinstance(data, (list, tuple)) and array.dtype.kind in "fiub":
        inferred = _sequence_dtype(data)
        if inferred is not None:
            return _finish(array.astype(inferred), requires_grad)
    if np_dtype is None:
        if array.dtype.kind == "f":
            array = array.astype(dtypes.default_float.np)
        elif array.dtype.kind == "c":
            array = array.astype(dtypes.default_complex().np)
        elif array.dtype.kind in "iu":
            array = array.astype(np.int64)
        elif array.dtype.kind not in "b":
            _raise_data_error(data)
    return _finish(array, requires_grad)


def _leaves(data: Any) -> list:
    """The numbers of nested lists and tuples, in order."""
    out, stack = [], [data]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(reversed(x))
        else:
            out.append(x)
    return out


_OVERFLOW = "Overflow when unpacking long long"


def _inferred_with_big_ints(data: Any, array: np.ndarray) -> np.ndarray:
    """Python ints beyond int64 in data given without a dtype: PyTorch's overflow error when its inferred dtype
    is int64, else the values as floats (or complex numbers) when a float (or complex) is among them."""
    leaves = _leaves(data)
    kinds = {type(x) for x in leaves}
    if complex in kinds or any(isinstance(x, np.complexfloating) for x in leaves):
        return np.array(_unwrap(data), dtype=np.complex128)
    if float in kinds or any(isinstance(x, np.floating) for x in leaves):
        return np.array(_unwrap(data), dtype=np.float64)
    if any(type(x) is int and not -2 ** 63 <= x < 2 ** 63 for x in leaves):
        raise ValueError(_OVERFLOW)
    return array


def _fitted_ints(data: Any, np_dtype: np.dtype) -> np.ndarray:
    """Python ints into an integer dtype as PyTorch converts them: an error for one beyond int64 or outside the
    dtype's range (negative values down to -max wrap around in an unsigned dtype)."""
    low, high = _int_bounds(np_dtype)
    for x in _leaves(data):
        if type(x) is int:
            if not -2 ** 63 <= x < 2 ** 63:
                raise ValueError(_OVERFLOW)
            if not low <= x <= high:
                raise RuntimeError(f"value cannot be converted to type {np_dtype.name} without overflow")
    return np.array(_unwrap(data), dtype=np.int64).astype(np_dtype)


def _int_bounds(np_dtype: np.dtype) -> tuple[int, int]:
    """The Python ints PyTorch accepts for an integer dtype: its range, and for an unsigned one negative values
    down to -max too (they wrap around)."""
    info = np.iinfo(np_dtype)
    return (int(info.min) or -int(info.max)), int(info.max)


def _raise_data_error(data: Any, final: bool = True) -> None:
    """PyTorch's error for data it cannot turn into a tensor: sizes are read along the first elements
    (a string inside a list is a sequence without end), then every element's dtype is inferred."""
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    x = data
    while isinstance(x, (list, tuple, str, bytes)) and len(x):
        if isinstance(x, str):
            raise ValueError("too many dimensions 'str'")
        x = x[0]
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(item).__name__}'")
        if isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
        elif not isinstance(item, (bool, int, float, complex, np.generic, np.ndarray, Tensor)):
            raise RuntimeError(f"Could not infer dtype of {type(item).__name__}")
    if final:
        raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")


_PYTHON_NUMBERS = frozenset({bool, int, float})


def _sequence_dtype(data: Any) -> np.dtype | None:
    """The dtype torch.tensor infers for nested lists holding NumPy scalars, arrays or tensors (each keeps
    its dtype; Python numbers count as bool, int64 and the default float), promoted as torch promotes
    (dtypes.promote_np).
    None when every leaf is a Python number (the caller's rules apply)."""
    found: list[np.dtype] = []
    python_kinds: set[type] = set()
    stack = [data]
    while stack:
        items = stack.pop()
        kinds = set(map(type, items))  # one pass in C; Python numbers need no more
        if kinds <= _PYTHON_NUMBERS:
            python_kinds |= kinds
            continue
        for x in items:
            if isinstance(x, (list, tuple)):
                stack.append(x)
            elif isinstance(x, Tensor):
                found.append(x._data.dtype)
            elif isinstance(x, (np.generic, np.ndarray)):
                found.append(x.dtype)
            else:
                python_kinds.add(type(x))
    if not found or any(d.kind not in "biuf" for d in found):
        return None
    for kind, dt in ((bool, np.bool_), (int, np.int64), (float, dtypes.default_float.np)):
        if kind in python_kinds:
            found.append(np.dtype(dt))
    if python_kinds - _PYTHON_NUMBERS:
        return None
    result = found[0]
    for d in found[1:]:
        result = dtypes.promote_np(result, d)
    return result


def _check_ragged(data: Any) -> None:
    """PyTorch's error for nested lists of uneven lengths (sizes come from the first elements)."""
    sizes = []
    x = data
    while isinstance(x, (list, tuple)) and x:
        sizes.append(len(x))
        x = x[0]

    def walk(x: Any, dim: int) -> None:
        if dim >= len(sizes) or not isinstance(x, (list, tuple)):
            return
        if len(x) != sizes[dim]:
            raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(x)})")
        for item in x:
            walk(item, dim + 1)

    walk(data, 0)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    devices.check(device, creating=True)
    if isinstance(data, Tensor) and dtype is None:
        return data
    return tensor(data, dtype=dtype)


def _filled(fill: Any, size: Sequence, dtype: Any, requires_grad: bool) -> Tensor:
    np_dtype = dtypes.to_numpy(dtype) or dtypes.default_float.np
    return _finish(np.full(_size(size), fill, dtype=np_dtype), requires_grad)


def zeros(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    devices.check(device, creating=True)
    check_size(size, "zeros")
    flat = size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    if any(int(s) < 0 for s in flat):
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    return _filled(0, size, dtype, requires_grad)


def ones(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    devices.check(device, creating=True)
    check_size(size, "ones")
    return _filled(1, size, dtype, requires_grad)


def empty(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    devices.check(device, creating=True)
    check_size(size, "empty")
    return _filled(0, size, dtype, requires_grad)


def full(size: Sequence, fill_value: Any, dtype: Any = None, device: Any = None,
         requires_grad: bool = False) -> Tensor:
    devices.check(device, creating=True)
    if dtype is None:
        dtype = dtypes.bool_ if isinstance(fill_value, bool) else (
            dtypes.int64 if isinstance(fill_value, int) else
            dtypes.default_complex() if isinstance(fill_value, complex) else dtypes.default_float)
    check_size((size,), "full")
    if type(fill_value) is int:
        fill_value = scalar_int(fill_value, dtypes.to_numpy(dtype))
    return _filled(fill_value, (tuple(size),), dtype, requires_grad)


_C_INT_NAMES = {"int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t", "uint8": "uint8_t"}


def scalar_int(value: int, np_dtype: np.dtype) -> Any:
    """A Python int as PyTorch's Scalar for a tensor of np_dtype (full, fill_): errors beyond int64 and uint64 and
    outside an integer dtype's range (negative values down to -max wrap around in an unsigned dtype)."""
    if value < -2 ** 63:
        raise OverflowError("can't convert negative int to unsigned")
    if value >= 2 ** 64:
        raise OverflowError("int too big to convert")
    if np_dtype.kind in "iu":
        low, high = _int_bounds(np_dtype)
        if not low <= value <= high:
            raise RuntimeError(f"value cannot be converted to type {_C_INT_NAMES.get(np_dtype.name, np_dtype.name)} "
                               "without overflow")
        return np.array(value).astype(np_dtype)
    return bool(value) if np_dtype.kind == "b" else value


def _like(fill: Any, input: Tensor, dtype: Any, requires_grad: bool) -> Tensor:
    np_dtype = dtypes.to_numpy(dtype) or input._data.dtype
    return _finish(np.full(input._data.shape, fill, dtype=np_dtype), requires_grad)


def zeros_like(input: Tensor, dtype: Any = None, requires_grad: bool = False, **_: Any) -> Tensor:
    devices.check(_.get("device"), creating=True)
    return _like(0, input, dtype, requires_grad)


def ones_like(input: Tensor, dtype: Any = None, requires_grad: bool = False, **_: Any) -> Tensor:
    devices.check(_.get("device"), creating=True)
    return _like(1, input, dtype, requires_grad)


def full_like(input: Tensor, fill_value: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return _like(fill_value, input, dtype, requires_grad)


def arange(start: Any, end: Any = None, step: Any = 1, dtype: Any = None, requires_grad: bool = False,
           device: Any = None) -> Tensor:
    devices.check(device, creating=True)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    np_dtype = dtypes.to_numpy(dtype)
    if np_dtype is None:
        floating = any(isinstance(v, float) for v in (start, end, step))
        np_dtype = dtypes.default_float.np if floating else np.dtype(np.int64)
    return _finish(np.arange(start, end, step).astype(np_dtype), requires_grad)


def range_(start: Any, end: Any = None, step: Any = 1, dtype: Any = None, requires_grad: bool = False,
          device: Any = None) -> Tensor:
    """torch.range (deprecated): start, start + step, ... up to and including end, in the default float dtype."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    devices.check(device, creating=True)
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    np_dtype = dtypes.to_numpy(dtype) or dtypes.default_float.np
    count = int(math.floor((float(end) - float(start)) / float(step))) + 1
    values = float(start) + np.arange(count, dtype=np.float64) * float(step)
    return _finish(values.astype(np_dtype), requires_grad)


def linspace(start: float, end: float, steps: int, dtype: Any = None, requires_grad: bool = False,
             device: Any = None) -> Tensor:
    devices.check(device, creating=True)
    np_dtype = dtypes.to_numpy(dtype) or dtypes.default_float.np
    return _finish(_linspace(start, end, steps, np_dtype), requires_grad)


def _linspace(start: Any, end: Any, steps: int, np_dtype: np.dtype) -> np.ndarray:
    """PyTorch's linspace kernel: start and end in the output dtype, step = (end - start) /
    (steps - 1) in it too (in double for integer outputs); the first half is start + step * i,
    the second half end - step * (steps - 1 - i), each a fused multiply-add rounded once. In
    float32, linspace(-1, 1, 7)[3] is then 1 - 3 * 0.33333334 = -2.98e-08, not 0."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    steps = int(steps)
    first = np.asarray(float(start)).astype(np_dtype)[()]
    last = np.asarray(float(end)).astype(np_dtype)[()]
    if steps <= 1:
        return np.full(steps, first, np_dtype)
    half = steps // 2
    if np_dtype == np.float16:  # c10::Half rounds after every operation
        step = (last - first) / np.float16(steps - 1)
        idx = np.arange(steps).astype(np.float16)
        return np.concatenate([first + step * idx[:half], last - step * (np.float16(steps - 1) - idx[half:])])
    if np_dtype == dtypes.BF16:  # c10::BFloat16 rounds after every operation too
        r, f32 = dtypes.round_bf16, np.float32
        first, last = r(first).astype(f32), r(last).astype(f32)
        step = r(r(last - first).astype(f32) / f32(steps - 1)).astype(f32)
        idx = np.arange(steps, dtype=f32)
        low = first + r(step * idx[:half]).astype(f32)
        high = last - r(step * (f32(steps - 1) - idx[half:])).astype(f32)
        return r(np.concatenate([low, high]))
    if np_dtype.kind == "f":
        step = (last - first) / np_dtype.type(steps - 1)
    else:
        step = (np.float64(last) - np.float64(first)) / (steps - 1)
    idx = np.arange(steps, dtype=np.float64)
    step = np.float64(step)
    low = _fma(np.full(half, step), idx[:half], np.full(half, np.float64(first)))
    high = _fma(np.full(steps - half, -step), steps - 1 - idx[half:], np.full(steps - half, np.float64(last)))
    return np.concatenate([low, high]).astype(np_dtype)


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * b + c in float64 with one rounding (almost always): the product split exactly into
    two doubles (Dekker), added to c by an error-free sum. Float32 inputs are exact in it."""
    p = a * b
    split = 134217729.0  # 2**27 + 1
    ta, tb = split * a, split * b
    ah, bh = ta - (ta - a), tb - (tb - b)
    al, bl = a - ah, b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = c + p
    v = s - c
    t = (c - (s - v)) + (p - v)
    return s + (t + e)


def logspace(start: float, end: float, steps: int, base: float = 10.0, dtype: Any = None,
             requires_grad: bool = False, device: Any = None) -> Tensor:
    devices.check(device, creating=True)
    np_dtype = dtypes.to_numpy(dtype) or dtypes.default_float.np
    return _finish(np.logspace(start, end, steps, base=base).astype(np_dtype), requires_grad)


def eye(n: int, m: int | None = None, dtype: Any = None, requires_grad: bool = False,
        device: Any = None) -> Tensor:
    devices.check(device, creating=True)
    np_dtype = dtypes.to_numpy(dtype) or dtypes.default_float.np
    return _finish(np.eye(n, m, dtype=np_dtype), requires_grad)


# --- random tensors (torch's CPU generator, see engine/random.py) ---------------------------------
def _gen(generator: Any) -> Any:
    from engine import random

    return generator if generator is not None else random.default_generator


def _float_dtype(dtype: Any, kernel: str | None = None) -> np.dtype:
    """The dtype to draw into; `kernel` names PyTorch's sampling kernel, which exists for floating types only."""
    np_dtype = dtypes.to_numpy(dtype) or dtypes.default_float.np
    if kernel is not None:
        _floating_kernel(np_dtype, kernel)
    return np_dtype


def _floating_kernel(np_dtype: np.dtype, kernel: str) -> None:
    if np.dtype(np_dtype).kind in "biu":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtypes.from_numpy(np_dtype).legacy}'")


def _check_std(std: Any) -> None:
    """PyTorch's normal: std must be non-negative (a number, or every element of a tensor)."""
    if isinstance(std, Tensor):
        if std._data.size and bool((std._data < 0).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif float(std) < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {float(std):g}")


def rand(*size: Any, generator: Any = None, dtype: Any = None, device: Any = None,
         requires_grad: bool = False) -> Tensor:
    devices.check(device, creating=True)
    check_size(size, "rand", keywords={"generator": generator, "dtype": dtype, "device": device,
                                        "requires_grad": requires_grad})
    shape = _size(size)
    np_dtype = _float_dtype(dtype, "check_uniform_bounds")
    if np_dtype.kind == "c":  # real and imaginary parts drawn in turn, as into view_as_real
        values = _gen(generator).uniform01(2 * _numel(shape), np_dtype.type(0).real.dtype)
        return _finish(values.view(np_dtype).reshape(shape), requires_grad)
    values = _gen(generator).uniform01(_numel(shape), np_dtype).reshape(shape)
    return _finish(values.astype(np_dtype, copy=False), requires_grad)


def randn(*size: Any, generator: Any = None, dtype: Any = None, device: Any = None,
          requires_grad: bool = False) -> Tensor:
    devices.check(device, creating=True)
    check_size(size, "randn", keywords={"generator": generator, "dtype": dtype, "device": device,
                                         "requires_grad": requires_grad})
    shape = _size(size)
    np_dtype = _float_dtype(dtype, "normal_kernel_cpu")
    if np_dtype.kind == "c":  # PyTorch: normal_(0, 1/sqrt(2)) of the (..., 2) real view
        values = _gen(generator).normal(2 * _numel(shape), 0.0, 1 / math.sqrt(2), np_dtype.type(0).real.dtype)
        return _finish(values.view(np_dtype).reshape(shape), requires_grad)
    values = _gen(generator).normal(_numel(shape), 0.0, 1.0, np_dtype).reshape(shape)
    return _finish(values, requires_grad)


def randint(low: Any = None, high: Any = None, size: Any = None, *, generator: Any = None,
            dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    devices.check(device, creating=True)
    if size is None:
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    if low is None:  # randint(high=n, size=...)
        low = 0
    check_size((size,), "randint", 2)
    shape = tuple(int(s) for s in size)
    values = _gen(generator).random_from_to(_numel(shape), int(low), int(high)).reshape(shape)
    np_dtype = dtypes.to_numpy(dtype) or np.dtype(np.int64)
    return _finish(values.astype(np_dtype), requires_grad)


def randperm(n: int, *, generator: Any = None, dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    devices.check(device, creating=True)
    np_dtype = dtypes.to_numpy(dtype) or np.dtype(np.int64)
    return _finish(_gen(generator).randperm(int(n)).astype(np_dtype), requires_grad)


def rand_like(input: Tensor, dtype: Any = None, requires_grad: bool = False, **_: Any) -> Tensor:
    devices.check(_.get("device"), creating=True)
    return rand(input._data.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def randn_like(input: Tensor, dtype: Any = None, requires_grad: bool = False, **_: Any) -> Tensor:
    devices.check(_.get("device"), creating=True)
    return randn(input._data.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def randint_like(input: Tensor, low: Any, high: Any = None, dtype: Any = None, **_: Any) -> Tensor:
    devices.check(_.get("device"), creating=True)
    return randint(low, high, input._data.shape, dtype=dtype or input.dtype)


def normal(mean: Any, std: Any = 1.0, size: Any = None, *, generator: Any = None,
           dtype: Any = None, requires_grad: bool = False) -> Tensor:
    _check_std(std)
    if size is not None:
        shape = tuple(size)
        values = _normal(_gen(generator), _numel(shape), float(mean), float(std), _float_dtype(dtype))
        return _finish(values.reshape(shape), requires_grad)
    m = mean._data if isinstance(mean, Tensor) else np.asarray(mean, np.float32)
    s = std._data if isinstance(std, Tensor) else np.asarray(std, np.float32)
    from engine import messages

    problem = messages.broadcast_mismatch(np.shape(m), np.shape(s))
    if problem:
        raise RuntimeError(problem)
    shape = np.broadcast_shapes(np.shape(m), np.shape(s))
    z = _gen(generator).normal(_numel(shape), 0.0, 1.0, np.result_type(m, s)).reshape(shape)
    return _finish((z * s + m).astype(np.result_type(m, s)), requires_grad)


def _numel(shape: tuple) -> int:
    return int(np.prod(shape)) if shape else 1


def fill_random_(t: Tensor, values: np.ndarray, kind: str) -> Tensor:
    """Write freshly drawn values into `t` in place (uniform_, normal_...; each checks first that `t` can be
    written in place, before drawing); `kind` names the node recording it when `t` requires grad."""
    from engine import grad_mode

    values = _in_memory_order(t._data, values)
    if grad_mode.state.enabled and t._requires_grad:
        from engine.functions import _inplace
        from engine import ops

        return _inplace(t, ops.TABLE[kind], (), {"values": values})
    dtypes.write(t._data, values)
    t._vc[0] += 1
    if observe.current is not None:
        observe.current.inplace_applied(t, None)
    return t


def _in_memory_order(data: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Values drawn one after another placed as PyTorch's kernels visit a tensor: in memory order."""
    order = sorted(range(data.ndim), key=lambda d: -abs(data.strides[d]))
    return np.transpose(values.reshape([data.shape[d] for d in order]), np.argsort(order))


def dense_order(data: np.ndarray) -> list[int]:
    """The dims of torch.empty_like(data) (preserve_format), outermost first: data's own stride order
    when dense, else infer_dense_strides's (a stride-0 dim keeps its place)."""
    ndim, strides, shape = data.ndim, data.strides, data.shape

    def should_swap(d0: int, d1: int) -> int:
        s0, s1 = strides[d0], strides[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return -1 if s0 < s1 else 1
        return 1 if shape[d0] > shape[d1] else 0

    perm = list(range(ndim - 1, -1, -1))  # innermost first
    for i in range(1, ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[d0], perm[d1])
            if comparison > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif comparison < 0:
                break
    return perm[::-1]


def draw_like(data: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Values drawn one after another into torch.empty_like(data), placed as its kernels visit it."""
    order = dense_order(data)
    return np.transpose(values.reshape([data.shape[d] for d in order]), np.argsort(order))


def copy_like(data: np.ndarray, memory_format: Any = None) -> np.ndarray:
    """A copy of `data` laid out as torch's clone(memory_format=...) lays it out (default: preserve_format)."""
    if memory_format is info.channels_last or memory_format is info.channels_last_3d:
        order = [0, *range(2, data.ndim), 1]  # NHWC / NDHWC
    elif memory_format is not None and memory_format is not info.preserve_format:
        return np.array(data, order="C")
    elif data.flags.c_contiguous:
        return data.copy()
    else:
        order = dense_order(data)
    return np.ascontiguousarray(data.transpose(order)).transpose(np.argsort(order))


def _random_span(dtype: np.dtype) -> int:
    """random_()'s default range: the integers a float holds exactly, or an integer type's values >= 0."""
    if dtype == np.bool_:
        return 2
    if np.issubdtype(dtype, np.floating):
        return (1 << {np.float16: 11, np.float32: 24, np.float64: 53}.get(np.dtype(dtype).type, 8)) + 1
    return int(np.iinfo(dtype).max) + 1


def _uniform(gen: Any, n: int, low: float, high: float, dtype: np.dtype) -> np.ndarray:
    """uniform_'s values: u * (high - low) + low, one rounding (doubles: a fused multiply-add)."""
    from engine import random

    if np.dtype(dtype) != np.float64:
        return gen.uniform(n, low, high, dtype)
    return random.fma64(gen.uniform01(n, np.dtype(np.float64)), float(high) - float(low), float(low))


def _normal(gen: Any, n: int, mean: float, std: float, dtype: np.dtype,
            contiguous: bool = True) -> np.ndarray:
    """normal_'s values: float32 from 16 contiguous elements up through the AVX2 kernel; otherwise doubles
    (16 at a time when contiguous, else one by one) scaled by one fused multiply-add."""
    from engine import random

    if np.dtype(dtype) == np.float32 and n >= 16 and contiguous:
        return gen.normal(n, mean, std, dtype)
    z = gen.normal(n, 0.0, 1.0, np.dtype(np.float64)) if contiguous else random.normal_scalars(gen, n)
    return random.fma64(z, std, mean).astype(dtype)


def uniform_(self: Tensor, a: float = 0.0, b: float = 1.0, *, generator: Any = None) -> Tensor:
    self._check_inplace()
    _floating_kernel(self._data.dtype, "check_uniform_bounds")
    return fill_random_(self, _uniform(_gen(generator), self._data.size, a, b, self._data.dtype), "uniform_")


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    self._check_inplace()
    _check_std(std)
    _floating_kernel(self._data.dtype, "normal_kernel_cpu")
    values = _normal(_gen(generator), self._data.size, mean, std, self._data.dtype, self.is_contiguous())
    return fill_random_(self, values, "normal_")


def random_(self: Tensor, low: Any = 0, high: Any = None, *, generator: Any = None) -> Tensor:
    self._check_inplace()
    kind = "random_from_to_" if high is not None else ("random_to_" if low else "random_")
    if high is None:
        low, high = 0, low if low else _random_span(self._data.dtype)
    return fill_random_(self, _gen(generator).random_from_to(self._data.size, int(low), int(high)), kind)


def _continuous(self: Tensor, name: str, type_name: str) -> None:
    """PyTorch's check that a continuous distribution fills a floating point tensor."""
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"{name} distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {getattr(self.dtype, type_name)}")


def _cpp(x: float) -> str:
    """A double as C++ streams print it."""
    return f"{x:g}"


def exponential_(self: Tensor, lambd: float = 1.0, *, generator: Any = None) -> Tensor:
    self._check_inplace()
    from engine import random

    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_cpp(lambd)}")
    _continuous(self, "Exponential", "legacy")
    values = random.exponential(_gen(generator), self._data.size, lambd).astype(self._data.dtype)
    return fill_random_(self, values, "exponential_")


def geometric_(self: Tensor, p: float, *, generator: Any = None) -> Tensor:
    self._check_inplace()
    from engine import random

    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_cpp(p)}")
    if self._data.dtype == np.bool_:
        raise NotImplementedError('"geometric_cpu" not implemented for \'Bool\'')
    with np.errstate(invalid="ignore"):
        values = random.geometric(_gen(generator), self._data.size, p).astype(self._data.dtype)
    return fill_random_(self, values, "geometric_")


def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator: Any = None) -> Tensor:
    self._check_inplace()
    from engine import random

    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_cpp(sigma)}")
    _continuous(self, "Cauchy", "cpp")
    values = random.cauchy(_gen(generator), self._data.size, median, sigma).astype(self._data.dtype)
    return fill_random_(self, values, "cauchy_")


def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator: Any = None) -> Tensor:
    self._check_inplace()
    from engine import random

    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_cpp(std)}")
    if not self.dtype.is_floating_point:
        raise NotImplementedError(f'"log_normal_cpu" not implemented for \'{self.dtype.legacy}\'')
    values = random.log_normal(_gen(generator), self._data.size, mean, std).astype(self._data.dtype)
    return fill_random_(self, values, "log_normal_")


def bernoulli_draw(shape: tuple, p: Any, dtype: Any, generator: Any = None) -> np.ndarray:
    """Bernoulli samples with one probability p: a 53-bit uniform u per element, 1 where u < p (torch's
    serial CPU kernel, at::bernoulli_distribution<double>)."""
    u = _gen(generator).uniform01(_numel(shape), np.dtype(np.float64)).reshape(shape)
    return (u < p).astype(dtype)


def _bernoulli_tensor_draw(p: np.ndarray, layout: np.ndarray, generator: Any) -> np.ndarray:
    """Samples with per-element probabilities p (of layout's shape), drawn in layout's memory order: a
    53-bit uniform each for float64 p, a 24-bit one for other floating p (at::bernoulli_distribution<float>)."""
    if p.dtype.kind != "f":
        raise NotImplementedError(f'"bernoulli_tensor_cpu_p_" not implemented for '
                                  f"'{dtypes.from_numpy(p.dtype).legacy}'")
    if not ((p >= 0) & (p <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
                           "message be improved?  If so, please report an enhancement request to PyTorch.)")
    width = np.dtype(np.float64) if p.dtype == np.float64 else np.dtype(np.float32)
    u = _in_memory_order(layout, _gen(generator).uniform01(p.size, width))
    return u < p.astype(width)


def _check_bernoulli_p(p: float) -> None:
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_cpp(p)}")


def bernoulli(input: Tensor, p: Any = None, *, generator: Any = None) -> Tensor:
    """0/1 samples in input's dtype: with input's elements as probabilities (BernoulliBackward0 when input
    requires grad), or with one probability p (a node whose derivative torch does not implement)."""
    dtype = input._data.dtype
    if p is None:  # the result is contiguous: drawn in its logical order
        values = _bernoulli_tensor_draw(input._data, np.empty(input._data.shape), generator).astype(dtype)
        from engine import grad_mode, ops
        from engine.rules import apply

        if grad_mode.state.enabled and input._requires_grad:
            return apply(ops.BERNOULLI, (input,), {"values": values})
        return _finish(values, False)
    _check_bernoulli_p(p)
    from engine.functions import not_implemented_result

    return not_implemented_result("bernoulli", bernoulli_draw(input._data.shape, p, dtype, generator), (input,))


def bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:
    """Fills self with 0/1 samples: probability p, a float (BernoulliBackward2) or a tensor broadcast
    to self's shape (BernoulliBackward1)."""
    self._check_inplace()
    shape = self._data.shape
    if not isinstance(p, Tensor):
        _check_bernoulli_p(p)
        return fill_random_(self, bernoulli_draw((self._data.size,), p, self._data.dtype, generator),
                            "bernoulli_")
    from engine import functions, grad_mode, ops

    probs = functions.expand(p.detach(), shape)._data
    values = _bernoulli_tensor_draw(probs, self._data, generator).astype(self._data.dtype)
    if grad_mode.state.enabled and (self._requires_grad or p._requires_grad):
        return functions._inplace(self, ops.BERNOULLI_TENSOR_, (p,), {"values": values})
    self._data[...] = values
    self._vc[0] += 1
    if observe.current is not None:
        observe.current.inplace_applied(self, None)
    return self


def poisson(input: Tensor, generator: Any = None) -> Tensor:
    """A Poisson sample per rate in input (PoissonBackward0, a zero gradient, when input requires grad)."""
    from engine import random

    data = input._data
    if data.dtype.kind != "f":
        raise NotImplementedError(f'"poisson_cpu" not implemented for \'{input.dtype.legacy}\'')
    values = random.poisson(_gen(generator), data.reshape(-1).tolist()).astype(data.dtype).reshape(data.shape)
    from engine import grad_mode, ops
    from engine.rules import apply

    if grad_mode.state.enabled and input._requires_grad:
        return apply(ops.POISSON, (input,), {"values": values})
    return _finish(values, False)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator: Any = None) -> Tensor:
    """PyTorch's CPU sampler: with replacement, a binary search of one uniform per sample in the
    normalised cumulative distribution; otherwise (or for one sample) the largest p / Exp(1) draws."""
    probs = np.asarray(input._data)
    _check_multinomial(probs, num_samples, replacement)
    rows = probs.reshape(-1, probs.shape[-1])
    gen = _gen(generator)
    if not replacement or num_samples == 1:
        if not (np.all(rows < np.inf) and np.all(rows >= 0)):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if np.any(rows.sum(-1) == 0):
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        u = gen.uniform01(rows.size, np.dtype(np.float64)).reshape(rows.shape)
        q = rows / (-np.log1p(-u)).astype(rows.dtype)
        out = np.argsort(-q, axis=-1, kind="stable")[:, :num_samples]
    else:
        out = np.empty((rows.shape[0], num_samples), np.int64)
        for i, row in enumerate(rows):  # in the input's dtype: torch sums and normalises in it
            if np.any(row < 0):
                raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
            if not np.all(np.isfinite(row)):
                raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity or "
                                   "NaN)")
            cum = np.cumsum(row)  # sequential, as torch's loop
            if not cum[-1] > 0:
                raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
            cum = cum / cum[-1]
            cum[-1] = 1
            out[i] = np.searchsorted(cum, gen.uniform01(num_samples, np.dtype(np.float64)), side="left")
    return _finish(out.astype(np.int64).reshape(probs.shape[:-1] + (num_samples,)), False)


def _check_multinomial(probs: np.ndarray, num_samples: int, replacement: bool) -> None:
    """torch.multinomial's argument checks, in its order."""
    if not 0 < probs.ndim <= 2:
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if probs.dtype.kind != "f":
        from engine import dtypes as _dtypes

        raise RuntimeError("multinomial only supports floating-point dtypes for input, got: "
                           f"{_dtypes.from_numpy(probs.dtype).legacy}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > probs.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")


def empty_like(input: Tensor, dtype: Any = None, requires_grad: bool = False, **_: Any) -> Tensor:
    devices.check(_.get("device"), creating=True)
    return _like(0, input, dtype, requires_grad)


def from_numpy(array: np.ndarray) -> Tensor:
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {_type_name(array)})")
    if array.dtype.byteorder == ">":
        raise ValueError(_BYTE_ORDER)
    return _finish(np.asarray(array), False)


def scalar_tensor(value: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return tensor(value, dtype=dtype or dtypes.default_float, requires_grad=requires_grad)
