"""The app of the host-budget tests (tests/integration/test_host_budget.py) and of
benchmarks/host_budget_plot.py, served by gunicorn or uwsgi with several workers.

Each request starts one root span (``BUDGET_HEAVY`` of them in the first worker to
serve a request, when set: that worker offers most of the load) and appends one line to
``$BUDGET_OUT/PID.txt``: the time (``CLOCK_MONOTONIC``, the same in every process of the
host), the root spans offered and how many of them were sampled. A line is written at
once, so a worker killed with SIGKILL leaves what it did.
"""

import os
import time
from collections.abc import Callable, Iterable
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

from dsampler import DSampler

if "DSAMPLER_CONFIG" in os.environ:
    tracer = TracerProvider(
        sampler=DSampler.from_file(os.environ["DSAMPLER_CONFIG"], watch=False)
    ).get_tracer("budget")
else:  # zero-code: opentelemetry-instrument's provider, its sampler from OTEL_TRACES_SAMPLER
    tracer = trace.get_tracer("budget")
OUT = os.environ["BUDGET_OUT"]
HEAVY = int(os.environ.get("BUDGET_HEAVY", "1"))
_spans: list[int] = []  # root spans per request in this worker, set at its first


def _per_request() -> int:
    if not _spans:
        spans = 1
        if HEAVY > 1:
            try:
                os.close(os.open(os.path.join(OUT, "heavy"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                spans = HEAVY
            except FileExistsError:
                pass
        _spans.append(spans)
    return _spans[0]


def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    offered = _per_request()
    sampled = 0
    for _ in range(offered):
        with tracer.start_as_current_span("GET /") as span:
            sampled += span.get_span_context().trace_flags.sampled
    with open(os.path.join(OUT, f"{os.getpid()}.txt"), "a", encoding="ascii") as out:
        out.write(f"{time.monotonic():.4f} {offered} {sampled}\n")
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
    return [b"ok"]
