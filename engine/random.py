"""torch's CPU random generator: mt19937 seeded like torch, and its uniform/normal/randint recipes.

Values match PyTorch's CPU generator bit for bit for the recipes torch uses on CPU: rand (24-bit
floats from one 32-bit draw, 53-bit doubles from two), randn (the scalar Box-Muller path with its
cached second sample below 16 elements; the 16-at-a-time fill from 16 elements up, in float32 as
torch's AVX2 kernel computes it), randint, randperm, and uniform_/normal_ on tensors (nn.init).
"""

from __future__ import annotations

import contextlib as _contextlib
import math
import os
from typing import Any

import numpy as np

from engine.mt19937 import MT19937, N as _MT_WORDS

DEFAULT_SEED = 67280421310721
_MASK24 = (1 << 24) - 1
_MASK53 = (1 << 53) - 1
_TWO_PI = 2.0 * math.pi
# Whether this process read a generator seeded from the OS's entropy (see Generator.from_entropy): what such a
# run prints may differ the next time the same code runs.
_entropy_read = False

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

    def __repr__(self) -> str:
        return f"<torch._C.Generator object at {id(self):#x}>"

    def __init__(self, device: Any = "cpu") -> None:
        self.device = device
        self.manual_seed(DEFAULT_SEED)

    def manual_seed(self, seed: Any) -> "Generator":
        seed = int(seed)
        if seed < 0:
            seed += 1 << 64
        self._seed = seed
        self._bits = MT19937(seed)  # torch's mt19937 keeps the low 32 bits (init_genrand)
        self._next_double: float | None = None
        self._next_float: float | None = None
        self._fresh = True  # seeded, nothing drawn yet (torch's next index is 0, not 624)
        self._from_entropy = False
        return self

    def initial_seed(self) -> int:
        self._note_entropy()
        return self._seed

    def seed(self) -> int:
        seed = self.from_entropy()
        self._note_entropy()
        return seed

    def from_entropy(self) -> int:
        """Seeds from the OS's entropy, as torch seeds its default generator when a process starts; reading
        the generator from then on (a draw, its seed or state) until it is seeded again notes that the run
        read entropy."""
        seed = int.from_bytes(os.urandom(8), "little") & ((1 << 63) - 1)
        self.manual_seed(seed)
        self._from_entropy = True
        return seed

    def _note_entropy(self) -> None:
        global _entropy_read
        if self._from_entropy:
            _entropy_read = True

    def get_state(self) -> Any:
        """torch's CPUGeneratorImplState as a uint8 tensor of 5056 bytes, laid out as torch lays it."""
        self._note_entropy()
        return self._state()

    def _state(self) -> Any:
        from engine.tensor import Tensor

        state = np.zeros((), _STATE)
        pos = self._bits.pos
        state["seed"] = self._seed
        # torch's mt19937 counts `left` down to 1 before regenerating and reads state[next++];
        # MT19937 here reads key[pos++] and twists at pos == 624. A fresh seed is left=1, next=0.
        state["left"] = _MT_WORDS + 1 - pos if pos < _MT_WORDS else 1
        state["seeded"] = 1
        state["next"] = 0 if self._fresh else pos
        state["mt"] = self._bits.key
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
        # The next draw twists when left is 1 (pos 624); otherwise it reads state[next].
        self._bits.set_state(state["mt"].astype(np.uint32), _MT_WORDS if left == 1 else nxt)
        self._seed = int(state["seed"])
        self._fresh = left == 1 and nxt == 0
        self._next_double = float(state["normal_y"]) if state["normal_is_valid"] else None
        self._next_float = float(state["float_sample"]) if state["float_valid"] else None
        self._from_entropy = False  # a state the program holds: what follows is known
        return self

    # --- raw draws -------------------------------------------------------------------------
    def random32(self, n: int) -> np.ndarray:
        if not n:
            return np.zeros(0, np.uint64)
        self._fresh = False
        self._note_entropy()
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
        """torch's normal_fill: all uniforms first, Box-Muller per 16; a tail redraws the last 16."""
        data = self.uniform01(n, dtype)
        whole = n - n % 16
        data[:whole] = _box_muller_16(data[:whole].reshape(-1, 16), mean, std).reshape(-1)
        if n % 16:
            data[n - 16:] = _box_muller_16(self.uniform01(16, dtype).reshape(1, 16), mean, std).reshape(-1)
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


