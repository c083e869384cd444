"""Medians to ratios, a table for people and a JSON document for machines.

A row's ratio pairs the two sides round by round: round r of the dsampler case over
round r of the peer case (timed in the same round, a fraction of a second apart), and
the ratio is the median of these per-round ratios, its spread their quartiles. Drift
that hits both sides alike cancels in each pair; the per-case medians are shown too.
Lower is better.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dsampler.cli.bench._harness import CLOCK, Run, Stats, quartiles
from dsampler.cli.bench._rows import Group, Row, Skipped

#: A side whose rounds spread wider than this share of its median: the machine was busy.
NOISY_IQR = 0.15


@dataclass(frozen=True)
class Meta:
    """Where and how the run was made."""

    dsampler: str
    python: str
    platform: str
    cpus: int | None
    load_average: tuple[float, float, float] | None  # at start
    versions: dict[str, str | None]
    jit: str  # jit_status() once the wait was over
    jit_wait_s: float
    rounds: int  # requested
    seconds: float  # requested
    quick: bool
    loop_floor_ns: float


@dataclass(frozen=True)
class Result:
    """A row with its figures."""

    row: Row
    ours_impl: str
    peer_impl: str
    ours: Stats
    peer: Stats
    ratio: float
    ratio_q1: float
    ratio_q3: float

    @property
    def noisy(self) -> bool:
        return max(self.ours.iqr_share, self.peer.iqr_share) > NOISY_IQR

    @property
    def met(self) -> bool | None:
        """Whether the row's target is met; None for a row without one."""
        return None if self.row.figure is None else self.ratio <= self.row.figure


@dataclass(frozen=True)
class Report:
    """Everything a run found, for :func:`table`, :func:`to_json` and the plot."""

    meta: Meta
    groups: Sequence[Group]
    skipped: Sequence[Skipped]
    run: Run
    results: Sequence[Result]


def results(groups: Sequence[Group], run: Run) -> list[Result]:
    impl = {case.key: case.impl for group in groups for case in group.cases}
    out = []
    for row in (row for group in groups for row in group.rows):
        ours, peer = run.stats[row.ours], run.stats[row.peer]
        paired = [o / p for o, p in zip(ours.per_round, peer.per_round, strict=True) if p > 0]
        q1, ratio, q3 = quartiles(paired) if paired else (math.nan, math.nan, math.nan)
        out.append(Result(row, impl[row.ours], impl[row.peer], ours, peer, ratio, q1, q3))
    return out


def _duration(ns: float) -> str:
    if ns < 1e3:
        return f"{ns:.0f} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.2f} us"
    return f"{ns / 1e6:.2f} ms"


def _cell(stats: Stats) -> str:
    return f"{_duration(stats.median):>9} +-{stats.iqr_share * 100:>2.0f}%"


def _figure(result: Result) -> str:
    if result.row.figure is None:
        return ""
    return f"<= {result.row.figure:.1f}x: {'met' if result.met else 'NOT MET'}"


def _header(meta: Meta, run: Run, cases: int) -> list[str]:
    load = " ".join(f"{x:.2f}" for x in meta.load_average) if meta.load_average else "unknown"
    versions = ", ".join(f"{name} {v}" for name, v in meta.versions.items() if v)
    lines = [
        f"dsampler bench {meta.dsampler}: {cases} cases, {run.rounds} interleaved "
        f"round{'' if run.rounds == 1 else 's'} "
        f"of {run.batch_s * 1e3:.1f} ms batches, {run.elapsed_s:.1f} s",
        f"numba kernels: {meta.jit} (waited {meta.jit_wait_s:.1f} s); "
        f"loop floor {meta.loop_floor_ns:.0f} ns per call, included in every figure",
        f"machine: {meta.cpus or '?'} CPUs, load average {load} at start; {meta.python}, {versions}",
    ]
    if meta.jit != "ready":
        lines.append(
            "WARNING: the numba kernels are not serving: dsampler's figures are for the pure-Python fallback"
        )
    if run.stopped_early:
        lines.append(f"note: the time budget ran out after {run.rounds} of {meta.rounds} rounds")
    return lines


