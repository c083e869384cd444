"""Steady state allocates nothing that outlives a decision (tracemalloc)."""

from __future__ import annotations

import random
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context
from opentelemetry.trace.span import TraceState

import dsampler
from dsampler import ParentBasedSampler, RatioSampler

PACKAGE = str(Path(dsampler.__file__).parent)
N = 20_000


def _retained_by_dsampler(decide: Callable[[int], object]) -> tuple[int, int]:
    """(bytes, blocks) still allocated from dsampler's files after N decisions."""
    rng = random.Random(3)
    ids = [rng.getrandbits(128) for _ in range(64)]
    for t in ids:  # warm-up: first-use caches, memo entries
        decide(t)
    tracemalloc.start()
    try:
        for i in range(N):  # traced too: what a decision replaces (a count past the small ints) is
            decide(ids[i % 64])  # in both snapshots
        before = tracemalloc.take_snapshot()
        for i in range(N):
            decide(ids[i % 64])
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    stats = after.filter_traces([tracemalloc.Filter(True, f"{PACKAGE}/*")]).compare_to(
        before.filter_traces([tracemalloc.Filter(True, f"{PACKAGE}/*")]), "lineno"
    )
    return sum(max(s.size_diff, 0) for s in stats), sum(max(s.count_diff, 0) for s in stats)


def _child_context(trace_state: TraceState | None) -> object:
    sc = SpanContext(0x4BF92F3577B34DA6A3CE929D0E0E4736, 0xABC, True, TraceFlags(1), trace_state)
    return set_span_in_context(NonRecordingSpan(sc))


@pytest.mark.parametrize(
    ("label", "sampler", "context"),
    [
        ("root ratio", RatioSampler(0.5), None),
        ("root parent-based", ParentBasedSampler(RatioSampler(0.5)), None),
        ("child", ParentBasedSampler(RatioSampler(0.5)), _child_context(None)),
        (
            "child with tracestate",
            ParentBasedSampler(RatioSampler(0.5)),
            _child_context(TraceState([("a", "1")])),
        ),
        # stating thresholds: a root's one constant ot=th:8, a child keeping or erasing th
        ("root stating th", dsampler.DSampler(rate=0.5, hash="consistent", resource={}), None),
        (
            "child of a parent with th",
            dsampler.DSampler(rate=0.5, hash="consistent", resource={}),
            _child_context(TraceState([("a", "1"), ("ot", "th:8")])),
        ),
    ],
)
def test_no_memory_retained_per_decision(label: str, sampler: object, context: object) -> None:
    """20,000 decisions leave no allocation behind in dsampler's code, and return
    prebuilt results (at most one per decision outcome) instead of new objects."""
    should_sample = sampler.should_sample  # type: ignore[attr-defined]
    retained = _retained_by_dsampler(lambda t: should_sample(context, t, "op"))
    assert retained == (0, 0), label
    kept_alive = [should_sample(context, random.Random(i).getrandbits(128), "op") for i in range(2000)]
    assert len({id(r) for r in kept_alive}) <= 2, label
