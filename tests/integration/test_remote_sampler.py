"""JaegerRemoteSampler's decisions and updates: DSampler's semantics under a remote
strategy, driven by poll_once() against a real server, with a manual clock."""

from __future__ import annotations

import gc
import logging
import weakref
from typing import Any

import pytest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, TraceIdRatioBased

from dsampler import ManualClock
from dsampler.config import SamplingConfig
from dsampler.protocol import PerOperationStrategy, ProbabilisticStrategy, RateLimitingStrategy
from dsampler.remote import JaegerRemoteSampler, PollOutcome
from dsampler.remote._poll import StrategyPoller
from tests.remote_servers import Answer, RawServer, body, free_port, serving

pytestmark = pytest.mark.slow

IDS = [(i * 0x9E3779B97F4A7C15 + 7) % (1 << 128) for i in range(1, 3000)]


def prob(rate: float) -> bytes:
    return body({"strategyType": "PROBABILISTIC", "probabilisticSampling": {"samplingRate": rate}})


def limit(n: float) -> bytes:
    return body({"strategyType": "RATE_LIMITING", "rateLimitingSampling": {"maxTracesPerSecond": n}})


def per_op(default: float, lower: float, **ops: float) -> bytes:
    entries = [{"operation": k, "probabilisticSampling": {"samplingRate": v}} for k, v in ops.items()]
    return body(
        {
            "strategyType": "PROBABILISTIC",
            "operationSampling": {
                "defaultSamplingProbability": default,
                "defaultLowerBoundTracesPerSecond": lower,
                "perOperationStrategies": entries,
            },
        }
    )


def make(server: RawServer, **kwargs: Any) -> JaegerRemoteSampler:
    settings: dict[str, Any] = {
        "service_name": "svc",
        "request_timeout_s": 2.0,
        "start": False,
        "resource": {},
    }
    return JaegerRemoteSampler(endpoint=server.url, **(settings | kwargs))


def sampled(sampler: JaegerRemoteSampler, name: str = "op", ids: list[int] = IDS) -> list[bool]:
    return [sampler.should_sample(None, tid, name).decision.is_sampled() for tid in ids]


def test_probabilistic_decisions_are_otels_trace_id_ratio_based() -> None:
    """With the default `otel` rule every decision equals TraceIdRatioBased's."""
    with serving(Answer(prob(0.3))) as server:
        sampler = make(server)
        sampler.poll_once()
        otel = TraceIdRatioBased(0.3)
        assert sampled(sampler) == [otel.should_sample(None, t, "op").decision.is_sampled() for t in IDS]


def test_an_identical_response_publishes_nothing_and_keeps_the_bucket() -> None:
    """Rate limiting 2/s with a frozen clock: two admitted; re-polling the same strategy
    keeps the version and the spent bucket (no refill on poll)."""
    clock = ManualClock()
    with serving(Answer(limit(2))) as server:
        sampler = make(server, clock=clock)
        assert sampler.poll_once() is PollOutcome.APPLIED
        version = sampler.config.version
        assert sampled(sampler, ids=IDS[:5]) == [True, True, False, False, False]
        for _ in range(3):
            assert sampler.poll_once() is PollOutcome.UNCHANGED
        assert sampler.config.version == version
        assert sampled(sampler, ids=IDS[:3]) == [False, False, False]
        clock.advance(0.5)
        assert sampled(sampler, ids=IDS[:2]) == [True, False]


def test_a_new_rate_limit_updates_the_bucket_in_place() -> None:
    """2/s -> 4/s: a new version, the spent balance is pro-rated (0 stays 0), and the new
    rate refills it."""
    clock = ManualClock()
    with serving(Answer(limit(2))) as server:
        sampler = make(server, clock=clock)
        sampler.poll_once()
        assert sum(sampled(sampler, ids=IDS[:10])) == 2
        server.behaviour = Answer(limit(4))
        assert sampler.poll_once() is PollOutcome.APPLIED
        assert sampler.config.traces_per_second == 4.0
        assert sum(sampled(sampler, ids=IDS[:10])) == 0
        clock.advance(0.5)
        assert sum(sampled(sampler, ids=IDS[:10])) == 2


