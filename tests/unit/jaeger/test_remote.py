"""dsampler.jaeger.RemoteControlledSampler on dsampler's remote client: jaeger-client's
decisions and tags over one DSampler, the update semantics of the research note's
checklist C, the raw-dict and wire readings, lazy start, and no reference cycle.
Strategies come from an in-process source driven by poll_once (no thread, no sleep);
HTTP is in tests/integration/test_jaeger_remote_http.py."""

from __future__ import annotations

import gc
import logging
import random
import threading
import weakref
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from jaeger_client import rate_limiter as jaeger_rate_limiter
from jaeger_client import sampler as jc
from jaeger_client.local_agent_net import LocalAgentHTTP

from dsampler import ConfigError, ManualClock
from dsampler import protocol as dr
from dsampler.jaeger import (
    AdaptiveSampler,
    ProbabilisticSampler,
    RateLimitingSampler,
    RemoteControlledSampler,
)
from dsampler.jaeger._strategies import strategy_of
from tests.fakes import Fixed, HostileId, HostileName

IDS = list(map(random.Random(5).getrandbits, [64] * 3000))  # 64-bit Jaeger trace IDs
OPS = ["GET /a", "GET /b", "GET /rare", "POST /c"]


def prob(rate: float) -> dict[str, Any]:
    return {"strategyType": "PROBABILISTIC", "probabilisticSampling": {"samplingRate": rate}}


def limit(n: float) -> dict[str, Any]:
    return {"strategyType": "RATE_LIMITING", "rateLimitingSampling": {"maxTracesPerSecond": n}}


def per_op(default: float, lower: float, **ops: float) -> dict[str, Any]:
    entries = [{"operation": k, "probabilisticSampling": {"samplingRate": v}} for k, v in ops.items()]
    return {
        "defaultSamplingProbability": default,
        "defaultLowerBoundTracesPerSecond": lower,
        "perOperationStrategies": entries,
    }


class Source:
    """An in-process strategy source whose answer the test changes between polls."""

    def __init__(self, response: Any) -> None:
        self.response = response
        self.calls = 0

    def __call__(self) -> Any:
        self.calls += 1
        if isinstance(self.response, Exception):
            raise self.response
        return self.response


def remote(source: Source, clock: ManualClock | None = None, **kwargs: Any) -> RemoteControlledSampler:
    settings: dict[str, Any] = {"sampling_refresh_interval": 3600, "rng": Fixed(0.5)}
    return RemoteControlledSampler(
        None, "svc", strategy_source=source, clock=clock or ManualClock(), **(settings | kwargs)
    )


@pytest.fixture
def sampler() -> Iterator[Callable[..., RemoteControlledSampler]]:
    made: list[RemoteControlledSampler] = []

    def make(source: Source, clock: ManualClock | None = None, **kwargs: Any) -> RemoteControlledSampler:
        made.append(remote(source, clock, **kwargs))
        return made[-1]

    yield make
    for s in made:
        s.close()


@pytest.fixture
def jaeger_clock(monkeypatch: pytest.MonkeyPatch) -> ManualClock:
    """A manual clock for jaeger-client's RateLimiter too, and its random() at 0.5."""
    clock = ManualClock(start=0.0)
    monkeypatch.setattr(jaeger_rate_limiter.RateLimiter, "timestamp", staticmethod(clock.monotonic))
    monkeypatch.setattr(jaeger_rate_limiter, "random", Fixed(0.5))
    return clock


