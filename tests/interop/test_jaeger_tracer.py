"""Inside a real jaeger_client.Tracer: each dsampler.jaeger sampler keeps the same spans,
with the same sampler tags, as jaeger-client's own sampler on the same IDs and clock."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from jaeger_client import Tracer
from jaeger_client import rate_limiter as jaeger_rate_limiter
from jaeger_client import sampler as jc
from jaeger_client.reporter import InMemoryReporter

from dsampler import ManualClock
from dsampler import jaeger as ds
from tests.fakes import Fixed, sampler_tags

OPERATIONS = ["GET /a", "GET /b", "POST /c", "GET /rare"]


def run(
    sampler: Any, clock: ManualClock, seed: int, spans: int = 3000
) -> list[tuple[int, str, dict[str, Any]]]:
    """Start root spans through a real Tracer, 10 ms apart; return (trace ID, op, sampler tags) kept."""
    reporter = InMemoryReporter()
    tracer = Tracer("svc", reporter=reporter, sampler=sampler)
    tracer.random = random.Random(seed)  # the same trace IDs for both runs
    pick = random.Random(seed + 1)
    for _ in range(spans):
        clock.advance(0.01)
        tracer.start_span(pick.choice(OPERATIONS)).finish()
    tracer.close()
    kept = []
    for span in reporter.get_spans():
        if span.is_sampled():
            kept.append((span.trace_id, span.operation_name, sampler_tags(span)))
    return kept


@pytest.fixture
def clocks(monkeypatch: pytest.MonkeyPatch) -> Callable[[], ManualClock]:
    """A manual clock that drives jaeger-client's RateLimiter too (it reads time.time())."""

    def make() -> ManualClock:
        clock = ManualClock(start=0.0)
        monkeypatch.setattr(jaeger_rate_limiter.RateLimiter, "timestamp", staticmethod(clock.monotonic))
        monkeypatch.setattr(jaeger_rate_limiter, "random", Fixed(0.5))  # initial balance: half full
        return clock

    return make


def strategies() -> dict[str, Any]:
    return {
        "defaultSamplingProbability": 0.05,
        "defaultLowerBoundTracesPerSecond": 0.5,
        "perOperationStrategies": [
            {"operation": "GET /a", "probabilisticSampling": {"samplingRate": 0.5}},
            {"operation": "GET /rare", "probabilisticSampling": {"samplingRate": 0.0}},
        ],
    }


CASES: list[tuple[str, Callable[[ManualClock], Any], Callable[[ManualClock], Any]]] = [
    ("const", lambda c: jc.ConstSampler(True), lambda c: ds.ConstSampler(True)),
    ("probabilistic", lambda c: jc.ProbabilisticSampler(0.2), lambda c: ds.ProbabilisticSampler(0.2)),
    (
        "ratelimiting",
        lambda c: jc.RateLimitingSampler(3),
        lambda c: ds.RateLimitingSampler(3, clock=c, rng=Fixed(0.5)),
    ),
    (
        "guaranteed",
        lambda c: jc.GuaranteedThroughputProbabilisticSampler("GET /a", 2.0, 0.1),
        lambda c: ds.GuaranteedThroughputProbabilisticSampler("GET /a", 2.0, 0.1, clock=c, rng=Fixed(0.5)),
    ),
    (
        "adaptive",
        lambda c: jc.AdaptiveSampler(strategies(), 3),
        lambda c: ds.AdaptiveSampler(strategies(), 3, clock=c, rng=Fixed(0.5)),
    ),
]


@pytest.mark.parametrize(("name", "theirs", "ours"), CASES, ids=[c[0] for c in CASES])
def test_same_spans_and_tags_as_jaeger_client(
    name: str,
    theirs: Callable[[ManualClock], Any],
    ours: Callable[[ManualClock], Any],
    clocks: Callable[[], ManualClock],
) -> None:
    """Same trace IDs, same clock, same initial balances: the same kept spans and tags."""
    clock_a = clocks()
    expected = run(theirs(clock_a), clock_a, seed=17)
    clock_b = clocks()
    got = run(ours(clock_b), clock_b, seed=17)
    assert got == expected
    assert len(got) > 0
    if name != "const":
        assert len(got) < 3000


def test_remote_controlled_sampler_in_a_tracer(clocks: Callable[[], ManualClock]) -> None:
    """A RemoteControlledSampler fed a strategy in process decides like jaeger's AdaptiveSampler."""
    clock = clocks()
    remote = ds.RemoteControlledSampler(service_name="svc", clock=clock, rng=Fixed(0.5))
    remote.update({"strategyType": "PROBABILISTIC", "operationSampling": {**strategies()}})
    got = run(remote, clock, seed=23)
    clock_b = clocks()
    expected = run(jc.AdaptiveSampler(strategies(), 2000), clock_b, seed=23)
    assert got == expected
