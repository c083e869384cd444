"""Consistent probability sampling: dsampler's composite_sampler(composable_traceid_ratio_based(0.1))
next to OpenTelemetry Python's own (opentelemetry-sdk's ``_sampling_experimental``),
timed in the same run.

Labelled like test_decision.py (``impl``, ``case`` in ``extra_info``) for
``benchmarks/report.py``; every benchmark checks the decision and the ``ot`` value it
times, and no assertion looks at a timing. Children are children of a sampled local
parent whose tracestate carries ``ot=th:...`` and a vendor entry. OpenTelemetry Python's
composite reads the parent's tracestate only from its ``trace_state`` argument, which the
SDK never passes: "child" calls both as the SDK does (theirs then returns no tracestate at
all), "child, trace_state passed" gives theirs the argument it needs to be correct.
"""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry.context import Context
from opentelemetry.sdk.trace._sampling_experimental import composable_traceid_ratio_based as otel_ratio
from opentelemetry.sdk.trace._sampling_experimental import composite_sampler as otel_composite
from opentelemetry.sdk.trace.sampling import Decision, Sampler
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context
from opentelemetry.trace.span import TraceState
from pytest_benchmark.fixture import BenchmarkFixture

from dsampler.consistent import composable_traceid_ratio_based, composite_sampler, ratio_to_threshold
from dsampler.consistent._tracestate import ot_of

NAME = "GET /x"
RATE = 0.1
TH = "th:e6666666666666"
PEERS = ["dsampler", "otel"]
SCALAR = {"min_time": 1e-4, "warmup": True, "warmup_iterations": 20_000}
THRESHOLD = ratio_to_threshold(RATE)
SAMPLED = (0x4BF92F3577B34DA6 << 64) | (0xA3 << 56) | (THRESHOLD + 12345)  # R >= T
DROPPED = (0x4BF92F3577B34DA6 << 64) | (0xA3 << 56) | (THRESHOLD - 12345)  # R < T
PARENT_STATE = TraceState([("ot", TH), ("congo", "t61rcWkgMzE")])


def _sampler(impl: str) -> Sampler:
    if impl == "dsampler":
        return composite_sampler(composable_traceid_ratio_based(RATE))
    return otel_composite(otel_ratio(RATE))


def _label(benchmark: BenchmarkFixture, impl: str, case: str) -> None:
    benchmark.extra_info.update(impl=impl, case=case)


@pytest.mark.benchmark(group="consistent", **SCALAR)
@pytest.mark.parametrize("impl", PEERS)
@pytest.mark.parametrize("case", ["root sampled", "root dropped"])
def test_root(benchmark: BenchmarkFixture, impl: str, case: str) -> None:
    """Measures a root's ``should_sample``: sampled (the result carries ot=th:...) or dropped."""
    _label(benchmark, impl, case)
    sampled = case.endswith("sampled")

    result = benchmark(_sampler(impl).should_sample, None, SAMPLED if sampled else DROPPED, NAME)

    assert result.decision is (Decision.RECORD_AND_SAMPLE if sampled else Decision.DROP)
    assert ot_of(result.trace_state) == (TH if sampled else None)


@pytest.mark.benchmark(group="consistent", **SCALAR)
@pytest.mark.parametrize("impl", PEERS)
@pytest.mark.parametrize("passed", [False, True], ids=["as-the-sdk-calls", "trace-state-passed"])
@pytest.mark.parametrize("sampled", [True, False], ids=["sampled", "dropped"])
def test_child(benchmark: BenchmarkFixture, impl: str, passed: bool, sampled: bool) -> None:
    """Measures a child's ``should_sample`` under a sampled parent carrying th and a
    vendor entry, its own trace ID sampled or not at 0.1."""
    _label(
        benchmark,
        impl,
        ("child sampled" if sampled else "child dropped") + (", trace_state passed" if passed else ""),
    )
    trace_id = SAMPLED if sampled else DROPPED
    parent = SpanContext(trace_id, 0xABC, False, TraceFlags(TraceFlags.SAMPLED), PARENT_STATE)
    context: Context = set_span_in_context(NonRecordingSpan(parent))
    extra: dict[str, Any] = {"trace_state": PARENT_STATE} if passed else {}

    result = benchmark(_sampler(impl).should_sample, context, trace_id, NAME, **extra)

    assert result.decision is (Decision.RECORD_AND_SAMPLE if sampled else Decision.DROP)
    if impl == "dsampler":
        assert ot_of(result.trace_state) == (TH if sampled else None)
        assert result.trace_state is not None
        assert result.trace_state.get("congo") == "t61rcWkgMzE"
    elif passed:  # theirs keeps the stale th on a drop that leaves ot otherwise empty
        assert ot_of(result.trace_state) == TH
        assert result.trace_state is not None
        assert result.trace_state.get("congo") == "t61rcWkgMzE"
    else:  # theirs, as the SDK calls it: the parent's tracestate is gone
        assert ot_of(result.trace_state) == (TH if sampled else None)
        assert result.trace_state is None or "congo" not in result.trace_state
