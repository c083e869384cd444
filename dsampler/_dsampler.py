"""DSampler: the engine composed with what drives it: file watching, the adaptive
controller, the remote follower and telemetry. It holds the engine (its hooks are the
owners' and telemetry's) and decides with the engine's own ``should_sample``. After
every publish, and in a forked child, one step makes the running owners match the
sections in force.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from dsampler import _fork
from dsampler._validate import show
from dsampler.adaptive import ADAPTIVE, AdaptiveController, running_controller
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.config import (
    DEFAULT_HISTORY,
    FileWatcher,
    SamplingConfig,
    as_config,
    differences,
    parse_config,
    parse_fields,
    read_at_start,
)
from dsampler.engine import Engine, EngineSampler, resource_attributes
from dsampler.remote import REMOTE, RemoteFollower, running_follower
from dsampler.telemetry import track

if TYPE_CHECKING:
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.trace import SpanKind
    from opentelemetry.util.types import Attributes
    from typing_extensions import Unpack

    from dsampler.config import SettingsKeywords


_log = logging.getLogger("dsampler")


class DSampler(EngineSampler):
    """The sampler to reach for: default rate, per-operation strategies, ordered rules,
    a global traces-per-second cap and parent-based sampling, all in one configuration
    that can change while traffic flows.

    It decides with its :attr:`engine`'s ``should_sample`` itself, which reads the
    current snapshot once, with no lock. Updates build the next snapshot completely
    and publish it atomically; invalid input raises
    :class:`~dsampler.ConfigError` and leaves the running snapshot in force. An
    ``adaptive:`` section makes an :class:`~dsampler.AdaptiveController` the owner of the
    default rate, a ``remote:`` section a Jaeger endpoint (a file reload does not undo
    what they write).

    Args:
        config: a :class:`SamplingConfig`, a mapping in the file format, or None for
            the defaults.
        resource: this process's resource (for rules that match resource attributes);
            default ``Resource.create()``.
        history: how many published configurations to keep for :meth:`rollback`.
        initial_fill: the fraction of its maximum a new token bucket starts with
            (default None: full).
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
        self._owning = threading.Lock()  # one write (a publish and its owners) at a time
        self._controller: AdaptiveController | None = None
        self._follower: RemoteFollower | None = None
        self._watcher: FileWatcher | None = None
        self._file = base  # the file's configuration last applied
        self._pinned: frozenset[str] = frozenset()  # from_file's settings: the file never sets them
        self._closed = False
        super().__init__(  # binds should_sample to the engine's
            Engine(
                base,
                resource=resource_attributes(resource),
                clock=clock,
                history=history,
                initial_fill=initial_fill,
                sections=None,
            )
        )
        _fork.register(self._reset_after_fork, self._restart_after_fork)  # after the engine's
        self.engine.keep(self)  # an engine handed on alone is still driven
        self._write(None)
        track(self.engine)

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

        A reload applies what changed in the file, field by field: a field set by
        :meth:`update` stays until the file changes it. ``**settings`` override the file,
        always. An invalid file keeps the running configuration, logged once per problem.

        Args:
            strict: a file missing or invalid at start raises (default); else it is
                logged and the defaults (with ``settings``) serve until it is valid.

        Raises:
            ConfigError: the file is unusable at start (with ``strict``), or a setting is.
        """
        overrides = parse_fields(settings) if settings else {}
        start = read_at_start(path, overrides, strict=strict or not watch)
        sampler = cls(start.config, resource=resource, clock=clock, history=history)
        if watch:
            sampler._pinned = frozenset(overrides)
            sampler._watcher = FileWatcher(
                path,
                sampler._reload,
                interval_s=poll_interval_s,
                applied=start.applied,
                rejected=start.rejected,
            )
            sampler._watcher.start()
        return sampler

    # -- reading ---------------------------------------------------------------------

    @property
    def base(self) -> SamplingConfig:
        """The base configuration in force: the configuration without its owners' fields."""
        return self.engine.base

    @property
    def history(self) -> tuple[SamplingConfig, ...]:
        """The last published configurations, oldest first."""
        return self.engine.history

    @property
    def resource(self) -> Mapping[str, Any]:
        """This process's resource attributes, as rules match them."""
        return self.engine.resource

    def explain(
        self, trace_id: int, name: str, kind: SpanKind | None = None, attributes: Attributes = None
    ) -> dict[str, Any]:
        """How a root span would be decided now, without spending any token."""
        return self.engine.explain(trace_id, name, kind, attributes)

    # -- owners ----------------------------------------------------------------------

    @property
    def controller(self) -> AdaptiveController | None:
        """The adaptive controller of the ``adaptive:`` section (None without one)."""
        return self._controller

    @property
    def follower(self) -> RemoteFollower | None:
        """The remote follower of the ``remote:`` section (None without one)."""
        return self._follower

    @property
    def rate_owner(self) -> str | None:
        """What owns the default rate: ``adaptive``, ``remote``, or None."""
        if self._controller is not None:
            return ADAPTIVE
        return REMOTE if self._follower is not None else None

    @property
    def watcher(self) -> FileWatcher | None:
        """The file watcher of :meth:`from_file` (``poll_once()`` checks the file now)."""
        return self._watcher

    def adopt_controller(self, controller: AdaptiveController) -> None:
        """Make ``controller`` (made in code) the owner of the default rate: the
        ``adaptive:`` section becomes its settings.

        Raises:
            ConfigError: a remote endpoint owns the default rate.
        """
        self._write(self._adopt, controller)

    def _adopt(self, controller: AdaptiveController) -> None:
        self.engine.evolve({"adaptive": controller.settings})
        if self._controller is not None and self._controller is not controller:
            self._controller.bind(None)  # its rate stays in force until the new one's is
        self._controller = controller

    # -- writing ---------------------------------------------------------------------

    def update(self, **changes: Unpack[SettingsKeywords]) -> SamplingConfig:
        """Publish the current configuration with ``changes`` (file-format values):
        ``sampler.update(rate=0.02)``. All or nothing. Removing an owner
        (``adaptive=None``) keeps the fields it owned in force unless it sets them.

        Raises:
            ConfigError: a change is invalid; the running configuration stays.
        """
        return self._write(self.engine.update, **changes)

    def publish(self, config: SamplingConfig | Mapping[str, Any]) -> SamplingConfig:
        """Replace the whole configuration (a mapping is parsed as a file would be)."""
        return self._write(self.engine.publish, config)

    def rollback(self, version: int) -> SamplingConfig:
        """Publish the configuration of an earlier version again, as a new version (an
        owner still in force keeps its own fields).

        Raises:
            ConfigError: that version is no longer in :attr:`history`.
        """
        return self._write(self.engine.rollback, version)

    def _write(self, publish: Callable[..., object] | None, *args: Any, **kwargs: Any) -> SamplingConfig:
        """``publish``, then the one idempotent step that makes the running owners match
        the sections in force: start what is missing, reconfigure what changed, stop
        what is gone."""
        with self._owning:
            if publish is not None:
                publish(*args, **kwargs)
            self._controller = running_controller(self._controller, self.engine)
            self._follower = running_follower(self._follower, self.engine)
            if not self._closed:  # started once assigned: a fork before leaves nothing running
                for owner in (self._controller, self._follower, self._watcher):
                    if owner is not None:
                        owner.start()
            return self.engine.config

    def _reload(self, file: SamplingConfig) -> SamplingConfig:
        """The watcher's publish: what changed in the file since it was last applied."""
        return self._write(self._apply_file, file)

    def _apply_file(self, file: SamplingConfig) -> None:
        changes = {k: v for k, v in differences(self._file, file).items() if k not in self._pinned}
        base = self.engine.base
        self.engine.publish(base.evolve(**changes))
        replaced = [
            f"{name} {show(value)} from the file replaces {show(getattr(base, name))} set by update()"
            for name, value in changes.items()
            if getattr(base, name) != getattr(self._file, name)
        ]
        if replaced and self._watcher is not None:
            _log.warning("dsampler: reloaded %s: %s", self._watcher.path, "; ".join(replaced))
        self._file = file

    def close(self) -> None:
        """Stop watching the file, the adaptive controller's and the remote poller's
        threads (idempotent). Decisions keep working, at the rate last in force."""
        with self._owning:
            self._closed = True
        if self._watcher is not None:
            self._watcher.stop()
        if self._controller is not None:
            self._controller.stop()
        if self._follower is not None:
            self._follower.close()

    def _reset_after_fork(self) -> None:
        self._owning = threading.Lock()  # a writer in flight at the fork would hold it forever

    def _restart_after_fork(self) -> None:
        """After the engine's restart (registered first): its limits whole again."""
        try:  # the owners of the sections in force, whatever the fork interrupted
            self._write(None)
        except Exception:  # the other objects' restarts must still run
            _log.exception("dsampler: could not restart the owners after fork")
