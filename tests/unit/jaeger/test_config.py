"""sampler_from_config: jaeger-client's ``sampler:`` section, strictly validated."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from jaeger_client import Config

from dsampler import ConfigError
from dsampler.jaeger import (
    ConstSampler,
    ProbabilisticSampler,
    RateLimitingSampler,
    RemoteControlledSampler,
    _config,
    sampler_from_config,
)


@pytest.fixture(autouse=True)
def _fresh_warnings() -> None:
    """Each test sees its own once-only warnings (they are once per process)."""
    _config._WARNED.clear()


@pytest.mark.parametrize(
    ("section", "expected"),
    [
        ({"type": "const", "param": True}, "ConstSampler(True)"),
        ({"type": "const", "param": "false"}, "ConstSampler(False)"),
        ({"type": "const", "param": 1}, "ConstSampler(True)"),
        ({"type": "probabilistic", "param": 0.25}, "ProbabilisticSampler(0.25)"),
        ({"type": "probabilistic", "param": "0.5"}, "ProbabilisticSampler(0.5)"),
        ({"type": "ratelimiting", "param": 2}, "RateLimitingSampler(2.0)"),
        ({"type": "rate_limiting", "param": "0.5"}, "RateLimitingSampler(0.5)"),
    ],
)
def test_sampler_section_builds_what_jaeger_client_builds(section: dict[str, Any], expected: str) -> None:
    """Each type/param pair gives the sampler jaeger_client.Config would, by str()."""
    ours = sampler_from_config(section)
    assert str(ours) == expected
    assert str(ours) == str(Config({"sampler": section}, service_name="svc").sampler)


def test_whole_config_and_remote_defaults() -> None:
    """A whole jaeger-client config works; no type means remote, with Jaeger's endpoint."""
    config = {
        "service_name": "checkout",
        "sampler": {"param": 0.05},
        "local_agent": {"reporting_host": "agent.local", "sampling_port": 5779},
        "sampling_refresh_interval": 30,
        "max_operations": 500,
    }
    sampler = sampler_from_config(config)
    assert isinstance(sampler, RemoteControlledSampler)
    assert (sampler.service_name, sampler.endpoint) == ("checkout", "http://agent.local:5779/sampling")
    assert (sampler.sampling_refresh_interval, sampler.max_operations) == (30.0, 500)
    assert str(sampler.sampler) == "ProbabilisticSampler(0.05)"
    explicit = sampler_from_config(
        {"type": "remote", "sampling_host": "h", "sampling_port": 1}, service_name="s"
    )
    assert isinstance(explicit, RemoteControlledSampler)
    assert explicit.endpoint == "http://h:1/sampling"
    assert str(explicit.sampler) == "ProbabilisticSampler(0.001)"


def test_an_instance_is_passed_through_and_hash_reaches_the_sampler() -> None:
    """A sampler instance in the config is used as is; ``hash=`` selects the rule."""
    instance = ConstSampler(True)
    assert sampler_from_config({"sampler": instance}) is instance
    fnv = sampler_from_config({"type": "probabilistic", "param": 0.1}, hash="fnv1a")
    assert fnv == ProbabilisticSampler(0.1, hash="fnv1a")


def test_remote_with_an_in_process_strategy_source() -> None:
    """strategy_source feeds the remote sampler; poll_once applies it."""
    sampler = sampler_from_config(
        {"type": "remote"},
        service_name="svc",
        strategy_source=lambda: {
            "strategyType": "RATE_LIMITING",
            "rateLimitingSampling": {"maxTracesPerSecond": 3},
        },
    )
    assert isinstance(sampler, RemoteControlledSampler)
    assert sampler.poll_once()
    assert isinstance(sampler.sampler, RateLimitingSampler)
    sampler.close()


