"""DSampler: rules, operations, caps, rollouts, parent-based, updates and faults."""

from __future__ import annotations

import gc
import logging
import os
import random
import weakref
from typing import Any

import pytest
from opentelemetry.sdk.trace.sampling import Decision, Sampler
from opentelemetry.trace import SpanKind
from opentelemetry.trace.span import TraceState

from dsampler import AdaptiveController, ConfigError, DSampler, ManualClock, RatioSampler, SamplingConfig
from dsampler.config import AttributeMatch, OperationStrategy, Pattern
from dsampler.engine import Engine
from dsampler.telemetry import sampler_id, track
from tests.forking import in_child
from tests.parents import ExplodingContext, remote_parent

_RNG = random.Random(42)
IDS = [_RNG.getrandbits(128) for _ in range(400)]


def kept(
    sampler: Any, name: str = "op", attributes: Any = None, kind: Any = None, ids: list[int] = IDS
) -> int:
    return sum(sampler.should_sample(None, t, name, kind, attributes).decision.is_sampled() for t in ids)


def test_no_rules_decides_exactly_as_ratio_sampler() -> None:
    """A snapshot of one rate makes RatioSampler's decisions with RatioSampler's tags."""
    for rule in ("fnv1a", "xxh3", "otel"):
        ours = DSampler(rate=0.3, hash=rule, sampler_tags=True)
        ref = RatioSampler(0.3, hash=rule, sampler_tags=True)
        for t in IDS:
            a, b = ours.should_sample(None, t, "x"), ref.should_sample(None, t, "x")
            assert (a.decision, dict(a.attributes)) == (b.decision, dict(b.attributes))


def test_defaults() -> None:
    """No argument: the documented defaults, published as version 1."""
    config = DSampler().config
    assert (config.rate, config.hash, config.parent_based, config.version) == (0.001, "fnv1a", True, 1)


def test_rules_first_match_wins() -> None:
    """Rules are tried in order; the first that matches decides, later ones are ignored."""
    sampler = DSampler(
        rate=0.0,
        rules=[
            {"match": {"span_name": {"prefix": "GET /health"}}, "action": "drop"},
            {"match": {"span_name": {"glob": "GET /*"}}, "action": {"sample": 1.0}},
            {"match": {"span_name": "GET /healthz"}, "action": {"sample": 1.0}},
        ],
    )
    assert kept(sampler, "GET /healthz") == 0
    assert kept(sampler, "GET /orders") == len(IDS)
    assert kept(sampler, "POST /orders") == 0


def test_kind_and_attribute_matching_is_exact_and_typed() -> None:
    """Kinds match by name (no kind is internal); attribute values match by type too."""
    sampler = DSampler(
        rate=0.0,
        rules=[
            {
                "match": {"span_kind": "server", "attributes": {"tenant": ["acme", {"glob": "beta-*"}]}},
                "action": {"sample": 1.0},
            },
            {"match": {"span_kind": "internal", "attributes": {"retries": 3}}, "action": {"sample": 1.0}},
        ],
    )
    assert kept(sampler, attributes={"tenant": "acme"}, kind=SpanKind.SERVER) == len(IDS)
    assert kept(sampler, attributes={"tenant": "beta-7"}, kind=SpanKind.SERVER) == len(IDS)
    assert kept(sampler, attributes={"tenant": "acme"}, kind=SpanKind.CLIENT) == 0
    assert kept(sampler, attributes={"tenant": "other"}, kind=SpanKind.SERVER) == 0
    assert kept(sampler, attributes={"retries": 3}) == len(IDS)  # kind None counts as internal
    assert kept(sampler, attributes={"retries": 3.5}) == 0
    assert kept(sampler, attributes={"retries": "3"}) == 0
    assert kept(sampler, attributes=None) == 0


