"""Versioned configuration snapshots, published with one reference assignment.

Readers (the request path) read :attr:`ConfigStore.current` once per decision and never
take a lock: a reference load is atomic, and a published snapshot is never mutated, so
a decision sees one whole snapshot, never a mix. Writers (API, file reload, remote
poll, adaptive controller) build the next snapshot completely, then publish it; they
serialise among themselves on one lock. Versions only grow; the last N published
configurations stay in a ring for :attr:`history` and :meth:`rollback`.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, Final, Generic, Protocol, TypeVar

from dsampler import _fork
from dsampler.config._model import SamplingConfig
from dsampler.errors import ConfigError

__all__ = ["DEFAULT_HISTORY", "ConfigStore", "Snapshot"]

DEFAULT_HISTORY: Final = 16


class Snapshot(Protocol):
    """What a store publishes: anything compiled from one configuration."""

    @property
    def config(self) -> SamplingConfig: ...


S = TypeVar("S", bound=Snapshot)


class ConfigStore(Generic[S]):
    """Holds the current snapshot and the last ``history`` published configurations.

    Args:
        compile: configuration (with its version set) -> snapshot; called under the
            writer lock. If it raises, nothing is published.
        initial: the first configuration, published as version 1.
        history: how many published configurations :attr:`history` keeps (default 16).
    """

    def __init__(
        self,
        compile: Callable[[SamplingConfig], S],
        initial: SamplingConfig,
        *,
        history: int = DEFAULT_HISTORY,
    ) -> None:
        if type(history) is not int or history < 1:
            raise ConfigError("history", f"expected an integer >= 1, got {history!r}")
        self._compile = compile
        self._lock = threading.Lock()
        _fork.register(self)
        self._ring: deque[SamplingConfig] = deque(maxlen=history)
        self._version = 0
        self.current: S = self._publish_locked(initial)

    def _publish_locked(self, config: SamplingConfig, *, stamped: bool = False) -> S:
        version = self._version + 1
        snapshot = self._compile(config if stamped else config.stamped(version))
        self._version = version
        self._ring.append(snapshot.config)
        self.current = snapshot  # the one reference assignment readers see
        return snapshot

    def publish(self, config: SamplingConfig) -> S:
        """Publish ``config`` as the next version; its own ``version`` is ignored."""
        with self._lock:
            return self._publish_locked(config)

    def update(self, change: Callable[[SamplingConfig], SamplingConfig]) -> S:
        """Publish ``change(current config)``; the read and the publish are atomic with
        respect to other writers (no lost updates)."""
        with self._lock:
            return self._publish_locked(change(self.current.config))

    def evolve(self, changes: Mapping[str, Any]) -> S:
        """Publish the current configuration with ``changes`` (validated field values),
        stamping the version in the same copy: the cheapest path, for frequent writers."""
        with self._lock:
            config = self.current.config.evolve(**changes, version=self._version + 1)
            return self._publish_locked(config, stamped=True)

    def refresh(self) -> S:
        """Compile the current configuration again, as the same version: what the
        compiled snapshot holds changed (telemetry began counting), not the configuration."""
        with self._lock:
            self.current = self._compile(self.current.config)
            return self.current

    def rollback(self, version: int) -> S:
        """Publish the content of an earlier ``version`` again, as a new version.

        Raises:
            ConfigError: ``version`` is not in the history ring.
        """
        with self._lock:
            for config in self._ring:
                if config.version == version:
                    return self._publish_locked(config)
            kept = f"{self._ring[0].version}..{self._ring[-1].version}"
            raise ConfigError("version", f"expected a version in the history ({kept}), got {version!r}")

    def _reset_after_fork(self) -> None:
        self._lock = threading.Lock()

    @property
    def history(self) -> tuple[SamplingConfig, ...]:
        """Published configurations, oldest first, the current one last."""
        with self._lock:
            return tuple(self._ring)
