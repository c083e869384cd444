"""Instructions per request of the real service's app, counted by valgrind's callgrind:
the figure that ``service.py``'s requests per second cannot resolve on a busy 2-core VM.

    python benchmarks/service_callgrind.py                 # 1,000 requests per case (~10 min)
    python benchmarks/service_callgrind.py --requests 300  # quicker, coarser

The workload is the Flask app of ``service_app.py`` set up as ``opentelemetry-instrument``
sets it up (``auto_instrumentation.initialize()``: the SDK from the ``OTEL_*`` variables,
the Flask instrumentation, the sampler from its entry point), called as gunicorn's
worker calls it (the WSGI callable with a fresh environ per request), in one thread.
Spans are processed but not exported (``OTEL_TRACES_EXPORTER=none``): both samplers keep
10% of roots, so export would add the same work to both and only noise to the count.
Trace IDs come from ``random``, seeded, so every run decides the same IDs.

Each (variant, kind) runs twice under callgrind, with 0 and N requests; the difference
divided by N is one request. A single sync worker is CPU-bound: its requests per second
are the inverse of this figure, so the ratio here is the throughput ratio without the
scheduler's noise. Needs ``valgrind`` and the ``bench`` extra.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from callgrind import instructions

HERE = Path(__file__).resolve().parent
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
VARIANTS = {
    "OTel parentbased_traceidratio": {"OTEL_TRACES_SAMPLER": "parentbased_traceidratio"},
    "dsampler (defaults)": {"OTEL_TRACES_SAMPLER": "parentbased_dsampler"},
    "dsampler hash=xxh3 (lean)": {
        "OTEL_TRACES_SAMPLER": "parentbased_dsampler",
        "OTEL_TRACES_SAMPLER_ARG": "rate=0.1,hash=xxh3",
    },
}
WORKLOAD = """
import io, random, sys
random.seed(7)  # the SDK's RandomIdGenerator draws from random: the same IDs every run
from opentelemetry.instrumentation.auto_instrumentation import initialize
initialize()
from service_app import app
n, parent = int(sys.argv[1]), sys.argv[2]
base = {
    "REQUEST_METHOD": "GET", "PATH_INFO": "/", "QUERY_STRING": "", "SERVER_NAME": "127.0.0.1",
    "SERVER_PORT": "8000", "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "127.0.0.1",
    "wsgi.url_scheme": "http", "wsgi.errors": sys.stderr, "wsgi.multithread": False,
    "wsgi.multiprocess": True, "wsgi.run_once": False, "HTTP_HOST": "127.0.0.1:8000",
}
if parent:
    base["HTTP_TRACEPARENT"] = parent
def start_response(status, headers, exc_info=None):
    assert status.startswith("200"), status
for _ in range(n):
    environ = dict(base, **{"wsgi.input": io.BytesIO()})
    for _chunk in app(environ, start_response):
        pass
from opentelemetry import trace
print(trace.get_tracer_provider().sampler.get_description())
"""


def _env(variant: str) -> dict[str, str]:
    env = {
        **os.environ,
        "OTEL_SERVICE_NAME": "dsampler-bench",
        "OTEL_TRACES_SAMPLER_ARG": "0.1",
        "OTEL_TRACES_EXPORTER": "none",
        "OTEL_METRICS_EXPORTER": "none",
        "OTEL_LOGS_EXPORTER": "none",
        "PYTHONHASHSEED": "0",
        **VARIANTS[variant],
    }
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(HERE), env.get("PYTHONPATH")) if p)
    return env


def per_request(script: Path, variant: str, parent: str, n: int) -> float:
    env = _env(variant)
    return (
        instructions([str(script), str(n), parent], env) - instructions([str(script), "0", parent], env)
    ) / n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    args = parser.parse_args()
    if args.requests < 1:
        parser.error("--requests must be >= 1")
    peer = next(iter(VARIANTS))
    variants = [peer, *(v for v in args.variants if v != peer)]
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "workload.py"
        script.write_text(WORKLOAD)
        got = {
            v: {
                k: per_request(script, v, p, args.requests) for k, p in (("child", TRACEPARENT), ("root", ""))
            }
            for v in variants
        }
    print(f"instructions per request, {args.requests} requests per case (callgrind)\n")
    print("| variant | sampled parent | roots at 10% |")
    print("|---|---:|---:|")
    for v in variants:
        cells = [
            f"{got[v][k]:,.0f}" + ("" if v == peer else f" = {got[v][k] / got[peer][k]:.4f}x")
            for k in ("child", "root")
        ]
        print(f"| {v} | {cells[0]} | {cells[1]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
