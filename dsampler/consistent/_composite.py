"""The composite sampler: a reliable threshold ``T`` samples iff ``R >= T`` and writes
``th:T``; an unreliable one draws fresh randomness and writes none; a drop erases ``th``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from random import getrandbits
from types import MappingProxyType
from typing import Any, Final

from opentelemetry.context import Context
from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult
from opentelemetry.trace import Link, SpanKind
from opentelemetry.trace.span import DEFAULT_TRACE_STATE, TraceState
from opentelemetry.util.types import Attributes

from dsampler.consistent._intent import ComposableSampler, IntentLike, check_composable, keep_trace_state
from dsampler.consistent._ot import ot_with_threshold, ot_without_threshold, parse_ot
from dsampler.consistent._stated_results import erase_th
from dsampler.consistent._threshold import MAX_THRESHOLD
from dsampler.consistent._tracestate import UNSET, ot_entry, with_ot
from dsampler.decision import (
    DROPPED,
    EMPTY,
    SPAN_KEY,
    FaultLog,
    current_context,
    integer_value,
    make_result,
    parent_trace_state,
    span_context_of,
)
from dsampler.hashing import MASK56

#: The last parent tracestate seen: (tracestate, ot value, rv, intent, sampled, dropped).
_Parent = tuple[
    TraceState,
    "str | None",
    "int | None",
    "IntentLike | None",
    "SamplingResult | None",
    "SamplingResult | None",
]
_ERASE: Final = -1
_log = logging.getLogger("dsampler.consistent")
_OVERFLOW: Final = "overflow"
_FAULT: Final = "fault"


def _written(intent: IntentLike, sampled: bool) -> int:
    """The ``th`` a span states: the intent's threshold when sampled and reliable, else _ERASE."""
    threshold = intent.threshold
    if sampled and intent.threshold_reliable and type(threshold) is int and 0 <= threshold < MAX_THRESHOLD:
        return threshold
    return _ERASE


def _merged(own: Attributes, span: Attributes) -> Mapping[str, Any]:
    """A sampled span's attributes: its own, plus the intent's where it has none."""
    if not own:
        return MappingProxyType(span) if span else EMPTY
    if not span:
        return MappingProxyType(own)
    return MappingProxyType({**own, **span})


