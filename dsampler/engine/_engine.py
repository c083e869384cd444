"""The engine: the user writes its base configuration, owners hold named overlays
(:meth:`Engine.overlay`), telemetry reads :attr:`Engine.snapshot`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from dsampler import _fork
from dsampler._validate import check_rate
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.config import (
    DEFAULT_HISTORY,
    ConfigStore,
    Overlay,
    SamplingConfig,
    as_config,
    parse_fields,
    service_name,
)
from dsampler.decision import FaultLog
from dsampler.engine._compile import compile_snapshot
from dsampler.engine._counts import CountHistory
from dsampler.engine._request import RequestPath
from dsampler.engine._runtime import Runtime
from dsampler.engine._snapshot import Snapshot
from dsampler.errors import ConfigError
from dsampler.hashing import LOADER

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from dsampler.config import SettingsKeywords


#: The sections of a configuration that name an owner (an engine alone refuses them).
SECTIONS: Final = ("adaptive", "remote")


class Engine(RequestPath):
    """Default rate, per-operation strategies, ordered rules, a global cap and
    parent-based sampling, decided under one compiled snapshot that writers replace
    atomically while traffic flows; invalid input raises :class:`~dsampler.ConfigError`
    and leaves the running snapshot in force.

    Args:
        resource: this process's resource attributes.
        history: how many published configurations to keep for :meth:`rollback`.
        initial_fill: the fraction of its maximum a new token bucket starts with
            (None: full).
        sections: why a base naming an owner (``adaptive:``, ``remote:``) is refused;
            None accepts them (the composition above creates their owners).
    """

    def __init__(
        self,
        config: SamplingConfig,
        *,
        resource: Mapping[str, Any],
        clock: Clock = SYSTEM_CLOCK,
        history: int = DEFAULT_HISTORY,
        initial_fill: Callable[[], float] | None = None,
        name: str = "DSampler",
        sections: str | None = "nobody creates its owner here",
    ) -> None:
        self._sections = sections
        self._runtime = Runtime(clock, resource, initial_fill)
        self._check_sections(config)
        self._store: ConfigStore[Snapshot] = ConfigStore(
            self._compile, config, history=history, sections=SECTIONS if sections is None else ()
        )
        self._fault_log = FaultLog(name)
        self._name = name
        self._driver: object = None
        _fork.register(self._reset_after_fork, self._restart_after_fork)
        LOADER.ensure_started()

    def _compile(self, config: SamplingConfig, held: Mapping[str, Overlay]) -> Snapshot:
        # no store yet while constructing (getattr, not self.__dict__, which would make
        # every attribute read of the request path a dict lookup)
        store = getattr(self, "_store", None)
        load = next((o.tap for o in held.values() if o.tap is not None), None)  # the first owner's tap
        previous = None if store is None else store.current
        return compile_snapshot(config, previous, self._runtime, load)  # type: ignore[arg-type]  # a tap is an OfferedLoad

    def _check_sections(self, config: SamplingConfig) -> None:
        if self._sections is None:
            if config.remote is not None:
                service_name(config.remote.service_name, self._runtime.resource, "remote.service_name")
            return
        for section in SECTIONS:
            if getattr(config, section) is not None:
                raise ConfigError(section, f"not supported by this sampler: {self._sections}")

    # -- reading ---------------------------------------------------------------------

    @property
    def config(self) -> SamplingConfig:
        """The configuration in force (its overlays merged), with its ``version``."""
        return self._store.current.config

    @property
    def base(self) -> SamplingConfig:
        """The base configuration in force: the configuration without its overlays."""
        return self._store.base

    @property
    def snapshot(self) -> Snapshot:
        """The compiled configuration the next decision reads (never mutated)."""
        return self._store.current

    @property
    def history(self) -> tuple[SamplingConfig, ...]:
        """The last published configurations, oldest first."""
        return self._store.history

    @property
    def clock(self) -> Clock:
        return self._runtime.clock

    @property
    def resource(self) -> Mapping[str, Any]:
        """This process's resource attributes, as the engine matches them."""
        return self._runtime.resource

    @property
    def fault_log(self) -> FaultLog:
        """Where its faults are counted (a remote sampler's initial one counts here too)."""
        return self._fault_log

    @property
    def decision_counts(self) -> CountHistory | None:
        """The decisions counted so far, by version (None until counting is on)."""
        return self._runtime.stats

    # -- writing ---------------------------------------------------------------------

    def update(self, **changes: Unpack[SettingsKeywords]) -> SamplingConfig:
        """Publish the base configuration with ``changes`` (file-format values):
        ``engine.update(rate=0.02)``. All or nothing.

        Raises:
            ConfigError: a change is invalid; the running configuration stays.
        """
        return self.evolve(parse_fields(changes))

    def evolve(self, fields: Mapping[str, Any]) -> SamplingConfig:
        """Publish the base configuration with ``fields`` (validated field values).

        Raises:
            ConfigError: a field is invalid; the running configuration stays.
        """
        if fields.get("adaptive") is not None or fields.get("remote") is not None:  # SECTIONS
            self._check_sections(self.base.evolve(**fields))
        return self._store.evolve(fields).config

    def publish(self, config: SamplingConfig | Mapping[str, Any]) -> SamplingConfig:
        """Replace the base configuration (a mapping is parsed as a file would be)."""
        base = as_config(config)
        self._check_sections(base)
        return self._store.publish(base).config

    def rollback(self, version: int) -> SamplingConfig:
        """Publish the base of an earlier version again, as a new version.

        Raises:
            ConfigError: that version is no longer in :attr:`history`.
        """
        return self._store.rollback(version).config

    def overlay(self, name: str, fields: Mapping[str, Any] | None = None, *, tap: object = None) -> Overlay:
        """A new overlay for an owner, merged over every base once it holds ``name``
        (from its first :meth:`~dsampler.config.Overlay.set`). ``tap`` is an
        :class:`OfferedLoad` the request path counts into while the overlay is held.

        Raises:
            ConfigError: a field is invalid.
        """
        return self._store.overlay(name, fields or {}, tap=tap)

    def holder(self, name: str) -> Overlay | None:
        """The overlay that holds ``name``, if any."""
        return self._store.holder(name)

    @property
    def driver(self) -> object:
        """What drives this engine (its DSampler, with the owners), None for an engine alone."""
        return self._driver

    def keep(self, driver: object) -> None:
        """Hold ``driver`` as :attr:`driver` while the engine lives, so an engine handed
        on alone is still driven; telemetry reports its controller, and a controller's
        :meth:`~dsampler.AdaptiveController.reconfigure` publishes through it."""
        self._driver = driver

    def adopt_controller(self, controller: Any) -> None:
        """An engine alone refuses a controller (a :class:`~dsampler.DSampler` adopts one).

        Raises:
            ConfigError: always, naming the ``adaptive`` section.
        """
        raise ConfigError("adaptive", f"not supported by this sampler: {self._sections}")

    @property
    def limit_share(self) -> float:
        """The share of its traces-per-second limits this engine holds (1: whole)."""
        return self._runtime.share

    def share_limits(self, share: float) -> None:
        """Hold ``share`` of every traces-per-second limit (``traces_per_second``,
        ``rate_limit`` rules, lower bounds), now and in every configuration published
        after, balances pro-rated; 1 (the default) holds them whole (``share: host``).

        Raises:
            ConfigError: ``share`` is not a number in [0, 1].
        """
        held = check_rate(share, "share")
        self._store.apply(lambda snapshot: self._share(held, snapshot))

    def _share(self, share: float, snapshot: Snapshot) -> None:
        self._runtime.share = share
        for bucket, per_second in snapshot.limits():
            bucket.update(per_second * share)

    def count_decisions(self) -> None:
        """Begin counting decisions (recompiles the same version with counts). Idempotent."""
        if self._runtime.stats is None:
            self._runtime.stats = CountHistory()
            self._store.refresh()

    # -- fork ------------------------------------------------------------------------

    def _reset_after_fork(self) -> None:
        """In a forked child: count from the child's own first decision."""
        if self._runtime.stats is not None:
            self._runtime.stats = CountHistory()
            counts = self._store.current.counts
            if counts is not None:
                counts.zero()
                self._runtime.stats.started(counts)

    def _restart_after_fork(self) -> None:
        """In a forked child: every limit is exactly its configuration's, whole (the
        parent's share is the parent's), even if the fork interrupted a publish between
        a bucket's new rate and its snapshot."""
        self._share(1.0, self._store.current)

    def get_description(self) -> str:
        c = self._store.current.config
        return (
            f"{self._name}{{version={c.version},rate={c.rate},hash={c.hash},parent_based={c.parent_based},"
            f"rules={len(c.rules)},operations={len(c.operations)}}}"
        )
