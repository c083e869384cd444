"""Quick start: dsampler inside a real OpenTelemetry TracerProvider.

Run with ``make quickstart`` (or ``python examples/quickstart.py`` once installed). It
emits a few thousand traces (a root span and two children each), samples them with
``ParentBasedSampler(RatioSampler(rate))`` and prints how many were kept against the
configured rate, and whether traces were kept whole (children follow their root).
It ends with the decision for a few fixed trace IDs, one sampled and the others dropped:
every service of a fleet that runs dsampler's rule (FNV-1a, the default hash) at the
same rate makes exactly these decisions.
"""

from __future__ import annotations

import math
import sys
import time

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import dsampler
from dsampler import ParentBasedSampler, RatioSampler

TRACES = 5000
RATES = (0.01, 0.1, 0.5)


def run(rate: float) -> tuple[int, int, set[int]]:
    """Emit TRACES traces of three spans; return (spans kept, traces kept, kept trace IDs)."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(sampler=ParentBasedSampler(RatioSampler(rate)))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("quickstart")
    for i in range(TRACES):
        with tracer.start_as_current_span("GET /checkout", attributes={"request.id": i}):
            with tracer.start_as_current_span("SELECT orders"):
                pass
            with tracer.start_as_current_span("POST payments"):
                pass
    spans = exporter.get_finished_spans()
    provider.shutdown()
    trace_ids = {s.context.trace_id for s in spans}
    return len(spans), len(trace_ids), trace_ids


def main() -> int:
    print(f"dsampler {dsampler.__version__}: {TRACES} traces x 3 spans per rate")
    header = ("rate", "traces kept", "expected", "4-sigma band", "spans kept", "whole traces?")
    row = "{:>6} {:>12} {:>9} {:>15} {:>11}  {}"
    print(row.format(*header))
    ok = True
    for rate in RATES:
        spans, traces, _ = run(rate)
        sigma = math.sqrt(TRACES * rate * (1 - rate))
        low, high = TRACES * rate - 4 * sigma, TRACES * rate + 4 * sigma
        whole = spans == 3 * traces
        ok &= low <= traces <= high and whole
        print(row.format(rate, traces, f"{TRACES * rate:.0f}", f"[{low:.0f}, {high:.0f}]", spans, whole))

    started = time.perf_counter()
    dsampler.wait_for_jit(60)
    print(
        f"numba kernels: {dsampler.jit_status()} (waited {time.perf_counter() - started:.2f}s; "
        "decisions before that came from the identical pure-Python path)"
    )
    sampler = RatioSampler(0.1)
    probe = [
        0x4BF92F3577B34DA6A3CE929D0E0E4736,
        0xD4DD79D3B5834F4CECB736D877F1CAF0,  # its hash is below the bound: sampled
        0x0AF7651916CD43DD8448EB211C80319C,
        0x53CE929D0E0E4736,
    ]
    bound = dsampler.rate_to_bound(0.1)
    print(f"  rate 0.1: RECORD_AND_SAMPLE iff fnv1a64(trace id) < {bound:016x}")
    decisions = set()
    for trace_id in probe:
        decision = sampler.should_sample(None, trace_id, "probe").decision.name
        decisions.add(decision)
        print(f"  trace {trace_id:032x}: fnv1a64={dsampler.fnv1a64(trace_id):016x} -> {decision}")
    ok &= decisions == {"RECORD_AND_SAMPLE", "DROP"}
    print("OK" if ok else "UNEXPECTED RESULT")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
