"""Properties of the adaptive controller's parts: the sketch's error bound, the parsers
of the ``adaptive:`` section and of scenario files on hostile input, the core's
invariants under any sequence of ticks, the meter's exact count."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from dsampler import ConfigError
from dsampler.adaptive import ControllerCore
from dsampler.adaptive._sketch import LatencySketch
from dsampler.adaptive._tap import Tap
from dsampler.cli.simulate._scenario import parse_scenario
from dsampler.config._adaptive import AdaptiveSettings, dump_adaptive, parse_adaptive
from tests.property.config_strategies import adaptive_settings, hostile_documents

HOSTILE = settings(
    deadline=timedelta(seconds=2),
    max_examples=100,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
latencies = st.floats(min_value=1e-6, max_value=1e4, allow_nan=False)


def _outcome(parse: Callable[[Any], Any], doc: Any) -> Any:
    """What ``parse`` returns, or the ConfigError it raises; anything else propagates."""
    try:
        return parse(doc)
    except ConfigError as exc:
        return exc


@given(
    st.lists(latencies, min_size=1, max_size=300), st.floats(0.0, 1.0), st.sampled_from([0.005, 0.01, 0.05])
)
def test_sketch_quantile_is_within_its_relative_accuracy(
    values: list[float], q: float, accuracy: float
) -> None:
    """For any values in range and any q: |sketch - exact| <= accuracy * exact, the exact
    quantile being the value of rank floor(q (n - 1))."""
    sketch = LatencySketch(accuracy)
    sketch.add_all(values)
    got = sketch.quantile(q)
    want = sorted(values)[math.floor(q * (len(values) - 1))]
    assert got is not None
    assert abs(got - want) <= accuracy * want * (1 + 1e-9)


@given(adaptive_settings())
def test_adaptive_section_round_trips(settings_: Any) -> None:
    """parse_adaptive(dump_adaptive(s)) == s for any valid settings."""
    assert parse_adaptive(dump_adaptive(settings_)) == settings_


def _section_documents() -> st.SearchStrategy[Any]:
    junk = hostile_documents(["x" * 2000])
    keys = st.sampled_from(
        [
            "target_traces_per_second",
            "window",
            "min_window",
            "max_window",
            "alpha",
            "beta",
            "health",
            "hard_cap_factor",
            "tick",
            "p99_target",
            "min_rate",
            "max_rate",
            "hysteresis",
            "windw",
        ]
    )
    values = st.one_of(
        junk, st.floats(), st.integers(), st.text(max_size=8), st.sampled_from(["10s", "1ms", "5m"])
    )
    return st.one_of(junk, st.dictionaries(keys, values, max_size=6))


@HOSTILE
@given(_section_documents())
@example({"target_traces_per_second": None, "": None})  # found by CI: an empty key is quoted
def test_hostile_adaptive_sections_give_settings_or_a_named_error(doc: Any) -> None:
    """Anything under ``adaptive:`` gives settings or a ConfigError naming a path under
    ``adaptive``; never another exception."""
    result = _outcome(parse_adaptive, doc)
    if isinstance(result, ConfigError):
        # a key that does not read plainly is quoted: adaptive[''], adaptive['a b']
        assert all(
            e.field == "adaptive" or e.field.startswith(("adaptive.", "adaptive[")) for e in result.errors
        )
        assert len(str(result)) < 2000


def _scenario_documents() -> st.SearchStrategy[Any]:
    junk = hostile_documents(["y" * 2000])
    phase = st.fixed_dictionaries(
        {},
        optional={
            "duration": st.one_of(junk, st.sampled_from(["1s", "10m", "7h", "0s", 5])),
            "qps": st.one_of(junk, st.floats(), st.integers(-5, 10**8)),
            "to_qps": st.one_of(junk, st.floats()),
            "latency_factor": st.one_of(junk, st.floats()),
            "error_ratio": st.one_of(junk, st.floats()),
        },
    )
    shaped = st.fixed_dictionaries(
        {},
        optional={
            "name": st.one_of(junk, st.text(max_size=5)),
            "target_traces_per_second": st.one_of(junk, st.floats()),
            "latency": st.one_of(junk, st.fixed_dictionaries({}, optional={"median": junk, "sigma": junk})),
            "observe": st.one_of(junk, st.sampled_from(["sampled", "all", "some"])),
            "adaptive": st.one_of(junk, st.fixed_dictionaries({}, optional={"window": junk, "tick": junk})),
            "phases": st.one_of(junk, st.lists(st.one_of(phase, junk), max_size=4)),
        },
    )
    return st.one_of(shaped, junk)


@HOSTILE
@given(_scenario_documents())
def test_hostile_scenario_documents_give_a_scenario_or_a_named_error(doc: Any) -> None:
    """A scenario file's content gives a Scenario or a ConfigError with a field; never
    another exception, never a scenario longer than the limit."""
    result = _outcome(parse_scenario, doc)
    if isinstance(result, ConfigError):
        assert all(isinstance(e.field, str) for e in result.errors)
        assert len(str(result)) < 2000
    else:
        assert 0 < result.duration_s <= 6 * 3600


ticks = st.lists(
    st.tuples(
        st.floats(min_value=-1.0, max_value=30.0),  # clock step, backwards and still included
        st.integers(0, 10**7),
        st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=5),
        st.integers(0, 5),
    ),
    max_size=60,
)


@settings(deadline=None, max_examples=80)
@given(adaptive_settings(), ticks)
@example(  # found by CI: a rate clamped to min_rate 0, then a relative change divided by it
    AdaptiveSettings(1.0, min_rate=0.0, max_rate=1e-09, health=None, hard_cap_factor=None, tick_s=1.0),
    [(2.225073858507e-311, 1, [], 0), (1.0, 1, [], 0)],
)
def test_core_keeps_rate_and_window_in_range_under_any_ticks(chosen: Any, steps: list[Any]) -> None:
    """Whatever it is fed, the core never raises and its rate stays within
    [min_rate, max_rate], its window within [min_window, max_window]."""
    core = ControllerCore(chosen, 0.0)
    now = 0.0
    for dt, offered, observed, errors in steps:
        now += dt
        core.step(now, offered, observed, errors)
        assert chosen.min_rate <= core.rate <= chosen.max_rate
        assert chosen.min_window_s <= core.window_s <= max(chosen.max_window_s, chosen.window_s)


@given(st.lists(st.tuples(st.integers(0, 500), st.integers(0, 500)), max_size=20))
def test_meter_counts_exactly_between_takes(batches: list[tuple[int, int]]) -> None:
    """take() returns exactly the decisions since the previous take, folded or not."""
    meter = Tap(None)
    for before, after in batches:
        for _ in range(before):
            meter.offered.append(None)
        meter.fold()
        for _ in range(after):
            meter.offered.append(None)
        assert meter.take() == before + after
        assert meter.offered == []
    assert meter.total == sum(b + a for b, a in batches)
