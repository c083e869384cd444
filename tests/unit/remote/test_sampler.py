"""JaegerRemoteSampler before its first strategy: the initial sampler a user hands in
decides, and whatever it raises stays inside (the span dropped, the fault counted)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import pytest
from opentelemetry.context import Context
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.sampling import Sampler, SamplingResult
from opentelemetry.trace import Link, SpanKind
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

from dsampler import JaegerRemoteSampler
from dsampler.protocol import ProbabilisticStrategy
from tests.parents import remote_parent

# Nothing listens on port 9 (discard); the sampler never polls (start=False) anyway.
URL = "http://127.0.0.1:9/sampling"


class Raising(Sampler):
    """A user's sampler with a bug: every decision raises."""

    def __init__(self) -> None:
        self.calls = 0

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
        self.calls += 1
        raise RuntimeError("the user's sampler is broken")

    def get_description(self) -> str:
        return "Raising"


def test_an_initial_sampler_that_raises_drops_the_span_and_counts_the_fault(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Five spans under a remote parent with a tracestate, through a real TracerProvider:
    each one is asked of the user's sampler, none raises, each is dropped carrying the
    parent's tracestate, ``faults`` counts five and one WARNING names the sampler."""
    user = Raising()
    sampler = JaegerRemoteSampler("svc", URL, initial_sampler=user, start=False, resource={})
    tracer = TracerProvider(sampler=sampler).get_tracer("test")
    state = TraceState([("vendor", "kept")])
    with caplog.at_level(logging.WARNING, logger="dsampler"):
        for trace_id in range(1, 6):
            span = tracer.start_span("op", context=remote_parent(trace_id << 64, True, state))
            assert not span.is_recording()
            assert not span.get_span_context().trace_flags.sampled
            assert span.get_span_context().trace_state == state
            span.end()
    assert user.calls == 5
    assert sampler.faults == 5
    assert sampler.engine.faults == 5  # counted where telemetry reads them (dsampler.faults)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "JaegerRemoteSampler: its initial sampler raised; the span is dropped" in warnings[0].getMessage()
    assert warnings[0].exc_info is not None  # with the user's traceback


def test_faults_adds_the_engines_to_the_initial_samplers() -> None:
    """Without a user's sampler ``faults`` is the engine's own (a trace ID that is no
    integer is one); a root decided by a raising initial sampler is one more, counted
    in the same place, and so is the engine's own fault once a strategy is in force."""
    plain = JaegerRemoteSampler("svc", URL, initial_sampler=0.5, start=False, resource={})
    assert plain.faults == 0
    plain.should_sample(None, "not a trace id", "op")  # type: ignore[arg-type]
    assert plain.faults == plain.engine.faults == 1
    guarded = JaegerRemoteSampler("svc", URL, initial_sampler=Raising(), start=False, resource={})
    assert not guarded.should_sample(None, 7, "op").decision.is_sampled()
    assert guarded.faults == guarded.engine.faults == 1
    assert guarded.follower.apply(ProbabilisticStrategy(0.5))  # the engine decides from now on
    guarded.should_sample(None, "not a trace id", "op")  # type: ignore[arg-type]
    assert guarded.faults == guarded.engine.faults == 2
