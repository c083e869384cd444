"""Where the consistent samplers meet the OpenTelemetry SDK. The SDK never passes the
parent's tracestate to ``should_sample``, so it is read from the parent span context.
"""

from __future__ import annotations

from opentelemetry.context import Context
from opentelemetry.trace import SpanContext

from dsampler.decision import SPAN_KEY, current_context, span_context_of


def parent_span_context(parent_context: Context | None) -> SpanContext | None:
    """The parent's valid span context (``parent_context``, or the current context when
    it is None), else None: the span is a root."""
    span = (current_context() if parent_context is None else parent_context).get(SPAN_KEY)
    return None if span is None else span_context_of(span)
