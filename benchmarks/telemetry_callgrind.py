"""Instructions per decision with telemetry counting on and off, counted by valgrind's
callgrind: the figure wall time cannot give on a busy machine (issue 11: at most +10%).

    python benchmarks/telemetry_callgrind.py               # three cases, 20,000 decisions
    python benchmarks/telemetry_callgrind.py --decisions 50000

Each (case, mode) runs twice under callgrind, with 0 and with N decisions; the
difference divided by N is the cost of one decision (start-up cancels out). The hash is
``xxh3`` (the xxhash C library, the lean mode), so no JIT runs under valgrind. About a
minute per run; needs ``valgrind``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from callgrind import instructions

WORKLOAD = """
import random, sys
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context
import dsampler
case, mode, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = random.Random(7)
ids = [rng.getrandbits(128) for _ in range(1000)]
rules = [{"match": {"span_name": f"r{i}"}, "action": "drop"} for i in range(3)] if case == "rules" else []
sampler = dsampler.DSampler(rate=0.1, hash="xxh3", rules=rules, resource={})
if mode == "on":
    sampler.engine.count_decisions()
parent = set_span_in_context(NonRecordingSpan(SpanContext(ids[0], 5, True, TraceFlags(1))))
ctx = parent if case == "child" else None
decide = sampler.should_sample
for _ in range(n // 1000):
    for tid in ids:
        decide(ctx, tid, "GET /x")
"""


_ENV = {"DSAMPLER_JIT": "0", "PYTHONHASHSEED": "0", "PATH": "/usr/bin:/bin"}


def _count(script: Path, *args: str) -> int:
    return instructions([str(script), *args], _ENV)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--decisions", type=int, default=20_000)
    args = parser.parse_args()
    n = args.decisions
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "workload.py"
        script.write_text(WORKLOAD)
        _count(script, "root", "on", "1000")  # writes the .pyc files, once, outside the figures
        print("| case | instructions per decision, off | on | cost of counting |")
        print("|---|---:|---:|---:|")
        for case in ("root", "child", "rules"):
            per = {}
            for mode in ("off", "on"):
                base = _count(script, case, mode, "0")
                per[mode] = (_count(script, case, mode, str(n)) - base) / n
            extra = per["on"] / per["off"] - 1
            print(f"| {case} | {per['off']:,.0f} | {per['on']:,.0f} | {extra:+.1%} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
