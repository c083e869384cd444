"""Results of a decision strategy that states its threshold (an engine's deciders with
``write_th``): sampled spans carry the :class:`~dsampler.consistent._stated.Statement`'s
``th`` (and, for a hashed rule's root, the key's ``rv``); other decisions erase ``th``.
A constant statement's sampled root shares one prebuilt result; a parent's rewritten
tracestate is reused for its siblings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Final

from opentelemetry.sdk.trace.sampling import SamplingResult
from opentelemetry.trace.span import DEFAULT_TRACE_STATE, TraceState
from opentelemetry.util.types import Attributes

from dsampler.consistent._ot import OT_KEY, ot_with_threshold, ot_without_threshold
from dsampler.consistent._stated import ALWAYS, BY_KEY, BY_TRACE, Statement
from dsampler.consistent._tracestate import UNSET, ot_entry, with_ot
from dsampler.decision import (
    DROP,
    DROPPED,
    EMPTY,
    RECORD_AND_SAMPLE,
    FrozenResult,
    Results,
    make_result,
)
from dsampler.hashing import MASK56, MASK64

_new = object.__new__


def _built(value: str) -> TraceState:
    """A tracestate of one valid ``ot`` entry, without the constructor's validation."""
    ts: TraceState = _new(TraceState)
    ts._dict = {OT_KEY: value}
    return ts


def _constructed(value: str) -> TraceState:
    return TraceState(((OT_KEY, value),))


def _choose() -> Callable[[str], TraceState]:
    """:func:`_built` when it builds what the constructor does with the SDK in use, else the constructor."""
    probe = "th:c;rv:0123456789abcd"
    try:
        built = _built(probe)
        same = built == _constructed(probe) and built.to_header() == _constructed(probe).to_header()
    except Exception:  # a TraceState without _dict: a future SDK
        same = False
    return _built if same else _constructed


#: A tracestate holding ``ot=value`` alone (``value`` valid: dsampler's th and rv).
ot_state: Final = _choose()
_FAST: Final = ot_state is _built


def _with(ts: TraceState, value: str | None) -> TraceState:
    """``ts`` with its ``ot`` entry set to ``value`` (None: removed)."""
    changed = with_ot(ts, value)
    return ts if changed is None else changed  # never None for a tracestate


def erase_th(ts: TraceState) -> TraceState:
    """``ts`` without ``th`` in its ``ot`` entry (``ts`` itself when it has none)."""
    ot = ot_entry(ts)
    return ts if ot is None else _with(ts, ot_without_threshold(ot))


class StatedResults(Results):
    """Results stating ``statement`` on sampled spans, ``th`` erased on every other decision.
    ``keyed`` (BY_KEY): call :meth:`sample_key` with the decision's key.
    """

    __slots__ = ("_memo", "_prefix", "keyed", "statement")

    def __init__(self, tags: Mapping[str, Any], statement: Statement) -> None:
        super().__init__(tags)
        self.statement = statement
        self.keyed = statement.how == BY_KEY
        self._prefix = f"th:{statement.th};rv:"
        if statement.how in (ALWAYS, BY_TRACE):
            constant = TraceState(((OT_KEY, "th:" + statement.th),))
            self.sampled = make_result(RECORD_AND_SAMPLE, MappingProxyType(self.tags), constant)
        # (parent tracestate, a sampled span's, a dropped span's)
        self._memo: tuple[TraceState, TraceState, TraceState] = (UNSET, UNSET, UNSET)

    def sample(self, attributes: Attributes, trace_state: TraceState | None) -> SamplingResult:
        if trace_state is None or trace_state is DEFAULT_TRACE_STATE:
            if not attributes:
                return self.sampled
            return Results.sample(self, attributes, self.sampled.trace_state)
        return Results.sample(self, attributes, self._rewritten(trace_state)[1])

    def sample_key(self, key: int, attributes: Attributes, trace_state: TraceState | None) -> SamplingResult:
        """A span sampled by ``key < bound`` (BY_KEY): a root outside the sliver gets ``th`` and
        the key's ``rv`` (:meth:`Statement.randomness`, inlined); a span with a parent states
        nothing, since only a root may set ``rv``.
        """
        statement = self.statement
        u = (key - statement.offset) & MASK64
        if trace_state is not None or u >= statement.limit:
            return self.sample(attributes, trace_state)
        # 7 bytes: the 14 hex digits, leading zeros kept (why not :014x: docs/benchmarks.md)
        stated = self._prefix + (MASK56 - (u >> statement.shift)).to_bytes(7, "big").hex()
        if attributes:
            return Results.sample(self, attributes, ot_state(stated))
        if _FAST:  # ot_state and make_result, inlined (docs/benchmarks.md)
            ts: TraceState = _new(TraceState)
            ts._dict = {OT_KEY: stated}
            result: SamplingResult = _new(FrozenResult)
            result.__dict__.update(
                decision=RECORD_AND_SAMPLE, attributes=self.sampled.attributes, trace_state=ts
            )
            return result
        return make_result(RECORD_AND_SAMPLE, self.sampled.attributes, ot_state(stated))

    def dropped(self, trace_state: TraceState | None) -> SamplingResult:
        if trace_state is None or trace_state is DEFAULT_TRACE_STATE:
            return DROPPED
        return SamplingResult(DROP, EMPTY, self._rewritten(trace_state)[2])

    def _rewritten(self, ts: TraceState) -> tuple[TraceState, TraceState, TraceState]:
        memo = self._memo
        if memo[0] is not ts:
            erased = erase_th(ts)
            sampled = erased
            if self.statement.how in (ALWAYS, BY_TRACE):
                value = ot_with_threshold(ot_entry(ts), self.statement.threshold)
                sampled = erased if value is None else _with(ts, value)
            memo = self._memo = (ts, sampled, erased)
        return memo
