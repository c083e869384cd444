"""dsampler.jaeger: jaeger-client's interface, tags, equality, strings and updates."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from jaeger_client import sampler as jc

from dsampler import ConfigError, ManualClock, RatioSampler
from dsampler.jaeger import (
    AdaptiveSampler,
    ConstSampler,
    GuaranteedThroughputProbabilisticSampler,
    ProbabilisticSampler,
    RateLimitingSampler,
    RemoteControlledSampler,
    Sampler,
)
from tests.fakes import Fixed

_RNG = random.Random(9)
IDS = [_RNG.getrandbits(64) for _ in range(2000)]


def test_samplers_are_jaeger_client_samplers() -> None:
    """With jaeger-client installed, every dsampler.jaeger sampler is one of its Samplers."""
    for sampler in (
        ConstSampler(True),
        ProbabilisticSampler(0.1),
        RateLimitingSampler(1),
        RemoteControlledSampler(),
    ):
        assert isinstance(sampler, jc.Sampler)
        assert isinstance(sampler, Sampler)


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (ConstSampler(True), jc.ConstSampler(True)),
        (ConstSampler(False), jc.ConstSampler(False)),
        (ProbabilisticSampler(0.25), jc.ProbabilisticSampler(0.25)),
        (RateLimitingSampler(2.5), jc.RateLimitingSampler(2.5)),
        (
            GuaranteedThroughputProbabilisticSampler("op", 0.5, 0.1),
            jc.GuaranteedThroughputProbabilisticSampler("op", 0.5, 0.1),
        ),
    ],
)
def test_str_and_tags_match_jaeger_client(ours: Sampler, theirs: Any) -> None:
    """``str()`` and the tag dictionaries are jaeger-client's, character for character."""
    assert str(ours) == str(theirs)
    assert ours._tags == theirs._tags


def test_adaptive_str_matches_jaeger_client() -> None:
    """AdaptiveSampler's ``str()`` is jaeger-client's."""
    strategies = {"defaultSamplingProbability": 0.2, "defaultLowerBoundTracesPerSecond": 0.5}
    assert str(AdaptiveSampler(strategies, 10)) == str(jc.AdaptiveSampler(strategies, 10))


def test_equality_follows_the_configuration() -> None:
    """Samplers compare by type and configuration, not by balance or identity."""
    assert ProbabilisticSampler(0.1) == ProbabilisticSampler(0.1)
    assert ProbabilisticSampler(0.1) != ProbabilisticSampler(0.2)
    assert ProbabilisticSampler(0.1) != ProbabilisticSampler(0.1, hash="fnv1a")
    assert RateLimitingSampler(1, initial_balance=0) == RateLimitingSampler(1, initial_balance=1)
    assert ConstSampler(True) != ProbabilisticSampler(1.0)
    assert ConstSampler(True) != "ConstSampler(True)"


@pytest.mark.parametrize("rate", [0.0, 0.001, 0.1, 0.5, 1.0, 2.0**-60])
def test_probabilistic_decides_exactly_as_jaeger_client(rate: float) -> None:
    """The default ``jaeger`` rule: same decision as jaeger-client for 64- and 128-bit IDs."""
    ours, theirs = ProbabilisticSampler(rate), jc.ProbabilisticSampler(rate)
    for t in [*IDS, 0, 2**64 - 1, 2**128 - 1, 2**63]:
        assert ours.is_sampled(t) == theirs.is_sampled(t)


def test_fnv1a_option_decides_like_the_otel_samplers() -> None:
    """``hash="fnv1a"`` keeps the traces dsampler's RatioSampler keeps."""
    ours, otel_side = ProbabilisticSampler(0.3, hash="fnv1a"), RatioSampler(0.3)
    for t in IDS:
        assert ours.is_sampled(t)[0] is otel_side.should_sample(None, t, "x").decision.is_sampled()


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: ProbabilisticSampler(1.5), "rate"),
        (lambda: ProbabilisticSampler(math.nan), "rate"),
        (lambda: ProbabilisticSampler("0.1"), "rate"),  # type: ignore[arg-type]
        (lambda: ProbabilisticSampler(0.1, hash="md5"), "hash"),
        (lambda: RateLimitingSampler(-1), "max_traces_per_second"),
        (lambda: RateLimitingSampler(math.inf), "max_traces_per_second"),
        (lambda: ConstSampler("yes"), "decision"),  # type: ignore[arg-type]
        (lambda: GuaranteedThroughputProbabilisticSampler("op", -1, 0.1), "lower_bound"),
        (lambda: AdaptiveSampler({}, -1), "max_operations"),
        (
            lambda: AdaptiveSampler({"defaultSamplingProbability": 2}),
            "operationSampling.defaultSamplingProbability",
        ),
        (lambda: RemoteControlledSampler(service_name=3), "service_name"),  # type: ignore[arg-type]
        (lambda: RemoteControlledSampler(sampling_refresh_interval=0.5), "sampling_refresh_interval"),
    ],
)
def test_bad_arguments_raise_config_error_naming_them(build: Any, field: str) -> None:
    """Where jaeger-client asserts (or accepts nonsense), dsampler names the argument."""
    with pytest.raises(ConfigError) as info:
        build()
    assert info.value.field == field


