"""End to end, in separate processes: `dsampler serve` in a subprocess, a real OpenTelemetry
TracerProvider with a JaegerRemoteSampler here. Editing the strategies file changes the
sampled fraction at the next poll; killing the server keeps the last strategy;
restarting it resumes updates."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import TracerProvider

from dsampler.protocol._parse import parse_strategy
from dsampler.remote import HttpFetcher, JaegerRemoteSampler
from tests.remote_servers import start_serve

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")]

INTERVAL_S = 0.5
SPANS = 4000


def write(path: Path, rate: float) -> None:
    """Replace the file atomically, as an editor or a config push does."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"default_strategy": {"type": "probabilistic", "param": rate}}))
    os.replace(tmp, path)


def fraction(provider: TracerProvider) -> float:
    tracer = provider.get_tracer("e2e")
    kept = 0
    for _ in range(SPANS):
        with tracer.start_as_current_span("work") as span:
            kept += span.get_span_context().trace_flags.sampled
    return kept / SPANS


def within_4_sigma(observed: float, rate: float) -> bool:
    return abs(observed - rate) <= 4 * (rate * (1 - rate) / SPANS) ** 0.5


def until(check: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_edit_kill_restart(tmp_path: Path) -> None:
    """0.1 -> 0.5 within one poll of the server serving it; the server killed: 0.5 stays
    while polls fail; restarted on the same port with 0.2: followed again."""
    path = tmp_path / "strategies.json"
    write(path, 0.1)
    serve_args = ("--strategies", str(path), "--reload-interval", "50ms")
    server, url = start_serve(*serve_args, "--port", "0")
    port = url.rsplit(":", 1)[1]
    sampler = JaegerRemoteSampler(
        "e2e", url, polling_interval_s=INTERVAL_S, request_timeout_s=1.0, resource={}
    )
    provider = TracerProvider(sampler=sampler)
    try:
        until(lambda: sampler.config.rate == 0.1, 20)
        assert within_4_sigma(fraction(provider), 0.1)

        write(path, 0.5)
        probe = HttpFetcher(url, timeout_s=2)
        until(lambda: parse_strategy(probe.fetch("e2e")).rate == 0.5, 20)  # type: ignore[union-attr]
        served_at, polls = time.monotonic(), sampler.poller.polls
        until(lambda: sampler.config.rate == 0.5, 20)
        assert sampler.poller.polls <= polls + 1  # the very next poll applied it
        assert time.monotonic() - served_at <= INTERVAL_S + 2.0  # one interval, plus scheduling slack
        assert within_4_sigma(fraction(provider), 0.5)

        server.send_signal(signal.SIGKILL)
        server.wait(30)
        failures = sampler.poller.failures
        until(lambda: sampler.poller.failures > failures, 20)
        assert sampler.config.rate == 0.5
        assert within_4_sigma(fraction(provider), 0.5)

        write(path, 0.2)
        server, _ = start_serve(*serve_args, "--port", port)
        until(lambda: sampler.config.rate == 0.2, 20)
        assert sampler.poller.consecutive_failures == 0
        assert within_4_sigma(fraction(provider), 0.2)
    finally:
        sampler.close()
        provider.shutdown()
        server.terminate()
        server.wait(30)
