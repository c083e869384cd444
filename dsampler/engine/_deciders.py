"""Deciders: the strategies of a compiled snapshot (one per rule action, operation and
the default), built once with their results prebuilt; the token buckets they spend
from outlive the snapshot.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from typing import Any, Final, Protocol

from opentelemetry.sdk.trace.sampling import SamplingResult
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

from dsampler.clock import Clock
from dsampler.consistent import NOTHING_STATED, StatedResults, Statement, statement
from dsampler.decision import DROPPED, EMPTY, Results, TokenBucket
from dsampler.hashing import HashScheme, Ratio

#: Tagged results kept for sharing, per tagger (a controller's rates are many).
MAX_SHARED_RESULTS: Final = 1024

#: Outcomes of :func:`guaranteed`.
DROP_IT: Final = 0
BY_RATIO: Final = 1
BY_LOWER_BOUND: Final = 2


class Tagger:
    """The attributes a snapshot's sampled results carry: none by default, as
    OpenTelemetry's own samplers; with ``jaeger`` the ``sampler.type``/``sampler.param``
    tags; ``extra`` always. With ``write_th`` the results state their threshold in the
    ``ot`` tracestate entry.
    """

    __slots__ = ("_results", "extra", "jaeger", "write_th")

    def __init__(
        self, jaeger: bool = False, extra: Mapping[str, Any] = EMPTY, write_th: bool = False
    ) -> None:
        self.jaeger = jaeger
        self.extra = dict(extra)
        self.write_th = write_th
        self._results: dict[tuple[object, ...], Results] = {}

    def __call__(self, kind: str, param: float) -> dict[str, Any]:
        tags: dict[str, Any] = {"sampler.type": kind, "sampler.param": param} if self.jaeger else {}
        tags.update(self.extra)
        return tags

    def results(self, kind: str, param: float, stated: Statement = NOTHING_STATED) -> Results:
        """The results of a strategy tagged ``kind`` and ``param`` that states ``stated``,
        shared by every decider with the same tags and ``th`` (results are read-only)."""
        key = ((kind, type(param), param) if self.jaeger else None, stated if self.write_th else None)
        found = self._results.get(key)
        if found is None:
            found = StatedResults(self(kind, param), stated) if self.write_th else Results(self(kind, param))
            if len(self._results) < MAX_SHARED_RESULTS:  # an adaptive rate moves: bounded
                self._results[key] = found
        return found

    def same_as(self, other: Tagger) -> bool:
        return (self.jaeger, self.extra, self.write_th) == (other.jaeger, other.extra, other.write_th)


def guaranteed(sampled_by_ratio: bool, lower: TokenBucket | None) -> int:
    """Jaeger's guaranteed-throughput rule: the ratio decides, and a lower-bound credit is
    spent even when it samples; otherwise a credit samples. Returns DROP_IT, BY_RATIO or
    BY_LOWER_BOUND."""
    if sampled_by_ratio:
        if lower is not None:
            lower.try_acquire()
        return BY_RATIO
    if lower is not None and lower.try_acquire():
        return BY_LOWER_BOUND
    return DROP_IT


class Decider(Protocol):
    """One decision strategy. ``source`` names what chose it (for ``explain``)."""

    source: str

    def decide(self, trace_id: int, attributes: Attributes, trace_state: TraceState | None) -> SamplingResult:
        """The decision; called with the parent's tracestate (None: nothing to carry)."""
        ...

    def explain(self, trace_id: int) -> dict[str, Any]:
        """What ``decide`` compares, without consuming anything (no token is spent)."""
        ...


class DropDecider:
    """Never samples (``action: drop``)."""

    __slots__ = ("results", "source")

    def __init__(self, source: str, tags: Tagger) -> None:
        self.source = source
        self.results = tags.results("drop", 0.0)

    def decide(self, trace_id: int, attributes: Attributes, trace_state: TraceState | None) -> SamplingResult:
        return self.results.dropped(trace_state)

    def explain(self, trace_id: int) -> dict[str, Any]:
        return {"strategy": "drop", "sampled": False}


