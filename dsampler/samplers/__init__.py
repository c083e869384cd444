"""The plain OpenTelemetry samplers, one strategy per module: a trace-ID ratio, a
rate limit, per-operation rates with a lower bound, and parent-based sampling."""

import typing

from dsampler._lazy import attach as _attach

__all__ = ["ParentBasedSampler", "PerOperationSampler", "RateLimitingSampler", "RatioSampler"]

if typing.TYPE_CHECKING:
    from dsampler.samplers._operations import PerOperationSampler
    from dsampler.samplers._parent import ParentBasedSampler
    from dsampler.samplers._ratelimit import RateLimitingSampler
    from dsampler.samplers._ratio import RatioSampler

__getattr__, __dir__ = _attach(
    __name__,
    {
        "PerOperationSampler": "dsampler.samplers._operations",
        "ParentBasedSampler": "dsampler.samplers._parent",
        "RateLimitingSampler": "dsampler.samplers._ratelimit",
        "RatioSampler": "dsampler.samplers._ratio",
    },
)
