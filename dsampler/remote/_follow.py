"""A DSampler's ``remote:`` section: its default strategy follows a Jaeger endpoint.

The follower polls (one background thread, :class:`StrategyPoller`) and remembers the
last strategy; every configuration the DSampler publishes, whatever its source (a call,
a file reload, the follower itself), gets that strategy's fields written in by
:meth:`RemoteFollower.overrides`, so a file reload never undoes the remote strategy and
the file's own rules keep deciding what they match. A new strategy republishes the
running configuration (a new version); an identical one publishes nothing.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dsampler.config._model import SamplingConfig
from dsampler.config._parse import parse_fields
from dsampler.config._remote import RemoteSettings
from dsampler.protocol._strategy import Strategy
from dsampler.remote._changes import config_changes
from dsampler.remote._fetch import HttpFetcher
from dsampler.remote._poll import StrategyPoller
from dsampler.remote._sampler import resolve_service_name

if TYPE_CHECKING:
    from dsampler._dsampler import DSampler

__all__ = ["RemoteFollower", "follow"]


class RemoteFollower:
    """Keeps one DSampler's strategy fields in step with its ``remote:`` endpoint."""

    def __init__(self, sampler: DSampler, settings: RemoteSettings, service: str) -> None:
        self.settings = settings
        self.strategy: Strategy | None = None
        self._sampler = weakref.ref(sampler)  # the poller must not keep the sampler alive
        fetcher = HttpFetcher(settings.endpoint, timeout_s=settings.request_timeout_s)
        self.poller = StrategyPoller(fetcher, service, self._apply, interval_s=settings.polling_interval_s)

    def _apply(self, strategy: Strategy) -> bool:
        sampler = self._sampler()
        if sampler is None:
            return False
        self.strategy = strategy
        if not config_changes(strategy, sampler.config)[0]:
            return False
        sampler._store.update(lambda config: config)  # republished: overrides() writes it in
        return True

    def overrides(self, config: SamplingConfig) -> SamplingConfig:
        """``config`` with the last strategy's fields (the same object if it has them)."""
        if self.strategy is None:
            return config
        changes, _ = config_changes(self.strategy, config)
        return config.evolve(**parse_fields(changes)) if changes else config

    def start(self) -> None:
        self.poller.start()

    def close(self, timeout_s: float | None = None) -> None:
        """Stop polling (waits at most ``timeout_s``, default the request timeout)."""
        self.poller.close(timeout_s)


def follow(
    sampler: DSampler,
    follower: RemoteFollower | None,
    settings: RemoteSettings | None,
    resource: Mapping[str, Any],
    *,
    started: bool,
) -> RemoteFollower | None:
    """The DSampler's hook, called for every configuration it publishes: the follower its
    ``remote`` settings ask for (created, replaced when they change, or stopped)."""
    if follower is not None and follower.settings == settings:
        return follower
    if follower is not None:
        follower.close(timeout_s=0.0)  # called under the writers' lock: never wait for its thread
    if settings is None:
        return None
    service = resolve_service_name(settings.service_name, resource)
    new = RemoteFollower(sampler, settings, service)
    if follower is not None:
        new.strategy = follower.strategy  # the last strategy holds until the new endpoint answers
    if started:
        new.start()
    return new
