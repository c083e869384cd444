"""Telemetry: what the samplers are doing, through the OpenTelemetry metrics API; the
drift audit that warns when the effective rate leaves the configured one; the adjusted
counts of sampled root spans. ``docs/metrics.md`` says when counting starts and lists
the instruments.
"""

from dsampler.telemetry._adjusted import AdjustedCounts
from dsampler.telemetry._drift import audit
from dsampler.telemetry._enable import enable
from dsampler.telemetry._metrics import track
from dsampler.telemetry._registry import register_poller, sampler_id

__all__ = ["AdjustedCounts", "audit", "enable", "register_poller", "sampler_id", "track"]
