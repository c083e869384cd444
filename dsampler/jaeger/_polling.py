"""``RemoteControlledSampler``'s polling parts under jaeger-client's names: argument defaults,
the agent's URL, the ``jaeger:sampler_*`` counters, the error reporter, ``strategy_source``."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from dsampler._validate import check_int, check_max_operations, check_seconds, check_text, typed
from dsampler.errors import ConfigError, FetchError
from dsampler.jaeger._constants import (
    DEFAULT_MAX_OPERATIONS,
    DEFAULT_SAMPLING_INTERVAL,
    DEFAULT_SAMPLING_PROBABILITY,
    MAX_REFRESH_INTERVAL_S,
    MIN_REFRESH_INTERVAL_S,
)
from dsampler.jaeger._samplers import ProbabilisticSampler
from dsampler.protocol import Strategy, StrategyResponse, render

DEFAULT_SAMPLING_PORT = 5778  # jaeger-agent's sampling port
_SOURCE_TIMEOUT_S = 5.0  # how long close() waits for a strategy_source call in flight


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


def agent_url(
    host: object, port: object, host_field: str = "sampling_host", port_field: str = "sampling_port"
) -> str:
    """The jaeger-agent's sampling URL, ``http://host:port/sampling`` (IPv6 bracketed)."""
    name = check_text(host, host_field, 255).strip()
    if not name:
        raise ConfigError(host_field, "expected a host name, got ''")
    number = check_int(port, port_field, 1, 65535)
    if ":" in name and not name.startswith("["):
        name = f"[{name}]"
    return f"http://{name}:{number}/sampling"


def agent_endpoint(channel: object, host: object, port: object) -> str:
    """The agent URL: ``host``/``port`` where given, else the ``channel``'s, else localhost:5778."""
    http = getattr(channel, "local_agent_http", None)
    found_host, found_port = getattr(http, "agent_http_host", None), getattr(http, "agent_http_port", None)
    known = isinstance(found_host, str) and type(found_port) is int  # not a test's MagicMock
    default_host = found_host if known else "localhost"
    default_port = found_port if known else DEFAULT_SAMPLING_PORT
    return agent_url(default_host if host is None else host, default_port if port is None else port)


def init_sampler_or_default(init_sampler: Any, hash: str) -> Any:
    """The init sampler (default probabilistic 0.001), asked ``is_sampled(0)`` once as
    jaeger-client does; ConfigError when it cannot answer."""
    if init_sampler is None:
        return ProbabilisticSampler(DEFAULT_SAMPLING_PROBABILITY, hash=hash)
    decide = getattr(init_sampler, "is_sampled", None)
    if not callable(decide):
        raise ConfigError("init_sampler", f"expected a sampler with is_sampled(), got {typed(init_sampler)}")
    try:
        decide(0)
    except Exception as exc:
        raise ConfigError("init_sampler", f"is_sampled(0) raised {describe(exc)}") from exc
    return init_sampler


def describe(exc: BaseException) -> str:
    """A failure in one line, bounded; a hostile ``__str__`` cannot turn it into a crash."""
    try:
        text = str(exc)
    except Exception:
        text = ""
    text = text if len(text) <= 300 else text[:300] + "..."
    return text if isinstance(exc, (ConfigError, FetchError)) else f"{type(exc).__name__}: {text}"


class _NoMetrics:
    @staticmethod
    def create_counter(name: str, tags: Mapping[str, str] | None = None) -> Callable[[float], None]:
        return lambda value: None


class SamplerMetrics:
    """jaeger-client's ``jaeger:sampler_queries`` and ``jaeger:sampler_updates`` counters (tag
    ``result`` ok or err), from any factory with ``create_counter(name, tags)``.
    """

    def __init__(self, metrics_factory: Any) -> None:
        counter = metrics_factory.create_counter
        self.sampler_retrieved = counter(name="jaeger:sampler_queries", tags={"result": "ok"})
        self.sampler_query_failure = counter(name="jaeger:sampler_queries", tags={"result": "err"})
        self.sampler_updated = counter(name="jaeger:sampler_updates", tags={"result": "ok"})
        self.sampler_update_failure = counter(name="jaeger:sampler_updates", tags={"result": "err"})


def factory_of(factory: Any, metrics: Any) -> Any:
    """jaeger-client's precedence: the factory, else the deprecated ``Metrics`` object."""
    if factory is not None:
        return factory
    if metrics is not None:
        from jaeger_client.metrics.metrics import LegacyMetricsFactory  # it came from jaeger-client

        return LegacyMetricsFactory(metrics)
    return _NoMetrics()


def reporter(
    metrics: SamplerMetrics, error_reporter: Any, service_name: str
) -> Callable[[str, Exception | None], None]:
    """A poller's ``report``: counts each stage's outcome and hands failures to
    ``error_reporter`` if given."""

    def report(stage: str, exc: Exception | None) -> None:
        if exc is None:
            metrics.sampler_retrieved(1)
            return
        (metrics.sampler_query_failure if stage == "fetching" else metrics.sampler_update_failure)(1)
        if error_reporter is not None:
            where = service_name[:100]
            error_reporter.error(
                "dsampler: %s the Jaeger strategy for %r failed: %s", stage, where, describe(exc)
            )

    return report


class SourceFetcher:
    """An in-process ``strategy_source`` (giving a decoded response or a typed strategy)
    as a fetcher of bodies; a source that raises is a failed fetch."""

    timeout_s = _SOURCE_TIMEOUT_S

    def __init__(self, source: Callable[[], object]) -> None:
        if not callable(source):
            raise ConfigError("strategy_source", f"expected a callable, got {typed(source)}")
        self.source = source

    def fetch(self, service: str) -> bytes:
        try:
            response = self.source()
            if isinstance(response, Strategy):
                response = StrategyResponse.of(response)
            if isinstance(response, StrategyResponse):
                return render(response)
            return json.dumps(response, default=_plain).encode()
        except Exception as exc:  # whatever the application's source does, the poller goes on
            raise FetchError(f"strategy_source: {describe(exc)}") from exc


def _plain(value: object) -> object:
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"not JSON: {typed(value)}")
