"""should_sample never raises, whatever it is handed, and always returns a decision."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from opentelemetry.context import Context
from opentelemetry.sdk.trace.sampling import Decision, SamplingResult
from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, TraceFlags, set_span_in_context
from opentelemetry.trace.span import TraceState

from dsampler import ParentBasedSampler, RatioSampler
from dsampler.decision._context import SPAN_KEY
from tests.parents import ExplodingContext
from tests.property.strategies import RULE_NAMES, rates, trace_ids

hostile_ids = st.one_of(
    trace_ids,
    st.integers(),
    st.integers(min_value=2**128, max_value=2**300),
    st.floats(),
    st.text(max_size=10),
    st.none(),
    st.booleans(),
)
span_contexts = st.builds(
    SpanContext,
    trace_id=st.integers(min_value=-5, max_value=2**129),
    span_id=st.integers(min_value=-5, max_value=2**65),
    is_remote=st.booleans(),
    trace_flags=st.integers(min_value=0, max_value=255).map(TraceFlags),
    trace_state=st.one_of(st.none(), st.just(TraceState([("k", "v")]))),
)
contexts = st.one_of(
    st.none(),
    st.just(Context()),
    span_contexts.map(lambda sc: set_span_in_context(NonRecordingSpan(sc))),
    st.sampled_from([42, "span", None, object()]).map(lambda v: Context({SPAN_KEY: v})),
    st.just(ExplodingContext()),
)
attributes = st.one_of(
    st.none(),
    st.dictionaries(
        st.text(max_size=8), st.one_of(st.integers(), st.text(max_size=8), st.booleans()), max_size=5
    ),
    st.just([1, 2]),
    st.just("not a mapping"),
)
kinds = st.one_of(st.none(), st.sampled_from(list(SpanKind)))


@given(hostile_ids, contexts, attributes, kinds, rates, st.sampled_from(RULE_NAMES), st.booleans())
def test_should_sample_never_raises(
    trace_id: Any, ctx: Any, attrs: Any, kind: Any, rate: float, rule: str, parent_based: bool
) -> None:
    """Hostile IDs, contexts and attributes all give a SamplingResult with a Decision."""
    sampler: Any = RatioSampler(rate, hash=rule)
    if parent_based:
        sampler = ParentBasedSampler(sampler)
    result = sampler.should_sample(ctx, trace_id, "name", kind, attrs, None)
    assert isinstance(result, SamplingResult)
    assert result.decision in (Decision.DROP, Decision.RECORD_AND_SAMPLE)
    assert result.decision is Decision.DROP or isinstance(trace_id, int) or parent_based