def test_is_sampled_never_raises() -> None:
    """A trace ID that is not an int is not sampled, and nothing is raised."""
    assert ProbabilisticSampler(1.0).is_sampled(None)[0] is False  # type: ignore[arg-type]
    assert ProbabilisticSampler(1.0, hash="fnv1a").is_sampled("x")[0] is False  # type: ignore[arg-type]


def test_rate_limiting_update_is_pro_rated_and_unchanged_is_a_no_op() -> None:
    """update() returns False for the same rate (no refill), True and pro-rates otherwise."""
    clock = ManualClock()
    sampler = RateLimitingSampler(4, clock=clock, initial_balance=4)
    assert sum(sampler.is_sampled(t)[0] for t in IDS[:3]) == 3  # 1 of 4 left
    assert sampler.update(4) is False
    assert sampler.update(8) is True
    assert sampler._tags == {"sampler.type": "ratelimiting", "sampler.param": 8}
    assert sum(sampler.is_sampled(t)[0] for t in IDS[:10]) == 2  # 1 * 8/4


def test_guaranteed_throughput_tags_and_lower_bound() -> None:
    """Probabilistic tags when the rate samples; lowerbound tags and a credit otherwise."""
    clock = ManualClock()
    sampler = GuaranteedThroughputProbabilisticSampler("op", 1.0, 0.0, clock=clock, rng=Fixed(0.999))
    first, second = sampler.is_sampled(IDS[0]), sampler.is_sampled(IDS[1])
    assert first == (False, {"sampler.type": "lowerbound", "sampler.param": 0.0})  # 0.999 credits
    assert second[0] is False
    clock.advance(1.0)
    assert sampler.is_sampled(IDS[2]) == (True, {"sampler.type": "lowerbound", "sampler.param": 0.0})
    always = GuaranteedThroughputProbabilisticSampler("op", 1.0, 1.0, clock=clock)
    assert always.is_sampled(IDS[0]) == (True, {"sampler.type": "probabilistic", "sampler.param": 1.0})


def strategies(default: float, ops: dict[str, float], lower: float = 0.5) -> dict[str, Any]:
    return {
        "defaultSamplingProbability": default,
        "defaultLowerBoundTracesPerSecond": lower,
        "perOperationStrategies": [
            {"operation": op, "probabilisticSampling": {"samplingRate": rate}} for op, rate in ops.items()
        ],
    }


def test_adaptive_adds_operations_up_to_max_then_uses_the_default() -> None:
    """New operations get their own sampler up to max_operations; then the default decides."""
    sampler = AdaptiveSampler(
        strategies(0.0, {"a": 1.0}), max_operations=3, clock=ManualClock(), rng=Fixed(0.0)
    )
    for op in ("b", "c", "d", "e"):
        sampler.is_sampled(IDS[0], op)
    assert sorted(sampler.samplers) == ["a", "b", "c"]
    assert sampler.is_sampled(IDS[0], "e") == (False, {"sampler.type": "probabilistic", "sampler.param": 0.0})


def test_adaptive_update_keeps_balances_and_drops_absent_operations() -> None:
    """In place: the same objects (and balances) for kept ops, new ones added, absent dropped."""
    sampler = AdaptiveSampler(strategies(0.1, {"a": 0.2, "b": 0.3}), clock=ManualClock())
    a = sampler.samplers["a"]
    sampler.update(strategies(0.4, {"a": 0.5, "c": 0.6}, lower=2.0))
    assert sampler.samplers["a"] is a
    assert (a.rate, a.lower_bound) == (0.5, 2.0)
    assert sorted(sampler.samplers) == ["a", "c"]
    assert sampler.default_sampling_probability == 0.4
    with pytest.raises(ConfigError, match=r"perOperationStrategies\[0\]"):
        sampler.update(
            {"perOperationStrategies": [{"operation": "a", "probabilisticSampling": {"samplingRate": 9}}]}
        )
    assert sorted(sampler.samplers) == ["a", "c"]  # nothing changed


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        (
            {"strategyType": "PROBABILISTIC", "probabilisticSampling": {"samplingRate": 0.5}},
            "ProbabilisticSampler(0.5)",
        ),
        ({"strategyType": 0, "probabilisticSampling": {"samplingRate": 0.25}}, "ProbabilisticSampler(0.25)"),
        (
            {"strategyType": "RATE_LIMITING", "rateLimitingSampling": {"maxTracesPerSecond": 7}},
            "RateLimitingSampler(7.0)",
        ),
        ({"strategyType": 1, "rateLimitingSampling": {"maxTracesPerSecond": 2}}, "RateLimitingSampler(2.0)"),
        (
            {
                "strategyType": "RATE_LIMITING",
                "rateLimitingSampling": {"maxTracesPerSecond": 3},
                "operationSampling": strategies(0.1, {"x": 0.2}),
            },
            "AdaptiveSampler(0.100000, 0.500000, 2000)",
        ),
    ],
)
def test_remote_update_accepts_both_enum_dialects_and_per_operation_first(
    response: Any, expected: str
) -> None:
    """String and numeric strategy types both work; operationSampling wins when present."""
    sampler = RemoteControlledSampler(service_name="svc", clock=ManualClock())
    sampler.update(response)
    assert str(sampler.sampler) == expected


