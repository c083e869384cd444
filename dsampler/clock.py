"""Time as an injectable dependency, so rate limiters, rollouts and controllers are
tested without sleeping. Decisions use ``monotonic()``; ``time()`` only converts a
configuration's absolute times (rollout steps ``at:``) once, when a snapshot is built.
"""

from __future__ import annotations

import time
from typing import Final, Protocol

__all__ = ["SYSTEM_CLOCK", "Clock", "ManualClock", "SystemClock"]


class Clock(Protocol):
    """Where a component reads the time."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes backwards (the real one may, in tests)."""
        ...

    def time(self) -> float:
        """Seconds since the Unix epoch (wall clock)."""
        ...


class SystemClock:
    """The process clocks: ``time.monotonic`` and ``time.time``, bound directly (no
    Python frame on every rate-limiter check)."""

    __slots__ = ()

    monotonic = staticmethod(time.monotonic)
    time = staticmethod(time.time)


SYSTEM_CLOCK: Final = SystemClock()


class ManualClock:
    """A clock that moves only when told: for tests, simulations and replays.

    Args:
        start: initial monotonic reading.
        wall_offset: wall time minus monotonic time (default: a fixed 2026 epoch).
    """

    __slots__ = ("now", "wall_offset")

    def __init__(self, start: float = 1000.0, wall_offset: float = 1_790_000_000.0) -> None:
        self.now = start
        self.wall_offset = wall_offset

    def monotonic(self) -> float:
        return self.now

    def time(self) -> float:
        return self.now + self.wall_offset

    def advance(self, seconds: float) -> None:
        """Move the clock; a negative step models a clock that goes backwards."""
        self.now += seconds
