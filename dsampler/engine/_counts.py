"""Decision counts, per configuration version, while telemetry is on: plain
``list[i] += 1`` with no lock (an increment lost to a thread switch is affordable for a
metric); otherwise a snapshot holds None and a decision pays one ``is None`` test.
"""

from __future__ import annotations

from collections import deque
from typing import Final

#: Which part of a snapshot decided (the ``strategy`` attribute of the metric).
PARENT, RULE, OPERATION, DEFAULT = range(4)
STRATEGIES: Final = ("parent", "rule", "operation", "default")
#: What became of a decision, within its strategy.
NOT_KEPT, KEPT, CAPPED = range(3)
_RECENT: Final = 16  # versions kept apart, for the drift audit


class DecisionCounts:
    """Decisions of one configuration version: ``tally[strategy][outcome]``, outcome
    :data:`NOT_KEPT`, :data:`KEPT` (by the strategy itself) or :data:`CAPPED` (kept by
    it, then refused by the global cap or the adaptive hard cap; also counted kept)."""

    __slots__ = ("rate", "scheme", "tally", "version")

    def __init__(self, version: int, rate: float, scheme: str) -> None:
        self.version = version
        self.rate = rate  # for the drift audit
        self.scheme = scheme
        self.tally = [[0, 0, 0] for _ in STRATEGIES]

    def zero(self) -> None:
        """Start again from nothing (in a forked child)."""
        for row in self.tally:
            row[:] = (0, 0, 0)

    def of(self, strategy: int, outcome: int) -> int:
        return self.tally[strategy][outcome]

    @property
    def default_decided(self) -> int:
        """Decisions the default rate made (its own outcome, before any cap)."""
        return self.of(DEFAULT, KEPT) + self.of(DEFAULT, NOT_KEPT)


class CountHistory:
    """The last versions' counts apart, older ones folded into a total, so cumulative
    metrics never go down."""

    __slots__ = ("_recent", "retired")

    def __init__(self) -> None:
        self._recent: deque[DecisionCounts] = deque()
        self.retired = [[0, 0, 0] for _ in STRATEGIES]

    def started(self, counts: DecisionCounts) -> None:
        """A new snapshot counts into ``counts`` from now on (writers only)."""
        self._recent.append(counts)
        while len(self._recent) > _RECENT:
            old = self._recent.popleft()  # a straggling increment into it is lost: fine
            _add(self.retired, old.tally)

    @property
    def recent(self) -> tuple[DecisionCounts, ...]:
        """The last versions' counts, oldest first."""
        return tuple(self._recent)

    def totals(self) -> list[list[int]]:
        """The tally over every version so far (``[strategy][outcome]``)."""
        total = [list(row) for row in self.retired]
        for counts in tuple(self._recent):
            _add(total, counts.tally)
        return total


def _add(total: list[list[int]], tally: list[list[int]]) -> None:
    for row, part in zip(total, tally, strict=True):
        for i, n in enumerate(part):
            row[i] += n
