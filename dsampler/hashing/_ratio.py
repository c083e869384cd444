"""The ratio test: a trace is sampled at ``rate`` iff ``key(trace ID) < bound(rate)``.

:class:`Ratio` is its one definition, for every scheme of
:mod:`dsampler.hashing._schemes`: every decider that samples by a rate is one (or holds
one) and calls :meth:`Ratio.key`. The engine's request path for a configuration of one
rate (``dsampler.engine._request``) is the one place that inlines it, because there a
call is a large share of a decision (``benchmarks/request_path_callgrind.py`` counts
it); a test holds that copy equal to :meth:`Ratio.admits` under every scheme.
"""

from __future__ import annotations

from dsampler.hashing._reference import MASK64
from dsampler.hashing._schemes import MASK128, HashScheme

__all__ = ["Ratio"]


def _halves(trace_id: int) -> tuple[int, int]:
    """The two 64-bit halves by int's own operators, so an int subclass that overrides
    ``>>`` or ``&`` (or raises in them) cannot fail a fallback a second time."""
    return int.__and__(int.__rshift__(trace_id, 64), MASK64), int.__and__(trace_id, MASK64)


class Ratio:
    """``rate`` under ``scheme``: its exact integer ``bound``, and the test.

    Args:
        rate: a validated rate in [0, 1].
        scheme: the hash scheme (``get_scheme(name)``).
    """

    __slots__ = ("bound", "mask", "rate", "scheme")

    def __init__(self, rate: float, scheme: HashScheme) -> None:
        self.rate = rate
        self.scheme = scheme
        self.bound = scheme.bound(rate)
        self.mask = scheme.mask

    def key(self, trace_id: int) -> int:
        """The key :meth:`admits` compares, by the scheme's fastest entry: its C function
        over the 16 bytes (``xxh3``), else the trace ID's low bits (a masking scheme), else
        ``key(hi, lo)`` (a numba kernel once loaded, else the pure-Python reference)."""
        if (of_bytes := self.scheme.of_bytes) is not None:
            return of_bytes((trace_id & MASK128).to_bytes(16, "big"))
        if mask := self.mask:
            return trace_id & mask
        return self.scheme.key((trace_id >> 64) & MASK64, trace_id & MASK64)

    def admits(self, trace_id: int) -> bool:
        """Sampled at this rate."""
        return self.key(trace_id) < self.bound

    def key_of(self, trace_id: int) -> int:
        """The key, by the pure-Python reference and int's own operators: what a fallback
        and ``explain`` read (bit-identical to every faster entry; never raises for an
        int, whatever its class)."""
        return self.scheme.reference(*_halves(trace_id))
