"""torch.save / torch.load to and from in-memory files (io.BytesIO), in an explicit format read without pickle.

The format: MAGIC, the header's length (8 bytes, little-endian), a JSON header, then the raw bytes of
each storage one after the other. The header lists the storages ([dtype name, byte count]) and
holds the saved object as JSON: None, booleans, numbers and strings as themselves, everything else
as a one-key-per-field object {"t": kind, ...}: list, tuple, dict (and OrderedDict, set) with
their items, bytes, complex, torch.Size, torch.dtype, torch.device, tensors (storage index, dtype,
shape, strides and offset in elements, requires_grad, Parameter or not), "ref" (an object met
before: the same tensor, list or dict saved twice, or a list holding itself) and "global" (an
object of any other type, named as torch.load would report it).

Loading only rebuilds those kinds, checking every field (types, dtype names, that each tensor lies
inside its storage): a crafted buffer can make torch.load raise, never run code. Tensors that
shared memory when saved (views of one tensor) share it again when loaded.

There is no file system: a path instead of a file object is refused with a clear error.
"""

from __future__ import annotations

import json
import math
from collections import OrderedDict
from pickle import UnpicklingError  # the exception class torch.load raises; pickle itself is never used
from typing import Any

import numpy as np

from engine import dtypes
from engine.tensor import Parameter, Size, Tensor

MAGIC = b"\x00gradstep torch.save v1\n"
_MAX_DEPTH = 500
_MAX_NUMEL = 1 << 31
_BY_NAME = {d.name: d for d in dtypes.ALL}

NO_FILES = ("{}(): file paths are not available in gradstep (there is no file system); use an in-memory "
            "file instead: buf = io.BytesIO(); torch.save(obj, buf); buf.seek(0); obj = torch.load(buf)")


def save(obj: Any, f: Any, pickle_module: Any = None, pickle_protocol: int = 2,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> None:
    """Write `obj` (tensors, numbers, strings, None, and lists, tuples, sets and dicts of them) to the
    file object `f` (an io.BytesIO)."""
    write = _file_method(f, "write", "save")
    encoder = _Encoder()
    root = encoder.encode(obj, 0)
    header = json.dumps({"storages": [[name, len(raw)] for name, raw in encoder.storages], "root": root},
                        separators=(",", ":"), allow_nan=True).encode("utf-8")
    write(b"".join([MAGIC, len(header).to_bytes(8, "little"), header, *(raw for _, raw in encoder.storages)]))


def load(f: Any, map_location: Any = None, pickle_module: Any = None, *, weights_only: bool | None = None,
         mmap: bool | None = None, **pickle_load_args: Any) -> Any:
    """Read back what save wrote to `f`, from its current position."""
    if weights_only is None:
        weights_only = True  # PyTorch's default since 2.6
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    read = _file_method(f, "read", "load")
    data = read()
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"load(): the file's read() returned {type(data).__name__}, not bytes")
    if not data:
        raise EOFError("")  # an exhausted file (often a missing buf.seek(0)), as PyTorch reports it
    decoder = _Decoder(bytes(data), _location(map_location), weights_only)
    if callable(map_location):
        decoder.map_storage = map_location
    return decoder.load()


def _file_method(f: Any, name: str, op: str) -> Any:
    if isinstance(f, (str, bytes)) or hasattr(type(f), "__fspath__"):  # a path (str, bytes, os.PathLike)
        raise RuntimeError(NO_FILES.format(op))
    method = getattr(f, name, None)
    if method is None or not callable(method):
        raise AttributeError(f"'{type(f).__name__}' object has no attribute '{name}'")
    return method


def _location(map_location: Any) -> str:
    """Where loaded tensors go: only the CPU exists (a callable is called with each storage, see
    UntypedStorage, and what it returns is taken to keep the storage where it is)."""
    if map_location is None or callable(map_location):
        return "cpu"
    if isinstance(map_location, dict):
        target = map_location.get("cpu", "cpu")
    else:
        target = map_location
    device = dtypes.device(target) if isinstance(target, (str, dtypes.device)) else None
    if device is None:
        raise TypeError(f"map_location should be a string, a torch.device, a dict or a callable, not "
                        f"{type(map_location).__name__}")
    return device.type


