"""The demo's pure parts: its timeline, its strategies file and hot update, the summary it
states from a run's records, and the two forms of its table. The live run itself is
tested through the CLI (tests/integration/test_demo_cli.py)."""

from __future__ import annotations

import io
import json
from importlib import resources
from pathlib import Path

import pytest

from dsampler.cli.demo._services import STRATEGIES, Demo
from dsampler.cli.demo._summary import figures, summary
from dsampler.cli.demo._table import HEADER, LiveTable, PlainTable
from dsampler.cli.demo._timeline import CHECKOUT_UPDATE_RATE, SEARCH_TARGET, Timeline
from dsampler.cli.demo._workload import BATCH_S, Event, Record, Row, Update
from dsampler.protocol._strategy import ProbabilisticStrategy
from dsampler.serve._strategies import load_strategies


def test_the_timeline_puts_its_events_at_fixed_fractions_of_the_run() -> None:
    """45 s: spike 9-18 s, update at 22.5 s, latency 27-36 s; edges are half-open."""
    t = Timeline.for_duration(45.0)
    assert (t.spike, t.update_at_s, t.latency) == ((9.0, 18.0), 22.5, (27.0, 36.0))
    assert [t.load_factor(x) for x in (8.99, 9.0, 17.99, 18.0)] == [1.0, 10.0, 10.0, 1.0]
    assert [t.latency_factor(x) for x in (26.99, 27.0, 35.99, 36.0)] == [1.0, 3.0, 3.0, 1.0]
    assert [t.phase(s) for s in (9, 10, 18, 19, 28, 37)] == [
        "steady",
        "spike x10",
        "spike x10",
        "steady",
        "latency x3",
        "steady",
    ]
    assert t.inside(t.spike, 10)
    assert t.inside(t.spike, 18)
    assert not t.inside(t.spike, 9)
    assert not t.inside(t.spike, 19)


def _packaged() -> bytes:
    return resources.files("dsampler.cli.demo").joinpath(STRATEGIES).read_bytes()


def test_the_packaged_strategies_file_is_a_valid_jaeger_file_that_the_update_changes() -> None:
    """checkout starts at 0.1 in the shipped file, and the update asks for another rate."""
    strategies = load_strategies(_packaged(), STRATEGIES)
    assert strategies.services["checkout"].strategy == ProbabilisticStrategy(0.1)
    assert CHECKOUT_UPDATE_RATE != 0.1


def test_the_hot_update_replaces_the_file_whole(tmp_path: Path) -> None:
    """The rewrite changes checkout's rate only, through a rename: no temporary file stays."""
    demo = Demo(0)
    demo.strategies = tmp_path / STRATEGIES
    demo.strategies.write_bytes(_packaged())
    assert demo.hot_update() == (0.1, CHECKOUT_UPDATE_RATE)
    data = json.loads(demo.strategies.read_text(encoding="utf-8"))
    original = json.loads(_packaged())
    original["service_strategies"][0]["param"] = CHECKOUT_UPDATE_RATE
    assert data == original
    assert sorted(p.name for p in tmp_path.iterdir()) == [STRATEGIES]


def _record(seconds: int = 45, *, followed: bool = True) -> Record:
    """A run as the workload records it: search holds 50/s (52 in the spike, one bin of
    70), checkout samples 10% then 50% of 100/s (1,000/s in the spike)."""
    tl = Timeline.for_duration(45.0)
    record = Record(tl, 7, ("checkout", "search"))
    for s in range(1, seconds + 1):
        spike, after = tl.inside(tl.spike, s), s > 23
        c_offered = 1000 if spike else 100
        c_rate = 0.5 if after else 0.1
        s_sampled = (70 if s == 12 else 51) if spike else 50
        s_rate = 0.025 if spike else 0.25
        window = 3.0 if spike else 10.0
        record.rows.append(
            (
                Row(s, "checkout", c_offered, round(c_offered * c_rate), c_rate, None, 3 if after else 2),
                Row(s, "search", 2000 if spike else 200, s_sampled, s_rate, window, 10 + s),
            )
        )
        for b in range(round(1 / BATCH_S)):
            t = s - 1 + (b + 1) * BATCH_S
            latency = tl.latency[0] < t <= tl.latency[1]
            rate = 0.175 if latency and t > 28 else s_rate
            record.steps.append((t, (c_rate, rate), 3.0 if latency and t > 28 else window))
    record.update = Update(22.55, 0.1, 0.5, 2, 23.25 if followed else None, 3 if followed else None)
    record.elapsed_s, record.cpu_s = float(seconds), seconds * 0.2
    record.spans = {"checkout": (9000, 1200, 2400), "search": (27000, 2250, 4500)}
    return record


