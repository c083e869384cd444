"""Decisions counted from each process's first one, through the real OpenTelemetry SDK:
the first collection after N decisions reports N, whether the MeterProvider was set
before the sampler was made, after it (as the SDK's configurator does, its metrics
loaded before) or handed to dsampler; a forked child reports its own decisions only;
with no MeterProvider nothing is counted; and the same under ``opentelemetry-instrument``.
Each runs in its own interpreter: a global MeterProvider is set once per process, and
whether a sampler counts is decided when it is made."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

COMMON = """
import json, os, sys
from opentelemetry import metrics
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context
from dsampler import DSampler
import dsampler.telemetry

PARENT = set_span_in_context(NonRecordingSpan(SpanContext(7, 8, True, TraceFlags(1))))

def decide(sampler, n, start=1):
    for i in range(start, start + n):
        sampler.should_sample(PARENT if i % 4 == 0 else None, (i * 0x9E3779B97F4A7C15) % (1 << 128), "GET /x")

def sdk_reader():
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    reader = InMemoryMetricReader()
    return reader, MeterProvider(metric_readers=[reader])

def decisions(reader):
    data = reader.get_metrics_data()
    if data is None:
        return 0
    return sum(
        point.value
        for rm in data.resource_metrics for sm in rm.scope_metrics for m in sm.metrics
        if m.name == "dsampler.decisions" for point in m.data.data_points
    )
"""


def run(code: str) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", COMMON + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


FIRST = """
mode = {mode!r}
reader, provider = sdk_reader()
if mode == "before":
    metrics.set_meter_provider(provider)
sampler = DSampler(rate=0.5, resource={{}})
if mode == "after":
    metrics.set_meter_provider(provider)
if mode == "handed":
    dsampler.telemetry.enable(provider, audit_interval_s=None)
decide(sampler, 1000)
first = decisions(reader)
decide(sampler, 500, start=1001)
print(json.dumps({{"first": first, "second": decisions(reader)}}))
"""


@pytest.mark.parametrize("mode", ["before", "after", "handed"])
def test_the_first_collection_reports_every_decision(mode: str) -> None:
    """1,000 decisions (roots and children of a sampled parent), then the first
    collection: 1,000; 500 more, then the second: 1,500 (cumulative)."""
    got = run(FIRST.format(mode=mode))
    assert got == {"first": 1000, "second": 1500}


FORK = """
reader, provider = sdk_reader()
metrics.set_meter_provider(provider)
sampler = DSampler(rate=0.5, resource={})
decide(sampler, 100)
before = decisions(reader)
read, write = os.pipe()
pid = os.fork()
if pid == 0:
    first = decisions(reader)
    decide(sampler, 30, start=5000)
    os.write(write, json.dumps([first, decisions(reader)]).encode())
    os._exit(0)
os.close(write)
_, status = os.waitpid(pid, 0)
child = json.loads(os.read(read, 1000))
decide(sampler, 5, start=9000)
print(json.dumps({"parent": [before, decisions(reader)], "child": child, "exit": status}))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork")
def test_a_forked_child_reports_its_own_decisions_only() -> None:
    """The parent reports its 100 (then 105); the child, whose reader and counts were
    copied at the fork, reports 0 before its first decision and 30 after its 30."""
    got = run(FORK)
    assert got == {"parent": [100, 105], "child": [0, 30], "exit": 0}


NO_SDK = """
sampler = DSampler(rate=0.5, resource={})
decide(sampler, 100)
free = [sampler.engine.snapshot.counts is None, sampler.engine.decision_counts is None]
reader, provider = sdk_reader()  # the SDK's metrics loaded after the sampler was made
metrics.set_meter_provider(provider)
decide(sampler, 10, start=200)
first = decisions(reader)  # this collection turns counting on
decide(sampler, 20, start=300)
print(json.dumps({"free": free, "late": [first, decisions(reader)]}))
"""


def test_without_a_meter_provider_nothing_is_counted() -> None:
    """The API's own provider and the SDK's metrics not loaded when the sampler is
    made: the snapshot holds no counts (a decision pays one ``is None`` test). A
    provider set later gets the decisions made from its first collection on."""
    got = run(NO_SDK)
    assert got == {"free": [True, True], "late": [0, 20]}


APP = """\
import json
from opentelemetry import metrics, trace
tracer = trace.get_tracer("app")
for i in range(400):
    with tracer.start_as_current_span("work"):
        pass
print("SAMPLER=" + trace.get_tracer_provider().sampler.get_description(), flush=True)
metrics.get_meter_provider().force_flush()  # the first collection of the process
"""


def test_opentelemetry_instrument_reports_the_first_interval(tmp_path: Path) -> None:
    """Zero-code: the configurator makes the sampler, then sets the MeterProvider (a
    console exporter every 10 minutes); 400 root spans later the first export reports
    400 decisions."""
    instrument = shutil.which("opentelemetry-instrument", path=str(Path(sys.executable).parent))
    assert instrument is not None, "opentelemetry-instrument is part of the dev extra"
    app = tmp_path / "app.py"
    app.write_text(APP)
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env.update(
        OTEL_TRACES_SAMPLER="dsampler",
        OTEL_TRACES_SAMPLER_ARG="0.5",
        OTEL_TRACES_EXPORTER="none",
        OTEL_METRICS_EXPORTER="console",
        OTEL_METRIC_EXPORT_INTERVAL="600000",
        OTEL_LOGS_EXPORTER="none",
        OTEL_SERVICE_NAME="first-interval",
    )
    argv = [instrument, sys.executable, str(app)]
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=True)
    sampler_at = proc.stdout.index("SAMPLER=")
    assert proc.stdout[sampler_at:].startswith("SAMPLER=DSampler{"), proc.stdout[sampler_at : sampler_at + 80]
    exported = proc.stdout[proc.stdout.index("\n", sampler_at) :].lstrip()
    first, _ = json.JSONDecoder().raw_decode(exported)  # the console exporter's first document
    counted = [
        point["value"]
        for rm in first["resource_metrics"]
        for sm in rm["scope_metrics"]
        for metric in sm["metrics"]
        if metric["name"] == "dsampler.decisions"
        for point in metric["data"]["data_points"]
    ]
    assert sum(counted) == 400
