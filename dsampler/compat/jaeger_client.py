"""jaeger-client-python's samplers, rebuilt on dsampler's decision core.

Same classes, constructor arguments, ``is_sampled(trace_id, operation='') -> (bool,
tags)`` contract, tags, ``close()``, equality and ``str()`` as jaeger-client 4.8, so
``from dsampler.jaeger import ProbabilisticSampler`` replaces the import and nothing
else. Differences, each deliberate:

* Decisions use the ``jaeger`` rule by default: exactly jaeger-client-python's
  ``id & (2**64-1) < rate * 2**64``. Pass ``hash="fnv1a"`` to decide like dsampler's
  OpenTelemetry samplers instead, so a fleet half-way through a migration keeps or drops
  each trace in every service alike.
* Rate limiters are dsampler's lock-free token buckets with an injectable clock (not
  ``time.time()``, which jumps with NTP); their initial balance is jaeger-client's
  ``random() * max_balance`` unless given.
* Bad arguments raise :class:`~dsampler.ConfigError` (a ``ValueError``) naming the
  argument, where jaeger-client asserts. ``is_sampled`` never raises.
* ``AdaptiveSampler.update`` drops operations absent from the new strategies (the fix
  jaeger-client-go#412 made; jaeger-client-python kept them at their old rates).
* ``RemoteControlledSampler`` needs no tornado: it takes its strategies from an
  in-process ``strategy_source`` (HTTP polling arrives with the remote-sampling module).
* ``RateLimitingSampler.rate_limiter`` is a :class:`~dsampler.samplers.ratelimit.TokenBucket`:
  ``check_credit(1.0)`` works, other item costs are refused (samplers only spend 1).
* ``ConstSampler`` takes a bool (or 1/0) and stores it as a bool.

When jaeger-client is installed the samplers also subclass its ``Sampler``, so
``jaeger_client.Config({"sampler": instance})`` accepts them.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable, Mapping
from typing import Any, Final

from dsampler import _fork
from dsampler._poller import Poller
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.config.model import DEFAULT_MAX_OPERATIONS, validate_per_second
from dsampler.errors import ConfigError, show, typed
from dsampler.hashing.loader import LOADER
from dsampler.hashing.reference import MASK63, MASK64
from dsampler.hashing.rules import get_rule, validate_rate
from dsampler.samplers.ratelimit import TokenBucket


def _jaeger_base() -> type:
    """jaeger-client's Sampler when installed: its Config accepts only its own samplers."""
    try:
        from jaeger_client.sampler import Sampler as JaegerSampler
    except ImportError:  # pragma: no cover - the jaeger extra is not installed
        return object
    return JaegerSampler


_Base: type = _jaeger_base()

__all__ = [
    "DEFAULT_LOWER_BOUND",
    "DEFAULT_SAMPLING_PROBABILITY",
    "AdaptiveSampler",
    "ConstSampler",
    "GuaranteedThroughputProbabilisticSampler",
    "ProbabilisticSampler",
    "RateLimitingSampler",
    "RemoteControlledSampler",
    "Sampler",
]

DEFAULT_SAMPLING_PROBABILITY: Final = 0.001
DEFAULT_LOWER_BOUND: Final = 1.0 / 600.0  # jaeger-client-python: once every 10 minutes
DEFAULT_SAMPLING_INTERVAL: Final = 60.0
MAX_RATE_LIMIT: Final = 500.0  # jaeger-client-python refuses remote rate limits >= 500
TYPE_KEY: Final = "sampler.type"
PARAM_KEY: Final = "sampler.param"
_log = logging.getLogger("dsampler.jaeger")

Tags = dict[str, Any]


