"""A published configuration compiled for the request path: what a decision reads
(once); it never changes after it is published."""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterator, Mapping
from typing import Final, Protocol

from opentelemetry.sdk.trace.sampling import Decision, SamplingResult
from opentelemetry.trace import SpanKind
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

from dsampler.config import Rollout, SamplingConfig
from dsampler.consistent import explicit_randomness
from dsampler.decision import RECORD_AND_SAMPLE, ChildResults, Results, TokenBucket, Tracked
from dsampler.engine._counts import CAPPED, DEFAULT, KEPT, NOT_KEPT, OPERATION, PARENT, RULE, DecisionCounts
from dsampler.engine._deciders import (
    BY_LOWER_BOUND,
    BY_RATIO,
    Decider,
    OperationDecider,
    RateLimitDecider,
    RatioDecider,
    Tagger,
    guaranteed,
)
from dsampler.engine._index import RuleIndex

_YES: Final = itertools.repeat(True).__next__  # a C callable that answers True
_UNUSED: Final = Results({})  # the lower-bound results of a snapshot without a lower bound
_PLAIN_CHILDREN: Final = ChildResults()


class Follow(Protocol):
    """Children following their parent."""

    def of(
        self, case: int, decision: Decision, attributes: Attributes, ts: TraceState, trace_id: int = 0
    ) -> SamplingResult: ...


class OfferedLoad(Protocol):
    """An owner's tap on the default rate's decisions: each appends ``None`` to
    ``offered``, and a sampled one must also be admitted by ``backstop`` when there is
    one. Past ``fold_at`` items, the request path calls ``fold()`` (which must never
    wait)."""

    offered: list[None]
    backstop: TokenBucket | None

    @property
    def fold_at(self) -> int: ...

    def fold(self) -> None: ...