def test_the_summary_states_the_measured_figures_of_each_phase() -> None:
    """Every figure in the paragraph is read from the rows and steps of its phase."""
    f = figures(_record())
    assert f.search_before == 50.0
    assert f.search_after == 50.0
    assert f.search_spike == pytest.approx((8 * 51 + 70) / 9)
    assert (f.search_spike_max, f.search_spike_offered, f.search_spike_rate) == (70, 2000.0, 0.025)
    assert (f.window_spike, f.window_latency) == (3.0, 3.0)
    assert (f.search_rate_before_latency, f.search_latency_rate) == (0.25, 0.175)
    assert (f.checkout_before, f.checkout_spike) == (10.0, 100.0)
    assert (f.checkout_effective_before, f.checkout_effective_after) == (0.1, 0.5)
    text = summary(_record()).replace("\n", " ")
    assert "In 45 s, two services in this process started 36,000 traces (72,000 spans)" in text
    assert "sampled 3,450, using 20% of one CPU core." in text
    assert f"search held its budget of {SEARCH_TARGET:g} traces/s" in text
    assert "largest one-second bin 70, 1.40x the target" in text
    assert "Its window shortened from 10 s to 3.0 s at the spike" in text
    assert "from 0.25 to 0.175 (0.70x)" in text
    assert "went from 10.0 to 100.0 sampled/s through the same spike (10.0x)" in text
    assert "checkout decided under the new rate 0.70 s later (configuration version 2 -> 3)" in text
    assert "its measured rate 0.100 before and 0.500 after" in text
    assert max(map(len, summary(_record()).splitlines())) <= 96


def test_a_short_or_interrupted_run_states_only_what_it_reached() -> None:
    """No phase the run did not reach is described; an update not followed is said."""
    early = _record(3)
    early.interrupted, early.update = True, None
    text = summary(early).replace("\n", " ")
    assert text.startswith("Interrupted after 3.0 s of 45 s:")
    assert "50.0/s before the spike." in text
    assert "spike (" not in text
    assert "strategies file" not in text
    assert "checkout," not in text
    late = summary(_record(followed=False)).replace("\n", " ")
    assert "checkout had not followed it when the run ended, 22.4 s later." in late


def test_the_plain_table_appends_the_header_once_then_events_and_rows() -> None:
    """Each call writes only what is new: the header first, an event before its rows."""
    record, out = _record(2), io.StringIO()
    table = PlainTable(out)
    record.rows, rows = record.rows[:1], record.rows
    table.show(record)
    record.rows = rows
    record.events.append(Event(1.5, "load x10 (spike)"))
    table.show(record)
    lines = out.getvalue().splitlines()
    assert lines[0] == HEADER
    assert lines.count(HEADER) == 1
    assert lines[1].split()[:3] == ["1/45s", "steady", "checkout"]
    assert lines[3] == "   1.50s  -- load x10 (spike)"
    assert [line.split()[0] for line in lines[4:]] == ["2/45s", "2/45s"]
    assert "\x1b" not in out.getvalue()


def test_the_live_table_redraws_its_block_in_place() -> None:
    """The second frame moves the cursor up by the first one's height and clears each line."""
    record, out = _record(2), io.StringIO()
    table = LiveTable(out)
    table.show(record)
    first = out.getvalue()
    height = first.count("\n")
    table.show(record)
    second = out.getvalue()[len(first) :]
    assert first.startswith("\x1b[2K" + HEADER + "\n")
    assert second.startswith(f"\x1b[{height}F")
    assert second.count("\x1b[2K") == height
    assert "] 2/45 s  steady" in second


def test_a_metrics_column_with_nothing_collected_says_so() -> None:
    """Before any collection has data (a run interrupted at once), every gauge reads "-"
    and every counter 0: the report never fails for want of a data point. Points of
    another sampler are not this one's."""
    from dsampler import DSampler
    from dsampler.cli.demo._metrics import _column
    from dsampler.cli.demo._services import Instrumented
    from dsampler.cli.demo._timeline import services

    sampler = DSampler(rate=0.1, resource={})
    service = Instrumented(services()[1], sampler, sampler.engine, seed=0)
    assert service.sampler_id != ""  # the engine is what telemetry numbers
    other = "0" if service.sampler_id != "0" else "-1"
    for points in ([], [("dsampler.config.version", {"dsampler.sampler": other}, 7.0)]):
        cells = _column(points, service)
        assert cells["dsampler.config.version"] == "-"
        assert cells["dsampler.controller.window"] == "-"
        assert cells["dsampler.remote.fetches (applied/unchanged/failed)"] == "-"
        assert cells["dsampler.decisions, sampled"] == "0"
        assert cells["  spans the provider recorded"] == "0"
    version = [("dsampler.config.version", {"dsampler.sampler": service.sampler_id}, 7.0)]
    assert _column(version, service)["dsampler.config.version"] == "7"
    service.provider.shutdown()
    sampler.close()
