"""The bar chart of ``dsampler bench --plot``: one horizontal bar per row, its ratio, with
the quartiles of the per-round ratios as error bars, parity (1.0) and dsampler's
targets as vertical lines. matplotlib is the ``plot`` extra, imported only here."""

from __future__ import annotations

from pathlib import Path

from dsampler.cli._plotting import pyplot
from dsampler.cli.bench._report import Report

_COLOURS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3")


def plot(report: Report, path: Path) -> None:
    """Write the chart as a PNG to ``path``."""
    plt = pyplot()
    found, meta = report.results, report.meta
    rows = list(reversed(found))  # the first row at the top
    groups = list(dict.fromkeys(r.row.group for r in found))
    colour = {g: _COLOURS[i % len(_COLOURS)] for i, g in enumerate(groups)}
    fig, ax = plt.subplots(figsize=(10, 0.32 * len(rows) + 1.6))
    try:
        y = range(len(rows))
        ratios = [r.ratio for r in rows]
        low = [max(0.0, r.ratio - r.ratio_q1) for r in rows]
        high = [max(0.0, r.ratio_q3 - r.ratio) for r in rows]
        ax.barh(y, ratios, xerr=[low, high], color=[colour[r.row.group] for r in rows], capsize=2)
        for i, r in enumerate(rows):
            ax.text(r.ratio_q3 + 0.03, i, f"{r.ratio:.2f}", va="center", fontsize=7)
        ax.set_yticks(list(y), [f"{r.row.group}: {r.row.label}" for r in rows], fontsize=8)
        ax.axvline(1.0, color="black", linewidth=1, label="parity (1.0)")
        for figure in sorted(
            {r.row.figure for r in found if r.row.figure is not None and r.row.figure != 1.0}
        ):
            ax.axvline(figure, color="grey", linestyle="--", linewidth=1, label=f"target ({figure:.1f}x)")
        ax.set_xlabel(
            "dsampler / peer: median of the per-round ratios, quartiles as error bars (lower is better)"
        )
        ax.set_title(
            f"dsampler bench {meta.dsampler}: {meta.python}, {meta.cpus or '?'} CPUs, "
            f"numba kernels {meta.jit}",
            fontsize=10,
        )
        ax.legend(loc="lower right", fontsize=8)
        fig.tight_layout()
        fig.savefig(path, format="png", dpi=110)
    finally:
        plt.close(fig)
