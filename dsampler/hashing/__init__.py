"""The decision core: trace ID -> 64-bit key -> ``key < bound``.

``reference`` defines each rule in pure Python; ``_kernels`` compiles the same rules
with numba; ``loader`` swaps the kernels in when ready; ``rules`` names the rules and
their exact integer bounds; ``batch`` holds the public scalar and array entry points.
"""

from dsampler.hashing.batch import decide_batch, fnv1a64, fnv1a64_batch, jit_status, wait_for_jit
from dsampler.hashing.rules import DEFAULT_RULE, RULES, HashRule, get_rule, rate_to_bound, validate_rate

__all__ = [
    "DEFAULT_RULE",
    "RULES",
    "HashRule",
    "decide_batch",
    "fnv1a64",
    "fnv1a64_batch",
    "get_rule",
    "jit_status",
    "rate_to_bound",
    "validate_rate",
    "wait_for_jit",
]
