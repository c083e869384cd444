"""A SpanProcessor that feeds the controller root-span latency and errors.

It observes every *local root* span the SDK records: a span without a parent, or whose
parent is remote (the entry span of this service in a distributed trace). The SDK only
calls processors for recorded spans, so it sees the sampled ones: an unbiased sample of
latencies when the default rate decided them (the trace-ID hash does not care how long
a request takes). Rules that keep every error or every slow request bias it; feed
``controller.observe(duration_s, error)`` from a middleware instead when they exist.
"""

from __future__ import annotations

from typing import Protocol

from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor
from opentelemetry.trace import StatusCode

from dsampler.consistent import threshold_of
from dsampler.telemetry import AdjustedCounts


class Observer(Protocol):
    """What the processor feeds: an :class:`~dsampler.AdaptiveController`."""

    def observe(self, duration_s: float, error: bool = False) -> None: ...


class AdaptiveSpanProcessor(SpanProcessor):
    """``provider.add_span_processor(controller.span_processor())``. With ``adjusted``,
    each local root is also counted by its ``th`` (the controller's offered-load
    estimate from what was sampled, every strategy's, beside the default rate's count)."""

    def __init__(self, controller: Observer, adjusted: AdjustedCounts | None = None) -> None:
        self._observe = controller.observe
        self._adjusted = adjusted

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        return None

    def on_end(self, span: ReadableSpan) -> None:
        parent = span.parent
        if parent is not None and not parent.is_remote:
            return
        if self._adjusted is not None and span.context is not None and span.context.trace_flags.sampled:
            self._adjusted.add(threshold_of(span.context.trace_state))
        start, end = span.start_time, span.end_time
        if start is None or end is None:
            return
        self._observe((end - start) / 1e9, span.status.status_code is StatusCode.ERROR)

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True
