"""An integer of more digits than Python converts (4,300 by default) wherever one can be
written: configuration files (YAML, JSON), Jaeger strategies files, remote response
bodies, command-line flags and environment arguments. Each is refused naming its field
(and its line, where a file has lines), never with Python's own message about
``sys.set_int_max_str_digits()``."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsampler import ConfigError, load_config
from dsampler._entry_points import dsampler_sampler
from dsampler._validate import LongInteger, read_int
from dsampler.cli._main import main
from dsampler.protocol import parse_response
from dsampler.serve import load_strategies

LIMIT = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 0
pytestmark = pytest.mark.skipif(not LIMIT, reason="this Python converts integers of any length")
PYTHONS_OWN = "set_int_max_str_digits"


def digits(n: int) -> str:
    return "7" * n


def refusal(call: object) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        call()  # type: ignore[operator]
    assert PYTHONS_OWN not in str(info.value)
    return info.value


@settings(max_examples=25, deadline=None)
@given(
    extra=st.integers(1, 3000),
    negative=st.booleans(),
    where=st.sampled_from(
        [
            ("rate: {}\n", "rate", 1),
            ("rate: 0.1\nmax_operations: {}\n", "max_operations", 2),
            ("rate: 0.1\noperations:\n  GET /a: {}\n", "operations['GET /a']", 3),
            (
                "rules:\n  - {{match: {{span_name: x}}, action: {{sample: {}}}}}\n",
                "rules[0].action.sample",
                2,
            ),
            ("adaptive:\n  target_traces_per_second: {}\n", "adaptive.target_traces_per_second", 2),
        ]
    ),
    suffix=st.sampled_from([".yaml", ".json"]),
)
def test_a_configuration_file_names_the_field_and_line(
    tmp_path_factory: pytest.TempPathFactory,
    extra: int,
    negative: bool,
    where: tuple[str, str, int],
    suffix: str,
) -> None:
    """YAML, and JSON written the same way, name the field and its line."""
    template, field, line = where
    number = ("-" if negative else "") + digits(LIMIT + extra)
    text = template.format(number)
    if suffix == ".json":  # the same document, in JSON on the same lines
        text = json.dumps(load_yaml_with_placeholder(template), indent=None).replace('"NUMBER"', number)
        line = 1
    path = tmp_path_factory.mktemp("long") / f"sampling{suffix}"
    path.write_text(text, encoding="utf-8")
    error = refusal(lambda: load_config(path))
    (problem,) = error.errors
    assert problem.field == field
    assert f"an integer of {LIMIT + extra} digits (line {line})" in problem.problem


def load_yaml_with_placeholder(template: str) -> object:
    import yaml

    return yaml.safe_load(template.format('"NUMBER"'))


def test_a_jaeger_strategies_file_names_the_field_and_line() -> None:
    """A Jaeger strategies file, as ``dsampler serve`` reads it."""
    text = (
        '{"default_strategy": {"type": "probabilistic", "param": 0.5},\n'
        f' "service_strategies": [{{"service": "a", "type": "ratelimiting", "param": {digits(LIMIT + 1)}}}]}}'
    )
    error = refusal(lambda: load_strategies(text.encode(), "strategies.json"))
    assert str(error) == (
        f"service_strategies[0].param: expected a number, got an integer of {LIMIT + 1} digits (line 2)"
    )


def test_a_remote_body_names_the_field() -> None:
    """A strategy response from a sampling endpoint."""
    body = f'{{"strategyType": 0, "probabilisticSampling": {{"samplingRate": {digits(LIMIT + 9)}}}}}'
    error = refusal(lambda: parse_response(body.encode()))
    assert "probabilisticSampling.samplingRate" in str(error)
    assert f"an integer of {LIMIT + 9} digits" in str(error)


@pytest.mark.parametrize(
    "argv",
    [
        ["serve", "--port"],
        ["serve", "--max-connections"],
        ["bench", "--rounds"],
        ["explain", "--config", "-", "--name", "x", "--trace-id"],
    ],
)
def test_a_command_line_flag_names_the_flag(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*argv, digits(LIMIT + 1)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dsampler {argv[0]}: {argv[-1]}: expected")
    assert PYTHONS_OWN not in err


def test_check_and_explain_name_the_file_field_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sampling.yaml"
    path.write_text(f"rate: 0.5\ntraces_per_second: {digits(LIMIT + 1)}\n", encoding="utf-8")
    expected = (
        f"{path}: traces_per_second: expected a number of traces per second, "
        f"got an integer of {LIMIT + 1} digits (line 2)"
    )
    assert main(["check", str(path)]) == 2
    assert capsys.readouterr().err == f"dsampler check: {expected}\n"
    assert main(["explain", "--config", str(path), "--name", "x", "--trace-id", "1"]) == 2
    assert capsys.readouterr().err == f"dsampler explain: {expected}\n"


def test_an_environment_argument_names_itself(caplog: pytest.LogCaptureFixture) -> None:
    """``OTEL_TRACES_SAMPLER_ARG`` of that many digits is logged as ignored, by name."""
    with caplog.at_level(logging.WARNING, logger="dsampler"):
        sampler = dsampler_sampler(digits(LIMIT + 1))
    assert "OTEL_TRACES_SAMPLER_ARG" in caplog.text
    assert PYTHONS_OWN not in caplog.text
    assert sampler.get_description().startswith("DSampler{version=1,rate=0.001")


def test_read_int_reads_what_int_reads_and_marks_the_rest() -> None:
    assert read_int("-12") == -12
    marked = read_int(digits(LIMIT + 5))
    assert isinstance(marked, LongInteger)
    assert repr(marked) == f"an integer of {LIMIT + 5} digits"
