"""AdaptiveController: the threads, clock and sampler around a
:class:`~dsampler.adaptive.ControllerCore`. Bound to a sampler, its rate is that
sampler's ``adaptive`` overlay: it writes the overlay, it never calls the sampler.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, Final, Protocol, cast

from dsampler import _fork
from dsampler._poller import Poller
from dsampler.adaptive._core import Change, ControllerCore
from dsampler.adaptive._health import Incidents
from dsampler.adaptive._host import HostShare
from dsampler.adaptive._tap import Observations, Tap
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.config import AdaptiveSettings, Overlay, settings_with
from dsampler.engine import EngineSampler
from dsampler.errors import ConfigError
from dsampler.telemetry import AdjustedCounts

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from dsampler.adaptive._processor import AdaptiveSpanProcessor
    from dsampler.config import AdaptiveChanges, AdaptiveKeywords, SamplingConfig, SettingsKeywords
    from dsampler.engine import Engine


#: The overlay name the controller's fields are held under.
ADAPTIVE: Final = "adaptive"


class Publisher(Protocol):
    """Where a bound controller's ``adaptive:`` section is published: its engine's driver
    (a DSampler, whose update also steps the owners), else the engine itself."""

    def update(self, **changes: Unpack[SettingsKeywords]) -> SamplingConfig: ...


class AdaptiveController:
    """Holds sampled root traces per second near a target while load and latency move.

    Args:
        target_traces_per_second: the target, or a whole
            :class:`~dsampler.config.AdaptiveSettings`.
        sampler: the :class:`~dsampler.DSampler` whose default rate it owns; the
            settings are published into its configuration (``adaptive:``). Without
            one, read :attr:`rate` yourself.
        clock: time source; inject a :class:`~dsampler.ManualClock` to step it with
            :meth:`tick` deterministically.
        ticker: run a thread that ticks every ``tick_s`` (default: on the system clock
            only).
        start: start that thread now (default True; a DSampler starts the controller
            it creates once its configuration is published).
        **settings: fields of :class:`~dsampler.config.AdaptiveSettings` (``window_s=5``,
            ``health=None``, ``hard_cap_factor=None`` ...).

    Raises:
        ConfigError: a setting is invalid, or ``sampler`` is not a DSampler.
    """

    def __init__(
        self,
        target_traces_per_second: float | AdaptiveSettings,
        *,
        sampler: object = None,  # a DSampler (checked: adopt_controller)
        clock: Clock = SYSTEM_CLOCK,
        ticker: bool | None = None,
        start: bool = True,
        **settings: Unpack[AdaptiveKeywords],
    ) -> None:
        self.settings = settings_with(target_traces_per_second, settings)
        self._clock = clock
        self._ticker = clock is SYSTEM_CLOCK if ticker is None else ticker
        self.tap = Tap(None)
        self.tap.limit(self.settings, clock)
        self.core = ControllerCore(self.settings, clock.monotonic())  # the state machine it steps
        self._incidents = Incidents()  # the health policy's cuts, told
        self._observed = Observations()
        self._guard = _fork.ModuleLock()  # fresh in a forked child
        self._overlay: Overlay | None = None
        self._engine: weakref.ref[Engine] | None = None  # what it is bound to
        self._poller: Poller | None = None
        self._host = HostShare(clock)  # its slot on this host (share: host)
        self.adjusted = AdjustedCounts()  # sampled roots by their th (span_processor)
        if sampler is not None:
            adopt = getattr(sampler, "adopt_controller", None)
            if not callable(adopt):
                raise ConfigError("sampler", f"expected a DSampler, got {type(sampler).__name__}")
            adopt(self)
        if start:
            self.start()

    # -- where the rate goes -------------------------------------------------------------

    def bind(self, engine: Engine | EngineSampler | None) -> None:
        """Own ``engine``'s default rate from now on: its rate, now and at every change,
        is the engine's ``adaptive`` overlay, which carries :attr:`tap` (the engine
        counts the offered load and applies the hard cap). An overlay of another owner
        that holds the name is retired; its fields stay until this one's are in force.
        A DSampler: its engine. None: nowhere (the rate is still :attr:`rate`; the
        ticker stops)."""
        if isinstance(engine, EngineSampler):
            engine = engine.engine
        if engine is None:
            self._share(None)
            if self._overlay is not None:
                self._overlay.retire()
            self._overlay = self._engine = None
            if self._poller is not None:
                self._poller.stop(timeout_s=0.0)  # may be called under its sampler's lock: no waiting
            return
        held = engine.holder(ADAPTIVE)
        if self._overlay is None or held is not self._overlay or held.retired:
            if held is not None:
                held.retire()
            self._overlay = engine.overlay(ADAPTIVE, tap=self.tap)
        self._engine = weakref.ref(engine)
        self._share(engine)
        self._publish()

    def _share(self, engine: Engine | None) -> None:
        """With ``share: host``, a slot of the host's table (joining, its peers' rate)."""
        with self._guard.lock:
            if (rate := self._host.follow(self.settings, engine, self.rate)) is not None:
                self.core.rate = rate
            self.tap.limit(self.settings, self._clock, self._host.applied)

    @property
    def overlay(self) -> Overlay | None:
        """The overlay it writes to (None: unbound)."""
        return self._overlay

    # -- inputs --------------------------------------------------------------------------

    def observe(self, duration_s: float, error: bool = False) -> None:
        """One root span (or request) took ``duration_s`` seconds, and failed if
        ``error``. Cheap and thread-safe (an append); read at the next tick."""
        self._observed.pending.append((duration_s, error))

    def span_processor(self) -> AdaptiveSpanProcessor:
        """A SpanProcessor that observes every local root span the SDK records."""
        from dsampler.adaptive._processor import AdaptiveSpanProcessor

        return AdaptiveSpanProcessor(self, self.adjusted)

    # -- the loop ------------------------------------------------------------------------

    def tick(self) -> Change | None:
        """Read the counters, step the core and publish a change (the ticker thread
        calls this every ``tick_s``; call it yourself on an injected clock)."""
        with self._guard.lock:
            latencies, errors = self._observed.drain()
            now, core = self._clock.monotonic(), self.core
            offered = self._host.exchange(now, self.tap.take(), core.rate)  # the host's (share: host)
            change = core.step(now, offered, latencies, errors)
            if (share := self._host.resized()) is not None:  # the engine's limits follow
                self.tap.limit(self.settings, self._clock, share)
        self._incidents.follow(now, core.health, core.episode, core.history, self.settings.p99_target_s)
        if change is not None:
            self._publish()
        return change

    poll_once = tick  # what the ticker thread calls

    def _publish(self) -> None:
        overlay = self._overlay
        if overlay is not None:
            overlay.set({"rate": self.core.rate})  # what it owns of a configuration

    def start(self) -> None:
        """Start the ticker thread, if this controller runs one (idempotent; after
        :meth:`stop`, nothing)."""
        if self._ticker:
            if self._poller is None:  # one: in a forked child, it restarts itself too
                self._poller = Poller(self, self.settings.tick_s, name="dsampler-adaptive")
            self._poller.start()

    def stop(self) -> None:
        """Stop the ticker thread for good (idempotent). The rate in force stays;
        :meth:`tick` still works by hand."""
        self._ticker = False
        if self._poller is not None:
            self._poller.stop()
        self._share(None)

    close = stop

    # -- settings ------------------------------------------------------------------------

    def reconfigure(self, **changes: Unpack[AdaptiveChanges]) -> AdaptiveSettings:
        """New settings (fields of AdaptiveSettings); the load estimate carries over.
        Bound, they are its sampler's ``adaptive:`` section, published as an update.

        Raises:
            ConfigError: an invalid value; the settings in force stay.
        """
        settings = settings_with(self.settings, changes)
        engine = None if self._engine is None else self._engine()
        if engine is not None:  # the section in force configures this controller
            cast("Publisher", engine.driver or engine).update(adaptive=settings)
        else:
            self.configure(settings)
        return self.settings

    def configure(self, settings: AdaptiveSettings) -> None:
        """Take whole new ``settings`` (the load estimate carries over): what a
        DSampler does when its ``adaptive:`` section changes."""
        with self._guard.lock:
            old, self.settings = self.settings, settings
            self.core.reconfigure(settings)
            self.tap.limit(settings, self._clock, self._host.applied)
        if settings.tick_s != old.tick_s and self._poller is not None:
            running, poller, self._poller = self._poller.running, self._poller, None
            poller.stop(timeout_s=0.0)
            if running:
                self.start()

    # -- state ---------------------------------------------------------------------------

    @property
    def rate(self) -> float:
        """The rate in force (what the DSampler's default rate is)."""
        return self.core.rate

    @property
    def window_s(self) -> float:
        return self.core.window_s

    @property
    def qps(self) -> float | None:
        """Offered load: root decisions per second at the default rate, as counted."""
        return self.core.qps

    @property
    def episode(self) -> bool:
        """Root-span P99 is above its target (a latency episode is on)."""
        return self.core.episode

    @property
    def rejected(self) -> int:
        """Observations that were not a duration."""
        return self._observed.rejected

    def stats(self) -> dict[str, Any]:
        """The state in one mapping (for metrics, logs and the CLI)."""
        core = self.core
        return {
            "rate": core.rate,
            "qps": core.qps,
            "window_s": core.window_s,
            "factor": core.law.factor,
            "episode": core.episode,
            "multiplier": core.multiplier,
            "changes": core.changes,
            "load_changes": core.regimes,
            "offered": self.tap.total,
            # every strategy's sampled roots, by their th: sum of 1/p, and those without th
            "offered_by_th": self.adjusted.weighted,
            "offered_by_th_se": self.adjusted.standard_error,
            "sampled_without_th": self.adjusted.unstated,
            "observed": core.observed,
            "errors": core.errors,
            "rejected_observations": self._observed.rejected,
            **self._host.stats(),  # share: host
        }


def running_controller(controller: AdaptiveController | None, engine: Engine) -> AdaptiveController | None:
    """The controller of ``engine``'s ``adaptive:`` section in force, from ``controller``
    (the one it has, if any): made if missing (at ``max_rate``, its overlay published),
    reconfigured if the section changed, unbound if the section is gone. Idempotent;
    starting its thread is the caller's."""
    settings = engine.config.adaptive
    if settings is None:
        if controller is not None:
            controller.bind(None)
        return None
    if controller is None:
        controller = AdaptiveController(settings, clock=engine.clock, start=False)
    elif settings != controller.settings:
        controller.configure(settings)
    controller.bind(engine)
    return controller
