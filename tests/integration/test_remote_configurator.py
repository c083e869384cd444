"""OTEL_TRACES_SAMPLER=jaeger_remote / parentbased_jaeger_remote through the SDK's own
configurator, polling a real server, with the service name from the environment."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading

import pytest

from tests.remote_servers import Answer, Gated, body, serving

pytestmark = pytest.mark.slow

SCRIPT = textwrap.dedent(
    """
    import time
    from opentelemetry import trace
    from opentelemetry.sdk._configuration import _OTelSDKConfigurator
    _OTelSDKConfigurator().configure()
    sampler = trace.get_tracer_provider().sampler
    print("BEFORE=" + str(sampler.config.rate), flush=True)
    deadline = time.monotonic() + 20
    while sampler.strategy is None and time.monotonic() < deadline:
        time.sleep(0.01)
    print("SAMPLER=" + sampler.get_description())
    print("RATE=" + str(sampler.config.rate))
    """
)


@pytest.mark.parametrize(
    ("name", "parent_based"), [("jaeger_remote", False), ("parentbased_jaeger_remote", True)]
)
def test_the_configurator_builds_a_polling_sampler(name: str, parent_based: bool) -> None:
    """The entry point polls the endpoint of OTEL_TRACES_SAMPLER_ARG for OTEL_SERVICE_NAME
    and starts from initialSamplingRate."""
    gate = Gated(Answer(body({"probabilisticSampling": {"samplingRate": 0.125}})))
    with serving(gate) as server:
        env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
        env.update(
            OTEL_TRACES_SAMPLER=name,
            OTEL_TRACES_SAMPLER_ARG=f"endpoint={server.url},pollingIntervalMs=100,initialSamplingRate=0.5",
            OTEL_SERVICE_NAME="checkout",
            OTEL_TRACES_EXPORTER="none",
            OTEL_METRICS_EXPORTER="none",
            OTEL_LOGS_EXPORTER="none",
        )
        proc = subprocess.Popen(
            [sys.executable, "-c", SCRIPT], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        killer = threading.Timer(120, proc.kill)  # bounds the read below
        killer.start()
        try:
            assert proc.stdout is not None
            before = proc.stdout.readline()  # read before the server answers the first poll
            gate.release.set()
            out, err = proc.communicate(timeout=120)
        finally:
            killer.cancel()
    assert proc.returncode == 0, err
    lines = dict(line.split("=", 1) for line in (before + out).splitlines() if "=" in line)
    assert lines["BEFORE"] == "0.5"
    assert lines["RATE"] == "0.125"
    assert lines["SAMPLER"] == (
        f"JaegerRemoteSampler{{service=checkout,endpoint={server.url},polling_interval_s=0.1,"
        f"hash=otel,parent_based={parent_based}}}"
    )
    assert server.requests[0].startswith(b"GET /sampling?service=checkout HTTP/1.1")
    assert "Failed to initialize sampler" not in err
