"""What the controller reads at each tick: its tap on the request path (offered load and
the hard cap) and the latencies observed. The request path counts by ``list.append``
(atomic, no lock); the controller counts and deletes from the front, so the count is
exact (docs/design.md).
"""

from __future__ import annotations

from collections import deque
from typing import Final

from dsampler import _fork
from dsampler.clock import Clock
from dsampler.config import AdaptiveSettings
from dsampler.decision import TokenBucket

FOLD_AT: Final = 100_000  # decisions held uncounted (1M/s at 100 ms ticks)
MAX_PENDING: Final = 100_000  # observations held between ticks (1M/s at 100 ms ticks)


class Tap:
    """Offered-load counter and hard-cap bucket of one controller.

    Attributes:
        offered: one item per root decision of the default rate not yet counted.
        backstop: the hard cap (None: none).
        total: decisions counted until the last :meth:`take`.
    """

    __slots__ = ("_folded", "_guard", "backstop", "offered", "total")

    fold_at: Final = FOLD_AT

    def __init__(self, backstop: TokenBucket | None) -> None:
        self.offered: list[None] = []
        self.backstop = backstop
        self._folded = 0  # counted by fold(), not yet taken
        self.total = 0
        self._guard = _fork.ModuleLock()  # fresh in a forked child: a take() in flight would hold it

    def limit(self, settings: AdaptiveSettings, clock: Clock, share: float = 1.0) -> None:
        """The hard cap of ``settings`` (None without one), times this process's
        ``share`` of it (the burst it holds stays whole: a bucket of one credit would
        refuse two sampled requests close together); a bucket kept keeps its balance,
        pro-rated to the new figures."""
        cap, bucket = settings.hard_cap_per_second, self.backstop
        if cap is None:
            self.backstop = None
        elif bucket is None:
            self.backstop = TokenBucket(cap * share, max(1.0, cap * settings.hard_cap_burst_s), clock=clock)
        else:
            bucket.update(cap * share, max(1.0, cap * settings.hard_cap_burst_s))

    def _count(self) -> int:
        """Count and remove what is there (the lock is held)."""
        offered = self.offered
        n = len(offered)
        del offered[:n]  # an append made meanwhile is at the end: kept for the next count
        return n

    def fold(self) -> None:
        """Count what is held now, for the next :meth:`take` (the request path's
        bound on memory: it never waits; if take() holds the lock, take() counts)."""
        lock = self._guard.lock
        if lock.acquire(False):
            try:
                self._folded += self._count()
            finally:
                lock.release()

    def take(self) -> int:
        """Decisions counted since the last take."""
        with self._guard.lock:
            delta = self._count() + self._folded
            self._folded = 0
            self.total += delta
        return delta


class Observations:
    """Root-span latencies and errors observed since the last tick (an append each,
    thread-safe, at most ``MAX_PENDING`` held); ``rejected`` counts what was not a
    duration."""

    def __init__(self) -> None:
        self.pending: deque[tuple[float, bool]] = deque(maxlen=MAX_PENDING)
        self.rejected = 0

    def drain(self) -> tuple[list[float], int]:
        """The latencies observed since the last drain, and how many were errors."""
        latencies: list[float] = []
        errors = 0
        pop = self.pending.popleft
        for _ in range(len(self.pending)):
            duration, error = pop()
            if type(duration) in (float, int) and duration >= 0.0:  # NaN and junk fail
                try:  # a 10**400 int overflows float(); an error flag's __bool__ may raise
                    latency, failed = float(duration), bool(error)
                except Exception:
                    self.rejected += 1
                    continue
                latencies.append(latency)
                errors += failed
            else:
                self.rejected += 1
        return latencies, errors
