"""The response parser: every dialect, every literal of the research note, hostile input."""

from __future__ import annotations

import json
import math

import pytest

from dsampler.errors import ConfigError
from dsampler.protocol import (
    OperationRate,
    PerOperationStrategy,
    ProbabilisticStrategy,
    RateLimitingStrategy,
    StrategyResponse,
    decode_json,
    parse_response,
)
from dsampler.protocol._parse import MAX_OPERATIONS, MAX_RESPONSE_BYTES, parse_strategy
from tests.remote_servers import fixture_bytes

P = ProbabilisticStrategy
R = RateLimitingStrategy

#: Verbatim or derived literals of research note §1.2, with the strategy a client acts on.
LITERALS = [
    ('{"strategyType":"PROBABILISTIC","probabilisticSampling":{"samplingRate":1}}', P(1.0)),
    ('{"strategyType":"PROBABILISTIC","probabilisticSampling":{"samplingRate":0.5}}', P(0.5)),
    ('{"strategyType":0,"probabilisticSampling":{"samplingRate":0.5}}', P(0.5)),
    ('{"probabilisticSampling":{"samplingRate":0.5}}', P(0.5)),
    ('{"strategyType":"RATE_LIMITING","rateLimitingSampling":{"maxTracesPerSecond":42}}', R(42)),
    ('{"strategyType":1,"rateLimitingSampling":{"maxTracesPerSecond":42}}', R(42)),
    (
        '{"strategyType":"PROBABILISTIC","operationSampling":{"defaultSamplingProbability":0.42,'
        '"defaultLowerBoundTracesPerSecond":2,"perOperationStrategies":['
        '{"operation":"foo","probabilisticSampling":{"samplingRate":0.42}},'
        '{"operation":"bar","probabilisticSampling":{"samplingRate":0.42}}],'
        '"defaultUpperBoundTracesPerSecond":11.2}}',
        PerOperationStrategy(0.42, 2.0, (OperationRate("foo", 0.42), OperationRate("bar", 0.42))),
    ),
    (
        '{"strategyType":"PROBABILISTIC","operationSampling":{"defaultSamplingProbability":1,'
        '"defaultLowerBoundTracesPerSecond":0.016666666666666666,"perOperationStrategies":[],'
        '"defaultUpperBoundTracesPerSecond":0}}',
        PerOperationStrategy(1.0, 1 / 60),
    ),
]

SERVICE_B = PerOperationStrategy(0.2, 0.0, (OperationRate("/health", 0.1),))
SERVICE_B_DIALECTS = [
    '{"strategyType":"RATE_LIMITING","rateLimitingSampling":{"maxTracesPerSecond":3},'
    '"operationSampling":{"defaultSamplingProbability":0.2,"defaultLowerBoundTracesPerSecond":0,'
    '"perOperationStrategies":[{"operation":"/health","probabilisticSampling":{"samplingRate":0.1}}],'
    '"defaultUpperBoundTracesPerSecond":0}}',
    '{"strategyType":1,"rateLimitingSampling":{"maxTracesPerSecond":3},'
    '"operationSampling":{"defaultSamplingProbability":0.2,"defaultLowerBoundTracesPerSecond":0,'
    '"perOperationStrategies":[{"operation":"/health","probabilisticSampling":{"samplingRate":0.1}}],'
    '"defaultUpperBoundTracesPerSecond":0}}',
    '{"strategyType":1,"rateLimitingSampling":{"maxTracesPerSecond":3},'
    '"operationSampling":{"defaultSamplingProbability":0.2,'
    '"perOperationStrategies":[{"operation":"/health","probabilisticSampling":{"samplingRate":0.1}}]}}',
]


@pytest.mark.parametrize(("text", "expected"), LITERALS)
def test_literals_of_the_research_note_parse(text: str, expected: object) -> None:
    """Each §1.2 literal parses to the strategy a compliant client acts on."""
    assert parse_strategy(text.encode()) == expected


