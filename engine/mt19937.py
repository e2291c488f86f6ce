"""The 32-bit Mersenne Twister (MT19937) in NumPy: init_genrand seeding, the twist, tempered draws.

torch's CPU generator and NumPy's legacy RandomState both use this generator and this seeding, so
its state is exchangeable with theirs: 624 words and a read position (624 = twist before the next
draw). Written here, rather than taken from numpy.random, so that importing the engine does not
import numpy.random (and with it threading, hashlib and nine extension modules, which make every
fork of a sandbox parent slower).
"""

from __future__ import annotations

import numpy as np

N = 624
_M = 397
_MATRIX_A = np.uint32(0x9908B0DF)
_UPPER = np.uint32(0x80000000)
_LOWER = np.uint32(0x7FFFFFFF)
_FEW = 8


def _mix(upper_from: np.ndarray, lower_from: np.ndarray) -> np.ndarray:
    """(y >> 1) ^ (MATRIX_A if y is odd) for y = the top bit of one word joined to the low 31 of the next."""
    y = (upper_from & _UPPER) | (lower_from & _LOWER)
    return (y >> np.uint32(1)) ^ ((y & np.uint32(1)) * _MATRIX_A)


class MT19937:
    __slots__ = ("key", "pos")

    def __init__(self, seed: int = 5489) -> None:
        self.seed(seed)

    def seed(self, seed: int) -> None:
        """init_genrand: the low 32 bits of `seed` spread over the 624 words; the next draw twists."""
        word = seed & 0xFFFFFFFF
        key = [word]
        for i in range(1, N):
            word = (1812433253 * (word ^ (word >> 30)) + i) & 0xFFFFFFFF
            key.append(word)
        self.key = np.array(key, np.uint32)
        self.pos = N

    def set_state(self, key: np.ndarray, pos: int) -> None:
        self.key = np.array(key, np.uint32).reshape(N)
        self.pos = int(pos)

    def _twist(self) -> None:
        old = self.key
        new = np.empty_like(old)
        new[:N - _M] = old[_M:] ^ _mix(old[:N - _M], old[1:N - _M + 1])
        # Word i takes word i - (N - M) after its own update, so the rest goes in blocks of N - M.
        for start in range(N - _M, N - 1, N - _M):
            stop = min(start + N - _M, N - 1)
            new[start:stop] = new[start - (N - _M):stop - (N - _M)] ^ _mix(old[start:stop], old[start + 1:stop + 1])
        new[N - 1] = new[_M - 1] ^ _mix(old[N - 1:], new[:1])[0]
        self.key = new
        self.pos = 0

    def random_raw(self, n: int) -> np.ndarray:
        """The next `n` tempered 32-bit outputs, as uint32."""
        if n <= _FEW:  # one word at a time in Python is quicker than NumPy's calls for a few
            words = []
            for _ in range(n):
                if self.pos == N:
                    self._twist()
                y = self.key.item(self.pos)
                self.pos += 1
                y ^= y >> 11
                y ^= (y << 7) & 0x9D2C5680
                y ^= (y << 15) & 0xEFC60000
                words.append(y ^ (y >> 18))
            return np.array(words, np.uint32)
        out = np.empty(n, np.uint32)
        filled = 0
        while filled < n:
            if self.pos == N:
                self._twist()
            take = min(n - filled, N - self.pos)
            out[filled:filled + take] = self.key[self.pos:self.pos + take]
            self.pos += take
            filled += take
        out ^= out >> np.uint32(11)
        out ^= (out << np.uint32(7)) & np.uint32(0x9D2C5680)
        out ^= (out << np.uint32(15)) & np.uint32(0xEFC60000)
        out ^= out >> np.uint32(18)
        return out
