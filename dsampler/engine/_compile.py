"""Configuration -> :class:`~dsampler.engine._snapshot.Snapshot`, reusing the previous
snapshot's buckets, anchors and the parts built from the very same objects. A build
applies its effects (bucket rates, tracked operations) only once everything that can
fail has run, so a failed build changes no running limit.
"""

from __future__ import annotations

import operator
from collections.abc import Hashable, Mapping
from typing import Any, Final

from dsampler.config import (
    FIELD_CHECKS,
    Action,
    Drop,
    Match,
    RateLimit,
    Rollout,
    Rule,
    Sample,
    SamplingConfig,
)
from dsampler.decision import Predicate, TokenBucket, compile_match
from dsampler.engine._counts import DecisionCounts
from dsampler.engine._deciders import (
    Decider,
    DropDecider,
    OperationDecider,
    RateLimitDecider,
    RatioDecider,
    RolloutDecider,
    Tagger,
)
from dsampler.engine._index import RuleIndex
from dsampler.engine._runtime import Runtime
from dsampler.engine._snapshot import OfferedLoad, Snapshot
from dsampler.hashing import HashScheme, get_scheme


def compile_snapshot(
    config: SamplingConfig, previous: Snapshot | None, runtime: Runtime, load: OfferedLoad | None = None
) -> Snapshot:
    """Compile ``config``, keeping what it shares with ``previous``; ``load``: an owner's
    :class:`OfferedLoad`."""
    if previous is not None and load is previous.load and _rate_alone(config, previous.config):
        return _at_rate(config, previous, runtime)
    build = _Build(config, previous, runtime, load)
    snapshot = build.snapshot()
    lower = config.default_lower_bound_per_second
    refit = None
    if (
        previous is None
        or lower != previous.lower_bound
        or config.operations is not previous.config.operations
        or config.max_operations != previous.config.max_operations
    ):
        room = max(0, config.max_operations - len(config.operations)) if lower > 0 else 0
        refit = runtime.tracked.refit(
            room,
            config.operations,
            lambda name: runtime.new_bucket(lower * runtime.share),  # at the share when first seen
            lambda bucket: bucket.update(lower * runtime.share),
        )
    # Everything that can fail has run: from here on, the publish's effects.
    for bucket, per_second in build.rates:
        bucket.update(per_second)
    if refit is not None:
        refit()
    if snapshot.counts is not None and runtime.stats is not None:
        runtime.stats.started(snapshot.counts)
    return snapshot


#: Every field but the rate and the version: when none of them changed (the very same
#: objects), a new snapshot is the previous one at a new default rate.
_OTHERS: Final = operator.itemgetter(*(f for f in FIELD_CHECKS if f not in ("rate", "version")))


def _rate_alone(config: SamplingConfig, previous: SamplingConfig) -> bool:
    """Only the default rate changed, and no tag records the version."""
    same = all(map(operator.is_, _OTHERS(config.__dict__), _OTHERS(previous.__dict__)))
    return same and not config.record_version


def _at_rate(config: SamplingConfig, previous: Snapshot, runtime: Runtime) -> Snapshot:
    """``previous`` at ``config``'s default rate, everything else as it is."""
    default = default_decider(config, previous.default.scheme, previous.tagger, previous.cap)
    counts = counts_for(config, runtime)
    snapshot = Snapshot(
        config,
        previous.tagger,
        default,
        previous.rules,
        previous.rule_buckets,
        previous.anchors,
        previous.operations,
        previous.cap,
        runtime.tracked,
        previous.load,
        counts,
        previous.follow,
    )
    if counts is not None and runtime.stats is not None:
        runtime.stats.started(counts)
    return snapshot


def counts_for(config: SamplingConfig, runtime: Runtime) -> DecisionCounts | None:
    """What a snapshot of ``config`` counts into (None while its engine does not count)."""
    return None if runtime.stats is None else DecisionCounts(config.version, config.rate, config.hash)


def default_decider(
    config: SamplingConfig, scheme: HashScheme, tagger: Tagger, cap: TokenBucket | None
) -> RatioDecider:
    """The default rate. Every root at rate 1 under a global cap is what Jaeger calls a
    rate-limiting strategy (a remote RATE_LIMITING response compiles to exactly this)."""
    per_second = config.traces_per_second
    limited = cap is not None and config.rate == 1.0 and per_second is not None
    tagged_as = ("ratelimiting", per_second) if limited and per_second is not None else None
    return RatioDecider("default rate", config.rate, scheme, tagger, tagged_as=tagged_as)


