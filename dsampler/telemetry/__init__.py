"""Telemetry: what the samplers are doing, through the OpenTelemetry metrics API; the
drift audit that warns when the effective rate leaves the configured one; the adjusted
counts of sampled root spans. ``docs/metrics.md`` says when counting starts and lists
the instruments.
"""

from __future__ import annotations

import typing

from dsampler._lazy import attach as _attach

__all__ = ["AdjustedCounts", "Drift", "audit", "enable"]

if typing.TYPE_CHECKING:
    from dsampler.telemetry._adjusted import AdjustedCounts
    from dsampler.telemetry._drift import Drift, audit
    from dsampler.telemetry._enable import enable

__getattr__, __dir__ = _attach(
    __name__,
    {
        "AdjustedCounts": "dsampler.telemetry._adjusted",
        "Drift": "dsampler.telemetry._drift",
        "audit": "dsampler.telemetry._drift",
        "enable": "dsampler.telemetry._enable",
    },
)
