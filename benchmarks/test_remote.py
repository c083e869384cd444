"""Jaeger remote sampling: the decision cost through JaegerRemoteSampler against DSampler
with the same strategy (the poller adds nothing to the request path), and the strategies
server's requests per second under 50 concurrent clients.

Groups (``benchmarks/report.py`` pairs ``impl`` "dsampler", the remote sampler, with its
peer "facade", a DSampler built with the same configuration):

- ``remote``: root sampled / dropped at a probabilistic strategy, a listed operation of
  a per-operation strategy, and a child of a sampled remote parent.
- ``remote-server``: ``dsampler serve`` in a subprocess, 50 concurrent clients from one
  asyncio process (``server_load.py``), kept-alive connections and a connection per
  request, and over gRPC (``--grpc-port``, ``grpc_load.py``: a channel per client);
  ``extra_info`` carries requests per second.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from opentelemetry.context import Context
from opentelemetry.sdk.trace.sampling import Decision, Sampler
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context
from pytest_benchmark.fixture import BenchmarkFixture
from server_load import run_load, serve

import dsampler
from dsampler.protocol import StrategyResponse
from dsampler.protocol._parse import parse_strategy
from dsampler.remote import JaegerRemoteSampler
from dsampler.serve import Strategies, StrategiesServer

if TYPE_CHECKING:
    from conftest import BenchIds

SCALAR = {"min_time": 1e-4, "warmup": True, "warmup_iterations": 20_000}
NAME = "GET /x"
LOAD_SECONDS = 2.0
STRATEGIES = Path(__file__).resolve().parents[1] / "tests" / "data" / "jaeger" / "operation_strategies.json"
CONCURRENCY = 50


def _strategy(case: str, rate: float) -> bytes:
    if case == "per-operation, listed":
        ops = [{"operation": NAME, "probabilisticSampling": {"samplingRate": rate}}]
        ops += [{"operation": f"op{i}", "probabilisticSampling": {"samplingRate": 0.5}} for i in range(99)]
        body = {"operationSampling": {"defaultSamplingProbability": 0.01, "perOperationStrategies": ops}}
    else:
        body = {"strategyType": "PROBABILISTIC", "probabilisticSampling": {"samplingRate": rate}}
    return json.dumps(body).encode()


@pytest.fixture(scope="module")
def remote_server() -> Iterator[dict[str, StrategiesServer]]:
    """A real strategies server per strategy kind, on 127.0.0.1."""
    servers = {}
    for case in ("probabilistic", "per-operation, listed"):
        response = StrategyResponse.of(parse_strategy(_strategy(case, 0.1)))
        servers[case] = StrategiesServer(Strategies(response), port=0).start()
    yield servers
    for server in servers.values():
        server.close()


def _pair(impl: str, case: str, server: StrategiesServer) -> Sampler:
    """The remote sampler after one real poll, or a DSampler with the same configuration."""
    remote = JaegerRemoteSampler("bench", server.url, start=False, sampler_tags=True, resource={})
    remote.poll_once()
    assert remote.strategy is not None
    if impl == "dsampler":
        return remote
    return dsampler.DSampler(remote.config, resource={})  # the same configuration, set by hand


@pytest.mark.benchmark(group="remote", **SCALAR)
@pytest.mark.parametrize("impl", ["dsampler", "facade"])
@pytest.mark.parametrize("case", ["root sampled", "root dropped", "per-operation, listed", "child remote"])
def test_remote_decision(
    benchmark: BenchmarkFixture,
    ids: BenchIds,
    remote_server: dict[str, StrategiesServer],
    impl: str,
    case: str,
) -> None:
    """Measures should_sample through JaegerRemoteSampler and through DSampler with the
    strategy it fetched."""
    benchmark.extra_info.update(impl=impl, case=case)
    kind = "per-operation, listed" if case == "per-operation, listed" else "probabilistic"
    sampler = _pair(impl, case, remote_server[kind])
    context: Context | None = None
    tid = ids.dropped if case == "root dropped" else ids.sampled
    if case == "child remote":
        parent = SpanContext(ids.dropped, ids.span_id, True, TraceFlags(TraceFlags.SAMPLED))
        context, tid = set_span_in_context(NonRecordingSpan(parent)), ids.dropped

    result = benchmark(sampler.should_sample, context, tid, NAME)

    sampled = case != "root dropped"
    assert result.decision is (Decision.RECORD_AND_SAMPLE if sampled else Decision.DROP)
    if case in ("root sampled", "per-operation, listed"):
        assert result.attributes == {"sampler.type": "probabilistic", "sampler.param": 0.1}


@pytest.mark.benchmark(group="remote-server")
@pytest.mark.parametrize("case", ["keep-alive", "new connection per request"])
def test_server_requests_per_second(benchmark: BenchmarkFixture, case: str) -> None:
    """Measures dsampler serve under 50 concurrent clients for a fixed time; the rate is
    in extra_info["requests_per_s"]. Every response must be a 200."""
    proc, url = serve(str(STRATEGIES))
    try:
        results: dict[str, Any] = {}

        def load() -> None:
            results.update(run_load(url, CONCURRENCY, LOAD_SECONDS, new_connections=case != "keep-alive"))

        benchmark.pedantic(load, rounds=1, iterations=1)
    finally:
        proc.terminate()
        proc.wait(10)
    benchmark.extra_info.update(impl="dsampler serve", case=case, concurrency=CONCURRENCY, **results)
    assert results["errors"] == 0
    assert results["requests"] > 0


@pytest.mark.benchmark(group="remote-server")
def test_grpc_server_requests_per_second(benchmark: BenchmarkFixture) -> None:
    """dsampler serve --grpc-port under 50 concurrent gRPC clients (a channel, and so a
    connection, each) for a fixed time; every answer must decode. Skipped without
    grpcio (the ``grpc`` extra), which the HTTP benchmarks beside it do not need."""
    pytest.importorskip("grpc")
    from grpc_load import run_grpc_load, serve_grpc

    proc, _, target = serve_grpc(str(STRATEGIES))
    try:
        results: dict[str, Any] = {}

        def load() -> None:
            results.update(run_grpc_load(target, CONCURRENCY, LOAD_SECONDS))

        benchmark.pedantic(load, rounds=1, iterations=1)
    finally:
        proc.terminate()
        proc.wait(10)
    benchmark.extra_info.update(impl="dsampler serve", case="gRPC", concurrency=CONCURRENCY, **results)
    assert results["errors"] == 0
    assert results["requests"] > 0