class _Build:
    """One compilation: the previous snapshot is where existing state is found."""

    def __init__(
        self, config: SamplingConfig, previous: Snapshot | None, runtime: Runtime, load: OfferedLoad | None
    ) -> None:
        self.config = config
        self.load = load
        self.previous = previous
        self.runtime = runtime
        self.scheme = get_scheme(config.hash)
        extra = {"dsampler.config_version": config.version} if config.record_version else {}
        self.tagger = Tagger(config.sampler_tags, extra, config.write_th)
        self.rates: list[tuple[TokenBucket, float]] = []  # applied once the build succeeds
        self.rule_buckets: dict[Hashable, TokenBucket] = {}
        self.anchors: dict[Rollout, float] = {}

    def snapshot(self) -> Snapshot:
        config, previous = self.config, self.previous
        kept = None  # the previous snapshot, whose parts of the very same inputs and tags are kept
        if (
            previous is not None
            and previous.default.scheme is self.scheme
            and previous.tagger.same_as(self.tagger)
        ):
            kept = previous
        if kept is not None and config.rules is kept.config.rules:
            rules = kept.rules
            self.rule_buckets, self.anchors = kept.rule_buckets, kept.anchors  # type: ignore[assignment]
        else:
            rules = self._rules()
        lower = config.default_lower_bound_per_second
        if kept is not None and config.operations is kept.config.operations and lower == kept.lower_bound:
            operations: Mapping[str, OperationDecider] = kept.operations
        else:
            operations = self._operations()
        cap = None
        if config.traces_per_second is not None:
            cap = self._bucket(previous.cap if previous is not None else None, config.traces_per_second)
        return Snapshot(
            config,
            self.tagger,
            default_decider(config, self.scheme, self.tagger, cap),
            rules,
            self.rule_buckets,
            self.anchors,
            operations,
            cap,
            self.runtime.tracked,
            self.load,
            counts_for(config, self.runtime),
            self.runtime.stated_children if config.write_th else self.runtime.children,
        )

    def _operations(self) -> dict[str, OperationDecider]:
        made = {}
        for name, s in self.config.operations.items():
            lower = s.lower_bound_per_second
            per_second = self.config.default_lower_bound_per_second if lower is None else lower
            bucket = self._bucket(self._existing_lower(name), per_second) if per_second > 0 else None
            ratio = RatioDecider(f"operations[{name!r}]", s.rate, self.scheme, self.tagger)
            made[name] = OperationDecider(ratio, bucket, per_second, self.tagger)
        return made

    def _bucket(self, found: TokenBucket | None, per_second: float) -> TokenBucket:
        """``found`` (its rate changed once the build succeeds), or a new bucket, at the
        share of ``per_second`` in force."""
        held = per_second * self.runtime.share
        if found is None:
            return self.runtime.new_bucket(held)
        if found.credits_per_second != held:
            self.rates.append((found, held))
        return found

    def _rules(self) -> RuleIndex[Decider]:
        compiled: list[tuple[Match, Predicate, Decider]] = []
        seen: dict[tuple[str | None, Match], int] = {}
        for i, rule in enumerate(self.config.rules):
            # A stateful rule's state is keyed by what it is, not where it stands, so that
            # reordering keeps balances; identical rules are told apart by their rank.
            rank = seen[rule.name, rule.match] = seen.get((rule.name, rule.match), -1) + 1
            predicate = compile_match(rule.match, self.runtime.resource)
            if predicate is not None:
                source = f"rules[{i}]" + (f" ({rule.name})" if rule.name else "")
                compiled.append((rule.match, predicate, self._decider(source, rule, rank)))
        return RuleIndex(compiled)

    def _decider(self, source: str, rule: Rule, rank: int) -> Decider:
        action: Action = rule.action
        match action:
            case Drop():
                return DropDecider(source, self.tagger)
            case Sample(rate=rate):
                return RatioDecider(source, rate, self.scheme, self.tagger)
            case RateLimit(per_second=per_second):
                key = ("rule", rule.name, rule.match, rank)
                old = self.previous.rule_buckets.get(key) if self.previous is not None else None
                bucket = self.rule_buckets[key] = self._bucket(old, per_second)
                return RateLimitDecider(source, bucket, per_second, self.tagger)
            case Rollout():
                return self._rollout(source, action)
        raise TypeError(f"unknown action {action!r}")  # pragma: no cover - Rule validates

    def _rollout(self, source: str, rollout: Rollout) -> RolloutDecider:
        if rollout.start is not None:
            anchor = self.runtime.to_monotonic(rollout.start.timestamp())
        else:  # anchored at its first publication, kept while the rule stays
            kept = self.previous.anchors.get(rollout) if self.previous is not None else None
            anchor = self.anchors[rollout] = kept if kept is not None else self.runtime.clock.monotonic()
        starts = [
            self.runtime.to_monotonic(s.at.timestamp()) if s.at is not None else anchor + (s.after_s or 0.0)
            for s in rollout.steps
        ]
        rates = [s.rate for s in rollout.steps]
        return RolloutDecider(source, starts, rates, self.scheme, self.runtime.clock, self.tagger)

    def _existing_lower(self, name: str) -> TokenBucket | None:
        """The operation's lower-bound bucket so far: its own, else the one it had as a
        tracked operation (a name that becomes configured keeps its balance)."""
        ops: Mapping[str, Any] = self.previous.operations if self.previous is not None else {}
        found = ops.get(name)
        if found is not None and found.lower is not None:
            return found.lower  # type: ignore[no-any-return]
        return self.runtime.tracked.by_name.get(name)
