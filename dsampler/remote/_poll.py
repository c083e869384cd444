"""Fetch -> parse -> apply, in one background thread. A failed stage keeps the strategy in
force, is logged and counted, and is retried after a jittered backoff doubling from 1 s,
capped at the interval; a poll aborted by ``close()`` is no failure. A body equal to the
previous one is not parsed again. After ``os.fork()`` the child polls at once.
"""

from __future__ import annotations

import enum
import logging
import random
import weakref
from collections.abc import Callable
from typing import Any, Final, TypeVar

from dsampler import _fork
from dsampler._log import QUIET_POLLS, ChangeReport
from dsampler._poller import Poller
from dsampler._validate import check_seconds, check_url_text
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.errors import ConfigError, FetchError
from dsampler.protocol import (
    PerOperationStrategy,
    ProbabilisticStrategy,
    RateLimitingStrategy,
    Strategy,
    StrategyResponse,
    parse_response,
)
from dsampler.remote._fetch import Fetcher

_log = logging.getLogger("dsampler.remote")
_FIRST_RETRY_S: Final = 1.0
T = TypeVar("T")


def _described(strategy: Strategy) -> str:
    """A strategy in a few words: ``probabilistic 0.1``."""
    match strategy:
        case ProbabilisticStrategy(rate=rate):
            return f"probabilistic {rate:g}"
        case RateLimitingStrategy(traces_per_second=limit):
            return f"rate limiting {limit:g}/s"
        case PerOperationStrategy(default_rate=rate, operations=operations):
            return f"per-operation (default {rate:g}, {len(operations)} operations)"


def weakly(hook: Callable[..., T], gone: Callable[..., T]) -> Callable[..., T]:
    """``hook``, a bound method held weakly (its owner holds what calls it); ``gone`` answers after."""
    if not hasattr(hook, "__self__") or not hasattr(hook, "__func__"):
        return hook
    ref = weakref.WeakMethod(hook)

    def call(*args: Any) -> T:
        method = ref()
        return gone(*args) if method is None else method(*args)

    return call


class PollOutcome(enum.Enum):
    """What one poll did."""

    APPLIED = "applied"  # a new strategy is in force
    UNCHANGED = "unchanged"  # the same strategy again (or one that changes nothing)
    FAILED = "failed"  # fetch, parse or apply failed; the strategy in force stays
    CLOSED = "closed"  # close() aborted the poll (or came before it): not a failure