def test_rate_limit_zero_never_samples() -> None:
    """maxTracesPerSecond 0 starts empty and never admits."""
    clock = ManualClock()
    with serving(Answer(limit(0))) as server:
        sampler = make(server, clock=clock)
        sampler.poll_once()
        clock.advance(100)
        assert not any(sampled(sampler, ids=IDS[:50]))


def test_per_operation_lower_bound_survives_identical_polls() -> None:
    """An operation at rate 0 with a 1/s lower bound: the first call is sampled (tagged
    lowerbound), the next is not, an identical poll does not refill, a second does."""
    clock = ManualClock()
    with serving(Answer(per_op(0.0, 1.0, rare=0.0))) as server:
        sampler = make(server, clock=clock)
        assert sampler.poll_once() is PollOutcome.APPLIED
        first = sampler.should_sample(None, IDS[0], "rare")
        assert first.decision.is_sampled()
        assert first.attributes["sampler.type"] == "lowerbound"
        assert not sampler.should_sample(None, IDS[1], "rare").decision.is_sampled()
        assert sampler.poll_once() is PollOutcome.UNCHANGED
        assert not sampler.should_sample(None, IDS[2], "rare").decision.is_sampled()
        clock.advance(1.0)
        assert sampler.should_sample(None, IDS[3], "rare").decision.is_sampled()


def test_per_operation_rates_and_default_decide_by_span_name() -> None:
    """Listed operations at their rate, others at the default, unlisted ones tracked with
    the lower bound; an update drops operations absent from it."""
    with serving(Answer(per_op(0.0, 0.0, always=1.0, never=0.0))) as server:
        sampler = make(server)
        sampler.poll_once()
        assert all(sampled(sampler, "always", IDS[:100]))
        assert not any(sampled(sampler, "never", IDS[:100]))
        assert not any(sampled(sampler, "other", IDS[:100]))
        server.behaviour = Answer(per_op(1.0, 0.0, never=0.0))
        assert sampler.poll_once() is PollOutcome.APPLIED
        assert set(sampler.config.operations) == {"never"}
        assert all(sampled(sampler, "always", IDS[:100]))  # now at the default rate 1


def test_type_changes_move_between_the_three_strategies() -> None:
    """probabilistic -> rate limiting -> per-operation -> probabilistic, one version each."""
    with serving(Answer(prob(0.1))) as server:
        sampler = make(server)
        versions = []
        for answer, expected in [
            (prob(0.1), ProbabilisticStrategy(0.1)),
            (limit(5), RateLimitingStrategy(5)),
            (per_op(0.2, 0.0, a=0.5), None),
            (prob(0.1), ProbabilisticStrategy(0.1)),
        ]:
            server.behaviour = Answer(answer)
            assert sampler.poll_once() is PollOutcome.APPLIED
            if expected is not None:
                assert sampler.strategy == expected
            versions.append(sampler.config.version)
        assert versions == [2, 3, 4, 5]
        assert sampler.config.traces_per_second is None
        assert not sampler.config.operations


