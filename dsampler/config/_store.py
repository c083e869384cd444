"""Versioned configuration snapshots: a base configuration and its owners' overlays,
merged, compiled and published with one reference assignment.

Readers read :attr:`ConfigStore.current` once per decision without a lock: a published
snapshot is never mutated. Writers build the next snapshot whole, then publish it, one at
a time under one lock; versions only grow. A new base (a file reload) cannot undo an
owner's overlay; an overlay named after a section is merged only while the base has it.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, Final, Generic, Protocol, TypeVar

from dsampler import _fork
from dsampler.config._model import FIELD_CHECKS, SamplingConfig, check_values
from dsampler.errors import ConfigError

DEFAULT_HISTORY: Final = 16
_NONE: Final[Mapping[str, Any]] = {}
#: The checks of the fields an overlay may own: every field of SamplingConfig but the version.
_CHECKS: Final = {name: check for name, check in FIELD_CHECKS.items() if name != "version"}


def merge(base: SamplingConfig, fields: Mapping[str, Any]) -> SamplingConfig:
    """``base`` with overlay ``fields`` written over it. Operations past the base's
    ``max_operations`` are left out, in order (they are decided at the default rate):
    an owner's list never makes the user's configuration invalid."""
    operations = fields.get("operations")
    if operations is not None and len(operations) > base.max_operations:
        fields = {**fields, "operations": dict(list(operations.items())[: base.max_operations])}
    return base.evolve(**fields)


def differences(a: SamplingConfig, b: SamplingConfig) -> dict[str, Any]:
    """The fields ``b`` says otherwise than ``a`` (the version aside), with ``b``'s values."""
    return {name: y for name in _CHECKS if (x := getattr(a, name)) is not (y := getattr(b, name)) and x != y}


class Overlay:
    """One owner's fields (``{"rate": 0.02}``), merged over its store's base while it
    holds its ``name`` (taken at its first :meth:`set` if nobody holds it or its holder
    is retired). A retired overlay writes nothing, so an owner replaced while busy cannot
    undo its successor. ``tap`` is carried to the store's ``compile`` while it holds the name.

    Raises:
        ConfigError: a field is invalid.
    """

    __slots__ = ("fields", "name", "retired", "store", "tap")

    def __init__(self, name: str, fields: Mapping[str, Any] = _NONE, *, tap: object = None) -> None:
        self.name = name
        self.fields: Mapping[str, Any] = check_values(fields, _CHECKS)
        self.tap = tap
        self.store: ConfigStore[Any] | None = None  # set when a store first takes it
        self.retired = False

    @property
    def config(self) -> SamplingConfig | None:
        """The configuration in force in its store (None before a store takes it)."""
        return None if self.store is None else self.store.config

    def set(self, fields: Mapping[str, Any]) -> bool:
        """Own exactly ``fields`` from now on; True when that published a new version
        (not when retired, without a store, or nothing in force changes).

        Raises:
            ConfigError: a field is invalid, or the merge is; nothing changes.
        """
        checked = check_values(fields, _CHECKS)
        store = self.store
        return False if store is None else store.write(self, checked)

    def retire(self) -> None:
        """Write nothing from now on; the fields stay in force until another overlay
        takes the name (or, named after a section, the section goes)."""
        self.retired = True


class Compiled(Protocol):
    """What a store publishes: anything compiled from one configuration."""

    @property
    def config(self) -> SamplingConfig: ...


S = TypeVar("S", bound=Compiled)