def test_attributes_compared_as_text_match_as_opentelemetrys_predicates() -> None:
    """The text form (what dsampler.consistent's predicates are): the text of the value
    or of an item of an array against the patterns, none of the excluded ones."""
    codes = {"text": [{"glob": "5*"}], "excluded": ["503"]}
    sampler = DSampler(
        rate=0.0, rules=[{"match": {"attributes": {"code": codes}}, "action": {"sample": 1.0}}], resource={}
    )
    for value, sampled in ((500, True), ("502", True), ([404, 500], True), (503, False), (404, False)):
        assert kept(sampler, attributes={"code": value}) == (len(IDS) if sampled else 0), value
    with pytest.raises(ConfigError, match=r"rules\[0\]\.match\.attributes\.code\.excluded\[0\]"):
        DSampler(rules=[{"match": {"attributes": {"code": {"excluded": [5]}}}, "action": "drop"}])
    with pytest.raises(ConfigError, match=r"^code\.excluded: excluded patterns compare text"):
        AttributeMatch("code", (Pattern("exact", "x"),), (Pattern("exact", "y"),))
    with pytest.raises(ConfigError, match=r"^code: compared as text: expected string patterns, got int"):
        AttributeMatch("code", (5,), text=True)


def test_resource_rules_are_decided_once_per_process() -> None:
    """A rule for another resource is compiled away; one for this resource applies."""
    rules = [{"match": {"resource": {"deployment.environment": "canary"}}, "action": {"sample": 1.0}}]
    assert kept(DSampler(rate=0.0, rules=rules, resource={"deployment.environment": "canary"})) == len(IDS)
    assert kept(DSampler(rate=0.0, rules=rules, resource={"deployment.environment": "prod"})) == 0
    assert kept(DSampler(rate=0.0, rules=rules, resource={})) == 0


def test_no_sampler_tags_by_default() -> None:
    """Like OpenTelemetry's samplers, a DSampler adds no attributes unless asked; a
    span's own attributes pass through unchanged."""
    sampler = DSampler(rate=1.0, rules=[{"match": {"span_name": "r"}, "action": {"rate_limit": 5}}])
    assert dict(sampler.should_sample(None, IDS[0], "x").attributes) == {}
    assert dict(sampler.should_sample(None, IDS[0], "r", None, {"k": 1}).attributes) == {"k": 1}
    assert not DSampler().config.sampler_tags


def test_sample_rule_tags_and_version_attribute() -> None:
    """With sampler_tags, sampled spans carry the deciding rate and, when asked, the
    config version."""
    sampler = DSampler(rate=1.0, record_version=True, sampler_tags=True)
    sampler.update(rate=1.0)
    attrs = dict(sampler.should_sample(None, IDS[0], "x", None, {"k": 1}).attributes)
    assert attrs == {
        "k": 1,
        "sampler.type": "probabilistic",
        "sampler.param": 1.0,
        "dsampler.config_version": 2,
    }
    assert "dsampler.config_version" not in DSampler(rate=1.0).should_sample(None, IDS[0], "x").attributes


def test_rate_limit_rule_with_a_manual_clock() -> None:
    """rate_limit: 2 admits the bucket (2), then two a second, tagged ratelimiting."""
    clock = ManualClock()
    sampler = DSampler(
        rate=0.0, rules=[{"action": {"rate_limit": 2}}], clock=clock, resource={}, sampler_tags=True
    )
    assert kept(sampler) == 2
    clock.advance(1.0)
    results = [sampler.should_sample(None, t, "x") for t in IDS[:10]]
    assert [r.decision.is_sampled() for r in results].count(True) == 2
    assert results[0].attributes["sampler.type"] == "ratelimiting"
    assert results[0].attributes["sampler.param"] == 2.0


def test_rate_limit_balance_survives_an_update_pro_rated() -> None:
    """Changing another field keeps a limiter's spent balance; doubling its rate doubles it."""
    clock = ManualClock()
    rule = {"match": {"span_name": "hot"}, "action": {"rate_limit": 10}}
    sampler = DSampler(rate=0.0, rules=[rule], clock=clock, resource={})
    assert kept(sampler, "hot", ids=IDS[:6]) == 6  # 4 of 10 left
    sampler.update(rate=0.5)
    assert kept(sampler, "hot") == 4
    sampler.update(rules=[{"match": {"span_name": "hot"}, "action": {"rate_limit": 20}}])
    clock.advance(0.1)  # 2 credits at 20/s
    assert kept(sampler, "hot") == 2


