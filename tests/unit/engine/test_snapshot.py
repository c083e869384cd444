"""The compiled snapshot and the state beside it: what a build keeps, what tracking can
hold, and that no decision waits for a writer."""

from __future__ import annotations

import gc
import threading
import types
from typing import Any

import pytest

from dsampler import DSampler, ManualClock, RatioSampler
from dsampler._validate import MAX_TEXT

TID = 0x4BF92F3577B34DA6A3CE929D0E0E4736


class ShiftBomb(int):
    """A trace ID whose own operators raise: the fallback must not use them."""

    def __rshift__(self, other: Any) -> int:
        raise RuntimeError("no shifting")

    def __and__(self, other: Any) -> int:
        raise RuntimeError("no masking")


def test_an_int_subclass_whose_operators_raise_is_decided_by_its_value() -> None:
    """The fallback decides an int subclass by its integer value, never raising, and
    counts the fault (defect 10)."""
    for sampler in (DSampler(rate=1.0, parent_based=False), RatioSampler(1.0)):
        result = sampler.should_sample(None, ShiftBomb(TID), "x")
        assert result.decision.is_sampled()
        assert sampler.faults == 1
    assert not DSampler(rate=0.0).should_sample(None, ShiftBomb(TID), "x").decision.is_sampled()


def test_names_longer_than_max_text_are_never_tracked() -> None:
    """A hostile stream of huge span names gets no buckets and holds no copies of them:
    tracking is bounded by room * MAX_TEXT characters (defect 5)."""
    sampler = DSampler(rate=0.0, default_lower_bound_per_second=1.0, clock=ManualClock())
    for i in range(200):
        sampler.should_sample(None, TID, f"{i:04d}" + "x" * 100_000)
    assert len(sampler.engine.snapshot.tracked) == 0
    sampler.should_sample(None, TID, "n" * MAX_TEXT)
    assert len(sampler.engine.snapshot.tracked) == 1


def _locks_of(root: object, limit: int = 20_000) -> list[Any]:
    """Every lock reachable from ``root`` (its object graph, breadth first, bounded)."""
    lock_type = type(threading.Lock())
    seen, queue, locks = {id(root)}, [root], []
    while queue and len(seen) < limit:
        for ref in gc.get_referents(queue.pop()):
            if id(ref) in seen or isinstance(ref, (type, types.ModuleType, types.FunctionType)):
                continue
            seen.add(id(ref))
            if isinstance(ref, lock_type):
                locks.append(ref)
            else:
                queue.append(ref)
    return locks


def test_a_decision_never_waits_for_a_writer() -> None:
    """With every lock the sampler owns held by another thread (a publish in progress)
    and every bucket's baton out (a check in flight), decisions on never-seen names
    still complete: the request path never waits (defect 6)."""
    clock = ManualClock()
    rules = [{"match": {"span_name": "limited"}, "action": {"rate_limit": 1}}]
    sampler = DSampler(rate=0.5, default_lower_bound_per_second=1.0, rules=rules, clock=clock)
    sampler.should_sample(None, TID, "seen-before")
    locks = _locks_of(sampler)
    assert locks  # the writers' lock at least
    for lock in locks:
        assert lock.acquire(timeout=5)
    snap = sampler.engine.snapshot
    buckets = [snap.rules.rules[0][1].bucket, *snap.tracked.by_name.values()]  # type: ignore[attr-defined]
    for bucket in buckets:
        del bucket._baton[0]
    done = threading.Event()

    def decide() -> None:
        clock.advance(2.0)  # refills are due: their locks are only ever tried
        for i in range(1000):
            sampler.should_sample(None, TID + i, f"new-{i}")
            sampler.should_sample(None, TID + i, "limited")
        done.set()

    try:
        threading.Thread(target=decide, daemon=True).start()
        assert done.wait(30)
    finally:
        for lock in locks:
            lock.release()
        for bucket in buckets:
            bucket._baton.append(True)
    assert len(sampler.engine.snapshot.tracked) == 1001


def test_a_tracked_operation_that_becomes_configured_keeps_its_balance() -> None:
    """A name tracked at run time and then listed in operations keeps its spent bucket,
    so configuring it hands out no fresh burst."""
    clock = ManualClock()
    sampler = DSampler(rate=0.0, default_lower_bound_per_second=1.0, clock=clock, resource={})
    assert sampler.should_sample(None, TID, "op").decision.is_sampled()  # the one credit
    sampler.update(operations={"op": {"rate": 0.0}})
    assert not sampler.should_sample(None, TID, "op").decision.is_sampled()
    clock.advance(1.0)
    assert sampler.should_sample(None, TID, "op").decision.is_sampled()