CASES = {
    "probabilistic": (prob(0.3), lambda: jc.ProbabilisticSampler(0.3)),
    "ratelimiting": (limit(2), lambda: jc.RateLimitingSampler(2)),
    "per-operation": (
        {"operationSampling": per_op(0.05, 0.5, **{"GET /a": 0.5, "GET /rare": 0.0})},
        lambda: jc.AdaptiveSampler(per_op(0.05, 0.5, **{"GET /a": 0.5, "GET /rare": 0.0}), 2000),
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_decisions_and_sampled_tags_are_jaeger_clients(
    case: str, jaeger_clock: ManualClock, sampler: Callable[..., RemoteControlledSampler]
) -> None:
    """Per call, 10 ms apart: the same decision as jaeger-client's sampler for the same
    strategy, and on every sampled root exactly its tags (type and param)."""
    response, theirs_factory = CASES[case]
    theirs = theirs_factory()
    ours = sampler(Source(response), jaeger_clock)
    assert ours.poll_once()
    pick = random.Random(3)
    kinds = set()
    for tid in IDS:
        jaeger_clock.advance(0.01)
        op = pick.choice(OPS)
        got, expected = ours.is_sampled(tid, op), theirs.is_sampled(tid, op)
        assert got[0] is expected[0], (tid, op)
        if got[0]:
            assert got[1] == expected[1]
            kinds.add(got[1]["sampler.type"])
    expected_kinds = {"probabilistic": {"probabilistic"}, "ratelimiting": {"ratelimiting"}}
    assert kinds == expected_kinds.get(case, {"probabilistic", "lowerbound"})


def test_a_dropped_trace_carries_no_tags(sampler: Callable[..., RemoteControlledSampler]) -> None:
    """Tags go on sampled roots only (jaeger-client's Tracer never reads the others)."""
    ours = sampler(Source(prob(0.0)))
    assert ours.poll_once()
    assert ours.is_sampled(IDS[0], "op") == (False, {})


def test_identical_responses_change_nothing(sampler: Callable[..., RemoteControlledSampler]) -> None:
    """The same per-operation response again: no new version, no refilled lower bound,
    the same ``sampler`` object, counted as no update."""
    clock = ManualClock()
    ours = sampler(Source({"operationSampling": per_op(0.0, 1.0, a=0.0)}), clock)
    assert ours.poll_once()
    version, described = ours.dsampler.config.version, ours.sampler
    assert ours.is_sampled(IDS[0], "a")[0] is False  # Fixed(0.5): half a credit, not one
    clock.advance(0.5)
    assert ours.is_sampled(IDS[1], "a") == (True, {"sampler.type": "lowerbound", "sampler.param": 0.0})
    for _ in range(3):
        assert ours.poll_once()
    assert ours.dsampler.config.version == version
    assert ours.sampler is described
    assert ours.is_sampled(IDS[2], "a")[0] is False  # the spent credit was not given back


def test_a_changed_strategy_keeps_balances_and_drops_absent_operations(
    sampler: Callable[..., RemoteControlledSampler],
) -> None:
    """Operations kept keep their lower-bound balance (pro-rated), absent ones are
    dropped from the configuration, new ones added; the default changes in place."""
    clock = ManualClock()
    source = Source({"operationSampling": per_op(0.0, 1.0, a=0.0, b=0.0)})
    ours = sampler(source, clock)
    assert ours.poll_once()
    clock.advance(0.5)
    assert ours.is_sampled(IDS[0], "a")[0] is True  # 0.5 + 0.5: the one credit, spent
    source.response = {"operationSampling": per_op(1.0, 2.0, a=0.0, c=0.25)}
    assert ours.poll_once()
    assert set(ours.dsampler.config.operations) == {"a", "c"}
    assert ours.dsampler.config.default_lower_bound_per_second == 2.0
    assert ours.is_sampled(IDS[1], "a")[0] is False  # still empty: not refilled by the update
    assert ours.is_sampled(IDS[2], "b") == (True, {"sampler.type": "probabilistic", "sampler.param": 1.0})
    assert str(ours.sampler) == "AdaptiveSampler(1.000000, 2.000000, 2000)"


def test_a_rate_limit_change_is_pro_rated_not_refilled(
    sampler: Callable[..., RemoteControlledSampler],
) -> None:
    """A drained limiter stays drained when the limit changes (no thundering herd)."""
    source = Source(limit(4))
    ours = sampler(source)
    assert ours.poll_once()
    assert sum(ours.is_sampled(t)[0] for t in IDS[:20]) == 2  # Fixed(0.5) of 4 credits
    source.response = limit(8)
    assert ours.poll_once()
    assert sum(ours.is_sampled(t)[0] for t in IDS[:20]) == 0
    assert str(ours.sampler) == "RateLimitingSampler(8.0)"


def test_raw_dicts_keep_jaeger_clients_defaults_and_bodies_read_as_the_wire() -> None:
    """``{"operationSampling": {}}`` in code means 0.001 and 1/600 (jaeger-client); the
    same bytes from a server mean 0 (proto3), as every Jaeger server intends."""
    raw = strategy_of({"operationSampling": {}})
    assert raw == dr.PerOperationStrategy(0.001, 1 / 600)
    assert strategy_of(b'{"operationSampling": {}}') == dr.PerOperationStrategy(0.0, 0.0)
    assert strategy_of({"probabilisticSampling": {}}) == dr.ProbabilisticStrategy(0.001)
    assert strategy_of(b'{"probabilisticSampling": {}}') == dr.ProbabilisticStrategy(0.0)
    entry = {"perOperationStrategies": [{"operation": "x"}]}
    assert AdaptiveSampler(entry).samplers["x"].rate == 0.001


@pytest.mark.parametrize(
    "given",
    [
        dr.ProbabilisticStrategy(0.25),
        dr.StrategyResponse.of(dr.ProbabilisticStrategy(0.25)),
        prob(0.25),
        b'{"strategyType":"PROBABILISTIC","probabilisticSampling":{"samplingRate":0.25}}',
        {"strategyType": 0, "probabilisticSampling": {"samplingRate": "0.25"}},
    ],
    ids=["typed", "response", "dict", "body", "legacy enum, number as text"],
)
def test_update_takes_typed_strategies_dicts_and_bodies(given: object) -> None:
    """Every form reaches the same strategy through the one parser."""
    ours = RemoteControlledSampler(None, "svc")
    ours.update(given)
    assert ours.strategy == dr.ProbabilisticStrategy(0.25)
    assert str(ours) == "RemoteControlledSampler(svc, ProbabilisticSampler(0.25))"
    assert ours.dsampler.config.rate == 0.25


@pytest.mark.parametrize(
    ("given", "field"),
    [
        (b'{"rateLimitingSampling":{"maxTracesPerSecond":500}}', "rateLimitingSampling.maxTracesPerSecond"),
        (dr.RateLimitingStrategy(1000), "rateLimitingSampling.maxTracesPerSecond"),
        (b'{"strategyType":"PROBABILISTIC"}', "response"),
        (b"not json", "response"),
        (
            {"operationSampling": {"perOperationStrategies": [5]}},
            "operationSampling.perOperationStrategies[0]",
        ),
    ],
)
def test_refused_strategies_name_the_field_and_keep_the_init_sampler(given: object, field: str) -> None:
    """jaeger-client's 500/s cap holds for every form; nothing changes on a refusal."""
    ours = RemoteControlledSampler(None, "svc")
    with pytest.raises(ConfigError) as info:
        ours.update(given)
    assert info.value.field == field
    assert (ours.strategy, str(ours.sampler)) == (None, "ProbabilisticSampler(0.001)")


def test_a_poll_after_update_applies_the_sources_strategy_again(
    sampler: Callable[..., RemoteControlledSampler],
) -> None:
    """update() in code is overridden by the next poll, even of the strategy polled before."""
    ours = sampler(Source(prob(0.5)))
    assert ours.poll_once()
    ours.update(prob(0.1))
    assert ours.dsampler.config.rate == 0.1
    assert ours.poll_once()
    assert ours.dsampler.config.rate == 0.5


def test_a_failing_source_keeps_the_last_strategy(sampler: Callable[..., RemoteControlledSampler]) -> None:
    """A source that raises, then answers garbage, leaves the strategy in force; it recovers."""
    source = Source(prob(0.5))
    ours = sampler(source)
    assert ours.poll_once()
    for bad in (RuntimeError("agent down"), {"strategyType": "ADAPTIVE"}, [1, 2], {1: object()}):
        source.response = bad
        assert ours.poll_once() is False
        assert ours.dsampler.config.rate == 0.5
    source.response = prob(0.2)
    assert ours.poll_once()
    assert ours.dsampler.config.rate == 0.2
    assert (ours.polls, ours.failures) == (6, 4)


def test_the_poller_starts_at_the_first_decision_and_stops_at_close() -> None:
    """Built and unused, it runs no thread; the first decision starts one; close stops it."""

    def pollers() -> int:
        return sum(t.name == "dsampler-jaeger-poll" for t in threading.enumerate())

    before = pollers()
    ours = RemoteControlledSampler(
        None, "svc", strategy_source=Source(prob(0.5)), sampling_refresh_interval=3600
    )
    assert (pollers(), ours.running) == (before, True)
    ours.is_sampled(IDS[0], "op")
    assert pollers() == before + 1
    ours.close()
    ours.close()
    assert (pollers(), ours.running) == (before, False)
    assert ours.poll_once() is False
    assert ours.is_sampled(IDS[0], "op") == ProbabilisticSampler(0.001).is_sampled(IDS[0], "op")


class SpyLock:
    """A real lock that counts its acquisitions."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.count = 0

    def __enter__(self) -> bool:
        self.count += 1
        return self.lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self.lock.release()


def test_decisions_after_the_first_take_no_lock(sampler: Callable[..., RemoteControlledSampler]) -> None:
    """Only the first decision (which starts the poller) touches the sampler's lock."""
    ours = sampler(Source({"operationSampling": per_op(0.1, 1.0, a=0.5)}))
    ours.is_sampled(IDS[0], "a")
    assert ours.poll_once()
    spy = SpyLock()
    ours._guard.lock = spy  # type: ignore[assignment]
    for tid in IDS[:500]:
        ours.is_sampled(tid, "a")
        ours.is_sampled(tid, "new")
    assert spy.count == 0


def test_a_sampler_nobody_keeps_is_freed_without_the_garbage_collector() -> None:
    """No reference cycle: dropping a started sampler frees it, and its poller thread
    ends at once, not at its next wake-up (the seeded first poll is 50 minutes away)."""
    gc.disable()
    try:
        ours = RemoteControlledSampler(
            None,
            "svc",
            strategy_source=Source(prob(0.5)),
            sampling_refresh_interval=3600,
            rng=random.Random(0),
        )
        ours.is_sampled(IDS[0], "op")
        assert ours.poll_once()
        thread = ours._follower._thread._thread
        assert thread is not None
        assert thread.is_alive()
        ref = weakref.ref(ours)
        del ours
        assert ref() is None
        thread.join(10)
        assert not thread.is_alive()
    finally:
        gc.enable()


def test_hostile_ids_and_names_are_decided_by_their_values(
    sampler: Callable[..., RemoteControlledSampler],
) -> None:
    """Over the DSampler: an int subclass by its value, a str subclass by its text, a
    non-string operation at the default rate; no fault is counted, nothing raises."""
    ours = sampler(Source({"operationSampling": per_op(0.0, 0.0, a=1.0)}))
    assert ours.poll_once()
    for tid in IDS[:50]:
        assert ours.is_sampled(HostileId(tid), "a") == ours.is_sampled(tid, "a")
    assert ours.is_sampled(IDS[0], HostileName("a"))[0] is True
    assert ours.is_sampled(IDS[0], ["a"])[0] is False  # type: ignore[arg-type]
    assert ours.is_sampled(None, "a") == (False, {})  # type: ignore[arg-type]
    assert ours.dsampler.faults == 0


def test_operations_past_max_operations_are_left_out_and_logged(
    sampler: Callable[..., RemoteControlledSampler], caplog: pytest.LogCaptureFixture
) -> None:
    """A strategy longer than max_operations keeps the first ones; the rest go to the default."""
    ops = {f"op{i}": 1.0 for i in range(5)}
    ours = sampler(Source({"operationSampling": per_op(0.0, 0.0, **ops)}), max_operations=3)
    with caplog.at_level(logging.WARNING, logger="dsampler.jaeger"):
        assert ours.poll_once()
    assert list(ours.dsampler.config.operations) == ["op0", "op1", "op2"]
    assert ours.is_sampled(IDS[0], "op4")[0] is False
    assert "2 operations more than max_operations (3)" in caplog.text


def test_the_agent_comes_from_the_arguments_or_jaeger_clients_channel() -> None:
    """sampling_host/sampling_port, else the channel's agent, else localhost:5778."""
    channel = SimpleNamespace(local_agent_http=LocalAgentHTTP("agent.internal", 6000))
    assert RemoteControlledSampler(channel, "s").endpoint == "http://agent.internal:6000/sampling"
    assert (
        RemoteControlledSampler(channel, "s", sampling_port=7).endpoint == "http://agent.internal:7/sampling"
    )
    assert RemoteControlledSampler(None, "s", sampling_host="::1").endpoint == "http://[::1]:5778/sampling"
    assert RemoteControlledSampler().endpoint == "http://localhost:5778/sampling"
    full = RemoteControlledSampler(None, "s", endpoint="http://collector:14268/api/sampling")
    assert full.endpoint == "http://collector:14268/api/sampling"
    with pytest.raises(ConfigError) as info:
        RemoteControlledSampler(None, "s", sampling_port=0)
    assert info.value.field == "sampling_port"


def test_adaptive_sampler_takes_the_typed_model() -> None:
    """AdaptiveSampler accepts a dr.PerOperationStrategy (and updates from one); a strategy
    that is not per-operation is refused naming the argument."""
    typed = dr.PerOperationStrategy(0.2, 0.5, (dr.OperationRate("a", 0.7),))
    sampler = AdaptiveSampler(typed, 10)
    assert sampler == AdaptiveSampler(per_op(0.2, 0.5, a=0.7), 10)
    sampler.update(dr.PerOperationStrategy(0.3, 0.5, (dr.OperationRate("b", 0.1),)))
    assert (sorted(sampler.samplers), sampler.default_sampling_probability) == (["b"], 0.3)
    with pytest.raises(ConfigError) as info:
        AdaptiveSampler(dr.ProbabilisticStrategy(0.1))  # type: ignore[arg-type]
    assert info.value.field == "strategies"


def test_sampler_describes_the_strategy_in_force(sampler: Callable[..., RemoteControlledSampler]) -> None:
    """``sampler`` is jaeger-client's sampler of the strategy, equal to what jaeger-client
    would build, rebuilt only when the strategy changes."""
    source = Source(limit(3))
    ours = sampler(source)
    assert ours.poll_once()
    assert isinstance(ours.sampler, RateLimitingSampler)
    assert ours.sampler is ours.sampler
    source.response = {"operationSampling": per_op(0.1, 0.5, x=0.2)}
    assert ours.poll_once()
    assert ours.sampler == AdaptiveSampler(per_op(0.1, 0.5, x=0.2))
