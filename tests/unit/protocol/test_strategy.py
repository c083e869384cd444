"""The strategy model: validated on construction, dispatch by presence."""

from __future__ import annotations

import pytest

from dsampler.errors import ConfigError
from dsampler.protocol import (
    OperationRate,
    PerOperationStrategy,
    ProbabilisticStrategy,
    RateLimitingStrategy,
    StrategyResponse,
)

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


@pytest.mark.parametrize("name", ["probabilistic", "rate_limiting", "per_operation"])
def test_a_strategy_of_the_wrong_type_is_refused_naming_its_field(name: str) -> None:
    with pytest.raises(ConfigError, match=rf"^{name}: expected \w+Strategy or None, got dict of 0$"):
        StrategyResponse(**{name: {}})