def test_operations_with_a_guaranteed_lower_bound() -> None:
    """Jaeger semantics: ratio first (spending a credit anyway), else the lower bound."""
    clock = ManualClock()
    sampler = DSampler(
        rate=0.0,
        operations={"GET /rare": {"rate": 0.0, "lower_bound_per_second": 1}, "GET /half": 0.5},
        clock=clock,
        resource={},
        sampler_tags=True,
    )
    results = [sampler.should_sample(None, t, "GET /rare") for t in IDS[:5]]
    assert [r.decision.is_sampled() for r in results] == [True, False, False, False, False]
    assert results[0].attributes["sampler.type"] == "lowerbound"
    clock.advance(1.0)
    assert kept(sampler, "GET /rare") == 1
    assert kept(sampler, "GET /half") == kept(RatioSampler(0.5), "GET /half")


def test_lazily_tracked_operations_are_capped_by_max_operations() -> None:
    """With a default lower bound, new names get a bucket each, up to max_operations."""
    sampler = DSampler(rate=0.0, default_lower_bound_per_second=1.0, max_operations=3, clock=ManualClock())
    first = [kept(sampler, f"op-{i}", ids=IDS[:3]) for i in range(5)]
    assert first == [1, 1, 1, 0, 0]  # beyond three operations the default rate (0) decides


def test_global_cap_limits_sampled_roots() -> None:
    """traces_per_second caps what the other strategies sampled, per second."""
    clock = ManualClock()
    sampler = DSampler(rate=1.0, traces_per_second=5, clock=clock, resource={})
    assert kept(sampler) == 5
    clock.advance(1.0)
    assert kept(sampler) == 5


def test_rollout_steps_up_and_keeps_earlier_samples() -> None:
    """A rollout's sampled set only grows; before the first step nothing is sampled."""
    clock = ManualClock()
    rollout = {
        "steps": [{"after": "10s", "rate": 0.1}, {"after": "1m", "rate": 0.5}, {"after": "1h", "rate": 1.0}]
    }
    sampler = DSampler(rate=0.0, rules=[{"action": {"rollout": rollout}}], clock=clock, resource={})

    def kept_ids() -> set[int]:
        return {t for t in IDS if sampler.should_sample(None, t, "x").decision.is_sampled()}

    assert kept_ids() == set()
    clock.advance(10)
    step1 = kept_ids()
    clock.advance(50)
    step2 = kept_ids()
    clock.advance(3600)
    assert step1 < step2 < kept_ids() == set(IDS)
    assert step1 == {t for t in IDS if RatioSampler(0.1).should_sample(None, t, "x").decision.is_sampled()}


def test_rollout_anchor_survives_unrelated_updates() -> None:
    """Updating the default rate does not restart a rollout that has no explicit start."""
    clock = ManualClock()
    rollout = {"steps": [{"after": "0s", "rate": 0.0}, {"after": "1m", "rate": 1.0}]}
    sampler = DSampler(rate=0.0, rules=[{"action": {"rollout": rollout}}], clock=clock, resource={})
    clock.advance(61)
    sampler.update(rate=0.2)
    assert kept(sampler) == len(IDS)


def test_rollout_with_absolute_times() -> None:
    """``at`` steps are wall-clock times, converted once to the monotonic clock."""
    clock = ManualClock(start=1000.0, wall_offset=1_790_000_000.0)  # wall 1790001000
    steps = [{"at": "2026-09-22T00:00:00Z", "rate": 1.0}]  # 1790035200: 34,200 s later
    sampler = DSampler(rate=0.0, rules=[{"action": {"rollout": {"steps": steps}}}], clock=clock, resource={})
    assert kept(sampler) == 0
    clock.advance(34_199)
    assert kept(sampler) == 0
    clock.advance(1)
    assert kept(sampler) == len(IDS)


@pytest.mark.parametrize("sampled", [True, False])
def test_parent_based_children_follow_and_keep_tracestate(sampled: bool) -> None:
    """With parent_based on, a valid parent decides, whatever the rules say."""
    sampler = DSampler(rate=0.0 if sampled else 1.0, rules=[{"action": "drop"}] if sampled else [])
    ts = TraceState([("congo", "t61rcWkgMzE")])
    result = sampler.should_sample(remote_parent(IDS[0], sampled, ts), IDS[0], "child")
    assert result.decision.is_sampled() is sampled
    assert result.trace_state is ts


