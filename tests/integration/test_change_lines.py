"""A change that sampling takes on by itself (a file reload, a new remote strategy) is
one line at WARNING, which Python shows with no logging configured (under
``opentelemetry-instrument`` too), coalesced when changes come in a burst; and
``DSAMPLER_LOG_LEVEL`` sets the ``dsampler`` logger's level, and only its."""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dsampler import ManualClock
from dsampler.remote import HttpFetcher, PollOutcome
from dsampler.remote._poll import StrategyPoller
from tests.remote_servers import Answer, body, serving

pytestmark = pytest.mark.slow

RELOADING_APP = """\
import sys, time
from opentelemetry import trace

path = sys.argv[1]
sampler = trace.get_tracer_provider().sampler
tracer = trace.get_tracer("app")

def kept():
    count = 0
    for _ in range(500):
        with tracer.start_as_current_span("work") as span:
            count += span.get_span_context().trace_flags.sampled
    return count

def reloaded(text):
    before = sampler.watcher.reloads
    with open(path + ".new", "w") as f:
        f.write(text)
    import os; os.replace(path + ".new", path)
    deadline = time.monotonic() + 30
    while sampler.watcher.reloads == before and time.monotonic() < deadline:
        time.sleep(0.05)

print("BEFORE=%d" % kept())
reloaded("rate: 1.0\\n")
print("AFTER=%d" % kept())
reloaded("# the same configuration, written again\\nrate: 1.0\\n")
print("RELOADS=%d" % sampler.watcher.reloads)
"""


