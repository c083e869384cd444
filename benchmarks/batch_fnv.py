"""Batch FNV-1a: ``decide_batch(hi, lo, 0.1, hash="fnv1a")`` against a plain numba loop
(one ID after another), both in one run, on this CPU and compiled without AVX-512.

    python benchmarks/batch_fnv.py                    # ~3 min on a 2-vCPU VM
    python benchmarks/batch_fnv.py --ids 200000 --rounds 5 --check 100000   # smoke

The plain loop (``h = (h ^ byte) * PRIME`` sixteen times per ID, vectorised by LLVM four
IDs at a time) is compiled here from its own source, beside dsampler's kernels: the
block kernel (:mod:`dsampler.hashing._fnv_blocks`) and its own plain loop, of which
``decide_batch`` runs the one the process timed faster on first use
(``_kernels.fnv_batch_form``). Each configuration runs in a child process with a fresh
numba cache, so that every kernel is compiled for the same target:

* this CPU: numba's defaults (the host's CPU name and features);
* without AVX-512 (only where the CPU has it): ``NUMBA_CPU_FEATURES`` = the host's
  features with every AVX-512, AVX10 and AMX feature turned off, which is the code an
  AVX2-only CPU gets (on this core's ports and caches).

Per child: what numba compiles for and the form ``decide_batch`` chose, the 10 M-ID check
(keys and decisions at four rates equal the plain loop's on every ID, and the golden
trace-ID vectors of ``tests/data/vectors/fnv1a64.json`` come out), then ``--rounds``
interleaved rounds of the plain loop, ``decide_batch`` and the block kernel over the same
``--ids`` random IDs: the best and median rate of each, the ratio plain/``decide_batch``
of each round's pair (adjacent in time, so they share what else the machine was doing)
as median and quartiles (1.00x or more: ``decide_batch`` is not slower), the ratio of
the bests, and the block kernel's best. The clock is estimated from a chain of dependent
64-bit multiplies (``imul``: 3 cycles each on current x86 cores), so the table can give
cycles per ID.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, time
import numpy as np
from numba import boolean, int64, njit, uint64
import numba, llvmlite.binding as llvm
import dsampler
from dsampler.hashing import _fnv_blocks
from dsampler.hashing._reference import FNV_OFFSET_BASIS, FNV_PRIME

IDS, ROUNDS, CHECK, VECTORS = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
U = np.uint64
_OFFSET, _PRIME, _BYTE = U(FNV_OFFSET_BASIS), U(FNV_PRIME), U(0xFF)


@njit(uint64(uint64, uint64), cache=False)
def old_fnv1a(hi, lo):  # the plain loop's scalar function
    h = _OFFSET
    for i in range(8):
        h = (h ^ ((hi >> np.uint64(56 - 8 * i)) & _BYTE)) * _PRIME
    for i in range(8):
        h = (h ^ ((lo >> np.uint64(56 - 8 * i)) & _BYTE)) * _PRIME
    return h


@njit(boolean[::1](uint64[::1], uint64[::1], uint64), cache=False, nogil=True)
def old_decide(hi, lo, bound):  # the plain loop
    out = np.empty(hi.shape[0], dtype=np.bool_)
    for i in range(hi.shape[0]):
        out[i] = old_fnv1a(hi[i], lo[i]) < bound
    return out


@njit(uint64[::1](uint64[::1], uint64[::1]), cache=False, nogil=True)
def old_keys(hi, lo):  # the plain loop, keys
    out = np.empty(hi.shape[0], dtype=np.uint64)
    for i in range(hi.shape[0]):
        out[i] = old_fnv1a(hi[i], lo[i])
    return out


@njit(uint64(uint64, int64), cache=False)
def chain(x, n):  # n dependent multiplies: 3 cycles each
    for _ in range(n):
        x = x * x
    return x


def clock_ghz():
    chain(U(3), 10)
    n, best = 2_000_000, 1e9
    for _ in range(100):
        t = time.perf_counter(); chain(U(3), n); best = min(best, time.perf_counter() - t)
    return 3 * n / best / 1e9


def random_halves(rng, n):
    return tuple(rng.integers(0, 1 << 64, size=n, dtype=np.uint64) for _ in range(2))


def check(n):
    rng, done = np.random.default_rng(20_261_201), 0
    rates = (0.1, 0.5, 2.0**-20, 1 - 2.0**-53)
    while done < n:
        m = min(1 << 20, n - done)
        hi, lo = random_halves(rng, m)
        assert np.array_equal(dsampler.fnv1a64_batch(hi, lo), old_keys(hi, lo))
        for rate in rates:
            ours = dsampler.decide_batch(hi, lo, rate, hash="fnv1a")
            assert np.array_equal(ours, old_decide(hi, lo, U(dsampler.rate_to_bound(rate))))
        done += m
    vectors = [v for v in json.load(open(VECTORS)) if len(v["input_hex"]) == 32]
    ids = [int(v["input_hex"], 16) for v in vectors]
    hi = np.array([t >> 64 for t in ids], dtype=np.uint64)
    lo = np.array([t & ((1 << 64) - 1) for t in ids], dtype=np.uint64)
    assert dsampler.fnv1a64_batch(hi, lo).tolist() == [int(v["fnv1a64_hex"], 16) for v in vectors]
    return {"ids": done, "rates": len(rates), "vectors": len(vectors)}


def timing(n, rounds):
    hi, lo = random_halves(np.random.default_rng(7), n)
    bound = U(dsampler.rate_to_bound(0.1))
    runs = {
        "old": lambda: old_decide(hi, lo, bound),
        "new": lambda: dsampler.decide_batch(hi, lo, 0.1, hash="fnv1a"),
        "blocks": lambda: blocks(hi, lo, bound, False),
    }
    times = {name: [] for name in runs}
    for name, run in runs.items():
        run()
    for _ in range(rounds):
        for name, run in runs.items():
            t = time.perf_counter(); run(); times[name].append(time.perf_counter() - t)
    return times


assert dsampler.wait_for_jit(600), dsampler.jit_status()
from dsampler.hashing import _kernels as kernels
blocks = next(decide for form, (_, decide) in kernels.FNV_FORMS.items() if form.startswith("blocks"))
features = _fnv_blocks.target_features().split(",")
report = {
    "host_cpu": llvm.get_host_cpu_name(),
    "numba_cpu_name": numba.config.CPU_NAME,
    "numba_cpu_features_set": numba.config.CPU_FEATURES is not None,
    "avx512f": "+avx512f" in features, "avx512dq": "+avx512dq" in features, "avx2": "+avx2" in features,
    "form": "wide" if _fnv_blocks.WIDE_MULTIPLY else "split",
    "chosen": kernels.fnv_batch_form(),
    "check": check(CHECK), "ghz": clock_ghz(), "times": timing(IDS, ROUNDS), "ids": IDS,
}
print(json.dumps(report))
"""


