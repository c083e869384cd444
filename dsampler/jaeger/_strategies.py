"""Jaeger sampling-strategy responses: jaeger-client's lax accessors, and the validated,
typed reading the samplers apply.

A response is the decoded JSON of ``GET /sampling?service=...``. :func:`parse_response`
turns it into one frozen :data:`Strategy` (:class:`Probabilistic`, :class:`RateLimiting`
or :class:`PerOperation`) or raises :class:`~dsampler.ConfigError` naming the key, so a
sampler applies a strategy it has validated whole, or nothing. Both dialects are read:
proto3-JSON enums (``"strategyType": "PROBABILISTIC"``) and the legacy numbers (``0``).
Where the response comes from (an in-process source today, HTTP later) is not this
module's concern.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dsampler._validate import check_per_second, check_rate, check_text, show, typed
from dsampler.errors import ConfigError
from dsampler.jaeger._constants import (
    DEFAULT_LOWER_BOUND,
    DEFAULT_LOWER_BOUND_STR,
    DEFAULT_SAMPLING_PROBABILITY,
    DEFAULT_SAMPLING_PROBABILITY_STR,
    MAX_RATE_LIMIT,
    MAX_TRACES_PER_SECOND_STR,
    OPERATION_SAMPLING_STR,
    OPERATION_STR,
    PROBABILISTIC_SAMPLING_STR,
    PROBABILISTIC_SAMPLING_STRATEGY,
    RATE_LIMITING_SAMPLING_STR,
    RATE_LIMITING_SAMPLING_STRATEGY,
    SAMPLING_RATE_STR,
    STRATEGIES_STR,
    STRATEGY_TYPE_STR,
)

__all__ = [
    "PerOperation",
    "Probabilistic",
    "RateLimiting",
    "Strategy",
    "get_rate_limit",
    "get_sampling_probability",
    "parse_operation_sampling",
    "parse_response",
]


def get_sampling_probability(strategy: Mapping[str, Any] | None = None) -> Any:
    """jaeger-client's accessor: ``probabilisticSampling.samplingRate`` or 0.001, unvalidated."""
    section = (strategy or {}).get(PROBABILISTIC_SAMPLING_STR)
    if not section:
        return DEFAULT_SAMPLING_PROBABILITY
    return section.get(SAMPLING_RATE_STR, DEFAULT_SAMPLING_PROBABILITY)


def get_rate_limit(strategy: Mapping[str, Any] | None = None) -> Any:
    """jaeger-client's accessor: ``rateLimitingSampling.maxTracesPerSecond`` or 1/600, unvalidated."""
    section = (strategy or {}).get(RATE_LIMITING_SAMPLING_STR)
    if not section:
        return DEFAULT_LOWER_BOUND
    return section.get(MAX_TRACES_PER_SECOND_STR, DEFAULT_LOWER_BOUND)


@dataclass(frozen=True, slots=True)
class Probabilistic:
    """Sample ``rate`` of all traces."""

    rate: float


@dataclass(frozen=True, slots=True)
class RateLimiting:
    """Sample at most ``max_traces_per_second``."""

    max_traces_per_second: float


@dataclass(frozen=True, slots=True)
class PerOperation:
    """Per-operation rates with a guaranteed lower bound (traces/s) each; operations not
    listed use ``default_probability``."""

    default_probability: float
    lower_bound: float
    rates: tuple[tuple[str, float], ...]


Strategy = Probabilistic | RateLimiting | PerOperation


def _mapping(value: object, field: str) -> Mapping[str, Any]:
    """A section of the response; absent, null or empty means defaults (as jaeger-client)."""
    if not value:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(field, f"expected a mapping, got {typed(value)}")
    return value


