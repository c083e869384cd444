"""Children following their parent's sampled flag, keeping the parent's ``th`` only when
the parent is sampled and ``R >= th``, as ``composable_parent_threshold`` does."""

from __future__ import annotations

from opentelemetry.sdk.trace.sampling import Decision, SamplingResult
from opentelemetry.trace.span import DEFAULT_TRACE_STATE, TraceState
from opentelemetry.util.types import Attributes

from dsampler.consistent._ot import parse_ot
from dsampler.consistent._stated_results import erase_th
from dsampler.consistent._tracestate import UNSET, ot_entry
from dsampler.decision import DROP, EMPTY, make_result
from dsampler.hashing import MASK56

#: (parent tracestate, valid th or -1, rv or -1, result kept, th erased: None until needed)
_Memo = tuple[TraceState, int, int, SamplingResult, "SamplingResult | None"]


class ThresholdChildren:
    """Like :class:`~dsampler.decision.ChildResults`, for an engine that states thresholds."""

    __slots__ = ("_memo",)

    def __init__(self) -> None:
        unset = make_result(DROP, EMPTY, None)
        self._memo: list[_Memo] = [(UNSET, -1, -1, unset, unset)] * 4

    def of(
        self, case: int, decision: Decision, attributes: Attributes, ts: TraceState, trace_id: int = 0
    ) -> SamplingResult:
        """The child's result: the parent's ``decision``, ``ts`` with ``th`` kept or erased."""
        memo = self._memo[case]
        if memo[0] is not ts:
            memo = self._memo[case] = _read(decision, ts)
        threshold = memo[1]
        keep = (
            decision is not DROP
            and threshold >= 0
            and (trace_id & MASK56 if memo[2] < 0 else memo[2]) >= threshold
        )
        result = memo[3] if keep else (memo[4] or self._erased(case, memo))
        if not attributes:
            return result
        return SamplingResult(decision, EMPTY if decision is DROP else attributes, result.trace_state)

    def _erased(self, case: int, memo: _Memo) -> SamplingResult:
        """The result with the parent's ``th`` erased, built on first need."""
        ts, kept = memo[0], memo[3]
        erased_ts = erase_th(ts)
        erased = kept if erased_ts is ts else make_result(kept.decision, EMPTY, erased_ts)
        if self._memo[case] is memo:
            self._memo[case] = (*memo[:4], erased)
        return erased


def _read(decision: Decision, ts: TraceState) -> _Memo:
    if ts is DEFAULT_TRACE_STATE:
        same = make_result(decision, EMPTY, None)
        return ts, -1, -1, same, same
    ot = ot_entry(ts)
    parsed = None if ot is None else parse_ot(ot)
    threshold = -1 if parsed is None or parsed.threshold is None else parsed.threshold
    rv = -1 if parsed is None or parsed.randomness is None else parsed.randomness
    kept = make_result(decision, EMPTY, ts)
    return ts, threshold, rv, kept, kept if threshold < 0 and "th:" not in (ot or "") else None
