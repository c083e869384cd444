"""Parent-based sampling: children follow their parent, roots ask a root sampler."""

from __future__ import annotations

from collections.abc import Sequence

from opentelemetry.context import Context
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON, Sampler, SamplingResult
from opentelemetry.trace import Link, Span, SpanKind
from opentelemetry.trace.span import DEFAULT_TRACE_STATE, TraceState
from opentelemetry.util.types import Attributes

from dsampler.decision import (
    CHILD_RESULTS,
    SPAN_KEY,
    ChildResults,
    FaultCountingSampler,
    FaultLog,
    Results,
    current_context,
    parent_trace_state,
)
from dsampler.errors import ConfigError


class ParentBasedSampler(FaultCountingSampler):
    """OpenTelemetry's ``ParentBased`` semantics at a fraction of its cost.

    A span with a valid parent follows the delegate for its case (remote or local
    parent, sampled or not); a root span asks ``root``. The default delegates are
    answered from results built once, without a call; any other delegate is called as
    OpenTelemetry's ``ParentBased`` would. ``OTEL_TRACES_SAMPLER=parentbased_dsampler``
    returns one.

    Args:
        root: decides spans without a valid parent.
        remote_parent_sampled: default ``ALWAYS_ON``.
        remote_parent_not_sampled: default ``ALWAYS_OFF``.
        local_parent_sampled: default ``ALWAYS_ON``.
        local_parent_not_sampled: default ``ALWAYS_OFF``.

    Raises:
        ConfigError: an argument is not an OpenTelemetry ``Sampler``.
    """

    def __init__(
        self,
        root: Sampler,
        remote_parent_sampled: Sampler = ALWAYS_ON,
        remote_parent_not_sampled: Sampler = ALWAYS_OFF,
        local_parent_sampled: Sampler = ALWAYS_ON,
        local_parent_not_sampled: Sampler = ALWAYS_OFF,
    ) -> None:
        named = {
            "root": root,
            "remote_parent_sampled": remote_parent_sampled,
            "remote_parent_not_sampled": remote_parent_not_sampled,
            "local_parent_sampled": local_parent_sampled,
            "local_parent_not_sampled": local_parent_not_sampled,
        }
        for field, sampler in named.items():
            if not isinstance(sampler, Sampler):
                raise ConfigError(field, f"expected an opentelemetry Sampler, got {type(sampler).__name__}")
        self._root = root
        # Indexed by 2 * is_remote + sampled flag.
        self._delegates = (
            local_parent_not_sampled,
            local_parent_sampled,
            remote_parent_not_sampled,
            remote_parent_sampled,
        )
        # The one result OpenTelemetry's static samplers give a child without attributes.
        self._static = tuple(
            CHILD_RESULTS[1] if d is ALWAYS_ON else CHILD_RESULTS[0] if d is ALWAYS_OFF else None
            for d in self._delegates
        )
        self._children = ChildResults()
        self._fault_log = FaultLog("ParentBasedSampler")

    @property
    def root(self) -> Sampler:
        """The sampler that decides root spans."""
        return self._root

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
            span: Span | None = (parent_context if parent_context is not None else current_context()).get(
                SPAN_KEY
            )  # type: ignore[assignment]
            sc = None if span is None else span.get_span_context()
            if sc is None or not sc.is_valid:
                return self._root.should_sample(parent_context, trace_id, name, kind, attributes, links)
            case: int = 2 * sc.is_remote + (sc.trace_flags & 1)
            static = self._static[case]
            if static is None:
                return self._delegates[case].should_sample(
                    parent_context, trace_id, name, kind, attributes, links
                )
            if not attributes and sc.trace_state is DEFAULT_TRACE_STATE:
                return static
            return self._children.of(case, static.decision, attributes, sc.trace_state)
        except Exception:
            self._fault_log.record()
            return self._fallback(parent_context, trace_id, name, kind, attributes, links)

    def _fallback(
        self,
        parent_context: Context | None,
        trace_id: int,
        name: str,
        kind: SpanKind | None,
        attributes: Attributes,
        links: Sequence[Link] | None,
    ) -> SamplingResult:
        """Decide as a root in an empty context, keeping the parent's tracestate where it
        can still be read and the root wrote none of its own."""
        kept = parent_trace_state(parent_context)
        try:
            result = self._root.should_sample(Context(), trace_id, name, kind, attributes, links)
        except Exception:  # a foreign root sampler may raise; we may not
            return Results.drop(kept)
        if kept is None or result.trace_state:
            return result
        return SamplingResult(result.decision, result.attributes, kept)

    def get_description(self) -> str:
        d = [s.get_description() for s in self._delegates]
        return (
            f"ParentBased{{root:{self._root.get_description()},remoteParentSampled:{d[3]},"
            f"remoteParentNotSampled:{d[2]},localParentSampled:{d[1]},localParentNotSampled:{d[0]}}}"
        )
