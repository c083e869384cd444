"""What a ``key < bound`` decision can truthfully state in ``ot`` (``th:T`` only if ``R >= T``):
``ALWAYS`` (rate 1, ``th:0``); ``BY_TRACE`` (key ``2**56 - 1 - R``, bound ``2**56 - T``);
``BY_KEY`` (56 uniform key bits: a root states ``rv = 2**56 - 1 - (u >> s)`` with
``T = 2**56 - ((bound - offset) >> s)``, ``u`` the key above ``offset``, ``s`` its bits past
56; keys with ``u >= limit`` have ``R < T`` and state nothing, as does a span with a parent);
``NOTHING`` (no probability, or no 56 random bits in the key).
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
