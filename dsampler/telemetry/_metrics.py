"""dsampler's metrics (listed in ``docs/metrics.md``), through the OpenTelemetry metrics
API. Every instrument is observable: the request path only increments plain integers,
read when a reader collects, in its thread; the API's no-op provider never calls back.
Every series carries ``dsampler.sampler``, the process-wide number of its sampler.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from dsampler.engine import CAPPED, DEFAULT, KEPT, NOT_KEPT, STRATEGIES, EngineSampler
from dsampler.telemetry import _drift, _registry

if TYPE_CHECKING:
    from opentelemetry.metrics import CallbackOptions, MeterProvider, Observation

    from dsampler.telemetry._observed import Observed


_RECORD, _DROP = "RECORD_AND_SAMPLE", "DROP"


def track(sampler: Observed | EngineSampler) -> None:
    """Report on ``sampler`` (an engine, or a DSampler: its engine) from now on; the first
    one of the process registers dsampler's instruments on the global MeterProvider."""
    if isinstance(sampler, EngineSampler):
        sampler = sampler.engine
    if _registry.register(sampler):
        instrument(None, automatic=True)


def instrument(meter_provider: MeterProvider | None, *, automatic: bool = False) -> None:
    """Register dsampler's instruments on ``meter_provider`` (None: the global one).
    ``automatic``: a collection turns decision counting on everywhere."""
    from opentelemetry import metrics

    meter = (meter_provider or metrics.get_meter_provider()).get_meter("dsampler")
    counter, gauge = meter.create_observable_counter, meter.create_observable_gauge
    for create, name, callback, unit, description in (
        (counter, "dsampler.decisions", _decisions_first(automatic), "{span}", "Sampling decisions made"),
        (gauge, "dsampler.rate.configured", _each(lambda s: s.config.rate), "1", "Default rate in force"),
        (
            gauge,
            "dsampler.rate.effective",
            _each(_effective),
            "1",
            "Fraction the default rate kept in this version",
        ),
        (gauge, "dsampler.config.version", _each(lambda s: s.config.version), "1", "Configuration version"),
        (counter, "dsampler.drift.alerts", _each(_alerts), "{alert}", "Versions that drifted"),
        (counter, "dsampler.faults", _each(lambda s: s.faults), "{fault}", "Decisions after a fault"),
        (counter, "dsampler.remote.fetches", _fetches, "{fetch}", "Strategy fetches"),
        (gauge, "dsampler.controller.window", _of_controller("window_s"), "s", "Adaptive window length"),
        (gauge, "dsampler.controller.rate", _of_controller("rate"), "1", "Adaptive rate"),
    ):
        create(name, [callback], unit, description)


def _observation(value: float, **attributes: Any) -> Observation:
    from opentelemetry.metrics import Observation

    return Observation(value, attributes)


def _decisions_first(automatic: bool) -> Any:
    def decisions(options: CallbackOptions) -> Iterable[Observation]:
        if automatic:  # a reader collects: the figures are wanted, from every sampler
            _registry.count_everywhere()
        out = []
        for number, sampler in _registry.numbered():
            stats = sampler.decision_counts
            if stats is None:
                continue
            tally, who, capped = stats.totals(), number, 0
            for i, strategy in enumerate(STRATEGIES):
                kept, dropped, cut = tally[i][KEPT], tally[i][NOT_KEPT], tally[i][CAPPED]
                capped += cut
                out.append(_observation(kept - cut, decision=_RECORD, strategy=strategy, **_id(who)))
                out.append(_observation(dropped, decision=_DROP, strategy=strategy, **_id(who)))
            out.append(_observation(capped, decision=_DROP, strategy="cap", **_id(who)))
        return out

    return decisions


def _id(who: str) -> dict[str, str]:
    return {"dsampler.sampler": who}


def _each(value: Callable[[Observed], float | None]) -> Any:
    """A callback observing ``value`` of each sampler (None: not observed)."""

    def observe(options: CallbackOptions) -> Iterable[Observation]:
        found = [(n, value(s)) for n, s in _registry.numbered()]
        return [_observation(v, **_id(n)) for n, v in found if v is not None]

    return observe


def _effective(sampler: Observed) -> float | None:
    counts = sampler.snapshot.counts
    if counts is None or not counts.default_decided:
        return None
    return counts.of(DEFAULT, KEPT) / counts.default_decided


def _alerts(sampler: Observed) -> int:
    _drift.audit(sampler)  # off the request path, at every collection
    return _drift.alerts(sampler)


def _fetches(options: CallbackOptions) -> Iterable[Observation]:
    totals: dict[tuple[str, str], int] = {}
    for poller in _registry.pollers():
        for outcome, n in dict(poller.outcomes).items():
            key = (outcome.value, poller.service)
            totals[key] = totals.get(key, 0) + n
    return [_observation(n, result=result, service=service) for (result, service), n in totals.items()]


def _of_controller(attribute: str) -> Any:
    """A callback observing one attribute of each adaptive controller."""

    def value(sampler: Observed) -> float | None:
        controller = getattr(sampler.driver, "controller", None)  # a DSampler's, with adaptive:
        return None if controller is None else getattr(controller, attribute)

    return _each(value)
