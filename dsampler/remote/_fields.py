"""A strategy -> the configuration fields a remote endpoint owns; pure.

The mapping, as typed field values (fields not named stay the base's)::

    strategy                   rate   traces_per_second   default_lower_bound_per_second   operations
    probabilistic(p)           p      None                0                                {}
    rate limiting(n)           1.0    n (the global cap)  0                                {}
    per-operation(d, lb, ops)  d      None                lb                               {op: rate, ...}

A follower sets them as its overlay (:class:`~dsampler.config.Overlay`): the cap's
token bucket and the operations' lower-bound buckets are the engine's runtime state,
kept across publishes (pro-rated when a figure changes), so a new strategy never hands
every process a full bucket, and one that changes nothing publishes nothing.

Operations keep the response's order; a name listed twice takes its last rate (Go's
map, as OTel Go and jaeger-client-go build it). Past the configuration's
``max_operations`` the remaining names are left out when merged, and decided at the
default rate without a lower bound (Jaeger's rule for operations beyond the cap).
"""

from __future__ import annotations

from typing import Any

from dsampler.config import OperationStrategy
from dsampler.protocol import (
    PerOperationStrategy,
    ProbabilisticStrategy,
    RateLimitingStrategy,
    Strategy,
)

__all__ = ["strategy_fields"]


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