class StrategyPoller:
    """Polls one service's strategy and hands each new one to ``apply``.

    Args:
        fetcher: where responses come from.
        service: the service name sent as ``?service=``.
        apply: called with each strategy that differs from the last one applied; returns
            whether it changed anything. A ConfigError from it is a failure.
        interval_s: seconds between polls (default 60).
        jitter: fraction of the interval taken off at random (default 0.1).
        first_delay_s: wait before the first poll (default 0: at once).
        rng: randomness for jitter and backoff.
        name: the thread's name.
        parse: body -> response (default :func:`~dsampler.protocol.parse_response`).
        logger: where failures and changes are logged (default ``dsampler.remote``).
        clock: times the quiet period after a logged change.
        report: told each fetch (stage ``fetched``, no error) and each failure of a stage
            (``fetching``, ``reading`` a new body, ``applying``), a poll that close() aborted aside.
    """

    def __init__(
        self,
        fetcher: Fetcher,
        service: str,
        apply: Callable[[Strategy], bool],
        *,
        interval_s: float = 60.0,
        jitter: float = 0.1,
        first_delay_s: float = 0.0,
        rng: random.Random | None = None,
        name: str = "dsampler-remote-poll",
        parse: Callable[[bytes], StrategyResponse] = parse_response,
        logger: logging.Logger = _log,
        clock: Clock = SYSTEM_CLOCK,
        report: Callable[[str, Exception | None], None] = lambda stage, exc: None,
    ) -> None:
        self.service = check_url_text(service, "service_name")
        self.interval_s = check_seconds(interval_s, "polling_interval_s", 0.01, 7 * 86400.0)
        self._told = ChangeReport(logger, QUIET_POLLS * self.interval_s, clock)
        self.jitter = check_seconds(jitter, "jitter", 0.0, 1.0)
        first = check_seconds(first_delay_s, "first_delay_s", 0.0, 7 * 86400.0)
        self.fetcher = fetcher
        self._apply = apply
        self._parse = parse
        self._report = report
        self._log = logger
        self._rng = rng or random.Random()
        self._guard = _fork.ModuleLock()  # a poll in flight at a fork would hold it forever
        self.strategy: Strategy | None = None  # the last strategy applied
        self._last: tuple[bytes, StrategyResponse | ConfigError] | None = None  # body hash, its parse
        self.polls = self.failures = self.consecutive_failures = 0
        self.outcomes = dict.fromkeys(PollOutcome, 0)
        self.last_error: str | None = None
        self._closed = False
        self._thread = Poller(self, self.interval_s, name=name, first_delay_s=first)
        from dsampler.telemetry import register_poller

        register_poller(self)

    def poll_once(self) -> PollOutcome:
        """Fetch, parse and apply once, now (tests and callers drive this directly)."""
        outcome = self._poll()
        self.outcomes[outcome] += 1  # read by dsampler.telemetry (dsampler.remote.fetches)
        return outcome

    def _poll(self) -> PollOutcome:
        with self._guard.lock:
            self.polls += 1
            self._told.flush()
            try:
                response = self._parsed(self._fetch())
                strategy = response.strategy
                if response.rate_limiting is not None and response.per_operation is not None:
                    self._log.debug(
                        "dsampler: %s: per-operation strategy used; its rate limit is ignored", self.service
                    )
                changed = self._take(strategy)
            except (FetchError, ConfigError) as exc:
                return self._failed(exc)
            if self.consecutive_failures:
                self._log.info(
                    "dsampler: %s: strategy fetched again after %d failures",
                    self.service,
                    self.consecutive_failures,
                )
            self.consecutive_failures, self.last_error = 0, None
            if not changed:
                return PollOutcome.UNCHANGED
            self._told.changed(f"dsampler: {self.service}: sampling strategy now {_described(strategy)}")
            return PollOutcome.APPLIED

    def _fetch(self) -> bytes:
        try:
            body = self.fetcher.fetch(self.service)
        except FetchError as exc:
            if not self._closed:
                self._report("fetching", exc)
            raise
        self._report("fetched", None)
        return body

    def _parsed(self, body: bytes) -> StrategyResponse:
        """``parse(body)``, or what it gave (or raised) for the same bytes last time."""
        import hashlib  # not at import time: it loads OpenSSL

        digest = hashlib.blake2b(body).digest()
        if self._last is None or self._last[0] != digest:
            try:
                self._last = (digest, self._parse(body))
            except ConfigError as exc:
                self._last = (digest, exc)
                self._report("reading", exc)
        outcome = self._last[1]
        if isinstance(outcome, ConfigError):
            raise outcome
        return outcome

    def apply(self, strategy: Strategy) -> bool:
        """Apply a strategy obtained elsewhere as a polled one is; True when it changed something.

        Raises:
            ConfigError: ``apply`` refused it; the strategy in force stays.
        """
        with self._guard.lock:
            return self._take(strategy)

    def _take(self, strategy: Strategy) -> bool:
        """Apply ``strategy`` unless it is in force, then record it (lock held)."""
        try:
            changed = strategy != self.strategy and self._apply(strategy)
        except ConfigError as exc:
            self._report("applying", exc)
            raise
        self.strategy = strategy
        return changed

    def _failed(self, exc: Exception) -> PollOutcome:
        if self._closed:  # the close's doing, not the server's
            self._log.debug("dsampler: %s: poll aborted by close()", self.service)
            return PollOutcome.CLOSED
        text = str(exc)
        self.failures += 1
        self.consecutive_failures += 1
        level = logging.DEBUG if text == self.last_error else logging.WARNING
        self._log.log(level, "dsampler: %s: keeping the current sampling strategy: %s", self.service, text)
        self.last_error = text
        return PollOutcome.FAILED

    def next_delay_s(self) -> float:
        """Seconds until the next poll, by the outcome of the last one."""
        u = self._rng.random()
        failures = self.consecutive_failures
        if failures == 0:
            return self.interval_s * (1.0 - self.jitter * u)
        base = min(self.interval_s, _FIRST_RETRY_S * 2.0 ** min(failures - 1, 30))
        return base * (0.5 + 0.5 * u)

    @property
    def running(self) -> bool:
        return self._thread.running

    def start(self) -> None:
        """Start the background thread (idempotent)."""
        self._thread.start()

    def close(self, timeout_s: float | None = None) -> None:
        """Stop polling and abort a request in flight (idempotent); waits for the thread
        at most ``timeout_s`` (default: the fetcher's request timeout). A poll it aborts
        is no failure: it returns :attr:`PollOutcome.CLOSED`, logged at DEBUG only."""
        self._closed = True  # before the abort, which the poll in flight sees as an error
        closer = getattr(self.fetcher, "close", None)
        if closer is not None:
            closer()
        wait = timeout_s if timeout_s is not None else getattr(self.fetcher, "timeout_s", 10.0)
        self._thread.stop(timeout_s=wait)
