"""OpenTelemetry samplers, one strategy per module."""

from dsampler.samplers.parent import ParentBasedSampler
from dsampler.samplers.ratio import RatioSampler

__all__ = ["ParentBasedSampler", "RatioSampler"]
