"""Reload a configuration file when it changes, keeping the last good one otherwise.

A background thread polls the file (mtime, size, inode, then a content hash; no watcher
dependency). A change is parsed and validated completely before it is published;
an unreadable, empty, truncated or invalid file keeps the running configuration and is
logged once per distinct problem. :meth:`FileWatcher.poll_once` is public so tests and
callers can drive it without threads or sleeping. The thread is restarted in the child
after ``os.fork()`` (gunicorn and uwsgi fork workers from a master).
"""

from __future__ import annotations

import logging
import os
import threading
import weakref
from collections.abc import Callable
from typing import Final

from dsampler.config.files import parse_document, read_bytes
from dsampler.config.model import SamplingConfig
from dsampler.config.parse import parse_config
from dsampler.errors import ConfigError

__all__ = ["FileWatcher", "read_config_file"]

_log = logging.getLogger("dsampler.config")
_WATCHERS: Final[weakref.WeakSet[FileWatcher]] = weakref.WeakSet()


def read_config_file(path: str | os.PathLike[str]) -> tuple[SamplingConfig, bytes]:
    """Read, decode and validate a configuration file; also return its raw bytes.

    Raises:
        ConfigError: every problem found; file-level ones name the path.
    """
    name = os.fspath(path)
    data = read_bytes(name)
    document = parse_document(data, name, json_only=name.lower().endswith(".json"))
    return parse_config(document), data


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
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        publish: Callable[[SamplingConfig], object],
        *,
        interval_s: float = 1.0,
        applied: bytes | None = None,
    ) -> None:
        if not isinstance(interval_s, (int, float)) or not 0.01 <= interval_s <= 86400:
            raise ConfigError("poll_interval_s", f"expected seconds in [0.01, 86400], got {interval_s!r}")
        self.path = os.fspath(path)
        self._publish = publish
        self._interval = float(interval_s)
        self._signature: tuple[int, int, int] | None = None
        self._digest = _digest(applied) if applied is not None else None
        self._last_problem: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.reloads = 0
        self.problems = 0
        _WATCHERS.add(self)

    def poll_once(self) -> bool:
        """Check the file once; True when a new configuration was published."""
        try:
            st = os.stat(self.path)
        except OSError as exc:
            self._report(ConfigError(self.path, f"cannot read the file: {exc.strerror or exc}"))
            return False
        signature = (st.st_mtime_ns, st.st_size, st.st_ino)
        if signature == self._signature and self._last_problem is None:
            return False
        self._signature = signature
        try:
            config, data = read_config_file(self.path)
        except ConfigError as exc:
            self._report(exc)
            return False
        digest = _digest(data)
        self._last_problem = None
        if digest == self._digest:
            return False
        self._publish(config)
        self._digest = digest
        self.reloads += 1
        _log.info("dsampler: reloaded %s", self.path)
        return True

    def _report(self, exc: ConfigError) -> None:
        self.problems += 1
        text = str(exc)
        if text != self._last_problem:
            _log.warning("dsampler: keeping the running configuration; %s is not usable: %s", self.path, text)
        self._last_problem = text

    def start(self) -> None:
        """Start polling in a daemon thread (idempotent)."""
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="dsampler-config-watch", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                self.poll_once()
            except Exception:  # the poller must survive anything; the running config stays
                _log.exception("dsampler: unexpected error while checking %s", self.path)

    def stop(self) -> None:
        """Stop polling and wait for the thread (idempotent)."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5.0)

    def _after_fork_in_child(self) -> None:
        if self._thread is not None and not self._stop.is_set():
            self._thread = None
            self._stop = threading.Event()
            self.start()


def _restart_watchers_in_child() -> None:
    for watcher in list(_WATCHERS):
        watcher._after_fork_in_child()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_restart_watchers_in_child)
