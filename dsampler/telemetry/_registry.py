"""Which samplers and pollers telemetry reports on, and whether decisions are counted.

Every DSampler and remote poller registers here (held weakly) when it is made. Counting
decisions costs the request path a few increments, so it is off until someone reads
the figures: :func:`count_everywhere` turns it on for every sampler, now and later. It
is called by :func:`dsampler.telemetry.enable` and by the first collection of the
metrics (which proves a MeterProvider with a reader is configured). The first DSampler
also registers the metric instruments on the global MeterProvider: a no-op provider
never calls them back, so nothing is counted and nothing costs until one is set.
"""

from __future__ import annotations

import itertools
import weakref
from typing import TYPE_CHECKING

from dsampler import _fork

if TYPE_CHECKING:
    from dsampler._dsampler import DSampler
    from dsampler.remote._poll import StrategyPoller

__all__ = ["count_everywhere", "counting", "pollers", "register", "register_poller", "samplers"]


_guard = _fork.ModuleLock()  # a metrics reader may hold it at a fork
_samplers: weakref.WeakValueDictionary[int, DSampler] = weakref.WeakValueDictionary()
_pollers: weakref.WeakSet[StrategyPoller] = weakref.WeakSet()
_numbers = itertools.count(1)
_state = {"counting": False, "instrumented": False}


def register(sampler: DSampler) -> None:
    """A new DSampler: numbered (its ``dsampler.sampler`` attribute), counted if
    telemetry is on, and the global instruments registered once."""
    with _guard.lock:
        number = next(_numbers)
        _samplers[number] = sampler
        sampler._telemetry_id = str(number)
        first = not _state["instrumented"]
        _state["instrumented"] = True
        counting = _state["counting"]
    if first:
        from dsampler.telemetry._metrics import instrument

        instrument(None, automatic=True)
    if counting:
        sampler._count_decisions()


def register_poller(poller: StrategyPoller) -> None:
    with _guard.lock:
        _pollers.add(poller)


def count_everywhere() -> None:
    """Count decisions in every DSampler from now on (idempotent)."""
    with _guard.lock:
        _state["counting"] = True
    for sampler in samplers():
        sampler._count_decisions()


def counting() -> bool:
    return _state["counting"]


def samplers() -> list[DSampler]:
    """The live DSamplers, oldest first. Read under the lock that registrations hold: a
    weak dictionary is iterated in Python, so a reader collecting while another thread
    creates a DSampler would otherwise fail its callback ("dictionary changed size")."""
    with _guard.lock:
        live = list(_samplers.items())
    return [s for _, s in sorted(live)]


def pollers() -> list[StrategyPoller]:
    with _guard.lock:
        return list(_pollers)
