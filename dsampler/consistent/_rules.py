"""The rule-based composable sampler; predicates and samplers are called with keyword
arguments, as OpenTelemetry Python calls them, so theirs and ours mix."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from opentelemetry.context import Context
from opentelemetry.trace import Link, SpanKind
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

from dsampler._validate import typed
from dsampler.consistent._intent import (
    NON_SAMPLING,
    ComposableSampler,
    Described,
    IntentLike,
    check_composable,
)
from dsampler.consistent._predicates import Predicate
from dsampler.errors import ConfigError

Rule = tuple[Predicate, ComposableSampler]


class _RuleBased(Described):
    __slots__ = ("_rules",)

    def __init__(self, rules: tuple[Rule, ...]) -> None:
        shown = ",".join(f"({predicate}:{sampler.get_description()})" for predicate, sampler in rules)
        super().__init__(f"ComposableRuleBased{{[{shown}]}}")
        self._rules = rules

    def sampling_intent(
        self,
        parent_ctx: Context | None,
        name: str,
        span_kind: SpanKind | None,
        attributes: Attributes,
        links: Sequence[Link] | None,
        trace_state: TraceState | None,
    ) -> IntentLike:
        for predicate, sampler in self._rules:
            if predicate(
                parent_ctx=parent_ctx,
                name=name,
                span_kind=span_kind,
                attributes=attributes,
                links=links,
                trace_state=trace_state,
            ):
                return sampler.sampling_intent(
                    parent_ctx=parent_ctx,
                    name=name,
                    span_kind=span_kind,
                    attributes=attributes,
                    links=links,
                    trace_state=trace_state,
                )
        return NON_SAMPLING


def _rule(rule: object, field: str) -> Rule:
    if not isinstance(rule, (tuple, list)) or len(rule) != 2:
        raise ConfigError(field, f"expected a (predicate, composable sampler) pair, got {typed(rule)}")
    predicate, sampler = rule
    if not callable(predicate):
        raise ConfigError(f"{field}[0]", f"expected a predicate (a callable), got {typed(predicate)}")
    return predicate, check_composable(sampler, f"{field}[1]")


def composable_rule_based(rules: Sequence[Rule]) -> ComposableSampler:
    """The intent of the first rule whose predicate matches the span, else not to sample.

    Args:
        rules: ``(predicate, sampler)`` pairs, dsampler's or OpenTelemetry Python's.

    Raises:
        ConfigError: a rule is not such a pair (the message names ``rules[i]``).
    """
    if isinstance(rules, (str, bytes)) or not isinstance(rules, Iterable):
        raise ConfigError("rules", f"expected a list of (predicate, sampler) pairs, got {typed(rules)}")
    return _RuleBased(tuple(_rule(rule, f"rules[{i}]") for i, rule in enumerate(rules)))
