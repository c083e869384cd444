"""Span start+end through a real OpenTelemetry ``TracerProvider``, under each sampler.

What the sampler costs an application: ``tracer.start_span(...)`` then ``span.end()``,
with no span processor (so nothing is exported and the difference between two rows is
the sampler and what its result makes the SDK record). Every provider hands out one
fixed trace ID, sampled (or dropped) by both sides of the row, and span IDs from a
seeded generator.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from typing import Any

from opentelemetry.context import Context
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.sdk.trace.sampling import ParentBased, Sampler, TraceIdRatioBased
from opentelemetry.trace import SpanKind, set_span_in_context

from dsampler.cli.bench import _cases
from dsampler.cli.bench._harness import Case
from dsampler.cli.bench._rows import NAME, Group, Ids, Row

#: dsampler's target: span start+end with DSampler no slower than with OTel's own samplers.
SPAN_FIGURE = 1.0


class _FixedTraceId(IdGenerator):
    """Every trace gets one ID, so both sides of a row make the same decision on every span."""

    def __init__(self, trace_id: int) -> None:
        self._trace_id = trace_id
        self._rng = random.Random(1)

    def generate_trace_id(self) -> int:
        return self._trace_id

    def generate_span_id(self) -> int:
        return self._rng.getrandbits(64) | 1


def _tracer(stack: ExitStack, sampler: Sampler, trace_id: int) -> Any:
    provider = TracerProvider(
        sampler=sampler,
        resource=Resource(dict(_cases.RESOURCE)),
        id_generator=_FixedTraceId(trace_id),
        shutdown_on_exit=False,
    )
    stack.callback(provider.shutdown)
    return provider.get_tracer("dsampler-bench")


def _root_span(tracer: Any, kind: SpanKind, attributes: Mapping[str, Any] | None) -> Callable[[], Any]:
    root = Context()

    def span() -> Any:
        s = tracer.start_span(NAME, root, kind, attributes)
        s.end()
        return s

    return span


def _root_and_child(tracer: Any) -> Callable[[], Any]:
    root_context = Context()

    def spans() -> Any:
        root = tracer.start_span(NAME, root_context)
        child = tracer.start_span("child", set_span_in_context(root))
        child.end()
        root.end()
        return child  # sampled only if it followed its sampled root

    return spans


def _flag(sampled: bool) -> Callable[[object], bool]:
    def check(span: Any) -> bool:
        return bool(span.get_span_context().trace_flags.sampled is sampled)

    return check


#: Root span shapes: (kind, attributes); None stands for a root with one child.
_INTERNAL = (SpanKind.INTERNAL, None)
_SERVER = (SpanKind.SERVER, _cases.SPAN_ATTRIBUTES)
#: case key -> (sampler, sampled?, shape)
_CASES: dict[str, tuple[str, bool, tuple[SpanKind, Any] | None]] = {
    "span.ratio": ("ratio", True, _INTERNAL),
    "span.otel.ratio": ("otel.ratio", True, _INTERNAL),
    "span.parentbased": ("parentbased", True, None),
    "span.otel.parentbased": ("otel.parentbased", True, None),
    "span.dsampler.sampled": ("dsampler", True, _INTERNAL),
    "span.dsampler.dropped": ("dsampler", False, _INTERNAL),
    "span.otel.sampled": ("otel.parentbased", True, _INTERNAL),
    "span.otel.dropped": ("otel.parentbased", False, _INTERNAL),
    "span.rules": ("rules", True, _SERVER),
    "span.otel.server": ("otel.parentbased", True, _SERVER),
    "span.ratelimit": ("ratelimit", True, _INTERNAL),
}
ROWS = (
    Row("spans", "RatioSampler vs TraceIdRatioBased, sampled", "span.ratio", "span.otel.ratio"),
    Row(
        "spans", "ParentBasedSampler vs ParentBased, root+child", "span.parentbased", "span.otel.parentbased"
    ),
    Row(
        "spans", "DSampler vs ParentBased, sampled", "span.dsampler.sampled", "span.otel.sampled", SPAN_FIGURE
    ),
    Row(
        "spans", "DSampler vs ParentBased, dropped", "span.dsampler.dropped", "span.otel.dropped", SPAN_FIGURE
    ),
    Row("spans", "DSampler 10 rules vs ParentBased, server span", "span.rules", "span.otel.server"),
    Row("spans", "RateLimitingSampler vs RatioSampler, sampled", "span.ratelimit", "span.ratio"),
)


def _samplers(stack: ExitStack, rate: float) -> dict[str, tuple[str, Sampler]]:
    """name -> (who, sampler): each dsampler sampler and the OTel one a user would otherwise pick."""
    from dsampler.samplers import ParentBasedSampler, RateLimitingSampler, RatioSampler

    return {
        "ratio": ("dsampler RatioSampler", RatioSampler(rate)),
        "otel.ratio": ("OTel TraceIdRatioBased", TraceIdRatioBased(rate)),
        "parentbased": ("dsampler ParentBasedSampler(RatioSampler)", ParentBasedSampler(RatioSampler(rate))),
        "otel.parentbased": ("OTel ParentBased(TraceIdRatioBased)", ParentBased(TraceIdRatioBased(rate))),
        "dsampler": ("dsampler DSampler", _cases.dsampler(stack, rate)),
        "rules": ("dsampler DSampler, ten rules", _cases.dsampler(stack, rate, rules=_cases.TEN_RULES)),
        "ratelimit": ("dsampler RateLimitingSampler(1e9)", RateLimitingSampler(1e9)),
    }


def group(stack: ExitStack, ids: Ids) -> Group:
    """The span rows; each case has a provider of its own (its fixed trace ID)."""
    samplers = _samplers(stack, ids.rate)
    cases = []
    for key, (name, sampled, shape) in _CASES.items():
        impl, sampler = samplers[name]
        tracer = _tracer(stack, sampler, ids.sampled if sampled else ids.dropped)
        call = _root_and_child(tracer) if shape is None else _root_span(tracer, *shape)
        cases.append(Case(key, impl, call, (), _flag(sampled)))
    title = f"span start+end through a real TracerProvider (no span processor), rate {ids.rate}"
    return Group("spans", title, tuple(cases), ROWS)
