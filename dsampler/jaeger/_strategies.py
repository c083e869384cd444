"""Strategies for the jaeger-client layer: jaeger-client's lax accessors, and raw response
dicts read by :mod:`dsampler.protocol`'s parser with jaeger-client's defaults for absent numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from dsampler._validate import typed
from dsampler.errors import ConfigError
from dsampler.jaeger._constants import (
    DEFAULT_LOWER_BOUND,
    DEFAULT_SAMPLING_PROBABILITY,
    MAX_RATE_LIMIT,
    MAX_TRACES_PER_SECOND_STR,
    PROBABILISTIC_SAMPLING_STR,
    RATE_LIMITING_SAMPLING_STR,
    SAMPLING_RATE_STR,
)
from dsampler.protocol import (
    PerOperationStrategy,
    ProbabilisticStrategy,
    RateLimitingStrategy,
    Reading,
    Strategy,
    StrategyResponse,
    parse_mapping,
    parse_operation_sampling,
    parse_response,
)

#: jaeger-client-python's reading of a raw dict: its defaults for absent numbers ({} is 0.001).
JAEGER_CLIENT: Final = Reading(
    absent=MappingProxyType(
        {
            "samplingRate": DEFAULT_SAMPLING_PROBABILITY,
            "defaultSamplingProbability": DEFAULT_SAMPLING_PROBABILITY,
            "defaultLowerBoundTracesPerSecond": DEFAULT_LOWER_BOUND,
            "maxTracesPerSecond": DEFAULT_LOWER_BOUND,  # get_rate_limit's default, as it is
        }
    ),
    mapping="a mapping",
    sequence="a list",
)


def _member(strategy: Mapping[str, Any] | None, section: str, key: str, default: float) -> Any:
    found = (strategy or {}).get(section)
    return found.get(key, default) if found else default


def get_sampling_probability(strategy: Mapping[str, Any] | None = None) -> Any:
    """jaeger-client's accessor: ``probabilisticSampling.samplingRate`` or 0.001, unvalidated."""
    return _member(strategy, PROBABILISTIC_SAMPLING_STR, SAMPLING_RATE_STR, DEFAULT_SAMPLING_PROBABILITY)


def get_rate_limit(strategy: Mapping[str, Any] | None = None) -> Any:
    """jaeger-client's accessor: ``rateLimitingSampling.maxTracesPerSecond`` or 1/600, unvalidated."""
    return _member(strategy, RATE_LIMITING_SAMPLING_STR, MAX_TRACES_PER_SECOND_STR, DEFAULT_LOWER_BOUND)


def strategy_of(response: object) -> Strategy:
    """The strategy a jaeger-client sampler applies: typed as is, a raw dict by
    :data:`JAEGER_CLIENT`, a body (bytes) as the wire's; jaeger-client's limits checked."""
    if isinstance(response, Strategy):
        strategy: Strategy = response
    elif isinstance(response, StrategyResponse):
        strategy = response.strategy
    elif isinstance(response, (bytes, bytearray)):
        strategy = parse_response(bytes(response)).strategy
    else:
        strategy = parse_mapping(response, JAEGER_CLIENT).strategy
    return checked(strategy)


def checked(strategy: Strategy) -> Strategy:
    """``strategy``, unless it is one jaeger-client refuses (a rate limit of 500/s or more)."""
    if isinstance(strategy, RateLimitingStrategy) and strategy.traces_per_second >= MAX_RATE_LIMIT:
        field = f"{RATE_LIMITING_SAMPLING_STR}.{MAX_TRACES_PER_SECOND_STR}"
        raise ConfigError(field, f"expected below {MAX_RATE_LIMIT:.0f}, got {strategy.traces_per_second}")
    return strategy


def per_operation_of(strategies: object) -> PerOperationStrategy:
    """``AdaptiveSampler``'s argument: a ``PerOperationStrategy``, or an ``operationSampling``
    dict read by :data:`JAEGER_CLIENT`."""
    if isinstance(strategies, PerOperationStrategy):
        return strategies
    if isinstance(strategies, (ProbabilisticStrategy, RateLimitingStrategy)):
        raise ConfigError("strategies", f"expected per-operation strategies, got {typed(strategies)}")
    return parse_operation_sampling(strategies, JAEGER_CLIENT)
