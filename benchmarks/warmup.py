"""The first seconds of a busy process: when do the compiled kernels serve, and what does
the load cost the threads that decide meanwhile?

    python benchmarks/warmup.py                 # every case, 3 rounds each, interleaved
    python benchmarks/warmup.py --rounds 5 --threads 0 1 4

Each probe is a fresh interpreter (warm numba cache, ``NUMBA_CACHE_DIR`` of this run) that
imports dsampler, builds a ``RatioSampler(0.1)`` and starts N threads deciding flat out at
once. It reports:

- ``ready``: seconds from the sampler's construction until a deciding thread sees the
  compiled kernel serve (``HashScheme.compiled``), or ``-`` when it never does (lean modes);
- ``worst gap``: the longest time between two consecutive decisions of one thread in the
  first 3 s (a stall: GC passes, GIL hand-offs, the loader's import);
- ``per decision``: wall time per decision (all threads together) over the last second of
  the 3 s: the steady state reached;
- the probe with 0 threads is the idle one: ``ready`` is how long ``wait_for_jit()``
  takes with nothing else running (the idle load time the busy ones compare with), then
  ``batch`` is ``decide_batch`` over 4 M IDs, in M IDs/s;
- ``gc``: one full ``gc.collect()`` after the 3 s, and the objects it tracks.

Cases: the default ``fnv1a`` rule (numba), ``xxh3`` (the xxhash C library, no numba),
``DSAMPLER_JIT=0`` (pure Python), and OpenTelemetry's ``TraceIdRatioBased`` as the peer.
The machine load (``uptime``) is printed with the table: the figures are noisy on a
shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

PROBE = r"""
import gc, json, os, random, statistics, sys, threading, time
t_start = time.perf_counter()
CASE, THREADS, WINDOW = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
import opentelemetry.sdk.trace
if CASE == "otel":
    from opentelemetry.sdk.trace.sampling import TraceIdRatioBased
    sampler = TraceIdRatioBased(0.1)
    scheme = None
else:
    import dsampler
    from dsampler.hashing._schemes import SCHEMES
    hash_ = "xxh3" if CASE == "xxh3" else "fnv1a"
    sampler = dsampler.RatioSampler(0.1, hash=hash_)
    scheme = SCHEMES[hash_]
t0 = time.perf_counter()
rng = random.Random(5)
ids = [rng.getrandbits(128) for _ in range(4096)]
stop = threading.Event()
results = []

def decide(out):
    # Blocks of 256 decisions, timed as a whole: the longest block bounds the longest
    # stall of a decision (plus the block's own ~0.1-0.4 ms) without a clock read per call.
    should_sample, perf, n, worst, ready = sampler.should_sample, time.perf_counter, 0, 0.0, None
    last = perf()
    tail_start, tail_n = None, 0
    while not stop.is_set():
        for i in range(0, 4096, 256):
            for t in ids[i : i + 256]:
                should_sample(None, t, "op")
            now = perf()
            if now - last > worst:
                worst = now - last
            last = now
        n += len(ids)
        if ready is None and scheme is not None and scheme.compiled:
            ready = now - t0
        if tail_start is None and now - t0 >= WINDOW - 1.0:
            tail_start, tail_n = now, n
    tail = (n - tail_n) / (last - tail_start) if tail_start and last > tail_start else None
    out.append({"ready": ready, "worst": worst, "tail_rate": tail})

threads = [threading.Thread(target=decide, args=(results,)) for _ in range(THREADS)]
for th in threads:
    th.start()
batch = None
if THREADS == 0:  # the idle probe: the load with nothing else running, then decide_batch
    if scheme is not None and scheme.needs_kernel and dsampler.wait_for_jit(60):
        results.append({"ready": time.perf_counter() - t0, "worst": 0.0, "tail_rate": None})
    import numpy as np
    hi = np.frombuffer(random.Random(9).randbytes(8 * 4_000_000), dtype=np.uint64)
    lo = hi[::-1].copy()
    b0 = time.perf_counter()
    dsampler.decide_batch(hi, lo, 0.1, hash=hash_)
    batch = 4.0 / (time.perf_counter() - b0)
    WINDOW = 0.0
time.sleep(max(0.0, WINDOW - (time.perf_counter() - t0)))
stop.set()
for th in threads:
    th.join()
