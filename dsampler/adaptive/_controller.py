"""AdaptiveController: "keep about 50 traces per second" instead of guessing a rate.

The controller counts the root decisions its sampler makes at the default rate (one
list append per decision, see :mod:`dsampler.adaptive._tap`), takes root-span
latencies and errors from :meth:`AdaptiveController.observe` or its span processor,
and every ``tick_s`` (a background thread on the system clock;
:meth:`~AdaptiveController.tick` by hand on an injected one) steps its
:class:`~dsampler.adaptive.ControllerCore`. Bound to an overlay (:meth:`bind`: a
DSampler binds the controller of its ``adaptive:`` section), each rate change is set as
that overlay (``rate`` and ``adaptive``), a new configuration version, so every
decision is made under one whole configuration; a token bucket at ``hard_cap_factor *
target`` (the hard cap) bounds what one tick of a burst can sample before the new rate
is in force. The controller never calls its sampler: it writes its overlay. The health
policy's cuts of the rate are told at WARNING (:class:`~dsampler.adaptive._health.Incidents`).
The budget is per process: under gunicorn each worker holds its own controller.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import deque
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, Protocol

from dsampler import _fork
from dsampler._poller import Poller
from dsampler.adaptive._core import Change, ControllerCore
from dsampler.adaptive._health import Incidents
from dsampler.adaptive._tap import Tap
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.config._adaptive import AdaptiveSettings
from dsampler.config._overlay import Overlay
from dsampler.config._shape import no_unknown_keys
from dsampler.decision._bucket import TokenBucket
from dsampler.errors import ConfigError
from dsampler.telemetry._adjusted import AdjustedCounts

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from dsampler.adaptive._processor import AdaptiveSpanProcessor
    from dsampler.config._keywords import AdaptiveChanges, AdaptiveKeywords

__all__ = ["ADAPTIVE", "AdaptiveController", "Host"]

#: The overlay name the controller's fields are held under.
ADAPTIVE: Final = "adaptive"

MAX_PENDING: Final = 100_000  # observations held between ticks (1M/s at 100 ms ticks)
_FIELDS: Final = tuple(f.name for f in dataclasses.fields(AdaptiveSettings))


def _settings(base: float | AdaptiveSettings, changes: Mapping[str, Any]) -> AdaptiveSettings:
    """``base`` (a target or whole settings) with ``changes``. A misspelt setting is a
    ConfigError naming it, with a suggestion, as a file's unknown key is: not the
    TypeError of a dataclass constructor, which callers that catch ConfigError miss."""
    no_unknown_keys(changes, _FIELDS, "")
    if isinstance(base, AdaptiveSettings):
        return dataclasses.replace(base, **changes)
    return AdaptiveSettings(base, **changes)


class Host(Protocol):
    """What a controller can be handed to at construction (``sampler=``): a
    :class:`~dsampler.DSampler`, which makes it the controller of its ``adaptive:``
    section and binds it to its overlay."""

    def adopt_controller(self, controller: AdaptiveController) -> None: ...


def _backstop(settings: AdaptiveSettings, clock: Clock) -> TokenBucket | None:
    cap = settings.hard_cap_per_second
    if cap is None:
        return None
    return TokenBucket(cap, max(1.0, cap * settings.hard_cap_burst_s), clock=clock)


class AdaptiveController:
    """Holds sampled root traces per second near a target while load and latency move.

    Args:
        target_traces_per_second: the target, or a whole
            :class:`~dsampler.config.AdaptiveSettings`.
        sampler: the :class:`~dsampler.DSampler` whose default rate it owns; the
            settings are published into its configuration (``adaptive:``). Without
            one, read :attr:`rate` yourself, or :meth:`bind` an overlay.
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
        sampler: Host | None = None,
        clock: Clock = SYSTEM_CLOCK,
        ticker: bool | None = None,
        start: bool = True,
        **settings: Unpack[AdaptiveKeywords],
    ) -> None:
        chosen = _settings(target_traces_per_second, settings)
        self._setup(chosen, clock, clock is SYSTEM_CLOCK if ticker is None else ticker)
        if sampler is not None:
            adopt = getattr(sampler, "adopt_controller", None)
            if not callable(adopt):
                raise ConfigError("sampler", f"expected a DSampler, got {type(sampler).__name__}")
            adopt(self)
        if start:
            self.start()

    def _setup(self, settings: AdaptiveSettings, clock: Clock, ticker: bool) -> None:
        self.settings = settings
        self._clock, self._ticker = clock, ticker
        self.tap = Tap(_backstop(settings, clock))
        self._core = ControllerCore(settings, clock.monotonic())
        self._incidents = Incidents()  # the health policy's cuts, told
        self._observed: deque[tuple[float, bool]] = deque(maxlen=MAX_PENDING)
        self._lock = threading.Lock()
        self._overlay: Overlay | None = None
        self._poller: Poller | None = None
        self.rejected = 0  # observations that were not a duration
        self.adjusted = AdjustedCounts()  # sampled roots by their th (span_processor)
        _fork.register(self._reset_after_fork)

    # -- where the rate goes -------------------------------------------------------------

    def fields(self) -> dict[str, Any]:
        """What it owns of a configuration: the rate in force and its settings."""
        return {"rate": self._core.rate, "adaptive": self.settings}

    def bind(self, overlay: Overlay | None) -> None:
        """Set every rate change as ``overlay`` from now on (None: nowhere; the rate is
        still :attr:`rate`). The overlay should carry :attr:`tap`, so its engine counts
        the offered load and applies the hard cap."""
        self._overlay = overlay
        if overlay is None and self._poller is not None:
            self._poller.stop(timeout_s=0.0)  # may be called under its sampler's lock: no waiting

    @property
    def overlay(self) -> Overlay | None:
        """The overlay it writes to (None: unbound)."""
        return self._overlay

    # -- inputs --------------------------------------------------------------------------

    def observe(self, duration_s: float, error: bool = False) -> None:
        """One root span (or request) took ``duration_s`` seconds, and failed if
        ``error``. Cheap and thread-safe (an append); read at the next tick."""
        self._observed.append((duration_s, error))

    def span_processor(self) -> AdaptiveSpanProcessor:
        """A SpanProcessor that observes every local root span the SDK records."""
        from dsampler.adaptive._processor import AdaptiveSpanProcessor

        return AdaptiveSpanProcessor(self, self.adjusted)

    def _drain(self) -> tuple[list[float], int]:
        latencies: list[float] = []
        errors = 0
        pop = self._observed.popleft
        for _ in range(len(self._observed)):
            duration, error = pop()
            if type(duration) in (float, int) and duration >= 0.0:  # NaN and junk fail
                try:  # a 10**400 int overflows float(); an error flag's __bool__ may raise
                    latency, failed = float(duration), bool(error)
                except Exception:
                    self.rejected += 1
                    continue
                latencies.append(latency)
                errors += failed
            else:
                self.rejected += 1
        return latencies, errors

    # -- the loop ------------------------------------------------------------------------

    def tick(self) -> Change | None:
        """Read the counters, step the core and publish a change (the ticker thread
        calls this every ``tick_s``; call it yourself on an injected clock)."""
        with self._lock:
            latencies, errors = self._drain()
            now, core = self._clock.monotonic(), self._core
            change = core.step(now, self.tap.take(), latencies, errors)
        self._incidents.follow(now, core.health, core.episode, core.history, self.settings.p99_target_s)
        if change is not None:
            self._publish()
        return change

    poll_once = tick  # what the ticker thread calls

    def _publish(self) -> None:
        overlay = self._overlay
        if overlay is not None:
            overlay.set(self.fields())

    def start(self) -> None:
        """Start the ticker thread, if this controller runs one (idempotent; after
        :meth:`stop`, nothing)."""
        if self._ticker and (self._poller is None or not self._poller.running):
            self._poller = Poller(self, self.settings.tick_s, name="dsampler-adaptive")
            self._poller.start()

    def stop(self) -> None:
        """Stop the ticker thread for good (idempotent). The rate in force stays;
        :meth:`tick` still works by hand."""
        self._ticker = False
        if self._poller is not None:
            self._poller.stop()

    close = stop

    def _reset_after_fork(self) -> None:
        self._lock = threading.Lock()

    # -- settings ------------------------------------------------------------------------

    def reconfigure(self, **changes: Unpack[AdaptiveChanges]) -> AdaptiveSettings:
        """New settings (fields of AdaptiveSettings); the load estimate carries over.
        Bound, they are published in its overlay with the rate.

        Raises:
            ConfigError: an invalid value; the settings in force stay.
        """
        self.configure(_settings(self.settings, changes))
        self._publish()
        return self.settings

    def configure(self, settings: AdaptiveSettings) -> None:
        """Take whole new ``settings`` (the load estimate carries over) without
        publishing them: what a DSampler does when its ``adaptive:`` section changes,
        before it publishes the new configuration with :meth:`fields`."""
        with self._lock:
            old, self.settings = self.settings, settings
            self._core.reconfigure(settings)
            cap, bucket = settings.hard_cap_per_second, self.tap.backstop
            if cap is None or bucket is None:
                self.tap.backstop = _backstop(settings, self._clock)
            else:
                bucket.update(cap, max(1.0, cap * settings.hard_cap_burst_s))
        if settings.tick_s != old.tick_s and self._poller is not None and self._poller.running:
            self._poller.stop(timeout_s=0.0)
            self.start()

    # -- state ---------------------------------------------------------------------------

    @property
    def rate(self) -> float:
        """The rate in force (what the DSampler's default rate is)."""
        return self._core.rate

    @property
    def window_s(self) -> float:
        return self._core.window_s

    @property
    def qps(self) -> float | None:
        """Offered load: root decisions per second at the default rate, as counted."""
        return self._core.qps

    @property
    def episode(self) -> bool:
        """Root-span P99 is above its target (a latency episode is on)."""
        return self._core.episode

    @property
    def core(self) -> ControllerCore:
        return self._core

    def stats(self) -> dict[str, Any]:
        """The state in one mapping (for metrics, logs and the CLI)."""
        core = self._core
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
            "rejected_observations": self.rejected,
        }
