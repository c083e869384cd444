"""A strategies file, reloaded when its bytes change, keeping the last good content.

Jaeger's rules (``provider.go``): the file must be valid at start (a hard error
otherwise); later the raw bytes are compared at every reload tick and only a change is
parsed; a file that cannot be read (deleted, replaced by a directory) or parsed
(truncated, corrupted, of the wrong type) keeps the strategies in force and is logged,
once per distinct problem; a good file replaces all strategies in one reference
assignment. Unlike Jaeger, reloading is on by default (every second): ``dsampler serve``
is meant to be edited while clients poll it. :meth:`StrategiesFile.poll_once` is public
so tests drive it without threads.
"""

from __future__ import annotations

import logging
import os
from typing import Final

from dsampler._poller import Poller
from dsampler._validate import check_seconds
from dsampler.config._files import read_bytes
from dsampler.errors import ConfigError
from dsampler.remote._provider import (
    DEFAULT_SAMPLING_PROBABILITY,
    FileFormat,
    Strategies,
    jaeger_strategies,
    load_strategies,
)

__all__ = ["DEFAULT_RELOAD_S", "StrategiesFile"]

_log = logging.getLogger("dsampler.serve")
DEFAULT_RELOAD_S: Final = 1.0


class StrategiesFile:
    """The strategies of ``path`` (None: probabilistic ``default_probability`` for all).

    Args:
        path: a Jaeger strategies file or a dsampler configuration file.
        format: ``auto`` (default), ``jaeger`` or ``dsampler``.
        default_probability: Jaeger's default sampling probability (0.001).
        reload_interval_s: seconds between checks of the file; 0 never reloads.

    Raises:
        ConfigError: the file cannot be read or is invalid at start.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None,
        *,
        format: FileFormat = "auto",
        default_probability: float = DEFAULT_SAMPLING_PROBABILITY,
        reload_interval_s: float = DEFAULT_RELOAD_S,
    ) -> None:
        self.path = None if path is None else os.fspath(path)
        self.format: FileFormat = format
        self.default_probability = default_probability
        self.reload_interval_s = check_seconds(reload_interval_s, "reload_interval_s", 0.0, 86400.0)
        self.reloads = self.problems = 0
        self._last_problem: str | None = None
        if self.path is None:
            self.current = jaeger_strategies(None, default_probability=default_probability)
            self._applied = b""
        else:
            self._applied = read_bytes(self.path)
            self.current = self._load(self._applied)
        self._report_warnings(self.current)
        self._poller: Poller | None = None
        if self.path is not None and self.reload_interval_s > 0:
            self._poller = Poller(self, self.reload_interval_s, name="dsampler-serve-reload")

    def _load(self, data: bytes) -> Strategies:
        name = self.path or "strategies"
        return load_strategies(data, name, format=self.format, default_probability=self.default_probability)

    def poll_once(self) -> bool:
        """Check the file once; True when new strategies are in force."""
        if self.path is None:
            return False
        try:
            data = read_bytes(self.path)
            if data == self._applied:
                self._last_problem = None
                return False
            strategies = self._load(data)
        except ConfigError as exc:
            self.problems += 1
            text = str(exc)
            if text != self._last_problem:
                _log.warning("dsampler serve: keeping the strategies in force; %s: %s", self.path, text)
            self._last_problem = text
            return False
        self.current, self._applied, self._last_problem = strategies, data, None
        self.reloads += 1
        _log.info("dsampler serve: reloaded %s (%d services)", self.path, len(strategies.services))
        self._report_warnings(strategies)
        return True

    def _report_warnings(self, strategies: Strategies) -> None:
        for warning in strategies.warnings:
            _log.warning("dsampler serve: %s: %s", self.path or "defaults", warning)

    def start(self) -> None:
        """Start reloading in a daemon thread (idempotent; no-op without reloading)."""
        if self._poller is not None:
            self._poller.start()

    def stop(self) -> None:
        """Stop reloading (idempotent)."""
        if self._poller is not None:
            self._poller.stop()
