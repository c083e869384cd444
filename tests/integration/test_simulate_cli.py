"""``dsampler simulate``: table, plot, scenario files, and refusals with exit code 2."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dsampler.cli import main
from dsampler.cli._plotting import MISSING

REPO = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"


def test_built_in_scenario_prints_phases_edges_and_a_summary(capsys: Any) -> None:
    """The spike: one row per phase, one line per edge with its settle time, a summary;
    the same seed prints the same table."""
    assert main(["simulate", "--scenario", "spike", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("scenario spike (1k -> 10k -> 1k rps): seed 4, target 50/s, 360 s")
    assert "at 120 s, 1000 -> 10000 rps: within +-10% of target after" in out
    assert "at 240 s, 10000 -> 1000 rps: within +-10% of target after" in out
    assert "rate changes" in out
    assert "offered load estimated from the sampled traces" in out
    assert main(["simulate", "--scenario", "spike", "--seed", "4"]) == 0
    assert capsys.readouterr().out == out


@pytest.mark.parametrize("target", ["1e-300", "1e-12", "1e6"])
def test_extreme_targets_print_figures_of_bounded_width(target: str, capsys: Any) -> None:
    """A target far from the load makes sampled/target huge or tiny: each multiple of
    the target is written scientific (not 300 digits, not 0.00), the table keeps its
    width, and a range of rates reads as a range."""
    assert main(["simulate", "--scenario", "steady", "--target", target]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) < 140, out
    row = out.splitlines()[3].split()
    assert re.fullmatch(r"\d\.\d\de[+-]\d+", row[5]), row  # the x T column
    assert re.fullmatch(r"[0-9.e+-]+(\.\.[0-9.e+-]+)?", row[6]), row  # the rate (range)
    summary = r"\((\d\.\d{3}e[+-]\d+|0\.00\d) T\); largest 1 s bin \d\.\d\de[+-]\d+ T;"
    assert re.search(summary, out), out


def test_plot_writes_a_png_of_a_scenario_file(tmp_path: Path, capsys: Any) -> None:
    """A user's scenario file runs, and --plot writes a PNG; --target overrides."""
    scenario = tmp_path / "mine.json"
    scenario.write_text(
        json.dumps({"phases": [{"duration": "20s", "qps": 300}, {"duration": "20s", "qps": 3000}]})
    )
    png = tmp_path / "out.png"
    assert main(["simulate", "--scenario", str(scenario), "--plot", str(png), "--target", "20"]) == 0
    out = capsys.readouterr().out
    assert "scenario mine: seed 0, target 20/s" in out
    assert f"plot: {png}" in out
    assert png.read_bytes().startswith(PNG)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--scenario", "spiky"],
            "--scenario: expected one of steady, spike, ramp, latency, square or a file",
        ),
        (["--scenario", "spike", "--seed", "-1"], "--seed: expected an integer"),
        (["--scenario", "spike", "--seed", "9" * 40], "--seed: expected an integer"),
        (["--scenario", "spike", "--target", "0"], "--target: expected traces per second"),
        (["--scenario", "spike", "--target", "many"], "--target: expected traces per second"),
    ],
)
def test_bad_arguments_exit_2_naming_the_option(args: list[str], message: str, capsys: Any) -> None:
    """A bad option value: exit 2, one line naming the option, nothing on stdout."""
    assert main(["simulate", *args]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"dsampler simulate: {message}")
    assert captured.out == ""