g0 = time.perf_counter()
gc.collect()
gc_ms = (time.perf_counter() - g0) * 1e3
ready = [r["ready"] for r in results if r["ready"] is not None]
print(json.dumps({
    "ready": max(ready) if ready and len(ready) == len(results) else None,
    # All threads together: ns of wall time per decision made by any of them.
    "tail_ns": (1e9 / sum(r["tail_rate"] for r in results)
                if results and all(r["tail_rate"] for r in results) else None),
    "worst_ms": max((r["worst"] for r in results), default=0.0) * 1e3,
    "batch": batch, "gc_ms": gc_ms, "gc_objects": len(gc.get_objects()),
    "numba": "numba" in sys.modules,
}))
"""

CASES = {
    "dsampler fnv1a (numba)": ("fnv1a", {}),
    "dsampler xxh3 (xxhash)": ("xxh3", {}),
    "dsampler DSAMPLER_JIT=0": ("fnv1a", {"DSAMPLER_JIT": "0"}),
    "OTel TraceIdRatioBased": ("otel", {}),
}


def probe(case: str, threads: int, window_s: float, env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, case, str(threads), str(window_s)],
        env={**os.environ, **env},
        cwd=tempfile.gettempdir(),  # not the checkout: `-c` puts the cwd first on sys.path
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def _spread(values: list[float], fmt: str) -> str:
    if not values:
        return "-"
    med = statistics.median(values)
    return f"{med:{fmt}} ({min(values):{fmt}}-{max(values):{fmt}})"


def _loaded(flags: list[bool]) -> str:
    return "yes" if all(flags) else "no" if not any(flags) else "some"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, nargs="+", default=[0, 1, 4], help="0: the idle probe")
    parser.add_argument("--window", type=float, default=3.0, help="seconds each probe decides")
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument(
        "--compare-with",
        metavar="DIR",
        help="a checkout of another dsampler (e.g. main): its fnv1a case runs too, interleaved",
    )
    parser.add_argument("--cold", action="store_true", help="an empty numba cache for every probe")
    args = parser.parse_args(argv)
    if args.compare_with:
        before = f"dsampler fnv1a, {Path(args.compare_with).name}"
        CASES[before] = ("fnv1a", {"PYTHONPATH": str(Path(args.compare_with).resolve())})
        args.cases.append(before)
    cache = tempfile.mkdtemp(prefix="dsampler-warmup-cache-")
    env = {"NUMBA_CACHE_DIR": os.environ.get("NUMBA_CACHE_DIR", cache)}
    # Warm the numba cache once per checkout, so every probe measures a cache load.
    for extra in {json.dumps(CASES[c][1]) for c in args.cases}:
        subprocess.run(
            [sys.executable, "-c", "import dsampler; dsampler.wait_for_jit(300)"],
            env={**os.environ, **env, **json.loads(extra)},
            cwd=tempfile.gettempdir(),
            check=True,
        )
    load_before = os.getloadavg()
    runs: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for r in range(args.rounds):
        order = [(c, t) for t in args.threads for c in args.cases if t or CASES[c][0] != "otel"]
        order = order[r % len(order) :] + order[: r % len(order)]  # rotate: interleaved rounds
        for case, threads in order:
            code, extra = CASES[case]
            if args.cold:
                extra = {**extra, "NUMBA_CACHE_DIR": tempfile.mkdtemp(prefix="dsampler-cold-")}
            runs.setdefault((case, threads), []).append(probe(code, threads, args.window, {**env, **extra}))
    print(
        f"load average before: {load_before[0]:.2f}, after: {os.getloadavg()[0]:.2f}; "
        f"{args.rounds} rounds, median (min-max); {'cold' if args.cold else 'warm'} numba cache\n"
    )
    print(
        "| case | threads | ready (s) | worst gap (ms) | ns per decision in the last 1 s, all threads | "
        "decide_batch 4M (M IDs/s) | full gc.collect (ms) | gc objects | numba loaded |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for (case, threads), outs in runs.items():
        ready = [o["ready"] for o in outs if o["ready"] is not None]
        never = sum(o["ready"] is None for o in outs)
        ready_s = _spread(ready, ".2f") + (f", never in {never}" if never and ready else "")
        if not ready:
            ready_s = "-"
        print(
            f"| {case} | {threads} | {ready_s} | {_spread([o['worst_ms'] for o in outs], '.1f')} | "
            f"{_spread([o['tail_ns'] for o in outs if o['tail_ns']], '.0f')} | "
            f"{_spread([o['batch'] for o in outs if o['batch']], '.0f')} | "
            f"{_spread([o['gc_ms'] for o in outs], '.1f')} | "
            f"{statistics.median(o['gc_objects'] for o in outs):.0f} | "
            f"{_loaded([o['numba'] for o in outs])} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
