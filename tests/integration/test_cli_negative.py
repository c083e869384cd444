"""A negative-looking value (``--reload-interval -1s``, ``--target -1e3``) reaches the
flag's own validation, which says what is allowed, as ``--flag=-1s`` always did;
argparse alone took it for an unknown option ("expected one argument"). No flag has
argparse's ``type=``: every number is parsed by our validators, so ``--port abc`` is
refused in one line naming the range, like every other value, not with argparse's
"invalid int value" and the usage text."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator

import pytest

from dsampler.cli._main import build_parser, main

NEGATIVES = ["-1", "-.5", "-1s", "-5m", "-1e3", "-1E-3", "-1_000", "-0x1", "-inf", "-Infinity", "-nan"]
#: What each subcommand needs besides the flag under test to parse at all.
REQUIRED = {"check": ["FILE"], "explain": ["--config", "c.yaml", "--name", "op"], "simulate": ["--accuracy"]}


def actions() -> Iterator[tuple[str, argparse.Action]]:
    """(subcommand, action) for every argument of every subcommand, positionals too."""
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in commands.choices.items():
        for action in sub._actions:
            yield name, action


def value_flags() -> Iterator[tuple[str, str]]:
    """(subcommand, flag) for every option of every subcommand that takes one value."""
    return ((name, a.option_strings[0]) for name, a in actions() if a.option_strings and a.nargs is None)


FLAGS = sorted(value_flags())
#: The flags that take a number (or a duration, or a trace ID); the rest take text.
NUMERIC = [
    ("bench", "--rounds"),
    ("bench", "--seconds"),
    ("demo", "--duration"),
    ("demo", "--seed"),
    ("explain", "--trace-id"),
    ("serve", "--default-sampling-probability"),
    ("serve", "--grpc-port"),
    ("serve", "--max-connections"),
    ("serve", "--port"),
    ("serve", "--reload-interval"),
    ("simulate", "--ids"),
    ("simulate", "--seed"),
    ("simulate", "--target"),
]
TEXT = {
    ("bench", "--plot"),
    ("demo", "--plot"),
    ("explain", "--attr"),
    ("explain", "--config"),
    ("explain", "--kind"),
    ("explain", "--name"),
    ("explain", "--resource"),
    ("explain", "--traceparent"),
    ("serve", "--dialect"),
    ("serve", "--format"),
    ("serve", "--host"),
    ("serve", "--strategies"),
    ("simulate", "--plot"),
    ("simulate", "--scenario"),
}
#: No number at all, a negative one, one that overflows a float, nothing: wrong for each.
NOT_NUMBERS = ["x", "-1e3", "1.5e999", ""]


def parsed(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The namespace argparse makes of ``argv``, or its complaint."""
    try:
        return repr(sorted(vars(build_parser().parse_args(argv)).items()))
    except SystemExit as exc:
        return f"exit {exc.code}: {capsys.readouterr().err.splitlines()[-1]}"


def test_every_value_flag_is_found() -> None:
    found = set(FLAGS)
    assert {("serve", "--reload-interval"), ("simulate", "--target"), ("bench", "--seconds")} <= found
    assert {("demo", "--duration"), ("explain", "--trace-id"), ("serve", "--port")} <= found
    assert len(found) >= 20


def test_every_value_flag_is_numeric_or_text_and_none_has_an_argparse_type() -> None:
    assert set(NUMERIC) | TEXT == set(FLAGS)
    assert not set(NUMERIC) & TEXT
    assert [(name, a.option_strings) for name, a in actions() if a.type] == []


REFUSE = """
import json, sys
from dsampler.cli._main import main
results = []
for argv in json.loads(sys.argv[1]):
    code = main(argv)
    sys.stderr.write("\\0")
    results.append(code)
print(json.dumps(results))
"""


@pytest.mark.parametrize(("command", "flag"), NUMERIC)
def test_a_value_that_is_no_number_is_refused_in_our_own_one_line(command: str, flag: str) -> None:
    """Each numeric flag, given what no number flag accepts: exit 2 and one line naming
    the command and the flag, ``dsampler serve: --port: expected an integer in [0,
    65535], got 'x'``. In a child process, so that a value wrongly accepted (a server
    that would serve) is a failure at the timeout, not a hang."""
    prefix = ["--scenario", "steady"] if flag == "--target" else REQUIRED.get(command, [])  # not --accuracy's
    argvs = [[command, *prefix, f"{flag}={value}"] for value in NOT_NUMBERS]
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(REFUSE), json.dumps(argvs)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [2] * len(NOT_NUMBERS), proc.stderr
    for value, err in zip(NOT_NUMBERS, proc.stderr.split("\0")[:-1], strict=True):
        assert err.splitlines() == [err.rstrip("\n")], (value, err)
        assert err.startswith(f"dsampler {command}: {flag}: expected "), (value, err)
        assert "usage:" not in err


