"""The parent span context, where the SDK keeps the parent's tracestate."""

from __future__ import annotations

from opentelemetry.context import Context
from opentelemetry.trace import SpanContext

from dsampler.decision import SPAN_KEY, current_context, span_context_of


def parent_span_context(parent_context: Context | None) -> SpanContext | None:
    """The parent's valid span context (of the current context if None), else None."""
    span = (current_context() if parent_context is None else parent_context).get(SPAN_KEY)
    return None if span is None else span_context_of(span)
