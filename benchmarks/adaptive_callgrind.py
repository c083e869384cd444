"""Instructions per root decision with the adaptive controller on and off, counted by
valgrind's callgrind: the figure wall time cannot give on a busy machine.

    python benchmarks/adaptive_callgrind.py               # rate 0.01, 200,000 decisions
    python benchmarks/adaptive_callgrind.py --rate 0.1

Each configuration runs twice under callgrind, with 0 and with N decisions over 1,000
random trace IDs; the difference divided by N is the cost of one decision (start-up,
numba's cache load included, cancels out). About 5 minutes per run under valgrind, four
runs. Needs ``valgrind`` (``apt-get install valgrind``) and a warm numba cache (run the
test suite once first).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from callgrind import instructions

WORKLOAD = """
import random, sys
import dsampler
mode, n, rate = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
assert dsampler.wait_for_jit(900), dsampler.jit_status()
rng = random.Random(7)
ids = [rng.getrandbits(128) for _ in range(1000)]
sampler = dsampler.DSampler(rate=rate, resource={})
if mode == "on":  # the hard cap far above the call rate: it never refuses
    dsampler.AdaptiveController(1e8, sampler=sampler, max_rate=rate, ticker=False)
decide = sampler.should_sample
for _ in range(n // 1000):
    for tid in ids:
        decide(None, tid, "GET /x")
"""


def _count(script: Path, mode: str, n: int, rate: float) -> int:
    return instructions([str(script), mode, str(n), str(rate)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--rate", type=float, default=0.01, help="the default rate of both samplers")
    parser.add_argument("--decisions", type=int, default=200_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "workload.py"
        script.write_text(WORKLOAD)
        per = {}
        for mode in ("off", "on"):
            base = _count(script, mode, 0, args.rate)
            total = _count(script, mode, args.decisions, args.rate)
            per[mode] = (total - base) / args.decisions
            print(f"controller {mode}: {per[mode]:.0f} instructions per decision")
    print(f"on / off: {per['on'] / per['off']:.3f} (bar: <= 1.05)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
