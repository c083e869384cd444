"""Children following their parent hand its th on only where it holds: the parent
sampled and R >= th (R from the parent's rv or the trace ID); otherwise th is erased.
Checked against composable_parent_threshold under the composite sampler, per trace."""

from __future__ import annotations

import random

from opentelemetry.sdk.trace.sampling import Decision
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context
from opentelemetry.trace.span import DEFAULT_TRACE_STATE, TraceState

from dsampler.consistent import (
    composable_always_off,
    composable_parent_threshold,
    composite_sampler,
    threshold_of,
)
from dsampler.consistent._follow import ThresholdChildren

SAMPLE, DROP = Decision.RECORD_AND_SAMPLE, Decision.DROP
STATES = [
    TraceState([("ot", "th:c")]),
    TraceState([("ot", "th:c;rv:f0000000000000"), ("v", "1")]),
    TraceState([("ot", "th:c;rv:10000000000000")]),
    TraceState([("ot", "th:C")]),  # invalid th: erased
    TraceState([("v", "1")]),
    TraceState([("ot", "k:v")]),
]


def test_matches_composable_parent_threshold_per_trace() -> None:
    """The same decision and the same ot entry as dsampler's composite parent threshold,
    for children of sampled and unsampled parents on random trace IDs, with one
    TraceState object shared by many traces (as a root's constant tracestate is)."""
    children = ThresholdChildren()
    reference = composite_sampler(composable_parent_threshold(composable_always_off()))
    rng = random.Random(5)
    for _ in range(400):
        trace_id, ts, sampled = rng.getrandbits(128), rng.choice(STATES), rng.random() < 0.7
        case = 2 + sampled
        ours = children.of(case, SAMPLE if sampled else DROP, None, ts, trace_id)
        sc = SpanContext(trace_id, 7, True, TraceFlags(1 if sampled else 0), ts)
        theirs = reference.should_sample(set_span_in_context(NonRecordingSpan(sc)), trace_id, "op")
        assert ours.decision is theirs.decision
        assert dict(ours.trace_state or {}) == dict(theirs.trace_state or {})


def test_siblings_share_results_and_attributes_are_kept() -> None:
    children = ThresholdChildren()
    ts = STATES[0]
    high = 0xF << 52  # R >= th:c
    first = children.of(3, SAMPLE, None, ts, high)
    assert first is children.of(3, SAMPLE, None, ts, high | 1)
    assert first.trace_state is ts
    low = children.of(3, SAMPLE, None, ts, 1)  # R < th:c: sampled, th erased
    assert low.decision is SAMPLE
    assert threshold_of(low.trace_state) is None
    tagged = children.of(3, SAMPLE, {"a": 1}, ts, high)
    assert (dict(tagged.attributes), tagged.trace_state) == ({"a": 1}, ts)
    plain = children.of(1, DROP, {"a": 1}, DEFAULT_TRACE_STATE, high)
    assert (plain.decision, dict(plain.attributes), plain.trace_state) == (DROP, {}, None)
