"""jaeger-client's ``RemoteControlledSampler``: follows a Jaeger sampling strategy.

Applying a strategy is separate from fetching it: :meth:`RemoteControlledSampler.update`
takes one decoded response, :func:`~dsampler.jaeger._strategies.parse_response` validates
it whole, and the sampler changes in place where the strategy type is unchanged (limiter
balances survive identical polls). Responses come from a ``strategy_source`` callable,
polled by a background thread every ``sampling_refresh_interval``; it does not speak HTTP
to the agent's ``endpoint`` itself.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable, Mapping
from typing import Any

from dsampler import _fork
from dsampler._poller import Poller
from dsampler._validate import check_max_operations, check_seconds, typed
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.errors import ConfigError
from dsampler.jaeger._adaptive import AdaptiveSampler
from dsampler.jaeger._constants import (
    DEFAULT_MAX_OPERATIONS,
    DEFAULT_SAMPLING_INTERVAL,
    DEFAULT_SAMPLING_PROBABILITY,
    MAX_REFRESH_INTERVAL_S,
    MIN_REFRESH_INTERVAL_S,
    default_logger,
)
from dsampler.jaeger._samplers import ProbabilisticSampler, RateLimitingSampler, Sampler, Tags
from dsampler.jaeger._strategies import PerOperation, Probabilistic, RateLimiting, Strategy, parse_response

__all__ = ["RemoteControlledSampler", "SamplerMetrics", "max_operations_or_default", "refresh_interval"]


def refresh_interval(value: object, field: str = "sampling_refresh_interval") -> float:
    """Seconds between polls: None or 0 mean jaeger-client's default (60), else [1, 86400]."""
    if value is None or (type(value) in (int, float) and value == 0):
        return DEFAULT_SAMPLING_INTERVAL
    return check_seconds(value, field, MIN_REFRESH_INTERVAL_S, MAX_REFRESH_INTERVAL_S)


def max_operations_or_default(value: object, field: str = "max_operations") -> int:
    """None or 0 mean jaeger-client's default (2000), as its ``max_operations or DEFAULT``."""
    if value is None or (type(value) is int and value == 0):
        return DEFAULT_MAX_OPERATIONS
    return check_max_operations(value, field)


def _ignore(value: float) -> None:
    """A counter nobody reads."""


class _NoMetrics:
    @staticmethod
    def create_counter(name: str, tags: Mapping[str, str] | None = None) -> Callable[[float], None]:
        return _ignore


class SamplerMetrics:
    """jaeger-client's sampler counters (``jaeger:sampler_queries`` and
    ``jaeger:sampler_updates``, tagged ``result`` ok or err), made by any factory with
    jaeger-client's ``create_counter(name, tags)`` (its ``MetricsFactory``,
    ``LegacyMetricsFactory`` or Prometheus factory)."""

    def __init__(self, metrics_factory: Any) -> None:
        counter = metrics_factory.create_counter
        self.sampler_retrieved = counter(name="jaeger:sampler_queries", tags={"result": "ok"})
        self.sampler_query_failure = counter(name="jaeger:sampler_queries", tags={"result": "err"})
        self.sampler_updated = counter(name="jaeger:sampler_updates", tags={"result": "ok"})
        self.sampler_update_failure = counter(name="jaeger:sampler_updates", tags={"result": "err"})


def _factory(metrics_factory: Any, metrics: Any) -> Any:
    """jaeger-client's precedence: the factory, else the deprecated ``Metrics`` object."""
    if metrics_factory is not None:
        return metrics_factory
    if metrics is not None:
        from jaeger_client.metrics.metrics import LegacyMetricsFactory  # it came from jaeger-client

        return LegacyMetricsFactory(metrics)
    return _NoMetrics()


def _checked(init_sampler: Any) -> Sampler:
    """The init sampler, asked once as jaeger-client does, so a broken one fails here."""
    decide = getattr(init_sampler, "is_sampled", None)
    if not callable(decide):
        raise ConfigError("init_sampler", f"expected a sampler with is_sampled(), got {typed(init_sampler)}")
    try:
        decide(0)
    except Exception as exc:
        raise ConfigError("init_sampler", f"is_sampled(0) raised {_describe(exc)}") from exc
    return init_sampler  # type: ignore[no-any-return]


