"""Where the consistent samplers meet the OpenTelemetry SDK: the parent span context, and
results shared between decisions.

The SDK never passes the parent's tracestate to ``should_sample`` (the ``trace_state``
argument is always None there), so it is read from the parent span context; the pieces
are :mod:`dsampler.decision`'s, shared with every other sampler.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opentelemetry.context import Context
from opentelemetry.sdk.trace.sampling import Decision, SamplingResult
from opentelemetry.trace import SpanContext
from opentelemetry.trace.span import TraceState

from dsampler.decision import (
    DROPPED,
    EMPTY,
    SPAN_KEY,
    FaultLog,
    current_context,
    make_result,
    span_context_of,
)

__all__ = [
    "DROPPED",
    "EMPTY",
    "SPAN_KEY",
    "FaultLog",
    "current_context",
    "parent_span_context",
    "shared_result",
    "span_context_of",
]


def parent_span_context(parent_context: Context | None) -> SpanContext | None:
    """The parent's valid span context (``parent_context``, or the current context when
    it is None), else None: the span is a root."""
    span = (current_context() if parent_context is None else parent_context).get(SPAN_KEY)
    return None if span is None else span_context_of(span)


def shared_result(
    decision: Decision, attributes: Mapping[str, Any], trace_state: TraceState | None
) -> SamplingResult:
    """A read-only result handed to many decisions; ``attributes`` must be read-only
    already (a mapping proxy)."""
    return make_result(decision, attributes, trace_state)