def test_tracking_is_capped_exactly_under_concurrent_first_sights() -> None:
    """Eight threads racing on new names never track more than max_operations."""
    sampler = DSampler(rate=0.0, default_lower_bound_per_second=1.0, max_operations=50)

    def decide(k: int) -> None:
        for i in range(500):
            sampler.should_sample(None, TID, f"t{k}-{i}")

    threads = [threading.Thread(target=decide, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(sampler.engine.snapshot.tracked) == 50


def test_after_a_fork_every_limit_is_its_configurations() -> None:
    """The child's second-pass hook sets each bucket to the rate of the snapshot in force, whatever
    an interrupted publish had done to it (defect 1)."""
    rules = [{"match": {"span_name": "x"}, "action": {"rate_limit": 1}}]
    sampler = DSampler(rate=0.0, rules=rules, traces_per_second=5, clock=ManualClock(), resource={})
    snap = sampler.engine.snapshot
    limited = snap.rules.rules[0][1].bucket  # type: ignore[attr-defined]
    limited.update(1000.0)  # as a publish interrupted between its rate change and its swap
    assert snap.cap is not None
    snap.cap.update(7.0)
    sampler.engine._restart_after_fork()
    assert (limited.credits_per_second, snap.cap.credits_per_second) == (1.0, 5.0)


def test_a_snapshot_is_never_changed_by_decisions() -> None:
    """Deciding new names adds to the runtime's tracked operations, never to the
    published snapshot (its operations stay exactly the configured ones). The first
    decision may replace the snapshot once, as the same version (it settles whether
    telemetry counts); from then on, none does."""
    sampler = DSampler(rate=0.0, default_lower_bound_per_second=1.0, operations={"a": 0.5})
    sampler.should_sample(None, TID, "a")
    snap = sampler.engine.snapshot
    assert snap.config.version == 1
    for i in range(10):
        sampler.should_sample(None, TID, f"n{i}")
    assert list(snap.operations) == ["a"]
    assert sampler.engine.snapshot is snap


def test_numpy_trace_ids_are_decided_by_value_before_and_after_the_kernels() -> None:
    """A numpy uint64 trace ID gets the decision of its int value, without a fault,
    under the inline path and the compiled-snapshot path alike."""
    import numpy as np

    for sampler in (
        DSampler(rate=0.5, parent_based=False),
        DSampler(rate=0.5, parent_based=False, operations={"op": 0.5}),
        DSampler(rate=0.5, hash="xxh3", parent_based=False),
    ):
        for i in range(200):
            tid = (TID + 7919 * i) & ((1 << 64) - 1)
            ours = sampler.should_sample(None, np.uint64(tid), "op").decision
            assert ours == sampler.should_sample(None, tid, "op").decision
        assert sampler.faults == 0


@pytest.mark.parametrize(
    "scheme", ["fnv1a", "fnv1a-mix", "xxh3", "otel", "jaeger-go", "consistent", "otel-java", "otel-js"]
)
def test_numpy_trace_ids_warn_of_nothing_under_every_scheme(scheme: str) -> None:
    """A numpy uint64 ID whose low half has its top bit set is decided by value under
    every scheme, and no numpy warning reaches the application (otel-java's ``abs``
    negated the numpy integer: "overflow encountered in scalar negative" on every such
    decision under ``-W always``)."""
    import warnings

    import numpy as np

    sampler = DSampler(rate=0.5, hash=scheme, parent_based=False)
    ids = [(1 << 63) + 7919 * i for i in range(100)] + [(1 << 64) - 1 - i for i in range(100)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for tid in ids:
            ours = sampler.should_sample(None, np.uint64(tid), "op").decision
            assert ours == sampler.should_sample(None, tid, "op").decision
    assert [str(w.message) for w in caught] == []
    assert sampler.faults == 0


def test_the_xxh3_inline_path_decides_as_the_scheme() -> None:
    """DSampler's inline path under xxh3 (the C entry over 16 bytes) makes exactly the
    decisions of the scheme's pure-Python reference."""
    from dsampler.hashing._schemes import SCHEMES

    scheme = SCHEMES["xxh3"]
    sampler = DSampler(rate=0.3, hash="xxh3", parent_based=False)
    bound = scheme.bound(0.3)
    for i in range(2000):
        tid = (TID * (i + 1)) & ((1 << 128) - 1)
        expected = scheme.reference(tid >> 64, tid & ((1 << 64) - 1)) < bound
        assert sampler.should_sample(None, tid, "x").decision.is_sampled() == expected
