"""The simulator's cost, estimated before a run (dsampler.cli.simulate._cost): close to what
the run then does, for every built-in scenario and for the settings that drive the cost
(min_rate, max_rate, no hard cap, observe: all, ramps, load changes)."""

from __future__ import annotations

import pytest

from dsampler.cli.simulate._cost import MAX_TRACES, check_size, estimate
from dsampler.cli.simulate._scenario import BUILTIN_SCENARIOS, Phase, Scenario
from dsampler.cli.simulate._simulation import scenario_settings, simulate
from dsampler.errors import ConfigError

SCENARIOS = [
    *BUILTIN_SCENARIOS.values(),
    Scenario("1M rps", (Phase(60.0, 1e6),)),
    Scenario("step up and down", (Phase(60.0, 1e3), Phase(60.0, 1e6), Phase(60.0, 1e3))),
    Scenario("ramp up", (Phase(60.0, 1e3), Phase(120.0, 1e3, 1e6))),
    Scenario("floor 0.5", (Phase(20.0, 1e5),), adaptive={"min_rate": 0.5}),
    Scenario("no cap", (Phase(60.0, 1e5),), adaptive={"hard_cap_factor": None}),
    Scenario("observe all", (Phase(60.0, 1e4),), observe="all"),
    Scenario(
        "floor and ceiling, ramp down",
        (Phase(30.0, 1e4), Phase(30.0, 1e5, 1e3)),
        adaptive={"min_rate": 0.1, "max_rate": 0.5},
    ),
]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_the_estimate_is_within_a_quarter_of_the_traces_the_run_looks_at(scenario: Scenario) -> None:
    """Sampled traces (and every request with observe: all), estimated vs simulated."""
    run = simulate(scenario, 0)
    looked_at = int(run.sampled.sum()) + (int(run.offered.sum()) if scenario.observe == "all" else 0)
    work = estimate(scenario, run.settings)
    assert work.ticks == len(run.t)
    assert 0.8 * looked_at <= work.traces <= 1.25 * looked_at, (work, looked_at)


def test_min_rate_drives_the_cost_and_is_named() -> None:
    """6 h at 10M rps with min_rate 1: every request sampled (2.16e11 traces), though the
    target alone would sample 1.08e6; refused naming adaptive.min_rate; unbounded, the
    ticks are returned (the run itself is not made here: it would take days)."""
    scenario = Scenario("floor", (Phase(6 * 3600.0, 1e7),), adaptive={"min_rate": 1})
    settings = scenario_settings(scenario)
    assert estimate(scenario, settings).traces == pytest.approx(2.16e11, rel=0.01)
    with pytest.raises(ConfigError) as refused:
        check_size(scenario, settings)
    assert refused.value.field == "adaptive.min_rate"
    assert f"at most {MAX_TRACES:,} traces" in refused.value.problem
    assert check_size(scenario, settings, bounded=False) == 216_000
