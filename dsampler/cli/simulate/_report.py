"""A simulated run as a table: one row per phase, one line per change of load, a summary.

Every figure keeps a bounded width whatever the scenario: a multiple of the target is
fixed point while that reads well and scientific beyond (a target of 1e-300/s makes
sampled/target 1.5e+302, which ``.2f`` wrote as 303 digits), and a range of rates is
written ``low..high`` (``1e-06-1`` read as one number).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from dsampler.cli.simulate import _analysis as analysis
from dsampler.cli.simulate._scenario import Phase
from dsampler.cli.simulate._simulation import Run


@dataclass(frozen=True, slots=True)
class Edge:
    """A phase boundary and how the controller took it."""

    at: float
    before: Phase
    after: Phase
    settle_s: float  # back within +-10% of T*
    max_bin: int  # largest realized 1-second bin from the edge to the next one

    def describe(self) -> str:
        """``1000 -> 10000 rps``, ``latency x1 -> x3``, or both."""
        was, now = self.before.qps_at(self.before.duration_s), self.after.qps
        parts = [f"{was:g} -> {now:g} rps"] if was != now else []
        if self.before.latency_factor != self.after.latency_factor:
            parts.append(f"latency x{self.before.latency_factor:g} -> x{self.after.latency_factor:g}")
        return ", ".join(parts) or "same load"


def edges(run: Run) -> list[Edge]:
    out = []
    bounds = [*run.scenario.edges(), run.scenario.duration_s]
    for at, until in itertools.pairwise(bounds):
        before, _ = run.scenario.phase_at(at - run.tick_s / 2)
        after, _ = run.scenario.phase_at(at + run.tick_s / 2)
        first, last = int(at), max(int(at) + 1, int(until))
        bins = analysis.bins(run)[first:last]
        settle = analysis.settle_time(run, at, until)
        out.append(Edge(at, before, after, settle, int(bins.max()) if bins.size else 0))
    return out


def _span(low: float, high: float, fmt: str) -> str:
    a, b = format(low, fmt), format(high, fmt)
    return a if a == b else f"{a}..{b}"


def _times(x: float, digits: int = 2) -> str:
    """``x`` (a multiple of the target) with ``digits`` decimals: fixed point from
    10**-digits to 1e5 (and 0), scientific outside."""
    if x == 0 or 10.0**-digits <= abs(x) < 1e5:
        return f"{x:.{digits}f}"
    return f"{x:.{digits}e}"


def _phase_rows(run: Run) -> list[str]:
    rows = []
    start = 0.0
    for n, phase in enumerate(run.scenario.phases, 1):
        i, j = round(start / run.tick_s), round((start + phase.duration_s) / run.tick_s)
        if j > i:
            offered = run.offered[i:j].sum() / ((j - i) * run.tick_s)
            sampled = run.admitted[i:j].sum() / ((j - i) * run.tick_s)
            changes = sum(start <= c.at < start + phase.duration_s for c in run.changes)
            rate = _span(run.rate[i:j].min(), run.rate[i:j].max(), ".4g")
            window = _span(run.window_s[i:j].min(), run.window_s[i:j].max(), ".1f")
            load = f"{phase.qps:g}" if phase.to_qps is None else f"{phase.qps:g}->{phase.to_qps:g}"
            rows.append(
                f"{n:>5}  {start:>7.0f}s  {load:>12}  {offered:>10.1f}  {sampled:>9.1f}  "
                f"{_times(sampled / run.target):>5}  {rate:>18}  {window:>9}  "
                f"{phase.latency_factor:>4g}  {changes:>4}"
            )
        start += phase.duration_s
    return rows


def render(run: Run) -> str:
    """The table ``dsampler simulate`` prints."""
    s = run.scenario
    title = f"{s.name}" + (f" ({s.description})" if s.description else "")
    lines = [
        f"scenario {title}: seed {run.seed}, target {run.target:g}/s, {s.duration_s:g} s, "
        f"tick {run.tick_s:g} s",
        "",
        "phase    start          qps   offered/s  sampled/s  x T                 rate   window s  lat.  vers",
        *_phase_rows(run),
        "",
    ]
    for e in edges(run):
        lines.append(
            f"at {e.at:g} s, {e.describe()}: within +-10% of target after "
            f"{e.settle_s:.1f} s, largest 1 s bin {e.max_bin} ({_times(e.max_bin / run.target)} T)"
        )
    bins = analysis.bins(run)
    estimate = analysis.estimate_errors(run, 60.0)
    worst = f"{abs(estimate).max():.1%}" if estimate.size else "n/a"
    core, per_second = run.core, run.admitted.sum() / s.duration_s
    lines += [
        f"sampled/s {per_second:.1f} ({_times(per_second / run.target, 3)} T); largest 1 s bin "
        f"{_times(bins.max() / run.target)} T; rate changes {len(run.changes)}; "
        f"load changes {core.regimes}; latency episodes {core.tail.episodes}",
        f"offered load estimated from the sampled traces (sum of 1/rate): worst minute {worst} off",
    ]
    return "\n".join(lines)
