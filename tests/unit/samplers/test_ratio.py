"""RatioSampler: validation, results, tracestate, hostile input, real TracerProvider."""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from opentelemetry.sdk.trace.sampling import Decision, ParentBased, SamplingResult
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from opentelemetry.trace.span import TraceState

from dsampler import ConfigError, RatioSampler, fnv1a64
from dsampler.decision._results import make_result
from tests.conftest import Traced
from tests.parents import ExplodingContext, remote_parent

TRACESTATE = "congo=t61rcWkgMzE,ot=rv:d29d6a7215ced0"


def ids_with(sampler: RatioSampler, sampled: bool, count: int = 1) -> list[int]:
    """Random 128-bit trace IDs (fixed seed) that ``sampler`` samples (or drops)."""
    rng = random.Random(7)
    found: list[int] = []
    while len(found) < count:
        t = rng.getrandbits(128)
        if sampler.should_sample(None, t, "x").decision.is_sampled() is sampled:
            found.append(t)
    return found


@pytest.mark.parametrize(
    "rate", [-0.1, 1.0000001, math.nan, math.inf, -math.inf, "0.1", None, True, [0.1], 2]
)
def test_bad_rates_raise_config_error_naming_rate(rate: Any) -> None:
    """Rates outside [0, 1], NaN, bools and non-numbers are refused at construction."""
    with pytest.raises(ConfigError, match=r"^rate: expected a number in \[0, 1\]") as info:
        RatioSampler(rate)
    assert info.value.field == "rate"
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("name", ["md5", "FNV1A", "", None, 3])
def test_unknown_hash_raises_config_error_listing_rules(name: Any) -> None:
    """An unknown rule name is refused and the message lists the known rules."""
    with pytest.raises(ConfigError, match=r"^hash: expected one of fnv1a, fnv1a-mix, xxh3, otel, jaeger"):
        RatioSampler(0.1, hash=name)


@pytest.mark.parametrize(("rate", "stored"), [(0, 0.0), (1, 1.0), (Fraction(1, 4), 0.25), (-0.0, 0.0)])
def test_numeric_rates_are_stored_as_floats(rate: Any, stored: float) -> None:
    """Ints and fractions are taken as their double; -0.0 becomes 0.0."""
    sampler = RatioSampler(rate)
    assert sampler.rate == stored
    assert math.copysign(1.0, sampler.rate) == 1.0


def test_sampled_root_carries_no_attributes_by_default_as_otel_samplers() -> None:
    """By default neither decision adds an attribute (OpenTelemetry's samplers add none);
    roots carry no tracestate."""
    sampler = RatioSampler(0.25)
    (kept,) = ids_with(sampler, True)
    (dropped,) = ids_with(sampler, False)
    yes = sampler.should_sample(None, kept, "GET /")
    no = sampler.should_sample(None, dropped, "GET /")
    assert yes.decision is Decision.RECORD_AND_SAMPLE
    assert dict(yes.attributes) == {}
    assert no.decision is Decision.DROP
    assert dict(no.attributes) == {}
    assert yes.trace_state is None
    assert no.trace_state is None


def test_sampler_tags_true_tags_sampled_roots_for_jaeger() -> None:
    """``sampler_tags=True``: sampled spans carry sampler.type/sampler.param, dropped none."""
    sampler = RatioSampler(0.25, sampler_tags=True)
    (kept,) = ids_with(sampler, True)
    (dropped,) = ids_with(sampler, False)
    yes = sampler.should_sample(None, kept, "GET /")
    assert dict(yes.attributes) == {"sampler.type": "probabilistic", "sampler.param": 0.25}
    assert dict(sampler.should_sample(None, dropped, "GET /").attributes) == {}


@pytest.mark.parametrize("bad", [1, "yes", None])
def test_sampler_tags_must_be_a_bool(bad: Any) -> None:
    """A non-bool ``sampler_tags`` is refused, naming the field."""
    with pytest.raises(ConfigError, match=r"^sampler_tags"):
        RatioSampler(0.5, sampler_tags=bad)


