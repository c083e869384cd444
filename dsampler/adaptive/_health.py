"""Latency and errors over the last windows, and the health policy's multiplier.

A window of 10 s at 50 observations a second holds 500 latencies: a P99 known to about
+-8%, too noisy for a window law that shortens at ``beta * P99 / target > 1``. The P99
and the error ratio are therefore read over the newest windows that together hold
:data:`P99_OBSERVATIONS` (resp. :data:`ERROR_OBSERVATIONS`) observations, at most
:data:`HORIZON_S` back; with fewer, they are unknown (the exceedance test of
:mod:`._tail` still watches the tail).

Health policy (D-Sampler's): while the error ratio is above its threshold the rate is
multiplied by ``error_multiplier``; during a latency episode by ``latency_multiplier``;
never below ``floor`` (unless the load law alone asks for less). The error state has
hysteresis: it ends once the ratio is back below 80% of the threshold.
"""

from __future__ import annotations

from collections import deque
from typing import Final

from dsampler.adaptive._sketch import LatencySketch
from dsampler.config._adaptive import HealthPolicy

__all__ = ["ERROR_OBSERVATIONS", "HORIZON_S", "P99_OBSERVATIONS", "Health", "History"]

P99_OBSERVATIONS: Final = 2000
ERROR_OBSERVATIONS: Final = 200
HORIZON_S: Final = 60.0
_ERROR_RECOVERY: Final = 0.8


class History:
    """The latency sketches and error counts of the windows of the last minute."""

    __slots__ = ("_windows",)

    def __init__(self) -> None:
        self._windows: deque[tuple[float, LatencySketch, int]] = deque()

    def add(self, now: float, sketch: LatencySketch, errors: int) -> None:
        self._windows.append((now, sketch, errors))
        while self._windows and now - self._windows[0][0] > HORIZON_S:
            self._windows.popleft()

    def p99(self) -> float | None:
        """P99 of the newest windows holding enough observations, else None."""
        merged: LatencySketch | None = None
        for _, sketch, _ in reversed(self._windows):
            if merged is None:
                merged = sketch.copy()
            else:
                merged.merge(sketch)
            if merged.count >= P99_OBSERVATIONS:
                return merged.quantile(0.99)
        return None

    def error_ratio(self) -> float | None:
        observed = errors = 0
        for _, sketch, window_errors in reversed(self._windows):
            observed += sketch.count
            errors += window_errors
            if observed >= ERROR_OBSERVATIONS:
                return errors / observed
        return None


class Health:
    """The health policy's state: errors high or not; the multiplier in force."""

    __slots__ = ("errors_high", "policy")

    def __init__(self, policy: HealthPolicy | None) -> None:
        self.policy = policy
        self.errors_high = False

    def update(self, error_ratio: float | None) -> None:
        policy = self.policy
        if policy is None or error_ratio is None:
            self.errors_high = False if policy is None else self.errors_high
            return
        if self.errors_high:
            self.errors_high = error_ratio > _ERROR_RECOVERY * policy.error_ratio
        else:
            self.errors_high = error_ratio > policy.error_ratio

    def multiplier(self, episode: bool) -> float:
        policy = self.policy
        if policy is None:
            return 1.0
        m = policy.error_multiplier if self.errors_high else 1.0
        return m * policy.latency_multiplier if episode else m

    def apply(self, rate: float, episode: bool) -> float:
        """``rate`` with the multiplier, never pushed below the floor by it."""
        m = self.multiplier(episode)
        if m == 1.0 or self.policy is None:
            return rate
        return max(rate * m, min(rate, self.policy.floor))