# --- saving ------------------------------------------------------------------------------------
class _Encoder:
    def __init__(self) -> None:
        self.storages: list[tuple[str, bytes]] = []
        self._storage_of: dict[int, int] = {}  # id of a root array -> storage index
        self._roots: list[np.ndarray] = []  # keeps the roots alive while their ids are in use
        self._memo: dict[int, int] = {}  # id of a saved tensor, list or dict -> its "id"
        self._kept: list[Any] = []
        self._open: set[int] = set()  # tuples and sets being encoded (a reference to one is refused)

    def _remember(self, obj: Any) -> int:
        n = self._memo[id(obj)] = len(self._memo)
        self._kept.append(obj)
        return n

    def encode(self, obj: Any, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            raise RuntimeError("save(): the object is nested too deeply")
        tp = type(obj)
        if obj is None or tp in (bool, int, str):
            return obj
        if tp is float:
            return obj if math.isfinite(obj) else {"t": "float", "v": repr(obj)}
        ref = self._memo.get(id(obj))
        if ref is not None:
            return {"t": "ref", "id": ref}
        if id(obj) in self._open:
            raise ValueError("save(): a tuple or set holding itself cannot be saved")
        if isinstance(obj, Tensor) and tp in (Tensor, Parameter):
            return self._tensor(obj)
        if tp in (list, dict, OrderedDict):
            node: dict[str, Any] = {"t": {list: "list", dict: "dict", OrderedDict: "odict"}[tp],
                                    "id": self._remember(obj)}
            if tp is list:
                node["v"] = [self.encode(v, depth + 1) for v in obj]
            else:
                node["v"] = [[self.encode(k, depth + 1), self.encode(v, depth + 1)] for k, v in obj.items()]
            return node
        if tp in (tuple, set):
            self._open.add(id(obj))
            try:
                items = [self.encode(v, depth + 1) for v in obj]
            finally:
                self._open.discard(id(obj))
            return {"t": "tuple" if tp is tuple else "set", "v": items}
        if tp is Size:
            return {"t": "size", "v": [int(n) for n in obj]}
        if tp is bytes:
            return {"t": "bytes", "v": obj.hex()}
        if tp is complex:
            return {"t": "complex", "v": [repr(obj.real), repr(obj.imag)]}
        if tp is dtypes.dtype:
            return {"t": "dtype", "v": obj.name}
        if tp is dtypes.device:
            return {"t": "device", "v": str(obj)}
        return {"t": "global", "v": _global_name(obj)}

    def _tensor(self, t: Tensor) -> dict:
        a = t._data
        index, offset, strides = self._storage(a)
        node = {"t": "tensor", "id": self._remember(t), "storage": index, "dtype": t.dtype.name,
                "shape": list(a.shape), "stride": strides, "offset": offset,
                "requires_grad": bool(t.requires_grad), "param": type(t) is Parameter}
        return node

    def _storage(self, a: np.ndarray) -> tuple[int, int, list[int]]:
        """The storage holding `a` (the array it is a view of, saved once) and where `a` lies in it."""
        root = a
        while True:
            base = root.base
            if not isinstance(base, np.ndarray):  # np.broadcast_to's views hold their base in a DummyArray
                base = getattr(base, "base", None)
                if not isinstance(base, np.ndarray):
                    break
            root = base
        itemsize = a.itemsize
        if (root is not a and root.dtype == a.dtype and root.flags.c_contiguous and a.size
                and all(s >= 0 and s % itemsize == 0 for s in a.strides)):
            start = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
            if start >= 0 and start % itemsize == 0:
                index = self._storage_of.get(id(root))
                if index is None:
                    index = self._add_storage(root)
                    self._storage_of[id(root)] = index
                    self._roots.append(root)
                return index, start // itemsize, [s // itemsize for s in a.strides]
        if a.base is None and a.flags.c_contiguous:
            index = self._storage_of.get(id(a))
            if index is None:
                index = self._storage_of[id(a)] = self._add_storage(a)
                self._roots.append(a)
        else:
            index = self._add_storage(np.ascontiguousarray(a))
        return index, 0, [s // itemsize for s in np.empty(a.shape, a.dtype).strides] if itemsize else []

    def _add_storage(self, contiguous: np.ndarray) -> int:
        self.storages.append((dtypes.from_numpy(contiguous.dtype).name, contiguous.tobytes()))
        return len(self.storages) - 1


# torch.nn.modules.<file> of the torch.nn classes, by name (the name torch.load's error shows)
_NN_FILES = (("Loss", "loss"), ("Pool", "pooling"), ("BatchNorm", "batchnorm"), ("InstanceNorm", "instancenorm"),
             ("Norm", "normalization"), ("Conv", "conv"), ("Dropout", "dropout"), ("Pad", "padding"),
             ("RNN", "rnn"), ("LSTM", "rnn"), ("GRU", "rnn"), ("Embedding", "sparse"), ("Flatten", "flatten"),
             ("Linear", "linear"), ("Identity", "linear"), ("Bilinear", "linear"), ("Sequential", "container"),
             ("List", "container"), ("Dict", "container"), ("Distance", "distance"), ("Similarity", "distance"),
             ("Upsample", "upsampling"), ("Transformer", "transformer"), ("Module", "module"))


def _global_name(obj: Any) -> str:
    """The name PyTorch's pickle gives the class of `obj` (torch.nn.modules.linear.Linear, __main__.Net)."""
    cls = type(obj)
    module = getattr(cls, "__module__", "") or ""
    name = getattr(cls, "__qualname__", cls.__name__)
    if module == "builtins":
        return name
    if module.startswith("engine.nn") and module.count(".") <= 1:
        file = next((f for part, f in _NN_FILES if part in name), "activation")
        return f"torch.nn.modules.{file}.{name}"
    if module == "engine" or module.startswith("engine."):
        return "torch" + module[len("engine"):] + "." + name
    return f"{module}.{name}"


# --- loading -----------------------------------------------------------------------------------
_WEIGHTS_ONLY = (
    "Weights only load failed. This file can still be loaded, to do so you have two options, \x1b[1mdo those "
    "steps only if you trust the source of the checkpoint\x1b[0m. \n\t(1) In PyTorch 2.6, we changed the default "
    "value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with "
    "`weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it "
    "only if you got the file from a trusted source.\n\t(2) Alternatively, to load with `weights_only=True` "
    "please check the recommended steps in the following error message.\n\tWeightsUnpickler error: "
    "Unsupported global: GLOBAL {0} was not an allowed global by default. Please use "
    "`torch.serialization.add_safe_globals([{0}])` or the `torch.serialization.safe_globals([{0}])` context "
    "manager to allowlist this global if you trust this class/function.\n\nCheck the documentation of "
    "torch.load to learn more about types accepted by default with weights_only "
    "https://pytorch.org/docs/stable/generated/torch.load.html."
)
_NOT_SAVED_HERE = (
    "Weights only load failed: this is not a buffer written by torch.save in gradstep ({}). gradstep reads "
    "only its own format (tensors, numbers, strings, None and lists, tuples, sets and dicts of them), never "
    "pickle data, so weights_only=False does not change that.")


class _Bad(Exception):
    """A malformed buffer (reported as UnpicklingError)."""


class UntypedStorage:
    """What a map_location callable receives for each storage, as torch.load calls it (`storage, 'cpu'`): the
    storage's device and size in bytes, never its memory."""

    __slots__ = ("_nbytes",)

    def __init__(self, nbytes: int) -> None:
        self._nbytes = nbytes

    @property
    def device(self) -> dtypes.device:
        return dtypes.device("cpu")

    def nbytes(self) -> int:
        return self._nbytes

    def size(self) -> int:
        return self._nbytes

    def cpu(self) -> "UntypedStorage":
        return self

    def __len__(self) -> int:
        return self._nbytes

    def __repr__(self) -> str:
        return f"[torch.storage.UntypedStorage(device=cpu) of size {self._nbytes}]"


class _Decoder:
    def __init__(self, data: bytes, location: str, weights_only: bool) -> None:
        self.data = data
        self.location = location
        self.weights_only = weights_only
        self.memo: dict[int, Any] = {}
        self.storages: list[np.ndarray] = []
        self.map_storage: Any = None  # a map_location callable

    def load(self) -> Any:
        try:
            return self._load()
        except _Bad as e:
            raise UnpicklingError(_NOT_SAVED_HERE.format(e)) from None

    def _load(self) -> Any:
        data = self.data
        if not data.startswith(MAGIC):
            raise _Bad("it does not start with gradstep's marker" if not data.startswith(b"PK")
                       else "PyTorch's zip files cannot be read")
        start = len(MAGIC) + 8
        size = int.from_bytes(data[len(MAGIC):start], "little")
        if len(data) < start or size > len(data) - start:
            raise _Bad("the header is cut short")
        try:
            header = json.loads(data[start:start + size].decode("utf-8"))
        except (ValueError, RecursionError, UnicodeDecodeError):
            raise _Bad("the header is not valid JSON") from None
        if type(header) is not dict or set(header) != {"storages", "root"} or type(header["storages"]) is not list:
            raise _Bad("the header is malformed")
        offset = start + size
        for entry in header["storages"]:
            if not (type(entry) is list and len(entry) == 2 and type(entry[0]) is str and type(entry[1]) is int):
                raise _Bad("a storage entry is malformed")
            name, nbytes = entry
            dt = _BY_NAME.get(name)
            if dt is None or nbytes < 0 or nbytes % dt.np.itemsize or nbytes > len(data) - offset:
                raise _Bad("a storage entry is malformed")
            if dt is dtypes.bool_:  # any byte but 0 reads as True, as a C++ bool array would hold only 0 and 1
                storage = np.frombuffer(data, np.uint8, nbytes, offset) != 0
            else:
                storage = np.frombuffer(data, dt.np, nbytes // dt.np.itemsize, offset).copy()
            self.storages.append(storage)
            offset += nbytes
        if offset != len(data):
            raise _Bad("its size does not match its header")
        if self.map_storage is not None:
            for storage in self.storages:
                self._map(storage)
        return self.decode(header["root"], 0)

    def _map(self, storage: np.ndarray) -> None:
        """Calls the map_location callable with a storage: it may keep it (return it or None) on the CPU."""
        result = self.map_storage(UntypedStorage(storage.nbytes), "cpu")
        if result is not None and type(result) is not UntypedStorage:
            raise TypeError("TypedStorage.__init__ received an invalid combination of arguments. "
                            "Expected one of:\n"
                            " * (*, torch.device device, torch.dtype dtype)\n"
                            " * (int size, *, torch.device device, torch.dtype dtype)\n"
                            " * (Sequence data, *, torch.device device, torch.dtype dtype)\n"
                            " * (*, UntypedStorage wrap_storage, torch.dtype dtype)\n"
                            f"Argument 'wrap_storage' must be UntypedStorage, but got {type(result)}")

    def decode(self, node: Any, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            raise _Bad("it is nested too deeply")
        tp = type(node)
        if node is None or tp in (bool, int, float, str):
            return node
        if tp is not dict or type(node.get("t")) is not str:
            raise _Bad("an entry is malformed")
        kind = node["t"]
        value = node.get("v")
        if kind == "global":
            name = value if type(value) is str else "?"
            if self.weights_only:
                raise UnpicklingError(_WEIGHTS_ONLY.format(name))
            raise RuntimeError(f"load(): the saved object holds a {name}, which gradstep cannot recreate: it "
                               "loads tensors and plain data only (save a module's or optimizer's state_dict())")
        if kind == "ref":
            ref = node.get("id")
            if type(ref) is not int or ref not in self.memo:
                raise _Bad("a reference is malformed")
            return self.memo[ref]
        if kind == "tensor":
            return self._tensor(node)
        if kind in ("list", "dict", "odict"):
            ident = node.get("id")
            if type(ident) is not int or ident in self.memo or type(value) is not list:
                raise _Bad(f"a {kind} entry is malformed")
            if kind == "list":
                items: list = []
                self.memo[ident] = items
                items.extend(self.decode(v, depth + 1) for v in value)
                return items
            out = self.memo[ident] = {} if kind == "dict" else OrderedDict()
            for item in value:
                if type(item) is not list or len(item) != 2:
                    raise _Bad("a dict item is malformed")
                out[self._key(item[0], depth)] = self.decode(item[1], depth + 1)
            return out
        if kind in ("tuple", "set"):
            if type(value) is not list:
                raise _Bad(f"a {kind} entry is malformed")
            if kind == "tuple":
                return tuple(self.decode(v, depth + 1) for v in value)
            return {self._key(v, depth) for v in value}
        if kind == "float" and value in ("inf", "-inf", "nan"):
            return float(value)
        if kind == "size" and type(value) is list and all(type(n) is int and n >= 0 for n in value):
            return Size(value)
        if kind == "bytes" and type(value) is str:
            try:
                return bytes.fromhex(value)
            except ValueError:
                raise _Bad("a bytes entry is malformed") from None
        if kind == "complex" and type(value) is list and len(value) == 2 and all(type(v) is str for v in value):
            try:
                return complex(float(value[0]), float(value[1]))
            except ValueError:
                raise _Bad("a complex entry is malformed") from None
        if kind == "dtype" and value in _BY_NAME:
            return _BY_NAME[value]
        if kind == "device" and type(value) is str:
            try:
                return dtypes.device(value)
            except (RuntimeError, ValueError):
                raise _Bad("a device entry is malformed") from None
        raise _Bad(f"unknown entry {kind!r}" if kind not in ("float", "size", "bytes", "complex", "dtype", "device")
                   else f"a {kind} entry is malformed")

    def _key(self, node: Any, depth: int) -> Any:
        key = self.decode(node, depth + 1)
        try:
            hash(key)
        except TypeError:
            raise _Bad("a dict key or set item is not hashable") from None
        return key

    def _tensor(self, node: dict) -> Tensor:
        ident, index, name = node.get("id"), node.get("storage"), node.get("dtype")
        shape, stride, offset = node.get("shape"), node.get("stride"), node.get("offset")
        requires_grad, param = node.get("requires_grad"), node.get("param")
        if not (type(ident) is int and ident not in self.memo and type(index) is int
                and 0 <= index < len(self.storages) and name in _BY_NAME and type(offset) is int and offset >= 0
                and type(shape) is list and type(stride) is list and len(shape) == len(stride)
                and all(type(n) is int and 0 <= n <= _MAX_NUMEL for n in shape)
                and all(type(s) is int and 0 <= s <= _MAX_NUMEL for s in stride)
                and type(requires_grad) is bool and type(param) is bool):
            raise _Bad("a tensor entry is malformed")
        storage = self.storages[index]
        dt = _BY_NAME[name]
        if storage.dtype != dt.np:
            raise _Bad("a tensor's dtype differs from its storage's")
        numel = math.prod(shape)
        if numel > _MAX_NUMEL:
            raise _Bad("a tensor is too large")
        if numel and offset + sum((n - 1) * s for n, s in zip(shape, stride)) >= storage.size:
            raise _Bad("a tensor lies outside its storage")
        if self.location != "cpu":
            if self.location == "cuda":
                raise RuntimeError(
                    "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. "
                    "If you are running on a CPU-only machine, please use torch.load with "
                    "map_location=torch.device('cpu') to map your storages to the CPU.")
            raise RuntimeError(f"load(): map_location={self.location!r} is not available in gradstep (only the CPU)")
        if requires_grad and dt.np.kind not in "fc":
            raise _Bad("an integer tensor cannot require grad")
        if not numel:
            array = np.zeros(shape, dt.np)
        else:
            itemsize = storage.itemsize
            # read-only where elements share memory, like the engine's own expanded tensors
            array = np.lib.stride_tricks.as_strided(storage[offset:], shape, [s * itemsize for s in stride],
                                                    writeable=not any(s == 0 and n > 1 for n, s in zip(shape, stride)))
        t = Tensor._make(array)
        if param:
            t = Parameter(t, requires_grad)
        elif requires_grad:
            t.requires_grad_(True)
        self.memo[ident] = t
        return t
