"""Drop-in replacements for jaeger-client's samplers: change the import, nothing else.

    from dsampler.jaeger import ProbabilisticSampler   # was: from jaeger_client.sampler import ...

See :mod:`dsampler.jaeger._samplers` for the (few, deliberate) differences.
"""

from dsampler.jaeger._adaptive import AdaptiveSampler
from dsampler.jaeger._config import sampler_from_config
from dsampler.jaeger._remote import RemoteControlledSampler
from dsampler.jaeger._samplers import (
    ConstSampler,
    GuaranteedThroughputProbabilisticSampler,
    ProbabilisticSampler,
    RateLimitingSampler,
    Sampler,
)

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
