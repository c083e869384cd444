"""dsampler's metrics through the real OpenTelemetry SDK: an in-memory reader after a
known sequence of decisions, updates and fetch failures, and a real Prometheus scrape
over loopback. Each runs in its own interpreter: telemetry, once on, stays on."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow


def run(code: str) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


IN_MEMORY = """
import json
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context
from dsampler import DSampler, ManualClock, JaegerRemoteSampler
import dsampler.telemetry

reader = InMemoryMetricReader()
dsampler.telemetry.enable(MeterProvider(metric_readers=[reader]), audit_interval_s=None)
clock = ManualClock()
s = DSampler(rate=1.0, rules=[{"match": {"span_name": "GET /health"}, "action": "drop"}],
             operations={"op": 0.0}, traces_per_second=3, clock=clock, resource={})
for i in range(10):
    s.should_sample(None, 1000 + i, "GET /health")     # rule, dropped
for i in range(5):
    s.should_sample(None, 2000 + i, "op")              # operation at rate 0, dropped
for i in range(10):
    s.should_sample(None, 3000 + i, "other")           # default 1.0: 3 kept, 7 capped
parent = set_span_in_context(NonRecordingSpan(SpanContext(7, 8, True, TraceFlags(1))))
for i in range(4):
    s.should_sample(parent, 4000 + i, "child")         # parent, kept
s.should_sample(None, "not a trace id", "other")      # one fault
s.update(rate=0.5)
remote = JaegerRemoteSampler(endpoint="http://127.0.0.1:9/sampling", service_name="svc",
                             start=False, resource={}, request_timeout_s=0.5)
remote.poll_once()
remote.poll_once()
adaptive = DSampler(adaptive={"target_traces_per_second": 50}, resource={})
from dsampler.telemetry._registry import sampler_id
mine, its = sampler_id(s), sampler_id(adaptive)
out = {}
for metric in reader.get_metrics_data().resource_metrics[0].scope_metrics[0].metrics:
    for point in metric.data.data_points:
        attrs = dict(point.attributes)
        who = attrs.pop("dsampler.sampler", mine)
        if who not in (mine, its):
            continue
        prefix = "adaptive:" if who == its else ""
        out[prefix + metric.name + json.dumps(attrs, sort_keys=True)] = point.value
print(json.dumps(out))
"""


def test_the_instruments_report_a_known_sequence() -> None:
    """Decisions by strategy and outcome, the rates, the version, faults and failed
    fetches have exactly the values the sequence implies."""
    got = run(IN_MEMORY)

    def decisions(decision: str, strategy: str) -> object:
        return got[f'dsampler.decisions{{"decision": "{decision}", "strategy": "{strategy}"}}']

    assert decisions("DROP", "rule") == 10
    assert decisions("DROP", "operation") == 5
    assert decisions("RECORD_AND_SAMPLE", "default") == 3
    assert decisions("DROP", "cap") == 7
    assert decisions("RECORD_AND_SAMPLE", "parent") == 4
    assert decisions("DROP", "parent") == 0
    assert got["dsampler.rate.configured{}"] == 0.5
    assert got["dsampler.config.version{}"] == 2
    assert got["dsampler.faults{}"] == 1
    assert got['dsampler.remote.fetches{"result": "failed", "service": "svc"}'] == 2
    assert "dsampler.rate.effective{}" not in got  # version 2 has decided nothing yet
    assert "dsampler.controller.window{}" not in got  # no controller on this sampler
    assert got["adaptive:dsampler.controller.window{}"] == 10.0  # W0: nothing happened yet
    assert 0.0 < got["adaptive:dsampler.controller.rate{}"] <= 1.0


PROMETHEUS = """
import json, socket, urllib.request
from prometheus_client import start_http_server
from opentelemetry.exporter.prometheus import PrometheusMetricReader
from opentelemetry.sdk.metrics import MeterProvider
from dsampler import DSampler
from dsampler.remote import JaegerRemoteSampler
import dsampler.telemetry

def free_port():
    sock = socket.socket(); sock.bind(("127.0.0.1", 0)); port = sock.getsockname()[1]; sock.close()
    return port

port = free_port()
start_http_server(port, addr="127.0.0.1")
dsampler.telemetry.enable(MeterProvider(metric_readers=[PrometheusMetricReader()]), audit_interval_s=None)
s = DSampler(rate=0.25, parent_based=False, resource={})
adaptive = DSampler(adaptive={"target_traces_per_second": 50}, parent_based=False, resource={})
for i in range(4000):
    s.should_sample(None, (i * 0x9E3779B97F4A7C15 + 1) % (1 << 128), "x")
    adaptive.should_sample(None, (i * 0x9E3779B97F4A7C15 + 1) % (1 << 128), "x")
