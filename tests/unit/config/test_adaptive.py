"""The ``adaptive:`` configuration section: model, file form, errors named by field."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from dsampler import ConfigError, DSampler, ManualClock, load_config
from dsampler.cli import main
from dsampler.config import AdaptiveSettings, HealthPolicy, SamplingConfig, parse_config
from dsampler.config._adaptive import dump_adaptive, parse_adaptive
from dsampler.config._parse import serialize


def test_defaults_are_the_seeds() -> None:
    """alpha 0.8, beta 1.2, W0 10 s in [3, 30] s, health x0.5 / x0.7 with a 0.1% floor,
    a hard cap at twice the target."""
    s = AdaptiveSettings(50)
    assert (s.alpha, s.beta, s.window_s, s.min_window_s, s.max_window_s) == (0.8, 1.2, 10.0, 3.0, 30.0)
    assert s.health == HealthPolicy(0.05, 0.5, 0.7, 0.001, 10.0)
    assert (s.p99_target_s, s.hard_cap_per_second, s.min_rate, s.max_rate) == (0.2, 100.0, 1e-6, 1.0)


def test_file_form_uses_durations_and_round_trips() -> None:
    """Durations are written ``10s``; ``dump_adaptive`` is parsed back to the same."""
    s = parse_adaptive(
        {
            "target_traces_per_second": 20,
            "window": "5s",
            "min_window": "2s",
            "p99_target": "150ms",
            "tick": "50ms",
            "share": "host",
        }
    )
    assert s == AdaptiveSettings(
        20, window_s=5.0, min_window_s=2.0, p99_target_s=0.15, tick_s=0.05, share="host"
    )
    assert AdaptiveSettings(20).share == "process"
    assert parse_adaptive(dump_adaptive(s)) == s
    assert parse_adaptive(json.loads(json.dumps(dump_adaptive(s)))) == s


@pytest.mark.parametrize("health", [False, None])
def test_health_policy_can_be_turned_off(health: object) -> None:
    """``health: false`` (or null) is no policy; ``true`` the defaults; a mapping overrides."""
    assert parse_adaptive({"target_traces_per_second": 1, "health": health}) == AdaptiveSettings(
        1, health=None
    )
    assert parse_adaptive({"target_traces_per_second": 1, "health": True}) == AdaptiveSettings(1)
    custom = parse_adaptive({"target_traces_per_second": 1, "health": {"latency_multiplier": 1.0}})
    assert custom is not None
    assert custom.health == HealthPolicy(latency_multiplier=1.0)


BAD: list[tuple[dict[str, Any], str]] = [
    ({}, "adaptive.target_traces_per_second"),
    ({"target_traces_per_second": 0}, "adaptive.target_traces_per_second"),
    ({"target_traces_per_second": "50"}, "adaptive.target_traces_per_second"),
    ({"target_traces_per_second": True}, "adaptive.target_traces_per_second"),
    ({"target_traces_per_second": 50, "window": 10}, "adaptive.window"),
    ({"target_traces_per_second": 50, "window": "1h30m"}, "adaptive.window"),
    ({"target_traces_per_second": 50, "window": "50s"}, "adaptive.window"),
    ({"target_traces_per_second": 50, "min_rate": 0.5, "max_rate": 0.1}, "adaptive.min_rate"),
    ({"target_traces_per_second": 50, "max_rate": 0}, "adaptive.max_rate"),
    ({"target_traces_per_second": 50, "alpha": -1}, "adaptive.alpha"),
    ({"target_traces_per_second": 50, "beta": float("nan")}, "adaptive.beta"),
    ({"target_traces_per_second": 50, "hysteresis": 1.0}, "adaptive.hysteresis"),
    ({"target_traces_per_second": 50, "hard_cap_factor": 0.5}, "adaptive.hard_cap_factor"),
    ({"target_traces_per_second": 50, "tick": "5s"}, "adaptive.tick"),
    ({"target_traces_per_second": 50, "health": {"floor": 2}}, "adaptive.health.floor"),
    ({"target_traces_per_second": 50, "health": {"cooldown": 5}}, "adaptive.health.cooldown"),
    ({"target_traces_per_second": 50, "health": {"multiplier": 0.5}}, "adaptive.health.multiplier"),
    ({"target_traces_per_second": 50, "health": "off"}, "adaptive.health"),
    ({"target_traces_per_second": 50, "windw": "5s"}, "adaptive.windw"),
    ({"target_traces_per_second": 50, "share": "fleet"}, "adaptive.share"),
    ({"target_traces_per_second": 50, "share": None}, "adaptive.share"),
    ({"target_traces_per_second": 50, "share": 1}, "adaptive.share"),
    (
        {"target_traces_per_second": 5, "health": {"error_multiplier": 1.5}},
        "adaptive.health.error_multiplier",
    ),
    (
        {"target_traces_per_second": 5, "health": {"latency_multiplier": -1}},
        "adaptive.health.latency_multiplier",
    ),
    ({"target_traces_per_second": 50, "health": {"error_ratio": 1.5}}, "adaptive.health.error_ratio"),
    ({"target_traces_per_second": 1, "hard_cap_factor": 1001}, "adaptive.hard_cap_factor"),
    ({"target_traces_per_second": 50, "alpha": 101}, "adaptive.alpha"),
    ({"target_traces_per_second": 50, "hysteresis": 0.95}, "adaptive.hysteresis"),
]


@pytest.mark.parametrize(("section", "field"), BAD)
def test_bad_values_are_named_by_their_path(section: dict[str, Any], field: str) -> None:
    """Each wrong value is refused with the field's full path in the file."""
    with pytest.raises(ConfigError) as info:
        parse_config({"adaptive": section})
    assert info.value.field == field


