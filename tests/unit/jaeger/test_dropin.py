"""dsampler.jaeger as a drop-in for jaeger_client.sampler: names, defaults, lifecycle, and
decisions that never raise."""

from __future__ import annotations

import logging
import random
from collections import Counter
from inspect import ismodule
from typing import Any

import pytest
from jaeger_client import sampler as jc
from jaeger_client.metrics import LegacyMetricsFactory, Metrics

import dsampler.jaeger as dj
from dsampler import ConfigError, ManualClock
from dsampler.jaeger import (
    AdaptiveSampler,
    ConstSampler,
    GuaranteedThroughputProbabilisticSampler,
    ProbabilisticSampler,
    RateLimitingSampler,
    RemoteControlledSampler,
    Sampler,
)
from tests.fakes import HostileId

OURS_ONLY = {"sampler_from_config"}


def jaeger_public_names() -> set[str]:
    """What ``from jaeger_client.sampler import X`` offers as its own: every public name but
    the modules, classes and functions it imports from elsewhere (Lock, typing, metrics)."""
    names = set()
    for name, value in vars(jc).items():
        if name.startswith("_") or ismodule(value):
            continue
        if callable(value) and getattr(value, "__module__", None) != jc.__name__:
            continue
        names.add(name)
    return names


def test_every_public_name_of_jaeger_client_sampler_imports_from_dsampler_jaeger() -> None:
    """The two name sets are equal (plus sampler_from_config), so every import line ports."""
    theirs = jaeger_public_names()
    assert {"DEFAULT_MAX_OPERATIONS", "get_rate_limit", "SamplerMetrics", "default_logger"} <= theirs
    assert set(dj.__all__) == theirs | OURS_ONLY
    for name in dj.__all__:
        assert getattr(dj, name) is not None
    assert sorted(dir(dj)) == sorted(set(dir(dj)))  # the lazy __dir__ lists each name once
    assert set(dj.__all__) <= set(dir(dj))


def test_constants_have_jaeger_clients_values() -> None:
    """Every constant (not a class, function or logger) equals jaeger-client's, type included."""
    for name in jaeger_public_names():
        value = getattr(jc, name)
        if callable(value) or isinstance(value, logging.Logger):
            continue
        assert getattr(dj, name) == value, name
        assert type(getattr(dj, name)) is type(value), name


@pytest.mark.parametrize(
    "strategy",
    [
        None,
        {},
        {"probabilisticSampling": None},
        {"probabilisticSampling": {}},
        {"probabilisticSampling": {"samplingRate": 0.003}},
        {"probabilisticSampling": {"samplingRate": 400}},  # jaeger-client's helpers do not validate
        {"rateLimitingSampling": None},
        {"rateLimitingSampling": {}},
        {"rateLimitingSampling": {"maxTracesPerSecond": 7}},
    ],
)
def test_strategy_helpers_answer_as_jaeger_clients(strategy: dict[str, Any] | None) -> None:
    """get_sampling_probability and get_rate_limit return what jaeger-client's return."""
    assert dj.get_sampling_probability(strategy) == jc.get_sampling_probability(strategy)
    assert dj.get_rate_limit(strategy) == jc.get_rate_limit(strategy)


def test_the_abstract_sampler_is_jaeger_clients() -> None:
    """Sampler(tags) keeps its tags; is_sampled and close are left to subclasses."""
    base = Sampler(tags={"k": "v"})
    assert base._tags == {"k": "v"}
    assert Sampler()._tags == {}
    with pytest.raises(NotImplementedError):
        base.is_sampled(1)
    with pytest.raises(NotImplementedError):
        base.close()


def test_every_concrete_sampler_closes() -> None:
    """close() is implemented (and idempotent) on every sampler, as in jaeger-client;
    the remote one stops running, and every one still decides afterwards."""
    remote = RemoteControlledSampler(None, "svc")
    assert remote.running
    for sampler in (
        ConstSampler(True),
        ProbabilisticSampler(0.1),
        RateLimitingSampler(1),
        GuaranteedThroughputProbabilisticSampler("op", 1, 0.1),
        AdaptiveSampler({"perOperationStrategies": [{"operation": "a"}]}),
        remote,
    ):
        sampler.close()
        sampler.close()
        sampled, tags = sampler.is_sampled(0x1234, "op")
        assert isinstance(sampled, bool)
        assert isinstance(tags, dict)
    assert not remote.running


@pytest.mark.parametrize("value", [None, 0])
def test_remote_none_and_zero_mean_the_defaults(value: int | None) -> None:
    """max_operations and sampling_refresh_interval of None or 0 are jaeger-client's defaults."""
    sampler = RemoteControlledSampler(
        None, "svc", max_operations=value, sampling_refresh_interval=value, strategy_source=dict
    )
    assert (sampler.max_operations, sampler.sampling_refresh_interval) == (2000, 60)
    sampler.close()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (0.5, "expected seconds in [1, 86400], got 0.5"),
        (1e-9, "expected seconds in [1, 86400], got 1e-09"),
        (10**400, "got an integer of"),
        (-1, "got -1"),
        ("60", "got str '60'"),
    ],
)
def test_remote_refresh_interval_has_a_lower_bound(value: object, message: str) -> None:
    """A refresh interval under 1 s (a poller that spins) or not a number is refused."""
    with pytest.raises(ConfigError) as info:
        RemoteControlledSampler(None, "svc", sampling_refresh_interval=value)  # type: ignore[arg-type]
    assert info.value.field == "sampling_refresh_interval"
    assert message in info.value.problem


