"""Every decision of the engine states its threshold truthfully, on random rule sets:
a dropped span carries no th; a sampled one carries either none (rate limits, lower
bounds, otel-js, the sliver) or a th its randomness meets, equal to the threshold of the
rate that decided it. And DSampler's rules under the consistent scheme give the same
decisions and the same ot values as the equivalent composable samplers."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context
from opentelemetry.trace.span import TraceState

from dsampler import DSampler, JaegerRemoteSampler, ManualClock
from dsampler.consistent import (
    AlwaysMatchPredicate,
    composable_always_off,
    composable_parent_threshold,
    composable_rule_based,
    composable_traceid_ratio_based,
    composite_sampler,
    encode_th,
    randomness,
    ratio_to_threshold,
    threshold_of,
)
from dsampler.consistent._stated import statement
from dsampler.hashing._schemes import SCHEMES, get_scheme

NAMES = ["a", "b", "c", "d"]
RATES = st.sampled_from([0.0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.9, 1.0]) | st.floats(0.0, 1.0)
ACTIONS = st.one_of(
    st.just("drop"),
    st.builds(lambda r: {"sample": r}, RATES),
    st.builds(lambda n: {"rate_limit": n}, st.sampled_from([0.0, 1.0, 5.0])),
)
RULES = st.lists(
    st.builds(
        lambda name, action: {"match": {"span_name": name}, "action": action}, st.sampled_from(NAMES), ACTIONS
    ),
    max_size=4,
)
PARENT_STATES = [
    None,
    TraceState([("ot", "th:8;rv:ffffffffffffff"), ("v", "1")]),
    TraceState([("ot", "th:c")]),
]


def _name_is(wanted: str) -> Any:
    """A predicate on the span name, called by keyword as the composables call theirs."""

    def predicate(*, name: str = "", **_: Any) -> bool:
        return name == wanted

    return predicate


@settings(max_examples=60, deadline=None)
@given(
    scheme=st.sampled_from(sorted(SCHEMES)),
    rate=RATES,
    rules=RULES,
    operations=st.dictionaries(st.sampled_from(NAMES), RATES, max_size=2),
    lower=st.sampled_from([0.0, 2.0]),
    seed=st.integers(0, 2**32),
)
def test_every_decision_states_its_threshold_truthfully(
    scheme: str,
    rate: float,
    rules: list[dict[str, Any]],
    operations: dict[str, float],
    lower: float,
    seed: int,
) -> None:
    sampler = DSampler(
        rate=rate,
        hash=scheme,
        rules=rules,
        operations=operations,
        default_lower_bound_per_second=lower,
        parent_based=False,
        clock=ManualClock(),
        resource={},
    )
    rng = random.Random(seed)
    for _ in range(60):
        trace_id, name, parent_ts = rng.getrandbits(128), rng.choice([*NAMES, "z"]), rng.choice(PARENT_STATES)
        context = None
        if parent_ts is not None:
            sc = SpanContext(trace_id, 9, True, TraceFlags(1), parent_ts)
            context = set_span_in_context(NonRecordingSpan(sc))
        explained = sampler.explain(trace_id, name)
        result = sampler.should_sample(context, trace_id, name)
        th = threshold_of(result.trace_state)
        if th is None:
            continue
        assert result.decision.is_sampled(), "a drop states no th"
        assert randomness(trace_id, result.trace_state) >= th, "R >= th"
        rated = explained.get("rate")
        assert rated is not None, f"th from a strategy without a rate: {explained}"
        assert explained["strategy"] in ("probabilistic", "rollout")
        scheme_of = get_scheme(scheme)
        assert th == statement(scheme_of, rated, scheme_of.bound(rated)).threshold


@settings(max_examples=60, deadline=None)
@given(rate=RATES, rules=RULES.map(lambda rs: [r for r in rs if "rate_limit" not in r["action"]]))
def test_rules_compile_to_the_composables_intents(rate: float, rules: list[dict[str, Any]]) -> None:
    """DSampler(hash="consistent", rules=...) decides and writes ot exactly as
    composite_sampler(composable_parent_threshold(composable_rule_based(...))) with a
    ratio (drop: always off) per rule and the default rate last, on roots and children."""
    ours = DSampler(rate=rate, hash="consistent", rules=rules, resource={})
    composables = [
        (
            _name_is(rule["match"]["span_name"]),
            composable_always_off()
            if rule["action"] == "drop"
            else composable_traceid_ratio_based(rule["action"]["sample"]),
        )
        for rule in rules
    ]
    composables.append((AlwaysMatchPredicate(), composable_traceid_ratio_based(rate)))
    theirs = composite_sampler(composable_parent_threshold(composable_rule_based(composables)))
    rng = random.Random(len(rules))
    for _ in range(100):
        trace_id, name = rng.getrandbits(128), rng.choice([*NAMES, "z"])
        root = [s.should_sample(None, trace_id, name) for s in (ours, theirs)]
        assert root[0].decision is root[1].decision
        assert dict(root[0].trace_state or {}) == dict(root[1].trace_state or {})
        for parent_ts in PARENT_STATES[1:]:
            for flags in (0, 1):
                sc = SpanContext(trace_id, 9, True, TraceFlags(flags), parent_ts)
                context = set_span_in_context(NonRecordingSpan(sc))
                child = [s.should_sample(context, trace_id, name) for s in (ours, theirs)]
                assert child[0].decision is child[1].decision
                assert dict(child[0].trace_state or {}) == dict(child[1].trace_state or {})


def _sampled_ot(sampler: Any, ids: list[int], name: str = "GET /x") -> list[str | None]:
    out = []
    for trace_id in ids:
        result = sampler.should_sample(None, trace_id, name)
        if result.decision.is_sampled():
            out.append(None if result.trace_state is None else result.trace_state.get("ot"))
    return out


_RNG = random.Random(9)
IDS = [_RNG.getrandbits(128) for _ in range(4000)]


def test_owners_rates_and_caps_state_what_they_are() -> None:
    """The adaptive controller's rate and a remote sampler's initial rate write their th;
    a Jaeger rate-limiting strategy (rate 1 under the cap) writes none; a span a global
    cap admits keeps its rate's th, one it refuses is dropped."""
    clock = ManualClock()
    adaptive = DSampler(
        rate=0.5, hash="consistent", clock=clock, resource={}, adaptive={"target_traces_per_second": 100}
    )
    assert adaptive.controller is not None
    for _ in range(20):
        _sampled_ot(adaptive, IDS[:2000])
        clock.advance(0.1)
        adaptive.controller.tick()
    rate = adaptive.controller.rate
    assert rate < 0.5
    th = "th:" + encode_th(ratio_to_threshold(rate))
    clock.advance(1.0)  # the hard cap's credits back
    stated = _sampled_ot(adaptive, IDS)
    assert stated
    assert set(stated) == {th}
    adaptive.close()
    remote = JaegerRemoteSampler("svc", initial_sampler=0.1, hash="fnv1a", start=False, resource={})
    stated = _sampled_ot(remote, IDS)
    assert stated
    assert all(ot is not None and ot.startswith("th:e6666666666666;rv:") for ot in stated)
    limited = DSampler(rate=1.0, traces_per_second=50, clock=ManualClock(), resource={})
    assert set(_sampled_ot(limited, IDS)) == {None}
    capped = DSampler(rate=0.5, hash="consistent", traces_per_second=50, clock=ManualClock(), resource={})
    assert _sampled_ot(capped, IDS) == ["th:8"] * 50
