"""JaegerRemoteSampler: an engine whose strategy fields follow a Jaeger sampling endpoint."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from opentelemetry.context import Context
from opentelemetry.sdk.trace.sampling import Sampler, SamplingResult
from opentelemetry.trace import Link, SpanKind
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

from dsampler._validate import DEFAULT_MAX_OPERATIONS, check_bool, check_rate, redact_url, typed
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.config import DEFAULT_RATE, parse_config
from dsampler.config import service_name as service_name_for
from dsampler.decision import Guarded
from dsampler.engine import Engine, EngineSampler, resource_attributes
from dsampler.errors import ConfigError
from dsampler.protocol import (
    MAX_RESPONSE_BYTES,
    Strategy,
)
from dsampler.remote._fetch import DEFAULT_TIMEOUT_S, Fetcher, HttpFetcher
from dsampler.remote._follow import REMOTE, RemoteFollower
from dsampler.remote._poll import PollOutcome, StrategyPoller
from dsampler.remote._url import DEFAULT_ENDPOINT
from dsampler.telemetry import track

if TYPE_CHECKING:
    from opentelemetry.sdk.resources import Resource


_SECTIONS: Final = (
    "its default strategy follows a Jaeger endpoint (adaptive and remote both own the default rate)"
)


class JaegerRemoteSampler(EngineSampler):
    """An OpenTelemetry sampler controlled centrally over the Jaeger remote-sampling protocol
    (the Jaeger collector or agent, the Collector's ``jaegerremotesampling``, ``dsampler serve``).

    It decides with the same engine as :class:`~dsampler.DSampler` (:attr:`engine`), whose
    strategy fields a :class:`~dsampler.remote.RemoteFollower` keeps in step with ``GET
    {endpoint}?service={service_name}`` from a background thread. Until the first strategy
    the initial sampler decides (guarded: a fault drops the span and is counted).

    Args:
        service_name: sent as ``?service=``; default the resource's ``service.name``.
        endpoint: the sampling URL (default ``http://127.0.0.1:5778/sampling``).
        polling_interval_s: seconds between polls (default 60); the first is at once.
        initial_sampler: decides until the first strategy: a rate (default 0.001), a
            :data:`~dsampler.protocol.Strategy`, or any OpenTelemetry ``Sampler``.
        max_operations: operations tracked per-operation (default 2000).
        request_timeout_s: the whole request, redirects included (default 10 s).
        max_response_bytes: body size cap (default 4 MiB).
        jitter: fraction of the interval taken off at random (default 0.1).
        first_poll_delay_s: wait before the first poll (default 0).
        parent_based: children follow their parent's decision (default True).
        hash: decision rule (default ``otel``: OpenTelemetry's ``TraceIdRatioBased``).
        sampler_tags: tag sampled roots with ``sampler.type`` and ``sampler.param`` (default True).
        resource: this process's resource (service name, resource-matching rules).
        fetcher: where responses come from (default an :class:`HttpFetcher` on ``endpoint``).
        start: start polling now (default True); else call :meth:`start` or :meth:`poll_once`.
        clock: time source of the rate limiters.
        rng: randomness of jitter and backoff.

    Raises:
        ConfigError: an invalid argument; every message names it.
    """

    def __init__(
        self,
        service_name: str | None = None,
        endpoint: str = DEFAULT_ENDPOINT,
        polling_interval_s: float = 60.0,
        initial_sampler: Sampler | Strategy | float | None = None,
        *,
        max_operations: int = DEFAULT_MAX_OPERATIONS,
        request_timeout_s: float = DEFAULT_TIMEOUT_S,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
        jitter: float = 0.1,
        first_poll_delay_s: float = 0.0,
        parent_based: bool = True,
        hash: str = "otel",
        sampler_tags: bool = True,
        resource: Resource | Mapping[str, Any] | None = None,
        fetcher: Fetcher | None = None,
        start: bool = True,
        clock: Clock = SYSTEM_CLOCK,
        rng: random.Random | None = None,
    ) -> None:
        attributes = resource_attributes(resource)
        self.service_name = service_name_for(service_name, attributes)
        initial_rate, initial = _initial(initial_sampler)
        engine = _engine(initial_rate, hash, max_operations, parent_based, sampler_tags, attributes, clock)
        super().__init__(engine)
        self._decide_first(initial)
        if fetcher is None:
            fetcher = HttpFetcher(endpoint, timeout_s=request_timeout_s, max_bytes=max_response_bytes)
        self.endpoint: str = redact_url(getattr(fetcher, "endpoint", endpoint))  # credentials: ***
        self.follower = self._follow(
            fetcher, interval_s=polling_interval_s, jitter=jitter, first_delay_s=first_poll_delay_s, rng=rng
        )
        if initial is not None and not isinstance(initial, Sampler):
            self.follower.apply(initial)
        if check_bool(start, "start"):
            self.follower.start()

    def _decide_first(self, initial: object) -> None:
        """Until the first strategy an initial Sampler decides, guarded (its faults are the engine's)."""
        log = self.engine.fault_log
        self._guarded = Guarded(initial, "its initial sampler", log) if isinstance(initial, Sampler) else None
        self._initial: Sampler | None = self._guarded
        self._current: Sampler = self.engine if self._guarded is None else self._guarded
        self.should_sample = self._current.should_sample  # type: ignore[method-assign]

    def _follow(self, fetcher: Fetcher, **polling: Any) -> RemoteFollower:
        overlay = self.engine.overlay(REMOTE)
        return RemoteFollower(overlay, fetcher, self.service_name, on_applied=self._applied, **polling)

    def _applied(self, strategy: Strategy, changed: bool) -> bool:
        if self._initial is None:
            return changed
        self._initial, self._current = None, self.engine
        self.should_sample = self.engine.should_sample  # type: ignore[method-assign]
        return True

    def should_sample(
        self,
        parent_context: Context | None,
        trace_id: int,
        name: str,
        kind: SpanKind | None = None,
        attributes: Attributes = None,
        links: Sequence[Link] | None = None,
        trace_state: TraceState | None = None,
    ) -> SamplingResult:
        # Shadowed per instance in __init__ by the deciding sampler's own bound method.
        return self._current.should_sample(
            parent_context, trace_id, name, kind, attributes, links, trace_state
        )

    @property
    def dsampler(self) -> Engine:
        """The engine that decides (its former name; read :attr:`engine`)."""
        return self.engine

    @property
    def poller(self) -> StrategyPoller:
        """The background poller (``poll_once()``, ``polls``, ``failures``, ``outcomes``)."""
        return self.follower

    @property
    def strategy(self) -> Strategy | None:
        """The strategy in force (None until the first one arrives)."""
        return self.follower.strategy

    def poll_once(self) -> PollOutcome:
        """Fetch and apply the strategy now, in this thread."""
        return self.follower.poll_once()

    def start(self) -> None:
        """Start the background poller (idempotent)."""
        self.follower.start()

    def close(self) -> None:
        """Stop polling, aborting a request in flight (idempotent, returns within the
        request timeout). Decisions keep working with the strategy in force."""
        self.follower.close()

    def get_description(self) -> str:
        config = self.engine.config
        return (
            f"JaegerRemoteSampler{{service={self.service_name},endpoint={self.endpoint},"
            f"polling_interval_s={self.poller.interval_s:g},hash={config.hash},"
            f"parent_based={config.parent_based}}}"
        )


def _engine(
    rate: float,
    hash: str,
    max_operations: int,
    parent_based: bool,
    sampler_tags: bool,
    resource: Mapping[str, Any],
    clock: Clock,
) -> Engine:
    base = parse_config(
        {
            "rate": rate,
            "hash": hash,
            "max_operations": max_operations,
            "parent_based": parent_based,
            "sampler_tags": sampler_tags,
        }
    )
    engine = Engine(base, resource=resource, clock=clock, name="JaegerRemoteSampler", sections=_SECTIONS)
    track(engine)
    return engine


def _initial(initial: object) -> tuple[float, Sampler | Strategy | None]:
    """(the first rate, what else decides or is applied first)."""
    if initial is None:
        return DEFAULT_RATE, None
    if isinstance(initial, (int, float)) and not isinstance(initial, bool):
        return check_rate(initial, "initial_sampler"), None
    if isinstance(initial, Sampler | Strategy):
        return DEFAULT_RATE, initial
    expected = "a rate, a Strategy, an OpenTelemetry Sampler or None"
    raise ConfigError("initial_sampler", f"expected {expected}, got {typed(initial)}")
