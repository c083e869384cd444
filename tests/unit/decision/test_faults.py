"""A sampler someone else wrote, guarded: whatever it raises or returns, a span is
decided and nothing escapes to the SDK."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context
from opentelemetry.trace.span import TraceState

from dsampler.decision._faults import Guarded


class Returns(Sampler):
    """A broken sampler that returns ``value`` instead of a SamplingResult."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def should_sample(self, *args: Any, **kwargs: Any) -> Any:
        return self.value

    def get_description(self) -> str:
        return "Returns"


@pytest.mark.parametrize("value", [None, Decision.RECORD_AND_SAMPLE, True, "sample"])
def test_a_result_that_is_not_a_sampling_result_drops_the_span(
    value: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The SDK reads ``result.decision``: a sampler returning None (or a Decision) made
    ``start_span`` raise. Guarded, the span is dropped, counted and logged once."""
    guarded = Guarded(Returns(value), "a test's sampler")
    tracer = TracerProvider(sampler=guarded).get_tracer("test")
    for _ in range(3):
        with tracer.start_as_current_span("op") as span:
            assert not span.is_recording()
    assert guarded.faults == 3
    assert sum("not a SamplingResult" in r.getMessage() for r in caplog.records) == 1


def test_a_dropped_child_carries_its_parents_tracestate() -> None:
    """The drop keeps the parent's tracestate, as after an exception."""
    state = TraceState([("vendor", "x")])
    parent = SpanContext(5, 6, True, TraceFlags(1), state)
    result = Guarded(Returns(None), "a test's sampler").should_sample(
        set_span_in_context(NonRecordingSpan(parent)), 5, "op"
    )
    assert result.decision is Decision.DROP
    assert result.trace_state is state


def test_a_sampling_result_passes_through_unchanged() -> None:
    """A well-behaved sampler's result is returned as it is (no copy, no fault)."""
    mine = SamplingResult(Decision.RECORD_AND_SAMPLE, {"a": 1})
    guarded = Guarded(Returns(mine), "a test's sampler")
    assert guarded.should_sample(None, 5, "op") is mine
    assert guarded.faults == 0
