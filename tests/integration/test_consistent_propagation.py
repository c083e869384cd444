"""A trace crossing a dsampler service, an OpenTelemetry Python service and back, through
real W3C traceparent/tracestate headers: one decision and one th all the way (dsampler's
composite sampler, and DSampler services deciding by the consistent rule or by xxh3 with
the rv of its hash)."""

from __future__ import annotations

import random

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace._sampling_experimental import composable_traceid_ratio_based as otel_ratio
from opentelemetry.sdk.trace._sampling_experimental import composite_sampler as otel_composite
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import RandomIdGenerator
from opentelemetry.sdk.trace.sampling import ParentBased, Sampler
from opentelemetry.trace import SpanKind
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from dsampler import DSampler
from dsampler.consistent import (
    composable_parent_threshold,
    composable_traceid_ratio_based,
    composite_sampler,
    randomness,
    ratio_to_threshold,
    threshold_of,
)
from dsampler.consistent._tracestate import ot_of

PROPAGATOR = TraceContextTextMapPropagator()
RATIO = 0.25


class Ids(RandomIdGenerator):
    """The SDK's generator with chosen trace IDs."""

    def __init__(self, trace_ids: list[int]) -> None:
        self._next = iter(trace_ids).__next__

    def generate_trace_id(self) -> int:
        return self._next()


class Service:
    """One service: its own TracerProvider, extracting and injecting W3C headers."""

    def __init__(self, sampler: Sampler, trace_ids: list[int] | None = None) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider(sampler=sampler, id_generator=Ids(trace_ids or []))
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.tracer = self.provider.get_tracer("service")

    def handle(self, headers: dict[str, str] | None, name: str) -> dict[str, str]:
        """A server span (a root when there are no headers) and a client child, whose
        context goes out in the returned headers."""
        context = None if headers is None else PROPAGATOR.extract(headers)
        server = self.tracer.start_as_current_span(name, context=context, kind=SpanKind.SERVER)
        with server, self.tracer.start_as_current_span(name + " call", kind=SpanKind.CLIENT):
            out: dict[str, str] = {}
            PROPAGATOR.inject(out)
            return out


def test_a_trace_keeps_one_decision_and_one_th_across_dsampler_and_opentelemetry() -> None:
    """dsampler (parent threshold over ratio 1/4) -> OpenTelemetry Python (ratio 1/4) ->
    dsampler: every span of a sampled trace is sampled and carries th:c; no span of a
    dropped trace is recorded anywhere; 200 traces, both outcomes present."""
    rng = random.Random(31)
    ids = [rng.getrandbits(128) for _ in range(200)]
    dsampler_sampler = composite_sampler(composable_parent_threshold(composable_traceid_ratio_based(RATIO)))
    front, middle = Service(dsampler_sampler, ids), Service(otel_composite(otel_ratio(RATIO)))
    back = Service(composite_sampler(composable_parent_threshold(composable_traceid_ratio_based(RATIO))))
    threshold = ratio_to_threshold(RATIO)
    for trace_id in ids:
        headers = front.handle(None, "front")
        headers = middle.handle(headers, "middle")
        back.handle(headers, "back")
        assert int(headers["traceparent"].split("-")[1], 16) == trace_id
    expected = {t for t in ids if (t & (2**56 - 1)) >= threshold}
    assert 0 < len(expected) < len(ids)
    for service in (front, middle, back):
        spans = service.exporter.get_finished_spans()
        assert {s.context.trace_id for s in spans} == expected
        assert all(s.context.trace_flags.sampled for s in spans)
        assert {ot_of(s.context.trace_state) for s in spans} == {"th:c"}
        service.provider.shutdown()


