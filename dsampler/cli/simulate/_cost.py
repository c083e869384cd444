"""What a simulated run will cost, known before it starts, and the bounds it must keep.

The simulator (:mod:`._simulation`) is Python per tick and per trace it looks at: each
sampled trace (the hard cap checks it at its own instant, or its latency is drawn) and,
with ``observe: all``, every request. A scenario whose every value is in range can still
ask for days of CPU (6 h at 10M rps observed, or sampled by ``min_rate: 1``) or gigabytes
of rows (6 h at a 1 ms tick), so :func:`check_size` refuses a run over
:data:`MAX_TICKS` or :data:`MAX_TRACES` before it starts, naming what drives the cost
and how to run it anyway. The estimate follows the controller's law: once settled, the
rate is ``clamp(target / qps, min_rate, max_rate)``; the rate in force when the load
changes holds for about a tick (the first tick of a run samples at ``max_rate``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from dsampler.cli.simulate._scenario import Phase, Scenario
from dsampler.config import AdaptiveSettings
from dsampler.errors import ConfigError

MAX_TICKS: Final = 1_000_000  # ~10 s and ~300 MB of rows; 6 h at the default 0.1 s tick is 216,000
MAX_TRACES: Final = 50_000_000  # traces the loop looks at one by one: about a minute


@dataclass(frozen=True, slots=True)
class Work:
    """What a run will cost, estimated before it starts: ``ticks`` steps of the
    controller, and ``traces`` the loop looks at one by one (each sampled trace, which
    the hard cap checks at its own instant or whose latency is drawn, and with
    ``observe: all`` every request too). ``floor_traces`` is the share of the sampled
    ones that ``min_rate`` alone asks for, ``observed`` the share of ``observe: all``."""

    ticks: int
    traces: float
    floor_traces: float
    observed: float


def _sampled_per_second(qps: float, s: AdaptiveSettings) -> float:
    """Sampled traces a second at offered load ``qps`` once the rate has settled:
    ``qps * clamp(target / qps, min_rate, max_rate)`` (health multipliers only lower it)."""
    return min(qps * s.max_rate, max(s.target_traces_per_second, qps * s.min_rate))


def _phase_work(phase: Phase, s: AdaptiveSettings, rate_before: float) -> tuple[float, float, float]:
    """(offered, sampled, sampled above the target) over one phase, a ramp by the midpoint
    rule. The rate in force when the phase starts holds for about one tick (the load
    estimate follows a change within one): the first tick of a run samples at
    ``max_rate``, whatever the load."""
    steps = 1 if phase.to_qps is None else 64
    dt = phase.duration_s / steps
    offered = sampled = floor = 0.0
    for i in range(steps):
        qps = phase.qps_at((i + 0.5) * dt)
        offered += qps * dt
        sampled += _sampled_per_second(qps, s) * dt
        floor += max(0.0, qps * s.min_rate - s.target_traces_per_second) * dt
    sampled += phase.qps * min(s.tick_s, phase.duration_s) * rate_before
    return offered, sampled, floor


def estimate(scenario: Scenario, settings: AdaptiveSettings) -> Work:
    """The cost of running ``scenario`` with ``settings`` (:class:`Work`)."""
    ticks = max(1, round(scenario.duration_s / settings.tick_s))
    offered = sampled = floor = 0.0
    rate = settings.max_rate  # the controller's rate at the start
    for phase in scenario.phases:
        phase_offered, phase_sampled, phase_floor = _phase_work(phase, settings, rate)
        offered, sampled, floor = offered + phase_offered, sampled + phase_sampled, floor + phase_floor
        end = phase.qps_at(phase.duration_s)
        rate = _sampled_per_second(end, settings) / end if end > 0 else settings.max_rate
    observed = offered if scenario.observe == "all" else 0.0
    return Work(ticks, sampled + observed, floor, observed)


#: How to run past the bounds: the command line's flag, and simulate()'s argument.
PAST_THE_BOUNDS: Final = "--no-limit (bounded=False) to run it anyway"


def check_size(scenario: Scenario, settings: AdaptiveSettings, *, bounded: bool = True) -> int:
    """The run's number of ticks, once its cost is known to be bounded (``bounded``).

    The loop is Python per tick and per trace it looks at (:func:`estimate`), so a
    scenario whose every value is in range can still ask for days of CPU (6 h at 10M
    rps observed, or sampled by ``min_rate: 1``) or gigabytes of rows (6 h at a 1 ms tick).

    Raises:
        ConfigError: over :data:`MAX_TICKS` or :data:`MAX_TRACES`, naming what drives
            the cost and how to run it anyway.
    """
    work = estimate(scenario, settings)
    if not bounded:
        return work.ticks
    duration, tick = scenario.duration_s, settings.tick_s
    if work.ticks > MAX_TICKS:
        problem = (
            f"expected at most {MAX_TICKS:,} ticks in all, got {work.ticks:,} ({duration:g} s at {tick:g} s)"
        )
        raise ConfigError(
            "adaptive.tick", f"{problem}; try a longer tick or a shorter run, or {PAST_THE_BOUNDS}"
        )
    if work.traces > MAX_TRACES:
        field, hint = "target_traces_per_second", "a lower target"
        if work.observed >= work.traces / 2:
            field, hint = "observe", "observe: sampled"
        elif work.floor_traces >= work.traces / 2:
            field, hint = "adaptive.min_rate", "a lower adaptive.min_rate"
        problem = f"expected at most {MAX_TRACES:,} traces to simulate, got about {work.traces:.3g}"
        raise ConfigError(field, f"{problem}; try {hint}, less load or a shorter run, or {PAST_THE_BOUNDS}")
    return work.ticks
