"""Golden vectors of OpenTelemetry Java's and JS's ``TraceIdRatioBased``: decisions and
bounds their own code gave (tests/data/README.md), against rules ``otel-java`` and
``otel-js``."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from dsampler import RatioSampler, decide_batch
from dsampler.hashing import _numpy_twin
from dsampler.hashing._reference import MASK64
from dsampler.hashing._schemes import SCHEMES
from tests.conftest import data_json

JAVA: list[dict[str, Any]] = data_json("vectors/otel_java_ratio.json")
JS: list[dict[str, Any]] = data_json("vectors/otel_js_ratio.json")
LONG_MAX = (1 << 63) - 1


def _rate(row: dict[str, Any]) -> float:
    rate = float.fromhex(row["rate_hex"])
    assert rate == row["rate"]
    return rate


def _left_out_at_rate_one(rule: str, row: dict[str, Any]) -> bool:
    """The IDs the client leaves out at ratio 1 and dsampler keeps (its rate 1 keeps all)."""
    trace_id = int(row["trace_id"], 16)
    if _rate(row) != 1.0:
        return False
    if rule == "otel-java":
        return trace_id & MASK64 in (LONG_MAX, (1 << 64) - LONG_MAX)
    return trace_id == 0


def test_the_vectors_cover_the_edges() -> None:
    """Both files hold rates 0 and 1, samples and drops, and the edges of each rule:
    Long.MIN_VALUE and both signs of the bound (Java), the all-zero ID and XORs on the
    bound (JS), and rates where JS's double product rounds up to the next integer."""
    assert len(JAVA) == 333
    assert len(JS) == 268
    for rows in (JAVA, JS):
        assert {0.0, 1.0} <= {r["rate"] for r in rows}
        assert {True, False} == {r["sampled"] for r in rows}
    assert any(r["trace_id"].endswith("8000000000000000") and r["sampled"] for r in JAVA)
    assert any(r["trace_id"] == "0" * 32 for r in JS)
    exact = {r["rate"]: math.floor(Fraction(r["rate"]) * 0xFFFFFFFF) for r in JS if r["rate"] < 1.0}
    rounded_up = {r["rate"] for r in JS if r["rate"] < 1.0 and r["upstream_bound"] == exact[r["rate"]] + 1}
    assert len(rounded_up) == 6  # 1/3, 0.6 and four rates picked for it


@pytest.mark.parametrize(("rule", "rows"), [("otel-java", JAVA), ("otel-js", JS)])
def test_every_vector_decides_as_the_client(rule: str, rows: list[dict[str, Any]]) -> None:
    """RatioSampler, decide_batch and the numpy twin give the client's decision on
    every vector, but for the rate-1 IDs the client leaves out."""
    ids = [int(r["trace_id"], 16) for r in rows]
    expected = [r["sampled"] or _left_out_at_rate_one(rule, r) for r in rows]
    one_by_one = [
        RatioSampler(_rate(r), hash=rule).should_sample(None, t, "op").decision.is_sampled()
        for r, t in zip(rows, ids, strict=True)
    ]
    assert one_by_one == expected
    scheme = SCHEMES[rule]
    for rate in sorted({r["rate"] for r in rows}):
        index = [i for i, r in enumerate(rows) if r["rate"] == rate]
        hi = np.array([ids[i] >> 64 for i in index], dtype=np.uint64)
        lo = np.array([ids[i] & MASK64 for i in index], dtype=np.uint64)
        assert decide_batch(hi, lo, rate, hash=rule).tolist() == [expected[i] for i in index]
        twin = _numpy_twin.keys(scheme.kernel, hi, lo)
        assert [int(k) < scheme.bound(rate) for k in twin] == [expected[i] for i in index]


def test_bounds_are_the_clients_bounds() -> None:
    """Below rate 1, otel-java's bound is Java's idUpperBound + 2**63 (Long.MIN_VALUE at
    rate 0 gives 0) and otel-js's is JS's _upperBound."""
    for row in JAVA:
        if row["rate"] < 1.0:
            assert SCHEMES["otel-java"].bound(_rate(row)) == row["upstream_bound"] + (1 << 63)
    for row in JS:
        if row["rate"] < 1.0:
            assert SCHEMES["otel-js"].bound(_rate(row)) == row["upstream_bound"]
    assert {r["upstream_bound"] for r in JAVA if r["rate"] == 1.0} == {LONG_MAX}
    assert {r["upstream_bound"] for r in JS if r["rate"] == 1.0} == {1 << 32}
