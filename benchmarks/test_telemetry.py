"""Telemetry's cost on the request path: a DSampler counting its decisions against the
same DSampler not counting, in the same run (issue 11: at most +10% per decision).

Counting adds one ``is None`` test to every decision when off, and one list increment
when on. Cases: a root span dropped and sampled by the default rate, a child of a
sampled parent, and a root decided through three rules (none matching).
``benchmarks/telemetry_callgrind.py`` counts instructions for the same cases, which
wall time on a shared machine cannot resolve.

Group ``telemetry``: impl ``on`` / ``off``.
"""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context
from pytest_benchmark.fixture import BenchmarkFixture

import dsampler

SCALAR = {"min_time": 1e-4, "warmup": True, "warmup_iterations": 20_000}
SAMPLED = 0x4BF92F3577B34DA6A3CE929D0E0E4736
RULES = [{"match": {"span_name": f"r{i}"}, "action": "drop"} for i in range(3)]
PARENT = set_span_in_context(NonRecordingSpan(SpanContext(SAMPLED, 0xABC, True, TraceFlags(1))))


def _sampler(counting: bool, **settings: Any) -> dsampler.DSampler:
    sampler = dsampler.DSampler(resource={}, **settings)
    if counting:
        sampler.engine.count_decisions()
    return sampler


def _id(rate: float, sampled: bool) -> int:
    """A trace ID the default rate samples (or drops), found by asking a reference."""
    reference = dsampler.DSampler(rate=rate, parent_based=False, resource={})
    for i in range(1, 100_000):
        tid = (i * 0x9E3779B97F4A7C15) % (1 << 128)
        if reference.should_sample(None, tid, "x").decision.is_sampled() == sampled:
            return tid
    raise AssertionError("no such trace ID")


CASES = {
    "root dropped": ({"rate": 0.1}, None, False),
    "root sampled": ({"rate": 0.1}, None, True),
    "child of a sampled parent": ({"rate": 0.1}, PARENT, True),
    "root, three rules": ({"rate": 0.1, "rules": RULES}, None, False),
}


@pytest.mark.benchmark(group="telemetry", **SCALAR)
@pytest.mark.parametrize("impl", ["on", "off"])
@pytest.mark.parametrize("case", list(CASES))
def test_counting_cost(benchmark: BenchmarkFixture, case: str, impl: str) -> None:
    settings, context, sampled = CASES[case]
    sampler = _sampler(impl == "on", **settings)
    tid = SAMPLED if context is not None else _id(0.1, sampled)
    decide = sampler.should_sample
    result = benchmark(decide, context, tid, "GET /x")
    assert result.decision.is_sampled() == sampled
    if impl == "on":
        assert sum(sum(row) for row in sampler.engine.snapshot.counts.tally) > 0  # type: ignore[union-attr]
