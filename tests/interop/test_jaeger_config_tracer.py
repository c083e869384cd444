"""The migration path real applications take: ``jaeger_client.Config(...).new_tracer()`` with
its ``sampler:`` built by ``sampler_from_config``. The tracer Config makes uses dsampler's
sampler, keeps the spans jaeger-client's own sampler would keep, and its reporter delivers
them, with the sampler tags, to an agent (a UDP socket on 127.0.0.1)."""

from __future__ import annotations

import random
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from jaeger_client import Config
from jaeger_client import sampler as jc

from dsampler.jaeger import ProbabilisticSampler, RemoteControlledSampler, sampler_from_config

SPANS = 300


@pytest.fixture
def agent() -> Iterator[socket.socket]:
    """A fake jaeger-agent: a UDP socket on an ephemeral 127.0.0.1 port."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(10.0)  # bounds a failing test only: the loop below stops once all arrived
    yield sock
    sock.close()


def received(sock: socket.socket, operation: bytes, expected: int) -> bytes:
    """Datagrams until ``expected`` spans named ``operation`` have arrived (or the timeout)."""
    data = b""
    while data.count(operation) < expected:
        try:
            data += sock.recv(65536)
        except TimeoutError:
            break
    return data


def settings(sock: socket.socket, **more: Any) -> dict[str, Any]:
    port = sock.getsockname()[1]
    agent = {"reporting_host": "127.0.0.1", "reporting_port": port}
    return {"local_agent": agent, "reporter_queue_size": 2 * SPANS, "logging": False, **more}


def run(config: Config, seed: int) -> list[Any]:
    tracer = config.new_tracer()
    tracer.random = random.Random(seed)  # fixed trace IDs, so jaeger-client's decision can be replayed
    spans = []
    for i in range(SPANS):
        with tracer.start_span("GET /checkout", tags={"i": i}) as span:
            spans.append(span)
    tracer.close()
    return spans


def test_config_with_a_sampler_section_built_by_dsampler(agent: socket.socket) -> None:
    """The one changed line: ``"sampler": sampler_from_config({...})`` inside jaeger_client.Config."""
    section = {"type": "probabilistic", "param": 0.25}
    config = Config(
        config=settings(agent, sampler=sampler_from_config(section)), service_name="shop", validate=True
    )
    assert isinstance(config.sampler, ProbabilisticSampler)
    spans = run(config, seed=11)
    reference = jc.ProbabilisticSampler(0.25)
    kept = [s for s in spans if s.is_sampled()]
    assert [s.is_sampled() for s in spans] == [reference.is_sampled(s.trace_id)[0] for s in spans]
    assert 30 < len(kept) < 120
    data = received(agent, b"GET /checkout", len(kept))
    assert data.count(b"GET /checkout") == len(kept)
    assert data.count(b"sampler.type") == len(kept)
    assert b"probabilistic" in data
    assert b"shop" in data


def test_whole_config_without_a_sampler_section_follows_its_strategy(agent: socket.socket) -> None:
    """jaeger-client's default (no ``sampler:``) becomes a RemoteControlledSampler inside the
    tracer; a strategy applied to it changes what the running tracer keeps."""
    base = settings(agent, sampling_refresh_interval=30)
    sampler = sampler_from_config(base, service_name="shop")
    assert isinstance(sampler, RemoteControlledSampler)
    sampler.update({"strategyType": "PROBABILISTIC", "probabilisticSampling": {"samplingRate": 1.0}})
    config = Config(config={**base, "sampler": sampler}, service_name="shop", validate=True)
    assert config.sampler is sampler
    spans = run(config, seed=12)
    assert all(s.is_sampled() for s in spans)
    data = received(agent, b"GET /checkout", SPANS)
    assert data.count(b"GET /checkout") == SPANS
    sampler.update({"strategyType": "PROBABILISTIC", "probabilisticSampling": {"samplingRate": 0.0}})
    assert not any(s.is_sampled() for s in run(config, seed=13))
    sampler.close()
