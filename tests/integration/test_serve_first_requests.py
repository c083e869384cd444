"""The first requests after a load of a large strategies file: each encodes its own
service's answer, once, off gRPC's event loop, however many arrive at once."""

from __future__ import annotations

import http.client
import json
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import dsampler.serve._grpc as grpc_module
import dsampler.serve._server as server_module
from dsampler.protocol import StrategyResponse
from dsampler.protocol._parse import parse_strategy
from dsampler.protocol._proto import decode_response, encode_params
from dsampler.serve import StrategiesFile, StrategiesServer
from tests.remote_servers import grpc_call

pytestmark = pytest.mark.slow

SERVICES = 2000
OPERATIONS = 40
HEALTH = "/grpc.health.v1.Health/Check"


def large_file(path: Path) -> Path:
    """``SERVICES`` services, each inheriting the default's ``OPERATIONS`` operations."""
    operations = [
        {"operation": f"/op/{i}", "type": "probabilistic", "param": 0.25} for i in range(OPERATIONS)
    ]
    document = {
        "default_strategy": {"type": "probabilistic", "param": 0.5, "operation_strategies": operations},
        "service_strategies": [
            {"service": f"svc-{i}", "type": "probabilistic", "param": 0.1} for i in range(SERVICES)
        ],
    }
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


class Counted:
    """An encoder that counts its calls and the threads they ran on."""

    def __init__(self, encode: Callable[..., bytes]) -> None:
        self.encode = encode
        self.calls = 0
        self.threads: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __call__(self, response: StrategyResponse, *args: object, **kwargs: object) -> bytes:
        with self._lock:
            self.calls += 1
            self.threads[threading.current_thread().name] += 1
        return self.encode(response, *args, **kwargs)


def http_get(port: int, service: str) -> bytes:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", f"/sampling?service={service}")
        response = conn.getresponse()
        assert response.status == 200
        return response.read()
    finally:
        conn.close()


def test_concurrent_first_requests_encode_each_service_once_off_the_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """16 concurrent HTTP first requests for 8 services (two each) encode 8 answers, not
    the file's 2,000; gRPC's first requests are encoded on worker threads, never on the
    event loop, and health checks made meanwhile all answer SERVING."""
    pytest.importorskip("grpc")
    rendered = Counted(server_module.render)
    encoded = Counted(grpc_module.encode_response)
    monkeypatch.setattr(server_module, "render", rendered)
    monkeypatch.setattr(grpc_module, "encode_response", encoded)
    source = StrategiesFile(large_file(tmp_path / "strategies.json"), reload_interval_s=0)
    with StrategiesServer(source, port=0, grpc_port=0) as server:
        assert server.grpc is not None
        grpc_port = server.grpc.port
        http_services = [f"svc-{i % 8}" for i in range(16)]
        grpc_services = [f"svc-{100 + i % 8}" for i in range(16)]
        with ThreadPoolExecutor(max_workers=40) as pool:
            bodies = list(pool.map(lambda s: http_get(server.port, s), http_services))
            messages = list(pool.map(lambda s: grpc_call(grpc_port, encode_params(s)), grpc_services))
            health = list(pool.map(lambda _: grpc_call(grpc_port, b"", HEALTH), range(8)))
        assert http_get(server.port, "unknown") == http_get(server.port, "another-unknown")

    assert rendered.calls == 8 + 1  # the eight services, and the default for unknown ones
    assert encoded.calls == 8
    assert "dsampler-grpc-loop" not in encoded.threads
    assert health == [b"\x08\x01"] * 8
    assert len(bodies) == 16
    assert parse_strategy(bodies[0]) is not None
    assert all(len(decode_response(m).per_operation.operations) == OPERATIONS for m in messages)  # type: ignore[union-attr]


def test_a_reload_encodes_afresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a reload the same service is encoded again, from the new file, once."""
    rendered = Counted(server_module.render)
    monkeypatch.setattr(server_module, "render", rendered)
    path = tmp_path / "strategies.json"
    path.write_text('{"default_strategy": {"type": "probabilistic", "param": 0.5}}', encoding="utf-8")
    source = StrategiesFile(path, reload_interval_s=0.01)
    with StrategiesServer(source, port=0) as server:
        first = [http_get(server.port, "a") for _ in range(3)]
        path.write_text('{"default_strategy": {"type": "probabilistic", "param": 0.25}}', encoding="utf-8")
        while not source.poll_once():  # the change is taken once it has held still
            pass
        second = [http_get(server.port, "a") for _ in range(3)]
    assert rendered.calls == 2
    assert {parse_strategy(b).rate for b in first} == {0.5}  # type: ignore[union-attr]
    assert {parse_strategy(b).rate for b in second} == {0.25}  # type: ignore[union-attr]