_COLUMNS = f"  {'case':<52} {'dsampler':>15}  {'peer':>15}  {'ratio [IQR]':<26} figure"


def table(report: Report) -> list[str]:
    """The report for people, one line per row under its group's title."""
    meta, groups, run, found = report.meta, report.groups, report.run, report.results
    lines = _header(meta, run, sum(len(g.cases) for g in groups))
    for group in groups:
        lines += ["", group.title, _COLUMNS]
        for r in (r for r in found if r.row.group == group.name):
            spread = f"{r.ratio:.2f} [{r.ratio_q1:.2f}-{r.ratio_q3:.2f}]" + (" (noisy)" if r.noisy else "")
            lines.append(
                f"  {r.row.label:<52} {_cell(r.ours)}  {_cell(r.peer)}  {spread:<26} {_figure(r)}".rstrip()
            )
    lines += [""] + [f"skipped: {s.group}: {s.reason}" for s in report.skipped]
    lines += _figures(found)
    lines += [
        "dsampler, peer: median time per call over the rounds, +- the inter-quartile range as a share of it;",
        "ratio: median over the rounds of dsampler / peer in the same round, lower is better (0.5: half "
        "the time); [IQR]: its quartiles;",
        f"(noisy): a side's inter-quartile range above {NOISY_IQR:.0%} of its median (a busy machine: "
        "run again).",
    ]
    return lines


def _figures(found: Sequence[Result]) -> list[str]:
    """One line per target: which groups it covers and how many rows meet it."""
    by_figure: dict[float, list[Result]] = {}
    for r in found:
        if r.row.figure is not None:
            by_figure.setdefault(r.row.figure, []).append(r)
    lines = []
    for figure, rows in by_figure.items():
        names = ", ".join(dict.fromkeys(r.row.group for r in rows))
        met = sum(1 for r in rows if r.met)
        lines.append(f"target <= {figure:.1f}x ({names}): met by {met} of {len(rows)} rows")
    return lines


def _stats_json(stats: Stats) -> dict[str, Any]:
    return {
        "median_ns": stats.median,
        "q1_ns": stats.q1,
        "q3_ns": stats.q3,
        "min_ns": stats.low,
        "max_ns": stats.high,
        "calls_per_round": stats.calls,
    }


def _row_json(r: Result) -> dict[str, Any]:
    return {
        "group": r.row.group,
        "case": r.row.label,
        "dsampler": r.ours_impl,
        "peer": r.peer_impl,
        "dsampler_case": r.row.ours,
        "peer_case": r.row.peer,
        "dsampler_ns": r.ours.median,
        "peer_ns": r.peer.median,
        "ratio": r.ratio,
        "ratio_q1": r.ratio_q1,
        "ratio_q3": r.ratio_q3,
        "noisy": r.noisy,
        "figure": r.row.figure,
        "met": r.met,
    }


def to_json(report: Report) -> dict[str, Any]:
    """The report for machines (keys documented in docs/cli-bench.md)."""
    meta, groups, run = report.meta, report.groups, report.run
    impl = {case.key: case.impl for group in groups for case in group.cases}
    return {
        "dsampler": meta.dsampler,
        "python": meta.python,
        "platform": meta.platform,
        "cpus": meta.cpus,
        "load_average": list(meta.load_average) if meta.load_average else None,
        "versions": meta.versions,
        "jit": meta.jit,
        "jit_wait_s": meta.jit_wait_s,
        "settings": {"rounds": meta.rounds, "seconds": meta.seconds, "quick": meta.quick},
        "clock": CLOCK.__name__,
        "rounds": run.rounds,
        "batch_s": run.batch_s,
        "stopped_early": run.stopped_early,
        "elapsed_s": run.elapsed_s,
        "loop_floor_ns": meta.loop_floor_ns,
        "groups": [{"name": g.name, "title": g.title} for g in groups],
        "cases": {key: {"impl": impl[key], **_stats_json(stats)} for key, stats in run.stats.items()},
        "rows": [_row_json(r) for r in report.results],
        "skipped": [{"group": s.group, "reason": s.reason} for s in report.skipped],
    }
