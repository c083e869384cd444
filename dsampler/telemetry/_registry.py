"""Which samplers and pollers telemetry reports on (held weakly), and whether decisions
are counted: decided once, when a sampler registers, so nothing on the request path ever
asks. A sampler counts from its first decision when a reporting MeterProvider is, or is
about to be, the global one (:func:`expected`), or once telemetry is enabled; otherwise
from the first collection of a provider set later (:func:`count_everywhere`).
"""

from __future__ import annotations

import itertools
import sys
import weakref
from typing import TYPE_CHECKING

from dsampler import _fork
from dsampler.engine import EngineSampler

if TYPE_CHECKING:
    from dsampler.telemetry._observed import Observed, ObservedPoller


_guard = _fork.ModuleLock()  # a metrics reader may hold it at a fork
_samplers: weakref.WeakValueDictionary[int, Observed] = weakref.WeakValueDictionary()
_numbers_of: weakref.WeakKeyDictionary[Observed, int] = weakref.WeakKeyDictionary()
_pollers: weakref.WeakSet[ObservedPoller] = weakref.WeakSet()
_numbers = itertools.count(1)
_state = {"counting": False, "instrumented": False}


def register(sampler: Observed) -> bool:
    """A new sampler: numbered once and counted if telemetry is on. True for the first
    sampler of the process (which instruments the global MeterProvider)."""
    with _guard.lock:
        if sampler not in _numbers_of:
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
    """Whether a MeterProvider that reports is the global one (not the API's proxy or
    no-op provider), or is on its way (OpenTelemetry's SDK metrics are loaded)."""
    from opentelemetry import metrics

    provider = metrics.get_meter_provider()
    if not isinstance(provider, metrics.NoOpMeterProvider) and not type(provider).__module__.startswith(
        "opentelemetry.metrics."
    ):
        _state["counting"] = True
        return True
    return "opentelemetry.sdk.metrics" in sys.modules


def sampler_id(sampler: object) -> str:
    """The ``dsampler.sampler`` attribute of ``sampler``'s series, a DSampler's its
    engine's ("" if not registered)."""
    if isinstance(sampler, EngineSampler):
        sampler = sampler.engine
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
    for _, sampler in numbered():
        sampler.count_decisions()


def numbered() -> list[tuple[str, Observed]]:
    """The live samplers with their numbers, oldest first."""
    with _guard.lock:  # a weak dictionary is iterated in Python: registrations must wait
        live = list(_samplers.items())
    return [(str(n), s) for n, s in sorted(live, key=lambda item: item[0])]


def pollers() -> list[ObservedPoller]:
    with _guard.lock:
        return list(_pollers)
