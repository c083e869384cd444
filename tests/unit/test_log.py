"""dsampler/_log.py: the coalesced line of an applied change (manual clock), and the
DSAMPLER_LOG_LEVEL switch on the dsampler logger alone."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsampler import DSampler, ManualClock
from dsampler._log import ChangeReport, apply_level
from dsampler.config._watch import FileWatcher

LOGGER = logging.getLogger("dsampler.tests")


def test_a_change_is_told_at_once_and_a_burst_in_one_line(caplog: pytest.LogCaptureFixture) -> None:
    """First change: a line at once. Three more within the quiet period: held, then one
    line with the last text and their number once it is over; flush alone tells nothing new."""
    clock = ManualClock()
    report = ChangeReport(LOGGER, 10.0, clock)
    with caplog.at_level(logging.WARNING, logger="dsampler.tests"):
        report.changed("version 2")
        for version in (3, 4, 5):
            clock.advance(1.0)
            report.changed(f"version {version}")
        report.flush()
        assert [r.getMessage() for r in caplog.records] == ["version 2"]
        clock.advance(7.0)
        report.flush()
        report.flush()
        clock.advance(100.0)
        report.changed("version 6")
    assert [r.getMessage() for r in caplog.records] == [
        "version 2",
        "version 5 (the last of 3 changes since the previous line)",
        "version 6",
    ]
    assert {r.levelno for r in caplog.records} == {logging.WARNING}


@pytest.fixture
def dsampler_logger() -> Iterator[logging.Logger]:
    """The dsampler logger, its level and handlers put back after the test."""
    logger = logging.getLogger("dsampler")
    level, handlers = logger.level, list(logger.handlers)
    yield logger
    logger.setLevel(level)
    logger.handlers[:] = handlers


def test_the_level_is_set_on_the_dsampler_logger_only(dsampler_logger: logging.Logger) -> None:
    """``debug`` (any case): the dsampler logger at DEBUG with one handler; the root
    logger as it was; unset or blank: nothing changes."""
    root = logging.getLogger()
    before = (root.level, list(root.handlers))
    apply_level({})
    apply_level({"DSAMPLER_LOG_LEVEL": "  "})
    assert dsampler_logger.level == logging.NOTSET
    apply_level({"DSAMPLER_LOG_LEVEL": "debug"})
    assert dsampler_logger.level == logging.DEBUG
    assert len(dsampler_logger.handlers) == 1
    apply_level({"DSAMPLER_LOG_LEVEL": "ERROR"})  # a handler already there: not a second
    assert (dsampler_logger.level, len(dsampler_logger.handlers)) == (logging.ERROR, 1)
    assert (root.level, list(root.handlers)) == before


def test_a_reload_burst_is_coalesced_by_the_watchers_clock(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A file watcher polling every 1 s: a reload is told at once, the two that follow
    within 10 polls in one line at the first poll after them; a reload that changes
    nothing but the file's form is DEBUG only."""
    path = tmp_path / "s.yaml"
    path.write_text("rate: 0.1\n")
    sampler = DSampler.from_file(path, watch=False)
    clock = ManualClock()
    watcher = FileWatcher(path, sampler.publish, interval_s=1.0, applied=path.read_bytes(), clock=clock)

    def reload(text: str) -> None:
        path.write_text(text)
        clock.advance(1.0)
        watcher.poll_once()
        clock.advance(1.0)
        assert watcher.poll_once() is True

    with caplog.at_level(logging.DEBUG, logger="dsampler.config"):
        reload("rate: 0.2\n")
        reload("rate: 0.3\n")
        reload("rate: 0.4\n")
        reload("# the same\nrate: 0.4\n")
        assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 1
        clock.advance(10.0)
        watcher.poll_once()
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [
        f"dsampler: reloaded {path}: version 2 in force; changed: rate 0.1 -> 0.2",
        f"dsampler: reloaded {path}: version 4 in force; changed: rate 0.3 -> 0.4 "
        "(the last of 2 changes since the previous line)",
    ]
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG] == [
        f"dsampler: reloaded {path}: version 5 in force: the same configuration"
    ]
    sampler.close()
