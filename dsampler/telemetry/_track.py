"""Reporting on a sampler: what every sampler built on the engine calls once it is made."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsampler.telemetry import _registry
from dsampler.telemetry._metrics import instrument

if TYPE_CHECKING:
    from dsampler.telemetry._observed import Observed

__all__ = ["track"]


def track(sampler: Observed) -> None:
    """Report on ``sampler`` from now on: numbered, counted from its first decision if a
    MeterProvider that reports is expected (:mod:`~dsampler.telemetry._registry`), and
    for the first one of the process, dsampler's instruments registered on the global
    MeterProvider (a no-op provider never calls them back: nothing costs until one is
    configured)."""
    if _registry.register(sampler):
        instrument(None, automatic=True)
