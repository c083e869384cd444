"""Instructions per decision on the request paths users configure, counted by
valgrind's callgrind: the figure that tells whether a change to the engine's structure
costs the request path anything (wall time on a shared machine cannot resolve 2%).

    python benchmarks/request_path_callgrind.py               # every case, 20,000 decisions
    python benchmarks/request_path_callgrind.py --decisions 50000 --case root
    python benchmarks/request_path_callgrind.py --metrics --case root --case child

Each case runs twice under callgrind, with 0 and with N decisions; the difference
divided by N is the cost of one decision (start-up cancels out). Hashes are ``xxh3``
(the xxhash C library) and ``otel`` (plain integer masks), so no JIT runs under
valgrind; the garbage collector is off while deciding (a collection's cost depends on
the heap, not the decision). ``--metrics`` runs each case without a MeterProvider (the
API's own: nothing counted) and with the SDK's ``MeterProvider`` set globally before the
sampler is made (decisions counted from the first), in the same run, and prints the
cost of counting. ``sampled``/``dropped``: roots at rate 0.1 whose IDs that rule samples
(or drops), by ``xxh3`` (``th`` and the ``rv`` of the hash written), ``consistent``
(``th`` alone) or ``otel-js`` (nothing stated); ``-off``: with ``write_th=False``.
``child-th``: a child of a sampled parent carrying ``ot=th:c``. About a minute per case
and mode; needs ``valgrind``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from callgrind import instructions

WORKLOAD = """
import random, sys
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context
from opentelemetry.trace.span import TraceState
import dsampler
case, n, with_metrics = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "on"
if with_metrics:  # a MeterProvider that reports, set before the sampler: counted from the first decision
    from opentelemetry import metrics
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    metrics.set_meter_provider(MeterProvider(metric_readers=[InMemoryMetricReader()]))
rng = random.Random(7)
ids = [rng.getrandbits(128) for _ in range(1000)]
ctx, name, attrs = None, "GET /x", None
if case == "root":
    sampler = dsampler.DSampler(rate=0.1, hash="xxh3", resource={})
elif case == "root-otel":
    sampler = dsampler.DSampler(rate=0.1, hash="otel", resource={})
elif case == "child":
    sampler = dsampler.DSampler(rate=0.1, hash="xxh3", resource={})
    ctx = set_span_in_context(NonRecordingSpan(SpanContext(ids[0], 5, True, TraceFlags(1))))
elif case == "rules3":
    rules = [{"match": {"span_name": f"r{i}"}, "action": "drop"} for i in range(3)]
    sampler = dsampler.DSampler(rate=0.1, hash="xxh3", rules=rules, resource={})
elif case == "operation":
    sampler = dsampler.DSampler(rate=0.1, hash="xxh3", operations={"GET /x": 0.2}, resource={})
elif case == "adaptive":
    sampler = dsampler.DSampler(rate=0.1, hash="xxh3", resource={}, clock=dsampler.ManualClock(),
                                adaptive={"target_traces_per_second": 100, "max_rate": 0.1})
elif case == "adaptive-host":  # share: host: only the controller's tick does more
    sampler = dsampler.DSampler(rate=0.1, hash="xxh3", resource={"service.name": "callgrind"},
                                clock=dsampler.ManualClock(),
                                adaptive={"target_traces_per_second": 100, "max_rate": 0.1, "share": "host"})
    assert sampler.controller.stats()["host_processes"] == 1, "the host's table is not in use"
elif case == "rate-limit-host":  # share: host with a rate_limit rule: the rule's bucket is the host's share
    sampler = dsampler.DSampler(rate=0.1, hash="xxh3", resource={"service.name": "callgrind-limit"},
                                clock=dsampler.ManualClock(),
                                rules=[{"match": {"span_name": name}, "action": {"rate_limit": 100}}],
                                adaptive={"target_traces_per_second": 100, "max_rate": 0.1, "share": "host"})
    assert sampler.controller.stats()["host_processes"] == 1, "the host's table is not in use"
