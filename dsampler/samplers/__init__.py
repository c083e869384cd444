"""OpenTelemetry samplers, one strategy per module."""

from dsampler.samplers.facade import DSampler
from dsampler.samplers.parent import ParentBasedSampler
from dsampler.samplers.ratio import RatioSampler

__all__ = ["DSampler", "ParentBasedSampler", "RatioSampler"]
