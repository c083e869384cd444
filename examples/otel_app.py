"""An OpenTelemetry app sampled by DSampler from a config file, changed while it runs.

    python examples/otel_app.py

It copies examples/configs/checkout.yaml to a temporary file, starts a TracerProvider
with ``DSampler.from_file`` on it, and sends a synthetic mix of requests (health
checks, checkouts, payments, a tenant under investigation) through real spans. Then,
while the traffic continues, it changes the default rate with ``update()``, edits the
file (picked up by the file watcher) and rolls back, printing what each version kept.
Time for the rate limits is a simulated clock at 1,000 requests a second, so the
config's global cap of 200 traces/s (at most ~1,000 kept per 4,000 requests) binds as
it would in production.
"""

from __future__ import annotations

import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from dsampler import DSampler, ManualClock

CONFIG = Path(__file__).parent / "configs" / "checkout.yaml"
ROUTES = [
    ("GET /healthz", {}),
    ("GET /checkout", {}),
    ("POST /payments", {}),
    ("GET /catalog", {}),
    ("GET /catalog", {"tenant": "acme"}),
]


class App:
    """A TracerProvider sampled by DSampler, with an in-memory exporter and a clock."""

    def __init__(self, config_path: Path) -> None:
        self.rng = random.Random(7)
        self.clock = ManualClock()
        self.sampler = DSampler.from_file(
            config_path, poll_interval_s=0.05, resource=Resource.create({}), clock=self.clock
        )
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider(sampler=self.sampler)
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.tracer = self.provider.get_tracer("example")


def traffic(app: App, requests: int) -> Counter[str]:
    """Send ``requests`` root spans (with one child each); count the kept roots by route."""
    app.exporter.clear()
    for _ in range(requests):
        name, attrs = app.rng.choice(ROUTES)
        app.clock.advance(0.001)
        with app.tracer.start_as_current_span(name, kind=SpanKind.SERVER, attributes=attrs):
            app.tracer.start_span("db query").end()
    kept: Counter[str] = Counter()
    for span in app.exporter.get_finished_spans():
        if span.parent is None:
            tenant = " (acme)" if span.attributes.get("tenant") == "acme" else ""
            kept[span.name + tenant] += 1
    return kept


def show(label: str, sampler: DSampler, kept: Counter[str], requests: int) -> None:
    config = sampler.config
    print(f"\n{label}: version {config.version}, default rate {config.rate}, {requests} requests")
    for route in sorted(kept):
        print(f"  {route:<24} kept {kept[route]:>5}")


def main() -> int:
    workdir = Path(tempfile.mkdtemp(prefix="dsampler-example-"))
    config_path = workdir / "sampling.yaml"
    shutil.copy(CONFIG, config_path)
    app = App(config_path)
    sampler = app.sampler
    try:
        show("as configured", sampler, traffic(app, 4000), 4000)

        sampler.update(rate=1.0)
        show("after update(rate=1.0)", sampler, traffic(app, 4000), 4000)

        config_path.write_text(CONFIG.read_text().replace("rate: 0.05 ", "rate: 0.2 ", 1))
        deadline = time.monotonic() + 5
        while sampler.config.rate != 0.2 and time.monotonic() < deadline:
            time.sleep(0.01)
        show("after editing the file (rate 0.2)", sampler, traffic(app, 4000), 4000)

        sampler.rollback(1)
        show("after rollback(1)", sampler, traffic(app, 4000), 4000)
        print(f"\nhistory: {[c.version for c in sampler.history]}; health checks are never kept")
        ok = sampler.config.rate == 0.05 and sampler.config.version == 4
    finally:
        sampler.close()
        app.provider.shutdown()
        shutil.rmtree(workdir)
    print("OK" if ok else "UNEXPECTED RESULT")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
