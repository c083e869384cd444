"""Run the controller on a synthetic workload, one tick at a time, deterministically.

Arrivals are Poisson per tick (drawn up front from the scenario's offered load); the
traces the rate samples are binomial; the hard cap is the controller's own
:class:`~dsampler.samplers._bucket.TokenBucket` on a manual clock; root-span latencies
are lognormal (the baseline times the phase's factor) and errors binomial. Everything
is drawn from one ``numpy`` generator seeded with ``seed``, so a run is a function of
(scenario, seed, settings). The controller is the real :class:`ControllerCore`, stepped
with each tick's counts: an hour of traffic runs in about a second, at any load.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dsampler.adaptive._core import Change, ControllerCore
from dsampler.adaptive._scenario import Scenario
from dsampler.clock import ManualClock
from dsampler.config._adaptive import AdaptiveSettings, parse_adaptive
from dsampler.samplers._bucket import TokenBucket

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["Run", "scenario_settings", "simulate"]

_POOL = 1 << 16


@dataclass
class Run:
    """What happened, tick by tick (arrays of the same length; times are tick ends).

    ``qps`` is the true offered load, ``offered`` the arrivals counted, ``rate`` the rate
    in force during the tick, ``sampled`` what the rate sampled, ``admitted`` what the
    hard cap let through; ``window_s``, ``episode`` and ``multiplier`` the controller's
    state after the tick.
    """

    scenario: Scenario
    seed: int
    settings: AdaptiveSettings
    t: npt.NDArray[np.float64]
    qps: npt.NDArray[np.float64]
    offered: npt.NDArray[np.int64]
    rate: npt.NDArray[np.float64]
    sampled: npt.NDArray[np.int64]
    admitted: npt.NDArray[np.int64]
    window_s: npt.NDArray[np.float64]
    episode: npt.NDArray[np.bool_]
    multiplier: npt.NDArray[np.float64]
    changes: list[Change] = field(default_factory=list)
    core: ControllerCore | None = None

    @property
    def tick_s(self) -> float:
        return self.settings.tick_s

    @property
    def target(self) -> float:
        return self.settings.target_traces_per_second

    @property
    def expected(self) -> npt.NDArray[np.float64]:
        """E(t) = offered load x rate: sampled traces per second before the cap, free of
        the sampling draw (what control quality is judged on)."""
        return self.qps * self.rate


def scenario_settings(scenario: Scenario) -> AdaptiveSettings:
    """The controller settings a scenario asks for."""
    settings = parse_adaptive(
        {**scenario.adaptive, "target_traces_per_second": scenario.target_traces_per_second}
    )
    assert settings is not None  # a mapping always gives settings
    return settings


def _offered_load(scenario: Scenario, mids: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    import numpy as np

    qps = np.empty_like(mids)
    start = 0.0
    for phase in scenario.phases:
        inside = (mids >= start) & (mids < start + phase.duration_s)
        qps[inside] = (
            [phase.qps_at(t - start) for t in mids[inside]] if phase.to_qps is not None else phase.qps
        )
        start += phase.duration_s
    qps[mids >= start] = scenario.phases[-1].qps_at(scenario.phases[-1].duration_s)
    return qps


class _Draws:
    """Standard normal deviates in blocks (one numpy call per 65,536 latencies)."""

    def __init__(self, rng: Any) -> None:
        self._rng = rng
        self._pool: list[float] = []
        self._at = 0

    def take(self, n: int) -> list[float]:
        if self._at + n > len(self._pool):
            self._pool = self._rng.standard_normal(max(_POOL, n)).tolist()
            self._at = 0
        out = self._pool[self._at : self._at + n]
        self._at += n
        return out


def _admit(bucket: TokenBucket | None, clock: ManualClock, rng: Any, end: float, tick: float, k: int) -> int:
    """What the hard cap admits of ``k`` sampled traces arriving uniformly in the tick
    (Poisson arrivals, given their number), each checked at its own instant."""
    if bucket is None or k == 0:
        return k
    admitted = 0
    for offset in sorted(rng.random(k).tolist()):
        clock.now = end - tick * (1.0 - offset)
        admitted += bucket.try_acquire()
    clock.now = end
    return admitted


def _per_tick(scenario: Scenario, mids: npt.NDArray[np.float64]) -> tuple[list[float], list[float]]:
    """Latency factor and error ratio of the phase in force at each tick."""
    factors, errors = [], []
    for t in mids.tolist():
        phase, _ = scenario.phase_at(t)
        factors.append(phase.latency_factor)
        errors.append(phase.error_ratio)
    return factors, errors


def simulate(scenario: Scenario, seed: int = 0, *, settings: AdaptiveSettings | None = None) -> Run:
    """Run ``scenario`` with ``seed``; ``settings`` replace the scenario's own."""
    import numpy as np

    settings = settings or scenario_settings(scenario)
    tick = settings.tick_s
    n = max(1, round(scenario.duration_s / tick))
    t: npt.NDArray[np.float64] = (np.arange(n, dtype=np.float64) + 1.0) * tick
    rng = np.random.default_rng(seed)
    qps = _offered_load(scenario, t - tick / 2)
    offered = rng.poisson(qps * tick).tolist()
    factors, error_ratios = _per_tick(scenario, t - tick / 2)
    clock = ManualClock(start=0.0)
    core = ControllerCore(settings, 0.0)
    cap = settings.hard_cap_per_second
    bucket = None if cap is None else TokenBucket(cap, max(1.0, cap * settings.hard_cap_burst_s), clock=clock)
    draws, changes = _Draws(rng), []
    median, sigma, every = scenario.latency_median_s, scenario.latency_sigma, scenario.observe == "all"
    binomial, exp, step = rng.binomial, math.exp, core.step
    rows: list[tuple[float, int, int, float, bool, float]] = []
    for i, now in enumerate(t.tolist()):
        p, arrivals = core.rate, offered[i]
        k = arrivals if p >= 1.0 else int(binomial(arrivals, p))
        a = _admit(bucket, clock, rng, now, tick, k)
        seen = arrivals if every else a
        scale = median * factors[i]
        latencies = [scale * exp(sigma * z) for z in draws.take(seen)]
        errors = int(binomial(seen, error_ratios[i])) if error_ratios[i] > 0 and seen else 0
        change = step(now, arrivals, latencies, errors)
        if change is not None:
            changes.append(change)
        rows.append((p, k, a, core.window_s, core.tail.active, core.multiplier))
    rate, sampled, admitted, window, episode, multiplier = (
        np.array(column) for column in zip(*rows, strict=True)
    )
    return Run(
        scenario,
        seed,
        settings,
        t,
        qps,
        np.array(offered, np.int64),
        rate,
        sampled.astype(np.int64),
        admitted.astype(np.int64),
        window,
        episode.astype(np.bool_),
        multiplier,
        changes,
        core,
    )