def test_parent_based_off_decides_children_as_roots_but_keeps_tracestate() -> None:
    """With parent_based off, the parent's flag is ignored, its tracestate is not."""
    sampler = DSampler(rate=0.0, parent_based=False)
    ts = TraceState([("a", "1")])
    result = sampler.should_sample(remote_parent(IDS[0], True, ts), IDS[0], "child")
    assert result.decision is Decision.DROP
    assert result.trace_state is ts


def test_update_is_all_or_nothing_and_names_the_field() -> None:
    """An invalid update raises ConfigError and leaves the running snapshot untouched."""
    sampler = DSampler(rate=0.1)
    with pytest.raises(ConfigError) as info:
        sampler.update(rate=0.2, rules=[{"action": {"sample": 7}}])
    assert [e.field for e in info.value.errors] == ["rules[0].action.sample"]
    assert (sampler.config.rate, sampler.config.version) == (0.1, 1)
    with pytest.raises(ConfigError, match="unknown key; did you mean 'rate'"):
        sampler.update(rte=0.2)
    assert sampler.config.version == 1


def test_rollback_and_history() -> None:
    """rollback(v) republishes v's content as a new version; history is oldest first."""
    sampler = DSampler(rate=0.1, history=4)
    for rate in (0.2, 0.3, 0.4, 0.5):
        sampler.update(rate=rate)
    assert [c.version for c in sampler.history] == [2, 3, 4, 5]
    restored = sampler.rollback(3)
    assert (restored.rate, restored.version) == (0.3, 6)
    assert kept(sampler) == kept(RatioSampler(0.3))
    with pytest.raises(ConfigError, match=r"^version: "):
        sampler.rollback(1)


def test_construction_errors_name_the_field() -> None:
    """Bad configs, settings, resources and arguments are refused at construction."""
    with pytest.raises(ConfigError, match=r"^rate: "):
        DSampler(rate=2)
    with pytest.raises(ConfigError, match=r"^config: "):
        DSampler(config=42)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"^resource: "):
        DSampler(resource=[1])  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"^history: "):
        DSampler(history=0)


def test_accepts_a_sampling_config_and_overrides() -> None:
    """A SamplingConfig object, with keyword overrides in the file format."""
    sampler = DSampler(SamplingConfig(rate=0.2, hash="xxh3"), rate=0.4)
    assert (sampler.config.rate, sampler.config.hash) == (0.4, "xxh3")


def test_faults_fall_back_to_the_default_rule_and_never_raise(caplog: pytest.LogCaptureFixture) -> None:
    """A broken parent context or trace ID is a counted fault, decided by the default rate."""
    sampler = DSampler(rate=0.5)
    with caplog.at_level(logging.WARNING, logger="dsampler.samplers"):
        for t in IDS[:20]:
            expected = RatioSampler(0.5).should_sample(None, t, "x").decision
            assert sampler.should_sample(ExplodingContext(), t, "x").decision is expected
        assert sampler.should_sample(None, "not an id", "x").decision is Decision.DROP  # type: ignore[arg-type]
    assert sampler.faults == 21
    assert len(caplog.records) == 1


def test_explain_names_the_deciding_source_without_spending() -> None:
    """explain() reports rule, key and bound; a rate limiter is reported, not spent."""
    clock = ManualClock()
    sampler = DSampler(
        rate=0.25,
        rules=[{"name": "limited", "match": {"span_name": "L"}, "action": {"rate_limit": 1}}],
        operations={"O": 0.75},
        clock=clock,
        resource={},
    )
    default = sampler.explain(IDS[0], "other")
    assert default["source"] == "default rate"
    assert default["sampled"] is sampler.should_sample(None, IDS[0], "other").decision.is_sampled()
    assert default["bound"] == RatioSampler(0.25).bound
    assert sampler.explain(IDS[0], "O")["source"] == "operations['O']"
    for _ in range(5):
        assert sampler.explain(IDS[0], "L") == {
            "version": 1,
            "source": "rules[0] (limited)",
            "strategy": "ratelimiting",
            "per_second": 1.0,
        }
    assert sampler.should_sample(None, IDS[0], "L").decision.is_sampled()  # the credit is still there