@pytest.mark.parametrize(
    "response",
    [
        {"strategyType": "ADAPTIVE"},
        {"strategyType": "RATE_LIMITING", "rateLimitingSampling": {"maxTracesPerSecond": 500}},
        {"strategyType": "PROBABILISTIC", "probabilisticSampling": {"samplingRate": -0.1}},
        {"operationSampling": {"perOperationStrategies": "all"}},
        [],
    ],
)
def test_remote_update_refuses_bad_strategies_and_keeps_the_sampler(response: Any) -> None:
    """An unusable response raises ConfigError; the running sampler stays."""
    sampler = RemoteControlledSampler(service_name="svc")
    before = sampler.sampler
    with pytest.raises(ConfigError):
        sampler.update(response)
    assert sampler.sampler is before


def test_remote_rate_limit_updates_in_place_and_identical_polls_change_nothing() -> None:
    """Polling the same rate limit again keeps the limiter and its balance."""
    responses = iter(
        [{"strategyType": "RATE_LIMITING", "rateLimitingSampling": {"maxTracesPerSecond": 5}}] * 3
    )
    sampler = RemoteControlledSampler(
        service_name="svc",
        strategy_source=lambda: next(responses),
        clock=ManualClock(),
        sampling_refresh_interval=3600,
    )
    assert sampler.poll_once() is True
    limiter = sampler.sampler
    spent = sum(sampler.is_sampled(t)[0] for t in IDS[:100])
    assert sampler.poll_once() is True
    assert sampler.sampler is limiter
    assert sum(sampler.is_sampled(t)[0] for t in IDS[:100]) == 0  # not refilled by the poll
    assert spent <= 5
    assert sampler.poll_once() is True
    assert sampler.poll_once() is False  # the source is exhausted: a failure, counted
    assert (sampler.polls, sampler.failures) == (4, 1)
    sampler.close()
    sampler.close()


def test_remote_default_and_init_sampler() -> None:
    """Before any strategy: ProbabilisticSampler(0.001), or the given init sampler."""
    assert str(RemoteControlledSampler(service_name="svc").sampler) == "ProbabilisticSampler(0.001)"
    assert RemoteControlledSampler(init_sampler=ConstSampler(True)).is_sampled(1) == (
        True,
        {"sampler.type": "const", "sampler.param": True},
    )


def test_hostile_inputs_never_raise_from_is_sampled() -> None:
    """numpy ints, unhashable operations and other odd input give a decision, not an error."""
    import numpy as np

    assert ProbabilisticSampler(0.5).is_sampled(np.int64(5))[0] is False  # type: ignore[arg-type]
    adaptive = AdaptiveSampler(strategies(1.0, {}))
    assert adaptive.is_sampled(1, ["op"])[0] is True  # type: ignore[arg-type]  # the default decides
    assert ConstSampler(1).is_sampled(3) == (True, {"sampler.type": "const", "sampler.param": True})  # type: ignore[arg-type]


def test_adaptive_equality_includes_the_operation_rates() -> None:
    """Two adaptive samplers with other per-operation rates are not equal (jaeger-client's equality)."""
    assert AdaptiveSampler(strategies(0.1, {"a": 0.1})) != AdaptiveSampler(strategies(0.1, {"a": 0.9}))
    assert AdaptiveSampler(strategies(0.1, {"a": 0.1})) == AdaptiveSampler(strategies(0.1, {"a": 0.1}))


def test_remote_update_with_a_malformed_section_is_a_config_error() -> None:
    """A strategy whose probabilisticSampling is not a mapping is refused, naming it."""
    sampler = RemoteControlledSampler(service_name="svc")
    with pytest.raises(ConfigError, match=r"^probabilisticSampling: expected a mapping, got int 5"):
        sampler.update({"strategyType": "PROBABILISTIC", "probabilisticSampling": 5})


def test_rate_limiter_offers_jaeger_check_credit() -> None:
    """Code that calls rate_limiter.check_credit(1.0) directly keeps working."""
    sampler = RateLimitingSampler(1, clock=ManualClock(), initial_balance=1)
    assert sampler.rate_limiter.check_credit(1.0) is True
    assert sampler.rate_limiter.check_credit(1.0) is False
    with pytest.raises(ConfigError, match=r"^item_cost: "):
        sampler.rate_limiter.check_credit(2.5)
