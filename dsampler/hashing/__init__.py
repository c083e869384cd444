"""The decision core: trace ID -> 64-bit key -> ``key < bound``, with the hash schemes,
their numba kernels and the scalar and array entry points."""

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
