"""The OpenTelemetry RateLimitingSampler: its bucket, its rate, its faults."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any

import pytest
from opentelemetry.sdk.trace.sampling import Decision
from opentelemetry.trace.span import TraceState

from dsampler import (
    ConfigError,
    ManualClock,
    ParentBasedSampler,
    RateLimitingSampler,
)
from tests.conftest import Traced
from tests.parents import ExplodingContext, remote_parent

_RNG = random.Random(3)
IDS = [_RNG.getrandbits(128) for _ in range(300)]


def kept(sampler: Any, name: str = "op", ids: list[int] = IDS) -> int:
    return sum(sampler.should_sample(None, t, name).decision.is_sampled() for t in ids)


def test_rate_limiting_sampler_admits_its_bucket_then_its_rate() -> None:
    """Full bucket of max(rate, 1) first, then rate per second; no attributes by default."""
    clock = ManualClock()
    sampler = RateLimitingSampler(4, clock=clock)
    assert kept(sampler) == 4
    clock.advance(0.5)
    results = [sampler.should_sample(None, t, "x") for t in IDS[:10]]
    assert [r.decision.is_sampled() for r in results].count(True) == 2
    assert dict(results[0].attributes) == {}
    assert sampler.get_description() == "RateLimitingSampler{4.0}"
    assert sampler.traces_per_second == 4.0


def test_rate_limiting_one_a_minute_and_zero() -> None:
    """1/60 admits one trace a minute; 0 admits none."""
    clock = ManualClock()
    slow, never = RateLimitingSampler(1 / 60, clock=clock), RateLimitingSampler(0, clock=clock)
    assert (kept(slow), kept(never)) == (1, 0)
    clock.advance(60)
    assert (kept(slow), kept(never)) == (1, 0)


def test_rate_limiting_keeps_tracestate_and_attributes() -> None:
    """The parent's tracestate comes back with both decisions; span attributes are kept."""
    sampler = RateLimitingSampler(1, clock=ManualClock())
    ts = TraceState([("vendor", "x")])
    first = sampler.should_sample(remote_parent(IDS[0], False, ts), IDS[0], "c", None, {"k": 1})
    second = sampler.should_sample(remote_parent(IDS[1], False, ts), IDS[1], "c")
    assert (first.decision, first.trace_state, first.attributes["k"]) == (Decision.RECORD_AND_SAMPLE, ts, 1)
    assert (second.decision, second.trace_state) == (Decision.DROP, ts)


@pytest.mark.parametrize("bad", [-1, float("nan"), float("inf"), "10", None, True])
def test_rate_limiting_bad_rates(bad: Any) -> None:
    """Invalid rates raise ConfigError naming traces_per_second."""
    with pytest.raises(ConfigError, match=r"^traces_per_second: "):
        RateLimitingSampler(bad)


def test_rate_limiting_fault_decides_as_a_root() -> None:
    """An unreadable parent is a counted fault; the bucket still decides."""
    sampler = RateLimitingSampler(1, clock=ManualClock())
    assert sampler.should_sample(ExplodingContext(), IDS[0], "x").decision is Decision.RECORD_AND_SAMPLE
    assert sampler.should_sample(ExplodingContext(), IDS[1], "x").decision is Decision.DROP
    assert sampler.faults == 2


@pytest.mark.parametrize("wrap", [lambda s: s, ParentBasedSampler])
def test_eight_threads_frozen_clock_admit_exactly_the_balance(wrap: Callable[[Any], Any]) -> None:
    """8 threads share one limiter: exactly max_balance decisions are sampled."""
    sampler = wrap(RateLimitingSampler(250, clock=ManualClock()))
    counts = [0] * 8
    barrier = threading.Barrier(8)

    def worker(i: int) -> None:
        barrier.wait()
        counts[i] = sum(sampler.should_sample(None, t, "x").decision.is_sampled() for t in IDS * 20)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(counts) == 250


def test_rate_limiting_in_a_real_provider(traced: Callable[[Any], Traced]) -> None:
    """Through a TracerProvider with a frozen clock: exactly the bucket, all whole traces."""
    t = traced(ParentBasedSampler(RateLimitingSampler(5, clock=ManualClock())))
    for i in range(100):
        with t.tracer.start_as_current_span(f"root-{i}"), t.tracer.start_as_current_span("child"):
            pass
    spans = t.finished()
    assert len(spans) == 10
    assert all(not s.attributes for s in spans)  # OTel-neutral: no sampler attributes
