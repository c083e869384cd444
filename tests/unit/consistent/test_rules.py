"""The rule-based composable and its predicates: the cases of OpenTelemetry Python's
composite_sampler/test_rule_based.py (opentelemetry-python 0a5d76b6) checked against
dsampler's, and refused rules. (Its deprecated AttributePredicate has no dsampler twin:
AttributeValuesPredicate with one value is the same.)"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from opentelemetry.context import Context
from opentelemetry.sdk.trace.sampling import Decision
from opentelemetry.trace import Link, NonRecordingSpan, SpanContext, SpanKind, TraceFlags, set_span_in_context
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

from dsampler.consistent import (
    AllPredicate,
    AlwaysMatchPredicate,
    AttributePatternsPredicate,
    AttributeValuesPredicate,
    ParentPredicate,
    SpanKindPredicate,
    composable_always_off,
    composable_always_on,
    composable_rule_based,
    composite_sampler,
)
from dsampler.consistent._predicates import Predicate
from dsampler.consistent._tracestate import ot_of
from dsampler.errors import ConfigError

TRACE_ID = 0x00112233445566778800000000000000
SPAN_ID = 0x0123456789ABCDEF


class NameIsFoo:
    """A user's own predicate, as OpenTelemetry Python's test writes one."""

    def __call__(
        self,
        parent_ctx: Context | None,
        name: str,
        span_kind: SpanKind | None,
        attributes: Attributes,
        links: Sequence[Link] | None,
        trace_state: TraceState | None,
    ) -> bool:
        return name == "foo"

    def __str__(self) -> str:
        return "NameIsFooPredicate"


def matches(
    predicate: Predicate,
    *,
    parent_ctx: Context | None = None,
    span_kind: SpanKind | None = None,
    attributes: Attributes = None,
) -> bool:
    return predicate(
        parent_ctx=parent_ctx,
        name="span",
        span_kind=span_kind,
        attributes=attributes,
        links=None,
        trace_state=None,
    )


def parent_context(remote: bool) -> Context:
    sc = SpanContext(TRACE_ID, SPAN_ID, is_remote=remote, trace_flags=TraceFlags.get_default())
    return set_span_in_context(NonRecordingSpan(sc))


USERS_ON_SERVER = AllPredicate(
    [AttributeValuesPredicate("http.route", ["/users"]), SpanKindPredicate([SpanKind.SERVER])]
)


def test_descriptions() -> None:
    """No rules, and two rules, read as OpenTelemetry Python writes them."""
    assert composable_rule_based(rules=[]).get_description() == "ComposableRuleBased{[]}"
    rules = [
        (AttributeValuesPredicate("foo", ["bar"]), composable_always_on()),
        (NameIsFoo(), composable_always_off()),
    ]
    assert composable_rule_based(rules=rules).get_description() == (
        "ComposableRuleBased{[(foo in [bar]:ComposableAlwaysOn),(NameIsFooPredicate:ComposableAlwaysOff)]}"
    )


def test_always_match() -> None:
    """AlwaysMatch matches and says so."""
    assert matches(AlwaysMatchPredicate()) is True
    assert str(AlwaysMatchPredicate()) == "AlwaysMatch"


def test_all_predicate() -> None:
    """All of several: a server span on /users matches, a client span on it does not."""
    assert matches(USERS_ON_SERVER, span_kind=SpanKind.SERVER, attributes={"http.route": "/users"}) is True
    assert matches(USERS_ON_SERVER, span_kind=SpanKind.CLIENT, attributes={"http.route": "/users"}) is False
    assert str(USERS_ON_SERVER) == "http.route in [/users] && span_kind in [server]"


def test_attribute_values() -> None:
    """No attributes, a stringified integer, an item of an array, and no match."""
    assert matches(AttributeValuesPredicate("http.route", ["/users"])) is False
    assert matches(AttributeValuesPredicate("code", ["404"]), attributes={"code": 404}) is True
    assert (
        matches(AttributeValuesPredicate("method", ["POST"]), attributes={"method": ("GET", "POST")}) is True
    )
    assert (
        matches(AttributeValuesPredicate("http.route", ["/users"]), attributes={"http.route": "/health"})
        is False
    )


def test_attribute_patterns() -> None:
    """All by default, exclusion over inclusion, case-sensitive, items of an array."""
    assert matches(AttributePatternsPredicate("http.route"), attributes={"http.route": "/users"}) is True
    api = AttributePatternsPredicate("http.route", included=["/api/*"], excluded=["/api/private/*"])
    assert matches(api, attributes={"http.route": "/api/users"}) is True
    assert matches(api, attributes={"http.route": "/api/private/user"}) is False
    assert (
        matches(AttributePatternsPredicate("r", included=["/api/*"]), attributes={"r": "/API/users"}) is False
    )
    assert matches(AttributePatternsPredicate("m", ["POST"]), attributes={"m": ("GET", "POST")}) is True
    assert matches(AttributePatternsPredicate("m", ["P?ST"]), attributes={"m": "POST"}) is True
    assert matches(AttributePatternsPredicate("m", ["P*"]), attributes={"other": "POST"}) is False


def test_span_kind() -> None:
    """Server matches, client and no kind do not."""
    predicate = SpanKindPredicate([SpanKind.SERVER])
    assert matches(predicate, span_kind=SpanKind.SERVER) is True
    assert matches(predicate, span_kind=SpanKind.CLIENT) is False
    assert matches(predicate) is False


def test_parent_kinds() -> None:
    """none for a root, local and remote for those parents."""
    assert matches(ParentPredicate(["none"])) is True
    assert matches(ParentPredicate(["local"])) is False
    local, remote = parent_context(remote=False), parent_context(remote=True)
    assert matches(ParentPredicate(["local"]), parent_ctx=local) is True
    assert matches(ParentPredicate(["remote"]), parent_ctx=local) is False
    assert matches(ParentPredicate(["remote"]), parent_ctx=remote) is True
    assert matches(ParentPredicate(["local"]), parent_ctx=remote) is False
    assert str(ParentPredicate(["remote", "none"])) == "parent in [remote,none]"


def test_sampling_intent_of_the_first_match_or_none() -> None:
    """A match gives its sampler's intent (threshold 0); no match the non-sampling one (-1)."""
    sampler = composable_rule_based(rules=[(NameIsFoo(), composable_always_on())])
    assert sampler.sampling_intent(None, "foo", None, {}, None, None).threshold == 0
    assert sampler.sampling_intent(None, "test", None, {}, None, None).threshold == -1
    values = composable_rule_based(rules=[(AttributeValuesPredicate("foo", ["bar"]), composable_always_on())])
    assert values.sampling_intent(None, "span", None, None, None, None).threshold == -1
    assert values.sampling_intent(None, "span", None, {"foo": "foo"}, None, None).threshold == -1
    assert values.sampling_intent(None, "span", None, {"foo": "bar"}, None, None).threshold == 0


