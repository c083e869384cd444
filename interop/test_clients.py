"""The real clients against ``dsampler serve`` and the engines serving the same file:
OpenTelemetry Go (HTTP), jaeger-client-go (HTTP), OpenTelemetry Java (gRPC) and
OpenTelemetry JS (HTTP) each poll three services (probabilistic, per-operation, rate
limiting) from ``dsampler serve``, Jaeger v2 and the OpenTelemetry Collector; what each
client then does (a probe decision per operation, and its decisions on 10,000 trace IDs)
must be the same from every engine, and its decisions must be dsampler's with the
matching rule (``otel``, ``jaeger-go``, ``otel-java``, ``otel-js``). Where a client cannot
follow an engine, the test names it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from dsampler.protocol._parse import parse_strategy
from interop import clients, engines
from interop.clients import OPS, RATES, STRATEGIES, Client
from interop.engines import Engine, get

CLIENTS: Final = (clients.OTEL_GO, clients.JAEGER_GO, clients.OTEL_JAVA, clients.OTEL_JS)
# The rule dsampler decides each client's way with (Java and JS decide as neither
# OpenTelemetry Python nor Go does: rules otel-java and otel-js).
DSAMPLER_RULE: Final = {
    "otel-go": "otel",
    "jaeger-go": "jaeger-go",
    "otel-java": "otel-java",
    "otel-js": "otel-js",
}


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory, built: Callable[[str], Path]
) -> Iterator[dict[str, Engine]]:
    go = built("go-engines")
    path = tmp_path_factory.mktemp("clients") / "strategies.json"
    path.write_text(json.dumps(STRATEGIES))
    trio = (
        engines.dsampler_serve(path),
        engines.jaeger(go / "bin" / "jaeger", path),
        engines.otelcol(go / "bin" / "otelcol", path),
    )
    with engines.running(*trio):
        yield {engine.name: engine for engine in trio}


_RUNS: dict[tuple[str, str, str], dict[str, Any]] = {}


def report(client: Client, built: Path, engine: Engine, service: str, ids_file: Path) -> dict[str, Any]:
    key = (client.name, engine.name, service)
    if key not in _RUNS:
        url = clients.endpoint_for(client, engine.sampling_url, engine.grpc_port)
        ids = None if service == "svc-rl" else ids_file
        _RUNS[key] = clients.run(client, built, url, service, OPS, ids, wait_s=5.0)
    return _RUNS[key]


def follows(client: Client, engine: str, service: str) -> bool:
    """Whether the client takes this engine's strategy for this service, as measured.
    jaeger-client-go reads ``strategyType`` only as a name: it refuses every answer of
    Jaeger v2.13 (``0`` or ``1``) and the Collector's rate limit (``1``; the Collector
    omits a 0). JS reads only ``strategyType: "PROBABILISTIC"`` unless operations are
    listed, and never rate limiting."""
    if engine == "dsampler-serve" and not (client.name == "otel-js" and service == "svc-rl"):
        return True
    if client.name == "jaeger-go":
        return engine == "otelcol" and service != "svc-rl"
    if client.name == "otel-js":
        return service == "svc-ops"
    return True


@pytest.mark.parametrize("client", CLIENTS, ids=lambda c: c.name)
def test_client_follows_dsampler_serve_as_it_follows_jaeger(
    client: Client, served: dict[str, Engine], built: Callable[[str], Path], ids_file: Path
) -> None:
    """Every strategy the client takes from Jaeger it takes alike from ``dsampler serve``
    and from the Collector: the same probe decisions and attributes per operation, the
    same decisions on every one of the 10,000 trace IDs."""
    home = built(client.component)
    for service in ("svc-prob", "svc-ops", "svc-rl"):
        seen = {name: report(client, home, engine, service, ids_file) for name, engine in served.items()}
        for name, found in seen.items():
            assert found["got_strategy"] is follows(client, name, service), (name, service, found["errors"])
        taken = [found for name, found in seen.items() if follows(client, name, service)]
        for found in taken[1:]:
            assert found["effective"] == taken[0]["effective"], service
            assert found["decisions"] == taken[0]["decisions"], service


@pytest.mark.parametrize("client", CLIENTS, ids=lambda c: c.name)
def test_client_decides_each_trace_id_as_its_rule_says(
    client: Client, served: dict[str, Engine], built: Callable[[str], Path], ids: list[int], ids_file: Path
) -> None:
    """On every one of the 10,000 trace IDs, for every operation of both services:
    OpenTelemetry Go decides as dsampler's ``otel`` rule, jaeger-client-go as its
    ``jaeger-go`` rule, OpenTelemetry Java as ``otel-java`` and JS as ``otel-js``."""
    home = built(client.component)
    serve = served["dsampler-serve"]
    for service in RATES:
        found = report(client, home, serve, service, ids_file)
        assert found["got_strategy"], found["errors"]
        strategy = parse_strategy(get(serve.url_for(service))[1])
        ours = clients.dsampler_decisions(strategy, DSAMPLER_RULE[client.name], OPS, ids)
        assert found["decisions"] == ours, service


@pytest.mark.parametrize("client", CLIENTS, ids=lambda c: c.name)
def test_client_probe_shows_the_strategy(
    client: Client, served: dict[str, Engine], built: Callable[[str], Path], ids_file: Path
) -> None:
    """A decision on a trace ID every rate above 0 samples shows the strategy in force:
    sampled except at rate 0, with the rate (or the limit) in the sampler attributes
    where the client sets them. jaeger-client-go samples an operation's first trace at
    rate 0 all the same, as ``lowerbound``: its lower-bound bucket of 0 per second starts
    full (OpenTelemetry Go fixed this, go-contrib#3604; dsampler never samples at 0)."""
    home = built(client.component)
    serve = served["dsampler-serve"]
    for service, rates in RATES.items():
        effective = report(client, home, serve, service, ids_file)["effective"]
        for op, rate in rates.items():
            attributes = effective[op]["attributes"]
            if client.name == "jaeger-go" and rate == 0 and service == "svc-ops":
                assert effective[op]["sampled"], op
                assert attributes["sampler.type"] == "lowerbound"
                continue
            assert effective[op]["sampled"] is (rate > 0), (service, op)
            param = attributes.get("jaeger.sampler.param", attributes.get("sampler.param"))
            if client.name in ("otel-go", "jaeger-go") and rate > 0:
                assert param == pytest.approx(rate), (service, op, attributes)
    if follows(client, "dsampler-serve", "svc-rl"):
        effective = report(client, home, serve, "svc-rl", ids_file)["effective"]
        attributes = effective["other"]["attributes"]
        assert effective["other"]["sampled"]
        assert attributes.get("jaeger.sampler.param", attributes.get("sampler.param")) == 7
