"""One run of the host-wide budget under real gunicorn, plotted: sampled roots per
second of each worker and of all together, against the target (docs/adaptive.md).

    python benchmarks/host_budget_plot.py                  # docs/img/host-budget.png
    python benchmarks/host_budget_plot.py --seconds 30 --out /tmp/run.png

gunicorn with 4 sync workers (the sampler built in the master, ``--preload``),
``adaptive: {target_traces_per_second: 20, share: host}``, 160 requests a second over
loopback (tests/integration/host_budget/). Halfway through, one worker is killed with
SIGKILL and gunicorn starts another. Prints the sampled rate per 10 s window.
"""

from __future__ import annotations

import argparse
import os
import signal
import tempfile
from pathlib import Path

from tests.integration.host_budget.harness import TARGET, lines, load, per_window, served, workers

REPO = Path(__file__).resolve().parents[1]
WARM_S = 3.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "img" / "host-budget.png")
    args = parser.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with tempfile.TemporaryDirectory() as folder, served("gunicorn-sync", Path(folder), "host") as s:

        def kill() -> None:
            found = lines(s.folder)
            os.kill(workers(found, found[-1].at - 1.0)[0], signal.SIGKILL)

        kill_at = WARM_S + args.seconds / 2
        start, end = load(s.port, WARM_S + args.seconds, events=[(kill_at, kill)])
        found = [line for line in lines(s.folder) if line.at >= start]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for pid in workers(found, start):
        mine = [line for line in found if line.pid == pid]
        rates = per_window(mine, start, end, 1.0)
        ax.plot(range(len(rates)), rates, lw=0.8, alpha=0.8, label=f"worker {pid}")
    total = per_window(found, start, end, 1.0)
    ax.plot(range(len(total)), total, color="black", lw=2, label="all workers")
    ax.axhline(TARGET, color="red", ls="--", lw=1, label=f"target {TARGET:g}/s")
    ax.axvline(kill_at, color="grey", ls=":", lw=1, label="SIGKILL of a worker")
    ax.set_xlabel("seconds")
    ax.set_ylabel("sampled root traces per second")
    ax.set_title("gunicorn -w 4, adaptive: {target_traces_per_second: 20, share: host}")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    windows = per_window(found, start + WARM_S, end, 10.0)
    print(f"wrote {args.out}")
    print("10 s windows after 3 s of warm-up, sampled/s:", ", ".join(f"{w:.1f}" for w in windows))
    print(f"whole run: {sum(windows) / len(windows):.2f}/s for a target of {TARGET:g}/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
