"""The built-in composable samplers, with OpenTelemetry Python's descriptions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from opentelemetry.context import Context
from opentelemetry.trace import Link, SpanKind
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

from dsampler.consistent._intent import (
    NON_SAMPLING,
    ComposableSampler,
    Described,
    IntentLike,
    SamplingIntent,
    check_composable,
)
from dsampler.consistent._randomness import parent_threshold
from dsampler.consistent._threshold import MAX_THRESHOLD, MIN_THRESHOLD, encode_th, ratio_to_threshold
from dsampler.decision import parent_span_context

_ALWAYS: Final = SamplingIntent(MIN_THRESHOLD)
#: A sampled parent without a (consistent) threshold: follow the flag, state no ``th``.
_FOLLOW_SAMPLED: Final = SamplingIntent(MIN_THRESHOLD, threshold_reliable=False)
_MEMO_SIZE: Final = 64


class _Fixed(Described):
    """A composable sampler with one intent whatever the span."""

    __slots__ = ("_intent",)

    def __init__(self, intent: SamplingIntent, description: str) -> None:
        super().__init__(description)
        self._intent = intent

    def sampling_intent(
        self,
        parent_ctx: Context | None,
        name: str,
        span_kind: SpanKind | None,
        attributes: Attributes,
        links: Sequence[Link] | None,
        trace_state: TraceState | None,
    ) -> SamplingIntent:
        return self._intent


_ALWAYS_ON: Final = _Fixed(_ALWAYS, "ComposableAlwaysOn")
_ALWAYS_OFF: Final = _Fixed(NON_SAMPLING, "ComposableAlwaysOff")


def composable_always_on() -> ComposableSampler:
    """Samples every span, with threshold 0: sampled spans carry ``th:0``."""
    return _ALWAYS_ON


def composable_always_off() -> ComposableSampler:
    """Samples no span (no threshold)."""
    return _ALWAYS_OFF


def composable_traceid_ratio_based(ratio: float, *, precision: int | None = None) -> ComposableSampler:
    """Samples a fraction ``ratio`` of traces, consistently: ``R >= T``.

    Args:
        ratio: in [0, 1]; 0 behaves as :func:`composable_always_off`.
        precision: ``None`` for the full 56-bit threshold (OpenTelemetry Python, Java), or 1
            to 14 hex digits (the Collector, otel-go): shorter ``th`` values.

    Raises:
        ConfigError: ``ratio`` is not a number in [0, 1] or ``precision`` not in [1, 14].
    """
    threshold = ratio_to_threshold(ratio, precision)
    if threshold == MAX_THRESHOLD:
        shown, intent = "max", NON_SAMPLING
    else:
        shown, intent = encode_th(threshold), SamplingIntent(threshold)
    return _Fixed(intent, f"ComposableTraceIDRatioBased{{threshold={shown}, ratio={ratio}}}")


class _ParentThreshold(Described):
    """:func:`composable_parent_threshold`'s sampler."""

    __slots__ = ("_by_threshold", "_root")

    def __init__(self, root: ComposableSampler) -> None:
        super().__init__(f"ComposableParentThreshold{{root={root.get_description()}}}")
        self._root = root
        self._by_threshold: dict[int, SamplingIntent] = {}

    def sampling_intent(
        self,
        parent_ctx: Context | None,
        name: str,
        span_kind: SpanKind | None,
        attributes: Attributes,
        links: Sequence[Link] | None,
        trace_state: TraceState | None,
    ) -> IntentLike:
        parent = parent_span_context(parent_ctx)
        if parent is None:
            return self._root.sampling_intent(parent_ctx, name, span_kind, attributes, links, trace_state)
        if not parent.trace_flags.sampled:
            return NON_SAMPLING
        # The parent span context's own tracestate: the SDK passes no trace_state.
        threshold = parent_threshold(parent)
        if threshold is None:  # none, or an inconsistent one (R < T): erased, not propagated
            return _FOLLOW_SAMPLED
        intent = self._by_threshold.get(threshold)
        if intent is None:
            if len(self._by_threshold) >= _MEMO_SIZE:
                self._by_threshold = {}  # bounded: hostile parents cannot grow it
            intent = self._by_threshold[threshold] = SamplingIntent(threshold)
        return intent


def composable_parent_threshold(root: ComposableSampler) -> ComposableSampler:
    """Follows the parent, deferring to ``root`` for root spans: a sampled parent's ``th``
    consistent with the trace (``R >= th``) is kept, else threshold 0 without ``th``; a parent
    not sampled gives no threshold (OpenTelemetry Python's follows ``th`` whatever the flag).

    Raises:
        ConfigError: ``root`` is not a composable sampler.
    """
    return _ParentThreshold(check_composable(root, "root"))
