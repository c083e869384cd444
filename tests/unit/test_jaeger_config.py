"""sampler_from_config: jaeger-client's ``sampler:`` section, strictly validated."""

from __future__ import annotations

from typing import Any

import pytest
from jaeger_client import Config

from dsampler import ConfigError
from dsampler.jaeger import (
    ConstSampler,
    ProbabilisticSampler,
    RateLimitingSampler,
    RemoteControlledSampler,
    sampler_from_config,
)


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
            "expected const, probabilistic, ratelimiting or remote",
        ),
        ({"type": "const", "param": True, "paramm": 1}, "sampler.paramm", "unknown key"),
        ({"sampler": 5}, "sampler", "expected a mapping, got int 5"),
        ({"type": "remote", "sampling_port": 70000}, "sampler.sampling_port", "a port in 1..65535"),
        ({"type": "remote", "sampling_port": "inf"}, "sampler.sampling_port", "a port in 1..65535, got inf"),
        ({"type": "remote", "sampling_port": "nan"}, "sampler.sampling_port", "a port in 1..65535, got nan"),
        ({"type": "remote", "sampling_port": 1e400}, "sampler.sampling_port", "a port in 1..65535"),
        ({"type": "remote", "sampling_host": ""}, "sampler.sampling_host", "expected a host name"),
        (
            {"type": "remote", "max_operations": "100"},
            "max_operations",
            "expected an integer >= 0, got '100'",
        ),
        ({"sampler": {}, "local_agent": "x"}, "local_agent", "expected a mapping"),
    ],
)
def test_bad_sections_name_the_key(config: dict[str, Any], field: str, message: str) -> None:
    """Missing params, bad values, unknown types and keys: ConfigError naming the key."""
    with pytest.raises(ConfigError) as info:
        sampler_from_config(config)
    assert info.value.field == field
    assert message in info.value.problem
