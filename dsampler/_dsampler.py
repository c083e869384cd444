"""DSampler: every strategy over one configuration store, changed at run time."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from opentelemetry.context import Context
from opentelemetry.sdk.trace.sampling import SamplingResult
from opentelemetry.trace import Link, Span, SpanKind
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

from dsampler import _fork
from dsampler._owners import Owners
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.config._model import SamplingConfig
from dsampler.config._parse import as_config, parse_config, parse_fields
from dsampler.config._store import DEFAULT_HISTORY, ConfigStore
from dsampler.config._watch import FileWatcher, read_at_start
from dsampler.decision._context import DEFAULT_TRACE_STATE, SPAN_KEY, current_context
from dsampler.decision._faults import FaultCountingSampler, FaultLog, integer_value
from dsampler.decision._following import FOLLOW, Follower
from dsampler.decision._results import DROPPED, Results
from dsampler.engine._compile import compile_snapshot
from dsampler.engine._counts import DEFAULT, Stats
from dsampler.engine._runtime import Runtime, resource_attributes
from dsampler.engine._snapshot import Snapshot
from dsampler.hashing._loader import LOADER
from dsampler.hashing._reference import MASK64
from dsampler.hashing._schemes import MASK128

if TYPE_CHECKING:
    from opentelemetry.sdk.resources import Resource

    from dsampler.adaptive._controller import AdaptiveController

__all__ = ["DSampler"]

_log = logging.getLogger("dsampler.config")


class DSampler(FaultCountingSampler):
    """The sampler to reach for: default rate, per-operation strategies, ordered rules,
    a global traces-per-second cap and parent-based sampling, all in one configuration
    that can change while traffic flows.

    Every decision reads the current snapshot once (one reference load, no lock) and
    decides under that whole snapshot. Updates (:meth:`update`, :meth:`rollback`, a file
    reload) build the next snapshot completely and publish it atomically; invalid input
    raises :class:`~dsampler.ConfigError` and leaves the running snapshot in force.

    Args:
        config: a :class:`SamplingConfig`, a mapping in the file format, or None for
            the defaults.
        resource: this process's resource (for rules that match resource attributes);
            default ``Resource.create()``, which reads ``OTEL_RESOURCE_ATTRIBUTES``.
        clock: time source for rate limits and rollouts.
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
        **settings: Any,
    ) -> None:
        base = as_config(config)
        if settings:
            base = parse_config(settings, base=base)
        self._runtime = Runtime(clock, resource_attributes(resource), initial_fill)
        self._owners = Owners(clock)
        self._store: ConfigStore[Snapshot] = ConfigStore(self._compile, base, history=history)
        self._follower = Follower()
        self._fault_log = FaultLog("DSampler")
        self._watcher: FileWatcher | None = None
        self._telemetry_id = ""  # its number in telemetry's registry (dsampler.sampler)
        _fork.register(self)
        LOADER.ensure_started()
        self._owners.start()
        from dsampler.telemetry._registry import register  # counts once metrics are collected

        register(self)

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
        **settings: Any,
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
            store = sampler._store
            sampler._watcher = FileWatcher(
                path,
                lambda new: store.publish(new.evolve(**overrides)),
                interval_s=poll_interval_s,
                applied=start.applied,
                rejected=start.rejected,
            )
            sampler._watcher.start()
        return sampler

    def _compile(self, config: SamplingConfig) -> Snapshot:
        previous = self._store.current if hasattr(self, "_store") else None  # None while constructing
        config = self._owners.apply(self, config, started=previous is not None)
        return compile_snapshot(config, previous, self._runtime)

    def _count_decisions(self) -> None:
        """Begin counting decisions (telemetry is on): the current configuration is
        compiled again with counts, as the same version. Idempotent."""
        if self._runtime.stats is None:
            self._runtime.stats = Stats()
            self._store.refresh()

    def _reset_after_fork(self) -> None:
        """Nothing of its own to replace: its store, watchers and buckets reset themselves."""

    def _restart_after_fork(self) -> None:
        """In a child of ``os.fork()``: every limit is exactly its configuration's, even
        if the fork interrupted a publish between changing a bucket's rate and
        publishing the snapshot that goes with it. The fork's second pass: every bucket
        has its baton back by then, so no update here waits for one."""
        for bucket, per_second in self._store.current.limits():
            bucket.update(per_second)

    @property
    def config(self) -> SamplingConfig:
        """The configuration in force, with its ``version``."""
        return self._store.current.config

    @property
    def controller(self) -> AdaptiveController | None:
        """The adaptive controller of the ``adaptive:`` section (None without one)."""
        return self._owners.controller

    @property
    def rate_owner(self) -> str | None:
        """What owns the default rate: ``adaptive``, ``remote``, or None (the
        configuration's own)."""
        return self._owners.rate_owner

    @property
    def history(self) -> tuple[SamplingConfig, ...]:
        """The last published configurations, oldest first."""
        return self._store.history

    @property
    def watcher(self) -> FileWatcher | None:
        """The file watcher of :meth:`from_file` (``poll_once()`` checks the file now)."""
        return self._watcher

    def update(self, **changes: Any) -> SamplingConfig:
        """Publish the current configuration with ``changes`` (file-format values):
        ``sampler.update(rate=0.02)``. All or nothing.

        Raises:
            ConfigError: a change is invalid; the running configuration stays.
        """
        return self._store.evolve(parse_fields(changes)).config

    def publish(self, config: SamplingConfig | Mapping[str, Any]) -> SamplingConfig:
        """Replace the whole configuration (a mapping is parsed as a file would be)."""
        return self._store.publish(as_config(config)).config

    def rollback(self, version: int) -> SamplingConfig:
        """Publish the content of an earlier version again, as a new version.

        Raises:
            ConfigError: that version is no longer in :attr:`history`.
        """
        return self._store.rollback(version).config

    def close(self) -> None:
        """Stop watching the file, the adaptive controller's and the remote poller's
        threads (idempotent). Decisions keep working, at the rate last in force."""
        if self._watcher is not None:
            self._watcher.stop()
        self._owners.close()

    def should_sample(  # noqa: PLR0911, PLR0912 -- the request path, inline on purpose: a call costs more than a branch
        self,
        parent_context: Context | None,
        trace_id: int,
        name: str,
        kind: SpanKind | None = None,
        attributes: Attributes = None,
        links: Sequence[Link] | None = None,
        trace_state: TraceState | None = None,
    ) -> SamplingResult:
        snap = self._store.current  # the one read of the snapshot
        try:
            span: Span | None = (parent_context if parent_context is not None else current_context()).get(
                SPAN_KEY
            )  # type: ignore[assignment]
            ts = None
            if span is not None:
                sc = span.get_span_context()
                if sc.is_valid:
                    if snap.parent_based:
                        case: int = 2 * sc.is_remote + (sc.trace_flags & 1)
                        tally = snap.parent_tally
                        if tally is not None:  # telemetry on (samplers/_counts.py)
                            tally[case & 1] += 1
                        if not attributes and sc.trace_state is DEFAULT_TRACE_STATE:
                            return FOLLOW[case]
                        return self._follower.follow(case, FOLLOW[case].decision, attributes, sc.trace_state)
                    ts = None if sc.trace_state is DEFAULT_TRACE_STATE else sc.trace_state
            if not snap.simple:
                return snap.decide_root(trace_id, name, kind, attributes, ts)
            d = snap.default  # inline: a snapshot of one rate costs what a RatioSampler does
            of_bytes = d.scheme.of_bytes  # xxh3's C entry over the 16 bytes, else None
            sampled = (
                of_bytes((trace_id & MASK128).to_bytes(16, "big"))
                if of_bytes is not None
                else d.scheme.key((trace_id >> 64) & MASK64, trace_id & MASK64)
            ) < d.bound
            offered = snap.offered  # counted once the ID is hashed: a numpy int comes back
            if offered is not None:  # as an int through _fallback and is counted there
                offered.append(None)  # the adaptive controller counts: one append, no lock
            tally = snap.default_tally
            if tally is not None:  # telemetry on (samplers/_counts.py); constant indexes are fastest
                if sampled:
                    tally[1] += 1
                else:
                    tally[0] += 1
            if not sampled:
                return DROPPED if ts is None else Results.drop(ts)
            if offered is not None:  # the controller's hard cap has the last word
                if len(offered) > snap.fold_at:  # nothing has counted for long: bound the memory
                    snap.fold()
                backstop = snap.backstop
                if backstop is not None and not backstop.try_acquire():
                    return snap.capped(DEFAULT, ts)
            return d.results.sampled if not attributes and ts is None else d.results.sample(attributes, ts)
        except Exception:
            return self._fallback(snap, parent_context, trace_id, name, kind, attributes, links)

    def _fallback(
        self,
        snap: Snapshot,
        parent_context: Context | None,
        trace_id: object,
        name: str,
        kind: SpanKind | None,
        attributes: Attributes,
        links: Sequence[Link] | None,
    ) -> SamplingResult:
        """After an exception: numpy's integers are decided as the int they are, on every
        path; anything else is a fault, decided by the last good rule on the ID alone."""
        as_int = integer_value(trace_id)
        if as_int is not None:
            return self.should_sample(parent_context, as_int, name, kind, attributes, links)
        self._fault_log.record()
        return snap.default.on_trace_id(trace_id)

    def explain(
        self, trace_id: int, name: str, kind: SpanKind | None = None, attributes: Attributes = None
    ) -> dict[str, Any]:
        """How a root span would be decided now, without spending any token: the rule or
        operation that decides it, and for hash decisions the key and the bound."""
        snap = self._store.current
        decider = snap.route(name, kind, attributes)
        return {"version": snap.config.version, "source": decider.source, **decider.explain(trace_id)}

    def get_description(self) -> str:
        c = self._store.current.config
        return (
            f"DSampler{{version={c.version},rate={c.rate},hash={c.hash},parent_based={c.parent_based},"
            f"rules={len(c.rules)},operations={len(c.operations)}}}"
        )
