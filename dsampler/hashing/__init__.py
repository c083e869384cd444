"""The decision core: trace ID -> 64-bit key -> ``key < bound``, with the hash schemes,
their numba kernels and the scalar and array entry points."""

import typing

from dsampler._lazy import attach as _attach

__all__ = [
    "DEFAULT_SCHEME",
    "LOADER",
    "MASK56",
    "MASK64",
    "MASK128",
    "SCHEMES",
    "HashScheme",
    "Ratio",
    "decide_batch",
    "fnv1a64",
    "fnv1a64_batch",
    "fnv1a64_key",
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
    from dsampler.hashing._loader import LOADER
    from dsampler.hashing._ratio import Ratio
    from dsampler.hashing._reference import MASK56, MASK64, fnv1a64_key
    from dsampler.hashing._schemes import (
        DEFAULT_SCHEME,
        MASK128,
        SCHEMES,
        HashScheme,
        get_scheme,
        rate_to_bound,
    )

__getattr__, __dir__ = _attach(
    __name__,
    {
        **dict.fromkeys(
            ("decide_batch", "fnv1a64", "fnv1a64_batch", "hashing_path", "jit_status", "wait_for_jit"),
            "dsampler.hashing._batch",
        ),
        "LOADER": "dsampler.hashing._loader",
        "Ratio": "dsampler.hashing._ratio",
        **dict.fromkeys(("MASK56", "MASK64", "fnv1a64_key"), "dsampler.hashing._reference"),
        **dict.fromkeys(
            ("DEFAULT_SCHEME", "HashScheme", "MASK128", "SCHEMES", "get_scheme", "rate_to_bound"),
            "dsampler.hashing._schemes",
        ),
    },
)
