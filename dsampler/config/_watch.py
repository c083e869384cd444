"""Reload a configuration file when it changes, keeping the last good one otherwise.

A background thread reads the file at every poll and compares a hash of its bytes (a
few KB a second; no watcher dependency, no trust in coarse mtimes). A change is applied
only once it has held still for one poll interval, so a file caught half-written is not
published (writing a new file and renaming it over the old one is still the safe way);
it is parsed and validated completely first. An unreadable, empty, truncated or invalid
file keeps the running configuration and is logged once per distinct problem; content
that was refused is remembered (by its hash) and not parsed again while it stays the
same, so a large bad file costs one parse, not one per poll. A file that is missing or
bad from the start is watched all the same and applied once it is valid. The path is
resolved once, when the watcher is made: a later ``os.chdir()`` does not move it.
:meth:`FileWatcher.poll_once` is public so tests and callers can drive it without
threads or sleeping. The thread is restarted in the child
after ``os.fork()`` (gunicorn and uwsgi fork workers from a master).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable

from dsampler._poller import Poller
from dsampler.config._files import describe, parse_config_bytes, read_bytes
from dsampler.config._model import SamplingConfig
from dsampler.errors import ConfigError

__all__ = ["FileWatcher"]

_log = logging.getLogger("dsampler.config")


def _digest(data: bytes) -> bytes:
    import hashlib  # not at import time: it loads OpenSSL

    return hashlib.blake2b(data).digest()


class FileWatcher:
    """Polls ``path`` every ``interval_s`` seconds and hands each new valid
    configuration to ``publish``.

    Args:
        path: the configuration file.
        publish: called with each new, validated configuration.
        interval_s: seconds between polls (default 1).
        applied: raw bytes of the configuration already in force, if any.
        rejected: raw bytes already refused (by the caller, at start), if any.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        publish: Callable[[SamplingConfig], object],
        *,
        interval_s: float = 1.0,
        applied: bytes | None = None,
        rejected: bytes | None = None,
    ) -> None:
        if not isinstance(interval_s, (int, float)) or not 0.01 <= interval_s <= 86400:
            raise ConfigError("poll_interval_s", f"expected seconds in [0.01, 86400], got {interval_s!r}")
        self.path = os.path.abspath(os.fspath(path))
        self._publish = publish
        self._interval = float(interval_s)
        self._applied = _digest(applied) if applied is not None else None
        self._rejected = _digest(rejected) if rejected is not None else None
        self._pending: bytes | None = None  # a new content seen once, waiting to hold still
        self._last_problem: str | None = None
        self._poller = Poller(self, self._interval, name="dsampler-config-watch")
        self.reloads = 0
        self.problems = 0

    def poll_once(self) -> bool:
        """Check the file once; True when a new configuration was published. A new
        content is published at the second poll that sees it unchanged."""
        try:
            data = read_bytes(self.path)
        except ConfigError as exc:
            self._report(exc)
            return False
        digest = _digest(data)
        if digest == self._applied:
            self._pending, self._last_problem = None, None
            return False
        if digest == self._rejected:  # refused already, unchanged since: nothing to do
            return False
        if digest != self._pending:  # changed since the last poll: let it hold still first
            self._pending = digest
            return False
        try:
            self._publish(parse_config_bytes(data, self.path))  # publishing validates too
        except ConfigError as exc:
            self._rejected, self._pending = digest, None
            self._report(exc)
            return False
        self._applied, self._pending, self._last_problem = digest, None, None
        self.reloads += 1
        _log.info("dsampler: reloaded %s", self.path)
        return True

    def _report(self, exc: ConfigError) -> None:
        self.problems += 1
        text = describe(self.path, exc)
        if text != self._last_problem:
            _log.warning("dsampler: keeping the running configuration: %s", text)
        self._last_problem = text

    def start(self) -> None:
        """Start polling in a daemon thread (idempotent)."""
        self._poller.start()

    def stop(self) -> None:
        """Stop polling and wait for the thread (idempotent)."""
        self._poller.stop()

    @property
    def running(self) -> bool:
        return self._poller.running
