"""The demo's PNG timeline: offered load, sampled per second, rate and window, per service,
with the spike and the latency episode shaded and the hot update marked on every panel.

Offered and sampled are one-second bins (drawn as stairs); rate and window are read at
every batch, so the moment checkout follows the update shows at batch resolution.
matplotlib (the ``plot`` extra) is loaded through :mod:`dsampler.cli._plotting`, only when a
plot is asked for.
"""

from __future__ import annotations

import os
from typing import Any, Final

from dsampler.cli._plotting import pyplot
from dsampler.cli.demo._timeline import LATENCY_FACTOR, SEARCH_TARGET, SPIKE_FACTOR
from dsampler.cli.demo._workload import Record

COLOURS: Final = {"checkout": "tab:blue", "search": "tab:orange"}


def plot(record: Record, path: str | os.PathLike[str]) -> None:
    """Write the four panels of ``record`` to ``path`` (PNG)."""
    plt = pyplot()
    fig, axes = plt.subplots(4, 1, figsize=(10, 9), sharex=True, constrained_layout=True)
    try:
        offered, sampled, rate, window = axes
        _bins(record, offered, "offered", "offered / s")
        _bins(record, sampled, "sampled", "sampled / s")
        sampled.axhline(
            SEARCH_TARGET, color="black", lw=0.8, ls="--", label=f"search target {SEARCH_TARGET:g}/s"
        )
        _steps(record, rate, window)
        for ax in axes:
            _marks(record, ax, labelled=ax is window)
        offered.set_yscale("log")
        rate.set_yscale("log")
        window.set_xlabel("time (s)")
        window.set_xlim(0, record.timeline.duration_s)
        for ax in (offered, sampled, rate):
            ax.legend(loc="upper right", fontsize=7, ncol=3)
        window.legend(loc="upper right", fontsize=7, ncol=4)
        fig.suptitle(
            f"dsampler demo (seed {record.seed}): checkout follows dsampler serve, "
            f"search holds {SEARCH_TARGET:g} traces/s",
            fontsize=10,
        )
        fig.savefig(os.fspath(path), dpi=90, format="png")  # at the path given, whatever its suffix
    finally:
        plt.close(fig)


def _bins(record: Record, ax: Any, field: str, label: str) -> None:
    edges = [0, *(rows[0].second for rows in record.rows)]
    for i, name in enumerate(record.services):
        values = [getattr(rows[i], field) for rows in record.rows]
        ax.stairs(values, edges, baseline=None, lw=1.2, color=COLOURS.get(name), label=name)
    ax.set_ylabel(label)


def _steps(record: Record, rate: Any, window: Any) -> None:
    times = [t for t, _, _ in record.steps]
    for i, name in enumerate(record.services):
        rate.step(
            times,
            [rates[i] for _, rates, _ in record.steps],
            where="post",
            lw=1.0,
            color=COLOURS.get(name),
            label=f"{name} rate",
        )
    rate.set_ylabel("rate")
    windows = [w for _, _, w in record.steps]
    if any(w is not None for w in windows):
        window.step(
            times,
            [float("nan") if w is None else w for w in windows],
            where="post",
            lw=1.0,
            color=COLOURS["search"],
            label="search window",
        )
    window.set_ylabel("window (s)")
    present = [w for w in windows if w is not None]
    window.set_ylim(0, 1.6 * max(present, default=10.0))  # room for the legend above the line


def _marks(record: Record, ax: Any, *, labelled: bool) -> None:
    """The events on ``ax``; named in the legend of one panel only."""

    def name(text: str) -> str | None:
        return text if labelled else None

    timeline, update = record.timeline, record.update
    ax.axvspan(*timeline.spike, color="tab:purple", alpha=0.10, label=name(f"load x{SPIKE_FACTOR:g}"))
    ax.axvspan(*timeline.latency, color="tab:red", alpha=0.10, label=name(f"latency x{LATENCY_FACTOR:g}"))
    if update is not None:
        ax.axvline(
            update.written_at_s, color="black", lw=0.9, ls=":", label=name("strategies file rewritten")
        )
        if update.followed_at_s is not None:
            ax.axvline(
                update.followed_at_s, color="tab:green", lw=0.9, ls="-.", label=name("checkout follows")
            )
