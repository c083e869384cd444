"""dsampler's own clients against the real engines: ``JaegerRemoteSampler``, the
``parentbased_jaeger_remote`` entry point under ``opentelemetry-instrument`` and
``dsampler.jaeger.RemoteControlledSampler`` follow Jaeger v2 and the OpenTelemetry
Collector (probabilistic, rate limiting, per-operation), take an edit of the engine's
strategies file within one polling interval plus the engine's reload interval, keep the
last strategy while the engine is down and recover on their own when it is back; and
jaeger-client-python 4.8 alongside, for the table of who reads what."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from jaeger_client import Config
from jaeger_client import sampler as jc

from dsampler.jaeger import RemoteControlledSampler
from dsampler.protocol import ProbabilisticStrategy, Strategy
from dsampler.protocol._parse import parse_strategy
from dsampler.remote import JaegerRemoteSampler, PollOutcome
from interop import clients, engines
from interop.clients import OPS, RATES, STRATEGIES
from interop.engines import Engine, get

SERVICES: Final = ("svc-prob", "svc-ops", "svc-rl")
POLL_S: Final = 0.3
RELOAD_S: Final = 0.2


@pytest.fixture
def strategies(tmp_path: Path) -> Path:
    path = tmp_path / "strategies.json"
    path.write_text(json.dumps(STRATEGIES))
    return path


@pytest.fixture(params=["jaeger", "otelcol"])
def engine(
    request: pytest.FixtureRequest, built: Callable[[str], Path], strategies: Path
) -> Iterator[Engine]:
    go = built("go-engines")
    make = engines.jaeger if request.param == "jaeger" else engines.otelcol
    with engines.running(make(go / "bin" / request.param, strategies, reload_s=RELOAD_S)) as (started,):
        time.sleep(5 * RELOAD_S)  # the Collector's first reload (see test_same_file.py)
        yield started


def expected(served: Engine, service: str) -> Strategy:
    return parse_strategy(get(served.url_for(service))[1])


def until(check: Callable[[], bool], timeout_s: float) -> float:
    """Seconds until ``check()`` holds; fails past ``timeout_s``."""
    start = time.monotonic()
    while not check():
        assert time.monotonic() - start < timeout_s, f"not within {timeout_s} s"
        time.sleep(0.01)
    return time.monotonic() - start


def test_jaeger_remote_sampler_follows_the_engine(engine: Engine, ids: list[int]) -> None:
    """Each service's strategy arrives whole (the one dsampler reads from the body
    itself), and decisions on the 10,000 trace IDs are its ``otel`` rule's."""
    for service in SERVICES:
        sampler = JaegerRemoteSampler(service, engine.sampling_url, POLL_S, start=False)
        try:
            assert sampler.poll_once() is PollOutcome.APPLIED, sampler.poller.last_error
            assert sampler.strategy == expected(engine, service)
            if service in RATES:
                decided = {
                    op: "".join(
                        "1" if sampler.should_sample(None, t, op).decision.is_sampled() else "0" for t in ids
                    )
                    for op in OPS
                }
                assert decided == clients.dsampler_decisions(sampler.strategy, "otel", OPS, ids)
        finally:
            sampler.close()
    limited = JaegerRemoteSampler("svc-rl", engine.sampling_url, POLL_S, start=False)
    limited.poll_once()
    assert limited.config.traces_per_second == 7
    limited.close()


def test_remote_controlled_sampler_follows_the_engine(engine: Engine) -> None:
    """jaeger-client's drop-in polls the engine and decides with its strategy."""
    for service in SERVICES:
        sampler = RemoteControlledSampler(service_name=service, endpoint=engine.sampling_url)
        try:
            assert sampler.poll_once(), service
            assert sampler.strategy == expected(engine, service)
        finally:
            sampler.close()


INSTRUMENTED: Final = textwrap.dedent(
    """
    import json, sys, time
    from opentelemetry import trace
    sampler = trace.get_tracer_provider().sampler
    deadline = time.monotonic() + 20
    while sampler.strategy is None and time.monotonic() < deadline:
        time.sleep(0.01)
    tracer = trace.get_tracer("interop")
    kept = {}
    for op in sys.argv[1].split(","):
        kept[op] = sum(tracer.start_span(op).get_span_context().trace_flags.sampled for _ in range(2000))
    described = sampler.get_description()
    print(json.dumps({"strategy": repr(sampler.strategy), "description": described, "kept": kept}))
    """
)