def _box_muller_16(blocks: np.ndarray, mean: float, std: float) -> np.ndarray:
    """Rows of 16 uniforms to normals as torch's normal_fill_16: pairs (j, j + 8) of each row."""
    if blocks.dtype == np.float32:
        return _normal_16_float32(blocks, mean, std)
    out = np.empty_like(blocks)
    for row, u in zip(out, blocks.tolist()):
        for j in range(8):
            radius = math.sqrt(-2.0 * math.log(1.0 - u[j]))
            theta = _TWO_PI * u[j + 8]
            row[j] = radius * math.cos(theta) * std + mean
            row[j + 8] = radius * math.sin(theta) * std + mean
    return out


def _normal_16_float32(blocks: np.ndarray, mean: float, std: float) -> np.ndarray:
    """Rows of 16 uniforms to normals, bit for bit as torch's AVX2 kernel (avx_mathfun's log and
    sincos, with the multiply-adds the compiler fuses)."""
    u1 = _F1 - blocks[:, :8]
    radius = np.sqrt(np.float32(-2) * _avx_log(u1))
    sin, cos = _avx_sincos(np.float32(_TWO_PI) * blocks[:, 8:])
    return np.concatenate([_fma(radius * cos, std, mean), _fma(radius * sin, std, mean)], axis=1)


_F1 = np.float32(1)


def _fma(a: Any, b: Any, c: Any) -> np.ndarray:
    """float32 a * b + c, rounded once (a product of two float32 values is exact in float64)."""
    product = np.asarray(a, np.float32).astype(np.float64) * np.asarray(b, np.float32)
    return (product + np.asarray(c, np.float32)).astype(np.float32)


def _horner(x: np.ndarray, coefficients: tuple) -> np.ndarray:
    """A float32 polynomial in x, highest power first, one fused multiply-add per coefficient."""
    y = np.full_like(x, np.float32(coefficients[0]))
    for c in coefficients[1:]:
        y = _fma(y, x, c)
    return y


_LOG_POLY = (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1, 1.4249322787E-1,
             -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1)
_SIN_POLY = (-1.9515295891E-4, 8.3321608736E-3, -1.6666654611E-1)
_COS_POLY = (2.443315711809948E-005, -1.388731625493765E-003, 4.166664568298827E-002)


def _avx_log(x: np.ndarray) -> np.ndarray:
    """The cephes float32 logarithm of avx_mathfun (x > 0): exponent and a polynomial in the mantissa."""
    bits = np.maximum(x, np.finfo(np.float32).tiny).view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(np.float32) + _F1
    m = ((bits & ~0x7F800000) | 0x3F000000).view(np.float32)  # the mantissa in [0.5, 1)
    small = m < np.float32(0.707106781186547524)
    e = e - small.astype(np.float32)
    m = (m - _F1) + np.where(small, m, np.float32(0))
    z = m * m
    y = _horner(m, _LOG_POLY) * m
    y = _fma(y, z, e * np.float32(-2.12194440e-4))
    y = _fma(z, -0.5, y)
    return _fma(e, 0.693359375, m + y)