def instrumented(tmp_path: Path, **variables: str) -> subprocess.CompletedProcess[str]:
    """The reloading app under ``opentelemetry-instrument``, its file at rate 0 first."""
    instrument = shutil.which("opentelemetry-instrument", path=str(Path(sys.executable).parent))
    assert instrument is not None, "opentelemetry-instrument is part of the dev extra"
    path = tmp_path / "sampling.yaml"
    path.write_text("rate: 0.0\n")
    app = tmp_path / "app.py"
    app.write_text(RELOADING_APP)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "DSAMPLER_"))}
    env.update(
        OTEL_TRACES_SAMPLER="parentbased_dsampler",
        OTEL_TRACES_SAMPLER_ARG=f"config={path}",
        OTEL_TRACES_EXPORTER="none",
        OTEL_METRICS_EXPORTER="none",
        OTEL_LOGS_EXPORTER="none",
        **variables,
    )
    proc = subprocess.run(
        [instrument, sys.executable, str(app), str(path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc


def numbers(stdout: str) -> dict[str, int]:
    return {m[1]: int(m[2]) for m in re.finditer(r"\b([A-Z]+)=(\d+)\b", stdout)}


def test_a_reload_under_opentelemetry_instrument_is_one_line_naming_the_change(tmp_path: Path) -> None:
    """rate 0 -> 1: nothing kept, then everything; stderr has the one line naming the
    file, the version and the change. Rewriting the same configuration (a comment) is a
    reload but no change, and says nothing."""
    proc = instrumented(tmp_path)
    seen = numbers(proc.stdout)
    assert (seen["BEFORE"], seen["AFTER"], seen["RELOADS"]) == (0, 500, 2), seen
    path = tmp_path / "sampling.yaml"
    lines = [line for line in proc.stderr.splitlines() if "dsampler" in line]
    assert lines == [f"dsampler: reloaded {path}: version 2 in force; changed: rate 0 -> 1"], proc.stderr


def test_dsampler_log_level_error_keeps_the_reload_line_out(tmp_path: Path) -> None:
    """``DSAMPLER_LOG_LEVEL=ERROR``: the same reload, the same sampling, no line."""
    proc = instrumented(tmp_path, DSAMPLER_LOG_LEVEL="ERROR")
    seen = numbers(proc.stdout)
    assert (seen["BEFORE"], seen["AFTER"]) == (0, 500), seen
    assert "dsampler" not in proc.stderr, proc.stderr


LEVEL_PROBE = """\
import logging, sys
import dsampler
root = logging.getLogger()
print("ROOT=%s %d" % (logging.getLevelName(root.level), len(root.handlers)))
print("OTHER=%s" % logging.getLevelName(logging.getLogger("opentelemetry").getEffectiveLevel()))
logging.getLogger("dsampler.config").info("dsampler: an info line")
logging.getLogger("dsampler.config").debug("dsampler: a debug line")
if sys.argv[1:] == ["configure"]:
    logging.basicConfig(level=logging.INFO, format="app %(message)s")
    logging.getLogger("dsampler.remote").info("dsampler: after basicConfig")
"""


def probe(level: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DSAMPLER_")}
    if level is not None:
        env["DSAMPLER_LOG_LEVEL"] = level
    return subprocess.run(
        [sys.executable, "-c", LEVEL_PROBE, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


def test_dsampler_log_level_info_shows_info_and_touches_no_other_logger() -> None:
    """``DSAMPLER_LOG_LEVEL=info``: dsampler's INFO lines reach stderr (not its DEBUG
    ones); the root logger keeps its level and has no handler; other loggers keep theirs."""
    proc = probe("info")
    assert "ROOT=WARNING 0" in proc.stdout
    assert "OTHER=WARNING" in proc.stdout
    assert re.search(r"INFO dsampler\.config dsampler: an info line$", proc.stderr, flags=re.M), proc.stderr
    assert "a debug line" not in proc.stderr
    assert "an info line" not in probe(None).stderr  # unset: INFO stays unseen, as before


def test_the_handler_steps_aside_once_the_application_configures_logging() -> None:
    """After ``logging.basicConfig()`` a dsampler record is printed once, by the
    application's handler, not twice."""
    proc = probe("INFO", "configure")
    assert proc.stderr.count("after basicConfig") == 1, proc.stderr
    assert "app dsampler: after basicConfig" in proc.stderr


def test_an_unknown_level_is_named() -> None:
    """``DSAMPLER_LOG_LEVEL=loud``: one WARNING naming it and the levels it takes."""
    proc = probe("loud")
    expected = (
        "dsampler: DSAMPLER_LOG_LEVEL='loud' ignored: expected one of DEBUG, INFO, WARNING, ERROR, CRITICAL"
    )
    assert proc.stderr.count(expected) == 1, proc.stderr
    assert "an info line" not in proc.stderr


def probabilistic(rate: float) -> bytes:
    return body({"strategyType": "PROBABILISTIC", "probabilisticSampling": {"samplingRate": rate}})


def test_remote_strategy_changes_are_told_at_once_then_coalesced(caplog: pytest.LogCaptureFixture) -> None:
    """A poller (real server, manual clock, 1 s polls): the first new strategy is one
    WARNING at once; changes within the next 10 polls are held and told in one line by
    the first poll after them; an unchanged strategy says nothing."""
    clock = ManualClock()
    applied: list[object] = []
    with serving(Answer(probabilistic(0.1))) as server:
        poller = StrategyPoller(
            HttpFetcher(server.url, timeout_s=2.0),
            "checkout",
            lambda strategy: applied.append(strategy) is None,
            interval_s=1.0,
            clock=clock,
        )
        with caplog.at_level(logging.WARNING, logger="dsampler.remote"):
            assert poller.poll_once() is PollOutcome.APPLIED
            told = [r.getMessage() for r in caplog.records]
            assert told == ["dsampler: checkout: sampling strategy now probabilistic 0.1"]
            for rate in (0.2, 0.3, 0.4):
                clock.advance(1.0)
                server.behaviour = Answer(probabilistic(rate))
                assert poller.poll_once() is PollOutcome.APPLIED
            assert len(caplog.records) == 1  # held: within 10 polls of the line
            clock.advance(7.0)
            assert poller.poll_once() is PollOutcome.UNCHANGED  # 10 s after the line: told
            clock.advance(30.0)
            assert poller.poll_once() is PollOutcome.UNCHANGED
    assert [r.getMessage() for r in caplog.records][1:] == [
        "dsampler: checkout: sampling strategy now probabilistic 0.4 "
        "(the last of 3 changes since the previous line)"
    ]
    assert [r.levelname for r in caplog.records] == ["WARNING", "WARNING"]
    assert len(applied) == 4
