"""Run the controller on a synthetic workload, one tick at a time, deterministically.

Arrivals are Poisson per tick (drawn up front from the scenario's offered load); the
traces the rate samples are binomial, each checked by the hard cap at its own instant
within the tick (:class:`CapModel`, the hard cap's law); root-span latencies
are lognormal (the baseline times the phase's factor) and errors binomial. Everything
is drawn from one ``numpy`` generator seeded with ``seed``, so a run is a function of
(scenario, seed, settings). The controller is the real :class:`ControllerCore`, stepped
with each tick's counts: an hour of traffic runs in about a second, at any load.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dsampler.adaptive import Change, ControllerCore
from dsampler.cli.simulate._cost import check_size
from dsampler.cli.simulate._scenario import Scenario
from dsampler.config import AdaptiveSettings, parse_adaptive

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


_POOL = 1 << 16
_BLOCK = 256


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
    changes: list[Change]
    core: ControllerCore

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
    """Deviates in blocks (one numpy call per 65,536): standard normal or uniform."""

    def __init__(self, draw: Any) -> None:
        self._draw = draw
        self._pool: list[float] = []
        self._at = 0

    def take(self, n: int) -> list[float]:
        if self._at + n > len(self._pool):
            self._pool = self._draw(max(_POOL, n)).tolist()
            self._at = 0
        out = self._pool[self._at : self._at + n]
        self._at += n
        return out


class CapModel:
    """The hard cap, as arithmetic on local floats over a batch of arrivals: the law of
    :class:`~dsampler.decision._bucket.TokenBucket` (balance grows at ``rate`` up to
    ``capacity``, starts full, an arrival is admitted iff a whole credit is there),
    about ten times cheaper per arrival than a check; a property test checks that both
    admit the same arrivals."""

    __slots__ = ("balance", "capacity", "last", "rate")

    def __init__(self, rate: float, capacity: float) -> None:
        self.rate, self.capacity, self.balance, self.last = rate, capacity, capacity, 0.0

    def admit(self, times: list[float]) -> int:
        """How many of the arrivals at ``times`` (increasing) are admitted."""
        balance, last, rate, capacity, admitted = self.balance, self.last, self.rate, self.capacity, 0
        for t in times:
            balance = min(capacity, balance + (t - last) * rate)
            last = t
            if balance >= 1.0:
                balance -= 1.0
                admitted += 1
        self.balance, self.last = balance, last
        return admitted


def _admit(cap: CapModel | None, uniform: _Draws, end: float, tick: float, k: int) -> int:
    """What the hard cap admits of ``k`` sampled traces arriving uniformly in the tick
    (Poisson arrivals, given their number), each checked at its own instant."""
    if cap is None or k == 0:
        return k
    start = end - tick
    return cap.admit([start + tick * u for u in sorted(uniform.take(k))])


def _per_tick(scenario: Scenario, mids: list[float]) -> tuple[list[float], list[float]]:
    """Latency factor and error ratio of the phase in force at each tick."""
    factors, errors = [], []
    for t in mids:
        phase, _ = scenario.phase_at(t)
        factors.append(phase.latency_factor)
        errors.append(phase.error_ratio)
    return factors, errors


class _Sampled:
    """What the rate samples of each tick's arrivals (binomial), drawn for a block of
    ticks at once while the rate stays the same: one numpy call per 256 ticks of steady
    load instead of one per tick."""

    def __init__(self, rng: Any, offered: npt.NDArray[np.int64]) -> None:
        self._binomial, self._offered = rng.binomial, offered
        self._p, self._start = -1.0, 0
        self._block: list[int] = []

    def take(self, i: int, p: float) -> int:
        if p >= 1.0:
            return int(self._offered[i])
        if p != self._p or not self._start <= i < self._start + len(self._block):
            self._p, self._start = p, i
            self._block = self._binomial(self._offered[i : i + _BLOCK], p).tolist()
        return int(self._block[i - self._start])


def simulate(
    scenario: Scenario, seed: int = 0, *, settings: AdaptiveSettings | None = None, bounded: bool = True
) -> Run:
    """Run ``scenario`` with ``seed``; ``settings`` replace the scenario's own.

    Raises:
        ConfigError: the run would be too large (:func:`check_size`), unless not ``bounded``.
    """
    import numpy as np

    settings = settings or scenario_settings(scenario)
    tick = settings.tick_s
    t: npt.NDArray[np.float64] = (
        np.arange(check_size(scenario, settings, bounded=bounded), dtype=np.float64) + 1
    ) * tick
    rng = np.random.default_rng(seed)
    qps = _offered_load(scenario, t - tick / 2)
    offered = rng.poisson(qps * tick).astype(np.int64)
    core = ControllerCore(settings, 0.0)
    rows, changes = _run(scenario, core, rng, t.tolist(), offered)
    rate, sampled, admitted, window, episode, errors_high = (np.array(c) for c in zip(*rows, strict=True))
    multiplier = np.ones(len(t))
    if settings.health is not None:  # Health.multiplier, for every tick at once
        multiplier = np.where(errors_high, settings.health.error_multiplier, 1.0)
        multiplier = multiplier * np.where(episode, settings.health.latency_multiplier, 1.0)
    i64 = np.int64
    return Run(
        scenario, seed, settings, t, qps, offered, rate, sampled.astype(i64), admitted.astype(i64),
        window, episode.astype(np.bool_), multiplier, changes, core,
    )  # fmt: skip


def _run(
    scenario: Scenario, core: ControllerCore, rng: Any, times: list[float], offered: npt.NDArray[np.int64]
) -> tuple[list[tuple[float, int, int, float, bool, bool]], list[Change]]:
    """The tick loop: per tick (rate in force, sampled, admitted, window, episode,
    errors high), and the changes the core published."""
    s = core.settings
    tick, cap_rate = s.tick_s, s.hard_cap_per_second
    cap = None if cap_rate is None else CapModel(cap_rate, max(1.0, cap_rate * s.hard_cap_burst_s))
    factors, error_ratios = _per_tick(scenario, [t - tick / 2 for t in times])
    sampled, draws, uniform = _Sampled(rng, offered), _Draws(rng.standard_normal), _Draws(rng.random)
    median, sigma, every = scenario.latency_median_s, scenario.latency_sigma, scenario.observe == "all"
    binomial, exp, step, arrivals_of = rng.binomial, math.exp, core.step, offered.tolist()
    law, tail, health = core.law, core.tail, core.health
    rows: list[tuple[float, int, int, float, bool, bool]] = []
    changes: list[Change] = []
    for i, now in enumerate(times):
        p, arrivals = core.rate, arrivals_of[i]
        k = sampled.take(i, p)
        a = _admit(cap, uniform, now, tick, k)
        seen = arrivals if every else a
        scale = median * factors[i]
        latencies = [scale * exp(sigma * z) for z in draws.take(seen)]
        errors = int(binomial(seen, error_ratios[i])) if error_ratios[i] > 0 and seen else 0
        change = step(now, arrivals, latencies, errors)
        if change is not None:
            changes.append(change)
        rows.append((p, k, a, law.length_s, tail.active, health.errors_high))
    return rows, changes
