"""Every error line a subcommand writes itself starts ``dsampler COMMAND: ``, as
argparse's usage errors and ``dsampler serve``'s lines always did: one prefix names the
command in a log that several write to. Exit codes stay 2 for invalid input."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from dsampler.cli._main import main
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
        (["demo", "--duration", "1"], "--duration: expected seconds in [5, 600], got 1.0"),
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


def test_serve_says_it_cannot_listen_in_the_same_form(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"dsampler serve: cannot listen on 127.0.0.1:{port}: "), line
