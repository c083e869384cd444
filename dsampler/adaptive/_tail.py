"""Is root-span P99 above its target? Two Bernoulli CUSUMs over the per-tick counts of
roots slower than the target (1% against 5%), fast at low QPS where a P99 is not.
"""

from __future__ import annotations

import math
from typing import Final

CALM: Final = 0.01  # the exceedance fraction when P99 is exactly at the target
HOT: Final = 0.05
THRESHOLD: Final = 8.0
_HIT: Final = math.log(HOT / CALM)  # what one exceedance adds to the upward sum
_MISS: Final = math.log((1.0 - HOT) / (1.0 - CALM))  # what one fast request adds (< 0)


class TailDetector:
    """The latency episode state, fed per tick with (observations, exceedances).

    Attributes:
        active: an episode is on.
        episodes: episodes started so far.
    """

    __slots__ = ("_down", "_since", "_up", "active", "cooldown_s", "episodes")

    def __init__(self, cooldown_s: float) -> None:
        self.cooldown_s = cooldown_s
        self.active = False
        self.episodes = 0
        self._up = self._down = 0.0
        self._since = -math.inf

    def update(self, now: float, observed: int, exceeded: int) -> bool:
        """Add one tick's counts; True when the episode started or ended."""
        if observed <= 0:
            return False
        step = exceeded * _HIT + (observed - exceeded) * _MISS
        cap = 2.0 * THRESHOLD
        self._up = min(cap, max(0.0, self._up + step))
        self._down = min(cap, max(0.0, self._down - step))
        if not self.active and self._up > THRESHOLD:
            self.active, self._since, self._down = True, now, 0.0
            self.episodes += 1
            return True
        if self.active and self._down > THRESHOLD and now - self._since >= self.cooldown_s:
            self.active, self._up = False, 0.0
            return True
        return False
