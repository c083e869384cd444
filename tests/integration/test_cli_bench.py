"""``dsampler bench`` through the real entry point: rows, JSON, PNG, missing extras, bad options.

The runs are the shortest the command allows (``--quick --rounds 1 --seconds 0.2``): these
tests check what is printed, never how fast anything was.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from dsampler.cli._main import main
from dsampler.cli._plotting import MISSING
from dsampler.cli.bench import _rows as rows
from dsampler.cli.bench import _suite
from tests.conftest import REPO

pytestmark = pytest.mark.slow

SHORT = ("bench", "--quick", "--rounds", "1", "--seconds", "0.2")
DOC = (REPO / "docs" / "cli-bench.md").read_text(encoding="utf-8")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
RATIO = r"\d+\.\d\d \[\d+\.\d\d-\d+\.\d\d\]"
# Runs the command with some modules made unimportable, as on a machine without the extra.
HIDING = "import sys\nfor name in sys.argv[1].split(','):\n    sys.modules[name] = None\n" + (
    "from dsampler.cli import main\nsys.exit(main(sys.argv[2:]))\n"
)


def run(
    *args: str, hide: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    prefix = ["-c", HIDING, hide] if hide else ["-m", "dsampler"]
    return subprocess.run(
        [sys.executable, *prefix, *args],
        cwd=REPO,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def _groups() -> list[rows.Group]:
    with ExitStack() as stack:
        groups, _ = _suite.build(stack)
    return groups


def _rows() -> list[rows.Row]:
    return [row for group in _groups() for row in group.rows]


@pytest.fixture(scope="module")
def table_run() -> subprocess.CompletedProcess[str]:
    return run(*SHORT)


@pytest.fixture(scope="module")
def json_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    png = tmp_path_factory.mktemp("bench") / "bench.png"
    proc = run(*SHORT, "--json", "--plot", str(png))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), png


def test_quick_run_prints_every_row_with_its_ratio(table_run: subprocess.CompletedProcess[str]) -> None:
    """Exit 0, and under each group's title each of its rows is a line with both figures and a ratio."""
    assert table_run.returncode == 0, table_run.stderr
    for group in _groups():
        section = table_run.stdout.split(f"\n{group.title}\n", 1)[1].split("\n\n", 1)[0]
        lines = section.splitlines()[1:]  # below the column headings
        assert len(lines) == len(group.rows)
        for row, line in zip(group.rows, lines, strict=True):
            assert line.startswith(f"  {row.label} "), line
            assert len(re.findall(r"\d (ns|us) \+- ?\d+%", line)) == 2, line
            assert re.search(RATIO, line), line
            if row.figure is not None:
                assert re.search(rf"<= {row.figure:.1f}x: (met|NOT MET)$", line), line


def test_quick_run_reports_the_kernels_and_the_figures(table_run: subprocess.CompletedProcess[str]) -> None:
    """The kernel state is named and the 0.5x target gets its summary line."""
    assert (
        f"numba kernels: {'ready' if importlib.util.find_spec('numba') else 'unavailable'}"
        in table_run.stdout
    )
    assert re.search(r"target <= 0\.5x \(root, child\): met by \d of 6 rows", table_run.stdout)
    assert "skipped:" not in table_run.stdout  # jaeger-client is a dev dependency


def test_progress_goes_to_stderr_as_plain_lines(table_run: subprocess.CompletedProcess[str]) -> None:
    """stderr is not a terminal here: plain lines, no carriage returns, nothing on stdout."""
    assert "\r" not in table_run.stderr
    progress = table_run.stderr.splitlines()
    assert progress[0] == "dsampler bench: building the cases"
    assert "dsampler bench: timing rounds 1/1" in progress
    assert progress[-1] == "dsampler bench: done"
    assert "dsampler bench:" not in table_run.stdout


def _documented(section: str) -> set[str]:
    """Backticked keys in the first column of the docs table under ``section``."""
    block = DOC.split(section, 1)[1].split("\n\n", 2)[1]
    return set(re.findall(r"^\| `([a-z_0-9]+)`", block, flags=re.M))


def test_json_has_the_documented_keys(json_run: tuple[dict[str, Any], Path]) -> None:
    """Top-level, row and case keys are exactly those docs/cli-bench.md lists."""
    doc, _ = json_run
    assert set(doc) == _documented("Top-level keys:")
    assert all(set(row) == _documented("Each of `rows`:") for row in doc["rows"])
    assert all(set(case) == _documented("Each of `cases`:") for case in doc["cases"].values())


