"""Children that follow their parent's sampled flag, from results built once."""

from __future__ import annotations

from typing import Final

from opentelemetry.sdk.trace.sampling import Decision, SamplingResult
from opentelemetry.trace.span import DEFAULT_TRACE_STATE, TraceState
from opentelemetry.util.types import Attributes

from dsampler.decision._results import DROP, DROPPED, EMPTY, RECORD_AND_SAMPLE, make_result

#: A parent-following result, by ``2 * is_remote + sampled flag`` (ParentBased's four cases).
CHILD_RESULTS: Final = (DROPPED, make_result(RECORD_AND_SAMPLE, EMPTY, None)) * 2
#: Their decisions, by the same case.
CHILD_DECISIONS: Final = tuple(result.decision for result in CHILD_RESULTS)


class ChildResults:
    """Children that follow their parent's sampled flag, as OpenTelemetry's default
    ``ParentBased`` delegates do, reusing the last result per case (siblings share a TraceState).
    """

    __slots__ = ("_memo",)

    def __init__(self) -> None:
        self._memo: list[tuple[TraceState | None, SamplingResult]] = [(None, DROPPED)] * 4

    def of(
        self, case: int, decision: Decision, attributes: Attributes, ts: TraceState, trace_id: int = 0
    ) -> SamplingResult:
        """The parent's ``decision`` for a child whose parent tracestate is ``ts``."""
        if attributes:
            carried = None if ts is DEFAULT_TRACE_STATE else ts
            if decision is DROP:
                return SamplingResult(DROP, EMPTY, carried)
            return SamplingResult(RECORD_AND_SAMPLE, attributes, carried)
        memo = self._memo[case]
        if memo[0] is ts:
            return memo[1]
        result = make_result(decision, EMPTY, ts)
        self._memo[case] = (ts, result)
        return result
