"""Jaeger sampling strategies as frozen values, validated on construction; a response may
carry several, and a client acts on one (:attr:`StrategyResponse.strategy`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

from dsampler._validate import check_optional, check_per_second, check_rate, check_text, typed
from dsampler.errors import ConfigError

StrategyType: TypeAlias = Literal["PROBABILISTIC", "RATE_LIMITING"]
PROBABILISTIC: Final = "PROBABILISTIC"
RATE_LIMITING: Final = "RATE_LIMITING"


@dataclass(frozen=True, slots=True)
class ProbabilisticStrategy:
    """Sample a fraction ``rate`` (in [0, 1]) of traces, by trace ID."""

    rate: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "rate", check_rate(self.rate, "rate"))


@dataclass(frozen=True, slots=True)
class RateLimitingStrategy:
    """At most ``traces_per_second`` traces per second per process (a leaky bucket of
    ``max(rate, 1)``). The wire type is an integer; fractional values are kept."""

    traces_per_second: float

    def __post_init__(self) -> None:
        value = check_per_second(self.traces_per_second, "traces_per_second")
        object.__setattr__(self, "traces_per_second", value)


@dataclass(frozen=True, slots=True)
class OperationRate:
    """The probabilistic rate of one operation (span name)."""

    operation: str
    rate: float

    def __post_init__(self) -> None:
        check_text(self.operation, "operation")
        object.__setattr__(self, "rate", check_rate(self.rate, "rate"))


@dataclass(frozen=True, slots=True)
class PerOperationStrategy:
    """Jaeger's per-operation strategy: listed operations at their own rate, the others at
    ``default_rate``, each guaranteed ``default_lower_bound_per_second`` (0: off);
    ``operations`` keeps the response's order.
    """

    default_rate: float
    default_lower_bound_per_second: float = 0.0
    operations: tuple[OperationRate, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "default_rate", check_rate(self.default_rate, "default_rate"))
        bound = check_per_second(self.default_lower_bound_per_second, "default_lower_bound_per_second")
        object.__setattr__(self, "default_lower_bound_per_second", bound)
        ops = self.operations
        if not isinstance(ops, (tuple, list)) or not all(isinstance(o, OperationRate) for o in ops):
            raise ConfigError("operations", f"expected a sequence of OperationRate, got {typed(ops)}")
        object.__setattr__(self, "operations", tuple(ops))


#: What a client acts on.
Strategy: TypeAlias = ProbabilisticStrategy | RateLimitingStrategy | PerOperationStrategy


@dataclass(frozen=True, slots=True)
class StrategyResponse:
    """One ``SamplingStrategyResponse``: the legacy ``strategy_type`` and whichever
    strategy objects are present."""

    strategy_type: StrategyType = PROBABILISTIC
    probabilistic: ProbabilisticStrategy | None = None
    rate_limiting: RateLimitingStrategy | None = None
    per_operation: PerOperationStrategy | None = None

    def __post_init__(self) -> None:
        if self.strategy_type not in (PROBABILISTIC, RATE_LIMITING):
            problem = f"expected PROBABILISTIC or RATE_LIMITING, got {typed(self.strategy_type)}"
            raise ConfigError("strategyType", problem)
        for name, kind in (
            ("probabilistic", ProbabilisticStrategy),
            ("rate_limiting", RateLimitingStrategy),
            ("per_operation", PerOperationStrategy),
        ):
            check_optional(getattr(self, name), name, kind)

    @property
    def strategy(self) -> Strategy:
        """The strategy a client acts on: per-operation if present, else probabilistic,
        else rate limiting (jaeger-client-go and OTel Go's order).

        Raises:
            ConfigError: the response carries no strategy object at all.
        """
        for found in (self.per_operation, self.probabilistic, self.rate_limiting):
            if found is not None:
                return found
        expected = "operationSampling, probabilisticSampling or rateLimitingSampling"
        raise ConfigError("response", f"no usable strategy: expected {expected}")

    @classmethod
    def of(cls, strategy: Strategy) -> StrategyResponse:
        """The response a server sends for ``strategy`` alone."""
        match strategy:
            case RateLimitingStrategy():
                return cls(RATE_LIMITING, rate_limiting=strategy)
            case ProbabilisticStrategy():
                return cls(PROBABILISTIC, probabilistic=strategy)
            case PerOperationStrategy():
                return cls(PROBABILISTIC, per_operation=strategy)
        raise ConfigError("strategy", f"expected a Strategy, got {typed(strategy)}")
