"""The paragraph that ends a demo run: what it measured, in numbers from this run.

Figures are read from the one-second rows of the phases they describe (a bin counts
for a phase when it lies wholly inside it; the first second, the controller's cold
start, counts for none) and from the per-batch steps for the lowest rate and window.
A clause whose phase the run did not reach (a short or interrupted run) is left out.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from dsampler.cli.demo._timeline import SEARCH_TARGET, SPIKE_FACTOR
from dsampler.cli.demo._workload import Record, Row

WIDTH = 96


@dataclass(frozen=True, slots=True)
class Figures:
    """The measured numbers the summary states (None: the run did not reach that phase)."""

    search_before: float | None
    search_spike: float | None
    search_spike_max: int | None
    search_spike_offered: float | None
    search_spike_rate: float | None
    search_after: float | None
    search_latency: float | None
    search_rate_before_latency: float | None
    search_latency_rate: float | None
    window_spike: float | None
    window_latency: float | None
    checkout_before: float | None
    checkout_spike: float | None
    checkout_effective_before: float | None
    checkout_effective_after: float | None


def _bins(record: Record, index: int, keep: Callable[[int], bool]) -> list[Row]:
    return [rows[index] for rows in record.rows if rows[0].second > 1 and keep(rows[0].second)]


def _mean(rows: list[Row], field: str = "sampled") -> float | None:
    return sum(getattr(r, field) for r in rows) / len(rows) if rows else None


def _effective(rows: list[Row]) -> float | None:
    offered = sum(r.offered for r in rows)
    return sum(r.sampled for r in rows) / offered if offered else None


def _lowest(
    record: Record, span: tuple[float, float], pick: Callable[[tuple[float, ...], float | None], float | None]
) -> float | None:
    values = [pick(rates, window) for t, rates, window in record.steps if span[0] < t <= span[1]]
    present = [v for v in values if v is not None]
    return min(present) if present else None


def figures(record: Record) -> Figures:
    """The summary's numbers from ``record`` (service 0 is checkout, 1 is search)."""
    tl = record.timeline
    before = _bins(record, 1, lambda s: s <= tl.spike[0])
    spike = _bins(record, 1, lambda s: tl.inside(tl.spike, s))
    after = _bins(record, 1, lambda s: tl.inside((tl.spike[1], tl.latency[0]), s))
    latency = _bins(record, 1, lambda s: tl.inside(tl.latency, s))
    update = record.update
    written = update.written_at_s if update else tl.duration_s
    followed = update.followed_at_s if update and update.followed_at_s is not None else None
    return Figures(
        search_before=_mean(before),
        search_spike=_mean(spike),
        search_spike_max=max((r.sampled for r in spike), default=None),
        search_spike_offered=_mean(spike, "offered"),
        search_spike_rate=_lowest(record, tl.spike, lambda rates, w: rates[1]),
        search_after=_mean(after),
        search_latency=_mean(latency),
        search_rate_before_latency=after[-1].rate if after else None,
        search_latency_rate=_lowest(record, tl.latency, lambda rates, w: rates[1]),
        window_spike=_lowest(record, tl.spike, lambda rates, w: w),
        window_latency=_lowest(record, tl.latency, lambda rates, w: w),
        checkout_before=_mean(_bins(record, 0, lambda s: s <= tl.spike[0])),
        checkout_spike=_mean(_bins(record, 0, lambda s: tl.inside(tl.spike, s))),
        checkout_effective_before=_effective(_bins(record, 0, lambda s: s <= written)),
        checkout_effective_after=None
        if followed is None
        else _effective(_bins(record, 0, lambda s: s - 1 >= followed)),
    )