def test_the_initial_sampler_decides_until_the_first_strategy() -> None:
    """Default: rate 0.001 with the otel rule; an OTel sampler given decides until the
    first strategy and never after; a Strategy given is applied at once."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/sampling"
    default = JaegerRemoteSampler("svc", url, start=False, resource={})
    assert default.config.rate == 0.001
    assert default.config.hash == "otel"
    off = JaegerRemoteSampler("svc", url, initial_sampler=ALWAYS_OFF, start=False, resource={})
    with serving(Answer(prob(1.0)), port=port):
        assert not any(sampled(off, ids=IDS[:50]))
        assert off.poll_once() is PollOutcome.APPLIED
        assert all(sampled(off, ids=IDS[:50]))
    given = JaegerRemoteSampler("svc", url, initial_sampler=RateLimitingStrategy(3), start=False, resource={})
    assert (given.config.rate, given.config.traces_per_second) == (1.0, 3.0)
    rate = JaegerRemoteSampler("svc", url, initial_sampler=0.25, start=False, resource={})
    assert rate.config.rate == 0.25


def test_a_first_strategy_equal_to_the_initial_one_publishes_nothing() -> None:
    """initial_sampler=0.25 then a 0.25 strategy: applied, but no new version."""
    with serving(Answer(prob(0.25))) as server:
        sampler = make(server, initial_sampler=0.25)
        assert sampler.poll_once() is PollOutcome.UNCHANGED
        assert sampler.config.version == 1
        assert sampler.strategy == ProbabilisticStrategy(0.25)


def test_the_service_name_comes_from_the_resource(monkeypatch: pytest.MonkeyPatch) -> None:
    """OTEL_SERVICE_NAME wins, then service.name in OTEL_RESOURCE_ATTRIBUTES, then an
    explicit resource; an explicit service_name beats them all."""
    monkeypatch.delenv("OTEL_SERVICE_NAME", raising=False)
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "service.name=from-attributes,team=x")
    url = f"http://127.0.0.1:{free_port()}"
    assert JaegerRemoteSampler(endpoint=url, start=False).service_name == "from-attributes"
    monkeypatch.setenv("OTEL_SERVICE_NAME", "from-env")
    assert JaegerRemoteSampler(endpoint=url, start=False).service_name == "from-env"
    resource = Resource.create({"service.name": "explicit-resource"})
    assert (
        JaegerRemoteSampler(endpoint=url, start=False, resource=resource).service_name == "explicit-resource"
    )
    assert JaegerRemoteSampler("explicit", url, start=False, resource=resource).service_name == "explicit"
    with serving(Answer(prob(0.5))) as server:
        make(server, service_name=None, resource={"service.name": "checkout"}).poll_once()
    assert b"service=checkout " in server.requests[-1]


def test_sampled_roots_carry_jaeger_tags_and_drops_carry_none() -> None:
    """sampler.type / sampler.param on sampled roots (what Jaeger's adaptive sampling
    reads); a dropped decision has no attributes."""
    with serving(Answer(prob(0.5))) as server:
        sampler = make(server)
        sampler.poll_once()
        results = [sampler.should_sample(None, tid, "op") for tid in IDS[:200]]
    kept = [r for r in results if r.decision.is_sampled()]
    assert kept
    assert all(dict(r.attributes) == {"sampler.type": "probabilistic", "sampler.param": 0.5} for r in kept)
    assert all(not r.attributes for r in results if not r.decision.is_sampled())


def test_sampler_tags_false_adds_no_attributes() -> None:
    """sampler_tags=False: sampled roots carry no sampler.* attributes."""
    with serving(Answer(prob(1.0))) as server:
        sampler = make(server, sampler_tags=False)
        sampler.poll_once()
        assert not sampler.should_sample(None, IDS[0], "op").attributes


def test_rate_limited_decisions_are_tagged_ratelimiting() -> None:
    """A rate-limiting strategy's sampled roots say ratelimiting and the limit."""
    with serving(Answer(limit(5))) as server:
        sampler = make(server)
        sampler.poll_once()
        result = sampler.should_sample(None, IDS[0], "op")
    assert dict(result.attributes) == {"sampler.type": "ratelimiting", "sampler.param": 5.0}


def test_decisions_are_dsamplers_own_bound_method() -> None:
    """Nothing sits between the SDK and DSampler: should_sample is DSampler's method."""
    with serving(Answer(prob(0.5))) as server:
        sampler = make(server)
        sampler.poll_once()
    assert sampler.should_sample == sampler.dsampler.should_sample
    assert type(sampler).should_sample(sampler, None, IDS[0], "op").decision == (
        sampler.dsampler.should_sample(None, IDS[0], "op").decision
    )


