"""Sampling thresholds ``T = (1 - p) * 2**56``: from a ratio (half to even at full
precision, as OpenTelemetry Python; half up with a precision, as the Collector), to a
probability, an adjusted count and a ``th`` value."""

from __future__ import annotations

import math
from typing import Final

from dsampler._validate import check_int, check_rate, show
from dsampler.errors import ConfigError

#: The threshold that rejects every span: never sample (no ``th`` is written for it).
MAX_THRESHOLD: Final = 1 << 56
#: The threshold that rejects nothing: always sample, written ``th:0``.
MIN_THRESHOLD: Final = 0
#: "No threshold": an intent that does not sample (OpenTelemetry Python's value).
INVALID_THRESHOLD: Final = -1
HALF_EVEN: Final = "half-even"
HALF_UP: Final = "half-up"

_DIGITS: Final = 14  # 56 bits, 4 bits a hex digit
_SCALE: Final = 72057594037927936.0  # 2.0**56: ratio * _SCALE is exact for every double
_HEX: Final = frozenset("0123456789abcdef")


def _scaled(ratio: float, rounding: str) -> int:
    """``ratio * 2**56`` rounded to an integer, exactly (the product is an exact double)."""
    scaled = ratio * _SCALE
    if rounding == HALF_EVEN:
        return round(scaled)
    whole = math.floor(scaled)
    return whole + 1 if scaled - whole >= 0.5 else whole  # the difference is exact


def _digits_needed(ratio: float, precision: int) -> int:
    """The Collector's precision rule: a digit more per leading ``0`` or ``f`` the ratio forces."""
    _, exp_ratio = math.frexp(ratio)
    _, exp_rest = math.frexp(1.0 - ratio)
    # int(e / -4): Go's integer division, truncated toward zero
    return min(_DIGITS, max(precision + int(exp_ratio / -4), precision + int(exp_rest / -4)))


def ratio_to_threshold(ratio: float, precision: int | None = None, *, rounding: str | None = None) -> int:
    """The rejection threshold ``T`` of a sampling ratio: sample iff ``R >= T``.

    Args:
        ratio: the sampling probability, in [0, 1]; 0 gives :data:`MAX_THRESHOLD`.
        precision: ``None`` for the full 56 bits, else 1 to 14 hex digits (the Collector's count).
        rounding: ``"half-even"`` or ``"half-up"``; by default half-even at full precision,
            half-up with a precision.

    Raises:
        ConfigError: ``ratio`` not in [0, 1], ``precision`` not in [1, 14], or ``rounding``
            not one of the two names.
    """
    ratio = check_rate(ratio, "ratio")
    if precision is not None:
        precision = check_int(precision, "precision", 1, _DIGITS)
    if rounding is None:
        rounding = HALF_EVEN if precision is None else HALF_UP
    elif rounding not in (HALF_EVEN, HALF_UP):
        raise ConfigError("rounding", f"expected {HALF_EVEN!r} or {HALF_UP!r}, got {show(rounding)}")
    threshold = MAX_THRESHOLD - _scaled(ratio, rounding)
    if precision is None or ratio in (0.0, 1.0):
        return threshold
    shift = 4 * (_DIGITS - _digits_needed(ratio, precision))
    if shift:
        threshold = ((threshold + (1 << (shift - 1))) >> shift) << shift
    return threshold


def threshold_to_probability(threshold: int) -> float:
    """The sampling probability a threshold stands for: ``(2**56 - T) / 2**56``.

    Raises:
        ConfigError: ``threshold`` is not an integer in [0, 2**56].
    """
    return (MAX_THRESHOLD - check_int(threshold, "threshold", MIN_THRESHOLD, MAX_THRESHOLD)) / _SCALE


def adjusted_count(threshold: int) -> float:
    """How many spans a span sampled at ``threshold`` represents: ``1 / p``.

    Raises:
        ConfigError: ``threshold`` is not an integer in [0, 2**56).
    """
    return _SCALE / (MAX_THRESHOLD - check_int(threshold, "threshold", MIN_THRESHOLD, MAX_THRESHOLD - 1))


def encode_th(threshold: int) -> str:
    """The ``th`` value of a threshold: 14 hex digits without trailing zeros, ``"0"`` for 0.

    Raises:
        ConfigError: ``threshold`` is not an integer in [0, 2**56).
    """
    threshold = check_int(threshold, "threshold", MIN_THRESHOLD, MAX_THRESHOLD - 1)
    return f"{threshold:014x}".rstrip("0") or "0"


def decode_th(value: object) -> int | None:
    """The threshold a ``th`` value encodes, None unless it is 1 to 14 lowercase hex digits."""
    if not isinstance(value, str) or not 0 < len(value) <= _DIGITS or not _HEX.issuperset(value):
        return None
    return int(value, 16) << (4 * (_DIGITS - len(value)))
