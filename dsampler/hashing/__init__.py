"""The decision core: trace ID -> 64-bit key -> ``key < bound``, with the hash schemes,
their numba kernels and the scalar and array entry points."""

import typing

from dsampler._lazy import attach as _attach

__all__ = [
    "DEFAULT_SCHEME",
    "SCHEMES",
    "HashScheme",
    "JitStatus",
    "Ratio",
    "decide_batch",
    "fnv1a64",
    "fnv1a64_batch",
    "get_scheme",
    "hashing_path",
    "jit_status",
    "rate_to_bound",
    "wait_for_jit",
]

if typing.TYPE_CHECKING:
    from dsampler.hashing._batch import (
        decide_batch,
        fnv1a64,
        fnv1a64_batch,
        hashing_path,
        jit_status,
        wait_for_jit,
    )
    from dsampler.hashing._loader import JitStatus
    from dsampler.hashing._ratio import Ratio
    from dsampler.hashing._schemes import DEFAULT_SCHEME, SCHEMES, HashScheme, get_scheme, rate_to_bound

_BATCH = "dsampler.hashing._batch"
_SCHEMES = "dsampler.hashing._schemes"
__getattr__, __dir__ = _attach(
    __name__,
    {
        **dict.fromkeys(
            ("decide_batch", "fnv1a64", "fnv1a64_batch", "hashing_path", "jit_status", "wait_for_jit"), _BATCH
        ),
        "JitStatus": "dsampler.hashing._loader",
        "Ratio": "dsampler.hashing._ratio",
        **dict.fromkeys(("DEFAULT_SCHEME", "SCHEMES", "HashScheme", "get_scheme", "rate_to_bound"), _SCHEMES),
    },
)