FOO_ON = (NameIsFoo(), composable_always_on())
BAR_OFF = (AttributeValuesPredicate("foo", ["bar"]), composable_always_off())


@pytest.mark.parametrize(
    ("rules", "name", "sampled"),
    [([FOO_ON], "foo", True), ([BAR_OFF, FOO_ON], "foo", True), ([FOO_ON], "test", False)],
)
def test_should_sample(rules: list[tuple[Predicate, object]], name: str, sampled: bool) -> None:
    """Under the composite sampler: a match samples with th:0, no match drops with no tracestate."""
    sampler = composite_sampler(composable_rule_based(rules=rules))  # type: ignore[arg-type]
    result = sampler.should_sample(None, random.Random(7).getrandbits(128), name, None, None, None, None)
    assert result.decision is (Decision.RECORD_AND_SAMPLE if sampled else Decision.DROP)
    assert ot_of(result.trace_state) == ("th:0" if sampled else None)
    if not sampled:
        assert result.trace_state is None


@pytest.mark.parametrize(
    ("rules", "field"),
    [
        ("rules", "rules"),
        ([NameIsFoo()], "rules[0]"),
        ([(NameIsFoo(), composable_always_on(), 1)], "rules[0]"),
        ([(5, composable_always_on())], "rules[0][0]"),
        ([(NameIsFoo(), composable_always_on()), (NameIsFoo(), 0.5)], "rules[1][1]"),
    ],
)
def test_bad_rules_are_refused_naming_the_rule(rules: object, field: str) -> None:
    """A rule that is not a (predicate, composable) pair is a ConfigError naming it."""
    with pytest.raises(ConfigError) as caught:
        composable_rule_based(rules)  # type: ignore[arg-type]
    assert caught.value.field == field


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: AttributeValuesPredicate(5, ["a"]), "key"),  # type: ignore[arg-type]
        (lambda: AttributeValuesPredicate("k", "abc"), "values"),
        (lambda: AttributeValuesPredicate("k", ["a", 5]), "values[1]"),  # type: ignore[list-item]
        (lambda: AttributePatternsPredicate("k", included=[None]), "included[0]"),  # type: ignore[list-item]
        (lambda: SpanKindPredicate(["server"]), "span_kinds[0]"),  # type: ignore[list-item]
        (lambda: ParentPredicate(["parent"]), "parents[0]"),
        (lambda: AllPredicate([5]), "predicates[0]"),  # type: ignore[list-item]
        (lambda: AllPredicate(5), "predicates"),  # type: ignore[arg-type]
    ],
)
def test_bad_predicates_are_refused_naming_the_field(make: object, field: str) -> None:
    """Predicate arguments are checked when built: ConfigError naming the argument."""
    with pytest.raises(ConfigError) as caught:
        make()  # type: ignore[operator]
    assert caught.value.field == field
