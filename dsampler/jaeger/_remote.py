"""jaeger-client's ``RemoteControlledSampler``: follows a Jaeger sampling strategy."""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable, Mapping
from typing import Any

from dsampler import _fork
from dsampler._poller import Poller
from dsampler._validate import DEFAULT_MAX_OPERATIONS, check_per_second, check_rate, show, typed
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.errors import ConfigError
from dsampler.jaeger._adaptive import AdaptiveSampler
from dsampler.jaeger._samplers import (
    DEFAULT_LOWER_BOUND,
    DEFAULT_SAMPLING_INTERVAL,
    DEFAULT_SAMPLING_PROBABILITY,
    MAX_RATE_LIMIT,
    ProbabilisticSampler,
    RateLimitingSampler,
    Sampler,
    Tags,
)

__all__ = ["RemoteControlledSampler"]

_log = logging.getLogger("dsampler.jaeger")


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
        interval = check_per_second(sampling_refresh_interval, "sampling_refresh_interval")
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
                check_rate(rate, "probabilisticSampling.samplingRate"), hash=self._hash
            )
            return current if sampler == current else sampler
        if kind == "RATE_LIMITING":
            limit = _section(response, "rateLimitingSampling").get("maxTracesPerSecond", DEFAULT_LOWER_BOUND)
            limit = check_per_second(limit, "rateLimitingSampling.maxTracesPerSecond")
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