class ConfigStore(Generic[S]):
    """Holds the current snapshot, the base and the overlays, and the last ``history``
    published configurations.

    Args:
        compile: (configuration with its version set, the overlays merged into it) ->
            snapshot; called under the writer lock. If it raises, nothing is published.
        initial: the first base, published as version 1.
        history: how many published configurations :attr:`history` keeps (default 16).
        sections: the fields whose overlays (named after them) are merged only while
            the base has them (default none).
    """

    def __init__(
        self,
        compile: Callable[[SamplingConfig, Mapping[str, Overlay]], S],
        initial: SamplingConfig,
        *,
        history: int = DEFAULT_HISTORY,
        sections: tuple[str, ...] = (),
    ) -> None:
        if type(history) is not int or history < 1:
            raise ConfigError("history", f"expected an integer >= 1, got {history!r}")
        self._compile = compile
        self._lock = threading.Lock()
        _fork.register(self._reset_after_fork)
        self._ring: deque[tuple[SamplingConfig, SamplingConfig]] = deque(maxlen=history)
        self._version = 0
        self._sections = sections
        self._held: dict[str, Overlay] = {}
        self._base = initial
        self.current: S = self._publish_locked(initial, self._held)

    def _merged(self, base: SamplingConfig, held: Mapping[str, Overlay], version: int) -> SamplingConfig:
        fields: dict[str, Any] = {"version": version}
        for overlay in held.values():
            fields.update(overlay.fields)
        return merge(base, fields) if len(fields) > 1 else base.stamped(version)

    def _bound(self, base: SamplingConfig) -> dict[str, Overlay]:
        """The overlays held, less those named after a section ``base`` does not have."""
        held = self._held
        if all(name not in held or getattr(base, name) is not None for name in self._sections):
            return held
        return {n: o for n, o in held.items() if n not in self._sections or getattr(base, n) is not None}

    def _publish_locked(
        self, base: SamplingConfig, held: dict[str, Overlay], config: SamplingConfig | None = None
    ) -> S:
        """Merge (unless ``config`` is the merge), compile, then make it current
        (nothing changes if the compile raises)."""
        version = self._version + 1
        if config is None:
            config = self._merged(base, held, version)
        snapshot = self._compile(config, held)
        self._version, self._base = version, base
        if held is not self._held:
            for name, overlay in self._held.items():
                if held.get(name) is not overlay:
                    overlay.retired = True
            self._held = held
        self._ring.append((snapshot.config, base))  # what was in force, and its base
        self.current = snapshot  # the one reference assignment readers see
        return snapshot

    @property
    def config(self) -> SamplingConfig:
        """The configuration in force (the current snapshot's)."""
        return self.current.config

    @property
    def base(self) -> SamplingConfig:
        """The base in force (the current configuration without its overlays)."""
        return self._base

    def publish(self, base: SamplingConfig | None = None) -> S:
        """Publish ``base`` (None: the one in force) as the next version, its own
        ``version`` ignored.

        Raises:
            ConfigError: the merge or the compile refused it; nothing changes.
        """
        with self._lock:
            base = self._base if base is None else base
            return self._publish_locked(base, self._bound(base))

    def evolve(self, changes: Mapping[str, Any]) -> S:
        """Publish the base with ``changes`` (validated field values), the cheapest path.
        A section it removes leaves its overlay's fields in force unless ``changes`` sets them."""
        with self._lock:
            if not self._held:  # one copy: the new base, stamped, is what is in force
                config = self._base.evolve(**changes, version=self._version + 1)
                return self._publish_locked(config, self._held, config)
            base = self._base.evolve(**changes)
            held = self._bound(base)
            if held is not self._held:
                config = self.current.config
                gone = [o for name, o in self._held.items() if name not in held]
                kept = {k: getattr(config, k) for o in gone for k in o.fields if k not in changes}
                base = merge(base, kept)
            return self._publish_locked(base, held)

    def rollback(self, version: int) -> S:
        """Publish the base of an earlier ``version`` again, as a new version (the
        overlays stay, but for a section that base does not have).

        Raises:
            ConfigError: ``version`` is not in the history ring.
        """
        with self._lock:
            for published, base in self._ring:
                if published.version == version:
                    return self._publish_locked(base, self._bound(base))
            kept = f"{self._ring[0][0].version}..{self._ring[-1][0].version}"
            raise ConfigError("version", f"expected a version in the history ({kept}), got {version!r}")

    def refresh(self) -> S:
        """Compile the current configuration again, as the same version."""
        with self._lock:
            self.current = self._compile(self.current.config, self._held)
            return self.current

    def apply(self, effect: Callable[[S], object]) -> None:
        """Run ``effect`` on the current snapshot under the writer lock, so no publish
        runs meanwhile: a change to the state snapshots share, not a new version."""
        with self._lock:
            effect(self.current)

    def overlay(self, name: str, fields: Mapping[str, Any] = _NONE, *, tap: object = None) -> Overlay:
        """A new overlay of this store; its first :meth:`~Overlay.set` takes ``name``.

        Raises:
            ConfigError: a field is invalid.
        """
        overlay = Overlay(name, fields, tap=tap)
        overlay.store = self
        return overlay

    def holder(self, name: str) -> Overlay | None:
        """The overlay merged under ``name``, if any."""
        return self._held.get(name)

    def write(self, overlay: Overlay, fields: Mapping[str, Any]) -> bool:
        """:meth:`Overlay.set`'s publish of ``fields`` (checked); True when a new version
        was published. An overlay takes its name when nobody holds it or its holder is
        retired (and, named after a section, while the base has it); else it writes nothing."""
        with self._lock:
            name = overlay.name
            holder = self._held.get(name)
            if (
                overlay.retired
                or overlay.store is not self
                or (holder is not None and holder is not overlay and not holder.retired)
                or (name in self._sections and getattr(self._base, name) is None)
            ):
                return False
            if holder is overlay and fields == overlay.fields:
                return False
            held = self._held if holder is overlay else {**self._held, name: overlay}
            old, overlay.fields = overlay.fields, fields
            try:
                config = self._merged(self._base, held, self._version + 1)
                untapped = overlay.tap is None and (holder is None or holder.tap is None)
                if untapped and not differences(self.current.config, config):
                    self._held = held  # recorded; the configuration in force already says it
                    return False
                self._publish_locked(self._base, held, config)
            except BaseException:
                overlay.fields = old
                raise
            return True

    def _reset_after_fork(self) -> None:
        self._lock = threading.Lock()

    @property
    def history(self) -> tuple[SamplingConfig, ...]:
        """Published configurations, oldest first, the current one last."""
        with self._lock:
            return tuple(config for config, _ in self._ring)
