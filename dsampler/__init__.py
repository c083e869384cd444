"""dsampler: head sampling for distributed tracing, for the OpenTelemetry Python SDK.
Public names only, imported on first use."""

import typing

from dsampler._lazy import attach as _attach
from dsampler._log import apply_level as _apply_level
from dsampler._version import __version__

_apply_level()  # DSAMPLER_LOG_LEVEL

__all__ = [
    "AdaptiveController",
    "Clock",
    "ConfigError",
    "DSampler",
    "DsamplerError",
    "JaegerRemoteSampler",
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

if typing.TYPE_CHECKING:
    from dsampler._dsampler import DSampler
    from dsampler.adaptive._controller import AdaptiveController
    from dsampler.clock import Clock, ManualClock
    from dsampler.config._files import load_config
    from dsampler.config._model import SamplingConfig
    from dsampler.errors import ConfigError, DsamplerError
    from dsampler.hashing._batch import decide_batch, fnv1a64, fnv1a64_batch, jit_status, wait_for_jit
    from dsampler.hashing._schemes import rate_to_bound
    from dsampler.remote._sampler import JaegerRemoteSampler
    from dsampler.samplers._operations import PerOperationSampler
    from dsampler.samplers._parent import ParentBasedSampler
    from dsampler.samplers._ratelimit import RateLimitingSampler
    from dsampler.samplers._ratio import RatioSampler

__getattr__, __dir__ = _attach(
    __name__,
    {
        "AdaptiveController": "dsampler.adaptive._controller",
        "Clock": "dsampler.clock",
        "ManualClock": "dsampler.clock",
        "ConfigError": "dsampler.errors",
        "DsamplerError": "dsampler.errors",
        "load_config": "dsampler.config._files",
        "SamplingConfig": "dsampler.config._model",
        **dict.fromkeys(
            ("decide_batch", "fnv1a64", "fnv1a64_batch", "jit_status", "wait_for_jit"),
            "dsampler.hashing._batch",
        ),
        "rate_to_bound": "dsampler.hashing._schemes",
        "JaegerRemoteSampler": "dsampler.remote._sampler",
        "DSampler": "dsampler._dsampler",
        "PerOperationSampler": "dsampler.samplers._operations",
        "ParentBasedSampler": "dsampler.samplers._parent",
        "RateLimitingSampler": "dsampler.samplers._ratelimit",
        "RatioSampler": "dsampler.samplers._ratio",
    },
)
