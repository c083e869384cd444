"""The strategies-file provider: Jaeger's derivation rules on every input fixture, its
errors, and dsampler's own configuration served as strategies."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from dsampler.config import OperationStrategy, SamplingConfig
from dsampler.errors import ConfigError
from dsampler.protocol import (
    OperationRate,
    PerOperationStrategy,
    ProbabilisticStrategy,
    RateLimitingStrategy,
    StrategyResponse,
)
from dsampler.serve import StrategiesFile, jaeger_strategies, load_strategies
from dsampler.serve._strategies import config_strategies
from tests.remote_servers import fixture_bytes

P, R = ProbabilisticStrategy, RateLimitingStrategy


def ops(*pairs: tuple[str, float]) -> tuple[OperationRate, ...]:
    return tuple(OperationRate(name, rate) for name, rate in pairs)


def prob(rate: float, per_op: PerOperationStrategy | None = None) -> StrategyResponse:
    return StrategyResponse("PROBABILISTIC", probabilistic=P(rate), per_operation=per_op)


def limited(n: float, per_op: PerOperationStrategy | None = None) -> StrategyResponse:
    return StrategyResponse("RATE_LIMITING", rate_limiting=R(n), per_operation=per_op)


def load(name: str) -> object:
    return load_strategies(fixture_bytes(name), name)


#: input fixture -> {service: expected response}; "*" is any other service.
EXPECTED = {
    "strategies.json": {"foo": prob(0.8), "bar": limited(5), "*": prob(0.5)},
    "operation_strategies.json": {
        "foo": prob(
            0.8, PerOperationStrategy(0.8, 0, ops(("op6", 0.5), ("op1", 0.2), ("op0", 0.2), ("op7", 1)))
        ),
        "bar": limited(
            5,
            PerOperationStrategy(
                0.001, 0, ops(("op3", 0.3), ("op5", 0.4), ("op0", 0.2), ("op6", 0), ("op7", 1))
            ),
        ),
        "*": prob(0.5, PerOperationStrategy(0.5, 0, ops(("op0", 0.2), ("op6", 0), ("op7", 1)))),
    },
    "missing-service-types.json": {
        "foo": prob(0.001, PerOperationStrategy(0.001, 0, ops(("op1", 0.2)))),
        "bar": prob(0.001, PerOperationStrategy(0.001, 0, ops(("op3", 0.3), ("op5", 0.4)))),
        "*": prob(0.5),
    },
    "service_no_per_operation.json": {
        "ServiceA": prob(1.0, PerOperationStrategy(1.0, 0, ops(("/health", 0.1)))),
        "ServiceB": limited(3, PerOperationStrategy(0.2, 0, ops(("/health", 0.1)))),
        "*": prob(0.2, PerOperationStrategy(0.2, 0, ops(("/health", 0.1)))),
    },
    "pr5277/service_no_per_operation.json": {
        "ServiceA": prob(1.0, PerOperationStrategy(1.0, 0, ops(("/health", 0.0)))),
        "ServiceB": limited(3, PerOperationStrategy(0.2, 0, ops(("/health", 0.0)))),
    },
    "sampling-strategies.json": {"foo": prob(0.8), "bar": limited(0), "*": prob(1.0)},
    "sampling_strategies_example.json": {
        "foo": prob(
            0.8,
            PerOperationStrategy(0.8, 0, ops(("op1", 0.2), ("op2", 0.4), ("/health", 0), ("/metrics", 0))),
        ),
        "bar": limited(5, PerOperationStrategy(0.5, 0, ops(("/health", 0), ("/metrics", 0)))),
        "*": prob(0.5, PerOperationStrategy(0.5, 0, ops(("/health", 0), ("/metrics", 0)))),
    },
    "sampling_strategies.json": {"anything": prob(1.0), "*": prob(1.0)},
    "strategies-hot-reload.json": {"foo": prob(0.5), "*": prob(0.001)},
    "otel-go-contrib/strategies.json": {
        "foo": prob(0.8, PerOperationStrategy(0.8, 0, ops(("op1", 0.2), ("op2", 0.4)))),
        "bar": limited(5),
        "*": prob(0.2),
    },
    "otel-java/sampling.json": {
        "foo": prob(0.33, PerOperationStrategy(0.33, 0, ops(("op0", 0), ("op1", 0.2), ("op2", 0.4)))),
        "bar": limited(150),
        "foobar": prob(0.8),
    },
}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_every_input_fixture_derives_jaegers_expected_responses(name: str) -> None:
    """Per-operation defaults, inheritance, merge order, dropped ratelimiting operations,
    truncated limits, missing types and unknown services, as SOURCES.md expects."""
    strategies = load(name)
    for service, expected in EXPECTED[name].items():
        key = "some-unknown-service" if service == "*" else service
        assert strategies.response_for(key) == expected, (name, service)  # type: ignore[attr-defined]


def test_derivation_warnings_name_what_jaeger_logs() -> None:
    """Dropped ratelimiting operations, missing types and truncated limits are reported."""
    assert len(load("operation_strategies.json").warnings) == 3  # type: ignore[attr-defined]
    assert any("type" in w for w in load("missing-service-types.json").warnings)  # type: ignore[attr-defined]
    assert any("never samples" in w for w in load("sampling-strategies.json").warnings)  # type: ignore[attr-defined]


def test_pre_5270_behaviour_is_available_for_older_servers() -> None:
    """inherit_rate_limited=False gives the deprecated-behaviour ServiceB: rate limiting only."""
    doc = json.loads(fixture_bytes("service_no_per_operation.json"))
    old = jaeger_strategies(doc, inherit_rate_limited=False)
    assert old.response_for("ServiceB") == limited(3)
    assert old.response_for("ServiceA") == prob(1.0, PerOperationStrategy(1.0, 0, ops(("/health", 0.1))))


def test_no_file_and_null_serve_the_default_probability() -> None:
    """No strategies at all: probabilistic 0.001 (or the configured default) for all."""
    assert jaeger_strategies(None).response_for("x") == prob(0.001)
    assert load_strategies(b"null", "s.json", default_probability=0.01).response_for("x") == prob(0.01)
    assert load_strategies(b"{}", "s.json").response_for("x") == prob(0.001)


def test_go_json_leniencies_case_insensitive_keys_unknown_keys_null_and_duplicates() -> None:
    """Keys match case-insensitively, unknown keys and nulls are ignored, a later service wins."""
    text = json.dumps(
        {
            "Default_Strategy": {"TYPE": "probabilistic", "Param": 0.3, "extra": 1},
            "service_strategies": [
                {"service": "a", "type": "probabilistic", "param": 0.1, "operation_strategies": None},
                {"service": "a", "type": "ratelimiting", "param": 2},
            ],
            "comment": "ignored",
        }
    ).encode()
    strategies = load_strategies(text, "s.json")
    assert strategies.response_for("zzz") == prob(0.3)
    assert strategies.response_for("a") == limited(2)
    assert any("listed again" in w for w in strategies.warnings)


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (fixture_bytes("bad_strategies.json"), "strategies"),
        (b"[1, 2]", "strategies"),
        (b"{", "strategies"),
        (b'{"default_strategy": {"type": "probabilistic", "param": NaN}}', "strategies"),
        (b'{"default_strategy": {"type": "probabilistic", "param": "0.5"}}', "default_strategy.param"),
        (b'{"default_strategy": {"type": "probabilistic", "param": 1.5}}', "default_strategy.param"),
        (b'{"default_strategy": {"type": "ratelimiting", "param": -1}}', "default_strategy.param"),
        (b'{"default_strategy": {"type": 5}}', "default_strategy.type"),
        (b'{"default_strategy": []}', "default_strategy"),
        (b'{"service_strategies": {}}', "service_strategies"),
        (b'{"service_strategies": [null]}', "service_strategies[0]"),
        (b'{"service_strategies": [{"service": 7}]}', "service_strategies[0].service"),
        (
            b'{"service_strategies": [{"service": "a", "operation_strategies": [{"operation": "x", "type": '
            b'"probabilistic", "param": 7}]}]}',
            "service_strategies[0].operation_strategies[0].param",
        ),
        (
            b'{"service_strategies": [{"service": "a", "operation_strategies": 3}]}',
            "service_strategies[0].operation_strategies",
        ),
        (b"\xff\xfe", "strategies"),
    ],
)
def test_invalid_files_are_refused_naming_the_field(text: bytes, field: str) -> None:
    """bad_strategies.json and every wrong-typed or out-of-range member: ConfigError."""
    with pytest.raises(ConfigError) as info:
        load_strategies(text, "s.json", format="jaeger")
    assert info.value.field == field


def test_auto_format_takes_jaeger_keys_as_jaeger_and_the_rest_as_dsampler() -> None:
    """A non-object JSON is a Jaeger error; rate/operations keys are dsampler's config;
    YAML is dsampler's config."""
    with pytest.raises(ConfigError, match="expected a JSON object"):
        load_strategies(b'"nonsense"', "s.json")
    assert load_strategies(b'{"rate": 0.25}', "c.json").response_for("x") == prob(0.25)
    assert load_strategies(b"rate: 0.5\n", "c.yaml").response_for("x") == prob(0.5)
    with pytest.raises(ConfigError):
        load_strategies(b'{"rate": 0.25, "typo": 1}', "c.json")


