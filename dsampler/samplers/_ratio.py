"""Trace-ID ratio sampling: hash the trace ID, compare with a precomputed bound."""

from __future__ import annotations

from collections.abc import Sequence

from opentelemetry.context import Context
from opentelemetry.sdk.trace.sampling import SamplingResult
from opentelemetry.trace import Link, SpanKind
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

from dsampler._validate import check_bool, check_rate
from dsampler.decision import (
    DROPPED,
    SPAN_KEY,
    FaultCountingSampler,
    FaultLog,
    Results,
    current_context,
    integer_value,
    span_context_of,
    trace_state_of,
)
from dsampler.engine import RatioDecider, Tagger
from dsampler.hashing import DEFAULT_SCHEME, LOADER, get_scheme


class RatioSampler(FaultCountingSampler):
    """Samples a fixed fraction of traces, decided by a hash of the trace ID alone.

    Every service using the same rate and rule keeps the same traces, whatever the
    language, and a trace kept at rate ``r`` is kept at every rate above ``r``. Use it as
    the root of :class:`~dsampler.ParentBasedSampler` so children follow their parent.
    The parent's tracestate is returned unchanged with every decision.

    Trace IDs are reduced modulo 2**128, so 0, a negative or a wider int still gets a
    decision; an integer of another type (numpy's) is decided by its value; anything
    else is dropped and counted in :attr:`faults`. ``should_sample`` never raises.

    Args:
        rate: fraction of traces to sample, in [0, 1].
        hash: decision rule (default ``fnv1a``; ``xxh3`` hashes in C, without numba).
        sampler_tags: sampled spans carry ``sampler.type="probabilistic"`` and
            ``sampler.param=rate``, the tags Jaeger's adaptive sampling learns from
            (default False).

    Raises:
        ConfigError: ``rate`` is not a number in [0, 1] (NaN, bool and str included),
            or ``hash`` names no rule.
    """

    def __init__(self, rate: float, hash: str = DEFAULT_SCHEME, *, sampler_tags: bool = False) -> None:
        self._rate = check_rate(rate)
        tagger = Tagger(jaeger=check_bool(sampler_tags, "sampler_tags"))
        decider = self._decider = RatioDecider("rate", self._rate, get_scheme(hash), tagger)
        # the decider's parts as attributes of their own: one load each on the hot path
        self._scheme, self._bound, self._results = decider.scheme, decider.bound, decider.results
        self._key = decider.key
        self._sampled = self._results.sampled
        self._dropped = DROPPED
        self._fault_log = FaultLog(self.get_description())
        if self._scheme.needs_kernel:
            LOADER.ensure_started()

    @property
    def rate(self) -> float:
        """The configured sampling rate."""
        return self._rate

    @property
    def hash(self) -> str:
        """Name of the hash scheme."""
        return self._scheme.name

    @property
    def bound(self) -> int:
        """Integer bound: a trace is sampled iff its key is below it."""
        return self._bound

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
            if self._key(trace_id) < self._bound:
                if not attributes and ts is None:
                    return self._sampled
                return self._results.sample(attributes, ts)
            return self._dropped if ts is None else Results.drop(ts)
        except Exception:
            as_int = integer_value(trace_id)
            if as_int is not None:  # numpy's integers: decided as the int, on every path
                return self.should_sample(parent_context, as_int, name, kind, attributes, links)
            self._fault_log.record()
            return self._decider.on_trace_id(trace_id)

    def get_description(self) -> str:
        return f"RatioSampler{{rate={self._rate},hash={self._scheme.name}}}"