def _without_avx512() -> str | None:
    """The host's features with AVX-512 (and what needs it) off; None if it has none."""
    import llvmlite.binding as llvm

    features = llvm.get_host_cpu_features()
    if not features.get("avx512f"):
        return None
    off = ("avx512", "avx10", "amx", "evex512")
    return ",".join(
        ("-" if name.startswith(off) or not on else "+") + name for name, on in sorted(features.items())
    )


def _child(args: argparse.Namespace, features: str | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "DSAMPLER_JIT": "eager"}
        if features is not None:
            env["NUMBA_CPU_FEATURES"] = features
        vectors = str(ROOT / "tests" / "data" / "vectors" / "fnv1a64.json")
        argv = [sys.executable, "-c", CHILD, str(args.ids), str(args.rounds), str(args.check), vectors]
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"child failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _model_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def _row(label: str, r: dict[str, Any]) -> str:
    n, ghz = r["ids"], r["ghz"]
    old, new, blocks = r["times"]["old"], r["times"]["new"], r["times"]["blocks"]
    paired = sorted(o / w for o, w in zip(old, new, strict=True))  # rounds are adjacent in time
    med_old, med_new = sorted(old)[len(old) // 2], sorted(new)[len(new) // 2]
    cycles = min(new) * ghz * 1e9 / n
    checked = r["check"]
    return (
        f"| {label} | {r['chosen']} | {n / min(old) / 1e6:.0f} / {n / med_old / 1e6:.0f} M/s "
        f"| {n / min(new) / 1e6:.0f} / {n / med_new / 1e6:.0f} M/s | {paired[len(paired) // 2]:.2f}x "
        f"({paired[len(paired) // 4]:.2f}-{paired[3 * len(paired) // 4]:.2f}) | {min(old) / min(new):.2f}x "
        f"| {n / min(blocks) / 1e6:.0f} M/s ({r['form']}) | {ghz:.2f} GHz: {cycles:.1f} cycles/ID at best "
        f"| {checked['ids']:,} IDs x {checked['rates']} rates, {checked['vectors']} vectors: identical |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ids", type=int, default=1_000_000, help="IDs per timed call")
    parser.add_argument("--rounds", type=int, default=30, help="interleaved rounds of both kernels")
    parser.add_argument("--check", type=int, default=10_000_000, help="random IDs checked bit for bit")
    args = parser.parse_args()
    started = time.perf_counter()
    configs: list[tuple[str, str | None]] = [("this CPU", None)]
    stripped = _without_avx512()
    if stripped is not None:
        configs.append(("without AVX-512", stripped))
    results = [(label, _child(args, features)) for label, features in configs]
    first = results[0][1]
    print(f"CPU: {_model_name()}; LLVM host CPU name: {first['host_cpu']}; AVX2 {first['avx2']}, "
          f"AVX-512F {first['avx512f']}, AVX-512DQ {first['avx512dq']}")  # fmt: skip
    print()
    print("| compiled for | decide_batch runs | plain loop, best / median | decide_batch, best / median "
          "| decide_batch / plain, paired rounds: median (quartiles) | ratio of bests | block kernel, best "
          "| clock, decide_batch | bit-identical |")  # fmt: skip
    print("|---|---|---:|---:|---:|---:|---:|---|---|")
    for label, r in results:
        print(_row(label, r))
    print(f"\n({args.ids:,} random IDs per call, {args.rounds} interleaved rounds, "
          f"{time.perf_counter() - started:.0f} s in all)")  # fmt: skip


if __name__ == "__main__":
    main()