def test_the_three_dialects_of_one_response_parse_identically() -> None:
    """proto3-JSON, legacy numeric and Go-struct JSON of ServiceB give one whole response."""
    parsed = {parse_response(text.encode()) for text in SERVICE_B_DIALECTS}
    assert parsed == {
        StrategyResponse("RATE_LIMITING", rate_limiting=R(3), per_operation=SERVICE_B),
    }
    assert parse_strategy(SERVICE_B_DIALECTS[0].encode()) == SERVICE_B  # per-operation wins


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "TestServiceNoPerOperationStrategies_ServiceA.json",
            PerOperationStrategy(1.0, 0.0, (OperationRate("/health", 0.1),)),
        ),
        ("TestServiceNoPerOperationStrategies_ServiceB.json", SERVICE_B),
        (
            "TestServiceNoPerOperationStrategiesDeprecatedBehavior_ServiceA.json",
            PerOperationStrategy(1.0, 0.0, (OperationRate("/health", 0.1),)),
        ),
        ("TestServiceNoPerOperationStrategiesDeprecatedBehavior_ServiceB.json", R(3)),
        (
            "probablistic_with_default_operation_strategy.json",
            PerOperationStrategy(1.0, 0.0, (OperationRate("/health", 0.0),)),
        ),
        (
            "ratelimiting_with_default_operation_strategy.json",
            PerOperationStrategy(0.2, 0.0, (OperationRate("/health", 0.0),)),
        ),
    ],
)
def test_every_expected_response_fixture_parses(name: str, expected: object) -> None:
    """The Go-struct fixtures parse; `"probabilisticSampling": {}` is rate 0, not 0.001."""
    assert parse_strategy(fixture_bytes(name)) == expected


def test_strategy_type_without_a_strategy_is_refused() -> None:
    """The collector's testdata/strategy.json carries no strategy object: refused, by name."""
    with pytest.raises(ConfigError, match="no usable strategy") as info:
        parse_strategy(fixture_bytes("otel-collector-contrib/strategy.json"))
    assert info.value.field == "response"


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (b"", "response"),
        (b"bad_json", "response"),
        (b"<html>503</html>", "response"),
        (
            b'{"strategyType":"PROBABILISTIC","probabilisticSampling":{"samplingRate":0.',
            "response",
        ),  # truncated
        (b"[]", "response"),
        (b'"PROBABILISTIC"', "response"),
        (b"null", "response"),
        (b"\xff\xfe{}", "response"),
        (b"{}", "response"),
        (b'{"strategyType":"foo_bar","probabilisticSampling":{"samplingRate":0.5}}', "strategyType"),
        (b'{"strategyType":"RATELIMITING","rateLimitingSampling":{"maxTracesPerSecond":1}}', "strategyType"),
        (b'{"strategyType":7,"probabilisticSampling":{"samplingRate":0.5}}', "strategyType"),
        (b'{"strategyType":true,"probabilisticSampling":{"samplingRate":0.5}}', "strategyType"),
        (b'{"strategyType":1.0,"rateLimitingSampling":{"maxTracesPerSecond":1}}', "strategyType"),
        (b'{"probabilisticSampling":[0.5]}', "probabilisticSampling"),
        (b'{"probabilisticSampling":{"samplingRate":NaN}}', "probabilisticSampling.samplingRate"),
        (b'{"probabilisticSampling":{"samplingRate":"NaN"}}', "probabilisticSampling.samplingRate"),
        (b'{"probabilisticSampling":{"samplingRate":-0.1}}', "probabilisticSampling.samplingRate"),
        (b'{"probabilisticSampling":{"samplingRate":1.5}}', "probabilisticSampling.samplingRate"),
        (b'{"probabilisticSampling":{"samplingRate":1e400}}', "probabilisticSampling.samplingRate"),
        (b'{"probabilisticSampling":{"samplingRate":"Infinity"}}', "probabilisticSampling.samplingRate"),
        (b'{"probabilisticSampling":{"samplingRate":true}}', "probabilisticSampling.samplingRate"),
        (b'{"probabilisticSampling":{"samplingRate":"half"}}', "probabilisticSampling.samplingRate"),
        (b'{"probabilisticSampling":{"samplingRate":" 0.5"}}', "probabilisticSampling.samplingRate"),
        (b'{"probabilisticSampling":{"samplingRate":"1_0"}}', "probabilisticSampling.samplingRate"),
        (b'{"rateLimitingSampling":{"maxTracesPerSecond":-1}}', "rateLimitingSampling.maxTracesPerSecond"),
        (b'{"rateLimitingSampling":{"maxTracesPerSecond":1e12}}', "rateLimitingSampling.maxTracesPerSecond"),
        (
            b'{"operationSampling":{"defaultSamplingProbability":2}}',
            "operationSampling.defaultSamplingProbability",
        ),
        (
            b'{"operationSampling":{"defaultLowerBoundTracesPerSecond":-1}}',
            "operationSampling.defaultLowerBoundTracesPerSecond",
        ),
        (b'{"operationSampling":{"perOperationStrategies":{}}}', "operationSampling.perOperationStrategies"),
        (
            b'{"operationSampling":{"perOperationStrategies":[1]}}',
            "operationSampling.perOperationStrategies[0]",
        ),
        (
            b'{"operationSampling":{"perOperationStrategies":[{"operation":5}]}}',
            "operationSampling.perOperationStrategies[0].operation",
        ),
        (
            b'{"operationSampling":{"perOperationStrategies":[{"operation":"a","probabilisticSampling":{"samplingRate":2}}]}}',
            "operationSampling.perOperationStrategies[0].probabilisticSampling.samplingRate",
        ),
    ],
)
def test_bad_responses_are_refused_naming_the_field(text: bytes, field: str) -> None:
    """Malformed, wrong-typed, out-of-range and unknown-enum input raises a ConfigError
    whose field is the wire path."""
    with pytest.raises(ConfigError) as info:
        parse_strategy(text)
    assert info.value.field == field