remote = JaegerRemoteSampler(  # nothing listens there: one failed fetch
    endpoint=f"http://127.0.0.1:{free_port()}/sampling", service_name="svc", start=False, resource={}
)
remote.poll_once()
text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
print(json.dumps({"lines": [l for l in text.splitlines() if "dsampler" in l]}))
"""


def test_a_prometheus_scrape_over_loopback() -> None:
    """The real Prometheus exporter (the dev extra's) serves dsampler's metrics under
    exactly the names docs/metrics.md lists, with the decision counts the sampler made."""
    lines: list[str] = run(PROMETHEUS)["lines"]  # type: ignore[assignment]
    families = {line.split()[2] for line in lines if line.startswith("# TYPE ")}
    doc = (REPO / "docs" / "metrics.md").read_text(encoding="utf-8")
    section = doc[doc.index("The Prometheus exporter") :]
    listed = section[section.index("`dsampler_sampler`:") + 19 : section.index("A dashboard")]
    documented = set(re.findall(r"`(dsampler_\w+)`", listed))
    assert families == documented
    assert len(families) == 9  # every instrument of the table above it
    kept = [
        line
        for line in lines
        if line.startswith("dsampler_decisions_total") and 'decision="RECORD_AND_SAMPLE"' in line
    ]
    first = [line for line in kept if 'strategy="default"' in line and 'dsampler_sampler="1"' in line]
    assert 800 < sum(float(line.rsplit(" ", 1)[1]) for line in first) < 1200  # 4,000 decisions at 0.25
    assert set(re.findall(r"\b(dsampler_\w+)\{", section)) <= families  # the dashboard query's


CONCURRENT = """
import json, logging, sys, threading, time
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from dsampler import DSampler
import dsampler.telemetry

failures = []
class Failures(logging.Handler):
    def emit(self, record):
        failures.append(record.getMessage())
logging.getLogger("opentelemetry").addHandler(Failures(logging.WARNING))
sys.setswitchinterval(1e-5)  # switch threads often: a collection meets a registration
reader = InMemoryMetricReader()
dsampler.telemetry.enable(MeterProvider(metric_readers=[reader]), audit_interval_s=None)
live = [DSampler(rate=0.5, resource={}) for _ in range(500)]
stop = threading.Event()
def churn():
    while not stop.is_set():
        live.append(DSampler(rate=0.5, resource={}))
        del live[0]
thread = threading.Thread(target=churn, daemon=True)
thread.start()
collections, deadline = 0, time.monotonic() + 5.0
while time.monotonic() < deadline and not failures:
    reader.get_metrics_data()
    collections += 1
stop.set()
thread.join(10)
print(json.dumps({"failures": failures[:3], "collections": collections}))
"""


def test_collections_while_samplers_are_created_never_fail_a_callback() -> None:
    """A reader collecting while another thread creates DSamplers: every callback
    answers (none fails on the registry changing size under its iteration)."""
    got = run(CONCURRENT)
    assert got["failures"] == []
    assert got["collections"] > 0


REMOTE_FAULTS = """
import json
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace.sampling import Sampler
from dsampler import JaegerRemoteSampler
from dsampler.protocol import ProbabilisticStrategy
from dsampler.telemetry._registry import sampler_id
import dsampler.telemetry

class Raising(Sampler):
    def should_sample(self, *args, **kwargs):
        raise RuntimeError("the user's sampler is broken")
    def get_description(self):
        return "Raising"

reader = InMemoryMetricReader()
dsampler.telemetry.enable(MeterProvider(metric_readers=[reader]), audit_interval_s=None)
remote = JaegerRemoteSampler("svc", "http://127.0.0.1:9/sampling", initial_sampler=Raising(),
                             start=False, resource={})
for i in range(3):
    remote.should_sample(None, 100 + i, "op")          # the initial sampler raises: 3 faults
remote.follower.apply(ProbabilisticStrategy(0.5))
remote.should_sample(None, "not a trace id", "op")    # the engine's own: 1 more

def faults():
    for metric in reader.get_metrics_data().resource_metrics[0].scope_metrics[0].metrics:
        if metric.name == "dsampler.faults":
            return {p.attributes["dsampler.sampler"]: p.value for p in metric.data.data_points}

print(json.dumps({"reported": faults().get(sampler_id(remote.engine)), "faults": remote.faults}))
"""


def test_the_faults_of_a_remote_samplers_initial_sampler_are_reported() -> None:
    """``dsampler.faults`` of a JaegerRemoteSampler counts what its ``faults`` counts: the
    spans its raising initial sampler dropped and the engine's own faults."""
    assert run(REMOTE_FAULTS) == {"reported": 4, "faults": 4}
