"""What a rule's ``key < bound`` decision can truthfully state in ``ot``: ``th:T`` only if
the span's randomness ``R`` satisfies ``R >= T``. One :class:`Statement` per scheme:

* ``ALWAYS``: rate 1, ``th:0``.
* ``BY_TRACE``: the key is ``2**56 - 1 - R`` and the bound ``2**56 - T``, so
  ``key < bound`` is ``R >= T`` exactly.
* ``BY_KEY``: a key with 56 uniform bits, unrelated to the trace ID; a root states an
  explicit ``rv = 2**56 - 1 - (u >> s)`` with ``T = 2**56 - ((bound - offset) >> s)``
  (``u`` the key above ``offset``, ``s`` its bits past 56). Sampled keys with
  ``u >= limit`` (a chance below ``2**-56``) have ``R < T`` and state nothing, as does
  a span with a parent.
* ``NOTHING``: no probability (rate limits, lower bounds) or no 56 random bits in the key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from dsampler.consistent._threshold import MAX_THRESHOLD, encode_th
from dsampler.hashing import MASK56, MASK64, HashScheme

NOTHING: Final = 0
ALWAYS: Final = 1
BY_TRACE: Final = 2
BY_KEY: Final = 3


@dataclass(frozen=True, slots=True)
class Statement:
    """How a ratio's sampled spans state their threshold.

    Attributes:
        how: NOTHING, ALWAYS, BY_TRACE or BY_KEY.
        threshold: ``T`` (:data:`MAX_THRESHOLD` with NOTHING); th: its ``th`` value.
        offset, shift, limit: BY_KEY: the key's offset, its bits past 56, and the ``u``
            below which ``rv`` and ``th`` are stated.
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
