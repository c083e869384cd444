"""Drop-in replacements for jaeger-client's samplers: change the import, nothing else.

    from dsampler.jaeger import ProbabilisticSampler   # was: from jaeger_client.sampler import ...

Every public name of ``jaeger_client.sampler`` (4.8) is here, with the same value or
behaviour, plus :func:`sampler_from_config` for jaeger-client's configuration dict. The
deliberate differences are listed in docs/jaeger-migration.md.
"""

import typing

from dsampler._lazy import attach as _attach
from dsampler.jaeger._constants import (
    DEFAULT_LOWER_BOUND,
    DEFAULT_LOWER_BOUND_STR,
    DEFAULT_MAX_OPERATIONS,
    DEFAULT_SAMPLING_INTERVAL,
    DEFAULT_SAMPLING_PROBABILITY,
    DEFAULT_SAMPLING_PROBABILITY_STR,
    MAX_TRACES_PER_SECOND_STR,
    OPERATION_SAMPLING_STR,
    OPERATION_STR,
    PROBABILISTIC_SAMPLING_STR,
    PROBABILISTIC_SAMPLING_STRATEGY,
    RATE_LIMITING_SAMPLING_STR,
    RATE_LIMITING_SAMPLING_STRATEGY,
    SAMPLER_PARAM_TAG_KEY,
    SAMPLER_TYPE_CONST,
    SAMPLER_TYPE_LOWER_BOUND,
    SAMPLER_TYPE_PROBABILISTIC,
    SAMPLER_TYPE_RATE_LIMITING,
    SAMPLER_TYPE_TAG_KEY,
    SAMPLING_RATE_STR,
    STRATEGIES_STR,
    STRATEGY_TYPE_STR,
    default_logger,
)
from dsampler.jaeger._strategies import get_rate_limit, get_sampling_probability

__all__ = [
    "DEFAULT_LOWER_BOUND",
    "DEFAULT_LOWER_BOUND_STR",
    "DEFAULT_MAX_OPERATIONS",
    "DEFAULT_SAMPLING_INTERVAL",
    "DEFAULT_SAMPLING_PROBABILITY",
    "DEFAULT_SAMPLING_PROBABILITY_STR",
    "MAX_TRACES_PER_SECOND_STR",
    "OPERATION_SAMPLING_STR",
    "OPERATION_STR",
    "PROBABILISTIC_SAMPLING_STR",
    "PROBABILISTIC_SAMPLING_STRATEGY",
    "RATE_LIMITING_SAMPLING_STR",
    "RATE_LIMITING_SAMPLING_STRATEGY",
    "SAMPLER_PARAM_TAG_KEY",
    "SAMPLER_TYPE_CONST",
    "SAMPLER_TYPE_LOWER_BOUND",
    "SAMPLER_TYPE_PROBABILISTIC",
    "SAMPLER_TYPE_RATE_LIMITING",
    "SAMPLER_TYPE_TAG_KEY",
    "SAMPLING_RATE_STR",
    "STRATEGIES_STR",
    "STRATEGY_TYPE_STR",
    "AdaptiveSampler",
    "ConstSampler",
    "GuaranteedThroughputProbabilisticSampler",
    "ProbabilisticSampler",
    "RateLimitingSampler",
    "RemoteControlledSampler",
    "Sampler",
    "SamplerMetrics",
    "default_logger",
    "get_rate_limit",
    "get_sampling_probability",
    "sampler_from_config",
]

if typing.TYPE_CHECKING:
    from dsampler.jaeger._adaptive import AdaptiveSampler
    from dsampler.jaeger._config import sampler_from_config
    from dsampler.jaeger._polling import SamplerMetrics
    from dsampler.jaeger._remote import RemoteControlledSampler
    from dsampler.jaeger._samplers import (
        ConstSampler,
        GuaranteedThroughputProbabilisticSampler,
        ProbabilisticSampler,
        RateLimitingSampler,
        Sampler,
    )

# The samplers subclass jaeger-client's Sampler when it is installed: they load on first use.
__getattr__, __dir__ = _attach(
    __name__,
    {
        "AdaptiveSampler": "dsampler.jaeger._adaptive",
        "sampler_from_config": "dsampler.jaeger._config",
        "SamplerMetrics": "dsampler.jaeger._polling",
        "RemoteControlledSampler": "dsampler.jaeger._remote",
        "ConstSampler": "dsampler.jaeger._samplers",
        "GuaranteedThroughputProbabilisticSampler": "dsampler.jaeger._samplers",
        "ProbabilisticSampler": "dsampler.jaeger._samplers",
        "RateLimitingSampler": "dsampler.jaeger._samplers",
        "Sampler": "dsampler.jaeger._samplers",
    },
)