class RatioDecider(Ratio):
    """A trace-ID ratio with its results, tagged ``probabilistic`` or as ``tagged_as``
    says (rate 1 under a global cap is Jaeger's ``ratelimiting``, which states no
    threshold)."""

    __slots__ = ("keyed", "results", "source")

    def __init__(
        self,
        source: str,
        rate: float,
        scheme: HashScheme,
        tags: Tagger,
        *,
        tagged_as: tuple[str, float] | None = None,
    ) -> None:
        super().__init__(rate, scheme)
        self.source = source
        stated = NOTHING_STATED if tagged_as else statement(scheme, rate, self.bound)
        self.results = tags.results(*(tagged_as or ("probabilistic", rate)), stated)
        self.keyed = isinstance(self.results, StatedResults) and self.results.keyed

    def decide(self, trace_id: int, attributes: Attributes, trace_state: TraceState | None) -> SamplingResult:
        key = self.key(trace_id)
        if key < self.bound:
            return self.stated(key, attributes, trace_state)
        return self.results.dropped(trace_state)

    def stated(self, key: int, attributes: Attributes, trace_state: TraceState | None) -> SamplingResult:
        """The sampled result of the trace whose ``key`` this ratio admitted (with the
        ``rv`` of the key when ``keyed``)."""
        if self.keyed:
            return self.results.sample_key(key, attributes, trace_state)
        return self.results.sample(attributes, trace_state)

    def on_trace_id(self, trace_id: object) -> SamplingResult:
        """The fallback decision on the trace ID alone, by the pure-Python scheme. Never
        raises: anything but an int is dropped."""
        if not isinstance(trace_id, int):
            return DROPPED
        try:
            sampled = self.key_of(trace_id) < self.bound
        except Exception:  # defensive: int's own operators on an int do not raise
            return DROPPED
        return self.results.sampled if sampled else DROPPED

    def explain(self, trace_id: int) -> dict[str, Any]:
        key = self.key_of(trace_id)
        return {
            "strategy": "probabilistic",
            "rate": self.rate,
            "hash": self.scheme.name,
            "key": key,
            "bound": self.bound,
            "sampled": key < self.bound,
        }


class RateLimitDecider:
    """At most ``per_second`` traces per second (``action: {rate_limit: n}``)."""

    __slots__ = ("bucket", "per_second", "results", "source")

    def __init__(self, source: str, bucket: TokenBucket, per_second: float, tags: Tagger) -> None:
        self.source = source
        self.bucket = bucket
        self.per_second = per_second  # the bucket's rate once the snapshot is compiled
        self.results = tags.results("ratelimiting", per_second)

    def decide(self, trace_id: int, attributes: Attributes, trace_state: TraceState | None) -> SamplingResult:
        if self.bucket.try_acquire():
            return self.results.sample(attributes, trace_state)
        return self.results.dropped(trace_state)

    def explain(self, trace_id: int) -> dict[str, Any]:
        return {"strategy": "ratelimiting", "per_second": self.per_second}


class OperationDecider:
    """One operation's guaranteed-throughput sampler (:func:`guaranteed`)."""

    __slots__ = ("lower", "lower_per_second", "lower_results", "ratio", "source")

    def __init__(
        self, ratio: RatioDecider, lower: TokenBucket | None, lower_per_second: float, tags: Tagger
    ) -> None:
        self.source = ratio.source
        self.ratio = ratio
        self.lower = lower
        self.lower_per_second = lower_per_second if lower is not None else 0.0
        self.lower_results = tags.results("lowerbound", ratio.rate)

    def decide(self, trace_id: int, attributes: Attributes, trace_state: TraceState | None) -> SamplingResult:
        key = self.ratio.key(trace_id)
        outcome = guaranteed(key < self.ratio.bound, self.lower)
        if outcome == BY_RATIO:
            return self.ratio.stated(key, attributes, trace_state)
        if outcome == BY_LOWER_BOUND:
            return self.lower_results.sample(attributes, trace_state)
        return self.lower_results.dropped(trace_state)

    def explain(self, trace_id: int) -> dict[str, Any]:
        out = self.ratio.explain(trace_id)
        out["lower_bound_per_second"] = self.lower_per_second
        return out


class RolloutDecider:
    """A rate that steps up over time, by the same trace-ID hash, so every trace sampled
    at one step stays sampled at the next. Before the first step nothing is sampled."""

    __slots__ = ("clock", "source", "starts", "steps")

    def __init__(
        self,
        source: str,
        starts: Sequence[float],
        rates: Sequence[float],
        scheme: HashScheme,
        clock: Clock,
        tags: Tagger,
    ) -> None:
        self.source = source
        self.clock = clock
        self.starts = tuple(starts)
        self.steps = tuple(RatioDecider(source, rate, scheme, tags) for rate in rates)

    def current(self) -> RatioDecider | None:
        """The step in force now, None before the first."""
        i = bisect_right(self.starts, self.clock.monotonic()) - 1
        return self.steps[i] if i >= 0 else None

    def decide(self, trace_id: int, attributes: Attributes, trace_state: TraceState | None) -> SamplingResult:
        step = self.current()
        if step is None:
            return self.steps[0].results.dropped(trace_state)
        return step.decide(trace_id, attributes, trace_state)

    def explain(self, trace_id: int) -> dict[str, Any]:
        step = self.current()
        if step is None:
            return {"strategy": "rollout", "step": None, "rate": 0.0, "sampled": False}
        return {**step.explain(trace_id), "strategy": "rollout", "step": self.steps.index(step)}