def _opening(record: Record) -> str:
    offered = sum(o for o, _, _ in record.spans.values())
    kept = sum(t for _, t, _ in record.spans.values())
    cpu = record.cpu_s / record.elapsed_s if record.elapsed_s > 0 else 0.0
    start = (
        f"Interrupted after {record.elapsed_s:.1f} s of {record.timeline.duration_s:g} s:"
        if record.interrupted
        else f"In {record.elapsed_s:.0f} s,"
    )
    return (
        f"{start} two services in this process started {offered:,} traces ({2 * offered:,} spans) "
        f"and sampled {kept:,}, using {cpu:.0%} of one CPU core."
    )


def _search(f: Figures) -> str | None:
    if f.search_before is None and f.search_spike is None:
        return None
    parts = [] if f.search_before is None else [f"{f.search_before:.1f}/s before the spike"]
    if f.search_spike is not None:
        parts.append(f"{f.search_spike:.1f}/s through the {SPIKE_FACTOR:g}x spike{_spike_detail(f)}")
    if f.search_after is not None:
        parts.append(f"{f.search_after:.1f}/s after it")
    budget = f"search held its budget of {SEARCH_TARGET:g} traces/s with the adaptive controller"
    return f"{budget}: {', '.join(parts)}."


def _spike_detail(f: Figures) -> str:
    if f.search_spike_offered is None or f.search_spike_rate is None or f.search_spike_max is None:
        return ""
    most = f.search_spike_max
    return (
        f" (offered {f.search_spike_offered:,.0f}/s, rate down to {f.search_spike_rate:.3g}; "
        f"largest one-second bin {most}, {most / SEARCH_TARGET:.2f}x the target)"
    )


def _window(record: Record, f: Figures) -> str | None:
    start = record.steps[0][2] if record.steps else None
    if start is None or f.window_spike is None:
        return None
    text = f"Its window shortened from {start:g} s to {f.window_spike:.1f} s at the spike"
    if f.window_latency is None or f.search_latency_rate is None or not f.search_rate_before_latency:
        return text + "."
    ratio = f.search_latency_rate / f.search_rate_before_latency
    text += (
        f" and to {f.window_latency:.1f} s in the latency episode, where the health policy took its rate "
        f"from {f.search_rate_before_latency:.3g} to {f.search_latency_rate:.3g} ({ratio:.2f}x)"
    )
    return text + ("." if f.search_latency is None else f": {f.search_latency:.1f} sampled/s.")


def _checkout(f: Figures) -> str | None:
    if f.checkout_before is None or f.checkout_spike is None:
        return None
    ratio = f" ({f.checkout_spike / f.checkout_before:.1f}x)" if f.checkout_before else ""
    return (
        f"checkout, at the fixed rate dsampler serve gives it, went from {f.checkout_before:.1f} to "
        f"{f.checkout_spike:.1f} sampled/s through the same spike{ratio}."
    )


def _update(record: Record, f: Figures) -> str | None:
    u = record.update
    if u is None:
        return None
    text = (
        f"The strategies file was rewritten at {u.written_at_s:.1f} s "
        f"(checkout {u.rate_before:g} -> {u.rate_after:g}); "
    )
    if u.followed_at_s is None:
        late = record.elapsed_s - u.written_at_s
        return text + f"checkout had not followed it when the run ended, {late:.1f} s later."
    text += (
        f"checkout decided under the new rate {u.followed_at_s - u.written_at_s:.2f} s later "
        f"(configuration version {u.version_before} -> {u.version_after})"
    )
    before, after = f.checkout_effective_before, f.checkout_effective_after
    if before is not None and after is not None:
        text += f", its measured rate {before:.3f} before and {after:.3f} after"
    return text + "."


def summary(record: Record) -> str:
    """One paragraph, wrapped to :data:`WIDTH` columns."""
    f = figures(record)
    sentences = [_opening(record), _search(f), _window(record, f), _checkout(f), _update(record, f)]
    if record.late_s > 0.5:
        sentences.append(
            f"The machine was busy: a batch ran up to {record.late_s:.1f} s late (its requests were "
            "served late, not dropped)."
        )
    return textwrap.fill(" ".join(s for s in sentences if s), WIDTH, break_on_hyphens=False)
