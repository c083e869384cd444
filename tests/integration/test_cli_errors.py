"""Every error line a subcommand writes itself starts ``dsampler COMMAND: ``, as
argparse's usage errors and ``dsampler serve``'s lines always did: one prefix names the
command in a log that several write to. Exit codes stay 2 for invalid input."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from dsampler._validate import show
from dsampler.cli._main import main
from dsampler.errors import ConfigError
from tests.conftest import REPO

CONFIG = str(REPO / "examples" / "configs" / "minimal.json")
EXPLAIN = ["explain", "--config", CONFIG, "--name", "GET /"]


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["check", "missing.yaml"], "missing.yaml: cannot read the file: No such file or directory"),
        (["check", "-", "-"], "<stdin>: given more than once; standard input can be read once"),
        ([*EXPLAIN, "--trace-id", "1", "--kind", "3"], "--kind: expected one of internal, server, client"),
        ([*EXPLAIN, "--traceparent", "garbage"], "--traceparent: expected version-traceid-parentid-flags"),
        (
            ["explain", "--config", "missing.yaml", "--name", "x", "--trace-id", "1"],
            "missing.yaml: cannot read",
        ),
        (["simulate", "--scenario", "steady", "--seed", "x"], "--seed: expected an integer in [0, "),
        (["simulate", "--scenario", "no-such-scenario"], "--scenario: expected one of steady, spike"),
        (
            ["simulate", "--accuracy", "--ids", "5"],
            "--ids: expected an integer in [1000, 100000000], got 5",
        ),
        (["bench", "--rounds", "0"], "--rounds: expected an integer in [1, 1000], got 0"),
        (["bench", "--plot", ""], "--plot: expected the path of a PNG file to write, got ''"),
        (["demo", "--duration", "1"], "--duration: expected seconds in [5, 600], got '1'"),
        (["demo", "--plot", "/nonexistent/dir/x.png"], "--plot: no such directory: '/nonexistent/dir'"),
        (["serve", "--reload-interval", "soon"], "--reload-interval: expected a duration such as 10s"),
        (["serve", "--strategies", "missing.json"], "missing.json: cannot read"),
    ],
)
def test_each_commands_error_line_names_the_command(
    argv: list[str],
    line: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert lines, argv
    assert lines[0].startswith(f"dsampler {argv[0]}: {line}"), lines
    assert all(each.startswith(f"dsampler {argv[0]}: ") for each in lines), lines
    assert captured.out == ""


PLOTTING = [
    ["simulate", "--scenario", "latency"],
    ["simulate", "--accuracy", "--ids", "1000"],
    ["bench", "--quick", "--rounds", "1", "--seconds", "0.1"],
    ["demo", "--duration", "5"],
]
UNWRITABLE = {
    # a directory anyone may "write" by its mode (root included) where no file can be made
    "proc": ("/proc/dsampler-plot.png", "No such file or directory"),
    "name-too-long": ("x" * 300 + ".png", "File name too long"),
}


@pytest.mark.parametrize("where", list(UNWRITABLE))
@pytest.mark.parametrize("argv", PLOTTING, ids=lambda argv: "-".join(argv[:2]))
def test_an_unwritable_plot_is_refused_before_the_work(
    argv: list[str],
    where: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """--plot to a path whose directory looks writable but where the file cannot be
    made: one line naming --plot and the system's reason, exit 2, and nothing of the
    run (no table, no progress): the file is tried, not the directory's mode."""
    path, reason = UNWRITABLE[where]
    if where == "proc" and not Path("/proc/self").is_dir():
        pytest.skip("no /proc here")
    monkeypatch.chdir(tmp_path)
    assert main([*argv, "--plot", path]) == 2
    captured = capsys.readouterr()
    command = argv[0]
    assert captured.err.splitlines() == [f"dsampler {command}: --plot: cannot write {show(path)}: {reason}"]
    assert captured.out == ""
    assert list(tmp_path.iterdir()) == []


def test_a_plot_path_tried_before_the_work_is_left_as_it_was(tmp_path: Path) -> None:
    """The try leaves no file behind where there was none, and an existing file's bytes
    as they were (until the run writes it)."""
    from dsampler.cli._plotting import plot_path

    fresh, existing = tmp_path / "new.png", tmp_path / "old.png"
    existing.write_bytes(b"before")
    assert plot_path(str(fresh)) == fresh
    assert not fresh.exists()
    assert plot_path(str(existing)) == existing
    assert existing.read_bytes() == b"before"
    dangling = tmp_path / "link.png"
    dangling.symlink_to(tmp_path / "elsewhere" / "target.png")
    with pytest.raises(ConfigError, match="cannot write"):  # its target's directory is missing
        plot_path(str(dangling))
    assert dangling.is_symlink()


def test_serve_says_it_cannot_listen_in_the_same_form(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"dsampler serve: cannot listen on 127.0.0.1:{port}: "), line
