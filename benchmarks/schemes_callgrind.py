"""Instructions per root decision under each hash scheme, without and with the JIT,
against OpenTelemetry's ``TraceIdRatioBased``, counted by valgrind's callgrind in one
session: the per-scheme cost table of docs/benchmarks.md.

    python benchmarks/schemes_callgrind.py                   # every case, 10,000 decisions
    python benchmarks/schemes_callgrind.py --decisions 20000 --case otel-sdk --case dsampler:fnv1a

Root spans (no parent, no attributes) at rate 0.1 over 1,000 random 128-bit trace IDs,
so about a tenth are sampled, as OpenTelemetry's ``RandomIdGenerator`` makes them. Each
case runs twice under callgrind, with 0 and N decisions; the difference over N is one
decision. A case is ``SAMPLER:SCHEME[:jit]``: ``dsampler`` is ``DSampler(rate=0.1,
hash=SCHEME)`` with its defaults (writing ``th``), ``ratio`` is ``RatioSampler(0.1,
hash=SCHEME)``; ``:jit`` loads numba's kernels first (``DSAMPLER_JIT=eager``, then
``wait_for_jit``), else ``DSAMPLER_JIT=0`` keeps the pure-Python path, which is what a
process below the load threshold, or without the ``jit`` extra, runs. The cyclic garbage
collector is off during the loop (a collection costs what the heap holds). About a
minute per case, several for the ``:jit`` ones (numba's import under valgrind); needs
``valgrind``, and numba for the ``:jit`` cases.
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
case, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(7)
ids = [rng.getrandbits(128) for _ in range(1000)]
if case == "otel-sdk":
    from opentelemetry.sdk.trace.sampling import TraceIdRatioBased
    sampler = TraceIdRatioBased(0.1)
else:
    import dsampler
    kind, scheme, *jit = case.split(":")
    if kind == "dsampler":
        sampler = dsampler.DSampler(rate=0.1, hash=scheme, resource={})
    else:
        sampler = dsampler.RatioSampler(0.1, hash=scheme)
    if jit:
        assert dsampler.wait_for_jit(1800), dsampler.jit_status()
decide = sampler.should_sample
for tid in ids[:100]:
    decide(None, tid, "GET /x")
import gc; gc.collect(); gc.disable()  # a collection's cost depends on the heap, not the decision
for _ in range(n // 1000):
    for tid in ids:
        decide(None, tid, "GET /x")
"""

SCHEMES = ("fnv1a", "fnv1a-mix", "xxh3", "otel", "consistent", "jaeger", "jaeger-go", "otel-java", "otel-js")
CASES = (
    "otel-sdk",
    *(f"dsampler:{s}" for s in SCHEMES),
    "dsampler:fnv1a:jit",
    "dsampler:fnv1a-mix:jit",
    *(f"ratio:{s}" for s in ("fnv1a", "xxh3", "otel", "consistent")),
    "ratio:fnv1a:jit",
)


def _count(script: Path, case: str, n: int) -> int:
    jit = "eager" if case.endswith(":jit") else "0"
    env = {"PYTHONHASHSEED": "0", "PATH": "/usr/bin:/bin", "DSAMPLER_JIT": jit}
    for passed in ("PYTHONPATH", "NUMBA_CACHE_DIR"):  # another checkout; numba's cache
        if passed in os.environ:
            env[passed] = os.environ[passed]
    return instructions([str(script), case, str(n)], env)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--decisions", type=int, default=10_000)
    parser.add_argument("--case", action="append", metavar="CASE", help=f"one of {', '.join(CASES)}")
    args = parser.parse_args()
    cases = args.case or CASES
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "workload.py"
        script.write_text(WORKLOAD)
        warm = {cases[0], *[c for c in cases if c.endswith(":jit")][:1]}
        for case in warm:  # writes the .pyc files (and numba's cache) outside the figures
            _count(script, case, 1000)
        per = {}
        print("| case | instructions per decision | / OTel `TraceIdRatioBased` |")
        print("|---|---:|---:|")
        for case in cases:
            per[case] = (_count(script, case, args.decisions) - _count(script, case, 0)) / args.decisions
            ratio = f"{per[case] / per['otel-sdk']:.2f}x" if "otel-sdk" in per else ""
            print(f"| {case} | {per[case]:,.0f} | {ratio} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