def test_a_broken_scenario_file_exits_2_naming_the_field(tmp_path: Path, capsys: Any) -> None:
    """The file's problem is named by file and field path."""
    scenario = tmp_path / "bad.json"
    scenario.write_text(json.dumps({"phases": [{"duration": "10s", "qps": -5}]}))
    assert main(["simulate", "--scenario", str(scenario)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dsampler simulate: {scenario}: phases[0].qps: expected a number in [0, 1e+07]")


def test_an_unwritable_plot_path_exits_2(tmp_path: Path, capsys: Any) -> None:
    """--plot into a directory that does not exist: refused before the run."""
    assert main(["simulate", "--scenario", "latency", "--plot", str(tmp_path / "no" / "p.png")]) == 2
    captured = capsys.readouterr()
    assert "--plot: no such directory" in captured.err
    assert captured.out == ""


@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_a_plot_path_that_is_not_a_file_is_refused_before_the_run(
    tmp_path: Path, kind: str, capsys: Any
) -> None:
    """--plot naming a directory or a FIFO: refused at once, not a plot written beside it
    (matplotlib adds ".png" to a name without a suffix) nor a write that blocks."""
    import os

    target = tmp_path / "out"
    target.mkdir() if kind == "directory" else os.mkfifo(target)
    assert main(["simulate", "--scenario", "latency", "--plot", str(target)]) == 2
    captured = capsys.readouterr()
    assert "--plot: expected the path of a PNG file to write" in captured.err
    assert captured.out == ""
    assert not (tmp_path / "out.png").exists()


@pytest.mark.parametrize("name", ["plot", "plot.txt"])
def test_the_plot_is_written_at_the_path_given(tmp_path: Path, name: str, capsys: Any) -> None:
    """The PNG goes to the path given, whatever its suffix: not to plot.png beside a
    name without one, and not an internal error after the run for an unknown suffix."""
    path = tmp_path / name
    assert main(["simulate", "--scenario", "latency", "--plot", str(path)]) == 0
    assert f"plot: {path}" in capsys.readouterr().out
    assert path.read_bytes().startswith(PNG)
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_missing_matplotlib_is_said_before_running(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """Without the plot extra, --plot fails at once with how to install it."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert main(["simulate", "--scenario", "spike", "--plot", "x.png"]) == 2
    captured = capsys.readouterr()
    assert captured.err == "dsampler simulate: --plot: " + MISSING + "\n"
    assert captured.out == ""


def test_the_installed_command_runs_a_scenario() -> None:
    """``python -m dsampler simulate`` in a fresh process."""
    proc = subprocess.run(
        [sys.executable, "-m", "dsampler", "simulate", "--scenario", "latency", "--seed", "1"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "latency episodes 1" in proc.stdout


def test_docs_show_every_built_in_scenarios_plot_and_valid_config(tmp_path: Path) -> None:
    """docs/adaptive.md shows the committed PNG of each built-in scenario, and its YAML
    configuration passes dsampler check."""
    from dsampler.cli.simulate import BUILTIN_SCENARIOS

    doc = (REPO / "docs" / "adaptive.md").read_text(encoding="utf-8")
    for name in BUILTIN_SCENARIOS:
        assert f"(img/adaptive-{name}.png)" in doc
        assert (REPO / "docs" / "img" / f"adaptive-{name}.png").read_bytes().startswith(PNG)
    blocks = re.findall(r"```yaml\n(.*?)```", doc, flags=re.S)
    assert blocks
    paths = []
    for i, block in enumerate(blocks):
        path = tmp_path / f"adaptive-{i}.yaml"
        path.write_text(block, encoding="utf-8")
        paths.append(str(path))
    assert main(["check", *paths]) == 0


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        (  # 21.6 million ticks: minutes of Python and gigabytes of rows
            {"adaptive": {"tick": "1ms"}, "phases": [{"duration": "6h", "qps": 10}]},
            "adaptive.tick: expected at most 1,000,000 ticks",
        ),
        (  # every one of 2e11 requests observed: days
            {"observe": "all", "phases": [{"duration": "6h", "qps": 1e7}]},
            "observe: expected at most 50,000,000 traces to simulate",
        ),
        (  # a target no rate can hold back: every request sampled, for days
            {"target_traces_per_second": 1e8, "phases": [{"duration": "6h", "qps": 1e7}]},
            "target_traces_per_second: expected at most 50,000,000 traces to simulate",
        ),
        (  # a floor under the rate that samples every request: the target does not count
            {"adaptive": {"min_rate": 1}, "phases": [{"duration": "6h", "qps": 1e7}]},
            "adaptive.min_rate: expected at most 50,000,000 traces to simulate",
        ),
        (  # the same floor at a tenth, for a minute: still an hour of Python
            {"adaptive": {"min_rate": 0.1}, "phases": [{"duration": "1m", "qps": 1e7}]},
            "adaptive.min_rate: expected at most 50,000,000 traces to simulate, got about 6.1e+07",
        ),
    ],
)
def test_a_scenario_too_large_to_simulate_exits_2_at_once(
    tmp_path: Path, scenario: dict[str, Any], message: str
) -> None:
    """Each phase within its bounds, but the run would take hours of CPU (or gigabytes):
    refused before it starts, naming the field, instead of hanging."""
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(scenario))
    out = subprocess.run(
        [sys.executable, "-m", "dsampler", "simulate", "--scenario", str(path)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert out.returncode == 2, out.stderr
    (line,) = out.stderr.splitlines()
    assert line.startswith(f"dsampler simulate: {path}: {message}"), line
    assert line.endswith("--no-limit (bounded=False) to run it anyway"), line
    assert out.stdout == ""


def test_accuracy_over_its_bound_of_ids_exits_2_at_once_naming_the_way_past() -> None:
    """--ids 20,000,000: 140 cells of it would take minutes and gigabytes (the IDs of a
    family are held at once); one line, and --no-limit named. 100,000,000 stays the most."""
    out = subprocess.run(
        [sys.executable, "-m", "dsampler", "simulate", "--accuracy", "--ids", "20000000"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert out.returncode == 2
    assert out.stderr.splitlines() == [
        "dsampler simulate: --ids: expected at most 10,000,000 trace IDs per cell (140 cells: about 10 s "
        "and 500 MB at that), got 20,000,000; --no-limit to run it anyway"
    ]
    assert out.stdout == ""
    assert main(["simulate", "--accuracy", "--no-limit", "--ids", str(10**8 + 1)]) == 2


def test_without_numpy_simulate_names_the_extra_to_install() -> None:
    """Where numpy is not installed, simulate says which extra brings it and exits 2."""
    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "from dsampler.cli._main import main\n"
        "sys.exit(main(['simulate', '--scenario', 'steady']))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "dsampler simulate: needs numpy, which the jit extra brings: pip install 'dsampler[jit]'"
    )
