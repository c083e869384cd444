"""A strategies file (or URL), reloaded when its bytes change, keeping the last good one: it
must be valid at start; a change is parsed once it has held still for one tick (a
half-written file is often valid); a reload that fails (a 503 too) keeps the strategies.
"""

from __future__ import annotations

import logging
import os
from typing import Final
from urllib.parse import urlsplit

from dsampler._poller import Poller
from dsampler._validate import check_seconds, redact_url
from dsampler.config import MAX_FILE_BYTES, Changes, Watched, describe, read_bytes
from dsampler.errors import ConfigError, FetchError
from dsampler.remote import HttpFetcher
from dsampler.serve._strategies import (
    DEFAULT_SAMPLING_PROBABILITY,
    FileFormat,
    Strategies,
    default_strategies,
    load_strategies,
)

_log = logging.getLogger("dsampler.serve")
DEFAULT_RELOAD_S: Final = 1.0
MAX_RELOAD_S: Final = 86400.0
URL_TIMEOUT_S: Final = 5.0


def count_services(strategies: Strategies) -> str:
    """``1 service``, ``2 services``: the services a file lists."""
    count = len(strategies.services)
    return f"{count} service" if count == 1 else f"{count} services"


def _is_url(path: str) -> bool:
    try:
        parts = urlsplit(path)
    except ValueError:  # "http://[::1": meant as a URL; HttpFetcher refuses it by name
        return path.lower().startswith(("http://", "https://"))
    return parts.scheme in ("http", "https") and bool(parts.netloc)


class StrategiesFile(Watched):
    """The strategies of ``path`` (None: probabilistic ``default_probability`` for all).

    Args:
        path: a Jaeger strategies file or a dsampler configuration file, or an
            ``http(s)://`` URL serving one.
        format: ``auto`` (default), ``jaeger`` or ``dsampler``.
        default_probability: Jaeger's default sampling probability (0.001).
        reload_interval_s: seconds between checks of the source; 0 never reloads.

    Raises:
        ConfigError: the source cannot be read or is invalid at start.
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
        #: how messages name the source: the path, a URL's credentials shown as ***
        self.name = "defaults" if self.path is None else redact_url(self.path)
        self.format: FileFormat = format
        self.default_probability = default_probability
        self.reload_interval_s = check_seconds(reload_interval_s, "reload_interval_s", 0.0, MAX_RELOAD_S)
        self._fetcher: HttpFetcher | None = None
        if self.path is not None and _is_url(self.path):
            self._fetcher = HttpFetcher(self.path, timeout_s=URL_TIMEOUT_S, max_bytes=MAX_FILE_BYTES)
        applied = None if self.path is None else self._read(self.path)
        self.current = self._load(applied)
        self._changes = Changes(applied, settle=self._fetcher is None)  # a response is whole
        self._report_warnings(self.current)
        self._poller: Poller | None = None
        if self.path is not None and self.reload_interval_s > 0:
            self._poller = Poller(self, self.reload_interval_s, name="dsampler-serve-reload")

    def _read(self, path: str) -> bytes | None:
        """The source's bytes; None when a URL answers 503 (no strategies)."""
        if self._fetcher is None:
            return read_bytes(path)
        try:
            return self._fetcher.get(path)
        except FetchError as exc:
            if exc.status == 503:
                return None
            raise ConfigError(self.name, str(exc)) from None

    def _load(self, data: bytes | None) -> Strategies:
        if data is None or self.path is None:
            if self.path is not None:
                _log.info("dsampler serve: %s has no strategies yet (503); serving the defaults", self.name)
            return default_strategies(self.default_probability)
        return load_strategies(
            data, self.name, format=self.format, default_probability=self.default_probability
        )

    def poll_once(self) -> bool:
        """Check the source once; True when new strategies are in force."""
        if self.path is None:
            return False
        try:
            data = self._read(self.path)
            if data is None:
                raise ConfigError(self.name, "HTTP 503: no strategies available")
        except ConfigError as exc:
            self._report(exc)
            return False
        strategies = self._changes.take(data, self._load, self._report)
        if strategies is None:
            return False
        self.current = strategies
        _log.info("dsampler serve: reloaded %s (%s)", self.name, count_services(strategies))
        self._report_warnings(strategies)
        return True

    def _report(self, exc: ConfigError) -> None:
        text = describe(self.name, exc)  # the file named once, as the watcher does
        if self._changes.problem(text):
            _log.warning("dsampler serve: keeping the strategies in force; %s", text)

    def _report_warnings(self, strategies: Strategies) -> None:
        for warning in strategies.warnings:
            _log.warning("dsampler serve: %s: %s", self.name, warning)

    def start(self) -> None:
        """Start reloading in a daemon thread (idempotent; no-op without reloading)."""
        if self._poller is not None:
            self._poller.start()

    def stop(self) -> None:
        """Stop reloading (idempotent)."""
        if self._poller is not None:
            self._poller.stop()
