"""RemoteFollower: an engine's strategy fields follow a Jaeger endpoint (behind a DSampler's
``remote:`` section, ``JaegerRemoteSampler`` and ``RemoteControlledSampler``). The fields
are the follower's overlay, so a reload of the base never undoes them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from dsampler.config import Overlay, RemoteSettings, service_name
from dsampler.protocol import Strategy
from dsampler.remote._fetch import Fetcher, HttpFetcher
from dsampler.remote._fields import strategy_fields
from dsampler.remote._poll import StrategyPoller, weakly

if TYPE_CHECKING:
    from dsampler.engine import Engine


#: The overlay name a remote endpoint's fields are held under.
REMOTE: Final = "remote"


class RemoteFollower(StrategyPoller):
    """A :class:`~dsampler.remote._poll.StrategyPoller` that keeps ``overlay`` set to the fields of
    the strategy polled for ``service``.

    Args:
        overlay: where the strategy's fields go (an engine's ``overlay("remote")``).
        fetcher: where responses come from.
        service: sent as ``?service=``.
        check: a strategy's last check (a ConfigError refuses it; the one in force stays).
        on_applied: called with each applied strategy and whether it changed the
            configuration; returns what the poll reports as changed.
        settings: the ``remote:`` section it follows, if any (a DSampler's).
        **polling: the :class:`~dsampler.remote._poll.StrategyPoller`'s timing and logging.
    """

    def __init__(
        self,
        overlay: Overlay,
        fetcher: Fetcher,
        service: str,
        *,
        check: Callable[[Strategy], Strategy] | None = None,
        on_applied: Callable[[Strategy, bool], bool] | None = None,
        settings: RemoteSettings | None = None,
        **polling: Any,
    ) -> None:
        self.overlay = overlay
        self.settings = settings  # the remote: section it was made for, if any
        self._check = None if check is None else weakly(check, lambda strategy: strategy)
        self._on_applied = None if on_applied is None else weakly(on_applied, lambda *_: False)
        super().__init__(fetcher, service, weakly(self._follow, lambda _: False), **polling)

    def _follow(self, strategy: Strategy) -> bool:
        if self._check is not None:
            strategy = self._check(strategy)
        fields = strategy_fields(strategy)
        config = self.overlay.config
        extra = 0 if config is None else len(fields["operations"]) - config.max_operations
        if extra > 0 and config is not None:
            self._log.warning(
                "dsampler: %s: the strategy lists %d operations more than max_operations (%d); "
                "they are decided at the default rate",
                self.service,
                extra,
                config.max_operations,
            )
        changed = self.overlay.set(fields)
        return changed if self._on_applied is None else self._on_applied(strategy, changed)


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
