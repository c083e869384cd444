"""Every expected-response fixture of Jaeger is reproduced by dsampler's strategies server
from its input file, over HTTP and over gRPC, and the client parses both to the same
strategy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dsampler.protocol import parse_response, render
from dsampler.protocol._proto import decode_response, encode_params
from dsampler.remote import HttpFetcher
from dsampler.serve import StrategiesFile, StrategiesServer, jaeger_strategies
from tests.google_sampling import Response, from_google
from tests.remote_servers import DATA, fixture_bytes, grpc_call

#: expected-response fixture -> (input file, service, Jaeger before #5270?)
REPRODUCED = {
    "TestServiceNoPerOperationStrategies_ServiceA.json": ("service_no_per_operation.json", "ServiceA", False),
    "TestServiceNoPerOperationStrategies_ServiceB.json": ("service_no_per_operation.json", "ServiceB", False),
    "TestServiceNoPerOperationStrategiesDeprecatedBehavior_ServiceA.json": (
        "service_no_per_operation.json",
        "ServiceA",
        True,
    ),
    "TestServiceNoPerOperationStrategiesDeprecatedBehavior_ServiceB.json": (
        "service_no_per_operation.json",
        "ServiceB",
        True,
    ),
    "probablistic_with_default_operation_strategy.json": (
        "pr5277/service_no_per_operation.json",
        "ServiceA",
        False,
    ),
    "ratelimiting_with_default_operation_strategy.json": (
        "pr5277/service_no_per_operation.json",
        "ServiceB",
        False,
    ),
}


def test_the_table_covers_every_expected_response_fixture() -> None:
    """Every response-shaped fixture (it has no default_strategy) is in the table or is
    the collector's strategy-less edge case."""
    responses = {
        str(path.relative_to(DATA))
        for path in DATA.rglob("*.json")
        if "strategyType" in path.read_text() or "probabilisticSampling" in path.read_text()
    }
    assert responses == set(REPRODUCED) | {"otel-collector-contrib/strategy.json"}


@pytest.mark.parametrize("expected", list(REPRODUCED))
def test_the_server_reproduces_the_fixture_and_the_client_reads_it_back(expected: str) -> None:
    """GET /sampling?service=... from the input file: the same whole response as the
    fixture once parsed; and the fixture's own dialect rendered byte for byte."""
    source, service, pre_5270 = REPRODUCED[expected]
    if pre_5270:
        strategies = jaeger_strategies(json.loads(fixture_bytes(source)), inherit_rate_limited=False)
        server = StrategiesServer(strategies, port=0)
    else:
        server = StrategiesServer(StrategiesFile(DATA / source, reload_interval_s=0), port=0)
    with server:
        served = HttpFetcher(server.url + "/sampling", timeout_s=5).fetch(service)
    fixture = fixture_bytes(expected)
    assert parse_response(served) == parse_response(fixture)
    assert parse_response(served).strategy == parse_response(fixture).strategy
    compact = json.dumps(json.loads(fixture), separators=(",", ":")).encode()
    assert render(parse_response(served), "go-struct") == compact


@pytest.mark.parametrize("expected", list(REPRODUCED))
def test_grpc_answers_every_fixture_as_http_does(expected: str) -> None:
    """GetSamplingStrategy over a real grpcio channel: the bytes decode (by dsampler and
    by Google's protobuf) to the HTTP answer and to the fixture."""
    source, service, pre_5270 = REPRODUCED[expected]
    if pre_5270:
        strategies = jaeger_strategies(json.loads(fixture_bytes(source)), inherit_rate_limited=False)
        server = StrategiesServer(strategies, port=0, grpc_port=0)
    else:
        server = StrategiesServer(StrategiesFile(DATA / source, reload_interval_s=0), port=0, grpc_port=0)
    with server:
        assert server.grpc is not None
        over_http = parse_response(HttpFetcher(server.url + "/sampling", timeout_s=5).fetch(service))
        over_grpc = grpc_call(server.grpc.port, encode_params(service))
    assert decode_response(over_grpc) == over_http == parse_response(fixture_bytes(expected))
    assert from_google(Response.FromString(over_grpc)) == over_http


@pytest.mark.parametrize(
    "source", ["strategies.json", "operation_strategies.json", "otel-java/sampling.json"]
)
def test_served_bodies_are_jaegers_proto3_json(source: str) -> None:
    """Served bodies have a string strategyType, zero values emitted, nothing extra."""
    with StrategiesServer(StrategiesFile(Path(DATA / source), reload_interval_s=0), port=0) as server:
        fetcher = HttpFetcher(server.url, timeout_s=5)
        for service in ("foo", "bar", "unknown"):
            data = json.loads(fetcher.fetch(service))
            assert data["strategyType"] in ("PROBABILISTIC", "RATE_LIMITING")
            if "operationSampling" in data:
                assert data["operationSampling"]["defaultLowerBoundTracesPerSecond"] == 0
                assert data["operationSampling"]["defaultUpperBoundTracesPerSecond"] == 0


@pytest.mark.parametrize(
    "source", ["strategies.json", "operation_strategies.json", "otel-java/sampling.json"]
)
def test_grpc_serves_the_strategies_files_as_http(source: str) -> None:
    strategies = StrategiesFile(Path(DATA / source), reload_interval_s=0)
    with StrategiesServer(strategies, port=0, grpc_port=0) as server:
        assert server.grpc is not None
        fetcher = HttpFetcher(server.url, timeout_s=5)
        names = ["foo", "bar", "unknown", *strategies.current.services]
        for service in names:
            over_grpc = decode_response(grpc_call(server.grpc.port, encode_params(service)))
            assert over_grpc == parse_response(fetcher.fetch(service)), service