@pytest.mark.parametrize(
    ("config", "field", "message"),
    [
        ({"type": "probabilistic"}, "sampler.param", "missing"),
        ({"type": "probabilistic", "param": 1.5}, "sampler.param", "expected a number in [0, 1], got 1.5"),
        ({"type": "probabilistic", "param": "nan"}, "sampler.param", "expected a number in [0, 1], got NaN"),
        ({"type": "probabilistic", "param": "ten"}, "sampler.param", "expected a number, got 'ten'"),
        ({"type": "ratelimiting", "param": -1}, "sampler.param", "expected a number in [0, "),
        ({"type": "ratelimiting", "param": "inf"}, "sampler.param", "expected a number in [0, "),
        ({"type": "const", "param": "yes"}, "sampler.param", "expected true or false, got 'yes'"),
        (
            {"type": "adaptive", "param": 1},
            "sampler.type",
            "unknown sampler type 'adaptive'; expected const,",
        ),
        ({"type": "adaptive"}, "sampler.type", "unknown sampler type 'adaptive'"),
        ({"type": ["const"]}, "sampler.type", "unknown sampler type list of 1"),
        ({"sampler": 5}, "sampler", "expected a mapping, got int 5"),
        (
            {"type": "remote", "sampling_port": 70000},
            "sampler.sampling_port",
            "expected an integer in [1, 65535], got ",
        ),
        (
            {"type": "remote", "sampling_port": "inf"},
            "sampler.sampling_port",
            "expected an integer in [1, 65535], got float inf",
        ),
        (
            {"type": "remote", "sampling_port": "nan"},
            "sampler.sampling_port",
            "expected an integer in [1, 65535], got float nan",
        ),
        (
            {"type": "remote", "sampling_port": 1e400},
            "sampler.sampling_port",
            "expected an integer in [1, 65535], got ",
        ),
        ({"type": "remote", "sampling_host": ""}, "sampler.sampling_host", "expected a host name"),
        (
            {"type": "remote", "max_operations": "100"},
            "sampler.max_operations",
            "expected an integer in [0, 1000000], got str '100'",
        ),
        ({"sampler": {}, "max_operations": -5}, "max_operations", "got -5"),
        ({"sampler": {}, "local_agent": "x"}, "local_agent", "expected a mapping"),
    ],
)
def test_bad_sections_name_the_key(config: dict[str, Any], field: str, message: str) -> None:
    """Missing params, bad values, unknown types and keys: ConfigError naming the key."""
    with pytest.raises(ConfigError) as info:
        sampler_from_config(config)
    assert info.value.field == field
    assert message in info.value.problem


HUGE = 10**400


@pytest.mark.parametrize(
    ("config", "field", "message"),
    [
        ({"type": "probabilistic", "param": HUGE}, "sampler.param", "got an integer of 1329 bits"),
        ({"type": "ratelimiting", "param": HUGE}, "sampler.param", "got an integer of 1329 bits"),
        ({"type": "const", "param": HUGE}, "sampler.param", "got an integer of 1329 bits"),
        ({"type": "const", "param": 10**5000}, "sampler.param", "got an integer of"),
        ({"type": "remote", "param": HUGE}, "sampler.param", "got an integer of 1329 bits"),
        (
            {"type": "remote", "sampling_port": HUGE},
            "sampler.sampling_port",
            "expected an integer in [1, 65535], got an integer of 1329",
        ),
        (
            {"sampler": {}, "local_agent": {"sampling_port": HUGE}},
            "local_agent.sampling_port",
            "expected an integer in [1, 65535]",
        ),
        ({"sampler": {}, "local_agent": {"sampling_port": "x"}}, "local_agent.sampling_port", "got 'x'"),
        (
            {"type": "remote", "sampling_refresh_interval": 1e-9},
            "sampler.sampling_refresh_interval",
            "[1, 86",
        ),
        ({"sampler": {}, "sampling_refresh_interval": 0.2}, "sampling_refresh_interval", "got 0.2"),
        ({"sampler": {}, "sampling_refresh_interval": HUGE}, "sampling_refresh_interval", "an integer of"),
        ({"sampler": {}, "max_operations": HUGE}, "max_operations", "got an integer of 1329 bits"),
    ],
)
def test_overflowing_and_tiny_values_are_config_errors_naming_the_key(
    config: dict[str, Any], field: str, message: str
) -> None:
    """10**400 anywhere, sub-second refresh intervals: a ConfigError naming the key, never OverflowError."""
    with pytest.raises(ConfigError) as info:
        sampler_from_config(config)
    assert info.value.field == field
    assert message in info.value.problem


@pytest.mark.parametrize("value", [None, 0])
def test_none_and_zero_mean_the_defaults(value: int | None) -> None:
    """sampling_refresh_interval and max_operations of None or 0: 60 s and 2000, as jaeger-client."""
    sampler = sampler_from_config(
        {"sampler": {}, "sampling_refresh_interval": value, "max_operations": value}
    )
    assert isinstance(sampler, RemoteControlledSampler)
    assert (sampler.sampling_refresh_interval, sampler.max_operations) == (60, 2000)