def test_description_shows_the_version_and_changes_with_it() -> None:
    """get_description reflects the snapshot in force."""
    sampler = DSampler(rate=0.1)
    before = sampler.get_description()
    sampler.update(rate=0.2)
    assert before.startswith("DSampler{version=1,rate=0.1,")
    assert sampler.get_description().startswith("DSampler{version=2,rate=0.2,")


def test_close_is_idempotent_and_decisions_continue() -> None:
    """close() twice is fine, and the sampler still decides afterwards."""
    sampler = DSampler(rate=1.0)
    sampler.close()
    sampler.close()
    assert kept(sampler) == len(IDS)


def test_updates_reuse_compiled_parts_that_did_not_change() -> None:
    """update(rate=...) on 2,000 operations rebuilds only the default route; a new hash
    rule rebuilds the operations with the new rule's bounds."""
    ops = {f"op-{i}": {"rate": 0.5, "lower_bound_per_second": 1} for i in range(2000)}
    sampler = DSampler(rate=0.1, operations=ops, rules=[{"action": {"rate_limit": 3}}], clock=ManualClock())
    before = sampler.engine.snapshot
    sampler.update(rate=0.2)
    after = sampler.engine.snapshot
    assert after.operations is before.operations
    assert after.rules is before.rules
    assert after.default is not before.default
    sampler.update(hash="xxh3")
    rebuilt = sampler.engine.snapshot
    assert rebuilt.operations is not after.operations
    assert rebuilt.operations["op-1"].ratio.scheme.name == "xxh3"  # type: ignore[attr-defined]
    assert rebuilt.operations["op-1"].lower is after.operations["op-1"].lower  # type: ignore[attr-defined]


def test_stamped_copies_without_revalidating() -> None:
    """A store stamps versions on validated configs; the copy differs only in version."""
    config = SamplingConfig(rate=0.3, rules=())
    stamped = config.stamped(7)
    assert (stamped.version, stamped.rate, stamped.rules is config.rules) == (7, 0.3, True)
    assert stamped == SamplingConfig(rate=0.3, version=7)
    with pytest.raises(ConfigError, match=r"^version: "):
        config.stamped(-1)


def test_evolve_validates_the_changes_and_the_cross_field_checks() -> None:
    """evolve() refuses unknown fields, invalid values and too many operations."""
    config = SamplingConfig(rate=0.1, max_operations=2, operations={"a": OperationStrategy(0.5)})
    assert config.evolve(rate=0.2).rate == 0.2
    assert config.evolve(rate=0.2).operations is config.operations
    with pytest.raises(ConfigError, match=r"^rte: unknown field"):
        config.evolve(rte=0.2)
    with pytest.raises(ConfigError, match=r"^rate: "):
        config.evolve(rate=3)
    with pytest.raises(ConfigError, match=r"^operations: expected at most max_operations \(0\)"):
        config.evolve(max_operations=0)
    with pytest.raises(ConfigError, match=r"^rules: expected a sequence of Rule"):
        config.evolve(rules=["drop"])


def test_sequence_attributes_match_no_scalar_and_do_not_fault() -> None:
    """A list-valued span attribute (valid in OTel) simply does not match; later rules run."""
    sampler = DSampler(
        rate=0.0,
        parent_based=False,
        resource={},
        rules=[
            {"match": {"attributes": {"tags": "internal"}}, "action": "drop"},
            {"match": {"attributes": {"tenant": "acme"}}, "action": {"sample": 1.0}},
        ],
    )
    result = sampler.should_sample(None, IDS[0], "op", None, {"tags": ["internal"], "tenant": "acme"})
    assert result.decision is Decision.RECORD_AND_SAMPLE
    assert sampler.faults == 0


def test_identical_rate_limit_rules_keep_their_own_buckets() -> None:
    """Two rules with the same match (the second unreachable) do not share a bucket."""
    clock = ManualClock()
    rule = {"match": {"span_name": "GET /x"}, "action": {"rate_limit": 1}}
    shadow = {"match": {"span_name": "GET /x"}, "action": {"rate_limit": 1000}}
    sampler = DSampler(rate=0.0, rules=[rule, shadow], clock=clock, resource={}, sampler_tags=True)
    clock.advance(60)
    results = [sampler.should_sample(None, t, "GET /x") for t in IDS]
    assert sum(r.decision.is_sampled() for r in results) == 1
    assert next(r for r in results if r.decision.is_sampled()).attributes["sampler.param"] == 1.0


