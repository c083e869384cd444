"""One public scenario for every OpenTelemetry sampler dsampler ships: it never raises,
carries the parent's tracestate, follows the parent when it is parent-based, puts no
attributes on drops, and describes itself stably."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from opentelemetry.context import Context
from opentelemetry.sdk.trace.sampling import Decision, Sampler
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context
from opentelemetry.trace.span import TraceState

from dsampler import (
    DSampler,
    JaegerRemoteSampler,
    ManualClock,
    ParentBasedSampler,
    PerOperationSampler,
    RateLimitingSampler,
    RatioSampler,
)
from dsampler.consistent import explicit_randomness, ot_without_threshold, randomness, threshold_of
from tests.conftest import Traced

TID = 0x4BF92F3577B34DA6A3CE929D0E0E4736
TS = TraceState([("vendor", "v1"), ("ot", "th:8")])

#: name -> (factory, follows its parent by itself)
SAMPLERS: dict[str, tuple[Callable[[], Sampler], bool]] = {
    "RatioSampler": (lambda: RatioSampler(0.5), False),
    "RateLimitingSampler": (lambda: RateLimitingSampler(5, clock=ManualClock()), False),
    "PerOperationSampler": (
        lambda: PerOperationSampler({"op": {"rate": 0.5, "lower_bound_per_second": 1}}, clock=ManualClock()),
        False,
    ),
    "ParentBasedSampler": (lambda: ParentBasedSampler(RatioSampler(0.5)), True),
    "DSampler": (lambda: DSampler(rate=0.5, clock=ManualClock()), True),
    "DSampler with rules": (
        lambda: DSampler(
            rate=0.5,
            rules=[
                {"match": {"span_name": {"prefix": "GET /health"}}, "action": "drop"},
                {"match": {"attributes": {"tenant": "acme"}}, "action": {"rate_limit": 2}},
            ],
            operations={"op": 1.0},
            default_lower_bound_per_second=1.0,
            traces_per_second=100,
            clock=ManualClock(),
            resource={},
        ),
        True,
    ),
    "DSampler not parent-based": (lambda: DSampler(rate=0.5, parent_based=False), False),
    # Remote: decisions only (no poll); tags are on by default, off here; the IDs of this
    # scenario are sequential, which the default `otel` rule (low 64 bits) does not mix.
    "JaegerRemoteSampler": (
        lambda: JaegerRemoteSampler(
            "svc", initial_sampler=0.5, hash="fnv1a", sampler_tags=False, start=False, resource={}
        ),
        True,
    ),
    "JaegerRemoteSampler (jaeger_remote)": (
        lambda: JaegerRemoteSampler(
            "svc",
            initial_sampler=0.5,
            hash="fnv1a",
            parent_based=False,
            sampler_tags=False,
            start=False,
            resource={},
        ),
        False,
    ),
}
IDS = pytest.mark.parametrize("name", SAMPLERS)


def parent(sampled: bool, remote: bool = True, trace_state: TraceState | None = TS) -> Context:
    flags = TraceFlags(TraceFlags.SAMPLED if sampled else TraceFlags.DEFAULT)
    return set_span_in_context(NonRecordingSpan(SpanContext(TID, 0xABC, remote, flags, trace_state)))


class Hostile(int):
    """An int whose own operators raise."""

    def __rshift__(self, other: Any) -> int:
        raise ValueError("hostile")

    __and__ = __rshift__


HOSTILE_CALLS: list[tuple[Any, ...]] = [
    (None, None, "op"),
    (None, "not an id", "op"),
    (None, -1, "op"),
    (None, 2**200, "op"),
    (None, Hostile(TID), "op"),
    (None, TID, None),
    (None, TID, ["unhashable"]),
    (None, TID, "x" * 1_000_000),
    (None, TID, "op", "not a kind", {"a": object()}),
    (None, TID, "op", None, "attributes that are a str"),
    ({"not": "a context"}, TID, "op"),
    (set_span_in_context("not a span"), TID, "op"),  # type: ignore[arg-type]
    (Context(), TID, "op", None, None, [object()]),
]


@IDS
def test_never_raises_on_hostile_input(name: str) -> None:
    """Wrong types, huge names, broken contexts and hostile ints give a decision."""
    sampler = SAMPLERS[name][0]()
    for args in HOSTILE_CALLS:
        result = sampler.should_sample(*args)
        assert result.decision in (Decision.DROP, Decision.RECORD_AND_SAMPLE)


@IDS
def test_carries_the_parent_tracestate(name: str) -> None:
    """Whatever it decides, the parent's tracestate comes back: unchanged, or (samplers
    stating thresholds) with only its ``th`` changed, and truthfully: none on a drop, and
    on a sampled span one that the trace's randomness meets."""
    sampler = SAMPLERS[name][0]()
    for sampled in (True, False):
        for remote in (True, False):
            result = sampler.should_sample(parent(sampled, remote), TID, "op")
            ts = result.trace_state
            if ts is TS:
                continue
            assert list(ts.keys()) in (["ot", "vendor"], ["vendor"])
            assert ts["vendor"] == "v1"
            assert ot_without_threshold(ts.get("ot")) is None  # th alone changes in ot
            assert explicit_randomness(ts) is None
            th = threshold_of(ts)
            if not result.decision.is_sampled():
                assert th is None
            elif th is not None:
                assert randomness(TID, ts) >= th


