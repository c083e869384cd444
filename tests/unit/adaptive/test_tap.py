"""The adaptive controller's offered-load count (``Tap``): exact while threads append
and a reader takes, and bounded in memory when nobody ticks, on both request paths."""

from __future__ import annotations

import random
import threading

import pytest

from dsampler import DSampler, ManualClock
from dsampler.adaptive._tap import FOLD_AT, Tap

RNG = random.Random(5)


def test_the_count_is_exact_while_threads_append_and_a_reader_takes() -> None:
    meter = Tap(None)
    stop = threading.Event()
    taken: list[int] = []

    def reader() -> None:
        while not stop.is_set():
            taken.append(meter.take())

    def writer() -> None:
        for _ in range(50_000):
            meter.offered.append(None)
        if len(meter.offered) > 1_000:
            meter.fold()

    r = threading.Thread(target=reader)
    r.start()
    writers = [threading.Thread(target=writer) for _ in range(3)]
    for t in writers:
        t.start()
    for t in writers:
        t.join(60)
    stop.set()
    r.join(60)
    assert sum(taken) + meter.take() == 150_000
    assert meter.total == 150_000


RULE = [{"match": {"span_name": "other"}, "action": {"sample": 1.0}}]


@pytest.mark.parametrize("rules", [[], RULE], ids=["inline-path", "decide_root-path"])
def test_a_controller_nobody_ticks_holds_bounded_memory_and_loses_no_count(rules: list[object]) -> None:
    """Ticked by hand, then not for a long while: the uncounted decisions fold into an
    integer on the request path instead of growing without end (a DSampler without
    rules decides inline, one with a rule through its snapshot's decide_root)."""
    clock = ManualClock()
    sampler = DSampler(
        adaptive={"target_traces_per_second": 1e6, "max_rate": 0.5}, rules=rules, clock=clock, resource={}
    )
    assert sampler.engine.snapshot.simple == (not rules)
    controller = sampler.controller
    assert controller is not None
    n = 3 * FOLD_AT
    ids = [RNG.getrandbits(128) for _ in range(n)]
    longest = 0
    for i, tid in enumerate(ids):
        sampler.should_sample(None, tid, "GET /x")
        if i % 1_000 == 0:
            longest = max(longest, len(controller.tap.offered))
    assert longest <= FOLD_AT + 1_000
    assert controller.tap.take() == n