def test_a_failed_publish_changes_no_live_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot that fails to build (here: an injected fault after the first rule had
    staged a new rate) leaves the running buckets' rates untouched."""
    clock = ManualClock()
    rule = {"match": {"span_name": "x"}, "action": {"rate_limit": 1}}
    sampler = DSampler(rate=0.0, rules=[rule], clock=clock, resource={})
    limiter = sampler.engine.snapshot.rules.rules[0][1].bucket  # type: ignore[attr-defined]
    with pytest.raises(ConfigError):
        sampler.update(
            rules=[{"match": {"span_name": "x"}, "action": {"rate_limit": 1000}}, {"action": "keep"}]
        )
    assert limiter.credits_per_second == 1.0
    from dsampler.engine import _compile as compile_module

    original = compile_module.compile_match
    calls = []

    def failing(match: object, resource: object) -> object:
        calls.append(match)
        if len(calls) == 2:
            raise RuntimeError("compile failed half-way")
        return original(match, resource)  # type: ignore[arg-type]

    compile_module.compile_match = failing  # type: ignore[assignment]
    try:
        with pytest.raises(RuntimeError):
            sampler.update(
                rules=[{"match": {"span_name": "x"}, "action": {"rate_limit": 1000}}, {"action": "drop"}]
            )
    finally:
        compile_module.compile_match = original
    assert limiter.credits_per_second == 1.0  # the rate staged by the failed build was never applied
    assert sampler.config.version == 1
    clock.advance(10)
    assert kept(sampler, "x") == 1


def test_tracked_operations_stay_bounded_across_updates() -> None:
    """Operations first seen at run time are capped by max_operations in all, not per snapshot."""
    sampler = DSampler(rate=0.0, default_lower_bound_per_second=1.0, max_operations=10, clock=ManualClock())
    for round_ in range(20):
        for i in range(10):
            sampler.should_sample(None, IDS[0], f"op-{round_}-{i}")
        sampler.update(rate=0.0 if round_ % 2 else 0.001)
    tracked = sampler.engine.snapshot.tracked
    assert len(tracked) == 10
    assert sampler.engine.snapshot.rule_buckets == {}
    sampler.update(default_lower_bound_per_second=0.0)
    assert len(tracked) == 0


def test_publish_replaces_the_whole_configuration_or_nothing() -> None:
    """publish() takes a mapping (parsed as a file) or a SamplingConfig; bad input changes nothing."""
    sampler = DSampler(rate=0.1, operations={"a": 0.5})
    assert sampler.publish({"rate": 0.2}).operations == {}
    assert sampler.publish(SamplingConfig(rate=0.3)).version == 3
    with pytest.raises(ConfigError, match=r"^rules\[0\]\.action: "):
        sampler.publish({"rate": 0.4, "rules": [{"action": "keep"}]})
    with pytest.raises(ConfigError, match=r"^config: "):
        sampler.publish([("rate", 0.4)])  # type: ignore[arg-type]
    assert (sampler.config.rate, sampler.config.version) == (0.3, 3)


def test_a_trace_id_whose_index_raises_anything_is_a_counted_fault() -> None:
    """An integer-like trace ID whose __index__ raises (not only TypeError) is a fault:
    dropped and counted, never raised, by the engine and by the composite sampler."""
    from dsampler.consistent import composable_always_on, composite_sampler

    class Hostile:
        def __index__(self) -> int:
            raise ValueError("no value")

    for sampler in (DSampler(rate=1.0, resource={}), composite_sampler(composable_always_on())):
        result = sampler.should_sample(None, Hostile(), "x")  # type: ignore[arg-type]
        assert result.decision is Decision.DROP
        assert sampler.faults == 1  # type: ignore[attr-defined]


HOOKS = (
    "overlay",
    "holder",
    "snapshot",
    "share_limits",
    "limit_share",
    "count_decisions",
    "decision_counts",
    "fault_log",
    "evolve",
    "clock",
)


