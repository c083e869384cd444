"""A negative-looking value (``--reload-interval -1s``, ``--target -1e3``) reaches the
flag's own validation, which says what is allowed, as ``--flag=-1s`` always did;
argparse alone took it for an unknown option ("expected one argument")."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from dsampler.cli._main import build_parser, main

NEGATIVES = ["-1", "-.5", "-1s", "-5m", "-1e3", "-1E-3", "-1_000", "-0x1", "-inf", "-Infinity", "-nan"]
#: What each subcommand needs besides the flag under test to parse at all.
REQUIRED = {"check": ["FILE"], "explain": ["--config", "c.yaml", "--name", "op"], "simulate": ["--accuracy"]}


def value_flags() -> Iterator[tuple[str, str]]:
    """(subcommand, flag) for every option of every subcommand that takes one value."""
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in commands.choices.items():
        for action in sub._actions:
            if action.option_strings and action.nargs is None:
                yield name, action.option_strings[0]


FLAGS = sorted(value_flags())


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
            "not a negative one, got '-1s'",
        ),
        (["serve", "--port", "-1"], "dsampler serve: --port: expected an integer in [0, 65535], got -1"),
        (
            ["serve", "--max-connections", "-5"],
            "dsampler serve: --max-connections: expected an integer in [1, 100000], got -5",
        ),
        (
            ["serve", "--default-sampling-probability", "-1e-3"],
            "dsampler serve: --default-sampling-probability: expected a number in [0, 1], got -0.001",
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
            "dsampler demo: --duration: expected seconds in [5, 600], got -100.0",
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