@pytest.mark.parametrize(("command", "flag"), FLAGS)
def test_a_negative_value_parses_as_with_an_equals_sign(
    command: str, flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    prefix = [] if flag == "--scenario" else REQUIRED.get(command, [])
    for value in NEGATIVES:
        spaced = parsed([command, *prefix, flag, value], capsys)
        joined = parsed([command, *prefix, f"{flag}={value}"], capsys)
        assert spaced == joined, value
        assert "expected one argument" not in spaced, value


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["serve", "--reload-interval", "-1s"],
            "dsampler serve: --reload-interval: expected a duration such as 10s, 250ms or 1h30m, "
            "not a negative one, got '-1s' (default 1s; 0 never reloads)",
        ),
        (["serve", "--port", "-1"], "dsampler serve: --port: expected an integer in [0, 65535], got -1"),
        (
            ["serve", "--port", "-1e3"],
            "dsampler serve: --port: expected an integer in [0, 65535], got '-1e3'",
        ),
        (["serve", "--port", "abc"], "dsampler serve: --port: expected an integer in [0, 65535], got 'abc'"),
        (
            ["serve", "--port", "65536"],
            "dsampler serve: --port: expected an integer in [0, 65535], got 65536",
        ),
        (
            ["serve", "--grpc-port", "-1e3"],
            "dsampler serve: --grpc-port: expected an integer in [0, 65535], got '-1e3'",
        ),
        (
            ["serve", "--max-connections", "1.5"],
            "dsampler serve: --max-connections: expected an integer in [1, 100000], got '1.5'",
        ),
        (
            ["serve", "--default-sampling-probability", "often"],
            "dsampler serve: --default-sampling-probability: expected a number in [0, 1], got 'often'",
        ),
        (
            ["serve", "--max-connections", "-5"],
            "dsampler serve: --max-connections: expected an integer in [1, 100000], got -5",
        ),
        (
            ["serve", "--default-sampling-probability", "-1e-3"],
            "dsampler serve: --default-sampling-probability: expected a number in [0, 1], got '-1e-3'",
        ),
        (
            ["simulate", "--scenario", "steady", "--target", "-1e3"],
            "dsampler simulate: --target: expected traces per second in (0, 1000000], got '-1e3'",
        ),
        (
            ["simulate", "--scenario", "steady", "--seed", "-1e2"],
            "dsampler simulate: --seed: expected an integer in [0, 9223372036854775807], got '-1e2'",
        ),
        (
            ["simulate", "--accuracy", "--ids", "-5e3"],
            "dsampler simulate: --ids: expected an integer in [1000, 100000000], got '-5e3'",
        ),
        (
            ["bench", "--rounds", "-1e2"],
            "dsampler bench: --rounds: expected an integer in [1, 1000], got '-1e2'",
        ),
        (
            ["bench", "--seconds", "-1s"],
            "dsampler bench: --seconds: expected seconds in [0.1, 600], got '-1s'",
        ),
        (
            ["demo", "--duration", "-1e2"],
            "dsampler demo: --duration: expected seconds in [5, 600], got '-1e2'",
        ),
        (
            ["demo", "--seed", "-inf"],
            "dsampler demo: --seed: expected an integer in [0, 9223372036854775807], got '-inf'",
        ),
        (
            ["explain", "--config", "examples/configs/minimal.json", "--name", "op", "--trace-id", "-1e3"],
            "dsampler explain: --trace-id: expected 1 to 32 hex digits, got '-1e3'",
        ),
    ],
)
def test_a_negative_number_or_duration_gets_the_flags_own_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same one line, exit 2, whether the value follows the flag or an ``=``."""
    from tests.conftest import REPO

    monkeypatch.chdir(REPO)
    joined = [*argv[:-2], f"{argv[-2]}={argv[-1]}"]
    for form in (argv, joined):
        assert main(form) == 2
        captured = capsys.readouterr()
        assert captured.err.splitlines() == [message], form
        assert captured.out == ""