def test_remote_running_is_true_until_close() -> None:
    """``running`` is jaeger-client's flag: True from construction, False after close()."""
    sampler = RemoteControlledSampler(None, "svc", strategy_source=dict, sampling_refresh_interval=3600)
    assert sampler.running is True
    sampler.close()
    assert sampler.running is False
    assert sampler.poll_once() is False  # a closed sampler no longer follows its source


def test_remote_checks_the_init_sampler_at_construction() -> None:
    """Like jaeger-client, the init sampler is asked once at construction; a non-sampler is refused."""
    calls: list[int] = []

    class Counting(ConstSampler):
        def is_sampled(self, trace_id: int, operation: str = "") -> tuple[bool, dict[str, Any]]:
            calls.append(trace_id)
            return super().is_sampled(trace_id, operation)

    RemoteControlledSampler(None, "svc", init_sampler=Counting(True))
    assert calls == [0]
    with pytest.raises(ConfigError) as info:
        RemoteControlledSampler(None, "svc", init_sampler=object())  # type: ignore[arg-type]
    assert info.value.field == "init_sampler"


def test_remote_never_raises_when_the_init_sampler_does() -> None:
    """An application's own init sampler that raises gives 'not sampled', not an exception."""

    class Flaky(ConstSampler):
        def is_sampled(self, trace_id: int, operation: str = "") -> tuple[bool, dict[str, Any]]:
            if trace_id:
                raise RuntimeError("flaky")
            return super().is_sampled(trace_id, operation)

    sampler = RemoteControlledSampler(None, "svc", init_sampler=Flaky(True))
    assert sampler.is_sampled(5, "op") == (False, {})


def test_remote_reports_to_jaeger_clients_metrics_and_error_reporter() -> None:
    """metrics_factory gets jaeger-client's counters; error_reporter gets each failure."""
    counts: Counter[str] = Counter()
    errors: list[tuple[Any, ...]] = []

    class Reporter:
        def error(self, *args: Any) -> None:
            errors.append(args)

    responses: list[Any] = [
        {"strategyType": "PROBABILISTIC", "probabilisticSampling": {"samplingRate": 0.5}},
        {"strategyType": "PROBABILISTIC", "probabilisticSampling": {"samplingRate": 0.5}},
        {"strategyType": "BOGUS"},
    ]
    sampler = RemoteControlledSampler(
        None,
        "svc",
        strategy_source=lambda: responses.pop(0),
        metrics_factory=LegacyMetricsFactory(Metrics(count=lambda key, n: counts.update({key: n}))),
        error_reporter=Reporter(),
        sampling_refresh_interval=3600,
    )
    assert [sampler.poll_once() for _ in range(4)] == [True, True, False, False]
    assert counts == {
        "jaeger:sampler_queries.result_ok": 3,
        "jaeger:sampler_queries.result_err": 1,  # the exhausted source
        "jaeger:sampler_updates.result_ok": 1,  # the second, identical strategy changed nothing
        "jaeger:sampler_updates.result_err": 1,
    }
    assert len(errors) == 2
    assert "strategyType" in str(errors[0])
    sampler.close()


def _samplers() -> list[Sampler]:
    clock = ManualClock()
    # A first poll hours away (this list lives for the whole session): no HTTP to an agent.
    quiet: dict[str, Any] = {"sampling_refresh_interval": 86400, "rng": random.Random(1)}
    remote = RemoteControlledSampler(None, "svc", init_sampler=ProbabilisticSampler(0.5), **quiet)
    following = RemoteControlledSampler(None, "svc", **quiet)
    following.update({"operationSampling": {"defaultSamplingProbability": 0.5, "perOperationStrategies": []}})
    return [
        ConstSampler(True),
        *[ProbabilisticSampler(0.5, hash=h) for h in ("jaeger", "otel", "jaeger-go", "fnv1a", "fnv1a-mix")],
        ProbabilisticSampler(1.0),
        RateLimitingSampler(0, clock=clock),
        GuaranteedThroughputProbabilisticSampler("op", 0, 0.5, clock=clock),
        AdaptiveSampler({"defaultSamplingProbability": 0.5, "defaultLowerBoundTracesPerSecond": 0}),
        remote,
        following,
    ]


@pytest.mark.parametrize("sampler", _samplers(), ids=str)
def test_an_int_subclass_whose_operators_raise_is_decided_by_its_value(sampler: Sampler) -> None:
    """Every jaeger sampler decides a hostile int subclass exactly as the plain int, never raising."""
    for value in [0, 1, 2**63 - 1, 2**63 + 5, 2**64 - 1, 2**127 + 3, *range(10**18, 10**18 + 40)]:
        assert sampler.is_sampled(HostileId(value), "op") == sampler.is_sampled(value, "op")
