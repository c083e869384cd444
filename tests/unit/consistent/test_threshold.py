"""Thresholds: every row of otel_threshold.json, OpenTelemetry Python's thresholds exactly,
the th encoding, probabilities and adjusted counts, and refused input."""

from __future__ import annotations

import math
from typing import Any

import pytest
from opentelemetry.sdk.trace._sampling_experimental import _trace_state as otel_trace_state
from opentelemetry.sdk.trace._sampling_experimental import _util as otel_util

from dsampler.consistent import (
    MAX_THRESHOLD,
    adjusted_count,
    encode_th,
    ratio_to_threshold,
    threshold_to_probability,
)
from dsampler.consistent._threshold import HALF_UP, decode_th
from dsampler.errors import ConfigError
from tests.conftest import data_json

VECTORS: list[dict[str, Any]] = data_json("vectors/otel_threshold.json")
FULL = [v for v in VECTORS if v["precision"] == "full (56-bit)"]
DIGITS = [v for v in VECTORS if v["precision"] != "full (56-bit)"]
PYTHON = "python_sdk_1.45.2_calculate_threshold+serialize_th"


def _th(threshold: int) -> str | None:
    return None if threshold == MAX_THRESHOLD else encode_th(threshold)


def _label(v: dict[str, Any]) -> str:
    return f"{v['ratio_label']}@{v['precision']}"


def test_vector_file_has_its_families() -> None:
    """142 rows: 51 at full precision (each with the Python SDK's result), 91 with digits."""
    assert (len(VECTORS), len(FULL), len(DIGITS)) == (142, 51, 91)
    assert all(PYTHON in v["implementations"] for v in FULL)


@pytest.mark.parametrize("vector", FULL, ids=_label)
def test_full_precision_half_up_is_the_canonical_column(vector: dict[str, Any]) -> None:
    """Half-up rounding gives every full-precision row's threshold and th (java-contrib,
    the Collector), including the four rows where OpenTelemetry Python differs."""
    threshold = ratio_to_threshold(vector["ratio"], rounding=HALF_UP)
    assert threshold == vector["threshold_int"]
    assert _th(threshold) == vector["th"]
    assert vector["threshold_hex14"].startswith(f"{threshold:014x}")  # 2**56 reads "100000000000000 (...)"


@pytest.mark.parametrize("vector", FULL, ids=_label)
def test_full_precision_default_is_opentelemetry_pythons_column(vector: dict[str, Any]) -> None:
    """The default (half to even) gives the Python SDK's threshold, th and description."""
    python = vector["implementations"][PYTHON]
    threshold = ratio_to_threshold(vector["ratio"])
    assert threshold == python["threshold_int"]
    assert _th(threshold) == python["th"]


@pytest.mark.parametrize("vector", DIGITS, ids=_label)
def test_every_precision_row(vector: dict[str, Any]) -> None:
    """With a precision the Collector's and otel-go's algorithm: threshold and th."""
    threshold = ratio_to_threshold(vector["ratio"], vector["precision"])
    assert threshold == vector["threshold_int"]
    assert _th(threshold) == vector["th"]


def test_ties_are_the_only_full_precision_disagreements() -> None:
    """Rows where the two roundings differ are exactly those flagged as tie or range rows."""
    differ = {v["ratio_hex"] for v in FULL if ratio_to_threshold(v["ratio"]) != v["threshold_int"]}
    flagged = {v["ratio_hex"] for v in FULL if v["agreement"].startswith("DISAGREE")}
    assert differ == flagged
    assert len(differ) == 4


@pytest.mark.parametrize(
    "ratio",
    [1.0, 0.5, 0.25, 0.1, 0.01, 0.001, 1e-6, 2.0**-56, 2.0**-57, 1e-300, 0.0, 1 / 3, 0.999, 0.3, 5e-324],
)
def test_opentelemetry_pythons_calculate_threshold_exactly(ratio: float) -> None:
    """The default threshold is the installed SDK's calculate_threshold, th its serialize_th."""
    threshold = ratio_to_threshold(ratio)
    assert threshold == otel_util.calculate_threshold(ratio)
    if threshold < MAX_THRESHOLD:
        assert encode_th(threshold) == otel_trace_state.serialize_th(threshold)


@pytest.mark.parametrize(
    ("threshold", "th"),
    [
        (0, "0"),
        (0x80000000000000, "8"),
        (0x11000000000000, "11"),
        (0x03A436F7842456, "03a436f7842456"),  # leading zeros kept
        (0x028F5C28F5C290, "028f5c28f5c29"),  # p = 0.99: the spec snippet's rstrip would lose the 0
        (MAX_THRESHOLD - 1, "ffffffffffffff"),
        (1, "00000000000001"),
    ],
)
def test_encode_and_decode_th(threshold: int, th: str) -> None:
    """Shortest encoding, trailing zeros trimmed, leading kept; decode is its inverse."""
    assert encode_th(threshold) == th
    assert decode_th(th) == threshold


@pytest.mark.parametrize(
    "value", ["", "C", "+c", "0x8", "8_0", "-1", " 8", "100000000000000", "g", "८", 8, None, b"8"]
)
def test_decode_th_refuses_what_int_base_16_would_take(value: object) -> None:
    """Only 1 to 14 lowercase hex digits decode: no sign, prefix, underscore, uppercase,
    non-ASCII digits, whitespace or non-strings."""
    assert decode_th(value) is None


def test_probability_and_adjusted_count() -> None:
    """p = (2**56 - T) / 2**56 and the adjusted count 1/p, exact at powers of two."""
    assert threshold_to_probability(0) == 1.0
    assert threshold_to_probability(0xC0000000000000) == 0.25
    assert threshold_to_probability(MAX_THRESHOLD) == 0.0
    assert adjusted_count(0) == 1.0
    assert adjusted_count(0xC0000000000000) == 4.0
    assert adjusted_count(MAX_THRESHOLD - 1) == 2.0**56
    assert math.isclose(adjusted_count(ratio_to_threshold(0.1)), 10.0, rel_tol=1e-15)


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: ratio_to_threshold(1.5), "ratio"),
        (lambda: ratio_to_threshold(float("nan")), "ratio"),
        (lambda: ratio_to_threshold("0.1"), "ratio"),  # type: ignore[arg-type]
        (lambda: ratio_to_threshold(True), "ratio"),
        (lambda: ratio_to_threshold(0.1, 0), "precision"),
        (lambda: ratio_to_threshold(0.1, 15), "precision"),
        (lambda: ratio_to_threshold(0.1, 4.0), "precision"),  # type: ignore[arg-type]
        (lambda: ratio_to_threshold(0.1, rounding="banker"), "rounding"),
        (lambda: encode_th(MAX_THRESHOLD), "threshold"),
        (lambda: encode_th(-1), "threshold"),
        (lambda: adjusted_count(MAX_THRESHOLD), "threshold"),
        (lambda: threshold_to_probability(MAX_THRESHOLD + 1), "threshold"),
        (lambda: threshold_to_probability(0.5), "threshold"),  # type: ignore[arg-type]
    ],
)
def test_bad_input_is_a_config_error_naming_the_field(call: Any, field: str) -> None:
    """Refused values raise ConfigError whose field names the argument."""
    with pytest.raises(ConfigError) as caught:
        call()
    assert caught.value.field == field