def test_a_whole_config_without_a_sampler_key_is_a_remote_sampler() -> None:
    """jaeger-client's default: no ``sampler:`` section means a remote sampler, other keys ignored."""
    config = {
        "service_name": "checkout",
        "logging": True,
        "local_agent": {"reporting_host": "agent", "reporting_port": 6831, "sampling_port": 5779},
        "reporter_batch_size": 1,
        "sampling_refresh_interval": 30,
        "tags": {"team": "shop"},
    }
    sampler = sampler_from_config(config)
    assert isinstance(sampler, RemoteControlledSampler)
    assert (sampler.service_name, sampler.endpoint) == ("checkout", "http://agent:5779/sampling")
    assert sampler.sampling_refresh_interval == 30
    assert str(sampler.sampler) == "ProbabilisticSampler(0.001)"


def test_the_agent_host_comes_from_jaeger_agent_host_as_in_jaeger_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without local_agent.reporting_host, JAEGER_AGENT_HOST names the agent (then localhost)."""
    monkeypatch.setenv("JAEGER_AGENT_HOST", "env-agent")
    sampler = sampler_from_config({}, service_name="svc")
    assert isinstance(sampler, RemoteControlledSampler)
    assert sampler.endpoint == "http://env-agent:5778/sampling"
    monkeypatch.delenv("JAEGER_AGENT_HOST")
    sampler = sampler_from_config({}, service_name="svc")
    assert isinstance(sampler, RemoteControlledSampler)
    assert sampler.endpoint == "http://localhost:5778/sampling"


def test_built_samplers_pass_through_whoever_built_them() -> None:
    """A dsampler or jaeger-client sampler object, alone or as ``sampler:``, is returned as is."""
    from jaeger_client.sampler import ConstSampler as JaegerConst

    ours, theirs = ProbabilisticSampler(0.2), JaegerConst(True)
    assert sampler_from_config(ours) is ours  # type: ignore[arg-type]
    assert sampler_from_config({"sampler": ours}) is ours
    assert sampler_from_config({"sampler": theirs}) is theirs


@pytest.mark.parametrize(
    ("section", "expected"),
    [
        ({"type": "const"}, "ConstSampler(False)"),  # jaeger-client: no param is False
        ({"type": "const", "param": None}, "ConstSampler(False)"),
        ({"type": "const", "param": "None"}, "ConstSampler(False)"),
        ({"type": "const", "param": 0.0}, "ConstSampler(False)"),
        ({"type": "const", "param": 1.0}, "ConstSampler(True)"),
        ({"type": "const", "param": "TRUE"}, "ConstSampler(True)"),
    ],
)
def test_const_accepts_a_missing_param_and_float_one(section: dict[str, Any], expected: str) -> None:
    """const without a param is off (as jaeger-client); 1.0 is on (as jaeger-client-go and -java)."""
    assert str(sampler_from_config(section)) == expected


def test_const_one_point_zero_warns_that_jaeger_client_python_read_it_as_false(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The one value that changes behaviour in a migration is called out in the log."""
    with caplog.at_level(logging.WARNING, logger="dsampler.jaeger"):
        sampler_from_config({"type": "const", "param": 1.0})
    assert "jaeger-client-python read it as false" in caplog.text


def test_extra_keys_warn_once_and_do_not_fail(caplog: pytest.LogCaptureFixture) -> None:
    """Unknown section keys (a comment, Go's samplingServerURL) are logged once each, then ignored."""
    section = {"type": "probabilistic", "param": 0.1, "comment": "x", "samplingServerURL": "http://a:5778"}
    with caplog.at_level(logging.WARNING, logger="dsampler.jaeger"):
        for _ in range(3):
            assert str(sampler_from_config(section)) == "ProbabilisticSampler(0.1)"
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 2
    assert any(m.startswith("sampler.comment: unknown key, ignored") for m in warnings)
    assert any(m.startswith("sampler.samplingServerURL: unknown key, ignored") for m in warnings)


def test_a_typo_suggests_the_key_meant(caplog: pytest.LogCaptureFixture) -> None:
    """A near miss such as ``parm`` names the key it probably meant."""
    with caplog.at_level(logging.WARNING, logger="dsampler.jaeger"):
        sampler_from_config({"type": "ratelimiting", "param": 2, "parm": 3})
    assert "did you mean 'param'?" in caplog.text
