"""The ratio test, ``key(trace ID) < bound(rate)``, defined once for every scheme (the
engine's request path inlines it; a test holds the two equal)."""

from __future__ import annotations

from dsampler.hashing._reference import MASK64
from dsampler.hashing._schemes import MASK128, HashScheme


def _halves(trace_id: int) -> tuple[int, int]:
    """The two 64-bit halves by int's own operators (an int subclass's may raise)."""
    return int.__and__(int.__rshift__(trace_id, 64), MASK64), int.__and__(trace_id, MASK64)


class Ratio:
    """A validated ``rate`` under ``scheme``: its exact integer ``bound``, and the test."""

    __slots__ = ("bound", "mask", "rate", "scheme")

    def __init__(self, rate: float, scheme: HashScheme) -> None:
        self.rate = rate
        self.scheme = scheme
        self.bound = scheme.bound(rate)
        self.mask = scheme.mask

    def key(self, trace_id: int) -> int:
        """The key :meth:`admits` compares, by the scheme's fastest entry."""
        if (of_bytes := self.scheme.of_bytes) is not None:
            return of_bytes((trace_id & MASK128).to_bytes(16, "big"))
        if mask := self.mask:
            return trace_id & mask
        return self.scheme.key((trace_id >> 64) & MASK64, trace_id & MASK64)

    def admits(self, trace_id: int) -> bool:
        """Sampled at this rate."""
        return self.key(trace_id) < self.bound

    def key_of(self, trace_id: int) -> int:
        """The key by the pure-Python reference; never raises for an int, whatever its class."""
        return self.scheme.reference(*_halves(trace_id))
