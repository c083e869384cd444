"""What a sampler does with input it cannot read: decide anyway, count the fault, log
the first one. ``should_sample`` never raises."""

from __future__ import annotations

import logging
import operator
from collections.abc import Sequence

from opentelemetry.context import Context
from opentelemetry.sdk.trace.sampling import Sampler, SamplingResult
from opentelemetry.trace import Link, SpanKind
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

from dsampler.decision._context import parent_trace_state
from dsampler.decision._results import Results

_log = logging.getLogger("dsampler.samplers")


def integer_value(trace_id: object) -> int | None:
    """The int value of an integer that is not an ``int`` (numpy's ``uint64``...), else
    None: such trace IDs are decided by value."""
    if isinstance(trace_id, int):
        return None
    try:
        return operator.index(trace_id)  # type: ignore[arg-type]
    except Exception:  # not an integer, or a hostile __index__: no value to decide by
        return None


class FaultLog:
    """Counts a sampler's internal faults by kind and logs the first of each kind."""

    __slots__ = ("_logger", "counts", "owner")

    def __init__(self, owner: str, logger: logging.Logger | None = None) -> None:
        self.owner = owner
        self.counts: dict[str, int] = {}
        self._logger = logger or _log

    @property
    def count(self) -> int:
        """Faults of every kind so far."""
        return sum(self.counts.values())

    def record(self, kind: str = "fault", message: str | None = None, *, trace: bool = True) -> None:
        """Count one ``kind``; the first is logged (``message``, default: a fallback after a fault)."""
        seen = self.counts.get(kind, 0)
        self.counts[kind] = seen + 1  # a lost increment under a race is acceptable
        if seen:
            return
        if message is None:
            text = "%s fell back after an internal fault; further faults are only counted"
        else:
            text = f"%s: {message.replace('%', '%%')}; further ones are only counted"
        self._logger.warning("dsampler: " + text, self.owner, exc_info=trace)


class FaultCountingSampler(Sampler):
    """Base of dsampler's samplers: exposes the fault count of a :class:`FaultLog`."""

    _fault_log: FaultLog

    @property
    def faults(self) -> int:
        """How many decisions fell back after an internal fault (bad input included)."""
        return self._fault_log.count


class Guarded(FaultCountingSampler):
    """A sampler someone else wrote, made to keep dsampler's promise: whatever it raises
    or returns that is not a ``SamplingResult``, the span is dropped (its parent's
    tracestate carried) and the fault counted. ``into``: the fault log of the sampler
    that hands the decision over (faults counted under the kind ``owner``); none: a log
    of its own, named ``owner``."""

    def __init__(self, sampler: Sampler, owner: str, into: FaultLog | None = None) -> None:
        self.sampler = sampler
        self._fault_log = FaultLog(owner) if into is None else into
        self._kind = "fault" if into is None else owner
        self._message: str | None = None if into is None else f"{owner} raised; the span is dropped"

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
            result = self.sampler.should_sample(
                parent_context, trace_id, name, kind, attributes, links, trace_state
            )
        except Exception:
            self._fault_log.record(self._kind, self._message)
            return Results.drop(parent_trace_state(parent_context))
        if isinstance(result, SamplingResult):
            return result
        problem = f"its sampler returned {type(result).__name__}, not a SamplingResult: span dropped"
        self._fault_log.record("result", problem, trace=False)
        return Results.drop(parent_trace_state(parent_context))

    def get_description(self) -> str:
        try:
            return f"Guarded{{{self.sampler.get_description()}}}"
        except Exception:
            return "Guarded{?}"
