"""Properties of the engine: the rule index finds what a walk over the rules finds, for
any rules and any span."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.trace import SpanKind

from dsampler.config._rule import AttributeMatch, Match, Pattern
from dsampler.decision._match import compile_match
from dsampler.engine._index import RuleIndex

_WORDS = st.sampled_from(["", "a", "ab", "abc", "b", "ba", "GET /x", "GET /xy", "x*", "a?c"])
_PATTERNS = st.builds(Pattern, st.sampled_from(["exact", "prefix", "glob"]), _WORDS.filter(bool))
_KINDS = st.sampled_from(["internal", "server", "client", "producer", "consumer"])
_KEYS = st.sampled_from(["k1", "k2", "tenant"])
_VALUES = st.one_of(_PATTERNS, st.booleans(), st.integers(-2, 2), st.sampled_from([1.0, 2.5]))
_ATTRIBUTE_MATCHES = st.one_of(
    st.builds(AttributeMatch, _KEYS, st.lists(_VALUES, min_size=1, max_size=3).map(tuple)),
    st.builds(  # compared as text (OpenTelemetry's attribute predicates)
        AttributeMatch,
        _KEYS,
        st.lists(_PATTERNS, max_size=3).map(tuple),
        st.lists(_PATTERNS, max_size=2).map(tuple),
        text=st.just(True),
    ),
)
_MATCHES = st.builds(
    Match,
    span_name=st.lists(_PATTERNS, max_size=3).map(tuple),
    span_kind=st.lists(_KINDS, max_size=2, unique=True).map(tuple),
    attributes=st.lists(_ATTRIBUTE_MATCHES, max_size=2, unique_by=lambda m: m.key).map(tuple),
)
_SPAN_KINDS = st.one_of(st.none(), st.sampled_from(list(SpanKind)), st.just("not a kind"))


class _Text(str):
    """A str subclass: string patterns match it as they match a str."""


_SPAN_VALUES = st.one_of(
    _WORDS,
    _WORDS.map(_Text),
    st.booleans(),
    st.integers(-2, 2),
    st.sampled_from([1.0, 2.5, 0.0]),
    st.lists(_WORDS, max_size=2),  # a sequence attribute: unhashable
)
_SPAN_ATTRIBUTES = st.one_of(st.none(), st.dictionaries(_KEYS, _SPAN_VALUES, max_size=3))

_SPANS = st.tuples(_WORDS, _SPAN_KINDS, _SPAN_ATTRIBUTES)


def _linear(rules: list[tuple[Any, int]], name: str, kind: Any, attributes: Any) -> int | None:
    for predicate, rank in rules:
        if predicate(name, kind, attributes):
            return rank
    return None


@settings(max_examples=400, deadline=None)
@given(
    st.lists(_MATCHES, max_size=12), st.lists(st.tuples(_WORDS, _SPAN_KINDS, _SPAN_ATTRIBUTES), max_size=8)
)
def test_the_index_finds_the_first_matching_rule_as_a_walk_does(
    matches: list[Match], spans: list[tuple[str, Any, Any]]
) -> None:
    """First match wins, by rule order, exactly as walking every predicate in turn."""
    compiled = [(m, compile_match(m, {}), rank) for rank, m in enumerate(matches)]
    rules = [(m, p, rank) for m, p, rank in compiled if p is not None]
    index = RuleIndex(rules)
    walk = [(p, rank) for _, p, rank in rules]
    for name, kind, attributes in spans:
        assert index.first(name, kind, attributes) == _linear(walk, name, kind, attributes)
