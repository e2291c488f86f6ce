"""torch's CPU random generator: mt19937 seeded like torch, and its uniform/normal/randint recipes.

Values match PyTorch's CPU generator bit for bit for the recipes torch uses on CPU: rand (24-bit
floats from one 32-bit draw, 53-bit doubles from two), randn (the scalar Box-Muller path with its
cached second sample below 16 elements; the 16-at-a-time fill from 16 elements up), randint,
randperm, and uniform_/normal_ on tensors (nn.init).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

DEFAULT_SEED = 67280421310721
_MASK24 = (1 << 24) - 1
_MASK53 = (1 << 53) - 1
_TWO_PI = 2.0 * math.pi

# torch's CPUGeneratorImplState (ATen/CPUGeneratorImpl.cpp), byte for byte: the legacy POD (initial
# seed, mt19937 left/seeded/next, 624 state words widened to 64 bits, the double normal cache)
# followed by the float normal cache. get_rng_state() returns these bytes as a uint8 tensor.
_STATE = np.dtype({
    "names": ["seed", "left", "seeded", "next", "mt", "normal_x", "normal_y", "normal_rho",
              "normal_is_valid", "float_sample", "float_valid"],
    "formats": ["<u8", "<i4", "<i4", "<u8", ("<u8", (624,)), "<f8", "<f8", "<f8", "<i4", "<f4", "u1"],
    "offsets": [0, 8, 12, 16, 24, 5016, 5024, 5032, 5040, 5048, 5052],
    "itemsize": 5056,
})


class Generator:
    """A torch.Generator on the CPU."""

    def __init__(self, device: Any = "cpu") -> None:
        self.device = device
        self.manual_seed(DEFAULT_SEED)

    def manual_seed(self, seed: Any) -> "Generator":
        seed = int(seed)
        if seed < 0:
            seed += 1 << 64
        self._seed = seed
        # torch's mt19937 keeps the low 32 bits (init_genrand); NumPy's legacy seeding does the same.
        self._bits = np.random.RandomState(seed & 0xFFFFFFFF)._bit_generator
        self._next_double: float | None = None
        self._next_float: float | None = None
        self._fresh = True  # seeded, nothing drawn yet (torch's next index is 0, not 624)
        return self

    def initial_seed(self) -> int:
        return self._seed

    def seed(self) -> int:
        seed = int.from_bytes(np.random.default_rng().bytes(8), "little") & ((1 << 63) - 1)
        self.manual_seed(seed)
        return seed

    def get_state(self) -> Any:
        """torch's CPUGeneratorImplState as a uint8 tensor of 5056 bytes, laid out as torch lays it."""
        from engine.tensor import Tensor

        state = np.zeros((), _STATE)
        mt = self._bits.state["state"]
        pos = int(mt["pos"])
        state["seed"] = self._seed
        # torch's mt19937 counts `left` down to 1 before regenerating and reads state[next++];
        # NumPy's reads key[pos++] and regenerates at pos == 624. A fresh seed is left=1, next=0.
        state["left"] = 625 - pos if pos < 624 else 1
        state["seeded"] = 1
        state["next"] = 0 if self._fresh else pos
        state["mt"] = mt["key"]
        if self._next_double is not None:
            state["normal_is_valid"] = 1
            state["normal_y"] = self._next_double
        if self._next_float is not None:
            state["float_valid"] = 1
            state["float_sample"] = self._next_float
        return Tensor._make(np.frombuffer(state.tobytes(), np.uint8).copy())

    def set_state(self, new_state: Any) -> "Generator":
        from engine.tensor import Tensor

        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        data = new_state._data
        if data.dtype != np.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        if data.size != _STATE.itemsize:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {_STATE.itemsize} but found the input RNG "
                f"state size to be {data.size}"
            )
        state = np.frombuffer(np.ascontiguousarray(data).reshape(-1).tobytes(), _STATE)[0]
        left, nxt = int(state["left"]), int(state["next"])
        if not state["seeded"] or not 0 < left <= 624 or nxt > 624:
            raise RuntimeError("Invalid mt19937 state")
        bits = np.random.RandomState()._bit_generator
        # The next draw regenerates when left is 1 (NumPy: pos 624); otherwise it reads state[next].
        bits.state = {"bit_generator": "MT19937",
                      "state": {"key": state["mt"].astype(np.uint32), "pos": 624 if left == 1 else nxt}}
        self._bits = bits
        self._seed = int(state["seed"])
        self._fresh = left == 1 and nxt == 0
        self._next_double = float(state["normal_y"]) if state["normal_is_valid"] else None
        self._next_float = float(state["float_sample"]) if state["float_valid"] else None
        return self

    # --- raw draws -------------------------------------------------------------------------
    def random32(self, n: int) -> np.ndarray:
        if not n:
            return np.zeros(0, np.uint64)
        self._fresh = False
        return self._bits.random_raw(n).astype(np.uint64)

    def random64(self, n: int) -> np.ndarray:
        raw = self.random32(2 * n)
        return (raw[0::2] << np.uint64(32)) | raw[1::2]

    # --- distributions ---------------------------------------------------------------------
    def uniform01(self, n: int, dtype: np.dtype) -> np.ndarray:
        if dtype == np.float64:
            return (self.random64(n) & np.uint64(_MASK53)).astype(np.float64) * (2.0 ** -53)
        return ((self.random32(n) & np.uint64(_MASK24)).astype(np.float32) * np.float32(2.0 ** -24))

    def uniform(self, n: int, low: float, high: float, dtype: np.dtype) -> np.ndarray:
        x = self.uniform01(n, dtype)
        t = np.dtype(dtype).type
        lo, hi = t(low), t(high)
        # torch's kernel compiles x * (to - from) + from to a fused multiply-add: one rounding.
        return (x.astype(np.float64) * np.float64(hi - lo) + np.float64(lo)).astype(dtype)

    def normal(self, n: int, mean: float, std: float, dtype: np.dtype) -> np.ndarray:
        if n >= 16:
            return self._normal_fill(n, mean, std, dtype)
        out = np.empty(n, np.float64)
        for i in range(n):
            out[i] = self._normal_scalar() * std + mean
        return out.astype(dtype)

    def _normal_scalar(self) -> float:
        """at::normal_distribution<double>: Box-Muller with the second sample cached."""
        if self._next_double is not None:
            value, self._next_double = self._next_double, None
            return value
        u = self.uniform01(2, np.float64)
        u1, u2 = float(u[0]), float(u[1])
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = _TWO_PI * u1
        self._next_double = r * math.sin(theta)
        return r * math.cos(theta)

    def _normal_fill(self, n: int, mean: float, std: float, dtype: np.dtype) -> np.ndarray:
        data = self.uniform01(n, dtype)
        for i in range(0, n - 15, 16):
            _normal_fill_16(data, i, mean, std)
        if n % 16:
            data[n - 16:] = self.uniform01(16, dtype)
            _normal_fill_16(data, n - 16, mean, std)
        return data

    def random_from_to(self, n: int, low: int, high: int) -> np.ndarray:
        span = high - low
        if span <= 0:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
        draws = self.random64(n) if span >= 1 << 32 else self.random32(n)
        return (draws % np.uint64(span)).astype(np.int64) + low

    def randperm(self, n: int) -> np.ndarray:
        out = np.arange(n, dtype=np.int64)
        draws = self.random32(max(n - 1, 0))
        for i in range(n - 1):
            z = int(draws[i]) % (n - i)
            out[i], out[z + i] = out[z + i], out[i]
        return out