class CompositeSampler(Sampler):
    """Decides by a composable sampler's intents, writing ``th`` truthfully; the parent's
    tracestate is read from the parent span context (``trace_state`` only for a root).
    ``should_sample`` never raises: a fault drops the span, without ``th``, counted in :attr:`faults`.
    """

    def __init__(self, delegate: ComposableSampler) -> None:
        self._delegate = check_composable(delegate, "delegate")
        self._intent_of = delegate.sampling_intent
        self._log = FaultLog("composite sampler", _log)
        # (intent, sampled, dropped): a root without attributes of its own, per intent
        self._roots: tuple[object, SamplingResult, SamplingResult] = (None, DROPPED, DROPPED)
        self._parent: _Parent = (UNSET, None, None, None, None, None)
        # (tracestate, threshold, result, why th is missing), for th written [0] and erased [1]
        self._memo: list[tuple[TraceState | None, int, TraceState | None, str]] = [(UNSET, 0, None, "")] * 2

    @property
    def faults(self) -> int:
        """Decisions that fell back to a drop after an internal fault (bad input included)."""
        return self._log.counts.get(_FAULT, 0)

    @property
    def overflows(self) -> int:
        """Sampled spans whose ``th`` was left out (``ot`` over 256 characters, or 32 entries)."""
        return self._log.counts.get(_OVERFLOW, 0)

    def should_sample(
        self,
        parent_context: Context | None,
        trace_id: int,
        name: str,
        kind: SpanKind | None = None,
        attributes: Attributes = None,
        links: Sequence[Link] | None = None,
        trace_state: TraceState | None = None,
    ) -> SamplingResult:
        try:
            span = (current_context() if parent_context is None else parent_context).get(SPAN_KEY)
            parent = None if span is None else span_context_of(span)
            ts = trace_state if parent is None else parent.trace_state
            if ts is not None and (
                ts is DEFAULT_TRACE_STATE or (type(ts) is not TraceState and not isinstance(ts, TraceState))
            ):
                ts = None
            intent = self._intent_of(parent_context, name, kind, attributes, links, ts)
            threshold = intent.threshold
            if type(threshold) is not int or not 0 <= threshold <= MAX_THRESHOLD:
                sampled = False
            elif not intent.threshold_reliable:
                sampled = threshold == 0 or getrandbits(56) >= threshold
            elif ts is None:
                sampled = (trace_id & MASK56) >= threshold
            else:
                memo = self._parent
                if memo[0] is not ts:
                    memo = self._parent_of(ts)
                rv = memo[2]
                sampled = (trace_id & MASK56 if rv is None else rv) >= threshold
                if memo[3] is intent and not attributes:  # a sibling's result (see _child)
                    built = memo[4] if sampled else memo[5]
                    if built is not None:
                        return built
            return self._result(intent, sampled, ts, attributes)
        except Exception:
            return self._after_fault(parent_context, trace_id, name, kind, attributes, links, trace_state)

    def _after_fault(
        self,
        parent_context: Context | None,
        trace_id: object,
        name: str,
        kind: SpanKind | None,
        attributes: Attributes,
        links: Sequence[Link] | None,
        trace_state: TraceState | None,
    ) -> SamplingResult:
        """numpy's integers are decided as ints; anything else drops the span, counted and logged
        once: a drop that still hands the parent's tracestate on, without ``th``."""
        as_int = integer_value(trace_id)
        if as_int is not None:
            return self.should_sample(parent_context, as_int, name, kind, attributes, links, trace_state)
        self._log.record(_FAULT, "dropped a span after an internal fault", trace=True)
        try:
            ts = parent_trace_state(parent_context)
            return make_result(Decision.DROP, EMPTY, erase_th(ts)) if isinstance(ts, TraceState) else DROPPED
        except Exception:
            return DROPPED

    def _parent_of(self, ts: TraceState) -> _Parent:
        """The memo of the parent tracestate ``ts``: its ``ot``, ``rv`` and results built for it."""
        parent = self._parent
        if parent[0] is not ts:
            ot = ot_entry(ts)
            parsed = None if ot is None else parse_ot(ot)
            rv = None if parsed is None else parsed.randomness
            parent = self._parent = (ts, ot, rv, None, None, None)
        return parent

    def _result(
        self, intent: IntentLike, sampled: bool, ts: TraceState | None, attributes: Attributes
    ) -> SamplingResult:
        if attributes or intent.update_trace_state is not keep_trace_state:
            return self._build(intent, sampled, ts, attributes)
        if ts is not None:
            parent = self._parent
            if parent[0] is ts and parent[3] is intent:
                built = parent[4] if sampled else parent[5]
                if built is not None:
                    return built
            return self._child(intent, sampled, ts)
        roots = self._roots
        if roots[0] is not intent:
            roots = (intent, self._build(intent, True, None, None), self._build(intent, False, None, None))
            self._roots = roots
        return roots[1] if sampled else roots[2]

    def _child(self, intent: IntentLike, sampled: bool, ts: TraceState) -> SamplingResult:
        """A child's result without attributes, built once per (parent tracestate, intent, outcome)."""
        parent = self._parent_of(ts)
        if parent[3] is not intent:
            parent = (ts, parent[1], parent[2], intent, None, None)
        if parent[1] is None and _written(intent, sampled) == _ERASE:  # no ot, none to write
            decision = Decision.RECORD_AND_SAMPLE if sampled else Decision.DROP
            result = make_result(decision, _merged(intent.attributes, None) if sampled else EMPTY, ts)
        else:
            result = self._build(intent, sampled, ts, None)
        if sampled:
            self._parent = (ts, parent[1], parent[2], intent, result, parent[5])
        else:
            self._parent = (ts, parent[1], parent[2], intent, parent[4], result)
        return result

    def _build(
        self, intent: IntentLike, sampled: bool, ts: TraceState | None, attributes: Attributes
    ) -> SamplingResult:
        base = ts
        provider = intent.update_trace_state
        if provider is not keep_trace_state:
            given = DEFAULT_TRACE_STATE if ts is None else ts
            changed = provider(given)
            if changed is not given:
                base = changed if isinstance(changed, TraceState) else ts
        carried = self._carried(base, _written(intent, sampled))
        if not sampled:
            return DROPPED if carried is None else make_result(Decision.DROP, EMPTY, carried)
        return make_result(Decision.RECORD_AND_SAMPLE, _merged(intent.attributes, attributes), carried)

    def _carried(self, base: TraceState | None, written: int) -> TraceState | None:
        """``base`` with ``th`` written (``written`` >= 0) or erased."""
        slot = 1 if written < 0 else 0
        memo = self._memo[slot]
        if memo[0] is not base or memo[1] != written:
            memo = self._memo[slot] = (base, written, *self._rewritten(base, written))
        if memo[3]:
            self._log.record(_OVERFLOW, memo[3])
        return memo[2]

    @staticmethod
    def _rewritten(base: TraceState | None, written: int) -> tuple[TraceState | None, str]:
        """The tracestate, and why ``th`` could not be written ("" when it could)."""
        ot = None if base is None else ot_entry(base)
        value = None if written < 0 else ot_with_threshold(ot, written)
        if value is None:
            why = "" if written < 0 else "th would take ot over 256 characters: left out"
            return with_ot(base, ot_without_threshold(ot)), why
        carried = with_ot(base, value)
        if ot is None and carried is base:
            return carried, "the tracestate has 32 entries, none of them ot: th left out"
        return carried, ""

    def get_description(self) -> str:
        try:
            return str(self._delegate.get_description())
        except Exception:
            return "CompositeSampler"


def composite_sampler(delegate: ComposableSampler) -> Sampler:
    """An OpenTelemetry ``Sampler`` deciding by ``delegate``'s intents (dsampler's or
    OpenTelemetry Python's composables, or any object with ``sampling_intent`` and
    ``get_description``); its description is the delegate's.

    Raises:
        ConfigError: ``delegate`` is not a composable sampler.
    """
    return CompositeSampler(delegate)
