"""dsampler: head sampling for distributed tracing, for the OpenTelemetry Python SDK.

Public names only, imported on first use, each from the face of the package that owns it.
"""

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
    from dsampler.adaptive import AdaptiveController
    from dsampler.clock import Clock, ManualClock
    from dsampler.config import SamplingConfig, load_config
    from dsampler.errors import ConfigError, DsamplerError
    from dsampler.hashing import decide_batch, fnv1a64, fnv1a64_batch, jit_status, rate_to_bound, wait_for_jit
    from dsampler.remote import JaegerRemoteSampler
    from dsampler.samplers import ParentBasedSampler, PerOperationSampler, RateLimitingSampler, RatioSampler

__getattr__, __dir__ = _attach(
    __name__,
    {
        "DSampler": "dsampler._dsampler",
        "AdaptiveController": "dsampler.adaptive",
        **dict.fromkeys(("Clock", "ManualClock"), "dsampler.clock"),
        **dict.fromkeys(("SamplingConfig", "load_config"), "dsampler.config"),
        **dict.fromkeys(("ConfigError", "DsamplerError"), "dsampler.errors"),
        **dict.fromkeys(
            ("decide_batch", "fnv1a64", "fnv1a64_batch", "jit_status", "rate_to_bound", "wait_for_jit"),
            "dsampler.hashing",
        ),
        "JaegerRemoteSampler": "dsampler.remote",
        **dict.fromkeys(
            ("ParentBasedSampler", "PerOperationSampler", "RateLimitingSampler", "RatioSampler"),
            "dsampler.samplers",
        ),
    },
)