def _avx_sincos(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The cephes float32 sine and cosine of avx_mathfun, for x >= 0."""
    j = (x * np.float32(1.27323954473516)).astype(np.int32)  # x / (pi / 4), truncated
    j = (j + 1) & ~1
    y = j.astype(np.float32)
    for part in (-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8):
        x = _fma(y, part, x)  # x - j * pi / 4 in extended precision
    z = x * x
    c = _horner(z, _COS_POLY) * z
    c = _fma(c, z, -(z * np.float32(0.5))) + _F1
    s = _horner(z, _SIN_POLY) * z
    s = _fma(s, x, x)
    near_zero = (j & 2) == 0
    sin, cos = np.where(near_zero, s, c), np.where(near_zero, c, s)
    sin = np.where((j & 4) != 0, -sin, sin)
    cos = np.where((~(j - 2) & 4) != 0, -cos, cos)
    return sin, cos


default_generator = Generator()


def entropy_read() -> bool:
    """Whether this process read a generator seeded from entropy (Generator.from_entropy) since
    forget_entropy_read()."""
    return _entropy_read


def forget_entropy_read() -> None:
    global _entropy_read
    _entropy_read = False


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


@_contextlib.contextmanager
def fork_rng(devices: Any = None, enabled: bool = True, _caller: str = "fork_rng", _devices_kw: str = "devices",
             device_type: Any = None) -> Any:
    """Restores the CPU generator's state on exit (there are no other devices)."""
    if not enabled:
        yield
        return
    state, from_entropy = default_generator._state(), default_generator._from_entropy
    try:
        yield
    finally:
        default_generator.set_state(state)
        default_generator._from_entropy = from_entropy


# --- exponential_, geometric_, cauchy_, log_normal_: torch's serial CPU kernels, one double each ---------
def exponential(gen: Generator, n: int, lambd: float) -> np.ndarray:
    """-1 / lambda * log1p(-u) per 53-bit uniform u (at::exponential_distribution<double>)."""
    scale = -1.0 / lambd
    return np.array([scale * math.log1p(-u) for u in gen.uniform01(n, np.dtype(np.float64)).tolist()])


def geometric(gen: Generator, n: int, p: float) -> np.ndarray:
    """ceil(log(u) / log1p(-p)) per 53-bit uniform u (at::geometric_distribution<double>)."""
    denominator = math.log1p(-p)
    return np.array([_ceil(_log(u) / denominator) for u in gen.uniform01(n, np.dtype(np.float64)).tolist()],
                    np.float64)


def cauchy(gen: Generator, n: int, median: float, sigma: float) -> np.ndarray:
    """median + sigma * tan(pi * (u - 0.5)), the multiply-add fused (at::cauchy_distribution<double>)."""
    tangents = [math.tan(math.pi * (u - 0.5)) for u in gen.uniform01(n, np.dtype(np.float64)).tolist()]
    return fma64(sigma, np.array(tangents, np.float64), median)


def log_normal(gen: Generator, n: int, mean: float, std: float) -> np.ndarray:
    """exp(z * std + mean), the multiply-add fused, for Box-Muller normals z drawn one at a time
    (at::lognormal_distribution<double>, sharing the cached second sample with randn)."""
    return np.array([math.exp(v) for v in fma64(normal_scalars(gen, n), std, mean).tolist()], np.float64)


def normal_scalars(gen: Generator, n: int) -> np.ndarray:
    """n standard normals drawn one at a time (at::normal_distribution<double>), whatever n is."""
    return np.array([gen._normal_scalar() for _ in range(n)], np.float64)


def poisson(gen: Generator, rates: list) -> np.ndarray:
    """One Poisson sample per rate, as torch's serial CPU sample_poisson draws them: Hoermann's
    transformed rejection from rate 10 up, a product of uniforms below."""
    return np.array([float(_poisson_one(gen, float(lam))) for lam in rates], np.float64)


def _poisson_one(gen: Generator, lam: float) -> int:
    if not lam >= 0:
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")

    def uniform() -> float:
        return float(gen.uniform01(1, np.dtype(np.float64))[0])

    if lam >= 10:
        slam, loglam = math.sqrt(lam), math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = uniform() - 0.5
            v = uniform()
            us = 0.5 - abs(u)
            k = math.floor((2 * a / us + b) * u + lam + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if _log(v) + math.log(invalpha) - math.log(a / (us * us) + b) <= -lam + k * loglam - math.lgamma(k + 1):
                return k
    if lam == 0:
        return 0
    enlam = math.exp(-lam)
    x, prod = 0, 1.0
    while True:
        prod *= uniform()
        if prod > enlam:
            x += 1
        else:
            return x


def _log(x: float) -> float:
    return math.log(x) if x > 0 else -math.inf


def _ceil(x: float) -> float:
    return float(math.ceil(x)) if math.isfinite(x) else x


def fma64(a: Any, b: Any, c: Any) -> np.ndarray:
    """float64 a * b + c rounded once: Dekker's exact product and Knuth's exact sum, then one rounding."""
    a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
    p = a * b
    t = 134217729.0 * a  # 2^27 + 1: splits a double into two 26-bit halves
    ah = t - (t - a)
    al = a - ah
    t = 134217729.0 * b
    bh = t - (t - b)
    bl = b - bh
    product_error = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    back = s - p
    sum_error = (p - (s - back)) + (c - back)
    return s + (sum_error + product_error)
