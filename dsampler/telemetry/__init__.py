"""Telemetry: what the samplers are doing, through the OpenTelemetry metrics API; the
drift audit that warns when the effective rate leaves the configured one; the adjusted
counts of sampled root spans. ``docs/metrics.md`` says when counting starts and lists
the instruments.
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