def test_a_dsampler_config_serves_its_per_operation_strategies() -> None:
    """Operations and the default lower bound become operationSampling beside the default
    rate; rules, a cap and own lower bounds are left out with a warning each."""
    config = SamplingConfig(
        rate=0.1,
        default_lower_bound_per_second=0.5,
        operations={"GET /a": OperationStrategy(0.5), "GET /b": OperationStrategy(1.0, 3.0)},
        traces_per_second=10.0,
    )
    served = config_strategies(config)
    assert served.response_for("any") == prob(
        0.1, PerOperationStrategy(0.1, 0.5, ops(("GET /a", 0.5), ("GET /b", 1.0)))
    )
    assert len(served.warnings) == 2


@pytest.mark.parametrize(
    ("config", "expected", "warnings"),
    [
        (SamplingConfig(rate=1.0, traces_per_second=5.0), limited(5), 0),
        (SamplingConfig(rate=1.0, traces_per_second=2.5), limited(2), 1),
        (SamplingConfig(rate=0.2, traces_per_second=5.0), prob(0.2), 1),
        (SamplingConfig(rate=0.2), prob(0.2), 0),
    ],
)
def test_a_dsampler_cap_is_served_as_rate_limiting_when_it_samples_everything(
    config: SamplingConfig, expected: StrategyResponse, warnings: int
) -> None:
    """rate 1 under a cap is rate limiting (an integer on the wire); a cap beside a lower
    rate cannot be expressed and is left out."""
    served = config_strategies(config)
    assert served.response_for("x") == expected
    assert len(served.warnings) == warnings


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (b'{"default_strategy": {"type": "probabilistic", "param": NaN}}', "NaN is not JSON"),
        (b'{"default_strategy": {"type": "probabilistic", "param": 0.5}', "not JSON"),
        (b'{"service_strategies": [{"service": "a", "param": 0.5},]}', "not JSON"),
        (b'\xef\xbb\xbf{"default_strategy": {"type": "probabilistic", "param": 0.5}}', "BOM"),
    ],
)
def test_auto_format_reports_a_broken_jaeger_file_as_json(text: bytes, problem: str) -> None:
    """A file with Jaeger's keys that is not valid JSON (NaN, truncated, a trailing
    comma, a byte-order mark Go refuses) is reported as the JSON error it is, not read
    again as a dsampler config ('default_strategy: unknown key; expected one of rate,
    ...')."""
    with pytest.raises(ConfigError) as info:
        load_strategies(text, "s.json")
    assert info.value.field == "strategies"
    assert problem in info.value.problem


