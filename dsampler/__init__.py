"""dsampler: head sampling for distributed tracing, for the OpenTelemetry Python SDK.

Public names only; each lives in the module that owns it (see the package tree).
"""

from dsampler.clock import Clock, ManualClock
from dsampler.config import SamplingConfig, load_config
from dsampler.errors import ConfigError, DsamplerError
from dsampler.hashing import (
    decide_batch,
    fnv1a64,
    fnv1a64_batch,
    jit_status,
    rate_to_bound,
    wait_for_jit,
)
from dsampler.samplers import (
    DSampler,
    ParentBasedSampler,
    PerOperationSampler,
    RateLimitingSampler,
    RatioSampler,
)

__version__ = "0.1.0"

__all__ = [
    "Clock",
    "ConfigError",
    "DSampler",
    "DsamplerError",
    "ManualClock",
    "ParentBasedSampler",
    "PerOperationSampler",
    "RateLimitingSampler",
    "RatioSampler",
    "SamplingConfig",
    "__version__",
    "decide_batch",
    "fnv1a64",
    "fnv1a64_batch",
    "jit_status",
    "load_config",
    "rate_to_bound",
    "wait_for_jit",
]
