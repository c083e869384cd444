"""Reload a configuration file when it changes, keeping the last good one otherwise;
tell what changed, and what can cut traces when children do not follow their parent.

A poll thread hashes the file's bytes; new content is parsed once it has held still for
one poll, and refused content is remembered by its hash and logged once per problem. The
path is resolved when the watcher is made; the thread restarts after ``os.fork()``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, TypeVar

from dsampler._log import QUIET_POLLS, ChangeReport
from dsampler._poller import Poller
from dsampler._validate import check_seconds
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.config._files import describe, parse_config_bytes, read_bytes
from dsampler.config._model import SamplingConfig
from dsampler.config._parse import SCALARS, serialize
from dsampler.config._rule import Sample
from dsampler.errors import ConfigError

_log = logging.getLogger("dsampler.config")
#: The files (by absolute path) whose configuration was said to cut traces: once each.
_CUTS_TOLD: set[str] = set()
T = TypeVar("T")

#: The problem :func:`read_at_start` logged per file (absolute path), so the watcher made
#: next for it does not log the same problem again.
_REPORTED_AT_START: dict[str, str] = {}


def _digest(data: bytes) -> bytes:
    import hashlib  # not at import time: it loads OpenSSL

    return hashlib.blake2b(data).digest()


class Changes:
    """Which content of a watched source is worth parsing, kept as hashes: not the one in
    force, not one refused already, and with ``settle`` only one unchanged since the
    previous poll (a file caught half-written is often valid). Counts the source's
    ``reloads`` and ``problems``; a problem is logged once until the source is good again.
    """

    __slots__ = (
        "_applied",
        "_last_problem",
        "_pending",
        "_rejected",
        "problems",
        "reloads",
        "settle",
    )

    def __init__(
        self,
        applied: bytes | None = None,
        rejected: bytes | None = None,
        *,
        settle: bool = True,
        reported: str | None = None,
    ):
        self._applied = None if applied is None else _digest(applied)
        self._rejected = None if rejected is None else _digest(rejected)
        self._pending: bytes | None = None  # a new content seen once, waiting to hold still
        self._last_problem = reported  # a problem logged already (at start) is not new
        self.settle = settle
        self.reloads = self.problems = 0

    def take(
        self, data: bytes, load: Callable[[bytes], T], report: Callable[[ConfigError], None]
    ) -> T | None:
        """What ``load`` makes of ``data`` if it is worth parsing now, as the new content
        in force; None otherwise. A refusal is remembered and reported."""
        digest = _digest(data)
        if digest == self._applied:
            self._pending = self._last_problem = None  # in force: whatever went wrong is over
            return None
        if digest == self._rejected:  # refused already, unchanged since: nothing to do
            return None
        if self.settle and digest != self._pending:  # changed since the last poll: let it hold still
            self._pending = digest
            return None
        try:
            value = load(data)
        except ConfigError as exc:
            self._rejected, self._pending = digest, None
            report(exc)
            return None
        self._applied, self._pending, self._last_problem = digest, None, None
        self.reloads += 1
        return value

    def problem(self, text: str) -> bool:
        """Count a problem (unreadable, refused); whether it differs from the last one."""
        self.problems += 1
        new, self._last_problem = text != self._last_problem, text
        return new


class Watched:
    """A watched source's reloads and problems, kept by its :class:`Changes`."""

    _changes: Changes

    @property
    def reloads(self) -> int:
        return self._changes.reloads

    @property
    def problems(self) -> int:
        return self._changes.problems


class FileWatcher(Watched):
    """Polls ``path`` every ``interval_s`` seconds and hands each new valid
    configuration to ``publish``.

    Each reload that changes the configuration is told at WARNING on ``dsampler.config``
    (``dsampler: reloaded PATH: version 4 in force; changed: rate 0.1 -> 0.05``), those
    within :data:`~dsampler._log.QUIET_POLLS` polls of a line in one line.

    Args:
        path: the configuration file.
        publish: called with each new, validated configuration.
        interval_s: seconds between polls (default 1).
        applied: raw bytes of the configuration already in force, if any.
        rejected: raw bytes already refused (by the caller, at start), if any.
        clock: times the quiet period between two lines.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        publish: Callable[[SamplingConfig], object],
        *,
        interval_s: float = 1.0,
        applied: bytes | None = None,
        rejected: bytes | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self._interval = check_seconds(interval_s, "poll_interval_s", 0.01, 86400.0)
        self.path = os.path.abspath(os.fspath(path))
        self._publish = publish
        self._changes = Changes(applied, rejected, reported=_REPORTED_AT_START.pop(self.path, None))
        self._told = ChangeReport(_log, QUIET_POLLS * self._interval, clock)
        self._before: SamplingConfig | bytes | None = applied  # parsed at the first reload
        self._poller = Poller(self, self._interval, name="dsampler-config-watch")

    def poll_once(self) -> bool:
        """Check the file once; True when a new configuration was published (at the
        second poll that sees a new content unchanged)."""
        self._told.flush()
        try:
            data = read_bytes(self.path)
        except ConfigError as exc:
            self._report(exc)
            return False
        return self._changes.take(data, self._apply, self._report) is not None

    def _apply(self, data: bytes) -> SamplingConfig:
        """The new configuration, published and told (as ``publish`` returned it, when
        that is a configuration or a snapshot of one)."""
        config = parse_config_bytes(data, self.path)
        published = self._publish(config)
        in_force = getattr(published, "config", published)
        in_force = in_force if isinstance(in_force, SamplingConfig) else config
        self._tell(config, in_force)
        return in_force

    def _tell(self, config: SamplingConfig, in_force: SamplingConfig) -> None:
        """Tell a reload that changed the file's configuration (only its form: DEBUG)."""
        before, self._before = self._before, config
        if isinstance(before, bytes):
            try:
                before = parse_config_bytes(before, self.path)
            except ConfigError:
                before = None
        changed = change_text(before, config) if before is not None else ""
        version = f": version {in_force.version} in force" if in_force.version else ""
        if before is not None and not changed:
            _log.debug("dsampler: reloaded %s%s: the same configuration", self.path, version)
            return
        self._told.changed(
            f"dsampler: reloaded {self.path}{version}" + (f"; changed: {changed}" if changed else "")
        )
        tell_cuts(self.path, in_force)

    def _report(self, exc: ConfigError) -> None:
        text = describe(self.path, exc)
        if self._changes.problem(text):
            _log.warning("dsampler: keeping the running configuration: %s", text)

    def start(self) -> None:
        """Start polling in a daemon thread (idempotent)."""
        self._poller.start()

    def stop(self) -> None:
        """Stop polling and wait for the thread (idempotent)."""
        self._poller.stop()

    @property
    def running(self) -> bool:
        return self._poller.running


