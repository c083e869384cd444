"""Scenarios: the built-in ones, scenario files, and their validation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dsampler import ConfigError
from dsampler.cli.simulate import BUILTIN_SCENARIOS, Phase, Scenario, load_scenario, simulate
from dsampler.cli.simulate._scenario import parse_scenario

GOOD: dict[str, Any] = {
    "name": "lunch",
    "target_traces_per_second": 20,
    "latency": {"median": "30ms", "sigma": 0.4},
    "observe": "all",
    "adaptive": {"window": "5s", "min_window": "2s"},
    "phases": [
        {"duration": "30s", "qps": 100},
        {"duration": "1m", "qps": 100, "to_qps": 400},
        {"duration": "10s", "qps": 400, "latency_factor": 3, "error_ratio": 0.1},
    ],
}


def test_built_in_scenarios_are_the_issues() -> None:
    """steady, spike (10x up and down), ramp, latency (x3 for 60 s), square (2k <-> 8k
    every 30 s)."""
    assert list(BUILTIN_SCENARIOS) == ["steady", "spike", "ramp", "latency", "square"]
    spike = BUILTIN_SCENARIOS["spike"]
    assert [p.qps for p in spike.phases] == [1000.0, 10000.0, 1000.0]
    latency = BUILTIN_SCENARIOS["latency"]
    assert [(p.duration_s, p.latency_factor) for p in latency.phases][1] == (60.0, 3.0)
    square = BUILTIN_SCENARIOS["square"]
    assert {p.qps for p in square.phases} == {2000.0, 8000.0}
    assert all(p.duration_s == 30.0 for p in square.phases)
    assert BUILTIN_SCENARIOS["ramp"].phases[1].to_qps == 10000.0


def test_a_scenario_file_is_read_with_its_settings(tmp_path: Path) -> None:
    """Every key of the file form lands in the scenario; the adaptive keys reach the run."""
    path = tmp_path / "lunch.json"
    path.write_text(json.dumps(GOOD))
    scenario = load_scenario(path)
    assert scenario.name == "lunch"
    assert (scenario.target_traces_per_second, scenario.latency_median_s, scenario.observe) == (
        20.0,
        0.03,
        "all",
    )
    assert scenario.phases[1] == Phase(60.0, 100.0, to_qps=400.0)
    assert scenario.duration_s == 100.0
    run = simulate(scenario, 3)
    assert (run.settings.window_s, run.settings.min_window_s, run.target) == (5.0, 2.0, 20.0)
    assert run.qps[round(60 / run.tick_s)] == pytest.approx(250.0, rel=0.01)  # half way up the ramp


def test_yaml_files_and_names_default_to_the_file_name(tmp_path: Path) -> None:
    """A YAML file without ``name`` is named after the file."""
    path = tmp_path / "burst.yaml"
    path.write_text("phases:\n  - {duration: 10s, qps: 500}\n", encoding="utf-8")
    scenario = load_scenario(str(path))
    assert (scenario.name, scenario.target_traces_per_second) == ("burst", 50.0)


BROKEN: list[tuple[Any, str]] = [
    ({"phases": []}, "phases"),
    ({"phases": "steady"}, "phases"),
    ({}, "phases"),
    ({"phases": [{"qps": 10}]}, "phases[0].duration"),
    ({"phases": [{"duration": "10s"}]}, "phases[0].qps"),
    ({"phases": [{"duration": 10, "qps": 10}]}, "phases[0].duration"),
    ({"phases": [{"duration": "10s", "qps": -1}]}, "phases[0].qps"),
    ({"phases": [{"duration": "10s", "qps": "many"}]}, "phases[0].qps"),
    ({"phases": [{"duration": "10s", "qps": 1e12}]}, "phases[0].qps"),
    ({"phases": [{"duration": "10s", "qps": 1, "error_ratio": 2}]}, "phases[0].error_ratio"),
    ({"phases": [{"duration": "10s", "qps": 1, "latency_factor": 0}]}, "phases[0].latency_factor"),
    ({"phases": [{"duration": "10s", "qps": 1, "burst": 3}]}, "phases[0].burst"),
    ({"phases": [{"duration": "7h", "qps": 1}]}, "phases[0].duration"),
    ({"phases": [{"duration": "4h", "qps": 1}, {"duration": "4h", "qps": 1}]}, "phases"),
    ({"phases": [{"duration": "1s", "qps": 1}], "observe": "some"}, "observe"),
    ({"phases": [{"duration": "1s", "qps": 1}], "latency": {"median": 5}}, "latency.median"),
    ({"phases": [{"duration": "1s", "qps": 1}], "latency": {"sigma": -1}}, "latency.sigma"),
    ({"phases": [{"duration": "1s", "qps": 1}], "target_traces_per_second": 0}, "target_traces_per_second"),
    ({"phases": [{"duration": "1s", "qps": 1}], "adaptive": {"window": "1h1s"}}, "adaptive.window"),
    (
        {"phases": [{"duration": "1s", "qps": 1}], "adaptive": {"target_traces_per_second": 5}},
        "adaptive.target_traces_per_second",
    ),
    ({"phases": [{"duration": "1s", "qps": 1}], "phase": []}, "phase"),
]


@pytest.mark.parametrize(("doc", "field"), BROKEN)
def test_broken_scenarios_are_refused_naming_the_field(doc: Any, field: str) -> None:
    """Each problem is a ConfigError naming its field path."""
    with pytest.raises(ConfigError) as info:
        parse_scenario(doc)
    assert info.value.field == field


def test_unknown_names_and_missing_files_name_the_built_ins(tmp_path: Path) -> None:
    """Neither a built-in nor a file: the error lists the built-ins; a bad file is named."""
    with pytest.raises(ConfigError, match="steady, spike, ramp, latency, square"):
        load_scenario("spiky")
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    with pytest.raises(ConfigError) as info:
        load_scenario(bad)
    assert info.value.field == str(bad)


def test_scenarios_validate_when_built_in_code() -> None:
    """Scenario and Phase refuse bad values themselves."""
    with pytest.raises(ConfigError, match="phases"):
        Scenario("empty", ())
    with pytest.raises(ConfigError, match="duration"):
        Phase(0.0, 10.0)
