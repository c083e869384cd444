"""Simulation: the adaptive controller on synthetic workloads (``dsampler simulate``), and
the accuracy study of the hash schemes (``dsampler simulate --accuracy``). See
``docs/adaptive.md`` and ``docs/accuracy.md``."""

import typing

from dsampler._lazy import attach as _attach

__all__ = ["BUILTIN_SCENARIOS", "Phase", "Run", "Scenario", "load_scenario", "simulate"]

if typing.TYPE_CHECKING:
    from dsampler.simulation._scenario import BUILTIN_SCENARIOS, Phase, Scenario, load_scenario
    from dsampler.simulation._simulation import Run, simulate

__getattr__, __dir__ = _attach(
    __name__,
    {
        "BUILTIN_SCENARIOS": "dsampler.simulation._scenario",
        "Phase": "dsampler.simulation._scenario",
        "Scenario": "dsampler.simulation._scenario",
        "load_scenario": "dsampler.simulation._scenario",
        "Run": "dsampler.simulation._simulation",
        "simulate": "dsampler.simulation._simulation",
    },
)