@pytest.mark.parametrize("hook", HOOKS)
def test_the_engines_hooks_are_the_engines_not_the_samplers(hook: str) -> None:
    """A DSampler holds its engine: owners and telemetry reach the hooks through
    ``sampler.engine``, and the DSampler is still an OpenTelemetry Sampler."""
    sampler = DSampler(rate=0.5, resource={})
    assert not hasattr(sampler, hook)
    assert not hasattr(DSampler, hook)
    assert hasattr(sampler.engine, hook)
    assert isinstance(sampler, Sampler)
    assert not isinstance(sampler, Engine)


def test_should_sample_is_the_engines_own_and_decides_after_update_and_rollback() -> None:
    """The instance's should_sample is the engine's bound method (a decision costs what
    the engine's does), and it follows every publish."""
    sampler = DSampler(rate=0.1, resource={})
    assert sampler.should_sample == sampler.engine.should_sample
    assert sampler.should_sample.__self__ is sampler.engine  # type: ignore[attr-defined]
    assert kept(sampler) == kept(RatioSampler(0.1))
    sampler.update(rate=0.6)
    assert sampler.should_sample == sampler.engine.should_sample
    assert kept(sampler) == kept(RatioSampler(0.6))
    sampler.rollback(1)
    assert sampler.should_sample == sampler.engine.should_sample
    assert kept(sampler) == kept(RatioSampler(0.1))
    assert DSampler.should_sample(sampler, None, IDS[0], "op") == sampler.should_sample(None, IDS[0], "op")
    assert sampler.get_description() == sampler.engine.get_description()
    assert sampler.get_description().startswith("DSampler{version=3,rate=0.1,")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork")
def test_a_forked_child_decides_and_updates_with_the_engines_should_sample() -> None:
    """In a child the bound method is still the engine's, decides, and follows the
    child's own update and rollback (the DSampler's write lock is fresh there)."""
    sampler = DSampler(rate=0.1, resource={})
    sampler.update(rate=0.3)

    def child() -> bytes:
        same = sampler.should_sample == sampler.engine.should_sample
        before = kept(sampler)
        sampler.update(rate=0.6)
        after = kept(sampler)
        sampler.rollback(1)
        return repr((same, before, after, kept(sampler), sampler.config.version)).encode()

    expected = (True, kept(RatioSampler(0.3)), kept(RatioSampler(0.6)), kept(RatioSampler(0.1)), 4)
    assert in_child(child).decode() == repr(expected)
    assert (sampler.config.rate, sampler.config.version) == (0.3, 2)  # the parent's own


def test_an_engine_handed_on_alone_keeps_its_dsampler_and_owners_driving_it() -> None:
    """Only ``sampler.engine`` kept (given to a provider, say): the DSampler, its
    controller and its writes live on, so the engine is still driven."""
    sampler = DSampler(rate=0.1, resource={}, clock=ManualClock(), adaptive={"target_traces_per_second": 10})
    held, engine = weakref.ref(sampler), sampler.engine
    del sampler
    gc.collect()
    alive = held()
    assert alive is not None
    assert engine.driver is alive
    assert Engine(SamplingConfig(), resource={}).driver is None
    try:
        assert alive.controller is not None
        alive.controller.reconfigure(target_traces_per_second=50)
        assert engine.config.adaptive is not None
        assert engine.config.adaptive.target_traces_per_second == 50
    finally:
        alive.close()


def test_a_dsampler_is_tracked_and_bound_as_its_engine() -> None:
    """The public functions that took a DSampler when it was an engine still take it:
    telemetry's track and sampler_id, and a controller's bind (published through it)."""
    sampler = DSampler(rate=0.1, resource={}, clock=ManualClock())
    first = sampler_id(sampler)
    track(sampler)  # again: the same series, not a second one
    assert sampler_id(sampler) == sampler_id(sampler.engine) == first != ""
    controller = AdaptiveController(5, clock=ManualClock(), start=False)
    controller.bind(sampler)
    controller.reconfigure(target_traces_per_second=7)
    assert sampler.config.adaptive is not None
    assert sampler.config.adaptive.target_traces_per_second == 7
    sampler.close()