def test_json_rows_match_the_suite_and_point_at_timed_cases(json_run: tuple[dict[str, Any], Path]) -> None:
    """One row per suite row, in order, each naming two cases the document holds."""
    doc, _ = json_run
    assert [r["case"] for r in doc["rows"]] == [row.label for row in _rows()]
    assert doc["rounds"] == 1
    assert doc["settings"] == {"rounds": 1, "seconds": 0.2, "quick": True}
    # the compiled kernels where numba (the jit extra) is installed, else pure Python
    assert doc["jit"] == ("ready" if importlib.util.find_spec("numba") else "unavailable")
    assert doc["skipped"] == []
    for row in doc["rows"]:
        assert row["dsampler_case"] in doc["cases"]
        assert row["peer_case"] in doc["cases"]
        assert row["dsampler_ns"] > 0
        assert row["peer_ns"] > 0
        assert row["ratio"] > 0
        assert row["met"] is (None if row["figure"] is None else row["ratio"] <= row["figure"])


def test_plot_writes_a_png(json_run: tuple[dict[str, Any], Path]) -> None:
    """--plot leaves a non-empty file that starts with the PNG signature."""
    _, png = json_run
    data = png.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert len(data) > len(PNG_SIGNATURE)


def test_plot_without_matplotlib_exits_2_before_timing(tmp_path: Path) -> None:
    """Without the plot extra: exit 2, a message naming --plot and the extra, no report."""
    proc = run(*SHORT, "--plot", str(tmp_path / "x.png"), hide="matplotlib")
    assert proc.returncode == 2
    assert proc.stderr.strip() == "dsampler bench: --plot: " + MISSING
    assert proc.stdout == ""
    assert not (tmp_path / "x.png").exists()


def test_without_jaeger_client_its_rows_are_skipped_with_a_note() -> None:
    """jaeger-client missing: exit 0, no jaeger rows, a skipped entry saying how to get them."""
    proc = run(*SHORT, "--json", hide="jaeger_client")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert [s["group"] for s in doc["skipped"]] == ["jaeger"]
    assert "pip install jaeger-client six" in doc["skipped"][0]["reason"]
    assert not [r for r in doc["rows"] if r["group"] == "jaeger"]
    assert {r["group"] for r in doc["rows"]} == {"root", "child", "rules", "ratelimit", "spans"}


def test_without_the_kernels_the_report_says_its_figures_are_the_fallback() -> None:
    """DSAMPLER_JIT=0: the run completes and warns that the pure-Python path was timed."""
    proc = run(*SHORT, env={"DSAMPLER_JIT": "0"})
    assert proc.returncode == 0, proc.stderr
    assert "numba kernels: unavailable" in proc.stdout
    assert "WARNING: the numba kernels are not serving" in proc.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rounds", "0"], "--rounds: expected an integer in [1, 1000], got 0"),
        (["--rounds", "-1"], "--rounds: expected an integer in [1, 1000], got -1"),
        (["--rounds", "abc"], "--rounds: expected an integer in [1, 1000], got 'abc'"),
        (["--rounds", "2.5"], "--rounds: expected an integer in [1, 1000], got '2.5'"),
        (["--rounds", "1001"], "--rounds: expected an integer in [1, 1000], got 1001"),
        (["--seconds", "1e9"], "--seconds: expected seconds in [0.1, 600], got '1e9'"),
        (["--seconds", "nan"], "--seconds: expected seconds in [0.1, 600], got NaN"),
        (["--seconds", "inf"], "--seconds: expected seconds in [0.1, 600], got 'inf'"),
        (["--seconds", "0"], "--seconds: expected seconds in [0.1, 600], got '0'"),
        (["--seconds", "ten"], "--seconds: expected seconds in [0.1, 600], got 'ten'"),
        (["--plot", "/nonexistent/dir/x.png"], "--plot: no such directory: '/nonexistent/dir'"),
        (["--plot", ""], "--plot: expected the path of a PNG file to write, got ''"),
    ],
)
def test_bad_options_exit_2_naming_the_option(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each bad value is refused before any timing, with one line that names the option."""
    assert main(["bench", *args]) == 2
    out, err = capsys.readouterr()
    assert err.splitlines() == [f"dsampler bench: {message}"]
    assert out == ""


def test_plot_into_a_directory_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A directory is not a PNG path."""
    assert main(["bench", "--plot", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith(
        "dsampler bench: --plot: expected the path of a PNG file to write, got "
    )


def test_bad_options_exit_2_from_the_command_line() -> None:
    """The installed entry point gives the same exit code and message as main()."""
    proc = run("bench", "--rounds", "abc")
    assert proc.returncode == 2
    assert proc.stderr.strip() == "dsampler bench: --rounds: expected an integer in [1, 1000], got 'abc'"