elif case == "ratio":
    sampler = dsampler.RatioSampler(0.1, hash="xxh3")
elif case == "remote":
    sampler = dsampler.JaegerRemoteSampler("svc", initial_sampler=0.1, hash="xxh3", start=False,
                                           sampler_tags=False, resource={})
elif case.startswith(("sampled", "dropped")):
    scheme = "consistent" if "consistent" in case else "otel-js" if "otel-js" in case else "xxh3"
    extra = {"write_th": False} if case.endswith("-off") else {}
    sampler = dsampler.DSampler(rate=0.1, hash=scheme, resource={}, **extra)
    keep = case.startswith("sampled")
    pool = (rng.getrandbits(128) for _ in range(20_000))
    ids = [t for t in pool if sampler.should_sample(None, t, name).decision.is_sampled() == keep][:1000]
elif case == "child-th":
    sampler = dsampler.DSampler(rate=0.1, hash="xxh3", resource={})
    ts = TraceState([("ot", "th:c")])
    ids = [t | (0xF << 52) for t in ids]  # R >= th:c, so the parent's th is consistent
    ctx = set_span_in_context(NonRecordingSpan(SpanContext(ids[0], 5, True, TraceFlags(1), ts)))
elif case == "attrs":
    sampler = dsampler.DSampler(rate=0.1, hash="xxh3", resource={})
    attrs = {"http.method": "GET", "http.route": "/x", "tenant": "acme"}
else:
    raise SystemExit(f"unknown case {case}")
decide = sampler.should_sample
decide(ctx, ids[0], name, None, attrs)  # whether it counts was decided when it was made
engine = getattr(sampler, "engine", sampler)
if hasattr(engine, "snapshot"):  # the figure is the one it says it is
    assert (engine.snapshot.counts is not None) == with_metrics, case
import gc; gc.collect(); gc.disable()  # a collection's cost depends on the heap, not the decision
for _ in range(n // 1000):
    for tid in ids:
        decide(ctx, tid, name, None, attrs)
"""

CASES = (
    "root",
    "root-otel",
    "sampled",
    "dropped",
    "sampled-consistent",
    "dropped-consistent",
    "sampled-otel-js",
    "sampled-off",
    "sampled-consistent-off",
    "child",
    "child-th",
    "rules3",
    "operation",
    "adaptive",
    "adaptive-host",
    "rate-limit-host",
    "ratio",
    "remote",
    "attrs",
)
_ENV = {"DSAMPLER_JIT": "0", "PYTHONHASHSEED": "0", "PATH": "/usr/bin:/bin"}


def _count(script: Path, *args: str) -> int:
    # PYTHONPATH passes through: point it at another checkout to count that tree's code.
    env = {**_ENV, **({"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {})}
    return instructions([str(script), *args], env)


def _per_decision(script: Path, case: str, n: int, metrics: str) -> float:
    base = _count(script, case, "0", metrics)
    return (_count(script, case, str(n), metrics) - base) / n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--decisions", type=int, default=20_000)
    parser.add_argument("--case", action="append", choices=CASES)
    parser.add_argument("--metrics", action="store_true", help="each case without and with a MeterProvider")
    args = parser.parse_args()
    n, cases = args.decisions, args.case or CASES
    modes = ("off", "on") if args.metrics else ("off",)
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "workload.py"
        script.write_text(WORKLOAD)
        for case in cases:  # writes every .pyc file the cases import, outside the figures
            for mode in modes:
                _count(script, case, "1000", mode)
        if not args.metrics:
            print("| case | instructions per decision |")
            print("|---|---:|")
        else:
            print("| case | no MeterProvider | SDK MeterProvider (counting) | cost of counting |")
            print("|---|---:|---:|---:|")
        for case in cases:
            per = {mode: _per_decision(script, case, n, mode) for mode in modes}
            if not args.metrics:
                print(f"| {case} | {per['off']:,.0f} |", flush=True)
            else:
                extra = per["on"] / per["off"] - 1
                print(f"| {case} | {per['off']:,.0f} | {per['on']:,.0f} | {extra:+.1%} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
