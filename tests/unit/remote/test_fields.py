"""A strategy as the typed fields a remote endpoint owns, set as an overlay of an engine
(as JaegerRemoteSampler's follower sets them): each strategy's mapping, nothing
published when nothing changes, operations typed and capped."""

from __future__ import annotations

from typing import Any

import pytest

from dsampler.config import OperationStrategy, SamplingConfig
from dsampler.engine import Engine
from dsampler.protocol import (
    OperationRate,
    PerOperationStrategy,
    ProbabilisticStrategy,
    RateLimitingStrategy,
)
from dsampler.remote._fields import strategy_fields

OPS = (OperationRate("a", 0.5), OperationRate("b", 0.25))


def engine(**fields: Any) -> Engine:
    return Engine(SamplingConfig(**fields), resource={})


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        (
            ProbabilisticStrategy(0.25),
            {
                "rate": 0.25,
                "traces_per_second": None,
                "default_lower_bound_per_second": 0.0,
                "operations": {},
            },
        ),
        (
            RateLimitingStrategy(7),
            {"rate": 1.0, "traces_per_second": 7.0, "default_lower_bound_per_second": 0.0, "operations": {}},
        ),
        (
            PerOperationStrategy(0.1, 0.5, OPS),
            {
                "rate": 0.1,
                "traces_per_second": None,
                "default_lower_bound_per_second": 0.5,
                "operations": {"a": OperationStrategy(0.5), "b": OperationStrategy(0.25)},
            },
        ),
    ],
)
def test_each_strategy_maps_to_its_config_fields(strategy: object, expected: dict[str, object]) -> None:
    """Probabilistic -> rate; rate limiting -> rate 1 under the global cap; per-operation
    -> default rate, lower bound and operations; set as an overlay, the config says so,
    and setting them again publishes nothing."""
    sampler = engine(rate=0.5, traces_per_second=3.0)
    fields = strategy_fields(strategy)  # type: ignore[arg-type]
    assert fields == expected
    overlay = sampler.overlay("remote")
    assert overlay.set(fields)
    assert {k: getattr(sampler.config, k) for k in expected} == expected
    version = sampler.config.version
    assert not overlay.set(strategy_fields(strategy))  # type: ignore[arg-type]  # nothing left to change
    assert sampler.config.version == version


def test_fields_equal_to_the_base_publish_nothing() -> None:
    """A strategy that says what the configuration already says publishes no version."""
    sampler = engine(rate=0.2)
    assert not sampler.overlay("remote").set(strategy_fields(ProbabilisticStrategy(0.2)))
    assert sampler.config.version == 1


def test_operations_are_typed_and_take_no_lower_bound_of_their_own() -> None:
    """A strategy's operations are OperationStrategy values without a lower bound: a
    configured operation with its own lower bound is replaced by the strategy's."""
    sampler = engine(operations={"a": OperationStrategy(0.5, 2.0)})
    sampler.overlay("remote").set(
        strategy_fields(PerOperationStrategy(0.001, 0.0, (OperationRate("a", 0.5),)))
    )
    assert dict(sampler.config.operations) == {"a": OperationStrategy(0.5)}


def test_duplicates_take_the_last_rate_and_max_operations_caps_in_order() -> None:
    """A name listed twice keeps its first place and its last rate; past max_operations
    the rest is left out when merged (decided at the default rate)."""
    ops = (OperationRate("a", 0.1), OperationRate("b", 0.2), OperationRate("a", 0.3), OperationRate("c", 0.4))
    fields = strategy_fields(PerOperationStrategy(0.0, 0.0, ops))
    assert fields["operations"] == {
        "a": OperationStrategy(0.3),
        "b": OperationStrategy(0.2),
        "c": OperationStrategy(0.4),
    }
    sampler = engine(max_operations=2)
    sampler.overlay("remote").set(fields)
    assert dict(sampler.config.operations) == {"a": OperationStrategy(0.3), "b": OperationStrategy(0.2)}
