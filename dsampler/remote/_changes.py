"""A strategy -> the configuration changes that make a DSampler follow it; pure.

The mapping (fields not named stay as they are)::

    strategy                   rate   traces_per_second   default_lower_bound_per_second   operations
    probabilistic(p)           p      None                0                                {}
    rate limiting(n)           1.0    n (the global cap)  0                                {}
    per-operation(d, lb, ops)  d      None                lb                               {op: rate, ...}

The cap's token bucket and the operations' lower-bound buckets are the DSampler's
runtime state, kept across publishes (pro-rated when a figure changes), so a new
strategy never hands every process a full bucket. Only the fields that differ from the
running configuration are returned: an identical strategy returns nothing and the
caller publishes nothing (no new version, no bucket touched).

Operations keep the response's order; a name listed twice takes its last rate (Go's
map, as OTel Go and jaeger-client-go build it). Past ``max_operations`` the remaining
names are left out and decided at the default rate without a lower bound (Jaeger's
rule for operations beyond the cap).
"""

from __future__ import annotations

import itertools
from typing import Any

from dsampler.config._model import SamplingConfig
from dsampler.protocol._strategy import (
    PerOperationStrategy,
    ProbabilisticStrategy,
    RateLimitingStrategy,
    Strategy,
)

__all__ = ["config_changes", "wanted_fields"]


def wanted_fields(strategy: Strategy, max_operations: int) -> tuple[dict[str, Any], int]:
    """The four fields ``strategy`` sets (operations as ``{name: rate}``), and how many
    operation names did not fit under ``max_operations``."""
    match strategy:
        case ProbabilisticStrategy(rate=rate):
            return _fields(rate, None, 0.0, {}), 0
        case RateLimitingStrategy(traces_per_second=per_second):
            return _fields(1.0, per_second, 0.0, {}), 0
        case PerOperationStrategy():
            rates = {op.operation: op.rate for op in strategy.operations}
            kept = dict(itertools.islice(rates.items(), max_operations))
            fields = _fields(strategy.default_rate, None, strategy.default_lower_bound_per_second, kept)
            return fields, len(rates) - len(kept)
    raise TypeError(f"not a Strategy: {strategy!r}")  # pragma: no cover - the union is closed


def _fields(rate: float, cap: float | None, lower: float, ops: dict[str, float]) -> dict[str, Any]:
    return {
        "rate": rate,
        "traces_per_second": cap,
        "default_lower_bound_per_second": lower,
        "operations": ops,
    }


def config_changes(strategy: Strategy, config: SamplingConfig) -> tuple[dict[str, Any], int]:
    """The changes (in the file format ``DSampler.update`` takes) that make ``config``
    follow ``strategy``, empty when it already does; and the operations left out."""
    wanted, dropped = wanted_fields(strategy, config.max_operations)
    changes: dict[str, Any] = {}
    ops: dict[str, float] = wanted.pop("operations")
    current = config.operations
    same_ops = len(current) == len(ops) and all(
        (s := current.get(name)) is not None and s.rate == rate and s.lower_bound_per_second is None
        for name, rate in ops.items()
    )
    if not same_ops:
        changes["operations"] = {name: {"rate": rate} for name, rate in ops.items()}
    for key, value in wanted.items():
        if getattr(config, key) != value:
            changes[key] = value
    return changes, dropped
