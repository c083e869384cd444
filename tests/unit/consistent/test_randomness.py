"""Randomness R, the decision R >= T, and the `consistent` hash scheme that states it as
key < bound: boundary trace IDs (R exactly at T), rv taking precedence, the batch paths."""

from __future__ import annotations

import numpy as np
import pytest
from opentelemetry.trace import SpanContext, TraceFlags
from opentelemetry.trace.span import TraceState

from dsampler import RatioSampler, decide_batch
from dsampler.consistent import MAX_THRESHOLD, randomness, ratio_to_threshold
from dsampler.consistent._randomness import (
    RANDOMNESS_MASK,
    bound_of_threshold,
    consistent_sampled,
    key_of_randomness,
    parent_threshold,
    threshold_of_bound,
)
from dsampler.hashing import _numpy_twin
from dsampler.hashing._schemes import SCHEMES, get_scheme

SCHEME = get_scheme("consistent")
RATES = [1.0, 0.5, 0.25, 0.1, 0.01, 1e-6, 2.0**-56]


def _id(r: int, high: int = 0xABCDEF0123456789, top_byte: int = 0x5A) -> int:
    """A trace ID whose low 56 bits are ``r`` (the rest arbitrary)."""
    return (high << 64) | (top_byte << 56) | r


def test_r_is_rv_when_valid_else_the_low_56_bits() -> None:
    """rv wins over the trace ID; an invalid rv (uppercase) does not count."""
    trace_id = _id(0x123)
    assert randomness(trace_id) == 0x123
    assert randomness(trace_id, TraceState([("ot", "rv:ffffffffffffff")])) == RANDOMNESS_MASK
    assert randomness(trace_id, TraceState([("ot", "rv:ABCDEFABCDEFAB")])) == 0x123
    assert randomness(trace_id, TraceState([("vendor", "rv:ffffffffffffff")])) == 0x123


@pytest.mark.parametrize("rate", RATES)
def test_boundary_ids_r_equal_to_t_is_sampled_r_below_is_not(rate: float) -> None:
    """At R = T the span is sampled, at R = T - 1 it is not, under every path: the
    scheme's key < bound, RatioSampler(hash="consistent"), and consistent_sampled."""
    threshold = ratio_to_threshold(rate)
    bound = SCHEME.bound(rate)
    assert bound == bound_of_threshold(threshold)
    assert threshold_of_bound(bound) == threshold
    sampler = RatioSampler(rate, hash="consistent")
    cases = [(threshold, True), (RANDOMNESS_MASK, True)] + ([(threshold - 1, False)] if threshold else [])
    for r, sampled in cases:
        trace_id = _id(r)
        assert consistent_sampled(trace_id, threshold) is sampled
        assert (SCHEME.key(trace_id >> 64, trace_id & (2**64 - 1)) < bound) is sampled
        assert sampler.should_sample(None, trace_id, "op").decision.is_sampled() is sampled
        # the rv override: the same R carried as rv beats a trace ID that says otherwise
        rv_key = key_of_randomness(r)
        assert (rv_key < bound) is sampled


def test_only_the_low_56_bits_count() -> None:
    """Bits 56..127 of the trace ID change nothing."""
    for top in (0, 0xFF):
        for high in (0, 2**64 - 1):
            assert SCHEME.key(high, (top << 56) | 7) == RANDOMNESS_MASK - 7


def test_rate_zero_and_one() -> None:
    """Rate 0 has bound 0 (never); rate 1 has bound 2**56, above every key (always)."""
    assert SCHEME.bound(0.0) == 0
    assert SCHEME.bound(1.0) == MAX_THRESHOLD
    assert SCHEME.key(0, 0) == RANDOMNESS_MASK < SCHEME.bound(1.0)


def test_numpy_twin_at_the_boundaries() -> None:
    """The numpy twin (the batch path of the consistent scheme) gives the reference key,
    and decide_batch the reference decision, at R = T - 1, T, T + 1 for several rates."""
    kernel = SCHEMES["consistent"].kernel
    for rate in RATES:
        t = ratio_to_threshold(rate)
        rs = [r for r in (t - 1, t, t + 1, 0, RANDOMNESS_MASK) if 0 <= r <= RANDOMNESS_MASK]
        ids = [_id(r) for r in rs]
        hi = np.array([i >> 64 for i in ids], dtype=np.uint64)
        lo = np.array([i & (2**64 - 1) for i in ids], dtype=np.uint64)
        expected = [SCHEME.reference(int(h), int(low)) for h, low in zip(hi, lo, strict=True)]
        assert _numpy_twin.keys(kernel, hi, lo).tolist() == expected
        assert decide_batch(hi, lo, rate, hash="consistent").tolist() == [r >= t for r in rs]


@pytest.mark.parametrize(
    ("sampled", "ot", "r", "followed"),
    [
        (True, "th:8", 2**56 - 1, 0x80000000000000),  # R >= th: carried on
        (True, "th:8", 1, None),  # R < th: inconsistent, erased
        (True, "th:8;rv:ffffffffffffff", 1, 0x80000000000000),  # rv is R, not the trace ID
        (True, "th:8;rv:00000000000001", 2**56 - 1, None),
        (False, "th:0", 2**56 - 1, None),  # a parent that was not sampled: never
        (True, "rv:ffffffffffffff", 2**56 - 1, None),  # no th to carry on
        (True, "th:8;th:8", 2**56 - 1, None),  # malformed
        (True, None, 2**56 - 1, None),
    ],
)
def test_parent_threshold_only_from_a_sampled_consistent_parent(
    sampled: bool, ot: str | None, r: int, followed: int | None
) -> None:
    """parent_threshold gives the parent's th only when the parent is sampled and R >= th."""
    ts = TraceState([("ot", ot)]) if ot else None
    flags = TraceFlags(TraceFlags.SAMPLED if sampled else TraceFlags.DEFAULT)
    assert parent_threshold(SpanContext(_id(r), 7, True, flags, ts)) == followed
