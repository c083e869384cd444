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
    match strategy:
        case ProbabilisticStrategy(rate=rate):
            return _fields(rate, None, 0.0, {})
        case RateLimitingStrategy(traces_per_second=per_second):
            return _fields(1.0, per_second, 0.0, {})
        case PerOperationStrategy():
            ops = {op.operation: OperationStrategy(op.rate) for op in strategy.operations}
            return _fields(strategy.default_rate, None, strategy.default_lower_bound_per_second, ops)
    raise TypeError(f"not a Strategy: {strategy!r}")  # pragma: no cover - the union is closed


def _fields(
    rate: float, cap: float | None, lower: float, ops: dict[str, OperationStrategy]
) -> dict[str, Any]:
    return {
        "rate": rate,
        "traces_per_second": cap,
        "default_lower_bound_per_second": lower,
        "operations": ops,
    }