def _normal_fill_16(data: np.ndarray, i: int, mean: float, std: float) -> None:
    """Box-Muller on 8 pairs, as torch's normal_fill_16 (float32 mirrors its AVX2 variant)."""
    if data.dtype == np.float64:
        for j in range(i, i + 8):
            radius = math.sqrt(-2.0 * math.log(1.0 - data[j]))
            theta = _TWO_PI * data[j + 8]
            data[j] = radius * math.cos(theta) * std + mean
            data[j + 8] = radius * math.sin(theta) * std + mean
        return
    t = np.float32
    u1 = t(1) - data[i: i + 8]
    u2 = data[i + 8: i + 16]
    radius = np.sqrt(t(-2) * np.log(u1))
    # torch's AVX2 kernel uses float32 Sleef log/sincos (1-ulp): NumPy's differ in the last bit
    # for some elements, so float32 randn from 16 elements up matches to about 1e-7, not bitwise.
    theta = t(_TWO_PI) * u2
    data[i: i + 8] = radius * np.cos(theta) * t(std) + t(mean)
    data[i + 8: i + 16] = radius * np.sin(theta) * t(std) + t(mean)


default_generator = Generator()


def manual_seed(seed: Any) -> Generator:
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Any:
    return default_generator.get_state()


def set_rng_state(state: Any) -> None:
    default_generator.set_state(state)
