"""A SpanProcessor that feeds the controller the latency and error of every *local root*
span the SDK records (no parent, or a remote one). Rules that keep errors or slow
requests bias it: feed ``controller.observe`` from a middleware then.
"""

from __future__ import annotations

from typing import Protocol

from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor
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

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True
