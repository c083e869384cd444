"""Rule name -> decision rule: a 64-bit key of the trace ID and an integer bound.

Every rule decides ``sample iff key(hi, lo) < bound(rate)`` in exact integers. The rate
is taken as its IEEE-754 double, and ``rate * 2**64`` is then exact (a power-of-two
scaling), so each bound below is an exact function of the double:

==========  ==========================  ===============================================
rule        key                         bound
==========  ==========================  ===============================================
fnv1a       FNV-1a 64 of the 16 bytes   ``floor(rate * 2**64)`` (canonical)
fnv1a-mix   fmix64(FNV-1a 64)           ``floor(rate * 2**64)``
xxh3        XXH3-64, seed 0             ``floor(rate * 2**64)``
otel        low 64 bits                 ``round(rate * 2**64)``: OTel ``TraceIdRatioBased``
jaeger      low 64 bits                 ``ceil(rate * 2**64)``: jaeger-client-python's
                                        ``id < rate * 2**64`` compared as a float
jaeger-go   low 63 bits                 ``trunc(rate * 2**63) + 1``: jaeger-client-go's
                                        ``boundary >= id`` turned into ``<``
==========  ==========================  ===============================================

Rate 0 never samples under every rule (bound 0). jaeger-client-go would still sample
trace IDs whose low 63 bits are all zero at rate 0 (1 in 2**63); dsampler does not.
Rate 1 gives a bound of at least ``2**63 + 1`` for which every key passes.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Final

from dsampler.errors import ConfigError, show, typed
from dsampler.hashing import reference

__all__ = ["DEFAULT_RULE", "RULES", "HashRule", "get_rule", "rate_to_bound", "validate_rate"]

TWO64: Final = 18446744073709551616.0  # 2.0**64, a float so that rate * TWO64 stays exact
TWO63: Final = 9223372036854775808.0

KeyFn = Callable[[int, int], int]


def validate_rate(rate: object, field: str = "rate") -> float:
    """Return ``rate`` as a float in [0, 1], or raise :class:`ConfigError` naming ``field``.

    Booleans and strings are refused: ``True`` as a rate, or ``"0.1"`` from an untyped
    source, is a bug upstream, not a value to coerce.
    """
    if isinstance(rate, bool) or not isinstance(rate, numbers.Real):
        raise ConfigError(field, f"expected a number in [0, 1], got {typed(rate)}")
    try:
        value = float(rate) + 0.0  # + 0.0 turns -0.0 into 0.0
    except OverflowError:
        raise ConfigError(field, f"expected a number in [0, 1], got {show(rate)}") from None
    if math.isnan(value) or not 0.0 <= value <= 1.0:
        raise ConfigError(field, f"expected a number in [0, 1], got {value!r}")
    return value


def _floor_bound(rate: float) -> int:
    return int(rate * TWO64)


def _round_bound(rate: float) -> int:
    return round(rate * TWO64)


def _ceil_bound(rate: float) -> int:
    return math.ceil(rate * TWO64)


def _go_bound(rate: float) -> int:
    return int(rate * TWO63) + 1 if rate > 0.0 else 0


class HashRule:
    """A named decision rule.

    ``key`` is the scalar entry used on the request path. For the rules that hash
    (``hashes``), :mod:`dsampler.hashing.loader` replaces it with the compiled kernel once
    that is ready (one attribute assignment, so a concurrent reader sees the old or the
    new function, both bit-identical). The other rules only mask the low bits, which
    plain Python does faster (40 ns) than a call into compiled code (110 ns).
    """

    __slots__ = ("_bound_of", "compiled", "hashes", "key", "name", "reference")

    def __init__(self, name: str, key: KeyFn, bound_of: Callable[[float], int], *, hashes: bool) -> None:
        self.name = name
        self.reference: KeyFn = key
        self.key: KeyFn = key
        self.hashes = hashes
        self.compiled = False
        self._bound_of = bound_of

    def bound(self, rate: float) -> int:
        """Integer bound of a validated rate: sample iff ``key < bound``."""
        return self._bound_of(rate) if rate > 0.0 else 0

    def __repr__(self) -> str:
        return f"HashRule({self.name!r}, compiled={self.compiled})"


RULES: Final[dict[str, HashRule]] = {
    rule.name: rule
    for rule in (
        HashRule("fnv1a", reference.fnv1a64_key, _floor_bound, hashes=True),
        HashRule("fnv1a-mix", reference.fnv1a_mix_key, _floor_bound, hashes=True),
        HashRule("xxh3", reference.xxh3_key, _floor_bound, hashes=True),
        HashRule("otel", reference.low64_key, _round_bound, hashes=False),
        HashRule("jaeger", reference.low64_key, _ceil_bound, hashes=False),
        HashRule("jaeger-go", reference.jaeger_go_key, _go_bound, hashes=False),
    )
}
DEFAULT_RULE: Final = "fnv1a"


def get_rule(name: object, field: str = "hash") -> HashRule:
    """Look a rule up by name, or raise :class:`ConfigError` listing the known ones."""
    rule = RULES.get(name) if isinstance(name, str) else None
    if rule is None:
        known = ", ".join(RULES)
        raise ConfigError(field, f"expected one of {known}, got {show(name)}")
    return rule


def rate_to_bound(rate: float) -> int:
    """Canonical bound ``floor(rate * 2**64)``: 0 never samples, ``2**64`` always does.

    Raises:
        ConfigError: ``rate`` is not a number in [0, 1].
    """
    return _floor_bound(validate_rate(rate))