def test_dsampler_services_around_opentelemetry_keep_one_decision_and_one_th() -> None:
    """A DSampler service (rate 1/4, the consistent rule), OpenTelemetry Python's own
    composite sampler (ratio 1/4, deciding by itself), and a DSampler service following
    its parent: every span of a sampled trace carries th:c, the same trace IDs are
    sampled in all three, none of a dropped trace is recorded."""
    rng = random.Random(37)
    ids = [rng.getrandbits(128) for _ in range(300)]
    front = Service(DSampler(rate=RATIO, hash="consistent", resource={}), ids)
    middle = Service(otel_composite(otel_ratio(RATIO)))
    back = Service(DSampler(rate=0.001, hash="consistent", resource={}))  # follows its parent
    for _ in ids:
        back.handle(middle.handle(front.handle(None, "front"), "middle"), "back")
    expected = {t for t in ids if (t & (2**56 - 1)) >= ratio_to_threshold(RATIO)}
    assert 0 < len(expected) < len(ids)
    for service in (front, middle, back):
        spans = service.exporter.get_finished_spans()
        assert {s.context.trace_id for s in spans} == expected
        assert {ot_of(s.context.trace_state) for s in spans} == {"th:c"}
        service.provider.shutdown()


def test_a_hashed_rule_s_rv_keeps_the_trace_consistent_across_opentelemetry() -> None:
    """A DSampler service deciding by xxh3 (rate 0.1) writes th and the rv of its hash;
    an OpenTelemetry Python service (ParentBased over its composite sampler) and a
    DSampler service after it keep the decision and hand on the same ot value; every
    sampled trace's rv meets its th, as a downstream consistent sampler checks."""
    rng = random.Random(41)
    ids = [rng.getrandbits(128) for _ in range(400)]
    front = Service(DSampler(rate=0.1, hash="xxh3", resource={}), ids)
    middle = Service(ParentBased(otel_composite(otel_ratio(0.1))))
    back = Service(DSampler(rate=0.1, hash="xxh3", resource={}))
    for _ in ids:
        back.handle(middle.handle(front.handle(None, "front"), "middle"), "back")
    sampled = {s.context.trace_id: ot_of(s.context.trace_state) for s in front.exporter.get_finished_spans()}
    assert 10 < len(sampled) < 100
    assert all(ot is not None and ot.startswith("th:e6666666666666;rv:") for ot in sampled.values())
    for service in (front, middle, back):
        spans = service.exporter.get_finished_spans()
        assert {s.context.trace_id: ot_of(s.context.trace_state) for s in spans} == sampled
        for span in spans:
            th = threshold_of(span.context.trace_state)
            assert th == ratio_to_threshold(0.1)  # 0.1's bound is a multiple of 256: th exact
            assert randomness(span.context.trace_id, span.context.trace_state) >= th
        service.provider.shutdown()


def test_a_hashed_rule_deciding_a_span_with_a_parent_writes_no_rv() -> None:
    """An OpenTelemetry root (ratio 1: th:0, the trace ID's randomness, no rv), then a
    DSampler service with ``parent_based: false`` deciding its spans by a hashed rule
    (fnv1a, 1/4): its spans have a parent, remote or local, so none carries an rv (only a
    root may set it) or a th its hash cannot state; and two consistent samplers at 1/4
    downstream, one after the DSampler service and one beside it, agree on every trace."""
    rng = random.Random(43)
    ids = [rng.getrandbits(128) for _ in range(400)]
    root = Service(otel_composite(otel_ratio(1.0)), ids)
    hashed = Service(DSampler(rate=RATIO, hash="fnv1a", parent_based=False, resource={}))
    after, beside = Service(otel_composite(otel_ratio(RATIO))), Service(otel_composite(otel_ratio(RATIO)))
    for _ in ids:
        headers = root.handle(None, "root")
        after.handle(hashed.handle(headers, "hashed"), "after")
        beside.handle(headers, "beside")
    spans = hashed.exporter.get_finished_spans()
    assert 0 < len(spans) < 2 * len(ids)  # the hash kept some, and both spans of a trace are decided
    assert {ot_of(s.context.trace_state) for s in spans} == {None}  # the root's th erased, no rv
    kept_after = {s.context.trace_id for s in after.exporter.get_finished_spans()}
    kept_beside = {s.context.trace_id for s in beside.exporter.get_finished_spans()}
    assert kept_after == kept_beside == {t for t in ids if (t & (2**56 - 1)) >= ratio_to_threshold(RATIO)}
    for service in (root, hashed, after, beside):
        service.provider.shutdown()
