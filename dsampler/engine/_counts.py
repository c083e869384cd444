"""Decision counts: what the request path adds when telemetry is on, and nothing else.

Each compiled snapshot gets its own :class:`DecisionCounts` (so counts are per
configuration version, which is what the drift audit compares) when its DSampler
counts; otherwise the snapshot holds None and a decision pays one ``is None`` test. A
snapshot compiled while its engine waits for its first decision to say whether to count
(:meth:`~dsampler.engine.Engine.count_from_first_decision`) gets counts whose rows call
the engine back at their increments, until it has answered and replaced the snapshot:
the first decisions are counted all the same, and kept if it counts.
Counting is plain ``list[i] += 1`` on small lists: no lock, no allocation of note, and
under thread contention an increment may now and then be lost (a GIL switch between
the read and the write), which a metric can afford. :class:`CountHistory` keeps the counts of
the recent versions and folds older ones into totals, so cumulative metrics never go
down.
"""

from __future__ import annotations

import weakref
from collections import deque
from typing import Any, Final

__all__ = [
    "CAPPED",
    "DEFAULT",
    "KEPT",
    "NOT_KEPT",
    "OPERATION",
    "PARENT",
    "RULE",
    "STRATEGIES",
    "CountHistory",
    "DecisionCounts",
]

#: Which part of a snapshot decided (the ``strategy`` attribute of the metric).
PARENT, RULE, OPERATION, DEFAULT = range(4)
STRATEGIES: Final = ("parent", "rule", "operation", "default")
#: What became of a decision, within its strategy.
NOT_KEPT, KEPT, CAPPED = range(3)
_RECENT: Final = 16  # versions kept apart, for the drift audit


class DecisionCounts:
    """Decisions of one configuration version: ``tally[strategy][outcome]``, outcome
    :data:`NOT_KEPT`, :data:`KEPT` (by the strategy itself) or :data:`CAPPED` (kept by
    it, then refused by the global cap or the adaptive hard cap; also counted kept).
    The hot paths hold one strategy's list and add at ``[sampled]``: a bool is 0 or 1."""

    __slots__ = ("asking", "rate", "scheme", "tally", "version")

    def __init__(
        self, version: int, rate: float, scheme: str, first: weakref.WeakMethod[Any] | None = None
    ) -> None:
        self.version = version
        self.rate = rate  # the default rate of this version, for the drift audit
        self.scheme = scheme
        #: counting before the engine knows whether to count (its rows call ``first``)
        self.asking = first is not None
        self.tally: list[list[int]] = (
            [[0, 0, 0] for _ in STRATEGIES] if first is None else [_Asking(first) for _ in STRATEGIES]
        )

    def settled(self) -> DecisionCounts:
        """These counts so far, in plain rows that call nobody back (the engine counts)."""
        out = DecisionCounts(self.version, self.rate, self.scheme)
        out.tally = [[*row] for row in self.tally]
        return out

    def zero(self) -> None:
        """Start again from nothing (in a forked child: the parent's decisions are its own)."""
        for row in self.tally:
            del row[:]  # neither calls an asking row back
            row.extend((0, 0, 0))

    def of(self, strategy: int, outcome: int) -> int:
        return self.tally[strategy][outcome]

    @property
    def default_decided(self) -> int:
        """Decisions the default rate made (its own outcome, before any cap)."""
        return self.of(DEFAULT, KEPT) + self.of(DEFAULT, NOT_KEPT)


class _Asking(list[int]):
    """A tally row that calls its engine back after each increment (a weak method: a
    snapshot keeps no engine alive); whatever the call does, the increment is made and
    nothing is raised on the request path."""

    __slots__ = ("_first",)

    def __init__(self, first: weakref.WeakMethod[Any]) -> None:
        super().__init__((0, 0, 0))
        self._first = first

    def __setitem__(self, index: Any, value: Any) -> None:
        list.__setitem__(self, index, value)
        try:
            call = self._first()
            if call is not None:
                call()
        except Exception:  # a decision is never refused for a metric
            pass


class CountHistory:
    """The counts of one DSampler across versions: the last ones apart, older ones
    folded into a running total, so cumulative metrics never go down."""

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