@pytest.mark.parametrize(("listed", "said"), [(0, "0 services"), (1, "1 service"), (2, "2 services")])
def test_a_reload_counts_its_services_in_english(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, listed: int, said: str
) -> None:
    """The reload line says ``1 service``, not ``1 services``."""
    path = tmp_path / "strategies.json"
    path.write_text("{}", encoding="utf-8")
    source = StrategiesFile(path, reload_interval_s=0)
    services = [{"service": f"s{i}", "type": "probabilistic", "param": 0.5} for i in range(listed)]
    path.write_text(
        json.dumps(
            {"default_strategy": {"type": "probabilistic", "param": 0.1}, "service_strategies": services}
        )
    )
    with caplog.at_level(logging.INFO, logger="dsampler.serve"):
        assert (source.poll_once(), source.poll_once()) == (False, True)
    assert f"dsampler serve: reloaded {path} ({said})" in caplog.messages


@pytest.mark.parametrize(
    ("section", "text"),
    [
        ("adaptive", "adaptive: {target_traces_per_second: 50}\n"),
        ("remote", "remote: {endpoint: 'http://127.0.0.1:9/sampling'}\n"),
    ],
)
def test_serving_an_owned_rate_warns_once_naming_the_section(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, section: str, text: str
) -> None:
    """A configuration whose rate an ``adaptive:`` or ``remote:`` section owns is served
    as its fixed placeholder rate, with one WARNING naming the section and the rate."""
    path = tmp_path / "sampling.yaml"
    path.write_text(text, encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="dsampler.serve"):
        source = StrategiesFile(path, reload_interval_s=0)
    assert source.current.response_for("any") == prob(0.001)
    named = [r for r in caplog.records if f": {section}: " in r.getMessage()]
    assert len(named) == 1
    assert named[0].levelno == logging.WARNING
    assert "the rate 0.001 is served as a fixed rate" in named[0].getMessage()
