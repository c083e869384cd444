"""A refused value is shown as the user wrote it, not as what it converts to: ``7``, not
``7.0``; ``'100h'``, not ``360000.0``; a command line's ``'1'`` as typed. Every layer
that converts before it checks: the file's numbers and durations, the cross-field
checks, a Jaeger strategies file, the environment's arguments, scenario files."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from dsampler.cli.simulate._scenario import parse_scenario
from dsampler.config import parse_config
from dsampler.errors import ConfigError
from dsampler.remote._entry import parse_remote_arg
from dsampler.serve import jaeger_strategies

ADAPTIVE = {"target_traces_per_second": 50}


def _sampler_arg(text: str) -> object:
    from dsampler._entry_points import parse_sampler_arg

    return parse_sampler_arg(text)


def _remote_arg(text: str) -> object:
    _, problems = parse_remote_arg(text)
    if problems:
        raise ConfigError.of(problems)
    return None


CASES: list[tuple[Callable[[Any], object], Any, str]] = [
    (parse_config, {"rate": 7}, "rate: expected a number in [0, 1], got 7"),
    (
        parse_config,
        {"traces_per_second": -3},
        "traces_per_second: expected a number in [0, 1000000000], got -3",
    ),
    (parse_config, {"operations": {"a": 7}}, "operations['a']: expected a number in [0, 1], got 7"),
    (parse_config, {"adaptive": {"target_traces_per_second": 0}}, "got 0"),
    (
        parse_config,
        {"adaptive": {**ADAPTIVE, "window": "100h"}},
        "adaptive.window: expected seconds in [0.1, 3600], got '100h'",
    ),
    (parse_config, {"adaptive": {**ADAPTIVE, "health": {"cooldown": "2h"}}}, "got '2h'"),
    (parse_config, {"adaptive": {**ADAPTIVE, "min_rate": 1, "max_rate": 0.5}}, "maximum rate (0.5), got 1"),
    (parse_config, {"adaptive": {**ADAPTIVE, "window": "2s"}}, "window [3s, 30s], got 2s"),
    (
        parse_config,
        {"remote": {"polling_interval": "2d"}},
        "remote.polling_interval: expected seconds in [1, 86400], got '2d'",
    ),
    (
        parse_scenario,
        {"phases": [{"duration": "100h", "qps": 1}]},
        "phases[0].duration: expected seconds in [0.1, 21600], got '100h'",
    ),
    (jaeger_strategies, {"default_strategy": {"type": "probabilistic", "param": 2}}, "got 2"),
    (_sampler_arg, "rate=2", "rate: expected a number in [0, 1], got '2'"),
    (_remote_arg, "pollingIntervalMs=5", "pollingIntervalMs: expected seconds in [0.01, 604800], got '5'"),
    (_remote_arg, "initialSamplingRate=2", "initialSamplingRate: expected a number in [0, 1], got '2'"),
]


@pytest.mark.parametrize(("parse", "value", "message"), CASES)
def test_a_refused_value_is_shown_as_written(
    parse: Callable[[Any], object], value: Any, message: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        parse(value)
    text = str(refused.value)
    assert text.endswith(message), text
