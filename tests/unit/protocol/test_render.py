"""The renderer writes what Jaeger and the OpenTelemetry Collector write, byte for byte."""

from __future__ import annotations

import json

import pytest

from dsampler.protocol import (
    OperationRate,
    PerOperationStrategy,
    ProbabilisticStrategy,
    RateLimitingStrategy,
    StrategyResponse,
    render,
)
from dsampler.protocol._render import go_number, go_string
from tests.remote_servers import fixture_bytes


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0, "0"),
        (1.0, "1"),
        (0.5, "0.5"),
        (0.001, "0.001"),
        (3.0, "3"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (1e-100, "1e-100"),
        (1e21, "1e+21"),
        (1.2345678901234568e20, "123456789012345680000"),
        (1 / 60, "0.016666666666666666"),
        (5e-324, "5e-324"),
    ],
)
def test_numbers_are_formatted_as_go_encoding_json(value: float, text: str) -> None:
    """Shortest digits, no '.0', exponents only below 1e-6 or from 1e21, e-07 trimmed to e-7."""
    assert go_number(value) == text
    assert float(text) == value


def test_strings_are_escaped_as_go_encoding_json() -> None:
    """Quotes, backslashes, controls, HTML characters and U+2028/9 escaped; UTF-8 kept."""
    assert go_string('a"b\\c\n\t<&>\u2028\x01é') == '"a\\"b\\\\c\\n\\t\\u003c\\u0026\\u003e\\u2028\\u0001é"'
    assert json.loads(go_string("\ud800")) == "\ufffd"  # a lone surrogate, as Go writes invalid UTF-8


@pytest.mark.parametrize(
    ("response", "text"),
    [
        (
            StrategyResponse.of(ProbabilisticStrategy(1.0)),
            '{"strategyType":"PROBABILISTIC","probabilisticSampling":{"samplingRate":1}}',
        ),
        (
            StrategyResponse.of(ProbabilisticStrategy(0.5)),
            '{"strategyType":"PROBABILISTIC","probabilisticSampling":{"samplingRate":0.5}}',
        ),
        (
            StrategyResponse.of(RateLimitingStrategy(42)),
            '{"strategyType":"RATE_LIMITING","rateLimitingSampling":{"maxTracesPerSecond":42}}',
        ),
        (
            StrategyResponse.of(PerOperationStrategy(1.0, 1 / 60)),
            '{"strategyType":"PROBABILISTIC","operationSampling":{"defaultSamplingProbability":1,'
            '"defaultLowerBoundTracesPerSecond":0.016666666666666666,"perOperationStrategies":[],'
            '"defaultUpperBoundTracesPerSecond":0}}',
        ),
        (
            StrategyResponse(
                "RATE_LIMITING",
                rate_limiting=RateLimitingStrategy(3),
                per_operation=PerOperationStrategy(0.2, 0.0, (OperationRate("/health", 0.1),)),
            ),
            '{"strategyType":"RATE_LIMITING","rateLimitingSampling":{"maxTracesPerSecond":3},'
            '"operationSampling":{"defaultSamplingProbability":0.2,"defaultLowerBoundTracesPerSecond":0,'
            '"perOperationStrategies":[{"operation":"/health","probabilisticSampling":{"samplingRate":0.1}}],'
            '"defaultUpperBoundTracesPerSecond":0}}',
        ),
    ],
)
def test_proto3_json_matches_jaegers_literal_output(response: StrategyResponse, text: str) -> None:
    """The research note's verbatim Jaeger responses (docs, PR #8014, #5717, the derived
    ServiceB) are reproduced byte for byte."""
    assert render(response) == text.encode()


def test_legacy_dialect_uses_numeric_enums() -> None:
    """Thrift 0.9.2: the same body with strategyType 0 or 1."""
    assert render(StrategyResponse.of(RateLimitingStrategy(3)), "legacy") == (
        b'{"strategyType":1,"rateLimitingSampling":{"maxTracesPerSecond":3}}'
    )


@pytest.mark.parametrize(
    ("name", "response"),
    [
        (
            "TestServiceNoPerOperationStrategies_ServiceB.json",
            StrategyResponse(
                "RATE_LIMITING",
                rate_limiting=RateLimitingStrategy(3),
                per_operation=PerOperationStrategy(0.2, 0.0, (OperationRate("/health", 0.1),)),
            ),
        ),
        (
            "probablistic_with_default_operation_strategy.json",
            StrategyResponse(
                probabilistic=ProbabilisticStrategy(1.0),
                per_operation=PerOperationStrategy(1.0, 0.0, (OperationRate("/health", 0.0),)),
            ),
        ),
    ],
)
def test_go_struct_dialect_matches_the_fixtures_compacted(name: str, response: StrategyResponse) -> None:
    """Go encoding/json of the gogo struct: numeric enum, zeros omitted ({} for rate 0)."""
    compact = json.dumps(json.loads(fixture_bytes(name)), separators=(",", ":")).encode()
    assert render(response, "go-struct") == compact
