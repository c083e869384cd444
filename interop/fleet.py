"""Services for the adaptive scenario: Python ones (a real ``TracerProvider`` with
dsampler's ``JaegerRemoteSampler`` and an OTLP/HTTP exporter each, in a thread) and the
OpenTelemetry Go one (``otelgo -load``), each starting root spans of one operation at a
rate the scenario sets, and Jaeger's query API to count the traces it stored."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from dsampler.remote import JaegerRemoteSampler
from interop.engines import get, lifeline


class PythonService:
    """One instrumented service in a thread: ``rate`` root spans a second of ``operation``."""

    def __init__(self, name: str, sampling_url: str, otlp_http: str, rate: float, poll_s: float) -> None:
        self.name, self.operation, self.rate = name, f"GET /{name}", rate
        self.sampler = JaegerRemoteSampler(name, sampling_url, poll_s)
        self.provider = TracerProvider(sampler=self.sampler, resource=Resource.create({"service.name": name}))
        exporter = OTLPSpanExporter(endpoint=f"http://{otlp_http}/v1/traces", timeout=5)
        self.provider.add_span_processor(BatchSpanProcessor(exporter, schedule_delay_millis=200))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"service-{name}", daemon=True)

    def start(self) -> PythonService:
        self._thread.start()
        return self

    def _run(self) -> None:
        tracer = self.provider.get_tracer("interop")
        due = time.monotonic()
        while not self._stop.is_set():
            tracer.start_span(self.operation).end()
            due += 1.0 / self.rate
            pause = due - time.monotonic()
            if pause > 0:
                self._stop.wait(pause)
            elif pause < -1.0:  # fell behind (a loaded machine): do not burst to catch up
                due = time.monotonic()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        self.provider.shutdown()
        self.sampler.close()


class GoService:
    """``otelgo -load``: OpenTelemetry Go's jaegerremote sampler, which sets no
    ``sampler.*`` attributes Jaeger reads; ``step()`` multiplies its rate."""

    def __init__(self, binary: Path, name: str, sampling_url: str, otlp_http: str, rate: float,
                 factor: float, step_file: Path, duration_s: float) -> None:  # fmt: skip
        self.name, self.operation, self.step_file = name, f"GET /{name}", step_file
        self.proc = subprocess.Popen(
            lifeline([str(binary), "-load", "-url", sampling_url, "-service", name, "-ops", self.operation,
                      "-otlp", otlp_http, "-rate", f"{rate:g}", "-step-factor", f"{factor:g}",
                      "-step-file", str(step_file), "-interval", "500ms", "-duration", f"{duration_s:g}s"]),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip

    def step(self) -> None:
        self.step_file.write_text("step\n")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


def stored_root_starts(query_url: str, service: str, start_s: float, end_s: float) -> list[float]:
    """The start times (Unix seconds) of the traces Jaeger stored for ``service``."""
    url = (
        f"{query_url}/api/traces?service={service}&limit=100000"
        f"&start={int(start_s * 1e6)}&end={int(end_s * 1e6)}"
    )
    status, body, _ = get(url, timeout_s=60)
    assert status == 200, f"query {service}: HTTP {status} {body[:200]!r}"
    return [min(span["startTime"] for span in trace["spans"]) / 1e6 for trace in json.loads(body)["data"]]


def per_interval(starts: Sequence[float], edges: Sequence[float]) -> list[float]:
    """Traces per second in each interval ``[edges[i], edges[i+1])``."""
    counts = [0] * (len(edges) - 1)
    for start in starts:
        for i in range(len(edges) - 1):
            if edges[i] <= start < edges[i + 1]:
                counts[i] += 1
                break
    return [count / (edges[i + 1] - edges[i]) for i, count in enumerate(counts)]


def intervals_to_target(rates: Sequence[float], target: float, tolerance: float = 0.2) -> int | None:
    """The number of intervals before the first one within ``tolerance`` of ``target``
    from which every later one stays within it (None: never)."""
    for i in range(len(rates)):
        if all(abs(rate - target) <= tolerance * target for rate in rates[i:]):
            return i
    return None
