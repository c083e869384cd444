"""A strategy -> the configuration fields a remote endpoint owns (a follower's overlay). A
name listed twice takes its last rate (Go's map)."""

from __future__ import annotations

from typing import Any

from dsampler.config import OperationStrategy
from dsampler.protocol import (
    PerOperationStrategy,
    ProbabilisticStrategy,
    RateLimitingStrategy,
    Strategy,
)


def strategy_fields(strategy: Strategy) -> dict[str, Any]:
    """The four fields ``strategy`` sets, as the model's values."""
    rate, lower, cap, ops = 1.0, 0.0, None, {}
    match strategy:
        case ProbabilisticStrategy():
            rate = strategy.rate
        case RateLimitingStrategy():
            cap = strategy.traces_per_second
        case PerOperationStrategy():
            rate, lower = strategy.default_rate, strategy.default_lower_bound_per_second
            ops = {op.operation: OperationStrategy(op.rate) for op in strategy.operations}
    return {
        "rate": rate,
        "traces_per_second": cap,
        "default_lower_bound_per_second": lower,
        "operations": ops,
    }
