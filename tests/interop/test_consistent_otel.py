"""dsampler's composite_sampler(composable_traceid_ratio_based(r)) against OpenTelemetry
Python's own (opentelemetry-sdk's _sampling_experimental), in the same process: the same
decision and the same ot value on 100,000 random roots, on 100,000 children of parents
with and without rv and th, and on every vector of otel_threshold.json and
otel_tracestate.json.

Theirs reads the parent's tracestate only from the trace_state argument (the SDK never
passes it), so it is given it here; the differences that remain are dsampler's on
purpose and are asserted as such: a drop that leaves nothing else in ot removes the entry
(theirs keeps the stale th), and an ot value the spec calls malformed (or an rv it calls
invalid) is not read (theirs reads it leniently)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from opentelemetry.sdk.trace._sampling_experimental import composable_traceid_ratio_based as otel_ratio
from opentelemetry.sdk.trace._sampling_experimental import composite_sampler as otel_composite
from opentelemetry.sdk.trace._sampling_experimental._trace_state import OtelTraceState
from opentelemetry.sdk.trace.sampling import Sampler, SamplingResult
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context
from opentelemetry.trace.span import TraceState

from dsampler.consistent import (
    MAX_THRESHOLD,
    composable_traceid_ratio_based,
    composite_sampler,
    ot_with_threshold,
    parse_ot,
    ratio_to_threshold,
)
from dsampler.consistent._tracestate import ot_of
from tests.conftest import data_json

pytestmark = pytest.mark.slow

N = 100_000
RATIOS = [0.1, 0.5, 0.01, 0.25, 1 / 3, 1.0, 0.0, 1e-4, 0.999, 0.75]
THRESHOLDS: list[dict[str, Any]] = data_json("vectors/otel_threshold.json")
TRACESTATES: list[dict[str, Any]] = data_json("vectors/otel_tracestate.json")
MASK56 = 2**56 - 1


def pair(ratio: float) -> tuple[Sampler, Sampler]:
    return composite_sampler(composable_traceid_ratio_based(ratio)), otel_composite(otel_ratio(ratio))


def child_of(trace_id: int, ts: TraceState, sampled: bool) -> Any:
    flags = TraceFlags(TraceFlags.SAMPLED if sampled else TraceFlags.DEFAULT)
    return set_span_in_context(NonRecordingSpan(SpanContext(trace_id, 0x51, True, flags, ts)))


def others(result: SamplingResult) -> dict[str, str]:
    return {k: v for k, v in (result.trace_state or {}).items() if k != "ot"}


def assert_same(ours: SamplingResult, theirs: SamplingResult, parent_ot: str | None = None) -> None:
    """Same decision and ot value; their stale th on a drop is the one allowed difference."""
    assert ours.decision is theirs.decision
    if ot_of(ours.trace_state) is None and not ours.decision.is_sampled() and parent_ot is not None:
        assert ot_of(theirs.trace_state) in (None, parent_ot)  # theirs: the stale value kept
    else:
        assert ot_of(ours.trace_state) == ot_of(theirs.trace_state)
    assert others(ours) == others(theirs)


def test_100000_random_roots() -> None:
    """Every ratio, 100,000 random trace IDs each (10 ratios, 10,000 IDs per ratio, plus
    100,000 at 0.1): identical decisions and identical tracestates."""
    rng = random.Random(20261201)
    for ratio in RATIOS:
        ours, theirs = pair(ratio)
        count = N if ratio == 0.1 else N // 10
        for _ in range(count):
            trace_id = rng.getrandbits(128)
            a, b = ours.should_sample(None, trace_id, "root"), theirs.should_sample(None, trace_id, "root")
            assert a.decision is b.decision
            assert (a.trace_state and a.trace_state.to_header()) == (
                b.trace_state and b.trace_state.to_header()
            )


def _parent_ot(rng: random.Random) -> str | None:
    members = []
    if rng.random() < 0.5:
        members.append("th:" + rng.choice(["0", "8", "c", "fd70a4", "e6666666666666", "028f5c28f5c29"]))
    if rng.random() < 0.5:
        members.append(f"rv:{rng.getrandbits(56):014x}")
    if rng.random() < 0.2:
        members.append("extra:stuff")
    return ";".join(members) or None


def test_100000_children_of_parents_with_and_without_rv_and_th() -> None:
    """Parents with th, rv, both, neither and unknown members (th and rv first, the order
    both write), sampled or not, beside a vendor entry: identical decisions and ot values."""
    rng = random.Random(20261202)
    samplers = {ratio: pair(ratio) for ratio in RATIOS}
    for _ in range(N):
        trace_id, ratio, ot = rng.getrandbits(128), rng.choice(RATIOS), _parent_ot(rng)
        ts = TraceState([("vendor", "v"), *([("ot", ot)] if ot else [])])
        context = child_of(trace_id, ts, rng.random() < 0.5)
        ours, theirs = samplers[ratio]
        a = ours.should_sample(context, trace_id, "child")
        b = theirs.should_sample(context, trace_id, "child", trace_state=ts)
        assert_same(a, b, ot)


def _boundary_ids(threshold: int) -> list[int]:
    rs = {0, MASK56, threshold - 1, threshold, threshold + 1}
    return [(0x5EED << 64) | (0x77 << 56) | r for r in sorted(rs) if 0 <= r <= MASK56]


@pytest.mark.parametrize("vector", THRESHOLDS, ids=lambda v: f"{v['ratio_label']}@{v['precision']}")
def test_every_threshold_vector(vector: dict[str, Any]) -> None:
    """Each row's ratio at R = T - 1, T, T + 1 (T theirs), 0 and 2**56 - 1: the same
    decision and ot; at full precision the th is the row's Python column."""
    ours, theirs = pair(vector["ratio"])
    threshold = ratio_to_threshold(vector["ratio"])
    for trace_id in _boundary_ids(threshold):
        a, b = ours.should_sample(None, trace_id, "s"), theirs.should_sample(None, trace_id, "s")
        assert_same(a, b)
        assert a.decision.is_sampled() is ((trace_id & MASK56) >= threshold)
    if vector["precision"] == "full (56-bit)" and threshold < MAX_THRESHOLD:
        sampled = ours.should_sample(None, MASK56, "s")
        python = vector["implementations"]["python_sdk_1.45.2_calculate_threshold+serialize_th"]
        assert ot_of(sampled.trace_state) == "th:" + python["th"]


