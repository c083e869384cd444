"""Rate-limiting sampling: at most N root traces per second, per process."""

from __future__ import annotations

from collections.abc import Sequence

from opentelemetry.context import Context
from opentelemetry.sdk.trace.sampling import SamplingResult
from opentelemetry.trace import Link, SpanKind
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

from dsampler._validate import check_bool, check_per_second
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.decision import (
    DROPPED,
    SPAN_KEY,
    FaultCountingSampler,
    FaultLog,
    Results,
    TokenBucket,
    current_context,
    span_context_of,
    trace_state_of,
)


class RateLimitingSampler(FaultCountingSampler):
    """At most ``traces_per_second`` root traces per second, per process, by a
    :class:`TokenBucket` with Jaeger's semantics (it holds ``max(traces_per_second, 1)``
    and starts full; a rate of 0 samples nothing). Use it as the root of
    :class:`~dsampler.ParentBasedSampler` so whole traces are kept. The decision takes
    no lock and never raises.

    Args:
        traces_per_second: a finite number >= 0; fractions work (1/60: one a minute).
        clock: monotonic time source.
        sampler_tags: sampled spans carry ``sampler.type="ratelimiting"`` and
            ``sampler.param`` (default False).

    Raises:
        ConfigError: a negative, NaN, infinite or non-numeric rate.
    """

    def __init__(
        self, traces_per_second: float, *, clock: Clock = SYSTEM_CLOCK, sampler_tags: bool = False
    ) -> None:
        self._bucket = TokenBucket(check_per_second(traces_per_second, "traces_per_second"), clock=clock)
        tags = {"sampler.type": "ratelimiting", "sampler.param": self._bucket.credits_per_second}
        self._results = Results(tags if check_bool(sampler_tags, "sampler_tags") else {})
        self._sampled = self._results.sampled
        self._fault_log = FaultLog(self.get_description())

    @property
    def traces_per_second(self) -> float:
        """The configured rate."""
        return self._bucket.credits_per_second

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
            span = (parent_context if parent_context is not None else current_context()).get(SPAN_KEY)
            ts = None if span is None else trace_state_of(span_context_of(span))
            if self._bucket.try_acquire():
                return (
                    self._sampled if not attributes and ts is None else self._results.sample(attributes, ts)
                )
            return DROPPED if ts is None else Results.drop(ts)
        except Exception:  # the parent could not be read: decide as a root
            self._fault_log.record()
            return self._sampled if self._bucket.try_acquire() else DROPPED

    def get_description(self) -> str:
        return f"RateLimitingSampler{{{self._bucket.credits_per_second}}}"
