"""A streaming latency sketch (DDSketch's idea): logarithmic buckets, every quantile within
a relative ``a`` of the exact one, in memory that grows with the log of the value range.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterable


class LatencySketch:
    """Counts of latencies (seconds) in relative-error buckets.

    Args:
        relative_accuracy: ``a`` in (0, 1): each quantile is within a factor ``1 +- a``.
        min_s, max_s: the range with a guaranteed error (1 us to 10,000 s).
    """

    __slots__ = ("_buckets", "_gamma", "_inv_log_gamma", "_low", "_max_index", "count", "max_s", "min_s")

    def __init__(self, relative_accuracy: float = 0.01, *, min_s: float = 1e-6, max_s: float = 1e4) -> None:
        if not 0.0 < relative_accuracy < 1.0:
            raise ValueError(f"relative_accuracy: expected a number in (0, 1), got {relative_accuracy!r}")
        self._gamma = (1.0 + relative_accuracy) / (1.0 - relative_accuracy)
        self._inv_log_gamma = 1.0 / math.log(self._gamma)
        self.min_s, self.max_s = min_s, max_s
        self._low = self._index(min_s) - 1  # values <= min_s; every other index is above it
        self._max_index = self._index(max_s)
        self._buckets: dict[int, int] = {}
        self.count = 0

    @property
    def relative_accuracy(self) -> float:
        return (self._gamma - 1.0) / (self._gamma + 1.0)

    def _index(self, value: float) -> int:
        return math.ceil(math.log(value) * self._inv_log_gamma)

    def add(self, value: float, count: int = 1) -> None:
        """Count ``value`` (seconds) ``count`` times; NaN is ignored."""
        self.add_all((value,), count)

    def add_all(self, values: Iterable[float], count: int = 1) -> None:
        """Count each of ``values`` ``count`` times (the per-tick path: one loop, locals only)."""
        buckets, get, log, ceil = self._buckets, self._buckets.get, math.log, math.ceil
        low, high, top, inv, lowest = self.min_s, self.max_s, self._max_index, self._inv_log_gamma, self._low
        added = 0
        for value in values:
            if value > low:
                i = ceil(log(value) * inv) if value < high else top
            elif value <= low:
                i = lowest
            else:  # NaN
                continue
            buckets[i] = get(i, 0) + count
            added += count
        self.count += added

    def merge(self, other: LatencySketch) -> None:
        """Add ``other``'s counts (it must have the same accuracy and range)."""
        if (other._gamma, other._low, other._max_index) != (self._gamma, self._low, self._max_index):
            raise ValueError("cannot merge sketches of different accuracy or range")
        for i, n in other._buckets.items():
            self._buckets[i] = self._buckets.get(i, 0) + n
        self.count += other.count

    def quantile(self, q: float) -> float | None:
        """The ``q``-quantile (0 <= q <= 1) within the relative accuracy; None if empty."""
        if self.count == 0:
            return None
        rank = max(0.0, min(1.0, q)) * (self.count - 1)
        seen = 0
        for i in sorted(self._buckets):
            seen += self._buckets[i]
            if seen > rank:
                return self._value(i)
        return self._value(max(self._buckets))  # pragma: no cover - seen reaches count

    def _value(self, i: int) -> float:
        if i == self._low:
            return self.min_s
        return 2.0 * self._gamma**i / (self._gamma + 1.0)

    def clear(self) -> None:
        self._buckets.clear()
        self.count = 0

    def copy(self) -> LatencySketch:
        twin = copy.copy(self)
        twin._buckets = dict(self._buckets)
        return twin

    def __len__(self) -> int:
        """Buckets in use: the sketch's memory, logarithmic in the value range."""
        return len(self._buckets)
