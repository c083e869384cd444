"""The results a decision returns, built once when a strategy is compiled and shared by
every decision that ends the same way, so they refuse to change (:class:`FrozenResult`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from opentelemetry.sdk.trace.sampling import Decision, SamplingResult
from opentelemetry.trace.span import DEFAULT_TRACE_STATE, TraceState
from opentelemetry.util.types import Attributes

DROP: Final = Decision.DROP
RECORD_AND_SAMPLE: Final = Decision.RECORD_AND_SAMPLE
EMPTY: Final[Mapping[str, Any]] = MappingProxyType({})

_new = object.__new__


class FrozenResult(SamplingResult):
    """A ``SamplingResult`` that refuses to change (setting or deleting any attribute
    raises ``AttributeError``): it is shared by every decision that ends the same way,
    so a wrapper that set ``trace_state`` on one would change every later trace.
    """

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(
            f"dsampler's SamplingResult is shared by many decisions and read-only (setting {name!r}); "
            "build a new SamplingResult instead"
        )

    def __delattr__(self, name: str) -> None:
        raise AttributeError(
            f"dsampler's SamplingResult is shared by many decisions and read-only ({name!r})"
        )


def make_result(
    decision: Decision, attributes: Mapping[str, Any], trace_state: TraceState | None
) -> SamplingResult:
    """A read-only ``SamplingResult``, built without ``__init__`` (``attributes`` read-only already)."""
    result: SamplingResult = _new(FrozenResult)
    result.__dict__.update(decision=decision, attributes=attributes, trace_state=trace_state)
    return result


DROPPED: Final = make_result(DROP, EMPTY, None)


class Results:
    """The results of one decision strategy: a sampled result carrying ``tags``, built once;
    a new ``SamplingResult`` only for a span with attributes or a tracestate to carry."""

    __slots__ = ("sampled", "tags")

    def __init__(self, tags: Mapping[str, Any]) -> None:
        self.tags = dict(tags)
        self.sampled = make_result(RECORD_AND_SAMPLE, MappingProxyType(self.tags), None)

    def sample(self, attributes: Attributes, trace_state: TraceState | None) -> SamplingResult:
        if not attributes and (trace_state is None or trace_state is DEFAULT_TRACE_STATE):
            return self.sampled
        if not attributes:
            merged: Mapping[str, Any] = self.tags
        elif not self.tags:
            merged = attributes
        else:  # the span's own attributes win over the sampler's tags of the same name
            merged = {**self.tags, **attributes}
        return SamplingResult(RECORD_AND_SAMPLE, merged, trace_state)

    def sample_key(self, key: int, attributes: Attributes, trace_state: TraceState | None) -> SamplingResult:
        """A span sampled by its hash key (results that state a threshold write its ``rv``)."""
        return self.sample(attributes, trace_state)

    @staticmethod
    def drop(trace_state: TraceState | None) -> SamplingResult:
        if trace_state is None or trace_state is DEFAULT_TRACE_STATE:
            return DROPPED
        return SamplingResult(DROP, EMPTY, trace_state)

    def dropped(self, trace_state: TraceState | None) -> SamplingResult:
        """This strategy's dropped result (results that state a threshold erase it)."""
        return self.drop(trace_state)