def test_results_without_attributes_or_tracestate_are_built_once() -> None:
    """Root decisions without attributes return the same prebuilt result objects."""
    sampler = RatioSampler(0.5)
    kept = ids_with(sampler, True, 2)
    dropped = ids_with(sampler, False, 2)
    assert sampler.should_sample(None, kept[0], "a") is sampler.should_sample(None, kept[1], "b")
    assert sampler.should_sample(None, dropped[0], "a") is sampler.should_sample(None, dropped[1], "b")


def test_user_attributes_are_kept_and_never_overwritten_by_tags() -> None:
    """The SDK records only the result's attributes, so the span's own must be in it; a
    user's own ``sampler.type`` wins over the tag of the same name."""
    for tags in (False, True):
        sampler = RatioSampler(0.5, sampler_tags=tags)
        (kept,) = ids_with(sampler, True)
        (dropped,) = ids_with(sampler, False)
        attrs = {"http.method": "GET", "sampler.type": "user"}
        result = sampler.should_sample(None, kept, "GET /", None, attrs)
        expected = {"http.method": "GET", "sampler.type": "user"} | ({"sampler.param": 0.5} if tags else {})
        assert dict(result.attributes) == expected
        assert attrs == {"http.method": "GET", "sampler.type": "user"}  # the caller's dict is untouched
        assert dict(sampler.should_sample(None, dropped, "GET /", None, attrs).attributes) == {}


@pytest.mark.parametrize("parent_sampled", [True, False])
def test_parent_tracestate_is_returned_unchanged_with_both_decisions(parent_sampled: bool) -> None:
    """The SDK never passes tracestate in: the sampler must hand the parent's back."""
    sampler = RatioSampler(0.5)
    ts = TraceState.from_header([TRACESTATE])
    for trace_id in ids_with(sampler, True) + ids_with(sampler, False):
        result = sampler.should_sample(remote_parent(trace_id, parent_sampled, ts), trace_id, "child")
        assert result.trace_state is ts


def test_make_result_equals_what_sampling_result_builds() -> None:
    """The fast constructor sets exactly the fields SamplingResult.__init__ sets."""
    ts = TraceState([("a", "b")])
    fast = make_result(Decision.RECORD_AND_SAMPLE, SamplingResult(Decision.DROP, {"k": 1}).attributes, ts)
    slow = SamplingResult(Decision.RECORD_AND_SAMPLE, {"k": 1}, ts)
    assert vars(fast).keys() == vars(slow).keys()
    assert (fast.decision, dict(fast.attributes), fast.trace_state) == (
        slow.decision,
        dict(slow.attributes),
        slow.trace_state,
    )


@pytest.mark.parametrize(
    ("odd", "reduced"),
    [(0, 0), (-1, 2**128 - 1), (2**128, 0), (2**128 + 5, 5), (2**200 + 7, 7), (-(2**64), 2**128 - 2**64)],
)
def test_odd_trace_ids_decide_as_their_value_modulo_2_128(odd: int, reduced: int) -> None:
    """0, negative and wider-than-128-bit IDs decide as their low 128 bits, not fault."""
    for rate in (0.1, 0.5, 0.9):
        sampler = RatioSampler(rate)
        expected = fnv1a64(reduced) < sampler.bound
        assert sampler.should_sample(None, odd, "x").decision.is_sampled() is expected
        assert sampler.faults == 0


@pytest.mark.parametrize("bad", [None, "abc", 1.5, b"\x01", object()])
def test_non_int_trace_ids_drop_count_and_log_once(bad: Any, caplog: pytest.LogCaptureFixture) -> None:
    """A trace ID that is not an int is dropped, counted and logged once, never raised."""
    sampler = RatioSampler(1.0)
    with caplog.at_level(logging.WARNING, logger="dsampler.samplers"):
        for _ in range(3):
            assert sampler.should_sample(None, bad, "x").decision is Decision.DROP
    assert sampler.faults == 3
    assert len([r for r in caplog.records if "internal fault" in r.getMessage()]) == 1


