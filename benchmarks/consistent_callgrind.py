"""Instructions per decision of writing ``th``: dsampler's
``composite_sampler(composable_traceid_ratio_based(0.1))`` against a plain
``RatioSampler(0.1, hash="consistent")`` (the same decisions, no ``th``), counted by
valgrind's callgrind in the same process.

    python benchmarks/consistent_callgrind.py                 # five cases, 20,000 decisions each
    python benchmarks/consistent_callgrind.py --decisions 50000 --repeat 5

Both samplers are built in every run; a run makes N decisions with one of them, or none
(the baseline), so ``(count(N) - count(0)) / N`` is one decision of that sampler, with
start-up and imports cancelled out. Start-up itself moves by about a million
instructions from run to run (and a run now and then by ten), so each count is the
median of ``--repeat`` runs (3). Cases: roots whose randomness is above the threshold
(sampled: the composite's result carries ``ot=th:e6666666666666``) or below it (dropped);
children of a sampled remote parent with a new tracestate (one vendor entry) for every
decision, so a sampled child's ``th`` is written into a fresh tracestate each time; and a
root span started and ended through a ``TracerProvider`` (no processor). The masking
``consistent`` rule decides in plain Python, so no JIT runs under valgrind. A few minutes;
needs ``valgrind``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from callgrind import instructions

CASES = ("root sampled", "root dropped", "child sampled", "child dropped", "span sampled")

WORKLOAD = """
import random, sys
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.id_generator import RandomIdGenerator
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context
from opentelemetry.trace.span import TraceState
import dsampler
from dsampler.consistent import composable_traceid_ratio_based, composite_sampler, ratio_to_threshold
from dsampler.consistent._tracestate import ot_of
case, which, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
T = ratio_to_threshold(0.1)
rng = random.Random(7)
sampled = case.endswith("sampled")
def trace_id():
    r = T + rng.randrange(2**56 - T) if sampled else rng.randrange(T)
    return (rng.getrandbits(72) << 56) | r
ids = [trace_id() for _ in range(1000)]
samplers = {
    "plain": dsampler.RatioSampler(0.1, hash="consistent"),
    "composite": composite_sampler(composable_traceid_ratio_based(0.1)),
}
sampler = samplers[which]
if case.startswith("child"):
    states = [TraceState([("congo", str(i))]) for i in range(len(ids))]
    parents = [SpanContext(t, 5, True, TraceFlags(1), ts) for t, ts in zip(ids, states)]
    contexts = [set_span_in_context(NonRecordingSpan(p)) for p in parents]
else:
    contexts = [None] * len(ids)
check = sampler.should_sample(contexts[0], ids[0], "GET /x")
assert check.decision.is_sampled() is sampled
assert ot_of(check.trace_state) == ("th:e6666666666666" if sampled and which == "composite" else None)
if case.startswith("span"):
    class Ids(RandomIdGenerator):
        def __init__(self):
            self.next = iter(ids * (n // 1000 + 1)).__next__
        def generate_trace_id(self):
            return self.next()
    start = TracerProvider(sampler=sampler, id_generator=Ids()).get_tracer("bench").start_span
    for _ in range(n):
        span = start("GET /x")
        span.end()
    if n:
        last = span.get_span_context()
        assert last.trace_flags.sampled and ot_of(last.trace_state) == ot_of(check.trace_state)
else:
    decide = sampler.should_sample
    for i in range(n):
        decide(contexts[i % 1000], ids[i % 1000], "GET /x")
"""

_ENV = {"DSAMPLER_JIT": "0", "PYTHONHASHSEED": "0", "PATH": "/usr/bin:/bin"}


def _count(script: Path, repeat: int, *args: str) -> int:
    return int(statistics.median(instructions([str(script), *args], _ENV) for _ in range(repeat)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--decisions", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs per count, the median is kept")
    parser.add_argument("--cases", nargs="*", default=list(CASES), choices=CASES)
    args = parser.parse_args()
    n = args.decisions
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "workload.py"
        script.write_text(WORKLOAD)
        _count(script, 1, "root sampled", "plain", "10")  # writes the .pyc files, outside the figures
        print(
            '| case | `RatioSampler(0.1, hash="consistent")` | composite sampler, th written | difference |'
        )
        print("|---|---:|---:|---:|")
        for case in args.cases:
            per = {}
            for which in ("plain", "composite"):
                base = _count(script, args.repeat, case, which, "0")
                per[which] = (_count(script, args.repeat, case, which, str(n)) - base) / n
            diff = per["composite"] - per["plain"]
            cells = (
                f"{per['plain']:,.0f} | {per['composite']:,.0f} | {diff:+,.0f} ({diff / per['plain']:+.0%})"
            )
            print(f"| {case} | {cells} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
