"""The few places where dsampler touches OpenTelemetry SDK internals, kept together.

Two costs dominate a cheap sampler: finding the parent span context and building a
``SamplingResult``. The SDK never passes the parent's tracestate to ``should_sample``
(and ``ParentBased`` does not forward it), so every sampler must read it from the parent
span context and hand it back, or it is wiped from the child and everything downstream.
"""

from __future__ import annotations

import logging
import operator
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from opentelemetry import context as _context_api
from opentelemetry.context import Context, get_current
from opentelemetry.context.contextvars_context import ContextVarsRuntimeContext
from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult
from opentelemetry.trace import INVALID_SPAN, Span, SpanContext, set_span_in_context
from opentelemetry.trace.span import DEFAULT_TRACE_STATE, TraceState
from opentelemetry.util.types import Attributes

__all__ = [
    "DEFAULT_TRACE_STATE",
    "DROP",
    "DROPPED",
    "EMPTY",
    "FOLLOW",
    "RECORD_AND_SAMPLE",
    "SPAN_KEY",
    "FaultCountingSampler",
    "FaultLog",
    "Follower",
    "FrozenResult",
    "Results",
    "current_context",
    "integer_value",
    "make_result",
    "span_context_of",
    "trace_state_of",
]

DROP: Final = Decision.DROP
RECORD_AND_SAMPLE: Final = Decision.RECORD_AND_SAMPLE
EMPTY: Final[Mapping[str, Any]] = MappingProxyType({})


def _span_key() -> str:
    """The context key under which the API stores the current span, found through the
    public API (the constant itself is private)."""
    (key,) = set_span_in_context(INVALID_SPAN, Context()).keys()
    return key


SPAN_KEY: Final = _span_key()

_new = object.__new__

# get_current() is a call through the runtime-context object to a ContextVar; with the
# default runtime context the ContextVar's own bound ``get`` returns the same object.
_runtime = getattr(_context_api, "_RUNTIME_CONTEXT", None)
current_context = (
    _runtime._current_context.get
    if type(_runtime) is ContextVarsRuntimeContext and hasattr(_runtime, "_current_context")
    else get_current
)


class FrozenResult(SamplingResult):
    """A ``SamplingResult`` that refuses to change.

    dsampler hands the same result object to every decision that ends the same way (the
    dropped result, a sampler's sampled result, a parent's followed one): a wrapper
    sampler that set ``result.trace_state`` on one would change every later trace. So
    setting or deleting any attribute raises ``AttributeError``; build a new
    ``SamplingResult(result.decision, result.attributes, trace_state)`` instead. It is
    still a ``SamplingResult`` to the SDK and to ``isinstance``.
    """

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(
            f"dsampler's SamplingResult is shared by many decisions and read-only (setting {name!r}); "
            "build a new SamplingResult instead"
        )

    def __delattr__(self, name: str) -> None:
        raise AttributeError(
            f"dsampler's SamplingResult is shared by many decisions and read-only ({name!r})"
        )


def make_result(
    decision: Decision, attributes: Mapping[str, Any], trace_state: TraceState | None
) -> SamplingResult:
    """A read-only ``SamplingResult`` without its ``__init__`` (which re-wraps the
    attributes).

    ``attributes`` must already be read-only (a ``MappingProxyType``); a test checks
    that the object equals what ``SamplingResult(...)`` builds, so a new field in a
    future SDK fails loudly instead of going missing.
    """
    result: SamplingResult = _new(FrozenResult)
    result.__dict__.update(decision=decision, attributes=attributes, trace_state=trace_state)
    return result


def integer_value(trace_id: object) -> int | None:
    """The int value of an integer that is not an ``int`` (numpy's ``uint64``...), else
    None: such trace IDs are decided by value whether or not the numba kernels serve
    (which would take a numpy integer directly, while the Python schemes cannot)."""
    if isinstance(trace_id, int):
        return None
    try:
        return operator.index(trace_id)  # type: ignore[arg-type]
    except TypeError:
        return None


