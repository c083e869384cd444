"""The strategy model: validated on construction, dispatch by presence, the config mapping."""

from __future__ import annotations

import pytest

from dsampler import DSampler
from dsampler.config import OperationStrategy, SamplingConfig
from dsampler.errors import ConfigError
from dsampler.protocol import (
    OperationRate,
    PerOperationStrategy,
    ProbabilisticStrategy,
    RateLimitingStrategy,
    StrategyResponse,
)
from dsampler.remote import config_changes

OPS = (OperationRate("a", 0.5), OperationRate("b", 0.25))


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: ProbabilisticStrategy(1.5), "rate"),
        (lambda: ProbabilisticStrategy(float("nan")), "rate"),
        (lambda: ProbabilisticStrategy("0.5"), "rate"),
        (lambda: RateLimitingStrategy(-1), "traces_per_second"),
        (lambda: OperationRate(5, 0.1), "operation"),
        (lambda: PerOperationStrategy(0.1, -2.0), "default_lower_bound_per_second"),
        (lambda: PerOperationStrategy(0.1, 0.0, ({"operation": "a"},)), "operations"),
        (lambda: StrategyResponse("ADAPTIVE"), "strategyType"),
        (lambda: StrategyResponse(probabilistic=RateLimitingStrategy(1)), "probabilistic"),
    ],
)
def test_invalid_values_are_refused_naming_the_field(build: object, field: str) -> None:
    """Each model class validates itself, like the configuration model."""
    with pytest.raises(ConfigError) as info:
        build()  # type: ignore[operator]
    assert info.value.field == field


def test_dispatch_is_by_presence_per_operation_first() -> None:
    """operationSampling beats probabilisticSampling beats rateLimitingSampling, whatever
    strategyType says; nothing present is an error."""
    per_op = PerOperationStrategy(0.1, 0.0, OPS)
    both = StrategyResponse("RATE_LIMITING", ProbabilisticStrategy(0.3), RateLimitingStrategy(3), per_op)
    assert both.strategy == per_op
    assert StrategyResponse(
        "RATE_LIMITING", ProbabilisticStrategy(0.3), RateLimitingStrategy(3)
    ).strategy == (ProbabilisticStrategy(0.3))
    assert StrategyResponse(rate_limiting=RateLimitingStrategy(3)).strategy == RateLimitingStrategy(3)
    with pytest.raises(ConfigError, match="no usable strategy"):
        _ = StrategyResponse().strategy


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
    -> default rate, lower bound and operations; applied, the config says so."""
    sampler = DSampler(rate=0.5, traces_per_second=3.0, resource={})
    changes, dropped = config_changes(strategy, sampler.config)  # type: ignore[arg-type]
    assert dropped == 0
    config = sampler.update(**changes)
    assert {k: getattr(config, k) for k in expected} == expected
    assert config_changes(strategy, config) == ({}, 0)  # type: ignore[arg-type]  # nothing left to change


def test_only_changed_fields_are_returned() -> None:
    """A new default rate changes `rate` alone; the same operations are not re-sent."""
    config = SamplingConfig(rate=0.1, operations={"a": OperationStrategy(0.5), "b": OperationStrategy(0.25)})
    changes, _ = config_changes(PerOperationStrategy(0.2, 0.0, OPS), config)
    assert changes == {"rate": 0.2}


def test_operations_with_their_own_lower_bound_are_replaced() -> None:
    """A config operation with its own lower bound differs from the strategy's, which has none."""
    config = SamplingConfig(operations={"a": OperationStrategy(0.5, 2.0)})
    changes, _ = config_changes(PerOperationStrategy(0.001, 0.0, (OperationRate("a", 0.5),)), config)
    assert changes["operations"] == {"a": {"rate": 0.5}}


def test_duplicates_take_the_last_rate_and_max_operations_caps_in_order() -> None:
    """A name listed twice keeps its first place and its last rate; past max_operations
    the rest is reported as dropped."""
    ops = (OperationRate("a", 0.1), OperationRate("b", 0.2), OperationRate("a", 0.3), OperationRate("c", 0.4))
    changes, dropped = config_changes(PerOperationStrategy(0.0, 0.0, ops), SamplingConfig(max_operations=2))
    assert changes["operations"] == {"a": {"rate": 0.3}, "b": {"rate": 0.2}}
    assert dropped == 1
