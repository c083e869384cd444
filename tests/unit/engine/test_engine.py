"""The engine's counting from the first decision: asked once, at that decision, whether
to count; the decisions made while it asks are kept when it counts, and nothing is left
on the request path when it does not."""

from __future__ import annotations

import os

import pytest

from dsampler.config._model import SamplingConfig
from dsampler.engine import Engine

IDS = [(i * 0x9E3779B97F4A7C15) % (1 << 128) for i in range(1, 201)]


class Answer:
    """What a telemetry would answer, and how often it was asked."""

    def __init__(self, value: bool | Exception) -> None:
        self.value = value
        self.asked = 0

    def __call__(self) -> bool:
        self.asked += 1
        if isinstance(self.value, Exception):
            raise self.value
        return self.value


def engine() -> Engine:
    return Engine(SamplingConfig(rate=0.5, parent_based=False), resource={})


def counted(e: Engine) -> int:
    stats = e.decision_counts
    assert stats is not None
    return sum(sum(row) for row in stats.totals())


def test_a_yes_counts_every_decision_from_the_first() -> None:
    e = engine()
    answer = Answer(True)
    e.count_from_first_decision(answer)
    assert e.decision_counts is None  # nothing decided, nothing asked yet
    kept = sum(e.should_sample(None, tid, "x").decision.is_sampled() for tid in IDS)
    assert answer.asked == 1
    assert counted(e) == len(IDS)
    assert e.snapshot.counts is not None
    assert not e.snapshot.counts.asking
    assert e.snapshot.config.version == 1  # the same version, compiled again
    assert e.decision_counts.totals()[3][1] == kept  # type: ignore[union-attr]  # DEFAULT, KEPT


@pytest.mark.parametrize("answer", [Answer(False), Answer(RuntimeError("telemetry broke"))])
def test_a_no_leaves_the_request_path_as_it_was(answer: Answer) -> None:
    """No counts in the snapshot after the first decision (a decision pays one ``is None``
    test), the question asked once, no fault, and every decision made."""
    e = engine()
    e.count_from_first_decision(answer)
    for tid in IDS:
        e.should_sample(None, tid, "x")
    assert answer.asked == 1
    assert e.snapshot.counts is None
    assert e.snapshot.default_tally is None
    assert e.decision_counts is None
    assert e.faults == 0


def test_a_busy_writer_delays_the_replacement_never_the_decision() -> None:
    """A first decision while a writer holds the store's lock does not wait: the snapshot
    keeps counting and asking until a later decision finds the lock free."""
    e = engine()
    e.count_from_first_decision(Answer(True))
    with e._store._lock:  # a writer publishing at that moment
        for tid in IDS[:10]:
            e.should_sample(None, tid, "x")
        assert e.snapshot.counts is not None
        assert e.snapshot.counts.asking
    for tid in IDS[10:]:
        e.should_sample(None, tid, "x")
    assert counted(e) == len(IDS)
    assert not e.snapshot.counts.asking  # type: ignore[union-attr]


def test_a_decision_while_the_first_one_asks_waits_for_its_answer() -> None:
    """Another decision made while the first one asks (here from inside the question:
    another thread's, deterministically) leaves the snapshot asking; the answer then
    counts every decision, that one too."""
    e = engine()

    def wanted() -> bool:
        e.should_sample(None, IDS[0], "x")
        return True

    e.count_from_first_decision(wanted)
    for tid in IDS:
        e.should_sample(None, tid, "x")
    assert counted(e) == len(IDS) + 1
    assert e.snapshot.counts is not None
    assert not e.snapshot.counts.asking


def test_an_update_before_the_first_decision_asks_in_the_new_version() -> None:
    e = engine()
    e.count_from_first_decision(Answer(True))
    e.update(rate=0.25)
    for tid in IDS:
        e.should_sample(None, tid, "x")
    assert counted(e) == len(IDS)
    assert [c.version for c in e.decision_counts.recent] == [2]  # type: ignore[union-attr]


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
