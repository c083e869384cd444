"""Sampling results: OTel-neutral by default, read-only when shared, user attributes win,
and numpy trace IDs decided by value on both hashing paths."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from opentelemetry.sdk.trace.sampling import Decision, SamplingResult
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context
from opentelemetry.trace.span import TraceState

from dsampler import DSampler, ParentBasedSampler, PerOperationSampler, RateLimitingSampler, RatioSampler
from dsampler._entry_points import dsampler_sampler, parentbased_dsampler_sampler
from dsampler.clock import ManualClock
from dsampler.decision._children import CHILD_RESULTS, ChildResults
from dsampler.decision._results import DROPPED, FrozenResult, Results
from dsampler.hashing._schemes import SCHEMES

_RNG = random.Random(17)
IDS = [_RNG.getrandbits(128) for _ in range(200)]


def _child_of(sampled: bool, trace_state: TraceState | None = None) -> Any:
    flags = TraceFlags(TraceFlags.SAMPLED if sampled else TraceFlags.DEFAULT)
    sc = SpanContext(0x4BF92F3577B34DA6A3CE929D0E0E4736, 0xABC, True, flags, trace_state)
    return set_span_in_context(NonRecordingSpan(sc))


SAMPLERS = {
    "RatioSampler": lambda: RatioSampler(0.5),
    "RateLimitingSampler": lambda: RateLimitingSampler(1000, clock=ManualClock()),
    "ParentBasedSampler": lambda: ParentBasedSampler(RatioSampler(0.5)),
    "DSampler": lambda: DSampler(rate=0.5, resource={}),
    "PerOperationSampler": lambda: PerOperationSampler({"op": 0.5}, default_lower_bound_per_second=5),
    "entry point dsampler": lambda: dsampler_sampler("0.5"),
    "entry point parentbased_dsampler": lambda: parentbased_dsampler_sampler("0.5"),
}


@pytest.mark.parametrize("make", SAMPLERS.values(), ids=SAMPLERS.keys())
def test_every_otel_sampler_adds_no_attributes_by_default(make: Any) -> None:
    """Roots and children, sampled or dropped: the result carries exactly the span's own
    attributes, nothing added (OpenTelemetry's samplers add none either)."""
    sampler = make()
    outcomes = set()
    for t in IDS:
        for attrs in (None, {"k": 1}):
            result = sampler.should_sample(None, t, "op", None, attrs)
            outcomes.add(result.decision)
            assert dict(result.attributes) == (dict(attrs or {}) if result.decision.is_sampled() else {})
    assert Decision.RECORD_AND_SAMPLE in outcomes
    child = sampler.should_sample(_child_of(True), IDS[0], "child")
    assert dict(child.attributes) == {}


@pytest.mark.parametrize(
    "make",
    [
        lambda: RatioSampler(1.0, sampler_tags=True),
        lambda: RateLimitingSampler(10, clock=ManualClock(), sampler_tags=True),
    ],
    ids=["RatioSampler", "RateLimitingSampler"],
)
def test_sampler_tags_never_overwrite_the_spans_own_attribute(make: Any) -> None:
    """With tags on, a span's own ``sampler.type`` stays; the other tag is added."""
    result = make().should_sample(None, IDS[0], "op", None, {"sampler.type": "mine", "k": 1})
    assert result.attributes["sampler.type"] == "mine"
    assert result.attributes["k"] == 1
    assert "sampler.param" in result.attributes


def test_results_merge_keeps_user_attributes_over_tags() -> None:
    """Results.sample: the span's attributes win over tags of the same name."""
    results = Results({"sampler.type": "probabilistic", "sampler.param": 0.1})
    merged = results.sample({"sampler.param": "user", "x": 2}, None)
    assert dict(merged.attributes) == {"sampler.type": "probabilistic", "sampler.param": "user", "x": 2}


def _shared_results() -> dict[str, SamplingResult]:
    children = ChildResults()
    ts = TraceState([("a", "1")])
    children.of(3, Decision.RECORD_AND_SAMPLE, None, ts)
    return {
        "DROPPED": DROPPED,
        "CHILD_RESULTS sampled": CHILD_RESULTS[1],
        "RatioSampler sampled": RatioSampler(1.0).should_sample(None, IDS[0], "op"),
        "ParentBasedSampler child": ParentBasedSampler(RatioSampler(0.0)).should_sample(
            _child_of(True), IDS[0], "op"
        ),
        "ChildResults memo": children.of(3, Decision.RECORD_AND_SAMPLE, None, ts),
        "DSampler sampled": DSampler(rate=1.0, resource={}).should_sample(None, IDS[0], "op"),
    }


def test_a_result_of_the_spans_own_is_its_own() -> None:
    """A result that carries the span's own attributes (or its parent's tracestate) is
    built for that decision alone, by SamplingResult's own constructor: changing it
    changes nothing else, so it need not refuse, and costs a third less to build."""
    sampler = RatioSampler(1.0)
    first = sampler.should_sample(None, IDS[0], "op", None, {"k": 1})
    second = sampler.should_sample(None, IDS[0], "op", None, {"k": 1})
    assert type(first) is SamplingResult
    assert first is not second
    first.trace_state = TraceState([("mine", "1")])
    assert second.trace_state is None
    assert dict(second.attributes) == {"k": 1}


@pytest.mark.parametrize("label", list(_shared_results()))
def test_results_refuse_mutation_loudly(label: str) -> None:
    """A wrapper sampler that sets ``trace_state`` on a shared result would change every
    later trace: every result dsampler returns raises instead, and stays as it was."""
    result = _shared_results()[label]
    before = (result.decision, dict(result.attributes), result.trace_state)
    assert isinstance(result, SamplingResult)
    assert isinstance(result, FrozenResult)
    with pytest.raises(AttributeError, match="read-only"):
        result.trace_state = TraceState([("evil", "1")])
    with pytest.raises(AttributeError, match="read-only"):
        result.decision = Decision.DROP
    with pytest.raises(AttributeError, match="read-only"):
        del result.attributes
    assert (result.decision, dict(result.attributes), result.trace_state) == before


@pytest.mark.parametrize("make", [np.uint64, np.int64, np.uint32], ids=["uint64", "int64", "uint32"])
@pytest.mark.parametrize("path", ["compiled", "pure Python"])
def test_numpy_trace_ids_decide_by_value_on_both_paths(
    make: Any, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A numpy integer trace ID decides exactly as the int of the same value, without a
    fault, whether the numba kernel or the pure-Python scheme serves."""
    scheme = SCHEMES["fnv1a"]
    if path == "pure Python":
        monkeypatch.setattr(scheme, "key", scheme.reference)
    else:
        pytest.importorskip("numba", reason="the compiled path is the jit extra")
        assert scheme.compiled
    sampler = RatioSampler(0.5)
    limit = 2**31 if make is np.uint32 else 2**63
    values = [t % limit for t in IDS]
    got = [sampler.should_sample(None, make(v), "op").decision for v in values]
    assert got == [sampler.should_sample(None, v, "op").decision for v in values]
    assert len(set(got)) == 2
    assert sampler.faults == 0
