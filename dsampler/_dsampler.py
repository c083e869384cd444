"""DSampler: the engine with everything that drives it, composed: file watching, the
adaptive controller, the remote follower, telemetry and their shutdown."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from dsampler._owners import Owners
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.config._model import SamplingConfig
from dsampler.config._parse import as_config, parse_config, parse_fields
from dsampler.config._store import DEFAULT_HISTORY
from dsampler.config._watch import FileWatcher, read_at_start
from dsampler.engine._engine import Engine
from dsampler.engine._runtime import resource_attributes
from dsampler.telemetry._track import track

if TYPE_CHECKING:
    from opentelemetry.sdk.resources import Resource
    from typing_extensions import Unpack

    from dsampler.adaptive._controller import AdaptiveController
    from dsampler.config._keywords import SettingsKeywords
    from dsampler.remote._follow import RemoteFollower

__all__ = ["DSampler"]


class DSampler(Engine):
    """The sampler to reach for: default rate, per-operation strategies, ordered rules,
    a global traces-per-second cap and parent-based sampling, all in one configuration
    that can change while traffic flows.

    Every decision reads the current snapshot once (one reference load, no lock) and
    decides under that whole snapshot. Updates (:meth:`update`, :meth:`rollback`, a file
    reload) build the next snapshot completely and publish it atomically; invalid input
    raises :class:`~dsampler.ConfigError` and leaves the running snapshot in force. An
    ``adaptive:`` section makes an :class:`~dsampler.AdaptiveController` the owner of
    the default rate, a ``remote:`` section a Jaeger endpoint; they write their fields
    over the configuration (a file reload does not undo them).

    Args:
        config: a :class:`SamplingConfig`, a mapping in the file format, or None for
            the defaults.
        resource: this process's resource (for rules that match resource attributes);
            default ``Resource.create()``, which reads ``OTEL_RESOURCE_ATTRIBUTES``.
        clock: time source for rate limits, rollouts and the controller.
        history: how many published configurations to keep for :meth:`rollback`.
        initial_fill: the fraction of its maximum a new token bucket starts with
            (default None: full); ``dsampler.jaeger`` passes ``random``, as
            jaeger-client-python started its limiters.
        **settings: configuration fields that override ``config`` (``rate=0.1``,
            ``rules=[...]``), in the file format.

    Raises:
        ConfigError: the configuration is invalid; every problem is named.
    """

    def __init__(
        self,
        config: SamplingConfig | Mapping[str, Any] | None = None,
        *,
        resource: Resource | Mapping[str, Any] | None = None,
        clock: Clock = SYSTEM_CLOCK,
        history: int = DEFAULT_HISTORY,
        initial_fill: Callable[[], float] | None = None,
        **settings: Unpack[SettingsKeywords],
    ) -> None:
        base = as_config(config)
        if settings:
            base = parse_config(settings, base=base)
        attributes = resource_attributes(resource)
        self._owning = threading.Lock()  # one change of owners at a time (its writers)
        self._owners = Owners(clock, attributes)
        self._watcher: FileWatcher | None = None
        plan = self._owners.plan(base)
        try:
            super().__init__(
                base,
                resource=attributes,
                clock=clock,
                history=history,
                initial_fill=initial_fill,
                sections=None,
                holders=plan.holders,
            )
        except BaseException:
            plan.abort()
            raise
        plan.commit()
        self._owners.start()
        track(self)

    @classmethod
    def from_file(
        cls,
        path: str | os.PathLike[str],
        *,
        poll_interval_s: float = 1.0,
        watch: bool = True,
        strict: bool = True,
        resource: Resource | Mapping[str, Any] | None = None,
        clock: Clock = SYSTEM_CLOCK,
        history: int = DEFAULT_HISTORY,
        **settings: Unpack[SettingsKeywords],
    ) -> DSampler:
        """A DSampler configured from a YAML or JSON file, reloaded when it changes.

        ``**settings`` override the file, at start and after every reload. A file that
        becomes unreadable or invalid later keeps the running configuration and is
        logged once per distinct problem. ``watch=False`` reads it once.

        Args:
            strict: a file that is missing or invalid at start raises (default); with
                ``strict=False`` it is logged, the defaults (with ``settings``) serve,
                and the file is applied as soon as it is valid.

        Raises:
            ConfigError: the file is unusable at start (with ``strict``), or a setting
                is invalid.
        """
        overrides = parse_fields(settings) if settings else {}
        start = read_at_start(path, overrides, strict=strict or not watch)
        sampler = cls(start.config, resource=resource, clock=clock, history=history)
        if watch:
            sampler._watcher = FileWatcher(
                path,
                lambda new: sampler.publish(new.evolve(**overrides)),
                interval_s=poll_interval_s,
                applied=start.applied,
                rejected=start.rejected,
            )
            sampler._watcher.start()
        return sampler

    # -- owners ----------------------------------------------------------------------

    @property
    def controller(self) -> AdaptiveController | None:
        """The adaptive controller of the ``adaptive:`` section (None without one)."""
        return self._owners.controller

    @property
    def follower(self) -> RemoteFollower | None:
        """The remote follower of the ``remote:`` section (None without one)."""
        return self._owners.follower

    @property
    def rate_owner(self) -> str | None:
        """What owns the default rate: ``adaptive``, ``remote``, or None (the
        configuration's own)."""
        return self._owners.rate_owner

    @property
    def watcher(self) -> FileWatcher | None:
        """The file watcher of :meth:`from_file` (``poll_once()`` checks the file now)."""
        return self._watcher

    def adopt_controller(self, controller: AdaptiveController) -> None:
        """Make ``controller`` (one made in code, ``AdaptiveController(sampler=...)``)
        the owner of the default rate: the ``adaptive:`` section becomes its settings.

        Raises:
            ConfigError: a remote endpoint owns the default rate.
        """
        with self._owning:
            self._rebase(self.base.evolve(adaptive=controller.settings), adopted=controller)

    # -- writing ---------------------------------------------------------------------

    def update(self, **changes: Unpack[SettingsKeywords]) -> SamplingConfig:
        """Publish the current configuration with ``changes`` (file-format values):
        ``sampler.update(rate=0.02)``. All or nothing. An update that removes an owner
        (``adaptive=None``) keeps the fields it owned in force, unless it sets them.

        Raises:
            ConfigError: a change is invalid; the running configuration stays.
        """
        fields = parse_fields(changes)
        with self._owning:
            if "adaptive" not in fields and "remote" not in fields:  # SECTIONS, written out
                return self.evolve(fields)
            # an owner an update removes leaves its fields in force, unless set here
            kept = {k: v for k, v in self._owners.left_behind(fields).items() if k not in fields}
            return self._rebase(self.base.evolve(**fields, **kept))

    def publish(
        self, config: SamplingConfig | Mapping[str, Any], *, holders: Mapping[str, Any] | None = None
    ) -> SamplingConfig:
        """Replace the whole configuration (a mapping is parsed as a file would be);
        the owners its sections ask for are made, changed or stopped in the same version
        (``holders``: more overlays to hand over in it, as :meth:`Engine.publish`)."""
        with self._owning:
            return self._rebase(as_config(config), holders=holders)

    def rollback(self, version: int) -> SamplingConfig:
        """Publish the configuration of an earlier version again, as a new version (its
        owners' fields are theirs: an owner still in force keeps its own).

        Raises:
            ConfigError: that version is no longer in :attr:`history`.
        """
        with self._owning:
            return self._rebase(self.base_at(version))

    def _rebase(
        self,
        base: SamplingConfig,
        adopted: AdaptiveController | None = None,
        holders: Mapping[str, Any] | None = None,
    ) -> SamplingConfig:
        plan = self._owners.plan(base, adopted)
        try:
            config = super().publish(base, holders={**plan.holders, **(holders or {})})
        except BaseException:
            plan.abort()
            raise
        plan.commit()
        return config

    def close(self) -> None:
        """Stop watching the file, the adaptive controller's and the remote poller's
        threads (idempotent). Decisions keep working, at the rate last in force."""
        if self._watcher is not None:
            self._watcher.stop()
        self._owners.close()

    def _reset_after_fork(self) -> None:
        self._owning = threading.Lock()  # a writer in flight at the fork would hold it forever
        super()._reset_after_fork()  # the child counts its own decisions
