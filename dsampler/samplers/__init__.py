"""OpenTelemetry samplers, one strategy per module."""

from dsampler.samplers.facade import DSampler
from dsampler.samplers.operations import PerOperationSampler
from dsampler.samplers.parent import ParentBasedSampler
from dsampler.samplers.ratelimit import RateLimitingSampler
from dsampler.samplers.ratio import RatioSampler

__all__ = ["DSampler", "ParentBasedSampler", "PerOperationSampler", "RateLimitingSampler", "RatioSampler"]
