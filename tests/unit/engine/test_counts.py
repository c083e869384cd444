"""Decision counts: the layout the hot paths rely on, every strategy and outcome
counted once, counts kept per version and totals that never go down."""

from __future__ import annotations

from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context

from dsampler import DSampler, ManualClock
from dsampler.engine._counts import CAPPED, DEFAULT, KEPT, NOT_KEPT, OPERATION, PARENT, RULE, CountHistory


def test_the_layout_the_request_path_hardcodes() -> None:
    """should_sample adds at [0]/[1] of a strategy's list and at [flag] for a parent:
    dropped must be 0 and kept 1."""
    assert (NOT_KEPT, KEPT, CAPPED) == (0, 1, 2)
    assert (PARENT, RULE, OPERATION, DEFAULT) == (0, 1, 2, 3)


def test_every_path_counts_once() -> None:
    """Parent, rule, operation, default and both caps each land in their own cell."""
    clock = ManualClock()
    sampler = DSampler(
        rate=1.0,
        rules=[{"match": {"span_name": "drop-me"}, "action": "drop"}],
        operations={"op": 1.0},
        traces_per_second=2,
        clock=clock,
        resource={},
    )
    sampler.engine.count_decisions()
    kept_parent = set_span_in_context(NonRecordingSpan(SpanContext(7, 8, True, TraceFlags(1))))
    dropped_parent = set_span_in_context(NonRecordingSpan(SpanContext(7, 8, True, TraceFlags(0))))
    for _ in range(3):
        sampler.should_sample(kept_parent, 7, "child")
    sampler.should_sample(dropped_parent, 7, "child")
    sampler.should_sample(None, 1, "drop-me")
    for i in range(4):
        sampler.should_sample(None, 10 + i, "op")  # 2 admitted by the cap, 2 capped
    sampler.should_sample(None, 20, "other")  # the cap is empty: capped
    tally = sampler.engine.snapshot.counts.tally  # type: ignore[union-attr]
    assert tally[PARENT] == [1, 3, 0]
    assert tally[RULE] == [1, 0, 0]
    assert tally[OPERATION] == [0, 4, 2]
    assert tally[DEFAULT] == [0, 1, 1]


def test_counts_are_per_version_and_totals_only_grow() -> None:
    """Each publish starts fresh counts; after more than the recent window of versions
    the totals still include the oldest ones."""
    sampler = DSampler(rate=0.0, parent_based=False, resource={})
    sampler.engine.count_decisions()
    for version in range(40):
        sampler.should_sample(None, version + 1, "x")
        sampler.update(record_version=bool(version % 2))
    stats = sampler.engine.decision_counts
    assert isinstance(stats, CountHistory)
    assert len(stats.recent) == 16
    assert stats.totals()[DEFAULT][NOT_KEPT] == 40
    assert [c.version for c in stats.recent][-1] == sampler.config.version
