"""PerOperationSampler: per-operation rates and lower bounds, updated in place."""

from __future__ import annotations

import random
from typing import Any

import pytest
from opentelemetry.sdk.trace.sampling import Decision

from dsampler import (
    ConfigError,
    ManualClock,
    PerOperationSampler,
    RatioSampler,
)

_RNG = random.Random(3)
IDS = [_RNG.getrandbits(128) for _ in range(300)]


def kept(sampler: Any, name: str = "op", ids: list[int] = IDS) -> int:
    return sum(sampler.should_sample(None, t, name).decision.is_sampled() for t in ids)


def test_per_operation_rates_and_default() -> None:
    """Listed operations at their rate, others at the default, each by the trace-ID rule."""
    sampler = PerOperationSampler({"GET /a": 0.5, "GET /b": {"rate": 1.0}}, default_rate=0.1)
    assert kept(sampler, "GET /a") == kept(RatioSampler(0.5))
    assert kept(sampler, "GET /b") == len(IDS)
    assert kept(sampler, "other") == kept(RatioSampler(0.1))
    assert dict(sampler.should_sample(None, IDS[0], "GET /b").attributes) == {}
    tagged = PerOperationSampler({"GET /b": 1.0}, sampler_tags=True)
    assert tagged.should_sample(None, IDS[0], "GET /b").attributes["sampler.type"] == "probabilistic"


def test_per_operation_lower_bound_then_update_in_place() -> None:
    """The lower bound samples rare operations; an update keeps its balance and drops absent ops."""
    clock = ManualClock()
    sampler = PerOperationSampler(
        {"rare": {"rate": 0.0, "lower_bound_per_second": 2}, "gone": 0.5}, clock=clock
    )
    assert kept(sampler, "rare", IDS[:1]) == 1  # 1 of 2 credits left
    sampler.update({"rare": {"rate": 0.0, "lower_bound_per_second": 2}}, default_rate=0.0)
    assert kept(sampler, "rare") == 1  # the balance survived the update: one credit, not two
    assert set(sampler.operations) == {"rare"}
    assert kept(sampler, "gone") == 0  # dropped from the update: the default rate decides
    clock.advance(1.0)
    assert kept(sampler, "rare") == 2
    result = sampler.should_sample(None, IDS[0], "rare")
    assert result.decision is Decision.DROP
    with pytest.raises(ConfigError, match=r"operations\['rare'\]\.rate"):
        sampler.update({"rare": {"rate": 2}})
    assert set(sampler.operations) == {"rare"}


def test_per_operation_new_names_get_a_lower_bound_up_to_max_operations() -> None:
    """With a default lower bound, the first max_operations new names each get one credit."""
    sampler = PerOperationSampler(
        default_rate=0.0, default_lower_bound_per_second=1.0, max_operations=2, clock=ManualClock()
    )
    assert [kept(sampler, name, IDS[:5]) for name in ("a", "b", "c")] == [1, 1, 0]
    assert sampler.get_description() == (
        "PerOperationSampler{default_rate=0.0,operations=0,default_lower_bound_per_second=1.0,hash=fnv1a}"
    )
