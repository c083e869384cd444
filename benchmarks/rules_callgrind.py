"""Instructions per decision of a server span with 3 attributes through DSampler with 0,
10, 100 and 1,000 rules that do not match it, and through OpenTelemetry's
TraceIdRatioBased at the same rate, counted by valgrind's callgrind in the same
workload: the rules-count ratios of docs/benchmarks.md, without wall-time noise.

    python benchmarks/rules_callgrind.py                 # 20,000 decisions per case
    python benchmarks/rules_callgrind.py --decisions 50000

Each case runs twice under callgrind, with 0 and N decisions; the difference over N is
one decision. 1,000 fixed random trace IDs at rate 0.1 (so about a tenth are sampled),
the ``xxh3`` rule for DSampler (no JIT under valgrind), the cyclic garbage collector off
during the loop for both sides (a collection costs what the heap holds, not what the
decision does). Needs ``valgrind``.
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
from opentelemetry.sdk.trace.sampling import TraceIdRatioBased
from opentelemetry.trace import SpanKind
import dsampler
sys.path.insert(0, sys.argv[3])
from test_dsampler import SPAN_ATTRIBUTES, many_rules, matching_rule
case, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(7)
ids = [rng.getrandbits(128) for _ in range(1000)]
name = "GET /x"
if case == "otel":
    sampler = TraceIdRatioBased(0.1)
elif case == "match":
    sampler = dsampler.DSampler(rate=0.1, hash="xxh3", rules=[matching_rule(), *many_rules(9)], resource={})
    name = "GET /healthz"
else:
    sampler = dsampler.DSampler(rate=0.1, hash="xxh3", rules=many_rules(int(case)), resource={})
decide = sampler.should_sample
import gc; gc.collect(); gc.disable()  # a collection's cost depends on the heap, not the decision
for _ in range(n // 1000):
    for tid in ids:
        decide(None, tid, name, SpanKind.SERVER, SPAN_ATTRIBUTES)
"""

CASES = ("otel", "0", "10", "100", "1000", "match")
LABELS = {"otel": "OTel TraceIdRatioBased", "match": "DSampler, the first of 10 rules matches"}
_ENV = {"DSAMPLER_JIT": "0", "PYTHONHASHSEED": "0", "PATH": "/usr/bin:/bin"}


def _count(script: Path, *args: str) -> int:
    env = {**_ENV, **({"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {})}
    return instructions([str(script), *args, str(Path(__file__).parent)], env)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--decisions", type=int, default=20_000)
    parser.add_argument("--case", action="append", choices=CASES[1:], help="only these (and OTel's)")
    args = parser.parse_args()
    n = args.decisions
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "workload.py"
        script.write_text(WORKLOAD)
        cases = ("otel", *(args.case or CASES[1:]))
        for case in cases:  # writes every .pyc file the cases import, outside the figures
            _count(script, case, "1000")
        per = {}
        print("| case | instructions per decision | against OTel TraceIdRatioBased |")
        print("|---|---:|---:|")
        for case in cases:
            per[case] = (_count(script, case, str(n)) - _count(script, case, "0")) / n
            label = (
                "OTel TraceIdRatioBased"
                if case == "otel"
                else (
                    "DSampler, first of 10 rules matches"
                    if case == "match"
                    else f"DSampler, {case} rules, none match"
                )
            )
            print(f"| {label} | {per[case]:,.0f} | {per[case] / per['otel']:.2f}x |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
