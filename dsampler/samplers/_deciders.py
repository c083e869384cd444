"""Decision strategies of a compiled snapshot, one per rule action, operation and the
default: each turns (trace ID, span attributes, parent tracestate) into a result.

A route is built when a snapshot is published (bounds computed, results prebuilt) and
never changes afterwards; the state that must outlive a snapshot (token-bucket
balances, rollout anchors) is handed in from the outside.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Any, Protocol

from opentelemetry.sdk.trace.sampling import SamplingResult
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

from dsampler.clock import Clock
from dsampler.hashing._reference import MASK64
from dsampler.hashing._schemes import HashScheme
from dsampler.samplers._bucket import TokenBucket
from dsampler.samplers._otel import DROPPED, Results

__all__ = ["Decider", "DropDecider", "OperationDecider", "RateLimitDecider", "RatioDecider", "RolloutDecider"]


class Decider(Protocol):
    """One decision strategy. ``source`` names what chose it (for ``explain``)."""

    source: str

    def decide(self, trace_id: int, attributes: Attributes, trace_state: TraceState | None) -> SamplingResult:
        """The decision; called with the parent's tracestate (None: nothing to carry)."""
        ...

    def explain(self, trace_id: int) -> dict[str, Any]:
        """What ``decide`` compares, without consuming anything (no token is spent)."""
        ...


def _tags(kind: str, param: float, version_tag: dict[str, int]) -> dict[str, Any]:
    return {"sampler.type": kind, "sampler.param": param, **version_tag}


class DropDecider:
    """Never samples (``action: drop``)."""

    __slots__ = ("source",)

    def __init__(self, source: str) -> None:
        self.source = source

    def decide(self, trace_id: int, attributes: Attributes, trace_state: TraceState | None) -> SamplingResult:
        return Results.drop(trace_state)

    def explain(self, trace_id: int) -> dict[str, Any]:
        return {"strategy": "drop"}


class RatioDecider:
    """``key(trace ID) < bound``: a trace-ID ratio, tagged ``probabilistic``."""

    __slots__ = ("bound", "rate", "results", "scheme", "source")

    def __init__(self, source: str, rate: float, scheme: HashScheme, version_tag: dict[str, int]) -> None:
        self.source = source
        self.rate = rate
        self.scheme = scheme
        self.bound = scheme.bound(rate)
        self.results = Results(_tags("probabilistic", rate, version_tag))

    def decide(self, trace_id: int, attributes: Attributes, trace_state: TraceState | None) -> SamplingResult:
        if self.scheme.key((trace_id >> 64) & MASK64, trace_id & MASK64) < self.bound:
            return self.results.sample(attributes, trace_state)
        return Results.drop(trace_state)

    def on_trace_id(self, trace_id: object) -> SamplingResult:
        """The decision on the trace ID alone, by the pure-Python rule: what a sampler
        falls back to when it cannot read its input. Anything but an int is dropped."""
        if not isinstance(trace_id, int):
            return DROPPED
        key = self.scheme.reference((trace_id >> 64) & MASK64, trace_id & MASK64)
        return self.results.sampled if key < self.bound else DROPPED

    def explain(self, trace_id: int) -> dict[str, Any]:
        key = self.scheme.reference((trace_id >> 64) & MASK64, trace_id & MASK64)
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

    def __init__(
        self, source: str, bucket: TokenBucket, per_second: float, version_tag: dict[str, int]
    ) -> None:
        self.source = source
        self.bucket = bucket
        self.per_second = per_second  # the bucket takes this rate when the snapshot commits
        self.results = Results(_tags("ratelimiting", self.per_second, version_tag))

    def decide(self, trace_id: int, attributes: Attributes, trace_state: TraceState | None) -> SamplingResult:
        if self.bucket.try_acquire():
            return self.results.sample(attributes, trace_state)
        return Results.drop(trace_state)

    def explain(self, trace_id: int) -> dict[str, Any]:
        return {"strategy": "ratelimiting", "per_second": self.per_second}


class OperationDecider:
    """Jaeger's guaranteed-throughput sampler for one operation: sample if the trace-ID
    ratio samples (and spend a lower-bound credit anyway), else if the lower-bound
    bucket has a credit (tagged ``lowerbound``)."""

    __slots__ = ("lower", "lower_per_second", "lower_results", "ratio", "source")

    def __init__(
        self,
        ratio: RatioDecider,
        lower: TokenBucket | None,
        lower_per_second: float,
        version_tag: dict[str, int],
    ) -> None:
        self.source = ratio.source
        self.ratio = ratio
        self.lower = lower
        self.lower_per_second = lower_per_second if lower is not None else 0.0
        self.lower_results = Results(_tags("lowerbound", ratio.rate, version_tag))

    def decide(self, trace_id: int, attributes: Attributes, trace_state: TraceState | None) -> SamplingResult:
        ratio, lower = self.ratio, self.lower
        if ratio.scheme.key((trace_id >> 64) & MASK64, trace_id & MASK64) < ratio.bound:
            if lower is not None:
                lower.try_acquire()  # Jaeger spends the credit even when the ratio samples
            return ratio.results.sample(attributes, trace_state)
        if lower is not None and lower.try_acquire():
            return self.lower_results.sample(attributes, trace_state)
        return Results.drop(trace_state)

    def explain(self, trace_id: int) -> dict[str, Any]:
        out = self.ratio.explain(trace_id)
        out["lower_bound_per_second"] = self.lower_per_second
        return out


class RolloutDecider:
    """A rate that steps up over time: the step in force at the decision's monotonic
    time decides, by the same trace-ID rule, so every trace sampled at one step stays
    sampled at the next. Before the first step nothing is sampled."""

    __slots__ = ("clock", "source", "starts", "steps")

    def __init__(
        self,
        source: str,
        starts: Sequence[float],
        rates: Sequence[float],
        scheme: HashScheme,
        clock: Clock,
        version_tag: dict[str, int],
    ) -> None:
        self.source = source
        self.clock = clock
        self.starts = tuple(starts)
        self.steps = tuple(RatioDecider(source, rate, scheme, version_tag) for rate in rates)

    def current(self) -> RatioDecider | None:
        """The step in force now, None before the first."""
        i = bisect_right(self.starts, self.clock.monotonic()) - 1
        return self.steps[i] if i >= 0 else None

    def decide(self, trace_id: int, attributes: Attributes, trace_state: TraceState | None) -> SamplingResult:
        step = self.current()
        if step is None:
            return Results.drop(trace_state)
        return step.decide(trace_id, attributes, trace_state)

    def explain(self, trace_id: int) -> dict[str, Any]:
        step = self.current()
        if step is None:
            return {"strategy": "rollout", "step": None, "rate": 0.0, "sampled": False}
        return {**step.explain(trace_id), "strategy": "rollout", "step": self.steps.index(step)}
