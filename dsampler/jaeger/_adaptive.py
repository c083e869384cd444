"""jaeger-client's per-operation ``AdaptiveSampler``: guaranteed-throughput samplers per
operation, from a Jaeger per-operation strategy (a ``PerOperationStrategy`` of
:mod:`dsampler.remote`, or the ``operationSampling`` dict jaeger-client took, read by
the same parser).

The request path never waits. A tracked operation costs one dictionary lookup. The first
sight of an operation is the one slow path, and it stays bounded: only a string of at most
:data:`~dsampler._validate.MAX_TEXT` characters gets a sampler of its own (as a plain
``str`` copy, so a subclass's ``__hash__`` or ``__eq__`` never runs); once
``max_operations`` are tracked no lock is touched at all; otherwise the writer lock is only
*tried*, and when a writer holds it the default sampler decides this one request (the
operation is tracked at a later sight). The map of samplers is copy-on-write: a new
operation publishes a new dictionary (O(tracked) once per operation, about 20 µs at
2,000), and a published one never changes.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Mapping
from typing import Any, cast

from dsampler import _fork
from dsampler._validate import MAX_TEXT, check_max_operations
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.jaeger._constants import DEFAULT_MAX_OPERATIONS
from dsampler.jaeger._samplers import (
    GuaranteedThroughputProbabilisticSampler,
    ProbabilisticSampler,
    RateLimitingSampler,
    Sampler,
    Tags,
)
from dsampler.jaeger._strategies import per_operation_of
from dsampler.protocol._strategy import (
    PerOperationStrategy,
    ProbabilisticStrategy,
    RateLimitingStrategy,
    Strategy,
)

__all__ = ["AdaptiveSampler", "name_of", "sampler_of"]

_Operation = GuaranteedThroughputProbabilisticSampler


def name_of(operation: object) -> str | None:
    """The text under which an operation may be tracked, or None (not a string, or longer
    than MAX_TEXT). Neither ``type()`` nor ``str.__str__`` runs code of the object's class."""
    kind = type(operation)  # not isinstance(): it reads __class__, which a class can override
    if kind is str:
        name = cast(str, operation)
    elif issubclass(kind, str):
        name = str.__str__(cast(str, operation))  # a plain copy of the text
    else:
        return None
    return name if len(name) <= MAX_TEXT else None


class AdaptiveSampler(Sampler):
    """Per-operation guaranteed-throughput samplers, from a Jaeger per-operation strategy
    (a ``PerOperationStrategy``, or an ``operationSampling`` mapping read with
    jaeger-client's defaults); operations first seen at run time are
    added up to ``max_operations`` (default 2000; ``None`` means the default, 0 tracks
    only the strategy's operations), beyond which the default probabilistic sampler decides.

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
        self._lock = threading.Lock()
        _fork.register(self._reset_after_fork)
        plan = per_operation_of(strategies)
        self.default_sampling_probability = plan.default_rate
        self.default_sampler = ProbabilisticSampler(plan.default_rate, hash=hash)
        self.lower_bound = plan.default_lower_bound_per_second
        self.samplers: dict[str, _Operation] = {
            o.operation: self._new(o.operation, o.rate) for o in plan.operations
        }
        self._tags = {}

    def _new(self, operation: str, rate: float) -> _Operation:
        return _Operation(
            operation, self.lower_bound, rate, hash=self._hash, clock=self._clock, rng=self._rng
        )

    def is_sampled(self, trace_id: int, operation: str = "") -> tuple[bool, Tags]:
        try:
            sampler = self.samplers.get(operation) if type(operation) is str else None
            if sampler is None:
                sampler = self._first_sight(operation)
            if sampler is not None:
                return sampler.is_sampled(trace_id, operation)
        except Exception:  # never raises: the default sampler decides (MemoryError, a bug)
            pass
        return self.default_sampler.is_sampled(trace_id, operation)

    def _first_sight(self, operation: object) -> _Operation | None:
        """The sampler of an operation not found at once: tracked now if it is a name,
        there is room and no writer holds the lock; None lets the default decide."""
        name = name_of(operation)
        if name is None:
            return None
        samplers = self.samplers
        sampler = samplers.get(name)  # a str subclass of a tracked name
        if sampler is not None or len(samplers) >= self.max_operations:
            return sampler  # full: no lock at all
        if not self._lock.acquire(blocking=False):
            return None  # a writer is busy: never wait for it
        try:
            samplers = self.samplers  # read again: another first sight may have published
            sampler = samplers.get(name)
            if sampler is None and len(samplers) < self.max_operations:
                sampler = self._new(name, self.default_sampling_probability)
                self.samplers = {**samplers, name: sampler}  # copy-on-write: readers never see a change
            return sampler
        finally:
            self._lock.release()

    def _reset_after_fork(self) -> None:
        self._lock = threading.Lock()

    def update(self, strategies: Mapping[str, Any] | PerOperationStrategy) -> None:
        """Apply a new per-operation strategy: existing operations keep their limiter
        balances, new ones are added, absent ones are dropped.

        Raises:
            ConfigError: the strategies are invalid; nothing changes.
        """
        plan = per_operation_of(strategies)
        lower = plan.default_lower_bound_per_second
        with self._lock:
            current = self.samplers
            self.lower_bound = lower
            updated = {}
            for op in plan.operations:
                sampler = current.get(op.operation) or self._new(op.operation, op.rate)
                sampler.update(lower, op.rate)
                updated[op.operation] = sampler
            if plan.default_rate != self.default_sampling_probability:
                self.default_sampler = ProbabilisticSampler(plan.default_rate, hash=self._hash)
                self.default_sampling_probability = plan.default_rate
            self.samplers = updated

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
    """The jaeger-client sampler of a typed strategy, as jaeger-client's
    ``RemoteControlledSampler`` built it from a response."""
    match strategy:
        case ProbabilisticStrategy(rate=rate):
            return ProbabilisticSampler(rate, hash=hash)
        case RateLimitingStrategy(traces_per_second=limit):
            return RateLimitingSampler(limit, clock=clock, rng=rng)
        case PerOperationStrategy():
            return AdaptiveSampler(strategy, max_operations, hash=hash, clock=clock, rng=rng)
    raise TypeError(f"not a Strategy: {strategy!r}")  # pragma: no cover - the union is closed
