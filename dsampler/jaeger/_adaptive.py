"""jaeger-client's ``AdaptiveSampler``: a guaranteed-throughput sampler per operation; those
the strategy does not name are tracked lock-free as the engine tracks them."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Mapping
from typing import Any, cast

from dsampler import _fork
from dsampler._validate import MAX_TEXT, check_max_operations
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.decision import Tracked
from dsampler.jaeger._constants import DEFAULT_MAX_OPERATIONS
from dsampler.jaeger._samplers import (
    GuaranteedThroughputProbabilisticSampler,
    ProbabilisticSampler,
    RateLimitingSampler,
    Sampler,
    Tags,
)
from dsampler.jaeger._strategies import per_operation_of
from dsampler.protocol import (
    PerOperationStrategy,
    ProbabilisticStrategy,
    RateLimitingStrategy,
    Strategy,
)

_Operation = GuaranteedThroughputProbabilisticSampler


def name_of(operation: object) -> str | None:
    """The text an operation may be tracked under, or None; runs no code of the object's class."""
    # type(), not isinstance(): isinstance() reads __class__, which a class can override
    if not issubclass(type(operation), str):
        return None
    name = str.__str__(cast(str, operation))  # a subclass's plain copy of the text; a str itself
    return name if len(name) <= MAX_TEXT else None


class AdaptiveSampler(Sampler):
    """Per-operation guaranteed-throughput samplers, from a ``PerOperationStrategy`` or an
    ``operationSampling`` mapping (read with jaeger-client's defaults); operations first seen
    at run time are added up to ``max_operations`` (``None``: 2000; 0: only the strategy's),
    beyond which the default probabilistic sampler decides.

    Raises:
        ConfigError: invalid strategies or ``max_operations``, naming the key.
    """

    def __init__(
        self,
        strategies: Mapping[str, Any] | PerOperationStrategy,
        max_operations: int | None = DEFAULT_MAX_OPERATIONS,
        *,
        hash: str = "jaeger",
        clock: Clock = SYSTEM_CLOCK,
        rng: random.Random | None = None,
    ) -> None:
        self.max_operations = (
            DEFAULT_MAX_OPERATIONS if max_operations is None else check_max_operations(max_operations)
        )
        self._hash, self._clock, self._rng = hash, clock, rng
        self._guard = _fork.ModuleLock()
        self._named: dict[str, _Operation] = {}  # the strategy's operations
        self._tracked: Tracked[_Operation] = Tracked()  # those first seen since
        self.default_sampling_probability = -1.0
        self._tags = {}
        self.update(strategies)

    @property
    def samplers(self) -> dict[str, _Operation]:
        """jaeger-client's attribute: the sampler of each operation, the strategy's and
        those tracked since (a copy)."""
        return {**self._named, **self._tracked.by_name}

    def _new(self, lower_bound: float, rate: float) -> Callable[[str], _Operation]:
        return functools.partial(
            _Operation, lower_bound=lower_bound, rate=rate, hash=self._hash, clock=self._clock, rng=self._rng
        )

    def is_sampled(self, trace_id: int, operation: str = "") -> tuple[bool, Tags]:
        try:
            name = operation if type(operation) is str else name_of(operation)
            if name is not None:
                sampler = self._named.get(name)
                if sampler is None:
                    sampler = self._tracked.get(name)
                if sampler is not None:
                    return sampler.is_sampled(trace_id, name)
        except Exception:  # never raises: the default sampler decides (MemoryError, a bug)
            pass
        return self.default_sampler.is_sampled(trace_id, operation)

    def update(self, strategies: Mapping[str, Any] | PerOperationStrategy) -> None:
        """Apply a new per-operation strategy: limiters keep their balances, absent operations are
        dropped, operations tracked since stay at the new defaults.

        Raises:
            ConfigError: the strategies are invalid; nothing changes.
        """
        plan = per_operation_of(strategies)
        lower, rate = plan.default_lower_bound_per_second, plan.default_rate
        with self._guard.lock:
            named = {}
            for op in plan.operations:
                sampler = self._named.get(op.operation) or self._new(lower, op.rate)(op.operation)
                sampler.update(lower, op.rate)
                named[op.operation] = sampler
            room = max(0, self.max_operations - len(named))
            refit = self._tracked.refit(room, named, self._new(lower, rate), lambda s: s.update(lower, rate))
            self.lower_bound = lower
            if rate != self.default_sampling_probability:
                self.default_sampler = ProbabilisticSampler(rate, hash=self._hash)
                self.default_sampling_probability = rate
            self._named = named
            refit()

    def close(self) -> None:
        for sampler in self.samplers.values():
            sampler.close()

    def _key(self) -> tuple[Any, ...]:
        operations = sorted((op, s.rate, s.lower_bound) for op, s in self.samplers.items())
        return (self.default_sampling_probability, self.lower_bound, self.max_operations, operations)

    def __str__(self) -> str:
        return (
            f"AdaptiveSampler({self.default_sampling_probability:f}, {self.lower_bound:f}, "
            f"{self.max_operations})"
        )


def sampler_of(
    strategy: Strategy,
    max_operations: int = DEFAULT_MAX_OPERATIONS,
    *,
    hash: str = "jaeger",
    clock: Clock = SYSTEM_CLOCK,
    rng: random.Random | None = None,
) -> Sampler:
    """The jaeger-client sampler of a typed strategy."""
    match strategy:
        case ProbabilisticStrategy(rate=rate):
            return ProbabilisticSampler(rate, hash=hash)
        case RateLimitingStrategy(traces_per_second=limit):
            return RateLimitingSampler(limit, clock=clock, rng=rng)
        case PerOperationStrategy():
            return AdaptiveSampler(strategy, max_operations, hash=hash, clock=clock, rng=rng)
