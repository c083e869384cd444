"""Sampling intents and the composable-sampler protocol (OTEP 250), with OpenTelemetry
Python's names and signature, so their composables work here and ours there."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from opentelemetry.context import Context
from opentelemetry.trace import Link, SpanKind
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

from dsampler._validate import typed
from dsampler.consistent._threshold import INVALID_THRESHOLD
from dsampler.errors import ConfigError


def keep_trace_state(trace_state: TraceState) -> TraceState:
    """The tracestate change that changes nothing (the default of every intent)."""
    return trace_state


@dataclass(frozen=True, slots=True)
class SamplingIntent:
    """What a composable sampler would like to happen to a span.

    Attributes:
        threshold: the rejection threshold ``T`` in [0, 2**56] (sample iff ``R >= T``),
            or -1 (:data:`~dsampler.consistent._threshold.INVALID_THRESHOLD`): do not sample.
        threshold_reliable: ``T`` is the probability the span is sampled with, so a
            sampled span carries ``th`` and a backend may count it ``1/p`` times.
            When false the span carries no ``th``, and a threshold other than 0 is
            drawn against fresh randomness rather than the trace's.
        attributes: attributes for a sampled span (the span's own win a clash).
        update_trace_state: a change to the parent's tracestate (other entries than
            ``ot``: the composite sampler owns ``th``).
    """

    threshold: int
    threshold_reliable: bool = True
    attributes: Attributes = None
    update_trace_state: Callable[[TraceState], TraceState] = keep_trace_state


#: The intent not to sample: no threshold.
NON_SAMPLING = SamplingIntent(INVALID_THRESHOLD, threshold_reliable=False)


class IntentLike(Protocol):
    """Anything with a :class:`SamplingIntent`'s four attributes: dsampler's intents and
    OpenTelemetry Python's alike."""

    @property
    def threshold(self) -> int: ...

    @property
    def threshold_reliable(self) -> bool: ...

    @property
    def attributes(self) -> Attributes: ...

    @property
    def update_trace_state(self) -> Callable[[TraceState], TraceState]: ...


class ComposableSampler(Protocol):
    """A sampler that states intents instead of deciding (OpenTelemetry's protocol)."""

    def sampling_intent(
        self,
        parent_ctx: Context | None,
        name: str,
        span_kind: SpanKind | None,
        attributes: Attributes,
        links: Sequence[Link] | None,
        trace_state: TraceState | None,
    ) -> IntentLike:
        """The intent for a span (``trace_state``: the parent's); must not change its arguments."""
        ...

    def get_description(self) -> str:
        """A description of the sampler and its configuration."""
        ...


class Described:
    """Base of dsampler's composable samplers: the description given, as
    ``get_description()`` and ``repr``."""

    __slots__ = ("_description",)

    def __init__(self, description: str) -> None:
        self._description = description

    def get_description(self) -> str:
        return self._description

    def __repr__(self) -> str:
        return self._description


def check_composable(sampler: object, field: str) -> ComposableSampler:
    """``sampler`` if it has ``sampling_intent`` and ``get_description``, else a ConfigError."""
    try:
        usable = callable(getattr(sampler, "sampling_intent", None)) and callable(
            getattr(sampler, "get_description", None)
        )
    except Exception:  # a hostile __getattr__
        usable = False
    if not usable:
        raise ConfigError(
            field, f"expected a composable sampler (sampling_intent, get_description), got {typed(sampler)}"
        )
    return sampler  # type: ignore[return-value]
