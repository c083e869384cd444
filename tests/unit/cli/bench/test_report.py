"""``dsampler bench``'s report and progress indicator, on made-up figures."""

from __future__ import annotations

import io
import json
import math

import pytest

from dsampler.cli.bench._harness import Case, Run, stats_of
from dsampler.cli.bench._progress import LineProgress, TerminalProgress, progress_for
from dsampler.cli.bench._report import Meta, Report, Result, results, table, to_json
from dsampler.cli.bench._rows import Group, Row, Skipped
from dsampler.cli.demo._table import LiveTable, PlainTable, table_for

GROUPS = [
    Group(
        "root",
        "root span title",
        (Case("ours", "dsampler X", int), Case("peer", "OTel Y", int), Case("wide", "dsampler W", int)),
        (
            Row("root", "steady", "ours", "peer", 0.5),
            Row("root", "wide spread", "wide", "peer"),
        ),
    )
]


def _meta(jit: str = "ready", rounds: int = 3) -> Meta:
    return Meta(
        dsampler="0.1.0",
        python="CPython 3.11.7",
        platform="Linux",
        cpus=2,
        load_average=(1.0, 0.5, 0.25),
        versions={"opentelemetry-sdk": "1.45.2", "jaeger-client": None},
        jit=jit,
        jit_wait_s=0.3,
        rounds=rounds,
        seconds=2.0,
        quick=True,
        loop_floor_ns=40.0,
    )


def _run(stopped_early: bool = False) -> Run:
    stats = {
        "ours": stats_of([100.0, 100.0, 100.0], 10),
        "peer": stats_of([400.0, 250.0, 200.0], 10),
        "wide": stats_of([100.0, 300.0, 900.0], 10),
    }
    return Run(stats, rounds=3, batch_s=0.01, elapsed_s=1.0, stopped_early=stopped_early)


def _report(**meta: str) -> Report:
    run = _run()
    return Report(_meta(**meta), GROUPS, [Skipped("jaeger", "not installed")], run, results(GROUPS, run))


def test_ratio_is_the_median_of_the_per_round_ratios() -> None:
    """Round r over round r: 100/400, 100/250, 100/200 -> median 0.4, quartiles 0.325 and 0.45."""
    steady = results(GROUPS, _run())[0]
    assert math.isclose(steady.ratio, 0.4)
    assert math.isclose(steady.ratio_q1, 0.325)
    assert math.isclose(steady.ratio_q3, 0.45)
    assert (steady.ours_impl, steady.peer_impl) == ("dsampler X", "OTel Y")


def test_a_row_meets_its_figure_or_says_it_has_none() -> None:
    """0.4 <= 0.5 is met; a row without a target answers None."""
    steady, wide = results(GROUPS, _run())
    assert steady.met is True
    assert wide.met is None
    missed = Result(Row("root", "slow", "a", "b", 0.5), "a", "b", steady.ours, steady.peer, 0.6, 0.5, 0.7)
    assert missed.met is False


def test_a_row_is_noisy_when_either_side_spreads_wide() -> None:
    """Both rows share a peer whose IQR is 100/250 = 40% of its median: both noisy."""
    steady, wide = results(GROUPS, _run())
    assert steady.peer.iqr_share > 0.15
    assert steady.noisy
    assert wide.noisy
    quiet = Result(GROUPS[0].rows[0], "a", "b", steady.ours, steady.ours, 1.0, 1.0, 1.0)
    assert not quiet.noisy


def test_table_shows_every_row_figure_and_skip() -> None:
    """Titles, labels, the ratio with its quartiles, the figure verdict and the skipped group."""
    text = "\n".join(table(_report()))
    assert "root span title" in text
    assert "steady" in text
    assert "wide spread" in text
    assert "0.40 [0.33-0.45]" in text
    assert "<= 0.5x: met" in text
    assert "skipped: jaeger: not installed" in text
    assert "target <= 0.5x (root): met by 1 of 1 rows" in text
    assert "WARNING" not in text


def test_table_warns_when_the_kernels_did_not_serve() -> None:
    """Figures for the pure-Python fallback are flagged as such."""
    assert "WARNING: the numba kernels are not serving" in "\n".join(table(_report(jit="loading")))


def test_table_says_when_the_budget_cut_the_rounds() -> None:
    """Fewer rounds than asked are reported, not hidden."""
    run = _run(stopped_early=True)
    report = Report(_meta(rounds=9), GROUPS, [], run, results(GROUPS, run))
    assert "the time budget ran out after 3 of 9 rounds" in "\n".join(table(report))


def test_json_is_plain_data_with_every_row_and_case() -> None:
    """The document survives a JSON round trip and names each row's cases and impls."""
    doc = json.loads(json.dumps(to_json(_report())))
    assert [r["case"] for r in doc["rows"]] == ["steady", "wide spread"]
    assert doc["rows"][0]["dsampler_case"] == "ours"
    assert doc["rows"][0]["peer"] == "OTel Y"
    assert doc["cases"]["peer"]["median_ns"] == 250.0
    assert doc["skipped"] == [{"group": "jaeger", "reason": "not installed"}]
    assert doc["clock"] == "thread_time"


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_plain_lines_off_a_terminal() -> None:
    """Without a terminal: no carriage returns, a line per quarter of a counted phase."""
    stream = io.StringIO()
    progress = progress_for(stream)
    assert isinstance(progress, LineProgress)
    progress.phase("building")
    for i in range(1, 101):
        progress.step("timing rounds", i, 100)
    progress.close()
    lines = stream.getvalue().splitlines()
    assert "\r" not in stream.getvalue()
    assert lines[0] == "dsampler bench: building"
    assert lines[-2:] == ["dsampler bench: timing rounds 100/100", "dsampler bench: done"]
    assert len(lines) <= 8


def test_progress_rewrites_one_line_on_a_terminal() -> None:
    """On a terminal every update returns the cursor and clears the line, then ends clean."""
    stream = FakeTty()
    progress = progress_for(stream)
    assert isinstance(progress, TerminalProgress)
    progress.step("timing rounds", 3, 10)
    progress.close()
    out = stream.getvalue()
    assert out.startswith("\r\x1b[K")
    assert "timing rounds 3/10" in out
    assert "\n" not in out


def closed_stream() -> io.StringIO:
    stream = io.StringIO()
    stream.close()  # isatty() raises ValueError
    return stream


@pytest.mark.parametrize("broken", [None, object(), closed_stream()])
def test_an_odd_stream_gets_plain_lines(broken: object) -> None:
    """A stream without a working isatty gets plain lines rather than an error, from
    dsampler bench's progress and dsampler demo's table alike; a terminal gets the live
    forms."""
    assert isinstance(progress_for(broken), LineProgress)  # type: ignore[arg-type]
    assert isinstance(table_for(broken), PlainTable)  # type: ignore[arg-type]
    assert isinstance(progress_for(FakeTty()), TerminalProgress)
    assert isinstance(table_for(FakeTty()), LiveTable)
