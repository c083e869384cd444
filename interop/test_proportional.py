"""The Collector's probabilistic_sampler in proportional mode downstream of a dsampler
service (``examples/collectors/otelcol-proportional.yaml``): dsampler's spans arrive
with th (and, for a hashed rule, rv); the Collector finds no inconsistent th, keeps
exactly the spans whose randomness meets its halved probability, and the adjusted
counts it writes add up to the traces the service started. One lying span (a th its
trace's randomness does not meet) is sent too, to show the Collector does catch one.
"""

from __future__ import annotations

import json
import math
import os
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from random import Random
from typing import Any

import pytest
from opentelemetry.context import Context
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult
from opentelemetry.trace import Link, SpanKind
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

from dsampler import DSampler
from dsampler.consistent import (
    adjusted_count,
    randomness,
    ratio_to_threshold,
    threshold_of,
    threshold_to_probability,
)
from interop.engines import EXAMPLES, free_port

CONFIG = EXAMPLES / "otelcol-proportional.yaml"
TRACES = 6000
LIAR_TRACE = 0x0123456789ABCDEF_0000000000000001  # R = 1
PERCENT = 50


class _Liar(Sampler):
    """Samples with ``th:f`` whatever the trace: inconsistent for the liar's trace."""

    def should_sample(
        self,
        parent_context: Context | None,
        trace_id: int,
        name: str,
        kind: SpanKind | None = None,
        attributes: Attributes = None,
        links: Sequence[Link] | None = None,
        trace_state: TraceState | None = None,
    ) -> SamplingResult:
        return SamplingResult(Decision.RECORD_AND_SAMPLE, None, TraceState([("ot", "th:f")]))

    def get_description(self) -> str:
        return "Liar"


class _Ids(IdGenerator):
    """Trace IDs from a seeded generator, random in their low 56 bits as W3C Level 2 asks."""

    def __init__(self, seed: int) -> None:
        self._rng = Random(seed)

    def generate_trace_id(self) -> int:
        return self._rng.getrandbits(128)

    def generate_span_id(self) -> int:
        return self._rng.getrandbits(64) or 1

    def is_trace_id_random(self) -> bool:
        return True


def _wait_port(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"otelcol exited {proc.returncode}:\n{log.read_text()[-3000:]}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"otelcol did not listen on {port}:\n{log.read_text()[-3000:]}")


def _exported(path: Path) -> list[dict[str, Any]]:
    spans = []
    for line in path.read_text().splitlines():
        for rs in json.loads(line).get("resourceSpans", []):
            for ss in rs.get("scopeSpans", []):
                spans.extend(ss.get("spans", []))
    return spans


def _service(endpoint: str, sampler: Sampler, seed: int, run: Callable[[Any], None]) -> InMemorySpanExporter:
    """A service exporting OTLP/HTTP to ``endpoint``; what it sent, kept in memory too."""
    sent = InMemorySpanExporter()
    provider = TracerProvider(
        sampler=sampler, resource=Resource({"service.name": "svc"}), id_generator=_Ids(seed)
    )
    provider.add_span_processor(
        BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint), max_queue_size=20_000)
    )
    provider.add_span_processor(SimpleSpanProcessor(sent))
    try:
        run(provider.get_tracer("interop"))
    finally:
        provider.shutdown()
    return sent


@pytest.mark.parametrize("scheme", ["consistent", "xxh3"])
def test_proportional_sampler_downstream_of_dsampler(
    built: Callable[[str], Path], scheme: str, figures: Callable[[str], None]
) -> None:
    binary = built("go-engines") / "bin" / "otelcol"
    with tempfile.TemporaryDirectory() as tmp:
        port, spans_file, log = free_port(), Path(tmp) / "spans.json", Path(tmp) / "otelcol.log"
        env = {**os.environ, "OTLP_HTTP": f"127.0.0.1:{port}", "SPANS_FILE": str(spans_file)}
        env["SAMPLING_PERCENTAGE"] = str(PERCENT)
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [str(binary), "--config", str(CONFIG)], stdout=out, stderr=subprocess.STDOUT, env=env
            )
        try:
            _wait_port(port, proc, log)
            endpoint = f"http://127.0.0.1:{port}/v1/traces"
            rules = [{"match": {"span_name": "GET /always"}, "action": {"sample": 1.0}}]
            sampler = DSampler(rate=0.1, hash=scheme, rules=rules, resource={})

            def traffic(tracer: Any) -> None:
                for i in range(TRACES):
                    name = "GET /always" if i % 20 == 0 else "GET /x"
                    with tracer.start_as_current_span(name), tracer.start_as_current_span("query"):
                        pass

            sent = _service(endpoint, sampler, 11, traffic).get_finished_spans()
            lie = _service(endpoint, _Liar(), 12, lambda t: t.start_span("lie").end())
            time.sleep(1.0)  # the file exporter flushes every 100 ms
        finally:
            proc.terminate()
            proc.wait(timeout=10)
        exported = _exported(spans_file)
        text = log.read_text()
    assert lie.get_finished_spans()
    _check(sent, exported, text, figures, scheme)


def _check(
    sent: Sequence[Any], exported: list[dict[str, Any]], log: str, figures: Callable[[str], None], scheme: str
) -> None:
    inconsistent = log.count("inconsistent arriving threshold")
    assert inconsistent == 1, f"the liar's span alone is inconsistent: {inconsistent}"
    out = {(e["traceId"], e["spanId"]): e for e in exported if e["name"] != "lie"}
    kept = 0
    for span in sent:
        key = (f"{span.context.trace_id:032x}", f"{span.context.span_id:016x}")
        th_in = threshold_of(span.context.trace_state)
        assert th_in is not None, "dsampler stated every th"
        # the Collector's proportional threshold: its probability times 50%, 4 hex digits
        th_out = ratio_to_threshold(threshold_to_probability(th_in) * PERCENT / 100, precision=4)
        should = randomness(span.context.trace_id, span.context.trace_state) >= th_out
        assert (key in out) is should, f"{key}: th {th_in:x} -> {th_out:x}"
        if should:
            kept += 1
            assert threshold_of(_trace_state(out[key])) == th_out
    assert kept == len(out)
    roots = [e for e in out.values() if not e.get("parentSpanId")]
    estimate = sum(adjusted_count(threshold_of(_trace_state(e)) or 0) for e in roots)
    # Variance of the adjusted-count sum: each trace counted 1/p with probability p.
    spread = math.sqrt(sum(1 / p - 1 for p in _root_probabilities()))
    assert abs(estimate - TRACES) <= 4 * spread, (
        f"adjusted count {estimate:.0f} of {TRACES} (sd {spread:.0f})"
    )
    figures(
        f"proportional 50% after dsampler ({scheme}): {len(sent)} spans sent, {len(out)} exported, each "
        f"as predicted; adjusted count of the roots {estimate:.0f} for {TRACES} traces (sd {spread:.0f}); "
        "inconsistent th: none of dsampler's, the control's one"
    )


def _trace_state(span: dict[str, Any]) -> TraceState:
    pairs = [item.split("=", 1) for item in span.get("traceState", "").split(",") if "=" in item]
    return TraceState([(k, v) for k, v in pairs])


def _root_probabilities() -> list[float]:
    """Each started trace's final probability: 1.0 (one in 20) or 0.1 at dsampler, halved."""
    return [PERCENT / 100 if i % 20 == 0 else 0.1 * PERCENT / 100 for i in range(TRACES)]
