"""The ratio test: a trace is sampled at ``rate`` iff ``key(trace ID) < bound(rate)``.

:class:`Ratio` is its one definition, for every scheme of
:mod:`dsampler.hashing._schemes`: every decider that samples by a rate is one (or holds
one). Three request paths inline the same test instead of calling :meth:`Ratio.admits`,
because there a call costs about a seventh of a decision: the engine's path for a
configuration of one rate (``dsampler.engine._request``), a rate's decider
(``RatioDecider.decide``, what a rule or the default rate decides with) and
:class:`~dsampler.RatioSampler`; a property test holds each equal to :meth:`admits`.
"""

from __future__ import annotations

from typing import Final

from dsampler.hashing._reference import MASK64
from dsampler.hashing._schemes import MASK128, HashScheme

__all__ = ["Ratio"]

_to_bytes: Final = int.to_bytes


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

    __slots__ = ("bound", "rate", "scheme")

    def __init__(self, rate: float, scheme: HashScheme) -> None:
        self.rate = rate
        self.scheme = scheme
        self.bound = scheme.bound(rate)

    def key(self, trace_id: int) -> int:
        """The key by the scheme's fastest entry (what :meth:`admits` compares)."""
        of_bytes = self.scheme.of_bytes
        if of_bytes is not None:
            return of_bytes((trace_id & MASK128).to_bytes(16, "big"))
        return self.scheme.key((trace_id >> 64) & MASK64, trace_id & MASK64)

    def admits(self, trace_id: int) -> bool:
        """Sampled at this rate: the scheme's fastest entry (xxh3's C function over the 16
        bytes, a numba kernel once loaded, else the pure-Python reference)."""
        of_bytes = self.scheme.of_bytes
        if of_bytes is not None:
            return of_bytes((trace_id & MASK128).to_bytes(16, "big")) < self.bound
        return self.scheme.key((trace_id >> 64) & MASK64, trace_id & MASK64) < self.bound

    def key_of(self, trace_id: int) -> int:
        """The key, by the pure-Python reference and int's own operators: what a fallback
        and ``explain`` read (bit-identical to every faster entry)."""
        return self.scheme.reference(*_halves(trace_id))

    def admits_by_reference(self, trace_id: int) -> bool:
        """:meth:`admits`, by :meth:`key_of` (never raises for an int, whatever its class)."""
        return self.key_of(trace_id) < self.bound