def test_unreadable_parent_falls_back_to_the_trace_id_rule() -> None:
    """If the parent cannot be read the decision still follows the trace ID, and counts."""
    sampler = RatioSampler(0.5)
    (kept,) = ids_with(sampler, True)
    (dropped,) = ids_with(sampler, False)
    assert sampler.should_sample(ExplodingContext(), kept, "x").decision.is_sampled()
    assert not sampler.should_sample(ExplodingContext(), dropped, "x").decision.is_sampled()
    assert sampler.faults == 2


def test_description_names_rate_and_rule() -> None:
    """get_description shows the effective configuration, as OTel's samplers do."""
    assert RatioSampler(0.125, hash="xxh3").get_description() == "RatioSampler{rate=0.125,hash=xxh3}"


def test_sampler_is_truthy() -> None:
    """TracerProvider silently replaces a falsy sampler with the env default."""
    assert bool(RatioSampler(0.0))


def test_real_tracer_provider_samples_near_the_rate(traced: Callable[[Any], Traced]) -> None:
    """5,000 root spans through a real TracerProvider: sampled count within 4 sigma of 25%."""
    t = traced(RatioSampler(0.25))
    n = 5000
    for i in range(n):
        with t.tracer.start_as_current_span(f"op-{i % 7}", attributes={"i": i}):
            pass
    spans = t.finished()
    sigma = math.sqrt(n * 0.25 * 0.75)
    assert abs(len(spans) - n * 0.25) <= 4 * sigma
    assert all(set(s.attributes) == {"i"} for s in spans)  # the span's own attributes, nothing added
    assert all(fnv1a64(s.context.trace_id) < RatioSampler(0.25).bound for s in spans)


def test_sampler_tags_in_a_real_provider_and_the_spans_own_attribute_wins(
    traced: Callable[[Any], Traced],
) -> None:
    """With tags on, the SDK records sampler.type/sampler.param on sampled roots, except a
    ``sampler.param`` the span was started with, which stays the span's."""
    t = traced(RatioSampler(1.0, sampler_tags=True))
    with t.tracer.start_as_current_span("plain"):
        pass
    with t.tracer.start_as_current_span("own", attributes={"sampler.param": "mine"}):
        pass
    plain, own = t.finished()
    assert dict(plain.attributes) == {"sampler.type": "probabilistic", "sampler.param": 1.0}
    assert dict(own.attributes) == {"sampler.type": "probabilistic", "sampler.param": "mine"}


def test_tracestate_survives_into_children_in_a_real_provider(traced: Callable[[Any], Traced]) -> None:
    """A child of a remote parent keeps every tracestate entry, vendor and ``ot`` alike."""
    t = traced(ParentBased(RatioSampler(0.0)))
    carrier = {
        "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "tracestate": TRACESTATE,
    }
    ctx = TraceContextTextMapPropagator().extract(carrier)
    with t.tracer.start_as_current_span("server", context=ctx), t.tracer.start_as_current_span("inner"):
        pass
    spans = t.finished()
    assert len(spans) == 2
    for span in spans:
        assert span.context.trace_state.to_header() == TRACESTATE


def test_as_root_of_otel_parent_based_children_follow_the_parent(traced: Callable[[Any], Traced]) -> None:
    """Wrapped in OpenTelemetry's ParentBased, a sampled root's children are all kept."""
    t = traced(ParentBased(RatioSampler(0.5)))
    for i in range(200):
        with t.tracer.start_as_current_span(f"root-{i}"), t.tracer.start_as_current_span("child"):
            pass
    spans = t.finished()
    by_trace: dict[int, int] = {}
    for span in spans:
        by_trace[span.context.trace_id] = by_trace.get(span.context.trace_id, 0) + 1
    assert by_trace
    assert set(by_trace.values()) == {2}
