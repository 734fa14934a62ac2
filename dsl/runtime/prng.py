"""The one random number generator of rulecraft, defined exactly so that every runtime (this one,
and the JavaScript one in dsl/backends/js/runtime/prng.js) rolls the same faces from the same seed.

Why one of our own and not `random.Random`: Python's Mersenne Twister, seeded from an int, is
specified only by CPython's code, and JavaScript has no seeded generator at all.  A bot in Python
and a virtual tabletop in JavaScript that share a seed must see the same dice, and a bug report
that gives a seed must replay.

The generator is xoshiro128** 1.1 (Blackman and Vigna, https://prng.di.unimi.it/), 32-bit words,
its four words of state filled from the seed by SplitMix64 (two 64-bit outputs, each split low
word first), as its authors recommend.  The seed is any whole number, taken modulo 2**64.  A
die of n faces takes the face at index `below(n)`: a 32-bit output u is drawn until
u < 2**32 - (2**32 mod n), and the index is u mod n (rejection: every face exactly as likely).
"""

from __future__ import annotations

from typing import Final

_MASK32: Final = 0xFFFFFFFF
_MASK64: Final = 0xFFFFFFFFFFFFFFFF
_SPAN: Final = 1 << 32


def _splitmix64(state: int) -> tuple[int, int]:
    """The next state and output of SplitMix64."""
    state = (state + 0x9E3779B97F4A7C15) & _MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return state, z ^ (z >> 31)


def _rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (32 - k))) & _MASK32


class Xoshiro128:
    """xoshiro128** seeded by SplitMix64: `Xoshiro128(20261127).below(6)` is a d6's face index."""

    __slots__ = ("_s",)

    def __init__(self, seed: int) -> None:
        if type(seed) is not int:
            raise TypeError(f"a seed is a whole number, not {seed!r}")
        state = seed & _MASK64
        words: list[int] = []
        for _ in range(2):
            state, out = _splitmix64(state)
            words += [out & _MASK32, out >> 32]
        if not any(words):  # the one state xoshiro cannot leave; SplitMix64 never gives it, kept as a guard
            words[0] = 1
        self._s = words

    def getstate(self) -> tuple[int, int, int, int]:
        """The four words of state, s[0] first."""
        s = self._s
        return (s[0], s[1], s[2], s[3])

    def next32(self) -> int:
        """The next 32-bit output."""
        s = self._s
        result = (_rotl((s[1] * 5) & _MASK32, 7) * 9) & _MASK32
        t = (s[1] << 9) & _MASK32
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 11)
        return result

    def below(self, n: int) -> int:
        """A whole number from 0 to n - 1, each as likely (1 <= n <= 2**32)."""
        if not 1 <= n <= _SPAN:
            raise ValueError(f"a die of {n} faces is not rolled: at most {_SPAN} faces")
        limit = _SPAN - _SPAN % n
        while True:
            value = self.next32()
            if value < limit:
                return value % n
