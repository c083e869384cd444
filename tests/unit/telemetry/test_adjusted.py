"""Adjusted counts read from th: a mixed-rate stream through a real TracerProvider (a rule
at 1.0, the default rate at 0.01, a rate-limited operation) is estimated within its
statistical bounds, the rate-limited roots counted apart; the adaptive controller's
span processor keeps the same sums."""

from __future__ import annotations

import random

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.id_generator import RandomIdGenerator
from opentelemetry.trace.span import TraceState

from dsampler import AdaptiveController, DSampler, ManualClock
from dsampler.telemetry import AdjustedCounts
from tests.parents import remote_parent

HEALTH, DEFAULT, UPLOADS = 2_000, 100_000, 3_000


class Ids(RandomIdGenerator):
    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def generate_trace_id(self) -> int:
        return self._rng.getrandbits(128)


def _stream(sampler: DSampler, counts: object, seed: int) -> None:
    provider = TracerProvider(sampler=sampler, id_generator=Ids(seed))
    provider.add_span_processor(counts)  # type: ignore[arg-type]
    tracer = provider.get_tracer("stream")
    names = ["GET /health"] * HEALTH + ["GET /x"] * DEFAULT + ["POST /upload"] * UPLOADS
    random.Random(seed).shuffle(names)
    for name in names:
        with tracer.start_as_current_span(name), tracer.start_as_current_span("child"):
            pass
    provider.shutdown()


def _mixed(clock: ManualClock, **config: object) -> DSampler:
    rules = [
        {"match": {"span_name": "GET /health"}, "action": {"sample": 1.0}},
        {"match": {"span_name": "POST /upload"}, "action": {"rate_limit": 5}},
    ]
    return DSampler(rate=0.01, hash="xxh3", rules=rules, clock=clock, resource={}, **config)  # type: ignore[arg-type]


def test_a_mixed_rate_stream_is_estimated_within_its_bounds() -> None:
    """The roots of the rule (th:0, one each) and of the default rate (th of 0.01, a
    hundred each) sum to the 102,000 they were, within 4 standard errors (the
    estimate's own, about 3%); the rate limit's five roots carry no th and are counted
    apart; children are not counted."""
    for seed in (1, 2):
        counts = AdjustedCounts()
        _stream(_mixed(ManualClock()), counts, seed)
        assert counts.unstated == 5  # the bucket's burst; the manual clock never refills it
        assert HEALTH < counts.stated < HEALTH + DEFAULT * 0.02
        assert 2_000 < counts.standard_error < 4_500
        assert abs(counts.weighted - (HEALTH + DEFAULT)) <= 4 * counts.standard_error


def test_without_th_every_root_is_unstated() -> None:
    counts = AdjustedCounts()
    _stream(_mixed(ManualClock(), write_th=False), counts, 3)
    assert counts.stated == 0
    assert counts.weighted == 0.0
    assert counts.unstated > HEALTH


def test_the_adaptive_controller_reads_th_from_the_spans_it_observes() -> None:
    """The controller's span processor counts local roots by their th (a remote
    parent's child is a local root: its parent's th:8 counts it twice)."""
    clock = ManualClock()
    sampler = DSampler(rate=0.5, hash="consistent", clock=clock, resource={})
    controller = AdaptiveController(10.0, clock=clock, start=False)
    processor = controller.span_processor()
    provider = TracerProvider(sampler=sampler)
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("adaptive")
    with tracer.start_as_current_span("root"), tracer.start_as_current_span("child"):
        pass
    parent = remote_parent(0xF << 52, sampled=True, trace_state=TraceState([("ot", "th:8")]))
    tracer.start_span("entry", context=parent).end()
    stats = controller.stats()
    assert controller.adjusted.stated in (1, 2)  # the entry span, and the root if sampled
    assert stats["offered_by_th"] == 2.0 * controller.adjusted.stated  # th:8 both: p = 1/2
    assert stats["sampled_without_th"] == 0
    provider.shutdown()


def test_it_flushes_as_a_span_processor_must() -> None:
    """Its force_flush answers True (the SDK 1.20 base answers None, and a
    provider's force_flush then reports a failure); shutdown and a span start are no-ops."""
    counts = AdjustedCounts()
    provider = TracerProvider()
    provider.add_span_processor(counts)
    with provider.get_tracer("t").start_as_current_span("root"):
        pass
    assert counts.force_flush() is True
    assert provider.force_flush() is True
    provider.shutdown()
    assert counts.unstated + counts.stated == 1
