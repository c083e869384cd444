"""Which samplers and pollers telemetry reports on, and whether decisions are counted.

Every sampler built on the engine (DSampler, JaegerRemoteSampler, ...) and every remote
poller registers here (held weakly) when it is made; telemetry reads them through the
small protocols below, never their insides. Counting decisions costs the request path
a few increments, so whether a sampler counts is decided here, once, when it registers
(:func:`register`), and nothing on the request path ever asks: it counts from its first
decision when a MeterProvider that reports is the global one, or when OpenTelemetry's
SDK metrics are loaded (:func:`expected`: a provider is on its way, as the SDK's
configurator loads them before it makes the sampler and sets the provider after), or
once :func:`dsampler.telemetry.enable` was called; otherwise from the first collection
of a provider set later (:func:`count_everywhere`). The first DSampler also registers
the metric instruments on the global MeterProvider: the API's proxy hands them to the
provider set later; a no-op provider never calls them back.
"""

from __future__ import annotations

import itertools
import sys
import weakref
from typing import TYPE_CHECKING

from dsampler import _fork

if TYPE_CHECKING:
    from dsampler.telemetry._observed import Observed, ObservedPoller

__all__ = [
    "count_everywhere",
    "expected",
    "numbered",
    "pollers",
    "register",
    "register_poller",
    "sampler_id",
    "samplers",
]


_guard = _fork.ModuleLock()  # a metrics reader may hold it at a fork
_samplers: weakref.WeakValueDictionary[int, Observed] = weakref.WeakValueDictionary()
_numbers_of: weakref.WeakKeyDictionary[Observed, int] = weakref.WeakKeyDictionary()
_pollers: weakref.WeakSet[ObservedPoller] = weakref.WeakSet()
_numbers = itertools.count(1)
_state = {"counting": False, "instrumented": False}


def register(sampler: Observed) -> bool:
    """A new sampler: numbered (its ``dsampler.sampler`` attribute) and counted if
    telemetry is on. True for the first sampler of the process (whose registration
    instruments the global MeterProvider, :func:`dsampler.telemetry._track.track`)."""
    with _guard.lock:
        number = next(_numbers)
        _samplers[number] = sampler
        _numbers_of[sampler] = number
        first = not _state["instrumented"]
        _state["instrumented"] = True
        counting = _state["counting"]
    if counting or expected():
        sampler.count_decisions()
    return first


def expected() -> bool:
    """Whether a MeterProvider that reports is, or is about to be, the global one: one
    is (one of the SDK's, say: not the API's own proxy or no-op provider; then every new
    sampler counts), or OpenTelemetry's SDK metrics are loaded."""
    from opentelemetry import metrics

    provider = metrics.get_meter_provider()
    if not isinstance(provider, metrics.NoOpMeterProvider) and not type(provider).__module__.startswith(
        "opentelemetry.metrics."
    ):
        _state["counting"] = True
        return True
    return "opentelemetry.sdk.metrics" in sys.modules


def sampler_id(sampler: object) -> str:
    """The ``dsampler.sampler`` attribute of ``sampler``'s series ("" if not registered)."""
    with _guard.lock:
        number = _numbers_of.get(sampler)  # type: ignore[call-overload]
    return "" if number is None else str(number)


def register_poller(poller: ObservedPoller) -> None:
    with _guard.lock:
        _pollers.add(poller)


def count_everywhere() -> None:
    """Count decisions in every registered sampler from now on (idempotent)."""
    with _guard.lock:
        _state["counting"] = True
    for sampler in samplers():
        sampler.count_decisions()


def samplers() -> list[Observed]:
    """The live samplers, oldest first. Read under the lock that registrations hold: a
    weak dictionary is iterated in Python, so a reader collecting while another thread
    creates a DSampler would otherwise fail its callback ("dictionary changed size")."""
    return [s for _, s in numbered()]


def numbered() -> list[tuple[str, Observed]]:
    """The live samplers with their numbers (``dsampler.sampler``), oldest first."""
    with _guard.lock:
        live = list(_samplers.items())
    return [(str(n), s) for n, s in sorted(live, key=lambda item: item[0])]


def pollers() -> list[ObservedPoller]:
    with _guard.lock:
        return list(_pollers)