def test_numbers_as_strings_null_members_and_extra_fields_are_accepted() -> None:
    """gogo jsonpb's leniencies: "0.5", null as absent, unknown members ignored."""
    text = (
        b'{"strategyType":null,"extra":{"x":[1,2]},"rateLimitingSampling":null,'
        b'"probabilisticSampling":{"samplingRate":"0.25","futureField":true}}'
    )
    assert parse_strategy(text) == P(0.25)


def test_fractional_rate_limits_are_kept() -> None:
    """maxTracesPerSecond 0.5 stays 0.5 (a lenient client keeps the float rate)."""
    assert parse_strategy(b'{"rateLimitingSampling":{"maxTracesPerSecond":0.5}}') == R(0.5)


def test_missing_members_are_proto3_zeros() -> None:
    """Absent numbers are 0, an absent operation message is rate 0, a missing name is ""."""
    text = b'{"operationSampling":{"perOperationStrategies":[{"operation":"a"},{}]}}'
    assert parse_strategy(text) == PerOperationStrategy(
        0.0, 0.0, (OperationRate("a", 0.0), OperationRate("", 0.0))
    )
    assert parse_strategy(b'{"rateLimitingSampling":{}}') == R(0.0)


def test_oversized_bodies_and_operation_counts_are_refused() -> None:
    """Past the body cap or the operation cap a response is refused before it is built."""
    with pytest.raises(ConfigError, match="at most"):
        parse_response(b" " * (MAX_RESPONSE_BYTES + 1))
    ops = [{"operation": f"op{i}"} for i in range(MAX_OPERATIONS + 1)]
    with pytest.raises(ConfigError, match="at most") as info:
        parse_response(json.dumps({"operationSampling": {"perOperationStrategies": ops}}).encode())
    assert info.value.field == "operationSampling.perOperationStrategies"


def test_deeply_nested_and_huge_integer_json_is_refused_cleanly() -> None:
    """Recursion and int-conversion limits become ConfigErrors, not crashes."""
    for text in (b"[" * 100_000 + b"]" * 100_000, b'{"strategyType":' + b"9" * 5000 + b"}"):
        with pytest.raises(ConfigError):
            parse_response(text)


@pytest.mark.parametrize("text", [b"NaN", b"-Infinity", b'{"param": Infinity}', b"[" * 100_000])
def test_a_strategies_file_refuses_non_finite_constants_and_deep_nesting(text: bytes) -> None:
    """decode_json serves a strategies file too: named by its path, with no NaN or Infinity."""
    with pytest.raises(ConfigError, match=r"^strategies: not usable JSON"):
        decode_json(text, "strategies", constants=False)


def test_a_response_reads_json_constants_as_python_does() -> None:
    value = decode_json(b'{"a": NaN, "b": -Infinity}')
    assert math.isnan(value["a"])
    assert value["b"] == float("-inf")


def test_long_operation_names_are_refused() -> None:
    """Operation names longer than the model's text limit are refused, named."""
    text = json.dumps({"operationSampling": {"perOperationStrategies": [{"operation": "x" * 5000}]}}).encode()
    with pytest.raises(ConfigError) as info:
        parse_response(text)
    assert info.value.field.endswith("[0].operation")