def parse_operation_sampling(strategies: object, path: str = OPERATION_SAMPLING_STR) -> PerOperation:
    """An ``operationSampling`` section (jaeger-client's ``AdaptiveSampler`` argument).

    Operation names are limited to :data:`~dsampler._validate.MAX_TEXT` characters: a
    longer name could never match a decision (those go to the default sampler).
    """
    if not isinstance(strategies, Mapping):
        raise ConfigError(path, f"expected a mapping, got {typed(strategies)}")
    default = check_rate(
        strategies.get(DEFAULT_SAMPLING_PROBABILITY_STR, DEFAULT_SAMPLING_PROBABILITY),
        f"{path}.{DEFAULT_SAMPLING_PROBABILITY_STR}",
    )
    lower = check_per_second(
        strategies.get(DEFAULT_LOWER_BOUND_STR, DEFAULT_LOWER_BOUND), f"{path}.{DEFAULT_LOWER_BOUND_STR}"
    )
    items = strategies.get(STRATEGIES_STR) or []
    if not isinstance(items, list):
        raise ConfigError(f"{path}.{STRATEGIES_STR}", f"expected a list, got {typed(items)}")
    rates: dict[str, float] = {}
    for i, item in enumerate(items):
        where = f"{path}.{STRATEGIES_STR}[{i}]"
        if not isinstance(item, Mapping):
            raise ConfigError(where, f"expected a mapping, got {typed(item)}")
        name = str.__str__(check_text(item.get(OPERATION_STR), f"{where}.{OPERATION_STR}"))
        section = _mapping(item.get(PROBABILISTIC_SAMPLING_STR), f"{where}.{PROBABILISTIC_SAMPLING_STR}")
        rate = section.get(SAMPLING_RATE_STR, DEFAULT_SAMPLING_PROBABILITY)
        rates[name] = check_rate(rate, f"{where}.{PROBABILISTIC_SAMPLING_STR}.{SAMPLING_RATE_STR}")
    return PerOperation(default, lower, tuple(rates.items()))


def _strategy_type(response: Mapping[str, Any]) -> object:
    """``strategyType`` in either dialect: proto3-JSON strings or legacy numbers."""
    value = response.get(STRATEGY_TYPE_STR)
    if type(value) is int:
        return {0: PROBABILISTIC_SAMPLING_STRATEGY, 1: RATE_LIMITING_SAMPLING_STRATEGY}.get(value, value)
    return value


def parse_response(response: object) -> Strategy:
    """A whole strategy response; ``operationSampling``, when present, wins (as jaeger-client).

    Raises:
        ConfigError: not a usable strategy; the message names the key.
    """
    if not isinstance(response, Mapping):
        raise ConfigError("response", f"expected a mapping, got {typed(response)}")
    if response.get(OPERATION_SAMPLING_STR):
        return parse_operation_sampling(response[OPERATION_SAMPLING_STR])
    kind = _strategy_type(response)
    if kind == PROBABILISTIC_SAMPLING_STRATEGY:
        section = _mapping(response.get(PROBABILISTIC_SAMPLING_STR), PROBABILISTIC_SAMPLING_STR)
        rate = section.get(SAMPLING_RATE_STR, DEFAULT_SAMPLING_PROBABILITY)
        return Probabilistic(check_rate(rate, f"{PROBABILISTIC_SAMPLING_STR}.{SAMPLING_RATE_STR}"))
    if kind == RATE_LIMITING_SAMPLING_STRATEGY:
        field = f"{RATE_LIMITING_SAMPLING_STR}.{MAX_TRACES_PER_SECOND_STR}"
        section = _mapping(response.get(RATE_LIMITING_SAMPLING_STR), RATE_LIMITING_SAMPLING_STR)
        limit = check_per_second(section.get(MAX_TRACES_PER_SECOND_STR, DEFAULT_LOWER_BOUND), field)
        if limit >= MAX_RATE_LIMIT:
            raise ConfigError(field, f"expected below {MAX_RATE_LIMIT:.0f}, got {limit}")
        return RateLimiting(limit)
    raise ConfigError(STRATEGY_TYPE_STR, f"expected PROBABILISTIC or RATE_LIMITING, got {show(kind)}")