FITS = [v for v in TRACESTATES if len(v["ot_value"]) <= 256]


@pytest.mark.parametrize("vector", FITS, ids=lambda v: v["ot_value"][:40])
@pytest.mark.parametrize("ratio", [0.5, 0.25, 1.0])
def test_every_tracestate_vector_as_a_parent(vector: dict[str, Any], ratio: float) -> None:
    """Each row's tracestate as a sampled parent: where both read the same rv, the same
    decision and the same th; where the spec calls the rv invalid and theirs reads it,
    dsampler decides by the trace ID. Malformed values are replaced by th alone; the one
    256-character value keeps no room for th, which is then left out."""
    ts = TraceState.from_header([vector.get("tracestate_full", vector["tracestate"])])
    parsed = parse_ot(vector["ot_value"])
    strict_rv = None if parsed is None else parsed.randomness
    python_rv = vector["python_sdk_1.45.2_OtelTraceState.parse"]["rv_int"]
    ours, theirs = pair(ratio)
    for trace_id in (0xABC << 64, (0xABC << 64) | MASK56, (0xABC << 64) | (1 << 55)):
        a = ours.should_sample(child_of(trace_id, ts, True), trace_id, "child")
        b = theirs.should_sample(child_of(trace_id, ts, True), trace_id, "child", trace_state=ts)
        r = (trace_id & MASK56) if strict_rv is None else strict_rv
        assert a.decision.is_sampled() is (r >= ratio_to_threshold(ratio))
        mine = parse_ot(ot_of(a.trace_state)) if ot_of(a.trace_state) else None
        fits = parsed is None or ot_with_threshold(vector["ot_value"], ratio_to_threshold(ratio)) is not None
        if a.decision.is_sampled():
            assert mine is not None
            # a th that would take ot over 256 characters is left out (theirs cuts members off)
            assert mine.threshold == (ratio_to_threshold(ratio) if fits else None)
        if strict_rv == python_rv:
            assert a.decision is b.decision
            if a.decision.is_sampled() and fits:
                # theirs may write a value the spec calls malformed: read it their way
                assert OtelTraceState.parse(b.trace_state).threshold == mine.threshold  # type: ignore[union-attr]
        if parsed is None and a.decision.is_sampled():
            assert ot_of(a.trace_state) == ("th:" + ("0" if ratio == 1.0 else "8" if ratio == 0.5 else "c"))
