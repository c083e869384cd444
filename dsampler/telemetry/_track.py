"""Reporting on a sampler: what every sampler built on the engine calls once it is made."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsampler.telemetry import _registry
from dsampler.telemetry._metrics import instrument

if TYPE_CHECKING:
    from dsampler.telemetry._observed import Observed


def track(sampler: Observed, owner: object = None) -> None:
    """Report on ``sampler`` (an engine) from now on; the first one of the process
    registers dsampler's instruments on the global MeterProvider. ``owner``: the sampler
    the user holds (a DSampler), whose ``controller`` is reported; held weakly."""
    if _registry.register(sampler, owner):
        instrument(None, automatic=True)
