"""Where the consistent samplers meet the OpenTelemetry SDK: the parent span context, and
results shared between decisions.

The SDK never passes the parent's tracestate to ``should_sample`` (the ``trace_state``
argument is always None there), so it is read from the parent span context, through the
public API only.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final, TypeGuard

from opentelemetry.context import Context, get_current
from opentelemetry.sdk.trace.sampling import Decision, SamplingResult
from opentelemetry.trace import INVALID_SPAN, Span, SpanContext, set_span_in_context
from opentelemetry.trace.span import TraceState

__all__ = [
    "DROPPED",
    "EMPTY",
    "SPAN_KEY",
    "FaultLog",
    "parent_span_context",
    "shared_result",
    "span_context_of",
]

EMPTY: Final[Mapping[str, Any]] = MappingProxyType({})


def _span_key() -> str:
    """The context key of the current span, found through the public API."""
    (key,) = set_span_in_context(INVALID_SPAN, Context()).keys()
    return key


SPAN_KEY: Final = _span_key()


_SPAN_TYPES: dict[type, bool] = {}  # type -> is a Span: a dict lookup instead of an ABC check


def _is_span(value: object) -> TypeGuard[Span]:
    known = isinstance(value, Span)
    if len(_SPAN_TYPES) < 64:  # span classes are few; anything else is not kept
        _SPAN_TYPES[type(value)] = known
    return known


def span_context_of(span: Any) -> SpanContext | None:
    """The valid span context of what a context holds under :data:`SPAN_KEY`, else None."""
    if not (_SPAN_TYPES.get(type(span)) or _is_span(span)):
        return None
    span_context: SpanContext = span.get_span_context()
    return span_context if span_context.is_valid else None


def parent_span_context(parent_context: Context | None) -> SpanContext | None:
    """The parent's valid span context (``parent_context``, or the current context when
    it is None), else None: the span is a root."""
    span = (get_current() if parent_context is None else parent_context).get(SPAN_KEY)
    return None if span is None else span_context_of(span)


class _SharedResult(SamplingResult):
    """A ``SamplingResult`` handed to many decisions, so it refuses to change: a wrapper
    that set ``trace_state`` on one would change every later trace."""

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"this SamplingResult is shared and read-only (setting {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"this SamplingResult is shared and read-only ({name!r})")


def shared_result(
    decision: Decision, attributes: Mapping[str, Any], trace_state: TraceState | None
) -> SamplingResult:
    """A read-only result; ``attributes`` must be read-only already (a mapping proxy)."""
    result = object.__new__(_SharedResult)
    object.__getattribute__(result, "__dict__").update(
        decision=decision, attributes=attributes, trace_state=trace_state
    )
    return result


DROPPED: Final = shared_result(Decision.DROP, EMPTY, None)


class FaultLog:
    """Counts what made a sampler fall back, and logs the first of each kind: should_sample
    never raises, so this is how a fault stays visible."""

    __slots__ = ("_logger", "counts", "owner")

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.counts: dict[str, int] = {}
        self._logger = logging.getLogger("dsampler.consistent")

    def record(self, kind: str, message: str, *, trace: bool = False) -> None:
        """Count one ``kind``; the first is logged (with the traceback when ``trace``,
        from inside an ``except`` block)."""
        seen = self.counts.get(kind, 0)
        self.counts[kind] = seen + 1  # a lost increment under a race is acceptable here
        if not seen:
            self._logger.warning(
                "dsampler: %s: %s; further ones are only counted", self.owner, message, exc_info=trace
            )
