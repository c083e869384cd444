"""dsampler's composable predicates are the configuration's rules compiled (one rule
language), and still decide as OpenTelemetry Python's own ``_sampling_experimental``
predicates do, for any attributes and any span kind."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from opentelemetry.sdk.trace._sampling_experimental import _rule_based as otel
from opentelemetry.trace import SpanKind

from dsampler.config._rule import AttributeMatch, Match, Pattern
from dsampler.consistent import (
    AttributePatternsPredicate,
    AttributeValuesPredicate,
    SpanKindPredicate,
)
from dsampler.consistent._predicates import MatchPredicate
from dsampler.decision._match import compile_span

_TEXTS = st.sampled_from(["a", "ab", "b", "404", "True", "1.5", "x*", "a?", "[ab]", "GET /x"])
_GLOBS = st.sampled_from(["a*", "*b", "?", "4*4", "[ab]*", "*", "T*", "*.5", "GET /*", "x[*]"])
_KEYS = st.sampled_from(["k", "http.route"])
_SCALARS = st.one_of(_TEXTS, st.booleans(), st.integers(-2, 500), st.sampled_from([1.5, 0.0, 404.0]))
_VALUES = st.one_of(_SCALARS, st.lists(_SCALARS, max_size=3), st.tuples(_SCALARS, _SCALARS))
_ATTRIBUTES = st.one_of(st.none(), st.dictionaries(_KEYS, _VALUES, max_size=2))


def _both(ours: Any, theirs: Any, kind: SpanKind | None, attributes: Any) -> tuple[bool, bool]:
    call = {"parent_ctx": None, "name": "span", "span_kind": kind, "attributes": attributes}
    return ours(**call, links=None, trace_state=None), theirs(**call, links=None, trace_state=None)


@given(_KEYS, st.lists(_TEXTS, max_size=3), _ATTRIBUTES)
def test_attribute_values_decide_as_opentelemetrys(key: str, values: list[str], attributes: Any) -> None:
    ours, theirs = _both(
        AttributeValuesPredicate(key, values), otel.AttributeValuesPredicate(key, values), None, attributes
    )
    assert ours == theirs


@given(_KEYS, st.none() | st.lists(_GLOBS, max_size=2), st.none() | st.lists(_GLOBS, max_size=2), _ATTRIBUTES)
def test_attribute_patterns_decide_as_opentelemetrys(
    key: str, included: list[str] | None, excluded: list[str] | None, attributes: Any
) -> None:
    ours = AttributePatternsPredicate(key, included, excluded)
    theirs = otel.AttributePatternsPredicate(key, included, excluded)
    mine, others = _both(ours, theirs, None, attributes)
    assert mine == others


@given(st.lists(st.sampled_from(list(SpanKind)), max_size=3), st.sampled_from(list(SpanKind)))
def test_span_kinds_decide_as_opentelemetrys(kinds: list[SpanKind], kind: SpanKind) -> None:
    """Every kind the SDK passes (it always passes one; a span without a kind is internal
    to dsampler's rules, and to OpenTelemetry's SDK, which defaults to INTERNAL)."""
    ours, theirs = _both(SpanKindPredicate(kinds), otel.SpanKindPredicate(kinds), kind, None)
    assert ours == theirs


@given(_KEYS, st.lists(_TEXTS, min_size=1, max_size=3), _ATTRIBUTES)
def test_a_predicate_is_its_match_compiled(key: str, values: list[str], attributes: Any) -> None:
    """The predicate holds a Match of the configuration's language, and decides as that
    Match compiled does (what a configuration rule with it decides)."""
    predicate = AttributeValuesPredicate(key, values)
    assert isinstance(predicate, MatchPredicate)
    expected = Match(
        attributes=(
            AttributeMatch(key, tuple(Pattern("exact", v) for v in dict.fromkeys(values)), text=True),
        )
    )
    assert predicate.match == expected
    call = {"parent_ctx": None, "name": "span", "span_kind": None, "links": None, "trace_state": None}
    assert predicate(**call, attributes=attributes) == compile_span(expected)("span", None, attributes)
