"""One strategies file, three engines: Jaeger v2, the OpenTelemetry Collector and
``dsampler serve`` serve every Jaeger strategies file of the fixture set
(``tests/data/jaeger``), and every service in it (and one it does not list) parses to the
same strategy from each, with every difference named and checked here."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from dsampler.protocol import StrategyResponse, parse_response, render
from interop import engines
from interop.engines import Engine, get

FIXTURES = engines.REPO / "tests" / "data" / "jaeger"
FILES = [
    "strategies.json",
    "operation_strategies.json",
    "missing-service-types.json",
    "service_no_per_operation.json",
    "pr5277/service_no_per_operation.json",
    "sampling-strategies.json",
    "sampling_strategies_example.json",
    "sampling_strategies.json",
    "strategies-hot-reload.json",
    "otel-go-contrib/strategies.json",
    "otel-java/sampling.json",
]


def services_of(path: Path) -> list[str]:
    data = json.loads(path.read_text())
    listed = [entry["service"] for entry in data.get("service_strategies") or [] if "service" in entry]
    return [*dict.fromkeys(listed), "interop-unlisted"]


def inherits_default_ops(path: Path, service: str) -> bool:
    """A listed service without operation rules of its own that is not probabilistic,
    in a file whose default strategy has rules: Jaeger gives it the default's rules
    (jaeger#5270); the Collector does only from its first reload on."""
    data = json.loads(path.read_text())
    default_ops = (data.get("default_strategy") or {}).get("operation_strategies")
    for entry in data.get("service_strategies") or []:
        if entry.get("service") == service:
            return (
                bool(default_ops)
                and not entry.get("operation_strategies")
                and entry.get("type") != "probabilistic"
            )
    return False


@pytest.fixture(params=FILES)
def served(
    request: pytest.FixtureRequest, built: Callable[[str], Path]
) -> Iterator[tuple[Path, list[Engine]]]:
    go = built("go-engines")
    path = FIXTURES / request.param
    trio = [
        engines.jaeger(go / "bin" / "jaeger", path),
        engines.otelcol(go / "bin" / "otelcol", path),
        engines.dsampler_serve(path),
    ]
    with engines.running(*trio):
        time.sleep(RELOADED_S)
        yield path, trio


# The engines reload every 0.2 s (engines.py): after 1 s the Collector has reloaded
# once, which it must have before it answers as Jaeger does (see the first-load test).
RELOADED_S = 1.0


def answer(engine: Engine, service: str) -> tuple[bytes, StrategyResponse]:
    status, body, content_type = get(engine.url_for(service))
    assert status == 200, f"{engine.name} {service}: HTTP {status} {body[:200]!r}"
    assert content_type.startswith("application/json"), f"{engine.name}: {content_type}"
    return body, parse_response(body)


def test_jaeger_collector_and_dsampler_serve_agree_on_every_service(
    served: tuple[Path, list[Engine]],
) -> None:
    """Each service's answer parses to the same response from all three; Jaeger's bytes
    are dsampler's in its legacy dialect (Jaeger v2.13 writes numeric enums), the
    Collector's are its Go-struct dialect, byte for byte."""
    path, (jaeger, otelcol, serve) = served
    checked: list[str] = []
    for service in services_of(path):
        jaeger_body, from_jaeger = answer(jaeger, service)
        otelcol_body, from_otelcol = answer(otelcol, service)
        _, from_serve = answer(serve, service)
        assert from_jaeger == from_serve, f"{path.name} {service}: Jaeger {jaeger_body!r}"
        assert jaeger_body == render(from_serve, "legacy"), f"{path.name} {service}"
        assert from_otelcol == from_serve, f"{path.name} {service}: Collector {otelcol_body!r}"
        assert otelcol_body == render(from_otelcol, "go-struct"), f"{path.name} {service}"
        checked.append(service)
    assert checked


@pytest.mark.parametrize("name", ["service_no_per_operation.json", "pr5277/service_no_per_operation.json"])
def test_the_collectors_first_load_differs_until_it_reloads(built: Callable[[str], Path], name: str) -> None:
    """The one difference: the Collector's first load of a file does not give a
    non-probabilistic service without rules the default strategy's rules (Jaeger's
    behaviour before jaeger#5270); its reloads do. With reloading off it never does."""
    go = built("go-engines")
    path = FIXTURES / name
    differing = [s for s in services_of(path) if inherits_default_ops(path, s)]
    assert differing, name
    with engines.running(
        engines.otelcol(go / "bin" / "otelcol", path, reload_s=0), engines.dsampler_serve(path)
    ) as (
        otelcol,
        serve,
    ):
        time.sleep(RELOADED_S)
        for service in differing:
            _, from_otelcol = answer(otelcol, service)
            _, from_serve = answer(serve, service)
            assert from_serve.per_operation is not None
            assert from_serve.rate_limiting is not None
            assert from_otelcol == StrategyResponse(
                from_serve.strategy_type, rate_limiting=from_serve.rate_limiting
            )


@pytest.mark.parametrize("name", FILES)
def test_the_collector_relays_dsampler_serve_over_grpc(built: Callable[[str], Path], name: str) -> None:
    """The Collector with ``source: remote`` pointed at ``dsampler serve --grpc-port``
    (grpc-go's client against dsampler's gRPC server) answers every service over HTTP
    with what ``dsampler serve`` answers, in its own dialect, byte for byte."""
    go = built("go-engines")
    path = FIXTURES / name
    with engines.running(engines.dsampler_serve(path)) as (serve,):
        relay = engines.otelcol_remote(go / "bin" / "otelcol", serve.grpc_port)
        with engines.running(relay):
            for service in services_of(path):
                relayed_body, relayed = answer(relay, service)
                _, direct = answer(serve, service)
                assert relayed == direct, f"{name} {service}: {relayed_body!r}"
                assert relayed_body == render(direct, "go-struct"), f"{name} {service}"


def test_an_invalid_file_stops_every_engine_at_start(built: Callable[[str], Path]) -> None:
    """``bad_strategies.json`` (not an object): Jaeger and the Collector exit, and so
    does ``dsampler serve`` (exit 2 naming the problem)."""
    go = built("go-engines")
    path = FIXTURES / "bad_strategies.json"
    for engine in (
        engines.jaeger(go / "bin" / "jaeger", path),
        engines.otelcol(go / "bin" / "otelcol", path),
        engines.dsampler_serve(path),
    ):
        with pytest.raises(RuntimeError, match="exited"):
            engine.start()
        engine.stop()
