"""The state beside the snapshots: tracked operations, copied whole while the request
path adds to them, so a publish applies all of its effects or none."""

from __future__ import annotations

import gc
import itertools
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from dsampler import ConfigError, DSampler


@contextmanager
def collecting_at_every_allocation() -> Iterator[None]:
    """The cyclic collector runs at (nearly) every allocation, finalizers included."""
    old = gc.get_threshold()
    enabled = gc.isenabled()
    gc.set_threshold(1, 1, 1)
    gc.enable()
    try:
        yield
    finally:
        gc.set_threshold(*old)
        if not enabled:
            gc.disable()


def test_an_update_is_whole_while_finalizers_track_new_names() -> None:
    """50,000 tracked names, and garbage whose finalizers make decisions that track new
    names (what a request thread does, let in by a collection in the middle of a copy):
    the update publishes, the cap and the lower bound run at exactly the new figures,
    and the names added meanwhile are tracked."""
    sampler = DSampler(
        rate=0.0,
        default_lower_bound_per_second=1.0,
        traces_per_second=5.0,
        max_operations=100_000,
        resource={},
    )
    for i in range(50_000):
        sampler.should_sample(None, i + 1, f"op{i}")
    late = itertools.count()

    class Decides:
        """Garbage in a cycle whose finalizer makes a decision on a new name, and leaves
        another such cycle behind (so every collection, all through the update, has one
        to finalize; 20,000 at most)."""

        def __init__(self) -> None:
            self.me = self

        def __del__(self) -> None:
            n = next(late)
            sampler.should_sample(None, 7, f"late{n}")
            if n < 20_000:
                Decides()

    gc.collect()
    Decides()
    with collecting_at_every_allocation():
        config = sampler.update(traces_per_second=9.0, default_lower_bound_per_second=2.0)
    gc.collect()
    snapshot = sampler.engine.snapshot
    assert (config.traces_per_second, config.default_lower_bound_per_second) == (9.0, 2.0)
    assert snapshot.cap is not None
    assert snapshot.cap.credits_per_second == 9.0
    assert {b.credits_per_second for b in snapshot.tracked.by_name.values()} == {2.0}
    assert next(late) > 0  # the finalizers ran
    assert len(snapshot.tracked) >= 50_000


def test_a_refused_update_changes_no_running_limit() -> None:
    """A publish that fails (an invalid rule) leaves every bucket at its figure."""
    sampler = DSampler(traces_per_second=5.0, default_lower_bound_per_second=1.0, resource={})
    sampler.should_sample(None, 1, "op")
    bad_rule = {"match": {"span_kind": ["sideways"]}, "action": "drop"}
    with pytest.raises(ConfigError, match=r"^rules\[0\]\.match\.span_kind"):
        sampler.update(traces_per_second=9.0, rules=[bad_rule])
    snapshot = sampler.engine.snapshot
    assert snapshot.config.traces_per_second == 5.0
    assert snapshot.cap is not None
    assert snapshot.cap.credits_per_second == 5.0
    assert [b.credits_per_second for b in snapshot.tracked.by_name.values()] == [1.0]
