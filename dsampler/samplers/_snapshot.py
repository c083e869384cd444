"""A published configuration compiled for the request path, and the state that must
outlive it.

:func:`build_snapshot` turns a :class:`SamplingConfig` into a :class:`Snapshot`: rules become
predicates and routes, bounds are computed, results prebuilt. A plan never changes
after it is published (its cache of tracked operations aside); what a new plan must
inherit from the old one lives in :class:`~dsampler.samplers._runtime.RuntimeState`.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from opentelemetry.sdk.trace.sampling import SamplingResult
from opentelemetry.trace import SpanKind
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

from dsampler.config._model import SamplingConfig
from dsampler.config._rule import Action, Drop, Match, RateLimit, Rollout, Rule, Sample
from dsampler.hashing._schemes import HashScheme, get_scheme
from dsampler.samplers._deciders import (
    Decider,
    DropDecider,
    OperationDecider,
    RateLimitDecider,
    RatioDecider,
    RolloutDecider,
)
from dsampler.samplers._match import Predicate, compile_match
from dsampler.samplers._otel import RECORD_AND_SAMPLE, Results
from dsampler.samplers._runtime import RuntimeState

__all__ = ["Snapshot", "build_snapshot"]


class Snapshot:
    """What the request path reads: one published snapshot, compiled.

    ``simple`` plans (no rules, no operations, no cap, no lower bound) are decided by
    the facade inline from ``default``; the others through :meth:`decide_root`.
    """

    __slots__ = (
        "_op_keys",
        "_rollouts",
        "_rule_keys",
        "_scheme",
        "_state",
        "_tracked",
        "backstop",
        "cap",
        "config",
        "default",
        "keep",
        "lower_bound",
        "offered",
        "operations",
        "parent_based",
        "rules",
        "simple",
        "version_tag",
    )

    rules: tuple[tuple[Predicate, Decider], ...]
    operations: dict[str, Decider]
    _rule_keys: set[Hashable]
    _op_keys: set[Hashable]
    _rollouts: set[Rollout]

    def __init__(
        self,
        config: SamplingConfig,
        state: RuntimeState,
        resource: Mapping[str, Any],
        previous: Snapshot | None = None,
    ) -> None:
        self.config = config
        self._state = state
        self._scheme: HashScheme = get_scheme(config.hash)
        self.version_tag = {"dsampler.config_version": config.version} if config.record_version else {}
        self.parent_based = config.parent_based
        self.default = RatioDecider("default rate", config.rate, self._scheme, self.version_tag)
        self.lower_bound = config.default_lower_bound_per_second
        # Routes are immutable: parts whose inputs are the very same objects are reused,
        # so `update(rate=...)` on a config of 2,000 operations rebuilds only the default.
        same = previous is not None and (previous.config.hash, previous.version_tag) == (
            config.hash,
            self.version_tag,
        )
        reused = 0
        if same and previous is not None and config.rules is previous.config.rules:
            self.rules, self._rule_keys, self._rollouts = (
                previous.rules,
                previous._rule_keys,
                previous._rollouts,
            )
            reused += 1
        else:
            self._rule_keys, self._rollouts = set(), set()
            self.rules = tuple(self._compile_rules(resource))
        if (
            same
            and previous is not None
            and config.operations is previous.config.operations
            and (self.lower_bound == previous.lower_bound)
        ):
            self.operations, self._op_keys = previous.operations, previous._op_keys
            reused += 1
        else:
            self._op_keys = set()
            self.operations = {
                name: self._operation(name, s.rate, s.lower_bound_per_second, self._op_keys)
                for name, s in config.operations.items()
            }
        self._tracked: dict[str, Decider] = {}  # this plan's routes of tracked operations
        self.cap = None
        if config.traces_per_second is not None:
            self.cap = state.bucket(("cap",), config.traces_per_second)
        same_cap = previous is not None and (previous.cap is None) == (self.cap is None)
        self.keep: tuple[set[Hashable], set[Rollout]] | None = None
        if reused < 2 or not same_cap:  # the set of stateful keys may have changed: prune
            in_use: set[Hashable] = self._rule_keys | self._op_keys
            if self.cap is not None:
                in_use.add(("cap",))
            self.keep = (in_use, self._rollouts)
        self.simple = not self.rules and not self.operations and self.cap is None and self.lower_bound == 0
        # The adaptive controller's hook: its count of root decisions made by the default
        # rate (one add, no lock) and its hard cap on what they sample.
        meter = state.meter
        self.offered = None if meter is None else meter.offered
        self.backstop = None if meter is None else meter.backstop

    def _compile_rules(self, resource: Mapping[str, Any]) -> list[tuple[Predicate, Decider]]:
        compiled = []
        seen: dict[tuple[str | None, Match], int] = {}
        for i, rule in enumerate(self.config.rules):
            # A stateful rule's state is keyed by what it is, not where it stands, so that
            # reordering keeps balances; identical rules are told apart by their rank.
            rank = seen[rule.name, rule.match] = seen.get((rule.name, rule.match), -1) + 1
            predicate = compile_match(rule.match, resource)
            if predicate is not None:
                source = f"rules[{i}]" + (f" ({rule.name})" if rule.name else "")
                compiled.append((predicate, self._route(source, rule, rank)))
        return compiled

    def _route(self, source: str, rule: Rule, rank: int) -> Decider:
        action: Action = rule.action
        match action:
            case Drop():
                return DropDecider(source)
            case Sample(rate=rate):
                return RatioDecider(source, rate, self._scheme, self.version_tag)
            case RateLimit(per_second=per_second):
                key = ("scheme", rule.name, rule.match, rank)
                self._rule_keys.add(key)
                return RateLimitDecider(
                    source, self._state.bucket(key, per_second), per_second, self.version_tag
                )
            case Rollout():
                self._rollouts.add(action)
                anchor = self._state.anchor(action)
                starts = [
                    self._state.to_monotonic(s.at.timestamp())
                    if s.at is not None
                    else anchor + (s.after_s or 0.0)
                    for s in action.steps
                ]
                rates = [s.rate for s in action.steps]
                return RolloutDecider(
                    source, starts, rates, self._scheme, self._state.clock, self.version_tag
                )
        raise TypeError(f"unknown action {action!r}")  # pragma: no cover - Rule validates

    def _operation(
        self, name: str, rate: float, lower: float | None, in_use: set[Hashable]
    ) -> OperationDecider:
        per_second = self.lower_bound if lower is None else lower
        bucket = None
        if per_second > 0:
            in_use.add(("op", name))
            bucket = self._state.bucket(("op", name), per_second)
        ratio = RatioDecider(f"operations[{name!r}]", rate, self._scheme, self.version_tag)
        return OperationDecider(ratio, bucket, per_second, self.version_tag)

    def route(self, name: str, kind: SpanKind | None, attributes: Attributes) -> Decider:
        """The route that decides a root span: first matching rule, else its operation,
        else the default rate."""
        for predicate, route in self.rules:
            if predicate(name, kind, attributes):
                return route
        found = self.operations.get(name)
        if found is not None:
            return found
        if self.lower_bound > 0:
            return self._tracked.get(name) or self._track(name)
        return self.default

    def _track(self, name: str) -> Decider:
        """First sight of an operation in this plan, with a default lower bound: its
        bucket is the state's (created once per name, up to ``max_operations``); beyond
        that the default rate decides. No writer lock is taken."""
        bucket = self._state.track(name)
        if bucket is None:
            return self.default
        ratio = RatioDecider(f"operations[{name!r}]", self.config.rate, self._scheme, self.version_tag)
        route = self._tracked[name] = OperationDecider(ratio, bucket, self.lower_bound, self.version_tag)
        return route

    def decide_root(
        self,
        trace_id: int,
        name: str,
        kind: SpanKind | None,
        attributes: Attributes,
        trace_state: TraceState | None,
    ) -> SamplingResult:
        """Decide a span without a parent to follow; the global cap has the last word."""
        route = self.route(name, kind, attributes)
        result = route.decide(trace_id, attributes, trace_state)
        if self.offered is not None and (route is self.default or self._tracked.get(name) is route):
            next(self.offered)  # decided at the controller's rate
            backstop = self.backstop
            if result.decision is RECORD_AND_SAMPLE and backstop is not None and not backstop.try_acquire():
                return Results.drop(trace_state)
        if self.cap is not None and result.decision is RECORD_AND_SAMPLE and not self.cap.try_acquire():
            return Results.drop(trace_state)
        return result


def build_snapshot(
    config: SamplingConfig, state: RuntimeState, resource: Mapping[str, Any], previous: Snapshot | None = None
) -> Snapshot:
    """Compile ``config``, reusing what it shares with ``previous``, then commit what it
    staged in ``state``; if compiling fails nothing in ``state`` changes."""
    with state.lock:
        try:
            plan = Snapshot(config, state, resource, previous)
        except BaseException:
            state.discard()
            raise
        state.commit(
            plan.keep,
            lower_bound=config.default_lower_bound_per_second,
            configured=config.operations,
            max_operations=config.max_operations,
        )
        return plan