class _NoFloat(int):
    """An int whose ``__float__`` raises something other than a TypeError."""

    def __float__(self) -> float:
        raise RuntimeError("hostile __float__")


@pytest.mark.parametrize(
    ("section", "field"),
    [
        ({"target_traces_per_second": _NoFloat(5)}, "adaptive.target_traces_per_second"),
        ({"target_traces_per_second": 5, "min_rate": _NoFloat(0)}, "adaptive.min_rate"),
        ({"target_traces_per_second": 5, "health": {"floor": _NoFloat(0)}}, "adaptive.health.floor"),
    ],
)
def test_a_number_whose_conversion_raises_is_a_named_error(section: dict[str, Any], field: str) -> None:
    """A value whose ``__float__`` raises is refused by name like any other bad number,
    and the running configuration stays (it was a RuntimeError out of update())."""
    sampler = DSampler(adaptive={"target_traces_per_second": 50}, clock=ManualClock(), resource={})
    before = sampler.config
    with pytest.raises(ConfigError) as caught:
        sampler.update(adaptive=section)
    assert caught.value.errors[0].field == field
    assert sampler.config == before


def test_a_typo_suggests_the_key() -> None:
    """``windw`` is close to ``window``: the error says so."""
    with pytest.raises(ConfigError, match="did you mean 'window'"):
        parse_config({"adaptive": {"target_traces_per_second": 1, "windw": "5s"}})


@pytest.mark.parametrize("value", ["50", 50, [], True])
def test_the_section_must_be_a_mapping(value: object) -> None:
    """``adaptive: 50`` is not a section."""
    with pytest.raises(ConfigError) as info:
        parse_config({"adaptive": value})
    assert info.value.field == "adaptive"


def test_model_refuses_what_the_file_refuses() -> None:
    """AdaptiveSettings built in code validates itself, naming its own fields."""
    with pytest.raises(ConfigError) as info:
        AdaptiveSettings(50, min_window_s=20.0)
    assert info.value.field == "window_s"
    with pytest.raises(ConfigError, match="health"):
        AdaptiveSettings(50, health="yes")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="adaptive"):
        SamplingConfig(adaptive={"target_traces_per_second": 1})  # type: ignore[arg-type]


def test_serialize_round_trips_a_config_with_and_without_the_section() -> None:
    """parse_config(serialize(c)) == c; no section serializes as null."""
    for config in (
        SamplingConfig(),
        SamplingConfig(adaptive=AdaptiveSettings(7.5, health=None, hard_cap_factor=None)),
    ):
        assert parse_config(serialize(config)) == config
    assert serialize(SamplingConfig())["adaptive"] is None


