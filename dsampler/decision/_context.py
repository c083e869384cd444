"""The parent span context of a decision, found cheaply: the SDK never passes the parent's
tracestate to ``should_sample``, so samplers read it there and hand it back."""

from __future__ import annotations

from typing import Final

from opentelemetry import context as _context_api
from opentelemetry.context import Context, get_current
from opentelemetry.context.contextvars_context import ContextVarsRuntimeContext
from opentelemetry.trace import INVALID_SPAN, Span, SpanContext, set_span_in_context
from opentelemetry.trace.span import DEFAULT_TRACE_STATE, TraceState

#: The context key of the current span, found through the public API.
SPAN_KEY: Final[str] = next(iter(set_span_in_context(INVALID_SPAN, Context())))

# With the default runtime context, the ContextVar's own ``get`` is what get_current() calls.
_runtime = getattr(_context_api, "_RUNTIME_CONTEXT", None)
current_context = (
    _runtime._current_context.get
    if type(_runtime) is ContextVarsRuntimeContext and hasattr(_runtime, "_current_context")
    else get_current
)


_SPAN_TYPES: dict[type, bool] = {}  # type -> is a Span: a dict lookup instead of an ABC check


def _is_span(value: object) -> bool:
    known = isinstance(value, Span)
    if len(_SPAN_TYPES) < 64:  # span classes are few; anything else is not kept
        _SPAN_TYPES[type(value)] = known
    return known


def span_context_of(span: object) -> SpanContext | None:
    """The valid span context of what the context holds under the span key, else None."""
    if span is None or not (_SPAN_TYPES.get(type(span)) or _is_span(span)):
        return None
    sc: SpanContext = span.get_span_context()  # type: ignore[attr-defined]
    return sc if sc.is_valid else None


def trace_state_of(sc: SpanContext | None) -> TraceState | None:
    """The tracestate to hand back, None when there is nothing to carry."""
    if sc is None or sc.trace_state is DEFAULT_TRACE_STATE:
        return None
    return sc.trace_state


def parent_span_context(parent_context: Context | None) -> SpanContext | None:
    """The parent's valid span context (of the current context if None), else None."""
    span = (current_context() if parent_context is None else parent_context).get(SPAN_KEY)
    return None if span is None else span_context_of(span)


def parent_trace_state(parent_context: Context | None) -> TraceState | None:
    """The valid parent's tracestate to hand back (None: nothing to carry); never raises."""
    try:
        return trace_state_of(parent_span_context(parent_context))
    except Exception:
        return None
