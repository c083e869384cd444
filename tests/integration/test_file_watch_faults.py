"""The file watcher under hostile and unlucky conditions: bad files parsed once, files
bad at start watched until valid, paths resolved once, overrides that conflict with the
file, FIFOs swapped in, and the entry point's name against the file's parent_based."""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

import pytest

from dsampler import ConfigError, DSampler
from dsampler._entry_points import dsampler_sampler, parentbased_dsampler_sampler
from dsampler.config import _files
from dsampler.config._files import read_bytes

pytestmark = pytest.mark.slow


def write(path: Path, content: str) -> None:
    path.write_text(content)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def counting_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every parse of file content the watcher asks for."""
    calls: list[str] = []
    original = _files.parse_config_bytes

    def counted(data: bytes, name: str) -> object:
        calls.append(name)
        return original(data, name)

    from dsampler.config import _watch

    monkeypatch.setattr(_watch, "parse_config_bytes", counted)
    return calls


@pytest.mark.parametrize("bad", ["rate: 7\n", "rate: !!bool maybe\n"])
def test_an_unchanged_invalid_file_is_parsed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad: str
) -> None:
    """Content that was refused is remembered: fifty more polls parse nothing (defect 2).
    So is a scalar PyYAML's constructor cannot read (``!!bool maybe`` raised KeyError
    out of every poll, uncounted)."""
    path = tmp_path / "s.yaml"
    write(path, "rate: 0.1\n")
    sampler = DSampler.from_file(path, poll_interval_s=3600)
    watcher = sampler.watcher
    assert watcher is not None
    calls = counting_parses(monkeypatch)
    write(path, bad)
    for _ in range(50):
        assert watcher.poll_once() is False
    assert len(calls) == 1
    assert watcher.problems == 1
    assert sampler.config.rate == 0.1
    write(path, "rate: 0.3\n")
    watcher.poll_once()
    assert watcher.poll_once() is True
    assert sampler.config.rate == 0.3
    sampler.close()


def test_a_large_invalid_yaml_file_is_refused_quickly(tmp_path: Path) -> None:
    """A 1 MiB YAML file with one bad value is parsed by the C loader when PyYAML has it;
    the message still names the field and its line."""
    path = tmp_path / "big.yaml"
    ops = "".join(f'  "op-{i:06d}": 0.5\n' for i in range(30_000))
    path.write_text(f"rate: 0.1\noperations:\n{ops}  broken: 2.0\n"[: _files.MAX_FILE_BYTES])
    with pytest.raises(ConfigError) as info:
        DSampler.from_file(path, watch=False)
    problems = [str(e) for e in info.value.errors]
    assert any("operations" in p for p in problems), problems


@pytest.mark.parametrize("content", [None, "rate: [not a number]\n"])
def test_a_file_unusable_at_start_is_watched_and_applied_once_valid(
    tmp_path: Path, content: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    """strict=False: a missing or invalid file is logged, the defaults (with the
    settings) serve, and the file applies once it is valid (defect 3)."""
    path = tmp_path / "later.yaml"
    if content is not None:
        write(path, content)
    with caplog.at_level(logging.WARNING, logger="dsampler"):
        sampler = DSampler.from_file(path, poll_interval_s=3600, strict=False, hash="xxh3")
    assert "the defaults serve until the file is valid" in caplog.text
    assert (sampler.config.rate, sampler.config.hash) == (0.001, "xxh3")
    watcher = sampler.watcher
    assert watcher is not None
    write(path, "rate: 0.2\n")
    watcher.poll_once()
    assert watcher.poll_once() is True
    assert (sampler.config.rate, sampler.config.hash) == (0.2, "xxh3")
    sampler.close()


@pytest.mark.parametrize(
    ("content", "relative"),
    [(None, False), (None, True), ("rate: [not a number]\n", False)],
    ids=["missing", "missing-relative", "invalid"],
)
def test_a_file_unusable_at_start_is_warned_about_once(
    tmp_path: Path,
    content: str | None,
    relative: bool,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """strict=False: one WARNING, in one wording, for the start and the watcher's polls
    while the problem stays the same (the missing file was also warned about by the
    watcher's first poll, as 'keeping the running configuration'); a new problem is
    warned about again."""
    path = tmp_path / "later.yaml"
    if content is not None:
        write(path, content)
    monkeypatch.chdir(tmp_path)
    with caplog.at_level(logging.WARNING, logger="dsampler"):
        sampler = DSampler.from_file("later.yaml" if relative else path, poll_interval_s=3600, strict=False)
        watcher = sampler.watcher
        assert watcher is not None
        for _ in range(3):
            watcher.poll_once()
        warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert len(warnings) == 1, warnings
        assert warnings[0].startswith("dsampler: the defaults serve until the file is valid: "), warnings
        assert ("later.yaml" if relative else str(path)) in warnings[0]
        write(path, "rate: 2\n")
        watcher.poll_once()
        watcher.poll_once()
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2, warnings
    assert warnings[1].endswith("rate: expected a number in [0, 1], got 2 (line 1)"), warnings
    sampler.close()


def test_the_reload_line_names_the_new_version(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """WARNING 'dsampler: reloaded FILE: version N in force; changed: ...', N the version
    now in force, the change in the file's words."""
    path = tmp_path / "s.yaml"
    write(path, "rate: 0.1\n")
    sampler = DSampler.from_file(path, poll_interval_s=3600)
    watcher = sampler.watcher
    assert watcher is not None
    write(path, "rate: 0.2\n")
    with caplog.at_level(logging.INFO, logger="dsampler"):
        watcher.poll_once()
        assert watcher.poll_once() is True
    version = sampler.config.version
    assert version > 1
    lines = [r.getMessage() for r in caplog.records if "reloaded" in r.getMessage()]
    assert lines == [f"dsampler: reloaded {path}: version {version} in force; changed: rate 0.1 -> 0.2"]
    assert {r.levelname for r in caplog.records} == {"WARNING"}
    sampler.close()


def test_a_relative_path_is_resolved_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After os.chdir() the watcher still reads the file it was given (defect 4)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    write(tmp_path / "a" / "s.yaml", "rate: 0.1\n")
    write(tmp_path / "b" / "s.yaml", "rate: 0.9\n")
    monkeypatch.chdir(tmp_path / "a")
    sampler = DSampler.from_file("s.yaml", poll_interval_s=3600)
    watcher = sampler.watcher
    assert watcher is not None
    monkeypatch.chdir(tmp_path / "b")
    assert (watcher.poll_once(), watcher.poll_once()) == (False, False)
    assert sampler.config.rate == 0.1
    assert watcher.path == str(tmp_path / "a" / "s.yaml")
    sampler.close()


def test_a_file_that_conflicts_with_the_settings_is_logged_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A file valid alone but not with the from_file settings is refused like any
    invalid file: one warning naming the field, no traceback, counted (defect 8)."""
    path = tmp_path / "s.yaml"
    write(path, "rate: 0.1\n")
    sampler = DSampler.from_file(path, poll_interval_s=3600, max_operations=1)
    watcher = sampler.watcher
    assert watcher is not None
    write(path, "rate: 0.1\noperations: {a: 0.5, b: 0.5}\n")
    with caplog.at_level(logging.INFO, logger="dsampler"):
        for _ in range(20):
            watcher.poll_once()
    records = [r for r in caplog.records if r.name.startswith("dsampler")]
    assert len(records) == 1, [r.getMessage() for r in records]
    assert records[0].levelno == logging.WARNING
    assert records[0].exc_info is None
    assert "operations: expected at most max_operations (1)" in records[0].getMessage()
    assert watcher.problems == 1
    assert sampler.config.version == 1
    sampler.close()


def test_a_fifo_never_blocks_the_reader(tmp_path: Path) -> None:
    """A FIFO where the file was (even one swapped in between checks) is refused at
    once: the reader opens without blocking and checks the descriptor (defect 9)."""
    fifo = tmp_path / "s.yaml"
    os.mkfifo(fifo)
    outcome: list[object] = []
    reader = threading.Thread(target=lambda: outcome.append(_refusal(fifo)), daemon=True)
    reader.start()
    reader.join(10)
    assert outcome == ["not a regular file"]


def _refusal(path: Path) -> str:
    try:
        read_bytes(path)
    except ConfigError as exc:
        return exc.problem
    return "read"


def test_the_file_decides_parent_based_under_dsampler_and_parentbased_dsampler_overrules_false(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """OTEL_TRACES_SAMPLER=dsampler does what the file says, parent_based included, at
    start and after a reload (which names what changed and, once, that the file now cuts
    traces); parentbased_dsampler follows parents whatever the file says, naming a file
    that says false."""
    path = tmp_path / "s.yaml"
    write(path, "rate: 0.5\nparent_based: true\nrules: [{match: {span_name: x}, action: drop}]\n")
    with caplog.at_level(logging.WARNING, logger="dsampler"):
        plain = dsampler_sampler(f"config={path}")
        based = parentbased_dsampler_sampler(f"config={path}")
        assert (plain.config.parent_based, based.config.parent_based) == (True, True)  # type: ignore[attr-defined]
        assert caplog.records == []
        write(path, "rate: 0.25\nparent_based: false\nrules: [{match: {span_name: x}, action: drop}]\n")
        for sampler in (plain, based):
            watcher = sampler.watcher  # type: ignore[attr-defined]
            watcher.poll_once()
            assert watcher.poll_once() is True
    assert (plain.config.rate, plain.config.parent_based) == (0.25, False)  # type: ignore[attr-defined]
    assert (based.config.rate, based.config.parent_based) == (0.25, True)  # type: ignore[attr-defined]
    told = [r.getMessage() for r in caplog.records]
    changed = (
        f"dsampler: reloaded {path}: version 2 in force; "
        "changed: rate 0.5 -> 0.25, parent_based true -> false"
    )
    assert told[0] == changed
    assert told[1].startswith(f"dsampler: {path}: parent_based is false and it has rules: ")
    assert told[2] == changed  # the other sampler's reload: parent_based stays true there, and nothing is cut
    assert len(told) == 3, told
    for s in (plain, based):
        s.close()  # type: ignore[attr-defined]


def test_the_entry_point_watches_a_file_missing_at_start(tmp_path: Path) -> None:
    """config=PATH for a file not there yet: the default rate serves, and the file is
    applied once it appears (defect 3, through the entry point)."""
    path = tmp_path / "later.yaml"
    sampler = parentbased_dsampler_sampler(f"config={path}")
    assert sampler.config.rate == 0.001  # type: ignore[attr-defined]
    write(path, "rate: 0.4\n")
    watcher = sampler.watcher  # type: ignore[attr-defined]
    watcher.poll_once()
    assert watcher.poll_once() is True
    assert sampler.config.rate == 0.4  # type: ignore[attr-defined]
    sampler.close()  # type: ignore[attr-defined]
