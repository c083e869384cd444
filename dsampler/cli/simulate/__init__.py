"""Simulation: the adaptive controller on synthetic workloads (``dsampler simulate``), and
the accuracy study of the hash schemes (``dsampler simulate --accuracy``). See
``docs/adaptive.md`` and ``docs/accuracy.md``."""

import typing

from dsampler._lazy import attach as _attach

__all__ = ["BUILTIN_SCENARIOS", "Phase", "Run", "Scenario", "load_scenario", "simulate"]

if typing.TYPE_CHECKING:
    from dsampler.cli.simulate._scenario import BUILTIN_SCENARIOS, Phase, Scenario, load_scenario
    from dsampler.cli.simulate._simulation import Run, simulate

__getattr__, __dir__ = _attach(
    __name__,
    {
        "BUILTIN_SCENARIOS": "dsampler.cli.simulate._scenario",
        "Phase": "dsampler.cli.simulate._scenario",
        "Scenario": "dsampler.cli.simulate._scenario",
        "load_scenario": "dsampler.cli.simulate._scenario",
        "Run": "dsampler.cli.simulate._simulation",
        "simulate": "dsampler.cli.simulate._simulation",
    },
)
