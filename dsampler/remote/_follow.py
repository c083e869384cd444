"""RemoteFollower: an engine's strategy fields follow a Jaeger endpoint. The one mechanism
behind a DSampler's ``remote:`` section, :class:`~dsampler.remote.JaegerRemoteSampler` and
``RemoteControlledSampler``: each polled strategy's fields are set as the follower's
overlay, so a reload of the base never undoes them; one that changes nothing publishes nothing.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from dsampler.config import Overlay, RemoteSettings, service_name
from dsampler.protocol import Strategy, StrategyResponse, parse_response
from dsampler.remote._fetch import Fetcher, HttpFetcher
from dsampler.remote._fields import strategy_fields
from dsampler.remote._poll import PollOutcome, StrategyPoller, weakly

if TYPE_CHECKING:
    from dsampler.engine import Engine


#: The overlay name a remote endpoint's fields are held under.
REMOTE: Final = "remote"
_log = logging.getLogger("dsampler.remote")


class RemoteFollower:
    """Keeps ``overlay`` set to the fields of the strategy polled for ``service``.

    Args:
        overlay: where the strategy's fields go (an engine's ``overlay("remote")``).
        fetcher: where responses come from.
        service: sent as ``?service=``.
        check: a strategy's last check (a ConfigError refuses it; the one in force stays).
        on_applied: called with each applied strategy and whether it changed the
            configuration; returns what the poll reports as changed.
        **polling: the :class:`~dsampler.remote.StrategyPoller`'s timing and logging.
        settings: the ``remote:`` section it follows, if any (a DSampler's).
    """

    def __init__(
        self,
        overlay: Overlay,
        fetcher: Fetcher,
        service: str,
        *,
        check: Callable[[Strategy], Strategy] | None = None,
        on_applied: Callable[[Strategy, bool], bool] | None = None,
        interval_s: float = 60.0,
        jitter: float = 0.1,
        first_delay_s: float = 0.0,
        rng: random.Random | None = None,
        name: str = "dsampler-remote-poll",
        parse: Callable[[bytes], StrategyResponse] = parse_response,
        logger: logging.Logger = _log,
        settings: RemoteSettings | None = None,
    ) -> None:
        self.overlay = overlay
        self.settings = settings  # the remote: section it was made for, if any
        self._check = None if check is None else weakly(check, lambda strategy: strategy)
        self._on_applied = None if on_applied is None else weakly(on_applied, lambda *_: False)
        self._log = logger
        self.poller = StrategyPoller(
            fetcher,
            service,
            weakly(self._apply, lambda _: False),
            interval_s=interval_s,
            jitter=jitter,
            first_delay_s=first_delay_s,
            rng=rng,
            name=name,
            parse=parse,
            logger=logger,
        )

    def _apply(self, strategy: Strategy) -> bool:
        if self._check is not None:
            strategy = self._check(strategy)
        fields = strategy_fields(strategy)
        config = self.overlay.config
        extra = 0 if config is None else len(fields["operations"]) - config.max_operations
        if extra > 0 and config is not None:
            self._log.warning(
                "dsampler: %s: the strategy lists %d operations more than max_operations (%d); "
                "they are decided at the default rate",
                self.poller.service,
                extra,
                config.max_operations,
            )
        changed = self.overlay.set(fields)
        return changed if self._on_applied is None else self._on_applied(strategy, changed)

    def apply(self, strategy: Strategy) -> bool:
        """Apply a strategy obtained elsewhere as a polled one is (nothing when it is in force).

        Raises:
            ConfigError: it was refused; the strategy in force stays.
        """
        return self.poller.apply(strategy)

    @property
    def strategy(self) -> Strategy | None:
        """The strategy in force (None until the first)."""
        return self.poller.strategy

    @property
    def service(self) -> str:
        return self.poller.service

    @property
    def running(self) -> bool:
        return self.poller.running

    def poll_once(self) -> PollOutcome:
        """Fetch and apply the strategy now, in this thread."""
        return self.poller.poll_once()

    def start(self) -> None:
        """Start polling in the background (idempotent)."""
        self.poller.start()

    def close(self, timeout_s: float | None = None) -> None:
        """Stop polling, aborting a request in flight (waits at most ``timeout_s``,
        default the request timeout). The fields in force stay."""
        self.poller.close(timeout_s)


def running_follower(follower: RemoteFollower | None, engine: Engine) -> RemoteFollower | None:
    """The follower of ``engine``'s ``remote:`` section in force: ``follower`` kept while it
    matches, else replaced (its fields hold until the new endpoint answers), made, or closed
    when the section is gone. Idempotent; starting it is the caller's.
    """
    settings = engine.config.remote
    if follower is not None and (follower.settings != settings or follower.overlay.retired):
        follower.overlay.retire()
        follower.close(timeout_s=0.0)  # under its sampler's lock: no waiting
        follower = None
    if settings is None or follower is not None:
        return follower
    fetcher = HttpFetcher(settings.endpoint, timeout_s=settings.request_timeout_s)
    service = service_name(settings.service_name, engine.resource)
    overlay = engine.overlay(REMOTE)
    return RemoteFollower(
        overlay, fetcher, service, interval_s=settings.polling_interval_s, settings=settings
    )
