"""DSampler.from_file: reloads on change, keeps the last good config on bad files."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from dsampler import ConfigError, DSampler

pytestmark = pytest.mark.slow


def write(path: Path, content: str | bytes) -> None:
    data = content.encode() if isinstance(content, str) else content
    path.write_bytes(data)
    st = path.stat()  # make every write visible even on filesystems with coarse mtimes
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "sampling.yaml"
    write(path, "rate: 0.1\n")
    return path


def test_an_edit_is_published_once_it_holds_still(config_file: Path) -> None:
    """A valid edit becomes the next version at the second poll that sees it; rewriting
    the same bytes publishes nothing."""
    sampler = DSampler.from_file(config_file, poll_interval_s=3600)  # the test polls by hand
    watcher = sampler.watcher
    assert watcher is not None
    assert watcher.poll_once() is False
    write(config_file, "rate: 0.1\n")  # touched, same content
    assert (watcher.poll_once(), watcher.poll_once()) == (False, False)
    write(config_file, "rate: 0.25\nrules: [{match: {span_name: x}, action: drop}]\n")
    assert watcher.poll_once() is False  # seen once: it may still be being written
    assert watcher.poll_once() is True
    assert (sampler.config.rate, sampler.config.version, len(sampler.config.rules)) == (0.25, 2, 1)
    sampler.close()


def test_bad_files_keep_the_last_good_config_and_log_once_per_problem(
    config_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Empty, truncated, invalid and missing files change nothing; each distinct problem is
    logged once; the next good file is applied."""
    sampler = DSampler.from_file(config_file, poll_interval_s=3600)
    watcher = sampler.watcher
    assert watcher is not None
    steps = [
        ("", "the file is empty"),
        ('rate: 0.5\nrules:\n  - match: {span_name: "GET /', "invalid YAML"),
        ("rate: 7\n", "rate: expected a number in [0, 1], got 7"),
        ("rate: 7\n", None),  # the same problem again: not logged twice
        (None, "cannot read the file"),
    ]
    with caplog.at_level(logging.WARNING, logger="dsampler.config"):
        for content, message in steps:
            if content is None:
                config_file.unlink()
            else:
                write(config_file, content)
            assert (watcher.poll_once(), watcher.poll_once()) == (False, False)
            assert (sampler.config.rate, sampler.config.version) == (0.1, 1)
            if message is not None:
                assert message in caplog.records[-1].getMessage()
    assert len(caplog.records) == 4
    write(config_file, "rate: 0.5\n")
    assert (watcher.poll_once(), watcher.poll_once()) == (False, True)
    assert (sampler.config.rate, sampler.config.version) == (0.5, 2)
    sampler.close()


def test_a_file_invalid_at_start_raises(tmp_path: Path) -> None:
    """from_file refuses a bad file outright: there is no last good config yet."""
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"rate": 0.1, "rulez": []}))
    with pytest.raises(ConfigError, match="rulez: unknown key; did you mean 'rules'"):
        DSampler.from_file(path)


def test_the_watcher_thread_reloads_and_close_stops_it(config_file: Path) -> None:
    """With a real polling thread, an edit shows up within a bounded time; close() joins."""
    sampler = DSampler.from_file(config_file, poll_interval_s=0.02)
    write(config_file, "rate: 0.75\n")
    deadline = time.monotonic() + 10
    while sampler.config.rate != 0.75 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sampler.config.rate == 0.75
    assert sampler.watcher is not None
    assert sampler.watcher.running
    sampler.close()
    assert not sampler.watcher.running
    sampler.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork() is POSIX-only")
