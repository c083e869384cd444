"""P99 and error ratio over the newest windows that hold enough observations, and the
health policy's multiplier (with hysteresis on the error state).
"""

from __future__ import annotations

import logging
from collections import deque
from typing import Final

from dsampler.adaptive._sketch import LatencySketch
from dsampler.config import HealthPolicy

_log = logging.getLogger("dsampler.adaptive")

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
        merged = LatencySketch()
        for _, sketch, _ in reversed(self._windows):
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
        if policy is None:
            self.errors_high = False
        elif error_ratio is not None:  # once high, until under _ERROR_RECOVERY of the limit
            limit = policy.error_ratio * (_ERROR_RECOVERY if self.errors_high else 1.0)
            self.errors_high = error_ratio > limit

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


class Incidents:
    """Tells, at WARNING on ``dsampler.adaptive``, when the health policy starts cutting
    the rate (naming the cause and the multiplier) and when it stops: once each per
    episode. An episode whose multiplier is 1 (or with no policy) cuts nothing: untold."""

    __slots__ = ("_since",)

    def __init__(self) -> None:
        self._since: dict[str, tuple[float, float]] = {}  # cause -> when its cut started, by what

    def follow(
        self, now: float, health: Health, episode: bool, history: History, p99_target_s: float
    ) -> None:
        """Compare the state after a step with the cuts told so far."""
        policy = health.policy
        for cause, on, multiplier in (
            ("latency", episode, 1.0 if policy is None else policy.latency_multiplier),
            ("error", health.errors_high, 1.0 if policy is None else policy.error_multiplier),
        ):
            cut = on and multiplier < 1.0
            started = self._since.get(cause)
            if cut and started is None and policy is not None:
                self._since[cause] = (now, multiplier)
                _log.warning("dsampler: adaptive: %s", _started(cause, policy, history, p99_target_s))
            elif not cut and started is not None:
                del self._since[cause]
                _log.warning(
                    "dsampler: adaptive: the %s episode is over after %.0f s: the sampling rate is "
                    "no longer multiplied by %g",
                    cause,
                    now - started[0],
                    started[1],
                )


def _started(cause: str, policy: HealthPolicy, history: History, p99_target_s: float) -> str:
    off = "health: false turns the policy off"
    if cause == "latency":
        return (
            f"root-span P99 is above p99_target ({p99_target_s * 1000:g} ms): the health policy "
            f"multiplies the sampling rate by {policy.latency_multiplier:g} until it is back under "
            f"(latency_multiplier; {off})"
        )
    ratio = history.error_ratio() or 0.0
    return (
        f"{ratio:.1%} of root spans failed, above error_ratio ({policy.error_ratio:.1%}): the "
        f"health policy multiplies the sampling rate by {policy.error_multiplier:g} until they are "
        f"back under {_ERROR_RECOVERY * policy.error_ratio:.1%} (error_multiplier; {off})"
    )