def test_entry_point_under_opentelemetry_instrument_follows_the_engine(engine: Engine) -> None:
    """``OTEL_TRACES_SAMPLER=parentbased_jaeger_remote`` in a process run by
    ``opentelemetry-instrument``: the SDK's sampler polls the engine and its spans are
    kept at each operation's rate (2,000 spans each, within 5 sigma)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env |= {
        "OTEL_TRACES_SAMPLER": "parentbased_jaeger_remote",
        "OTEL_TRACES_SAMPLER_ARG": f"endpoint={engine.sampling_url},pollingIntervalMs=200",
        "OTEL_SERVICE_NAME": "svc-ops",
        "OTEL_TRACES_EXPORTER": "none",
        "OTEL_METRICS_EXPORTER": "none",
        "OTEL_LOGS_EXPORTER": "none",
    }
    instrument = Path(sys.executable).with_name("opentelemetry-instrument")
    done = subprocess.run(
        [str(instrument), sys.executable, "-c", INSTRUMENTED, ",".join(OPS)],
        env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["strategy"] == repr(expected(engine, "svc-ops"))
    assert "parent_based=True" in found["description"]
    for op, rate in RATES["svc-ops"].items():
        sigma = (2000 * rate * (1 - rate)) ** 0.5
        assert abs(found["kept"][op] - 2000 * rate) <= 5 * sigma + 1e-9, (op, found["kept"])


def _edit(path: Path, rate: float) -> None:
    data: dict[str, Any] = json.loads(path.read_text())
    data["service_strategies"][0]["param"] = rate  # svc-prob
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("kind", ["JaegerRemoteSampler", "RemoteControlledSampler"])
def test_an_edit_arrives_and_an_outage_keeps_the_strategy(
    engine: Engine, strategies: Path, kind: str, figures: Callable[[str], None]
) -> None:
    """An edit of the engine's file reaches the sampler within one polling interval plus
    the engine's reload interval (and 1 s of slack for a loaded machine); with the
    engine stopped the strategy stays and polls fail; restarted (with another edit made
    while it was down), the sampler takes the new strategy by itself."""
    interval = POLL_S if kind == "JaegerRemoteSampler" else 1.0  # RemoteControlledSampler's least
    if kind == "JaegerRemoteSampler":
        sampler: Any = JaegerRemoteSampler("svc-prob", engine.sampling_url, interval, jitter=0.0)
        failures = lambda: sampler.poller.consecutive_failures  # noqa: E731
    else:
        sampler = RemoteControlledSampler(
            service_name="svc-prob", endpoint=engine.sampling_url, sampling_refresh_interval=interval
        )
        sampler.is_sampled(1, "op")  # its poller starts at the first decision
        failures = lambda: sampler.failures  # noqa: E731
    try:
        until(lambda: sampler.strategy == ProbabilisticStrategy(0.37), 5.0)
        _edit(strategies, 0.8)
        took = until(lambda: sampler.strategy == ProbabilisticStrategy(0.8), interval + RELOAD_S + 2.0)
        where = f"(poll {interval:g} s, reload {RELOAD_S:g} s)"
        figures(f"edit: {kind} following {engine.name} took it in {took:.2f} s {where}")
        assert took <= interval + RELOAD_S + 1.0, took
        engine.stop()
        until(lambda: failures() >= 2, 10.0)
        assert sampler.strategy == ProbabilisticStrategy(0.8)
        _edit(strategies, 0.05)
        engine.start()
        back = until(lambda: sampler.strategy == ProbabilisticStrategy(0.05), 10.0)
        figures(f"restart: {kind} took {engine.name}'s new strategy {back:.2f} s after it was back")
    finally:
        sampler.close()


def test_jaeger_client_python_reads_only_named_enums(engine: Engine, strategies: Path) -> None:
    """jaeger-client-python 4.8 (tornado, as it ships) takes a per-operation strategy
    from either engine, and refuses their probabilistic and rate-limiting answers: it
    reads ``strategyType`` only as a name, which Jaeger v2.13 writes as 0 or 1 and the
    Collector writes as 1 or leaves out (``dsampler serve`` names it)."""
    for service, follows in (("svc-ops", True), ("svc-prob", False), ("svc-rl", False)):
        tracer = Config(
            config={
                "local_agent": {
                    "reporting_host": "127.0.0.1",
                    "sampling_port": int(engine.sampling_url.split(":")[2].split("/")[0]),
                    "reporting_port": engines.free_port(),
                },
                "sampling_refresh_interval": 0.2,
            },
            service_name=service,
            validate=True,
        ).new_tracer()
        try:
            remote = tracer.sampler
            assert isinstance(remote, jc.RemoteControlledSampler)
            if follows:
                until(lambda: isinstance(remote.sampler, jc.AdaptiveSampler), 10.0)  # noqa: B023
                assert remote.sampler.default_sampling_probability == 0.2
            else:
                time.sleep(1.0)
                assert isinstance(remote.sampler, jc.ProbabilisticSampler)
                assert remote.sampler.rate == 0.001  # still its initial sampler
        finally:
            tracer.close()
