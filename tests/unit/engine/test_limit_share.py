"""The share of its traces-per-second limits an engine holds (``share_limits``, what
``adaptive: {share: host}`` sets): every bucket runs at its configured rate times the
share, a configuration published later starts at it, and a forked child holds its limits
whole until it is told its own share."""

from __future__ import annotations

import os
from typing import Any

import pytest

from dsampler import DSampler, ManualClock
from dsampler.decision import TokenBucket
from dsampler.errors import ConfigError
from tests.forking import in_child

TID = 0x4BF92F3577B34DA6A3CE929D0E0E4736
LIMITED = {"match": {"span_name": "limited"}, "action": {"rate_limit": 8}}


def sampler(clock: ManualClock, **fields: Any) -> DSampler:
    """Every kind of limit: a rate_limit rule (8/s), the global cap (20/s), a configured
    operation's lower bound (4/s) and the default lower bound (2/s), with "tracked"
    already tracked under it."""
    s = DSampler(
        rate=0.0,
        rules=[LIMITED],
        traces_per_second=20,
        operations={"op": {"rate": 0.0, "lower_bound_per_second": 4}},
        default_lower_bound_per_second=2,
        clock=clock,
        resource={},
        **fields,
    )
    s.should_sample(None, TID, "tracked")
    return s


def rates(s: DSampler) -> dict[str, float]:
    """Each limit's bucket rate, by what it limits."""
    snap = s.engine.snapshot
    buckets: dict[str, TokenBucket | None] = {
        "rule": snap.rules.rules[0][1].bucket,  # type: ignore[attr-defined]
        "cap": snap.cap,
        "op": snap.operations["op"].lower,
        "tracked": snap.tracked.by_name["tracked"],
    }
    return {name: b.credits_per_second for name, b in buckets.items() if b is not None}


WHOLE = {"rule": 8.0, "cap": 20.0, "op": 4.0, "tracked": 2.0}
QUARTER = {"rule": 2.0, "cap": 5.0, "op": 1.0, "tracked": 0.5}


def admitted(s: DSampler, clock: ManualClock, name: str, seconds: int) -> int:
    """Roots named ``name`` sampled over ``seconds``, offered 100 a second."""
    kept = 0
    for i in range(seconds * 100):
        clock.advance(0.01)
        kept += s.should_sample(None, TID + i, name).decision.is_sampled()
    return kept


def test_every_limit_runs_at_the_share_and_goes_back_whole() -> None:
    """share_limits(0.25): each bucket at a quarter of its rate, and the rule admits a
    quarter as many; share_limits(1): whole again. A share outside [0, 1] is refused."""
    clock = ManualClock()
    s = sampler(clock)
    assert (s.engine.limit_share, rates(s)) == (1.0, WHOLE)
    s.engine.share_limits(0.25)
    assert (s.engine.limit_share, rates(s)) == (0.25, QUARTER)
    admitted(s, clock, "limited", 2)  # spends the burst it held
    assert admitted(s, clock, "limited", 10) == pytest.approx(20, abs=2)
    s.engine.share_limits(1.0)
    assert rates(s) == WHOLE
    assert admitted(s, clock, "limited", 10) == pytest.approx(80, abs=9)
    for bad in (1.5, -0.1, float("nan"), "half"):
        with pytest.raises(ConfigError, match="share"):
            s.engine.share_limits(bad)  # type: ignore[arg-type]
    assert s.engine.limit_share == 1.0


def test_a_configuration_published_later_starts_at_the_share_in_force() -> None:
    """After a reload that changes every limit, adds a rule and a tracked name, each
    bucket (kept or new) runs at the share, not at its whole rate; a rate-only change
    keeps them."""
    clock = ManualClock()
    s = sampler(clock)
    s.engine.share_limits(0.25)
    s.update(
        rules=[{"match": {"span_name": "limited"}, "action": {"rate_limit": 12}}, LIMITED],
        traces_per_second=40,
        operations={"op": {"rate": 0.0, "lower_bound_per_second": 8}},
        default_lower_bound_per_second=4,
    )
    s.should_sample(None, TID, "later")  # tracked after the reload
    snap = s.engine.snapshot
    buckets = [d.bucket.credits_per_second for _, d in snap.rules.rules]  # type: ignore[attr-defined]
    assert buckets == [3.0, 2.0]
    assert rates(s) == {"rule": 3.0, "cap": 10.0, "op": 2.0, "tracked": 1.0}
    assert snap.tracked.by_name["later"].credits_per_second == 1.0
    s.update(rate=0.5)
    assert rates(s) == {"rule": 3.0, "cap": 10.0, "op": 2.0, "tracked": 1.0}
    s.engine.share_limits(1.0)
    assert rates(s) == {"rule": 12.0, "cap": 40.0, "op": 8.0, "tracked": 4.0}
    assert snap.tracked.by_name["later"].credits_per_second == 4.0


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork")
def test_a_forked_child_holds_its_limits_whole_and_the_parent_its_share() -> None:
    """The share is the parent's part of its host: the child starts whole (its own
    controller tells it its share), the parent keeps its quarter."""
    clock = ManualClock()
    s = sampler(clock)
    s.engine.share_limits(0.25)
    answer = in_child(lambda: repr((s.engine.limit_share, rates(s))).encode()).decode()
    assert answer == repr((1.0, WHOLE))
    assert (s.engine.limit_share, rates(s)) == (0.25, QUARTER)