def test_the_watcher_restarts_in_a_forked_child(config_file: Path) -> None:
    """After os.fork() (prefork servers) the child's watcher thread runs and reloads."""
    code = textwrap.dedent(
        f"""
        import os, time
        from pathlib import Path
        from dsampler import DSampler
        path = Path({str(config_file)!r})
        sampler = DSampler.from_file(path, poll_interval_s=0.02)
        pid = os.fork()
        if pid == 0:
            alive = sampler.watcher.running
            path.write_text("rate: 0.9\\n")
            deadline = time.monotonic() + 10
            while sampler.config.rate != 0.9 and time.monotonic() < deadline:
                time.sleep(0.01)
            os._exit(0 if alive and sampler.config.rate == 0.9 else 3)
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert proc.stdout.strip() == "0", proc.stderr


def test_a_file_caught_mid_write_is_not_published(config_file: Path) -> None:
    """A poll that reads a half-written (but valid) file does not publish it; the complete
    file is published once it holds still."""
    sampler = DSampler.from_file(config_file, poll_interval_s=3600)
    watcher = sampler.watcher
    assert watcher is not None
    write(config_file, "rate: 0.02\n")  # the first line of a longer file, still being written
    assert watcher.poll_once() is False
    write(config_file, "rate: 0.02\nrules: [{match: {attributes: {tenant: acme}}, action: {sample: 1.0}}]\n")
    assert watcher.poll_once() is False
    assert (sampler.config.rate, sampler.config.rules) == (0.1, ())
    assert watcher.poll_once() is True
    assert (sampler.config.rate, len(sampler.config.rules)) == (0.02, 1)
    sampler.close()


def test_a_rewrite_with_the_same_size_and_mtime_is_seen(config_file: Path) -> None:
    """Content is compared, not only metadata: a same-size rewrite in the same mtime tick counts."""
    sampler = DSampler.from_file(config_file, poll_interval_s=3600)
    watcher = sampler.watcher
    assert watcher is not None
    before = config_file.stat()
    config_file.write_text("rate: 0.3\n")
    os.utime(config_file, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (watcher.poll_once(), watcher.poll_once()) == (False, True)
    assert sampler.config.rate == 0.3
    sampler.close()


def test_from_file_settings_survive_reloads(config_file: Path) -> None:
    """Keyword settings override the file at start and after every reload."""
    sampler = DSampler.from_file(config_file, poll_interval_s=3600, traces_per_second=10, record_version=True)
    watcher = sampler.watcher
    assert watcher is not None
    assert (sampler.config.rate, sampler.config.traces_per_second) == (0.1, 10.0)
    write(config_file, "rate: 0.02\ntraces_per_second: 500\n")
    assert (watcher.poll_once(), watcher.poll_once()) == (False, True)
    assert (sampler.config.rate, sampler.config.traces_per_second, sampler.config.record_version) == (
        0.02,
        10.0,
        True,
    )
    sampler.close()


def test_an_update_stays_until_the_file_changes_that_field_and_is_then_named(
    config_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """update(rate=0.02) on a file-backed sampler: an edit of another field keeps it
    (silently: nothing it set is replaced); an edit of the rate replaces it, with one
    WARNING on the dsampler logger naming the field, the update's value and the file's."""
    sampler = DSampler.from_file(config_file, poll_interval_s=3600)
    watcher = sampler.watcher
    assert watcher is not None
    try:
        sampler.update(rate=0.02)
        write(config_file, "rate: 0.1\nparent_based: false\n")
        with caplog.at_level(logging.WARNING, logger="dsampler"):
            assert (watcher.poll_once(), watcher.poll_once()) == (False, True)
        assert (sampler.config.rate, sampler.config.parent_based) == (0.02, False)
        replaced = f"dsampler: reloaded {config_file}: rate 0.05 from the file replaces 0.02 set by update()"
        assert [r.getMessage() for r in caplog.records if "replaces" in r.getMessage()] == []
        caplog.clear()
        write(config_file, "rate: 0.05\nparent_based: false\n")
        with caplog.at_level(logging.WARNING, logger="dsampler"):
            assert (watcher.poll_once(), watcher.poll_once()) == (False, True)
        assert sampler.config.rate == 0.05
        warnings = [(r.name, r.getMessage()) for r in caplog.records if r.levelno >= logging.WARNING]
        assert ("dsampler", replaced) in warnings
        assert [m for _, m in warnings if "replaces" in m] == [replaced]
    finally:
        sampler.close()


def test_an_unclosed_sampler_is_collected_and_its_thread_ends(config_file: Path) -> None:
    """The watcher thread holds its sampler only weakly between polls."""
    import gc
    import weakref

    sampler = DSampler.from_file(config_file, poll_interval_s=0.02)
    watcher = sampler.watcher
    assert watcher is not None
    poller_thread = watcher._poller._thread
    ref = weakref.ref(sampler)
    del sampler, watcher
    deadline = time.monotonic() + 10
    while (ref() is not None or (poller_thread and poller_thread.is_alive())) and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.02)
    assert ref() is None
    assert poller_thread is not None
    assert not poller_thread.is_alive()


@pytest.mark.parametrize("interval", [0, -1, 0.001, 1e9, "1s", None, True, float("nan")])
def test_bad_poll_intervals_are_refused(config_file: Path, interval: object) -> None:
    """A poll interval outside [0.01 s, 1 day], or not a number, is a ConfigError naming it."""
    with pytest.raises(ConfigError, match=r"^poll_interval_s: "):
        DSampler.from_file(config_file, poll_interval_s=interval)  # type: ignore[arg-type]
