"""jaeger-client's per-operation samplers: ``AdaptiveSampler`` over guaranteed-throughput
samplers, from a Jaeger ``operationSampling`` strategy."""

from __future__ import annotations

import random
import threading
from collections.abc import Mapping
from typing import Any

from dsampler import _fork
from dsampler._validate import DEFAULT_MAX_OPERATIONS, check_per_second, check_rate, show, typed
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.errors import ConfigError
from dsampler.jaeger._samplers import (
    DEFAULT_LOWER_BOUND,
    DEFAULT_SAMPLING_PROBABILITY,
    GuaranteedThroughputProbabilisticSampler,
    ProbabilisticSampler,
    Sampler,
    Tags,
)

__all__ = ["AdaptiveSampler"]


def _per_operation(strategies: Mapping[str, Any]) -> tuple[float, float, dict[str, float]]:
    """(default probability, lower bound, {operation: rate}) of an ``operationSampling``."""
    if not isinstance(strategies, Mapping):
        raise ConfigError("operationSampling", f"expected a mapping, got {typed(strategies)}")
    default = check_rate(
        strategies.get("defaultSamplingProbability", DEFAULT_SAMPLING_PROBABILITY),
        "operationSampling.defaultSamplingProbability",
    )
    lower = check_per_second(
        strategies.get("defaultLowerBoundTracesPerSecond", DEFAULT_LOWER_BOUND),
        "operationSampling.defaultLowerBoundTracesPerSecond",
    )
    rates: dict[str, float] = {}
    items = strategies.get("perOperationStrategies") or []
    if not isinstance(items, list):
        raise ConfigError("operationSampling.perOperationStrategies", f"expected a list, got {typed(items)}")
    for i, item in enumerate(items):
        path = f"operationSampling.perOperationStrategies[{i}]"
        if not isinstance(item, Mapping) or not isinstance(item.get("operation"), str):
            raise ConfigError(f"{path}.operation", f"expected a string, got {show(item)}")
        probabilistic = item.get("probabilisticSampling") or {}
        if not isinstance(probabilistic, Mapping):
            raise ConfigError(
                f"{path}.probabilisticSampling", f"expected a mapping, got {typed(probabilistic)}"
            )
        rate = probabilistic.get("samplingRate", DEFAULT_SAMPLING_PROBABILITY)
        rates[item["operation"]] = check_rate(rate, f"{path}.probabilisticSampling.samplingRate")
    return default, lower, rates


class AdaptiveSampler(Sampler):
    """Per-operation guaranteed-throughput samplers, from a Jaeger ``operationSampling``
    strategy; operations first seen at run time are added up to ``max_operations``,
    beyond which the default probabilistic sampler decides."""

    def __init__(
        self,
        strategies: Mapping[str, Any],
        max_operations: int = DEFAULT_MAX_OPERATIONS,
        *,
        hash: str = "jaeger",
        clock: Clock = SYSTEM_CLOCK,
        rng: random.Random | None = None,
    ) -> None:
        if type(max_operations) is not int or max_operations < 0:
            raise ConfigError("max_operations", f"expected an integer >= 0, got {show(max_operations)}")
        self.max_operations = max_operations
        self._hash, self._clock, self._rng = hash, clock, rng
        self._lock = threading.Lock()
        _fork.register(self)
        default, lower, rates = _per_operation(strategies)
        self.default_sampling_probability = default
        self.default_sampler = ProbabilisticSampler(default, hash=hash)
        self.lower_bound = lower
        self.samplers: dict[str, GuaranteedThroughputProbabilisticSampler] = {
            op: self._new(op, lower, rate) for op, rate in rates.items()
        }
        self._tags = {}

    def _new(self, operation: str, lower: float, rate: float) -> GuaranteedThroughputProbabilisticSampler:
        return GuaranteedThroughputProbabilisticSampler(
            operation, lower, rate, hash=self._hash, clock=self._clock, rng=self._rng
        )

    def is_sampled(self, trace_id: int, operation: str = "") -> tuple[bool, Tags]:
        try:
            sampler = self.samplers.get(operation) or self._track(operation)
        except TypeError:  # an unhashable operation name: the default decides, nothing raises
            sampler = None
        if sampler is None:
            return self.default_sampler.is_sampled(trace_id, operation)
        return sampler.is_sampled(trace_id, operation)

    def _track(self, operation: str) -> GuaranteedThroughputProbabilisticSampler | None:
        """First sight of an operation: the one slow path, under a lock, capped."""
        with self._lock:
            samplers = self.samplers
            if operation in samplers:
                return samplers[operation]
            if len(samplers) >= self.max_operations:
                return None
            sampler = self._new(operation, self.lower_bound, self.default_sampling_probability)
            self.samplers = {**samplers, operation: sampler}  # copy-on-write: readers never see a half map
            return sampler

    def _reset_after_fork(self) -> None:
        self._lock = threading.Lock()

    def update(self, strategies: Mapping[str, Any]) -> None:
        """Apply a new ``operationSampling``: existing operations keep their limiter
        balances, new ones are added, absent ones are dropped.

        Raises:
            ConfigError: the strategies are invalid; nothing changes.
        """
        default, lower, rates = _per_operation(strategies)
        with self._lock:
            current = self.samplers
            updated = {}
            for op, rate in rates.items():
                sampler = current.get(op) or self._new(op, lower, rate)
                sampler.update(lower, rate)
                updated[op] = sampler
            self.lower_bound = lower
            if default != self.default_sampling_probability:
                self.default_sampler = ProbabilisticSampler(default, hash=self._hash)
                self.default_sampling_probability = default
            self.samplers = updated

    def _key(self) -> tuple[Any, ...]:
        operations = sorted((op, s.rate, s.lower_bound) for op, s in self.samplers.items())
        return (self.default_sampling_probability, self.lower_bound, self.max_operations, operations)

    def __str__(self) -> str:
        return f"AdaptiveSampler({self.default_sampling_probability:f}, {self.lower_bound:f}, {self.max_operations})"  # noqa: E501
