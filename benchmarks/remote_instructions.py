"""Instructions per decision, JaegerRemoteSampler against DSampler with the same strategy,
counted by valgrind's callgrind (wall time on a shared machine is too noisy to tell
"the same" from "a few percent more").

    python benchmarks/remote_instructions.py [--calls 20000]

Each sampler runs in its own process under callgrind twice, with 0 and with N calls of
``should_sample`` on a root span its strategy samples; the difference over N is the cost
of one decision, setup excluded. The remote sampler gets its strategy over HTTP from a
real strategies server (stopped before the loop, so no other thread runs); the pure-
Python hash path is used (DSAMPLER_JIT=0) so no compiler thread runs either, and the
garbage collector is off during the loop (its passes cost by heap size, not decision).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import sys
from dsampler import DSampler
from dsampler.remote import JaegerRemoteSampler
from dsampler.serve import StrategiesServer, jaeger_strategies

impl, calls, case = sys.argv[1], int(sys.argv[2]), sys.argv[3]
strategy = {"type": "probabilistic", "param": 0.5}
if case == "per-operation":
    strategy["operation_strategies"] = [{"operation": "GET /x", "type": "probabilistic", "param": 0.5}]
server = StrategiesServer(jaeger_strategies({"default_strategy": strategy}), port=0).start()
remote = JaegerRemoteSampler("bench", server.url, start=False, resource={})
remote.poll_once()
server.close()
if impl == "dsampler":
    sampler = DSampler(remote.config, resource={})  # the same configuration, set by hand
else:
    sampler = remote
tid = 5  # low 64 bits 5: sampled by the otel rule at 0.5
assert sampler.should_sample(None, tid, "GET /x").decision.is_sampled()
decide = sampler.should_sample
import gc; gc.collect(); gc.disable()  # a collection's cost depends on the heap, not the decision
for _ in range(calls):
    decide(None, tid, "GET /x")
"""


def instructions(impl: str, calls: int, case: str) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        env = {**os.environ, "DSAMPLER_JIT": "0", "PYTHONHASHSEED": "0"}  # dict layouts identical
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                "-c",
                CHILD,
                impl,
                str(calls),
                case,
            ],
            check=True,
            env=env,
            capture_output=True,
        )
        for line in out.read_text().splitlines():
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise RuntimeError("no callgrind summary")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=20_000)
    args = parser.parse_args()
    print("| strategy | JaegerRemoteSampler | DSampler | ratio |")
    print("|---|---:|---:|---:|")
    for case in ("probabilistic", "per-operation"):
        per_call = {}
        for impl in ("remote", "dsampler"):
            base, loaded = instructions(impl, 0, case), instructions(impl, args.calls, case)
            per_call[impl] = (loaded - base) / args.calls
        ratio = per_call["remote"] / per_call["dsampler"]
        print(f"| {case} | {per_call['remote']:.0f} instr | {per_call['dsampler']:.0f} instr | {ratio:.3f} |")


if __name__ == "__main__":
    main()