def test_dsampler_check_accepts_the_section_and_names_its_errors(tmp_path: Path, capsys: Any) -> None:
    """``dsampler check`` validates ``adaptive:`` like every other section."""
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps({"adaptive": {"target_traces_per_second": 50, "window": "5s"}}))
    bad.write_text(json.dumps({"adaptive": {"target_traces_per_second": 50, "window": "1s"}}))
    assert main(["check", str(good)]) == 0
    assert f"{good}: OK: adaptive rate (target 50/s per process) (fnv1a)" in capsys.readouterr().out
    assert main(["check", str(bad)]) == 2
    assert (
        f"{bad}: adaptive.window: expected within the minimum and maximum window" in capsys.readouterr().err
    )
    good.write_text(json.dumps({"adaptive": {"target_traces_per_second": 50, "share": "host"}}))
    assert main(["check", str(good)]) == 0
    assert f"{good}: OK: adaptive rate (target 50/s per host) (fnv1a)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("health", "line"),
    [
        (
            None,
            "health policy: the adaptive rate x0.5 while over 5% of root spans fail and x0.7 while "
            "root-span P99 is over 250 ms (never below 0.001 by it; health: false turns it off)",
        ),
        (
            {"error_ratio": 0.025, "latency_multiplier": 1.0},
            "health policy: the adaptive rate x0.5 while over 2.5% of root spans fail (never below "
            "0.001 by it; health: false turns it off)",
        ),
        (False, "health policy off: the adaptive rate is not cut when the service is unwell"),
    ],
)
def test_dsampler_check_says_what_the_health_policy_does(
    tmp_path: Path, capsys: Any, health: object, line: str
) -> None:
    """A file with ``adaptive:``: a second line says how the health policy cuts the rate
    (by default, too) and how to turn it off."""
    section: dict[str, Any] = {"target_traces_per_second": 50, "p99_target": "250ms"}
    if health is not None:
        section["health"] = health
    path = tmp_path / "adaptive.json"
    path.write_text(json.dumps({"adaptive": section}))
    assert main(["check", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[1] == f"{path}: {line}"


def test_a_dsampler_from_the_section_has_a_controller_that_owns_the_rate() -> None:
    """DSampler(adaptive=...) builds the controller; the configured rate yields to its rate."""
    sampler = DSampler(rate=0.25, adaptive={"target_traces_per_second": 5}, clock=ManualClock(), resource={})
    assert sampler.controller is not None
    assert sampler.controller.settings == AdaptiveSettings(5)
    assert sampler.config.rate == 1.0  # every trace until the first tick counted the load
    assert load_config({"adaptive": {"target_traces_per_second": 5}}).adaptive == AdaptiveSettings(5)
    assert dataclasses.replace(sampler.config, adaptive=None).rate == 1.0


@pytest.mark.parametrize(
    ("section", "refused"),
    [
        ({"target_traces_per_second": 9e8}, True),  # the default factor 2: a cap of 1.8e9/s
        ({"target_traces_per_second": 1000, "hard_cap_factor": 1000}, False),  # 1e6/s
        ({"target_traces_per_second": 5e8, "hard_cap_factor": 2}, False),  # 1e9/s, the most
        ({"target_traces_per_second": 1e9, "hard_cap_factor": 1.5}, True),
        ({"target_traces_per_second": 9e8, "hard_cap_factor": None}, False),  # no cap
    ],
)
def test_check_and_the_sampler_give_one_verdict_on_the_hard_cap(
    tmp_path: Path, capsys: Any, section: dict[str, Any], refused: bool
) -> None:
    """A hard cap (factor x target) above 1e9 traces per second is refused by
    ``dsampler check`` and by ``DSampler`` alike, naming the user's field, never an
    internal one; a cap within it is accepted by both."""
    path = tmp_path / "sampling.json"
    path.write_text(json.dumps({"adaptive": section}))
    assert main(["check", str(path)]) == (2 if refused else 0)
    checked = capsys.readouterr().err
    if not refused:
        DSampler.from_file(path, watch=False, clock=ManualClock(), resource={}).close()
        return
    with pytest.raises(ConfigError) as info:
        DSampler.from_file(path, watch=False, clock=ManualClock(), resource={})
    assert info.value.field == "adaptive.hard_cap_factor"
    assert "credits_per_second" not in str(info.value)
    assert f"{path}: adaptive.hard_cap_factor: expected at most" in checked


def test_an_update_refused_for_its_hard_cap_leaves_no_controller() -> None:
    """An update whose hard cap is past what a limit can be is refused naming
    ``hard_cap_factor``, and the configuration in force stays, without a controller."""
    sampler = DSampler(rate=0.25, resource={}, clock=ManualClock())
    with pytest.raises(ConfigError, match=r"^adaptive\.hard_cap_factor: "):
        sampler.update(adaptive={"target_traces_per_second": 1e9})
    assert (sampler.config.version, sampler.config.adaptive, sampler.controller) == (1, None, None)
