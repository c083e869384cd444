"""A simulated run as a PNG: offered load, sampled per second, rate, window.

matplotlib is optional (the ``plot`` extra) and imported only here, with the headless
Agg backend.
"""

from __future__ import annotations

import os
from typing import Any

from dsampler.cli._plotting import pyplot
from dsampler.cli.simulate import _analysis as analysis
from dsampler.cli.simulate._simulation import Run


def plot(run: Run, path: str | os.PathLike[str]) -> None:
    """Write the four panels of ``run`` to ``path`` (PNG)."""
    plt = pyplot()
    fig, (load, sampled, rate, window) = plt.subplots(
        4, 1, figsize=(10, 9), sharex=True, constrained_layout=True
    )
    _load_and_sampled(run, load, sampled)
    rate.step(run.t, run.rate, where="post", lw=0.9, color="tab:green")
    rate.set_yscale("log")
    rate.set_ylabel("rate")
    _window(run, window)
    fig.suptitle(f"dsampler simulate --scenario {run.scenario.name} --seed {run.seed}", fontsize=10)
    fig.savefig(os.fspath(path), dpi=90, format="png")  # at the path given, whatever its suffix
    plt.close(fig)


def _load_and_sampled(run: Run, load: Any, sampled: Any) -> None:
    import numpy as np

    realized = analysis.bins(run)
    seconds = np.arange(len(realized)) + 0.5
    per = round(1.0 / run.tick_s)
    whole = len(seconds) * per
    offered = run.offered[:whole].reshape(-1, per).sum(axis=1)
    expected = run.expected[:whole].reshape(-1, per).mean(axis=1)
    load.plot(seconds, offered, lw=0.8, color="tab:gray")
    load.set_ylabel("offered / s")
    if offered.max() > 5 * max(1, offered.min()):
        load.set_yscale("log")
    sampled.plot(seconds, realized, lw=0.7, color="tab:blue", label="sampled (1 s bins)")
    sampled.plot(seconds, expected, lw=1.0, color="tab:orange", label="expected: load x rate")
    sampled.axhline(run.target, color="black", lw=0.8, ls="--", label=f"target {run.target:g}/s")
    sampled.axhline(2.2 * run.target, color="tab:red", lw=0.6, ls=":", label="2.2 x target")
    sampled.set_ylabel("sampled / s")
    sampled.legend(loc="upper right", fontsize=7, ncol=4)


def _window(run: Run, window: Any) -> None:
    window.step(run.t, run.window_s, where="post", lw=0.9, color="tab:purple", label="window (s)")
    top = run.window_s.max() * run.episode
    window.fill_between(run.t, 0, top, step="post", color="tab:red", alpha=0.15, label="latency episode")
    window.set_ylabel("window s")
    window.set_xlabel("time (s)")
    window.legend(loc="upper right", fontsize=7)
