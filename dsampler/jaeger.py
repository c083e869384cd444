"""Drop-in replacements for jaeger-client's samplers: change the import, nothing else.

    from dsampler.jaeger import ProbabilisticSampler   # was: from jaeger_client.sampler import ...

See :mod:`dsampler.compat.jaeger_client` for the (few, deliberate) differences.
"""

from dsampler.compat.jaeger_client import (
    AdaptiveSampler,
    ConstSampler,
    GuaranteedThroughputProbabilisticSampler,
    ProbabilisticSampler,
    RateLimitingSampler,
    RemoteControlledSampler,
    Sampler,
)
from dsampler.compat.jaeger_config import sampler_from_config

__all__ = [
    "AdaptiveSampler",
    "ConstSampler",
    "GuaranteedThroughputProbabilisticSampler",
    "ProbabilisticSampler",
    "RateLimitingSampler",
    "RemoteControlledSampler",
    "Sampler",
    "sampler_from_config",
]
