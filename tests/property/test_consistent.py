"""Properties of consistent sampling: the ot parser and writer, R >= T and the scheme that
states it, monotone thresholds, and a composite sampler that never raises."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from opentelemetry.context import Context
from opentelemetry.sdk.trace.sampling import Decision, SamplingResult
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context
from opentelemetry.trace.span import TraceState

from dsampler.consistent import (
    MAX_THRESHOLD,
    SamplingIntent,
    composable_parent_threshold,
    composable_traceid_ratio_based,
    composite_sampler,
    encode_th,
    ot_with_threshold,
    ot_without_threshold,
    parse_ot,
    ratio_to_threshold,
)
from dsampler.consistent._ot import MAX_OT_LENGTH
from dsampler.consistent._threshold import decode_th
from dsampler.hashing._reference import MASK64
from dsampler.hashing._schemes import get_scheme
from tests.property.strategies import rates, trace_ids

MEMBER = re.compile(r"[a-z][a-z0-9]*:[A-Za-z0-9._\-]*")
thresholds = st.integers(min_value=0, max_value=MAX_THRESHOLD - 1)
keys = st.from_regex(r"[a-z][a-z0-9]{0,5}", fullmatch=True).filter(lambda k: k not in ("th", "rv"))
chars = st.from_regex(r"[A-Za-z0-9._\-]{0,12}", fullmatch=True)


@st.composite
def ot_values(draw: st.DrawFn) -> str:
    """Well-formed ot values: unknown members, maybe a th (valid or not), maybe an rv."""
    members = [f"{k}:{v}" for k, v in draw(st.dictionaries(keys, chars, max_size=5)).items()]
    if draw(st.booleans()):
        members.append("th:" + draw(st.one_of(thresholds.map(encode_th), chars)))
    if draw(st.booleans()):
        members.append("rv:" + draw(st.one_of(st.integers(0, 2**56 - 1).map("{:014x}".format), chars)))
    order = draw(st.permutations(members)) if members else []
    return ";".join(order) or "x:1"


@given(ot_values())
def test_well_formed_values_parse(value: str) -> None:
    """Every value the grammar makes parses, th and rv read as their sub-values."""
    parsed = parse_ot(value)
    assert parsed is not None
    if parsed.th is not None:
        assert parsed.threshold == decode_th(parsed.th)


@given(ot_values(), thresholds)
def test_writing_th_changes_th_alone(value: str, threshold: int) -> None:
    """After writing, th reads back as T, rv and every other member are as they were,
    the value fits 256 characters (or the write is refused), and writing again changes
    nothing."""
    before = parse_ot(value)
    written = ot_with_threshold(value, threshold)
    assert before is not None
    if written is None:
        assert len(value) + len(encode_th(threshold)) + 4 > MAX_OT_LENGTH
        return
    after = parse_ot(written)
    assert after is not None
    assert len(written) <= MAX_OT_LENGTH
    assert after.threshold == threshold
    assert (after.rv, after.others) == (before.rv, before.others)
    assert written.count("th:") - value.count("th:") in (0, 1)
    assert ot_with_threshold(written, threshold) is written


@given(ot_values())
def test_erasing_th_changes_th_alone(value: str) -> None:
    """Erasing leaves no th and everything else as it was."""
    before = parse_ot(value)
    erased = ot_without_threshold(value)
    assert before is not None
    if erased is None:
        assert before.rv is None
        assert not before.others
        return
    after = parse_ot(erased)
    assert after is not None
    assert after.th is None
    assert (after.rv, after.others) == (before.rv, before.others)


@given(st.text(max_size=300))
def test_any_text_parses_or_is_refused_without_raising(text: str) -> None:
    """Arbitrary text never raises; what parses is made of grammar members only."""
    parsed = parse_ot(text)
    if parsed is not None:
        assert all(MEMBER.fullmatch(m) for m in text.split(";"))
        assert len(text) <= MAX_OT_LENGTH


@given(rates, rates)
def test_thresholds_fall_as_ratios_rise(r1: float, r2: float) -> None:
    """A higher ratio never has a higher threshold, at full precision and at 4 digits."""
    low, high = sorted((r1, r2))
    assert ratio_to_threshold(high) <= ratio_to_threshold(low)
    assert ratio_to_threshold(high, 4) <= ratio_to_threshold(low, 4)


@given(trace_ids, rates)
def test_the_consistent_scheme_is_r_at_least_t(trace_id: int, rate: float) -> None:
    """key(hi, lo) < bound(rate) exactly when (trace_id & 2**56-1) >= ratio_to_threshold(rate)."""
    scheme = get_scheme("consistent")
    decided = scheme.key(trace_id >> 64, trace_id & MASK64) < scheme.bound(rate)
    assert decided is ((trace_id & (2**56 - 1)) >= ratio_to_threshold(rate))


def _context(trace_id: int, sampled: bool, ts: Any) -> Context:
    flags = TraceFlags(TraceFlags.SAMPLED if sampled else TraceFlags.DEFAULT)
    return set_span_in_context(NonRecordingSpan(SpanContext(trace_id or 1, 7, True, flags, ts)))


hostile = st.one_of(
    st.none(),
    st.integers(),
    st.floats(),
    st.text(max_size=10),
    st.binary(max_size=10),
    st.lists(st.integers(), max_size=3),
    st.builds(object),
)
tracestates = st.one_of(
    st.none(),
    st.builds(lambda v: TraceState([("ot", v)]), ot_values()),
    st.builds(lambda v: TraceState([("ot", v), ("vendor", "x")]), st.text(max_size=20)),
    hostile,
)
drawn_attributes = st.one_of(st.none(), st.dictionaries(st.text(max_size=3), st.integers()), hostile)
intents = st.one_of(
    st.builds(SamplingIntent, st.one_of(st.integers(-5, MAX_THRESHOLD + 5), hostile), st.booleans()),
    st.builds(SamplingIntent, thresholds, st.booleans(), drawn_attributes),
    hostile,
)


class Given:
    """A composable returning a drawn intent, or raising."""

    def __init__(self, intent: object, raises: bool) -> None:
        self.intent, self.raises = intent, raises

    def sampling_intent(self, *args: object) -> object:
        if self.raises:
            raise RuntimeError("a broken composable")
        return self.intent

    def get_description(self) -> str:
        return "Given"


@given(
    st.one_of(trace_ids, hostile),
    st.one_of(st.builds(_context, trace_ids, st.booleans(), tracestates), hostile),
    intents,
    st.booleans(),
    st.one_of(st.none(), st.dictionaries(st.text(max_size=5), st.integers(), max_size=3), hostile),
)
def test_should_sample_never_raises(
    trace_id: Any, context: Any, intent: Any, raises: bool, attributes: Any
) -> None:
    """Hostile trace IDs, contexts, tracestates, intents and attributes: a result every
    time, whose tracestate (if any) is a TraceState; a composable that raises is a
    counted fault and a drop."""
    given_sampler = composite_sampler(Given(intent, raises))  # type: ignore[arg-type]
    for sampler in (
        given_sampler,
        composite_sampler(composable_parent_threshold(composable_traceid_ratio_based(0.5))),
    ):
        result = sampler.should_sample(context, trace_id, "span", None, attributes)
        assert isinstance(result, SamplingResult)
        assert result.trace_state is None or isinstance(result.trace_state, TraceState)
        assert result.decision in (Decision.DROP, Decision.RECORD_AND_SAMPLE)
        if sampler is given_sampler and raises:
            assert result.decision is Decision.DROP
            assert given_sampler.faults == 1  # type: ignore[attr-defined]
