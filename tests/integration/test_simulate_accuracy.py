"""``dsampler simulate --accuracy``: the MAE table per scheme and trace-ID family, its
heat map, and refusals that name the option."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsampler.cli import main
from dsampler.hashing import SCHEMES


def test_the_table_names_every_scheme_family_and_the_noise_floor(capsys: pytest.CaptureFixture[str]) -> None:
    """Every scheme by four families, the sequential bias of raw fnv1a visible."""
    assert main(["simulate", "--accuracy", "--ids", "20000", "--seed", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["scheme", "random", "jaeger64", "time-prefixed", "sequential"]
    count = len(SCHEMES)
    rows = {line.split()[0]: [float(x.rstrip("%")) for x in line.split()[1:]] for line in out[1 : 1 + count]}
    assert list(rows) == list(SCHEMES)
    assert rows["fnv1a"][3] > 10 * rows["fnv1a-mix"][3]
    assert "binomial noise alone gives" in out[1 + count]


def test_the_heat_map_is_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--plot writes a PNG."""
    path = tmp_path / "heat.png"
    assert main(["simulate", "--accuracy", "--ids", "5000", "--plot", str(path)]) == 0
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"plot: {path}" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ids", "10"], "--ids: expected an integer in [1000, 100000000]"),
        (["--ids", "1e6"], "--ids: expected an integer"),
        (["--ids", "-5"], "--ids: expected an integer"),
        (["--seed", "abc"], "--seed: expected an integer"),
        (["--plot", "/nonexistent/dir/x.png"], "--plot: no such directory"),
    ],
)
def test_bad_options_are_named(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Each bad option exits 2 with its name, before any work."""
    assert main(["simulate", "--accuracy", *args]) == 2
    assert message in capsys.readouterr().err


def test_scenario_and_accuracy_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    """One of --scenario or --accuracy, not both, not neither."""
    for argv in (["simulate"], ["simulate", "--accuracy", "--scenario", "spike"]):
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 2
    assert "--accuracy" in capsys.readouterr().err