def test_description_is_stable() -> None:
    """get_description names the service and endpoint and does not change with polls."""
    with serving(Answer(prob(0.5))) as server:
        sampler = make(server, parent_based=False)
        before = sampler.get_description()
        sampler.poll_once()
        assert sampler.get_description() == before
    assert before == (
        f"JaegerRemoteSampler{{service=svc,endpoint={server.url},polling_interval_s=60,hash=otel,parent_based=False}}"
    )


def test_failures_back_off_with_jitter_up_to_the_interval(caplog: pytest.LogCaptureFixture) -> None:
    """Consecutive failures wait 1, 2, 4 ... s (halved at random) capped at the interval;
    one warning, then debug lines for the same error; success waits 90-100% of it."""
    import random

    poller = StrategyPoller(
        _down_fetcher(), "svc", lambda s: True, interval_s=10.0, jitter=0.1, rng=random.Random(1)
    )
    delays = []
    with caplog.at_level(logging.DEBUG, "dsampler.remote"):
        for _ in range(6):
            assert poller.poll_once() is PollOutcome.FAILED
            delays.append(poller.next_delay_s())
    bounds = [1, 2, 4, 8, 10, 10]
    assert all(b / 2 <= d <= b for d, b in zip(delays, bounds, strict=True))
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    poller.consecutive_failures = 0
    assert all(9.0 <= poller.next_delay_s() <= 10.0 for _ in range(100))


def test_an_unchanged_response_is_not_parsed_again() -> None:
    """A large per-operation strategy (about 1 MB here; 3.8 MiB cost a second of CPU per
    poll) polled again unchanged is recognised by its bytes before it is parsed: one
    parse for five polls. A changed body is parsed; the strategy in force is still
    compared, so a strategy applied in between is replaced by the polled one again; a
    refused body is refused again, with its error, without a parse."""
    from dsampler.protocol import parse_response
    from dsampler.protocol._strategy import StrategyResponse
    from dsampler.remote import HttpFetcher

    parsed: list[int] = []

    def counting_parse(data: bytes) -> StrategyResponse:
        parsed.append(len(data))
        return parse_response(data)

    applied: list[object] = []
    large = per_op(0.25, 0.0, **{f"op-{i:05d}": 0.5 for i in range(14_000)})
    assert len(large) > 1_000_000
    answer = Answer(large)
    with serving(answer) as server:
        fetcher = HttpFetcher(server.url, timeout_s=10)
        poller = StrategyPoller(fetcher, "svc", lambda s: applied.append(s) is None, parse=counting_parse)
        outcomes = [poller.poll_once() for _ in range(5)]
        assert outcomes == [PollOutcome.APPLIED] + [PollOutcome.UNCHANGED] * 4
        assert parsed == [len(large)]
        polled = poller.strategy
        assert poller.apply(ProbabilisticStrategy(0.1))
        assert poller.poll_once() is PollOutcome.APPLIED  # the same body, back in force
        assert poller.strategy == polled
        assert len(parsed) == 1
        answer.body = prob(0.5)
        assert poller.poll_once() is PollOutcome.APPLIED
        assert poller.strategy == ProbabilisticStrategy(0.5)
        answer.body = b'{"strategyType": 7}'
        assert [poller.poll_once() for _ in range(3)] == [PollOutcome.FAILED] * 3
        assert poller.last_error is not None
        assert "strategyType" in poller.last_error
        assert len(parsed) == 3
    assert len(applied) == 4  # large, 0.1 (applied in code), large again, 0.5


def _down_fetcher() -> Any:
    from dsampler.remote import HttpFetcher

    return HttpFetcher(f"http://127.0.0.1:{free_port()}/sampling", timeout_s=0.5)