@IDS
def test_follows_the_parent_when_parent_based(name: str) -> None:
    """A parent-based sampler keeps every child of a sampled parent and drops every
    child of an unsampled one, whatever its own rate; the others decide children by
    their own rule (some children of unsampled parents kept, some of sampled dropped)."""
    factory, follows = SAMPLERS[name]
    first, second = factory(), factory()  # a fresh one each: a rate limiter's credits are spent
    of_sampled = [first.should_sample(parent(True), TID + 7919 * i, "op").decision for i in range(200)]
    of_unsampled = [second.should_sample(parent(False), TID + 7919 * i, "op").decision for i in range(200)]
    if follows:
        assert set(of_sampled) == {Decision.RECORD_AND_SAMPLE}
        assert set(of_unsampled) == {Decision.DROP}
    else:
        assert Decision.DROP in of_sampled
        assert Decision.RECORD_AND_SAMPLE in of_unsampled


@IDS
def test_no_attributes_on_drops_and_none_added_by_default(name: str) -> None:
    """Drops carry no attributes; sampled spans carry only their own (no sampler tags
    by default, as OpenTelemetry's samplers)."""
    sampler = SAMPLERS[name][0]()
    results = [sampler.should_sample(None, TID + 7919 * i, "op", None, {"k": i}) for i in range(300)]
    drops = [r for r in results if r.decision is Decision.DROP]
    kept = [r for r in results if r.decision is Decision.RECORD_AND_SAMPLE]
    assert drops
    assert kept
    assert all(not r.attributes for r in drops)
    if name not in ("RatioSampler", "RateLimitingSampler", "ParentBasedSampler"):
        assert all(set(r.attributes) == {"k"} for r in kept)


@IDS
def test_description_is_stable(name: str) -> None:
    """get_description() is a plain string without object addresses, unchanged by
    decisions."""
    sampler = SAMPLERS[name][0]()
    before = sampler.get_description()
    for i in range(50):
        sampler.should_sample(None, TID + i, f"op-{i}")
    assert sampler.get_description() == before
    assert isinstance(before, str)
    assert not re.search(r"0x[0-9a-f]{6,}", before)


@IDS
def test_works_inside_a_real_tracer_provider(name: str, traced: Callable[[Sampler], Traced]) -> None:
    """Spans start and end under a real TracerProvider; children of kept roots are kept
    when the sampler is parent-based."""
    factory, follows = SAMPLERS[name]
    t = traced(factory())
    for i in range(50):
        with t.tracer.start_as_current_span(f"root-{i}"), t.tracer.start_as_current_span("child"):
            pass
    spans = t.finished()
    roots = {s.context.trace_id for s in spans if s.parent is None}
    if follows:
        assert {s.context.trace_id for s in spans if s.parent is not None} == roots
    assert len(spans) >= len(roots)
