"""Each rule's exact integer bound at the edges where the rules differ."""

from __future__ import annotations

import pytest

from dsampler.hashing._schemes import SCHEMES


@pytest.mark.parametrize(
    ("rule", "rate", "bound"),
    [
        ("fnv1a", 2.0**-70, 0),  # floor: below one key in 2**64, nothing
        ("jaeger", 2.0**-70, 1),  # jaeger-client: id < 2**-6 as a float keeps id 0
        ("otel", 2.0**-70, 0),  # round(2**-6) == 0
        ("otel", 1.5 * 2.0**-64, 2),  # Python's round: half to even
        ("otel", 2.5 * 2.0**-64, 2),
        ("fnv1a", 1.5 * 2.0**-64, 1),
        ("jaeger", 1.5 * 2.0**-64, 2),
        ("jaeger-go", 2.0**-63, 2),  # boundary 1, and Go samples id <= boundary
        ("jaeger-go", 1.0, 2**63 + 1),
        ("fnv1a-mix", 1.0, 2**64),
        ("xxh3", 0.5, 2**63),
        ("otel-java", 0.5, 2**62 + 2**63),  # Java's (long)(0.5 * 2**63), made unsigned
        ("otel-java", 2.0**-64, 2**63),  # (long)(0.5) == 0: only Long.MIN_VALUE's key 0
        ("otel-java", 1.0 - 2.0**-53, 2**64 - 2**10),
        ("otel-java", 1.0, 2**64),  # Java's Long.MAX_VALUE would leave out abs(s) == 2**63 - 1
        ("otel-js", 0.5, 2147483647),  # floor(0.5 * 0xffffffff)
        ("otel-js", 2.0**-33, 0),  # floor(0.4999...)
        ("otel-js", 0.14182751140134117, 609144523),  # the double product rounds up: exact floor 609144522
        ("otel-js", 1.0, 2**32 + 1),  # every key, the all-zero ID's 2**32 included
    ],
)
def test_bound_at_edges(rule: str, rate: float, bound: int) -> None:
    """Bounds are exact integers computed from the rate's double."""
    assert SCHEMES[rule].bound(rate) == bound


@pytest.mark.parametrize("rule", sorted(SCHEMES))
def test_rate_zero_is_bound_zero_for_every_rule(rule: str) -> None:
    """Rate 0 never samples, even for jaeger-go whose Go original keeps id 0."""
    assert SCHEMES[rule].bound(0.0) == 0


def test_only_hashing_rules_are_compiled() -> None:
    """Masking rules keep their pure-Python key, faster than a call into numba."""
    assert {name for name, rule in SCHEMES.items() if rule.jit} == {"fnv1a", "fnv1a-mix", "xxh3"}