class Snapshot:
    """One configuration, compiled. ``simple`` snapshots (no rules, operations, cap or
    lower bound) are decided inline from ``default``."""

    __slots__ = (
        "admit",
        "anchors",
        "backstop",
        "cap",
        "config",
        "counts",
        "default",
        "default_tally",
        "fold_at",
        "follow",
        "has_rules",
        "load",
        "lower_bound",
        "lower_results",
        "offered",
        "operations",
        "parent_based",
        "parent_tally",
        "reads_rv",
        "rule_buckets",
        "rules",
        "simple",
        "tagger",
        "tally",
        "tracked",
    )

    def __init__(
        self,
        config: SamplingConfig,
        tagger: Tagger,
        default: RatioDecider,
        rules: RuleIndex[Decider],
        rule_buckets: Mapping[Hashable, TokenBucket],
        anchors: Mapping[Rollout, float],
        operations: Mapping[str, OperationDecider],
        cap: TokenBucket | None,
        tracked: Tracked[TokenBucket],
        load: OfferedLoad | None = None,
        counts: DecisionCounts | None = None,
        follow: Follow = _PLAIN_CHILDREN,
    ) -> None:
        self.config = config
        self.tagger = tagger
        self.default = default
        self.rules = rules
        self.has_rules = rules.size > 0
        self.rule_buckets = rule_buckets
        self.anchors = anchors
        self.operations = operations
        self.cap = cap
        self.tracked = tracked
        self.parent_based = config.parent_based
        # stating thresholds, the consistent scheme's R is a parent's rv when it has one
        self.reads_rv = config.write_th and default.scheme.by_trace
        self.follow = follow
        self.lower_bound = config.default_lower_bound_per_second
        self.lower_results = tagger.results("lowerbound", config.rate) if self.lower_bound > 0 else _UNUSED
        self.simple = not self.has_rules and not operations and cap is None and self.lower_bound == 0
        self._tap(load, counts)

    def _tap(self, load: OfferedLoad | None, counts: DecisionCounts | None) -> None:
        self.load = load
        self.offered = None if load is None else load.offered
        self.fold_at = 0 if load is None else load.fold_at
        self.backstop = None if load is None else load.backstop
        self.admit = _YES if self.backstop is None else self.backstop.try_acquire
        self.counts = counts
        self.tally = None if counts is None else counts.tally
        self.parent_tally = None if counts is None else counts.tally[PARENT]
        self.default_tally = None if counts is None else counts.tally[DEFAULT]

    def parent_state(self, trace_state: TraceState, trace_id: int) -> tuple[TraceState, int]:
        """A parent's tracestate to hand on, and the trace ID to decide by: stating
        thresholds, the parent's ``rv`` stands in for the trace ID's low 56 bits."""
        if self.reads_rv and (rv := explicit_randomness(trace_state)) is not None:
            return trace_state, trace_id >> 56 << 56 | rv
        return trace_state, trace_id

    def route(self, name: str, kind: SpanKind | None, attributes: Attributes) -> Decider:
        """The decider for a root span, without creating any state (for ``explain``)."""
        decider = self.rules.first(name, kind, attributes) if self.has_rules else None
        if decider is not None:
            return decider
        found = self.operations.get(name)
        if found is not None:
            return found
        if self.lower_bound > 0:
            bucket = self.tracked.by_name.get(name)
            return OperationDecider(self.default, bucket, self.lower_bound, self.tagger)
        return self.default

    def decide_root(
        self,
        trace_id: int,
        name: str,
        kind: SpanKind | None,
        attributes: Attributes,
        trace_state: TraceState | None,
    ) -> SamplingResult | None:
        """Decide a span without a parent to follow; the caps have the last word. None:
        the default rate decides alone, which the request path does inline."""
        by_default = False  # decided at the default rate: what the adaptive controller owns
        decider = self.rules.first(name, kind, attributes) if self.has_rules else None
        if decider is not None:
            result, strategy = decider.decide(trace_id, attributes, trace_state), RULE
        else:
            found = self.operations.get(name)
            if found is not None:
                result, strategy = found.decide(trace_id, attributes, trace_state), OPERATION
            elif self.lower_bound > 0:  # with a lower bound of its own: a tracked operation
                result, strategy = self._decide_tracked(trace_id, name, attributes, trace_state), OPERATION
                by_default = True
            elif self.cap is None:
                return None
            else:
                result, strategy = self.default.decide(trace_id, attributes, trace_state), DEFAULT
                by_default = True
        sampled = result.decision is RECORD_AND_SAMPLE
        tally = self.tally
        if tally is not None:  # telemetry on (engine/_counts.py)
            tally[strategy][KEPT if sampled else NOT_KEPT] += 1
        if by_default and self.offered is not None:
            self.offered.append(None)  # the adaptive controller counts it: one append, no lock
            if sampled and not self.backstop_admits():
                return self.capped(strategy, trace_state)
        if sampled and self.cap is not None and not self.cap.try_acquire():
            return self.capped(strategy, trace_state)
        return result

    def backstop_admits(self) -> bool:
        """The adaptive controller's hard cap admits a sampled default-rate decision."""
        if self.offered is not None and len(self.offered) > self.fold_at:
            self.fold()
        return bool(self.admit())

    def fold(self) -> bool:
        """Fold the uncounted decisions; False, so the request path goes on to the hard
        cap in the same expression."""
        if self.load is not None:
            self.load.fold()
        return False

    def capped(self, strategy: int, trace_state: TraceState | None) -> SamplingResult:
        """Kept by its strategy, refused by a cap: counted, and dropped."""
        if self.tally is not None:
            self.tally[strategy][CAPPED] += 1
        return self.default.results.dropped(trace_state)

    def _decide_tracked(
        self, trace_id: int, name: str, attributes: Attributes, trace_state: TraceState | None
    ) -> SamplingResult:
        """An operation not configured, under a default lower bound."""
        d = self.default
        key = d.key(trace_id)
        outcome = guaranteed(key < d.bound, self.tracked.get(name))
        if outcome == BY_RATIO:
            return d.stated(key, attributes, trace_state)
        if outcome == BY_LOWER_BOUND:
            return self.lower_results.sample(attributes, trace_state)
        return d.results.dropped(trace_state)

    def limits(self) -> Iterator[tuple[TokenBucket, float]]:
        """Every bucket this snapshot spends from, with the rate its configuration gives it."""
        for _, decider in self.rules.rules:
            if isinstance(decider, RateLimitDecider):
                yield decider.bucket, decider.per_second
        for op in self.operations.values():
            if op.lower is not None:
                yield op.lower, op.lower_per_second
        if self.lower_bound > 0:  # the operations tracked under the default lower bound
            for bucket in self.tracked.values():
                yield bucket, self.lower_bound
        if self.cap is not None and self.config.traces_per_second is not None:
            yield self.cap, self.config.traces_per_second