def _describe(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:  # a hostile __str__ must not turn a report into a crash
        text = ""
    text = text if len(text) <= 300 else text[:300] + "..."
    return text if isinstance(exc, ConfigError) else f"{type(exc).__name__}: {text}"


class RemoteControlledSampler(Sampler):
    """Follows a Jaeger sampling strategy: probabilistic, rate limiting or per-operation,
    updated in place so limiter balances survive identical polls.

    Args:
        channel: accepted for jaeger-client's signature and ignored.
        service_name: this service.
        init_sampler: decides until the first strategy arrives (default
            ``ProbabilisticSampler(0.001)``); asked ``is_sampled(0)`` once, as jaeger-client.
        sampling_refresh_interval: seconds between polls, in [1, 86400]; None or 0 mean 60.
        max_operations: for the per-operation sampler; None or 0 mean 2000.
        strategy_source: returns the current strategy response as a mapping; called by
            :meth:`poll_once` and, every refresh interval, by a background thread.
        logger, metrics_factory, metrics, error_reporter: as jaeger-client's; failures go
            to ``error_reporter.error()`` when given, else to the logger (once per
            distinct problem).
        hash, clock, rng: as for the other samplers.
        endpoint: the agent's sampling URL, recorded (not polled).
    """

    def __init__(
        self,
        channel: object = None,
        service_name: str = "",
        *,
        init_sampler: Sampler | None = None,
        sampling_refresh_interval: float | None = None,
        max_operations: int | None = None,
        strategy_source: Callable[[], Mapping[str, Any]] | None = None,
        hash: str = "jaeger",
        clock: Clock = SYSTEM_CLOCK,
        rng: random.Random | None = None,
        endpoint: str | None = None,
        logger: logging.Logger | None = None,
        metrics_factory: Any = None,
        metrics: Any = None,
        error_reporter: Any = None,
        **ignored: Any,
    ) -> None:
        if not isinstance(service_name, str):
            raise ConfigError("service_name", f"expected a string, got {typed(service_name)}")
        self.service_name = service_name
        self.sampling_refresh_interval = refresh_interval(sampling_refresh_interval)
        self.max_operations = max_operations_or_default(max_operations)
        self.endpoint = endpoint
        self.logger = logger or default_logger
        self.metrics = SamplerMetrics(_factory(metrics_factory, metrics))
        self.error_reporter = error_reporter
        self._hash, self._clock, self._rng = hash, clock, rng
        self._source = strategy_source
        self.sampler: Sampler = (
            ProbabilisticSampler(DEFAULT_SAMPLING_PROBABILITY, hash=hash)
            if init_sampler is None
            else _checked(init_sampler)
        )
        self._lock = threading.Lock()
        _fork.register(self)
        self._tags = {}
        self._closed = False
        self._last_problem: str | None = None
        self.polls = self.failures = 0
        if ignored:
            self.logger.debug("dsampler: RemoteControlledSampler ignores %s", sorted(ignored))
        first = (rng or random).random() * self.sampling_refresh_interval  # spread a fleet's first polls
        self._poller = Poller(
            self, self.sampling_refresh_interval, name="dsampler-jaeger-poll", first_delay_s=first
        )
        if strategy_source is not None:
            self._poller.start()

    @property
    def running(self) -> bool:
        """jaeger-client's flag: True from construction until :meth:`close`."""
        return not self._closed

    def is_sampled(self, trace_id: int, operation: str = "") -> tuple[bool, Tags]:
        try:
            return self.sampler.is_sampled(trace_id, operation)  # one read: the swap is atomic
        except Exception:  # only an application's own init sampler can raise
            return False, self._tags

    def poll_once(self) -> bool:
        """Fetch the strategy from ``strategy_source`` and apply it; False on failure
        (reported, counted, the current sampler kept) or once closed."""
        if self._source is None or self._closed:
            return False
        self.polls += 1
        try:
            response = self._source()
        except Exception as exc:  # a broken source must not take the sampler down
            self.metrics.sampler_query_failure(1)
            self._failed("fetching", exc)
            return False
        self.metrics.sampler_retrieved(1)
        return self._apply(response)

    def update(self, response: Mapping[str, Any]) -> None:
        """Apply one strategy response, in place where the type is unchanged.

        Raises:
            ConfigError: the response is not a usable strategy; nothing changes.
        """
        self._update(parse_response(response))

    def _apply(self, response: object) -> bool:
        """:meth:`update` that never raises: a failure is reported and counted."""
        try:
            changed = self._update(parse_response(response))
        except Exception as exc:
            self.metrics.sampler_update_failure(1)
            self._failed("applying", exc)
            return False
        if changed:
            self.metrics.sampler_updated(1)
        self._last_problem = None
        return True

    def _update(self, strategy: Strategy) -> bool:
        """Swap in (or update in place) the sampler for ``strategy``; True if it changed
        (jaeger-client counts every per-operation update as a change)."""
        with self._lock:
            current = self.sampler
            match strategy:
                case PerOperation():
                    if isinstance(current, AdaptiveSampler):
                        current.apply(strategy)
                    else:
                        self.sampler = AdaptiveSampler(
                            strategy, self.max_operations, hash=self._hash, clock=self._clock, rng=self._rng
                        )
                    return True
                case Probabilistic(rate=rate):
                    sampler = ProbabilisticSampler(rate, hash=self._hash)
                    if sampler == current:
                        return False
                    self.sampler = sampler
                    return True
                case RateLimiting(max_traces_per_second=limit):
                    if isinstance(current, RateLimitingSampler):
                        return current.update(limit)
                    self.sampler = RateLimitingSampler(limit, clock=self._clock, rng=self._rng)
                    return True

    def _failed(self, stage: str, exc: Exception) -> None:
        self.failures += 1
        problem = f"{stage} the Jaeger strategy for {self.service_name[:100]!r} failed: {_describe(exc)}"
        if self.error_reporter is not None:
            self.error_reporter.error("dsampler: %s", problem)
        elif problem != self._last_problem:  # once per distinct problem, not every poll
            self.logger.warning(
                "dsampler: %s; keeping %s", problem, self.sampler, exc_info=not isinstance(exc, ConfigError)
            )
        self._last_problem = problem

    def close(self) -> None:
        self._closed = True
        self._poller.stop()

    def _reset_after_fork(self) -> None:
        self._lock = threading.Lock()

    def _key(self) -> tuple[Any, ...]:
        return (self.service_name, self.sampler)

    def __str__(self) -> str:
        return f"RemoteControlledSampler({self.service_name}, {self.sampler})"
