"""The plain OpenTelemetry samplers, one strategy per module: a trace-ID ratio, a
rate limit, per-operation rates with a lower bound, and parent-based sampling."""

from dsampler.samplers._operations import PerOperationSampler
from dsampler.samplers._parent import ParentBasedSampler
from dsampler.samplers._ratelimit import RateLimitingSampler
from dsampler.samplers._ratio import RatioSampler

__all__ = ["ParentBasedSampler", "PerOperationSampler", "RateLimitingSampler", "RatioSampler"]
