"""The engine's counting: nothing counted (and no counts in the snapshot) until
count_decisions, which compiles the same version again with counts; a forked child
starts from nothing."""

from __future__ import annotations

import os

import pytest

from dsampler.config._model import SamplingConfig
from dsampler.engine import Engine

IDS = [(i * 0x9E3779B97F4A7C15) % (1 << 128) for i in range(1, 201)]


def engine() -> Engine:
    return Engine(SamplingConfig(rate=0.5, parent_based=False), resource={})


def counted(e: Engine) -> int:
    stats = e.decision_counts
    assert stats is not None
    return sum(sum(row) for row in stats.totals())


def test_an_engine_counts_from_count_decisions_on() -> None:
    """Before: no counts in the snapshot (a decision pays one ``is None`` test); after:
    the same version compiled again, and every later decision counted by its outcome."""
    e = engine()
    for tid in IDS[:50]:
        e.should_sample(None, tid, "x")
    assert (e.snapshot.counts, e.snapshot.default_tally, e.decision_counts) == (None, None, None)
    e.count_decisions()
    e.count_decisions()  # idempotent
    kept = sum(e.should_sample(None, tid, "x").decision.is_sampled() for tid in IDS[50:])
    assert e.snapshot.config.version == 1
    assert counted(e) == len(IDS) - 50
    assert e.decision_counts.totals()[3][1] == kept  # type: ignore[union-attr]  # DEFAULT, KEPT


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork")
def test_a_forked_child_counts_from_its_own_first_decision() -> None:
    """The child does not report again what the parent counted."""
    e = engine()
    e.count_decisions()
    for tid in IDS:
        e.should_sample(None, tid, "x")
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only if it starts from nothing and counts its own
        code = 1
        try:
            before = counted(e)
            for tid in IDS[:7]:
                e.should_sample(None, tid, "x")
            code = 0 if (before, counted(e)) == (0, 7) else 3
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert counted(e) == len(IDS)  # the parent's own, untouched
