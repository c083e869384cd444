"""The rule index at the edges a walk over the predicates gets right by construction: a
string subclass, True against 1, a list value, a kind that is no SpanKind, globs and
prefixes of several lengths, and rules that differ only after their first attribute."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry.trace import SpanKind

from dsampler.config._parse_rules import parse_rules
from dsampler.decision._match import compile_match
from dsampler.engine._index import RuleIndex


class Text(str):
    """A str subclass, as an instrumentation library might hand over."""


def index(*rules: dict[str, Any]) -> RuleIndex[int]:
    parsed = parse_rules([{**r, "action": "drop"} for r in rules], "rules")
    compiled = [(rule.match, compile_match(rule.match, {}), rank) for rank, rule in enumerate(parsed)]
    return RuleIndex([(m, p, rank) for m, p, rank in compiled if p is not None])


@pytest.mark.parametrize(
    ("rules", "span", "expected"),
    [
        ([{"match": {"attributes": {"tenant": "acme"}}}], ("x", None, {"tenant": Text("acme")}), 0),
        ([{"match": {"attributes": {"flag": 1}}}], ("x", None, {"flag": True}), None),
        ([{"match": {"attributes": {"flag": True}}}], ("x", None, {"flag": True}), 0),
        ([{"match": {"attributes": {"n": 1}}}], ("x", None, {"n": 1.0}), None),
        ([{"match": {"attributes": {"tenant": "a"}}}], ("x", None, {"tenant": ["a"]}), None),
        ([{"match": {"span_kind": "server"}}, {"match": {}}], ("x", "not a kind", None), 1),
        ([{"match": {"span_kind": "internal"}}], ("x", None, None), 0),
        ([{"match": {"span_name": {"glob": "GET /*"}}}], ("GET /x", None, None), 0),
        (
            [{"match": {"span_name": {"prefix": "GET /a"}}}, {"match": {"span_name": {"prefix": "GET /ab"}}}],
            ("GET /abc", None, None),
            0,
        ),
        ([{"match": {"span_name": {"prefix": "GET /abcd"}}}], ("GET", None, None), None),
        (
            [
                {"match": {"attributes": {"tenant": "acme", "tier": "gold"}}},
                {"match": {"attributes": {"tenant": "acme"}}},
            ],
            ("x", SpanKind.SERVER, {"tenant": "acme", "tier": "free"}),
            1,
        ),
        ([{"match": {"attributes": {"tenant": {"prefix": "ac"}}}}], ("x", None, {"tenant": "acme"}), 0),
    ],
)
def test_the_first_matching_rule_is_found_at_the_edges(
    rules: list[dict[str, Any]], span: tuple, expected: int | None
) -> None:
    """Each case is what the predicates, walked in order, decide."""
    found = index(*rules).first(*span)
    walked = next((rank for rank, (p, _) in enumerate(index(*rules).rules) if p(*span)), None)
    assert (found, walked) == (expected, expected)


def test_a_thousand_rules_that_cannot_match_are_not_evaluated() -> None:
    """A span no rule can match evaluates no predicate, however many rules there are."""
    rules = [{"match": {"span_name": f"GET /r{i}", "attributes": {"tenant": f"t{i}"}}} for i in range(1000)]
    built = index(*rules)
    calls = []
    built.rules = tuple((lambda *a, i=i: calls.append(i) or False, d) for i, (_, d) in enumerate(built.rules))
    assert built.first("GET /x", SpanKind.SERVER, {"tenant": "t5"}) is None
    assert built.first("GET /r5", SpanKind.SERVER, {"tenant": "other"}) is None
    assert calls == []  # neither name and value together can match
    assert built.first("GET /r5", SpanKind.SERVER, {"tenant": "t5"}) is None  # the stand-in says no
    assert calls == [5]  # the one rule whose name and first attribute value match
