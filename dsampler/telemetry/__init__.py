"""Telemetry: what the samplers are doing, through the OpenTelemetry metrics API, and
the drift audit that warns when the effective rate leaves the configured one, and the
adjusted counts of sampled root spans (the sum of ``1/p`` their ``th`` states).

Whether a sampler counts its decisions is decided once, when it is made: from its
first decision where a MeterProvider that reports is set or on its way (the SDK's
metrics are loaded), or handed to :func:`enable`; with only the API's own provider
nothing is counted, and nothing costs. See ``docs/metrics.md`` for when counting starts
and for the instruments, their units and attributes.
"""

from __future__ import annotations

import typing

from dsampler._lazy import attach as _attach

__all__ = ["AdjustedCounts", "audit", "enable", "register_poller", "sampler_id", "track"]

if typing.TYPE_CHECKING:
    from dsampler.telemetry._adjusted import AdjustedCounts
    from dsampler.telemetry._drift import audit
    from dsampler.telemetry._enable import enable
    from dsampler.telemetry._registry import register_poller, sampler_id
    from dsampler.telemetry._track import track

__getattr__, __dir__ = _attach(
    __name__,
    {
        "AdjustedCounts": "dsampler.telemetry._adjusted",
        "audit": "dsampler.telemetry._drift",
        "enable": "dsampler.telemetry._enable",
        **dict.fromkeys(("register_poller", "sampler_id"), "dsampler.telemetry._registry"),
        "track": "dsampler.telemetry._track",
    },
)