def test_invalid_arguments_are_refused_by_name() -> None:
    """Bad interval, jitter, rate, initial sampler, hash: ConfigError naming each."""
    from dsampler.errors import ConfigError

    url = f"http://127.0.0.1:{free_port()}"
    for kwargs, field in [
        ({"polling_interval_s": 0}, "polling_interval_s"),
        ({"jitter": 2}, "jitter"),
        ({"initial_sampler": 1.5}, "initial_sampler"),
        ({"initial_sampler": "0.1"}, "initial_sampler"),
        ({"request_timeout_s": -1}, "request_timeout_s"),
        ({"max_operations": -1}, "max_operations"),
        ({"hash": "md5"}, "hash"),
        ({"service_name": 7}, "service_name"),
    ]:
        with pytest.raises(ConfigError) as info:
            JaegerRemoteSampler(endpoint=url, start=False, resource={}, **kwargs)
        assert info.value.field == field, kwargs


def test_it_is_a_config_store_like_dsampler() -> None:
    """config and history come from the DSampler; every applied strategy is a version."""
    with serving(Answer(prob(0.5))) as server:
        sampler = make(server)
        sampler.poll_once()
    assert isinstance(sampler.config, SamplingConfig)
    assert [c.rate for c in sampler.dsampler.history] == [0.001, 0.5]
    assert isinstance(sampler.strategy, ProbabilisticStrategy)
    assert not isinstance(sampler.strategy, PerOperationStrategy)


def test_it_is_a_root_for_opentelemetrys_parent_based() -> None:
    """ParentBased(root=JaegerRemoteSampler(parent_based=False)) decides roots by the
    strategy and follows parents for children."""
    from opentelemetry.sdk.trace.sampling import ParentBased
    from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context

    with serving(Answer(prob(0.0))) as server:
        root = make(server, parent_based=False)
        root.poll_once()
    sampler = ParentBased(root=root)
    assert not any(sampler.should_sample(None, t, "op").decision.is_sampled() for t in IDS[:100])
    parent = SpanContext(IDS[0], 0xABC, True, TraceFlags(TraceFlags.SAMPLED))
    assert sampler.should_sample(
        set_span_in_context(NonRecordingSpan(parent)), IDS[0], "op"
    ).decision.is_sampled()


def test_the_first_poll_can_be_delayed() -> None:
    """first_poll_delay_s holds the first request back; poll_once still works at once."""
    with serving(Answer(prob(0.5))) as server:
        sampler = make(server, start=True, first_poll_delay_s=3600)
        assert not server.seen.wait(0.3)
        assert sampler.poll_once() is PollOutcome.APPLIED
        sampler.close()


def test_a_service_name_that_is_not_utf8_is_refused_at_construction(monkeypatch: pytest.MonkeyPatch) -> None:
    """OTEL_SERVICE_NAME with a byte that is not UTF-8 reaches Python as a lone surrogate
    (surrogateescape), which no URL can carry: refused by name when the sampler is built,
    not a UnicodeEncodeError out of every poll."""
    from dsampler.errors import ConfigError

    url = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("OTEL_SERVICE_NAME", "checkout\udcff")
    for kwargs in ({}, {"service_name": "\ud800"}, {"resource": {"service.name": "a\udcffb"}}):
        with pytest.raises(ConfigError) as info:
            JaegerRemoteSampler(endpoint=url, start=False, **kwargs)  # type: ignore[arg-type]
        assert info.value.field == "service_name", kwargs
        assert "UTF-8" in info.value.problem


def test_a_started_sampler_nobody_keeps_is_freed_without_the_garbage_collector() -> None:
    """No reference cycle through the poller's callback: a dropped, never-closed sampler
    is freed by reference counting alone, and its poller thread ends at once rather
    than at its next wake-up an hour later."""
    gc.disable()
    try:
        with serving(Answer(prob(0.25))) as server:
            sampler = JaegerRemoteSampler(
                "svc", server.url, polling_interval_s=3600, first_poll_delay_s=3600, resource={}
            )
            assert sampler.poll_once() is PollOutcome.APPLIED
            thread = sampler.poller._thread._thread
            assert thread is not None
            assert thread.is_alive()
            ref, poller = weakref.ref(sampler), weakref.ref(sampler.poller)
            del sampler
            assert ref() is None
            assert poller() is None
            thread.join(10)
            assert not thread.is_alive()
    finally:
        gc.enable()
