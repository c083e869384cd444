"""The WSGI app that benchmarks/service.py runs under gunicorn and opentelemetry-instrument.

One route that does what a small handler does: a child span around some work that
allocates (a few hundred objects, so the garbage collector runs as in a real service),
and a JSON answer. Flask's instrumentation makes the server span; the sampler under test
decides it (a root, or a child of the caller's ``traceparent``).
"""

from __future__ import annotations

from typing import Any

from flask import Flask
from opentelemetry import trace

app = Flask(__name__)
tracer = trace.get_tracer("benchmarks.service_app")
_kept: list[dict[str, Any]] = []  # long-lived objects accumulate, as caches do in real apps


@app.get("/")
def index() -> dict[str, Any]:
    with tracer.start_as_current_span("work") as span:
        rows = [{"id": i, "name": f"item-{i}", "tags": [i, i + 1]} for i in range(100)]
        span.set_attribute("rows", len(rows))
        if len(_kept) < 20_000:
            _kept.append(rows[0])
    return {"rows": len(rows), "first": rows[0]}
