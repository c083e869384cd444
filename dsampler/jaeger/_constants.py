"""jaeger-client's sampler vocabulary under ``jaeger_client.sampler``'s names and 4.8's
values, type included (a test compares both modules); the last few names are dsampler's own.
"""

from __future__ import annotations

import logging
from typing import Final

from dsampler._validate import DEFAULT_MAX_OPERATIONS as _MAX_OPERATIONS

# Tags a sampled root span carries (what Jaeger's adaptive sampling learns from).
SAMPLER_TYPE_TAG_KEY: Final = "sampler.type"
SAMPLER_PARAM_TAG_KEY: Final = "sampler.param"
SAMPLER_TYPE_CONST: Final = "const"
SAMPLER_TYPE_PROBABILISTIC: Final = "probabilistic"
SAMPLER_TYPE_RATE_LIMITING: Final = "ratelimiting"
SAMPLER_TYPE_LOWER_BOUND: Final = "lowerbound"

DEFAULT_SAMPLING_PROBABILITY: Final = 0.001
DEFAULT_LOWER_BOUND: Final = 1.0 / (10.0 * 60.0)  # once every 10 minutes, per operation
DEFAULT_MAX_OPERATIONS: Final = _MAX_OPERATIONS
DEFAULT_SAMPLING_INTERVAL: Final = 60  # seconds between strategy polls

# Keys of a Jaeger sampling-strategy response (the proto3-JSON field names).
STRATEGIES_STR: Final = "perOperationStrategies"
OPERATION_STR: Final = "operation"
DEFAULT_LOWER_BOUND_STR: Final = "defaultLowerBoundTracesPerSecond"
PROBABILISTIC_SAMPLING_STR: Final = "probabilisticSampling"
SAMPLING_RATE_STR: Final = "samplingRate"
DEFAULT_SAMPLING_PROBABILITY_STR: Final = "defaultSamplingProbability"
OPERATION_SAMPLING_STR: Final = "operationSampling"
MAX_TRACES_PER_SECOND_STR: Final = "maxTracesPerSecond"
RATE_LIMITING_SAMPLING_STR: Final = "rateLimitingSampling"
STRATEGY_TYPE_STR: Final = "strategyType"
PROBABILISTIC_SAMPLING_STRATEGY: Final = "PROBABILISTIC"
RATE_LIMITING_SAMPLING_STRATEGY: Final = "RATE_LIMITING"

#: Where the jaeger layer logs (jaeger-client's was ``jaeger_tracing``).
default_logger: Final = logging.getLogger("dsampler.jaeger")

# dsampler's own limits (not jaeger-client names).
MAX_RATE_LIMIT: Final = 500.0  # jaeger-client refuses remote rate limits of 500/s or more
MIN_REFRESH_INTERVAL_S: Final = 1.0  # a shorter poll interval is a poller that spins
MAX_REFRESH_INTERVAL_S: Final = 86400.0
