"""Properties of the strategy wire format: every dialect round-trips, hostile bytes never
escape as anything but ConfigError."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from dsampler.errors import ConfigError
from dsampler.protocol import (
    OperationRate,
    PerOperationStrategy,
    ProbabilisticStrategy,
    RateLimitingStrategy,
    StrategyResponse,
    parse_response,
    render,
)
from dsampler.protocol._parse import parse_strategy
from dsampler.protocol._render import DIALECTS
from tests.property.strategies import rates

per_second = st.one_of(
    st.sampled_from([0.0, 1.0, 1 / 60, 0.5, 3.0, 32767.0]),
    st.floats(min_value=0.0, max_value=1e9, allow_nan=False),
)
names = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)
operations = st.lists(st.builds(OperationRate, names, rates), max_size=8).map(tuple)
probabilistic = st.builds(ProbabilisticStrategy, rates)
rate_limiting = st.builds(RateLimitingStrategy, per_second)
per_operation = st.builds(PerOperationStrategy, rates, per_second, operations)
strategies = st.one_of(probabilistic, rate_limiting, per_operation)
responses = st.builds(
    StrategyResponse,
    st.sampled_from(["PROBABILISTIC", "RATE_LIMITING"]),
    st.none() | probabilistic,
    st.none() | rate_limiting,
    st.none() | per_operation,
)


@settings(max_examples=300)
@given(strategies)
def test_a_strategy_in_all_three_dialects_parses_identically(strategy: object) -> None:
    """proto3-JSON, legacy numeric and Go-struct JSON of one strategy parse to it."""
    response = StrategyResponse.of(strategy)  # type: ignore[arg-type]
    assert {parse_strategy(render(response, dialect)) for dialect in DIALECTS} == {strategy}


@settings(max_examples=300)
@given(responses)
def test_whole_responses_round_trip_in_every_dialect(response: StrategyResponse) -> None:
    """parse(render(x)) == x for any combination of strategy objects and type."""
    for dialect in DIALECTS:
        assert parse_response(render(response, dialect)) == response


@settings(max_examples=200)
@given(responses)
def test_proto3_output_is_json_with_only_known_members(response: StrategyResponse) -> None:
    """No member a gogo jsonpb client would reject; strategyType always a name."""
    data = json.loads(render(response))
    assert data["strategyType"] in ("PROBABILISTIC", "RATE_LIMITING")
    assert set(data) <= {"strategyType", "probabilisticSampling", "rateLimitingSampling", "operationSampling"}
    if "operationSampling" in data:
        assert set(data["operationSampling"]) == {
            "defaultSamplingProbability",
            "defaultLowerBoundTracesPerSecond",
            "perOperationStrategies",
            "defaultUpperBoundTracesPerSecond",
        }


json_values = st.recursive(
    st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=30), children, max_size=4)
    ),
    max_leaves=20,
)
wire_keys = st.sampled_from(
    [
        "strategyType",
        "probabilisticSampling",
        "rateLimitingSampling",
        "operationSampling",
        "samplingRate",
        "maxTracesPerSecond",
        "defaultSamplingProbability",
        "defaultLowerBoundTracesPerSecond",
        "perOperationStrategies",
        "operation",
    ]
)
wire_like = st.recursive(
    st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=10),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(wire_keys, children, max_size=5),
    max_leaves=25,
)


@settings(max_examples=400)
@given(
    st.one_of(
        st.binary(max_size=200), json_values.map(lambda v: json.dumps(v).encode()), wire_like.map(json.dumps)
    )
)
def test_hostile_bodies_parse_or_raise_config_error(body: bytes | str) -> None:
    """Anything at all: a strategy, or a ConfigError naming a field; nothing else escapes."""
    try:
        parse_strategy(body)
    except ConfigError as exc:
        field = exc.field
    else:
        field = "(parsed)"
    assert field
