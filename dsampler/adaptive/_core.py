"""The controller without threads, clocks or samplers: counts in, a rate out, one tick
at a time (the same code for a live sampler and a simulation). The rate is
``clamp(target / qps, min_rate, max_rate)`` times the health multiplier; see
docs/design.md for the load, window and health laws.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from dsampler.adaptive._health import Health, History
from dsampler.adaptive._load import LoadEstimator
from dsampler.adaptive._sketch import LatencySketch
from dsampler.adaptive._tail import TailDetector
from dsampler.adaptive._window import WindowLaw
from dsampler.config import AdaptiveSettings

REFINE_TOLERANCE: Final = 0.005
_QUIET: Final = frozenset({"refine", "window"})  # must move the rate by more than REFINE_TOLERANCE


@dataclass(frozen=True, slots=True)
class Change:
    """A new rate to publish.

    Attributes:
        at: monotonic time of the step.
        rate: the new rate.
        reason: ``load`` (a new load regime), ``refine`` (a young estimate re-read),
            ``drift`` (a window disagreed with the regime), ``latency`` (an episode
            started or ended), ``health`` (errors crossed the threshold), ``settings``
            (reconfigured) or ``window`` (a regular close).
        qps: the load estimate behind the rate.
        window_s: the window length in force.
        multiplier: the health multiplier in the rate.
    """

    at: float
    rate: float
    reason: str
    qps: float
    window_s: float
    multiplier: float


class ControllerCore:
    """The adaptive controller's state machine.

    Args:
        settings: the controller's :class:`~dsampler.config.AdaptiveSettings`.
        now: monotonic time of the start.
    """

    def __init__(self, settings: AdaptiveSettings, now: float) -> None:
        self.settings = settings
        self.rate = settings.max_rate  # until the first tick has counted the load (a hard cap bounds it)
        self.load = LoadEstimator()
        self.law = WindowLaw(settings)
        self.tail = TailDetector(settings.health.cooldown_s if settings.health else 10.0)
        self.health = Health(settings.health)
        self.history = History()
        self.changes = 0
        self.regimes = 0  # load changes detected (the first count included)
        self.observed = self.errors = 0  # root spans observed, and of them errors, in all
        self._last = self._window_start = now
        self._pending = 0  # arrivals of steps at which the clock did not move
        self._offered = 0  # arrivals in the window
        self._errors = 0
        self._sketch = LatencySketch()
        self._episode_changed = False
        self._dirty = False

    @property
    def window_s(self) -> float:
        return self.law.length_s

    @property
    def qps(self) -> float | None:
        return self.load.qps

    @property
    def episode(self) -> bool:
        """A latency episode is on (root-span P99 above its target)."""
        return self.tail.active

    @property
    def multiplier(self) -> float:
        return self.health.multiplier(self.tail.active)

    def reconfigure(self, settings: AdaptiveSettings) -> None:
        """New settings; load estimate, baseline and episode state carry over."""
        self.settings = self.law.settings = settings
        self.health.policy = settings.health
        self.tail.cooldown_s = settings.health.cooldown_s if settings.health else 10.0
        self._dirty = True

    def step(
        self, now: float, offered: int, latencies: Iterable[float] = (), errors: int = 0
    ) -> Change | None:
        """One tick: ``offered`` root decisions since the last step, and the latencies
        (seconds) and error count of root spans that ended. Returns the change to
        publish, or None. A clock that did not move keeps the counts for the next step,
        and so does a reading that is not finite: NaN would spread into every estimate,
        and after an infinite one every later reading would be in the past."""
        if not math.isfinite(now):  # the latency test times its episodes by it too
            now = self._last
        self._episode_changed |= self._observe(now, latencies, errors)
        dt = now - self._last
        if not 0.0 < dt < math.inf:
            self._pending += offered
            return None
        offered += self._pending
        self._pending, self._last = 0, now
        self._offered += offered
        reason = self.load.update(offered, dt)
        self.regimes += reason == "load"
        if self._dirty:
            reason, self._dirty = reason or "settings", False
        if reason == "load" or self._episode_changed or now - self._window_start >= self.law.length_s:
            reason = self._close(now, reason)
        return self._publish(now, reason)

    def _observe(self, now: float, latencies: Iterable[float], errors: int) -> bool:
        self._errors += errors
        self.errors += errors
        if not isinstance(latencies, (list, tuple)):
            latencies = list(latencies)
        self.observed += len(latencies)
        if not latencies:
            return False
        target, sketch = self.settings.p99_target_s, self._sketch
        before = sketch.count
        sketch.add_all(latencies)
        exceeded = sum(latency > target for latency in latencies)
        return self.tail.update(now, sketch.count - before, exceeded)

    def _close(self, now: float, reason: str | None) -> str:
        dt, offered = now - self._window_start, self._offered
        if reason is None and self.load.window(offered, dt):
            reason = "drift"
        self.history.add(now, self._sketch, self._errors)
        self._sketch, self._errors, self._offered, self._window_start = LatencySketch(), 0, 0, now
        errors_before = self.health.errors_high
        self.health.update(self.history.error_ratio())
        episode = self.tail.active
        self.law.close(offered / dt if dt > 0 else 0.0, dt, self.load.qps or 0.0, self.history.p99(), episode)
        if reason is None:
            changed = self.health.errors_high != errors_before
            reason = "latency" if self._episode_changed else "health" if changed else "window"
        self._episode_changed = False
        return reason

    def target_rate(self) -> float:
        """``clamp(target / qps)`` with the health multiplier: the rate the state asks for."""
        s, qps = self.settings, self.load.qps
        rate = s.max_rate if not qps else min(s.max_rate, max(s.min_rate, s.target_traces_per_second / qps))
        return max(s.min_rate, self.health.apply(rate, self.tail.active))

    def _publish(self, now: float, reason: str | None) -> Change | None:
        if reason is None:
            return None
        rate = self.target_rate()  # relative change without dividing: min_rate may be 0
        if rate == self.rate or (reason in _QUIET and abs(rate - self.rate) <= REFINE_TOLERANCE * self.rate):
            return None
        self.rate = rate
        self.changes += 1
        return Change(now, rate, reason, self.load.qps or 0.0, self.law.length_s, self.multiplier)