class Start(NamedTuple):
    """The configuration to serve, the bytes in force and the bytes refused."""

    config: SamplingConfig
    applied: bytes | None
    rejected: bytes | None


def read_at_start(path: str | os.PathLike[str], overrides: Mapping[str, Any], *, strict: bool) -> Start:
    """The file's configuration with ``overrides``; when it is missing or invalid,
    raise (``strict``) or log it once and serve the defaults with ``overrides``.

    Raises:
        ConfigError: with ``strict``, the file is unusable.
    """
    data: bytes | None = None
    try:
        data = read_bytes(path)
        config = parse_config_bytes(data, os.fspath(path)).evolve(**overrides)
        tell_cuts(os.path.abspath(os.fspath(path)), config)
        return Start(config, data, None)
    except ConfigError as exc:
        if strict:
            raise
        name = os.fspath(path)
        _log.warning("dsampler: the defaults serve until the file is valid: %s", describe(name, exc))
        absolute = os.path.abspath(name)  # as the watcher names it, and its problem
        named = ConfigError.of(
            [ConfigError(absolute if e.field == name else e.field, e.problem) for e in exc.errors]
        )
        _REPORTED_AT_START[absolute] = describe(absolute, named)
        return Start(SamplingConfig().evolve(**overrides), None, data)


def change_text(old: SamplingConfig, new: SamplingConfig) -> str:
    """The fields that differ, in the file's words: ``rate 0.1 -> 0.05, rules``
    (a scalar with its two values, a section or list by its name); empty if none."""
    before, after = serialize(old), serialize(new)
    changed = (
        f"{key} {_shown(before[key])} -> {_shown(value)}" if key in SCALARS else key
        for key, value in after.items()
        if before[key] != value
    )
    return ", ".join(changed)


def _shown(value: object) -> str:
    """A scalar as the file writes it: ``true``, ``null``, ``0.05``."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    return f"{value:g}" if isinstance(value, float) else str(value)


def trace_cuts(config: SamplingConfig) -> str | None:
    """What in ``config`` decides a span by more than its trace ID and the one default
    rate, when ``parent_based`` is false (so spans of one trace may be decided
    differently: a child lost, or exported without its root); None when nothing can."""
    if config.parent_based:
        return None
    rate, operations = config.rate, config.operations.values()
    cuts = {
        "rules": any(not (isinstance(r.action, Sample) and r.action.rate == rate) for r in config.rules),
        "per-operation rates": any(s.rate != rate or s.lower_bound_per_second for s in operations),
        "a lower bound per operation": config.default_lower_bound_per_second > 0,
        "a traces-per-second cap": config.traces_per_second is not None,
        "an adaptive rate": config.adaptive is not None,
        "a remote endpoint's strategies": config.remote is not None,
    }
    found = [text for text, present in cuts.items() if present]
    if not found:
        return None
    return found[0] if len(found) == 1 else f"{', '.join(found[:-1])} and {found[-1]}"


def tell_cuts(path: str, config: SamplingConfig) -> None:
    """Say at WARNING, once per file, that the configuration ``path`` put in force can
    cut traces (:func:`trace_cuts`), and how to keep them whole."""
    cuts = trace_cuts(config)
    if cuts is None or path in _CUTS_TOLD:
        return
    _CUTS_TOLD.add(path)
    _log.warning(
        "dsampler: %s: parent_based is false and it has %s: every span is decided by its "
        "own name and attributes, not by its parent's decision, so traces can lose spans "
        "(children of sampled roots dropped, children of dropped roots exported alone); "
        "write parent_based: true in %s to keep traces whole",
        path,
        cuts,
        path,
    )