class Sampler(_Base):  # type: ignore[misc]
    """jaeger-client's sampler interface."""

    _tags: Tags

    def is_sampled(self, trace_id: int, operation: str = "") -> tuple[bool, Tags]:
        """(sampled?, tags to put on the root span when sampled)."""
        raise NotImplementedError

    def close(self) -> None:
        """Release resources (pollers); idempotent."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sampler) and type(other) is type(self) and self._key() == other._key()

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def _key(self) -> tuple[Any, ...]:
        return (self._tags.get(TYPE_KEY), self._tags.get(PARAM_KEY))


class ConstSampler(Sampler):
    """Always the same decision; tags ``sampler.type=const``, ``sampler.param=decision``."""

    def __init__(self, decision: bool) -> None:
        if not isinstance(decision, bool) and decision not in (0, 1):
            raise ConfigError("decision", f"expected true or false (or 1 or 0), got {typed(decision)}")
        self.decision = bool(decision)
        self._tags = {TYPE_KEY: "const", PARAM_KEY: self.decision}
        self._answer = (self.decision, self._tags)

    def is_sampled(self, trace_id: int, operation: str = "") -> tuple[bool, Tags]:
        return self._answer

    def __str__(self) -> str:
        return f"ConstSampler({self.decision})"


class ProbabilisticSampler(Sampler):
    """A fixed fraction of traces by trace ID (``sampler.type=probabilistic``).

    Args:
        rate: in [0, 1].
        hash: ``jaeger`` (default, jaeger-client-python's exact decision), ``fnv1a``
            (dsampler's OpenTelemetry samplers'), or any other rule name.
    """

    def __init__(self, rate: float, hash: str = "jaeger") -> None:
        self.rate = validate_rate(rate, "rate")
        self._rule = get_rule(hash)
        self._bound = self._rule.bound(self.rate)
        # The masking rules decide inline, without a call: as cheap as jaeger-client's.
        self._mask = {"jaeger": MASK64, "otel": MASK64, "jaeger-go": MASK63}.get(self._rule.name, 0)
        self._tags = {TYPE_KEY: "probabilistic", PARAM_KEY: rate}
        if self._rule.hashes:
            LOADER.ensure_started()

    def is_sampled(self, trace_id: int, operation: str = "") -> tuple[bool, Tags]:
        try:
            if self._mask:
                return (trace_id & self._mask) < self._bound, self._tags
            return self._rule.key((trace_id >> 64) & MASK64, trace_id & MASK64) < self._bound, self._tags
        except Exception:  # not a Python int (None, str, an overflowing numpy int): not sampled
            return False, self._tags

    def _key(self) -> tuple[Any, ...]:
        return (self.rate, self._rule.name)

    def __str__(self) -> str:
        return f"ProbabilisticSampler({self.rate})"


def _bucket(
    per_second: float, clock: Clock, initial_balance: float | None, rng: random.Random | None
) -> TokenBucket:
    max_balance = max(per_second, 1.0)
    if initial_balance is None:  # jaeger-client-python starts anywhere in the bucket
        initial_balance = (rng or random).random() * max_balance
    return TokenBucket(per_second, max_balance, initial_balance=initial_balance, clock=clock)


class RateLimitingSampler(Sampler):
    """At most ``max_traces_per_second`` (``sampler.type=ratelimiting``); the bucket holds
    ``max(rate, 1)`` credits.

    Args:
        max_traces_per_second: a finite number >= 0 (default 10).
        clock: monotonic time source (default the process clock).
        initial_balance: default ``random() * max_balance``, as jaeger-client-python.
        rng: source of that random number.
    """

    def __init__(
        self,
        max_traces_per_second: float = 10,
        *,
        clock: Clock = SYSTEM_CLOCK,
        initial_balance: float | None = None,
        rng: random.Random | None = None,
    ) -> None:
        per_second = validate_per_second(max_traces_per_second, "max_traces_per_second")
        self.traces_per_second = max_traces_per_second  # as given: str() and tags show it so
        self.rate_limiter = _bucket(per_second, clock, initial_balance, rng)
        self._tags = {TYPE_KEY: "ratelimiting", PARAM_KEY: max_traces_per_second}

    def is_sampled(self, trace_id: int, operation: str = "") -> tuple[bool, Tags]:
        return self.rate_limiter.try_acquire(), self._tags

    def update(self, max_traces_per_second: float) -> bool:
        """Change the rate in place (balance pro-rated); False when unchanged."""
        rate = validate_per_second(max_traces_per_second, "max_traces_per_second")
        if rate == self.traces_per_second:
            return False
        self.rate_limiter.update(rate, max(rate, 1.0))
        self.traces_per_second = max_traces_per_second
        self._tags = {TYPE_KEY: "ratelimiting", PARAM_KEY: max_traces_per_second}
        return True

    def _key(self) -> tuple[Any, ...]:
        return (self.traces_per_second,)

    def __str__(self) -> str:
        return f"RateLimitingSampler({self.traces_per_second})"


class GuaranteedThroughputProbabilisticSampler(Sampler):
    """One operation's probabilistic sampler with a guaranteed lower bound: sampled if
    the probability samples (a lower-bound credit is spent anyway), else if the
    lower-bound limiter has a credit (then tagged ``sampler.type=lowerbound``)."""

    def __init__(
        self,
        operation: str,
        lower_bound: float,
        rate: float,
        *,
        hash: str = "jaeger",
        clock: Clock = SYSTEM_CLOCK,
        rng: random.Random | None = None,
    ) -> None:
        self.operation = operation
        self.rate = validate_rate(rate, "rate")
        self.lower_bound = validate_per_second(lower_bound, "lower_bound")
        self._hash = hash
        self.probabilistic_sampler = ProbabilisticSampler(rate, hash=hash)
        self.lower_bound_sampler = RateLimitingSampler(self.lower_bound, clock=clock, rng=rng)
        self._tags = {TYPE_KEY: "lowerbound", PARAM_KEY: rate}

    def is_sampled(self, trace_id: int, operation: str = "") -> tuple[bool, Tags]:
        sampled, tags = self.probabilistic_sampler.is_sampled(trace_id, operation)
        if sampled:
            self.lower_bound_sampler.rate_limiter.try_acquire()
            return True, tags
        return self.lower_bound_sampler.rate_limiter.try_acquire(), self._tags

    def update(self, lower_bound: float, rate: float) -> None:
        """Change rate and lower bound in place; the limiter keeps its balance."""
        rate = validate_rate(rate, "rate")
        lower_bound = validate_per_second(lower_bound, "lower_bound")
        if rate != self.rate:
            self.probabilistic_sampler = ProbabilisticSampler(rate, hash=self._hash)
            self._tags = {TYPE_KEY: "lowerbound", PARAM_KEY: rate}
            self.rate = rate
        if lower_bound != self.lower_bound:
            self.lower_bound_sampler.update(lower_bound)
            self.lower_bound = lower_bound

    def _key(self) -> tuple[Any, ...]:
        return (self.operation, self.rate, self.lower_bound)

    def __str__(self) -> str:
        return (
            f"GuaranteedThroughputProbabilisticSampler({self.operation}, {self.rate:f}, {self.lower_bound:f})"
        )


def _per_operation(strategies: Mapping[str, Any]) -> tuple[float, float, dict[str, float]]:
    """(default probability, lower bound, {operation: rate}) of an ``operationSampling``."""
    if not isinstance(strategies, Mapping):
        raise ConfigError("operationSampling", f"expected a mapping, got {typed(strategies)}")
    default = validate_rate(
        strategies.get("defaultSamplingProbability", DEFAULT_SAMPLING_PROBABILITY),
        "operationSampling.defaultSamplingProbability",
    )
    lower = validate_per_second(
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
        rates[item["operation"]] = validate_rate(rate, f"{path}.probabilisticSampling.samplingRate")
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


def _section(response: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = response.get(key) or {}
    if not isinstance(value, Mapping):
        raise ConfigError(key, f"expected a mapping, got {typed(value)}")
    return value


def _strategy_type(response: Mapping[str, Any]) -> object:
    """``strategyType`` in either dialect: proto3-JSON strings or legacy numbers."""
    value = response.get("strategyType")
    if type(value) is int:
        return {0: "PROBABILISTIC", 1: "RATE_LIMITING"}.get(value, value)
    return value


class RemoteControlledSampler(Sampler):
    """Follows the strategy of a Jaeger sampling endpoint: probabilistic, rate limiting
    or per-operation, updated in place so limiter balances survive identical polls.

    Args:
        channel: accepted for jaeger-client's signature and ignored.
        service_name: this service.
        init_sampler: decides until the first strategy arrives (default
            ``ProbabilisticSampler(0.001)``).
        sampling_refresh_interval: seconds between polls (default 60).
        max_operations: for the per-operation sampler (default 2000).
        strategy_source: returns the current strategy response as a mapping; called by
            :meth:`poll_once` and, every refresh interval, by a background thread.
        hash, clock, rng: as for the other samplers.
    """

    def __init__(
        self,
        channel: object = None,
        service_name: str = "",
        *,
        init_sampler: Sampler | None = None,
        sampling_refresh_interval: float = DEFAULT_SAMPLING_INTERVAL,
        max_operations: int = DEFAULT_MAX_OPERATIONS,
        strategy_source: Callable[[], Mapping[str, Any]] | None = None,
        hash: str = "jaeger",
        clock: Clock = SYSTEM_CLOCK,
        rng: random.Random | None = None,
        endpoint: str | None = None,
        **ignored: Any,
    ) -> None:
        if not isinstance(service_name, str):
            raise ConfigError("service_name", f"expected a string, got {typed(service_name)}")
        interval = validate_per_second(sampling_refresh_interval, "sampling_refresh_interval")
        if interval <= 0:
            raise ConfigError("sampling_refresh_interval", "expected a number of seconds above 0, got 0")
        self.service_name = service_name
        self.sampling_refresh_interval = interval
        self.max_operations = max_operations
        self.endpoint = endpoint
        self._hash, self._clock, self._rng = hash, clock, rng
        self._source = strategy_source
        self.sampler: Sampler = init_sampler or ProbabilisticSampler(DEFAULT_SAMPLING_PROBABILITY, hash=hash)
        self._lock = threading.Lock()
        _fork.register(self)
        self._tags = {}
        self.polls = self.failures = 0
        if ignored:
            _log.debug("dsampler: RemoteControlledSampler ignores %s", sorted(ignored))
        if type(max_operations) is not int or max_operations < 0:
            raise ConfigError("max_operations", f"expected an integer >= 0, got {show(max_operations)}")
        first = (rng or random).random() * interval  # spread a fleet's first polls
        self._poller = Poller(self, interval, name="dsampler-jaeger-poll", first_delay_s=first)
        if strategy_source is not None:
            self._poller.start()

    def is_sampled(self, trace_id: int, operation: str = "") -> tuple[bool, Tags]:
        return self.sampler.is_sampled(trace_id, operation)  # one read: the swap is atomic

    def poll_once(self) -> bool:
        """Fetch the strategy from ``strategy_source`` and apply it; False on failure
        (logged, counted, the current sampler kept)."""
        if self._source is None:
            return False
        self.polls += 1
        try:
            self.update(self._source())
        except Exception:  # a broken source or strategy must not take the sampler down
            self.failures += 1
            _log.warning(
                "dsampler: keeping the current Jaeger strategy for %s", self.service_name, exc_info=True
            )
            return False
        return True

    def update(self, response: Mapping[str, Any]) -> None:
        """Apply one strategy response, in place where the type is unchanged.

        Raises:
            ConfigError: the response is not a usable strategy; nothing changes.
        """
        if not isinstance(response, Mapping):
            raise ConfigError("response", f"expected a mapping, got {typed(response)}")
        with self._lock:
            self.sampler = self._next_sampler(response)

    def _next_sampler(self, response: Mapping[str, Any]) -> Sampler:
        current = self.sampler
        if response.get("operationSampling"):
            if isinstance(current, AdaptiveSampler):
                current.update(response["operationSampling"])
                return current
            return AdaptiveSampler(
                response["operationSampling"],
                self.max_operations,
                hash=self._hash,
                clock=self._clock,
                rng=self._rng,
            )
        kind = _strategy_type(response)
        if kind == "PROBABILISTIC":
            rate = _section(response, "probabilisticSampling").get(
                "samplingRate", DEFAULT_SAMPLING_PROBABILITY
            )
            sampler = ProbabilisticSampler(
                validate_rate(rate, "probabilisticSampling.samplingRate"), hash=self._hash
            )
            return current if sampler == current else sampler
        if kind == "RATE_LIMITING":
            limit = _section(response, "rateLimitingSampling").get("maxTracesPerSecond", DEFAULT_LOWER_BOUND)
            limit = validate_per_second(limit, "rateLimitingSampling.maxTracesPerSecond")
            if limit >= MAX_RATE_LIMIT:
                raise ConfigError(
                    "rateLimitingSampling.maxTracesPerSecond", f"expected below 500, got {limit}"
                )
            if isinstance(current, RateLimitingSampler):
                current.update(limit)
                return current
            return RateLimitingSampler(limit, clock=self._clock, rng=self._rng)
        raise ConfigError("strategyType", f"expected PROBABILISTIC or RATE_LIMITING, got {show(kind)}")

    def close(self) -> None:
        self._poller.stop()
        self.sampler.close()

    def _reset_after_fork(self) -> None:
        self._lock = threading.Lock()

    def _key(self) -> tuple[Any, ...]:
        return (self.service_name, self.sampler)

    def __str__(self) -> str:
        return f"RemoteControlledSampler({self.service_name}, {self.sampler})"
