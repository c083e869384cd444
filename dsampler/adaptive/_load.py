"""Offered load as counted: the mean over a *regime* (the stretch since the load last
changed), ended by a Poisson likelihood-ratio test per tick and at window closes; see
docs/design.md.
"""

from __future__ import annotations

import math
from typing import Final

HORIZONS: Final = (1, 2, 5, 10, 20)  # ticks
CHANGE_Z: Final = 6.0
CHANGE_RELATIVE: Final = 0.10
DRIFT_Z: Final = 4.0
DRIFT_RELATIVE: Final = 0.02
SETTLED: Final = 200_000
_SCREEN: Final = (CHANGE_Z / 1.5) ** 2


def likelihood_z(observed: float, expected: float) -> float:
    """Signed root of the Poisson likelihood-ratio statistic: close to a standard normal
    deviate even for small counts, where ``(n - mu) / sqrt(mu)`` has heavy tails."""
    if expected <= 0.0:
        return math.inf if observed > 0 else 0.0
    g = (
        2.0 * expected
        if observed <= 0
        else 2.0 * (observed * math.log(observed / expected) - (observed - expected))
    )
    return math.copysign(math.sqrt(max(g, 0.0)), observed - expected)


class LoadEstimator:
    """Arrivals per second, from per-tick counts.

    Attributes:
        qps: the estimate (None before the first tick).
        evidence: arrivals the estimate rests on.
    """

    __slots__ = ("_cum_n", "_cum_t", "_n", "_t", "evidence", "qps")

    def __init__(self) -> None:
        self.qps: float | None = None
        self.evidence = 0
        # Running totals at the end of each of the last ticks (oldest first): the sum of
        # the last h ticks is a difference of two entries.
        self._cum_n: list[int] = [0]
        self._cum_t: list[float] = [0.0]
        self._n = 0  # the regime's arrivals and seconds
        self._t = 0.0

    def update(self, n: int, dt: float) -> str | None:
        """Count one tick of ``n`` arrivals over ``dt`` seconds (> 0); returns ``"load"``
        when a new regime started, ``"refine"`` when a young one was re-read."""
        cum_n, cum_t = self._cum_n, self._cum_t
        cum_n.append(cum_n[-1] + n)
        cum_t.append(cum_t[-1] + dt)
        if len(cum_n) > HORIZONS[-1] + 1:
            del cum_n[0], cum_t[0]
        self._n += n
        self._t += dt
        if self.qps is None:
            self._restart(1)
            return "load"
        keep = self._changed()
        if keep:
            self._restart(keep)
            return "load"
        if 0 < self.evidence < SETTLED and self._n >= 2 * self.evidence:
            self.qps, self.evidence = self._n / self._t, self._n
            return "refine"
        return None

    def _changed(self) -> int:
        """Ticks to keep for a new regime, 0 when the load holds."""
        qps, cum_n, cum_t = self.qps or 0.0, self._cum_n, self._cum_t
        last = len(cum_n) - 1
        for horizon in HORIZONS:
            if horizon > last:
                break
            n, expected = cum_n[last] - cum_n[last - horizon], qps * (cum_t[last] - cum_t[last - horizon])
            gap = n - expected
            # Cheap screen first: the likelihood z exceeds the Pearson z by at most sqrt(2).
            screened = gap * gap > _SCREEN * expected and abs(gap) > CHANGE_RELATIVE * max(expected, 1.0)
            if screened and abs(likelihood_z(n, expected)) > CHANGE_Z:
                return max(1, horizon // 2)
        return 0

    def _restart(self, ticks: int) -> None:
        """A new regime made of the last ``ticks`` ticks."""
        base_n, base_t = self._cum_n[-1 - ticks], self._cum_t[-1 - ticks]
        self._cum_n = [c - base_n for c in self._cum_n[-1 - ticks :]]
        self._cum_t = [c - base_t for c in self._cum_t[-1 - ticks :]]
        self._n, self._t = self._cum_n[-1], self._cum_t[-1]
        self.qps, self.evidence = self._n / self._t, self._n

    def window(self, n: int, dt: float) -> bool:
        """At a window close (``n`` arrivals in its ``dt`` seconds, already counted by
        :meth:`update`): start a new regime from the window if it disagrees with the
        rest of the regime (a drift). Returns True when it did."""
        rest_n, rest_t = self._n - n, self._t - dt
        if rest_t < dt or dt <= 0.0:  # the window is most of the regime: nothing to compare
            return False
        expected = rest_n / rest_t * dt
        z = likelihood_z(n, expected) / math.sqrt(1.0 + dt / rest_t)
        if abs(z) <= DRIFT_Z or abs(n - expected) <= DRIFT_RELATIVE * max(expected, 1.0):
            return False
        self._n, self._t = n, dt
        self.qps, self.evidence = n / dt, n
        return True
