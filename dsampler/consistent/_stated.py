"""What a rule's ``key < bound`` decision can truthfully state in the ``ot`` entry.

A sampled span may carry ``th:T`` only if its randomness ``R`` (the ``rv`` it carries,
else its trace ID's low 56 bits) satisfies ``R >= T``: that is what every downstream
consistent sampler checks. Each hash scheme gets one :class:`Statement`:

* ``ALWAYS``: rate 1 under any scheme. Every ``R`` passes ``T = 0``: ``th:0``, exact.
* ``BY_TRACE``: a scheme whose key is ``2**56 - 1 - R`` (``HashScheme.by_trace``:
  ``consistent``) and its bound ``2**56 - T``, so ``key < bound`` is ``R >= T`` exactly
  (with the parent's ``rv`` as ``R`` when it has one): ``th:T``.
* ``BY_KEY``: schemes whose key has at least 56 uniform bits (``HashScheme.uniform``, the
  offset and bits past 56 of each: ``fnv1a``, ``xxh3``, ``otel``: 64 bits; ``jaeger-go``
  and ``otel-java``: 63). Their decision is unrelated to the trace ID's low 56 bits, so
  ``th`` alone would be false; with an explicit ``rv`` derived from the key it is exact.
  With ``u`` the key above the scheme's ``offset`` and ``s`` the bits past 56:
  ``R = 2**56 - 1 - (u >> s)``,
  ``T = 2**56 - ((bound - offset) >> s)``. Every ``u`` below ``limit = (2**56 - T) << s``
  is sampled and has ``R >= T``; the few sampled keys in ``[limit, bound)`` (fewer than
  ``2**s`` of ``2**64``: a chance below ``2**-56`` a trace) have ``R < T`` and carry
  neither ``th`` nor ``rv``. ``rv`` is written only on a root: a span with a parent
  (deciding by itself, ``parent_based: false``) carries neither.
* ``NOTHING``: no probability to state (rate limits, lower bounds, a rate below
  ``2**-56`` under ``BY_KEY``), or no 56 random bits in the key (``otel-js``'s XOR is 32
  bits): no ``th``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from dsampler.consistent._threshold import MAX_THRESHOLD, encode_th
from dsampler.hashing import MASK56, MASK64, HashScheme

__all__ = [
    "ALWAYS",
    "BY_KEY",
    "BY_TRACE",
    "NOTHING",
    "NOTHING_STATED",
    "Statement",
    "statement",
]

NOTHING: Final = 0
ALWAYS: Final = 1
BY_TRACE: Final = 2
BY_KEY: Final = 3


@dataclass(frozen=True, slots=True)
class Statement:
    """How a ratio's sampled spans state their threshold.

    Attributes:
        how: NOTHING, ALWAYS, BY_TRACE or BY_KEY.
        threshold: ``T`` (:data:`MAX_THRESHOLD` with NOTHING).
        th: ``T``'s ``th`` value, "" with NOTHING.
        offset: BY_KEY: the key's offset.
        shift: BY_KEY: the key's bits past 56.
        limit: BY_KEY: keys whose ``u`` is below it carry ``rv`` and ``th``.
    """

    how: int
    threshold: int = MAX_THRESHOLD
    th: str = ""
    offset: int = 0
    shift: int = 0
    limit: int = 0

    def randomness(self, key: int) -> int | None:
        """BY_KEY: the ``rv`` of a sampled key, None in the sliver where ``R < T``."""
        u = (key - self.offset) & MASK64
        return MASK56 - (u >> self.shift) if u < self.limit else None


NOTHING_STATED: Final = Statement(NOTHING)


def statement(scheme: HashScheme, rate: float, bound: int) -> Statement:
    """What decisions ``key < bound`` at ``rate`` under ``scheme`` can state."""
    if rate >= 1.0:
        return Statement(ALWAYS, 0, "0")
    if bound <= 0:
        return NOTHING_STATED
    if scheme.by_trace:
        threshold = MAX_THRESHOLD - bound
        return Statement(BY_TRACE, threshold, encode_th(threshold))
    if scheme.uniform is None:
        return NOTHING_STATED
    offset, shift = scheme.uniform
    stated = (bound - offset) >> shift
    if stated <= 0:
        return NOTHING_STATED
    threshold = MAX_THRESHOLD - stated
    return Statement(BY_KEY, threshold, encode_th(threshold), offset, shift, stated << shift)
