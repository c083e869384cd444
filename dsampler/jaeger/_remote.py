"""jaeger-client's ``RemoteControlledSampler``: :class:`~dsampler.remote.JaegerRemoteSampler`'s
machinery (an HTTP fetcher, one :class:`~dsampler.remote.RemoteFollower`, one
:class:`~dsampler.engine.Engine`) under jaeger-client's constructor.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Mapping
from typing import Any, Final

from dsampler import _fork
from dsampler._validate import typed
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.config import SamplingConfig
from dsampler.engine import Engine
from dsampler.errors import ConfigError
from dsampler.jaeger._adaptive import sampler_of
from dsampler.jaeger._constants import default_logger
from dsampler.jaeger._decisions import Decision, following, guarded
from dsampler.jaeger._polling import (
    SamplerMetrics,
    SourceFetcher,
    agent_endpoint,
    factory_of,
    init_sampler_or_default,
    max_operations_or_default,
    refresh_interval,
    reporter,
)
from dsampler.jaeger._samplers import Sampler
from dsampler.jaeger._strategies import JAEGER_CLIENT, checked, strategy_of
from dsampler.protocol import Strategy, parse_response
from dsampler.remote import REMOTE, Fetcher, HttpFetcher, PollOutcome, RemoteFollower
from dsampler.telemetry import track

REQUEST_TIMEOUT_S: Final = 15.0  # jaeger-client's


class RemoteControlledSampler(Sampler):
    """Follows the Jaeger sampling strategy served for ``service_name`` (agent, collector, the
    Collector's ``jaegerremotesampling`` extension or ``dsampler serve``), polled over HTTP.

    The poller thread starts at the first decision, waits a random part of the interval
    first, restarts after ``os.fork()`` and never keeps the interpreter alive. Until the first
    strategy the init sampler decides.

    Args:
        channel: jaeger-client's ``LocalAgentSender``: its agent is polled unless
            ``sampling_host``/``sampling_port``/``endpoint`` are given.
        service_name: this service, sent as ``?service=``.
        init_sampler: decides until the first strategy (default ``ProbabilisticSampler(0.001)``).
        sampling_refresh_interval: seconds between polls, in [1, 86400]; None or 0 mean 60.
        max_operations: operations tracked per-operation; None or 0 mean 2000.
        sampling_host, sampling_port: the agent (default localhost:5778).
        endpoint: a full sampling URL instead (a collector's ``.../api/sampling``).
        request_timeout_s: the whole request (default 15 s, jaeger-client's).
        strategy_source: in process, instead of HTTP: returns the strategy response.
        logger, metrics_factory, metrics, error_reporter: as jaeger-client's.
        hash: decision rule (default ``jaeger``: jaeger-client-python's decisions).
        clock: time source of the limiters.
        rng: randomness of the first delay, of jitter and of new limiters' balances.

    Raises:
        ConfigError: an invalid argument, naming it.
    """

    def __init__(
        self,
        channel: object = None,
        service_name: str = "",
        *,
        init_sampler: Sampler | None = None,
        sampling_refresh_interval: float | None = None,
        max_operations: int | None = None,
        sampling_host: str | None = None,
        sampling_port: int | None = None,
        endpoint: str | None = None,
        request_timeout_s: float = REQUEST_TIMEOUT_S,
        strategy_source: Callable[[], object] | None = None,
        hash: str = "jaeger",
        clock: Clock = SYSTEM_CLOCK,
        rng: random.Random | None = None,
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
        self._hash, self._clock, self._rng = hash, clock, rng or random.Random()
        self._report_to(logger or default_logger, factory_of(metrics_factory, metrics), error_reporter)
        self._init: Sampler = init_sampler_or_default(init_sampler, hash)
        self.engine = self._new_engine()
        self.endpoint = endpoint
        if endpoint is None and not strategy_source:
            self.endpoint = agent_endpoint(channel, sampling_host, sampling_port)
        self._follower = self._new_follower(strategy_source, request_timeout_s)
        self._decide_with_init()
        if ignored:
            self.logger.debug("dsampler: RemoteControlledSampler ignores %s", sorted(ignored))

    def _report_to(self, logger: logging.Logger, metrics_factory: Any, error_reporter: Any) -> None:
        self.logger = logger
        self.metrics = SamplerMetrics(metrics_factory)
        self.error_reporter = error_reporter

    def _new_engine(self) -> Engine:
        """Roots only, tagged, new limiters filled at random (jaeger-client's)."""
        base = SamplingConfig(
            hash=self._hash, sampler_tags=True, parent_based=False, max_operations=self.max_operations
        )
        engine = Engine(
            base,
            resource={},
            clock=self._clock,
            initial_fill=self._rng.random,
            name="RemoteControlledSampler",
            sections="its strategy follows the Jaeger agent",
        )
        track(engine)
        return engine

    def _decide_with_init(self) -> None:
        self._guard = _fork.ModuleLock()
        self._view: tuple[Strategy, Sampler] | None = None
        self._follow = following(self.engine)
        self._current: Decision = guarded(self._init)
        self._started = self._closed = False

    def _new_follower(self, source: Callable[[], object] | None, timeout_s: float) -> RemoteFollower:
        fetcher: Fetcher
        if source is not None:
            fetcher, parse = SourceFetcher(source), lambda body: parse_response(body, JAEGER_CLIENT)
        else:
            fetcher = HttpFetcher(self.endpoint or "", timeout_s=timeout_s)
            parse = parse_response
            self.endpoint = fetcher.endpoint
        interval = self.sampling_refresh_interval
        return RemoteFollower(
            self.engine.overlay(REMOTE),
            fetcher,
            self.service_name,
            check=checked,
            on_applied=self._applied,
            interval_s=interval,
            first_delay_s=self._rng.random() * interval,  # spread a fleet's first polls
            rng=self._rng,
            name="dsampler-jaeger-poll",
            parse=parse,
            logger=self.logger,
            report=reporter(self.metrics, self.error_reporter, self.service_name),
        )

    # `is_sampled` is the class's until the first call starts the poller; then the
    # instance attribute is the decision itself.

    def is_sampled(self, trace_id: int, operation: str = "") -> tuple[bool, Mapping[str, Any]]:
        """jaeger-client's decision; tags only on sampled roots (see ``_decisions``)."""
        self._start()
        return self._current(trace_id, operation)

    def _start(self) -> None:
        with self._guard.lock:
            if not self._started and not self._closed:
                self._started = True
                self._follower.start()
            self.is_sampled = self._current  # type: ignore[method-assign]

    def _applied(self, strategy: Strategy, changed: bool) -> bool:
        with self._guard.lock:
            first = self._current is not self._follow
            self._current = self._follow
            if self._started or self._closed:
                self.is_sampled = self._follow  # type: ignore[method-assign]
        if changed or first:
            self.metrics.sampler_updated(1)
        return changed or first

    def poll_once(self) -> bool:
        """Fetch and apply the strategy now, in this thread; False on failure (counted,
        reported, the strategy in force kept) or once closed."""
        if self._closed:
            return False
        return self._follower.poll_once() in (PollOutcome.APPLIED, PollOutcome.UNCHANGED)

    def update(self, response: object) -> None:
        """Apply one strategy: typed, a raw response dict (jaeger-client's reading) or a body.

        Raises:
            ConfigError: not a usable strategy; nothing changes.
        """
        self._follower.apply(strategy_of(response))

    @property
    def strategy(self) -> Strategy | None:
        """The strategy in force (None until the first)."""
        return self._follower.strategy

    @property
    def dsampler(self) -> Engine:
        """The engine that decides (its former name; read :attr:`engine`)."""
        return self.engine

    @property
    def sampler(self) -> Sampler:
        """jaeger-client's attribute, for inspection: the init sampler until the first strategy,
        then a sampler equal to the strategy in force (decisions are :attr:`engine`'s)."""
        strategy, view = self._follower.strategy, self._view
        if strategy is None:
            return self._init
        if view is None or view[0] is not strategy:
            described = sampler_of(
                strategy, self.max_operations, hash=self._hash, clock=self._clock, rng=self._rng
            )
            view = self._view = (strategy, self._init if described == self._init else described)
        return view[1]

    @property
    def running(self) -> bool:
        """jaeger-client's flag: True until :meth:`close` while the poller runs (or will)."""
        return not self._closed and (not self._started or self._follower.running)

    @property
    def polls(self) -> int:
        """Polls so far, failed ones included."""
        return self._follower.polls

    @property
    def failures(self) -> int:
        """Polls that kept the strategy in force: fetch, parse or apply failed."""
        return self._follower.failures

    def close(self) -> None:
        """Stop polling, aborting a request in flight (idempotent; returns within the
        request timeout). Decisions go on with the strategy in force."""
        with self._guard.lock:
            self._closed = True
            self.is_sampled = self._current  # type: ignore[method-assign]
        self._follower.close()

    def _key(self) -> tuple[Any, ...]:
        return (self.service_name, self.sampler)

    def __str__(self) -> str:
        return f"RemoteControlledSampler({self.service_name}, {self.sampler})"
