"""Parent contexts the sampler tests hand in: a remote parent with a chosen sampled flag
and tracestate, and a context whose lookup fails (as a broken propagator's might)."""

from __future__ import annotations

from opentelemetry.context import Context
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context
from opentelemetry.trace.span import TraceState

__all__ = ["ExplodingContext", "remote_parent"]


def remote_parent(trace_id: int, sampled: bool, trace_state: TraceState | None = None) -> Context:
    flags = TraceFlags(TraceFlags.SAMPLED if sampled else TraceFlags.DEFAULT)
    return set_span_in_context(NonRecordingSpan(SpanContext(trace_id, 0xABC, True, flags, trace_state)))


class ExplodingContext(Context):
    """A parent context whose lookup fails, as a broken propagator might produce."""

    def get(self, key: str, default: object = None) -> object:
        raise RuntimeError("boom")
