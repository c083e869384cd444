"""Properties of the jaeger layer on the one parser and the one decider: a raw dict and
the wire read a complete response alike, hostile dicts fail only as ConfigError, and
RemoteControlledSampler decides as jaeger-client's samplers for any strategy and ID."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from jaeger_client import sampler as jc

from dsampler import protocol as dr
from dsampler.errors import ConfigError
from dsampler.jaeger import AdaptiveSampler, RemoteControlledSampler
from dsampler.jaeger._strategies import JAEGER_CLIENT, strategy_of
from dsampler.protocol._parse import parse_mapping
from tests.property.strategies import rates, trace_ids
from tests.property.test_protocol import json_values, responses

names = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=12)
stateless = st.builds(  # lower bound 0: decisions depend on the trace ID alone
    dr.PerOperationStrategy,
    rates,
    st.just(0.0),
    st.lists(st.builds(dr.OperationRate, names, rates), max_size=5).map(tuple),
)


@settings(max_examples=300)
@given(responses)
def test_a_complete_response_reads_alike_as_a_dict_and_as_a_body(response: dr.StrategyResponse) -> None:
    """Where nothing is absent, jaeger-client's reading of the decoded dict is the wire's."""
    text = dr.render(response)
    assert parse_mapping(json.loads(text), JAEGER_CLIENT) == dr.parse_response(text) == response


@settings(max_examples=300)
@given(
    st.dictionaries(
        st.sampled_from(["strategyType", "probabilisticSampling", "operationSampling"]), json_values
    )
)
def test_hostile_dicts_are_a_strategy_or_a_config_error(data: dict[str, Any]) -> None:
    """Whatever a dict holds, strategy_of returns a strategy or raises ConfigError."""
    found: object = None
    try:
        found = strategy_of(data)
    except ConfigError as exc:
        found = exc.field  # names where the problem is
    assert isinstance(
        found, (str, dr.ProbabilisticStrategy, dr.RateLimitingStrategy, dr.PerOperationStrategy)
    )
    assert found != ""


@settings(max_examples=40, deadline=None)
@given(stateless, st.lists(st.tuples(trace_ids, st.sampled_from(["a", "b", "", "zz"])), max_size=30))
def test_per_operation_decisions_are_jaeger_clients(
    strategy: dr.PerOperationStrategy, calls: list[tuple[int, str]]
) -> None:
    """Over the DSampler, the decision and sampled tags of jaeger-client's AdaptiveSampler
    for the same strategy (without a lower bound, so no clock is involved)."""
    ours = RemoteControlledSampler(None, "svc")
    ours.update(strategy)
    raw = json.loads(dr.render(dr.StrategyResponse.of(strategy)))["operationSampling"]
    theirs = jc.AdaptiveSampler(raw, 2000)
    assert ours.sampler == AdaptiveSampler(raw)
    for tid, op in calls:
        got, expected = ours.is_sampled(tid, op), theirs.is_sampled(tid, op)
        assert got[0] is expected[0]
        if got[0]:
            assert got[1] == expected[1]
    ours.close()
