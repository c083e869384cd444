"""Rules ``otel-java`` and ``otel-js`` decide as OpenTelemetry Java's and JS's
``TraceIdRatioBased`` do, checked against their formulas written out here the way
those languages compute them (Java's signed longs, JS's 32-bit string parsing)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from dsampler import RatioSampler, decide_batch
from dsampler.hashing import _numpy_twin
from dsampler.hashing._reference import MASK64
from dsampler.hashing._schemes import SCHEMES
from tests.property.strategies import rates, trace_ids

LONG_MIN, LONG_MAX = -(1 << 63), (1 << 63) - 1


def java_sampled(rate: float, trace_id: int) -> bool:
    """OpenTelemetry Java: ``Math.abs(low 64 bits as a long) < idUpperBound``, the bound
    ``Long.MIN_VALUE`` at 0, ``Long.MAX_VALUE`` at 1, else ``(long)(rate *
    Long.MAX_VALUE)`` (the long widened to a double, the product truncated)."""
    low = trace_id & MASK64
    signed = low - (1 << 64) if low > LONG_MAX else low
    magnitude = signed if signed == LONG_MIN else abs(signed)  # Math.abs overflows there
    bound = LONG_MIN if rate == 0.0 else LONG_MAX if rate == 1.0 else int(rate * float(LONG_MAX))
    return magnitude < bound


def _int32(value: int) -> int:
    return (value + (1 << 31)) % (1 << 32) - (1 << 31)


def js_sampled(rate: float, trace_id: int) -> bool:
    """OpenTelemetry JS (@opentelemetry/sdk-trace 2.x): an invalid (all-zero) trace ID is
    never sampled; the four 8-hex-digit words are parsed with 32-bit ``<<`` and ``|``,
    XORed and read unsigned (``>>> 0``), against ``Math.floor(ratio * 0xffffffff)``, or
    ``0x100000000`` at ratio 1."""
    text = f"{trace_id & ((1 << 128) - 1):032x}"
    if text == "0" * 32:
        return False
    accumulated = 0
    for start in range(0, 32, 8):
        part = 0
        for char in text[start : start + 8]:
            part = _int32((part << 4) | int(char, 16))
        accumulated = (accumulated ^ part) & 0xFFFFFFFF
    bound = 0x100000000 if rate == 1.0 else math.floor(rate * 0xFFFFFFFF)
    return accumulated < bound


def _sampled(rate: float, trace_id: int, rule: str) -> bool:
    return RatioSampler(rate, hash=rule).should_sample(None, trace_id, "op").decision.is_sampled()


@st.composite
def java_edge_ids(draw: st.DrawFn) -> int:
    """Trace IDs whose low half is an edge of Java's rule at a drawn rate: the bound's
    own magnitude, one either side, both signs, and Long.MIN_VALUE/MAX_VALUE."""
    rate = draw(rates)
    magnitude = int(rate * float(LONG_MAX)) + draw(st.integers(-1, 1))
    low = draw(st.sampled_from([magnitude, -magnitude, LONG_MIN, LONG_MAX, -LONG_MAX])) & MASK64
    return (draw(st.integers(0, MASK64)) << 64) | low


@st.composite
def js_edge_ids(draw: st.DrawFn) -> int:
    """Trace IDs whose four words XOR to JS's bound at a drawn rate, or one either side."""
    target = (math.floor(draw(rates) * 0xFFFFFFFF) + draw(st.integers(-1, 1))) & 0xFFFFFFFF
    w0, w1, w2 = (draw(st.integers(0, 0xFFFFFFFF)) for _ in range(3))
    return (w0 << 96) | (w1 << 64) | (w2 << 32) | (target ^ w0 ^ w1 ^ w2)


@given(st.one_of(trace_ids, java_edge_ids()), rates)
def test_otel_java_rule_is_opentelemetry_javas(trace_id: int, rate: float) -> None:
    """Below rate 1, every decision is Java's; at rate 1 dsampler also keeps the two low
    halves whose absolute value is Long.MAX_VALUE, which Java leaves out."""
    ours = _sampled(rate, trace_id, "otel-java")
    low = trace_id & MASK64
    if rate == 1.0 and low in (LONG_MAX, (1 << 64) - LONG_MAX):
        assert ours
        assert not java_sampled(rate, trace_id)
    else:
        assert ours is java_sampled(rate, trace_id)


@given(st.one_of(trace_ids, js_edge_ids()), rates)
def test_otel_js_rule_is_opentelemetry_jss(trace_id: int, rate: float) -> None:
    """Below rate 1, every decision is JS's; at rate 1 dsampler also keeps the all-zero
    trace ID, which JS refuses as invalid."""
    ours = _sampled(rate, trace_id, "otel-js")
    if rate == 1.0 and trace_id % (1 << 128) == 0:
        assert ours
        assert not js_sampled(rate, trace_id)
    else:
        assert ours is js_sampled(rate, trace_id)


@given(st.lists(st.one_of(java_edge_ids(), js_edge_ids(), trace_ids), min_size=1, max_size=40), rates)
def test_batch_paths_decide_as_the_clients(ids: list[int], rate: float) -> None:
    """decide_batch (the kernels) and the numpy twin make the same decisions, ID by ID."""
    hi = np.array([(t >> 64) & MASK64 for t in ids], dtype=np.uint64)
    lo = np.array([t & MASK64 for t in ids], dtype=np.uint64)
    for rule in ("otel-java", "otel-js"):
        scheme = SCHEMES[rule]
        expected = [_sampled(rate, t, rule) for t in ids]
        assert decide_batch(hi, lo, rate, hash=rule).tolist() == expected
        twin = _numpy_twin.keys(scheme.kernel, hi, lo)
        assert [int(k) < scheme.bound(rate) for k in twin] == expected