def span_context_of(span: object) -> SpanContext | None:
    """The valid span context of what the context holds under the span key, else None."""
    if span is None or not isinstance(span, Span):
        return None
    sc = span.get_span_context()
    return sc if sc.is_valid else None


def trace_state_of(sc: SpanContext | None) -> TraceState | None:
    """The tracestate to hand back, None when there is nothing to carry."""
    if sc is None or sc.trace_state is DEFAULT_TRACE_STATE:
        return None
    return sc.trace_state


class FaultLog:
    """Counts a sampler's internal faults and logs the first one with its traceback.

    ``should_sample`` must never raise, so a fault becomes a fallback decision; the
    count (``faults``) and the single log line are how it stays visible.
    """

    __slots__ = ("_logger", "count", "owner")

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.count = 0
        self._logger = logging.getLogger("dsampler.samplers")

    def record(self) -> None:
        """Call from inside an ``except`` block."""
        self.count += 1  # a lost increment under a race is acceptable for a diagnostic
        if self.count == 1:
            self._logger.warning(
                "dsampler: %s fell back after an internal fault; further faults are only counted",
                self.owner,
                exc_info=True,
            )


class FaultCountingSampler(Sampler):
    """Base of dsampler's samplers: exposes the fault count of a :class:`FaultLog`."""

    _fault_log: FaultLog

    @property
    def faults(self) -> int:
        """How many decisions fell back after an internal fault (bad input included)."""
        return self._fault_log.count


DROPPED: Final = make_result(DROP, EMPTY, None)


class Results:
    """The results of one decision strategy, built once: a sampled result carrying
    ``tags`` and the shared dropped one. New objects only when the span has attributes
    of its own (the SDK records only what the result carries) or a tracestate to carry.
    """

    __slots__ = ("sampled", "tags")

    def __init__(self, tags: Mapping[str, Any]) -> None:
        self.tags = dict(tags)
        self.sampled = make_result(RECORD_AND_SAMPLE, MappingProxyType(self.tags), None)

    def sample(self, attributes: Attributes, trace_state: TraceState | None) -> SamplingResult:
        if not attributes and trace_state is None:
            return self.sampled
        if not attributes:
            merged: Mapping[str, Any] = self.tags
        elif not self.tags:
            merged = attributes
        else:  # the span's own attributes win over the sampler's tags of the same name
            merged = {**self.tags, **attributes}
        return make_result(RECORD_AND_SAMPLE, MappingProxyType(merged), trace_state)

    @staticmethod
    def drop(trace_state: TraceState | None) -> SamplingResult:
        return DROPPED if trace_state is None else make_result(DROP, EMPTY, trace_state)


#: A parent-following result, by ``2 * is_remote + sampled flag`` (ParentBased's four cases).
FOLLOW: Final = (DROPPED, make_result(RECORD_AND_SAMPLE, EMPTY, None)) * 2


class Follower:
    """Children that follow their parent's sampled flag, as OpenTelemetry's default
    ``ParentBased`` delegates do: the result depends only on the flag, the span's own
    attributes and the parent's tracestate.

    The last (tracestate, result) pair is kept per case: sibling spans share their
    parent's TraceState object, so most children with a tracestate reuse one result.
    It is replaced with one item assignment; a race only costs a rebuild.
    """

    __slots__ = ("_memo",)

    def __init__(self) -> None:
        self._memo: list[tuple[TraceState | None, SamplingResult]] = [(None, DROPPED)] * 4

    def follow(self, case: int, decision: Decision, attributes: Attributes, ts: TraceState) -> SamplingResult:
        """The parent's ``decision`` for a child whose parent tracestate is ``ts``."""
        if attributes:
            carried = None if ts is DEFAULT_TRACE_STATE else ts
            if decision is DROP:
                return make_result(DROP, EMPTY, carried)
            return make_result(RECORD_AND_SAMPLE, MappingProxyType(attributes), carried)
        memo = self._memo[case]
        if memo[0] is ts:
            return memo[1]
        result = make_result(decision, EMPTY, ts)
        self._memo[case] = (ts, result)
        return result
