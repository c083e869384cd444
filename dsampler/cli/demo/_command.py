"""``dsampler demo``: the whole product in under a minute (the README's first command).

    dsampler demo [--duration S] [--plot PATH] [--seed N]

Starts ``dsampler serve`` in this process on a free loopback port, and two instrumented
services beside it: checkout follows the server's strategies, search holds 50 traces/s
with the adaptive controller. A seeded synthetic workload of real spans runs for
``--duration`` seconds (default 45) with a 10x load spike and a latency episode; halfway
the strategies file is rewritten and checkout follows it live. A table shows each second
(redrawn in place on a terminal, appended lines otherwise); the run ends with a
paragraph of what it measured and, with ``--plot``, a PNG timeline. Without matplotlib
the demo says so and runs without the PNG. Ctrl-C ends it early, with the summary.
Exit 0; 2 on a bad option (named); 1 when the demo cannot start.
"""

from __future__ import annotations

import argparse
import signal
import sys
import textwrap
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, Final

from dsampler._validate import MAX_SEED, check_seconds, parse_float, parse_int, show
from dsampler.cli._output import error, refuse, say, without_numpy
from dsampler.errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Iterator

    from dsampler.cli.demo._services import Demo
    from dsampler.cli.demo._timeline import Timeline
    from dsampler.cli.demo._workload import Record


DURATION_S: Final = 45.0
MIN_DURATION_S, MAX_DURATION_S = 5.0, 600.0


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "demo",
        help="see it work: dsampler serve, a remote and an adaptive service, a spike, a hot update",
        description="An embedded strategies server, two instrumented synthetic services, a load spike, "
        "a latency episode and a live hot update; a live table, a summary and a PNG timeline.",
    )
    parser.add_argument(
        "--duration",
        metavar="S",
        help=f"seconds to run, {MIN_DURATION_S:g} to {MAX_DURATION_S:g} (default {DURATION_S:g})",
    )
    parser.add_argument("--plot", metavar="PATH", help="write the timeline as a PNG (needs matplotlib)")
    parser.add_argument("--seed", metavar="N", help="seed of the synthetic workload (default 0)")


@dataclass(frozen=True)
class Settings:
    duration_s: float
    seed: int
    plot: Path | None
    plot_missing: str | None  # why the asked-for plot cannot be drawn (matplotlib is missing)


def _duration(text: str | None) -> float:
    if text is None:
        return DURATION_S
    value = parse_float(text, "--duration", f"seconds in [{MIN_DURATION_S:g}, {MAX_DURATION_S:g}]")
    return check_seconds(value, "--duration", MIN_DURATION_S, MAX_DURATION_S, written=text)


def _seed(text: str | None) -> int:
    if text is None:
        return 0
    return parse_int(text, "--seed", 0, MAX_SEED)


def _plot(text: str | None) -> tuple[Path | None, str | None]:
    """The PNG to write, or why not: a bad path is refused; missing matplotlib is not (the
    demo is worth running without its picture)."""
    if text is None:
        return None, None
    from dsampler.cli._plotting import MISSING, plot_path

    try:
        return plot_path(text), None
    except ConfigError as exc:
        if exc.problem != MISSING:
            raise
        return None, MISSING


def settings_of(args: argparse.Namespace) -> Settings:
    """The validated options; ConfigError names the first bad one."""
    duration, seed = _duration(args.duration), _seed(args.seed)
    plot, missing = _plot(args.plot)
    return Settings(duration, seed, plot, missing)


def _stop(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@contextmanager
def _sigterm_ends_the_run() -> Iterator[None]:
    """SIGTERM ends the run as Ctrl-C does (with the summary), where signals can be set."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _intro(demo: Demo, timeline: Timeline) -> str:
    from dsampler.cli.demo._services import POLL_INTERVAL_S
    from dsampler.cli.demo._timeline import SEARCH_TARGET

    t = timeline
    return textwrap.fill(
        f"dsampler demo: {t.duration_s:g} s. dsampler serve listens on {demo.url}, serving "
        f"{demo.strategies}; checkout polls it every {POLL_INTERVAL_S:g} s, search holds "
        f"{SEARCH_TARGET:g} traces/s with the adaptive controller. Load x10 at {t.spike[0]:g}-"
        f"{t.spike[1]:g} s, the strategies file rewritten at {t.update_at_s:g} s, latency x3 at "
        f"{t.latency[0]:g}-{t.latency[1]:g} s.",
        96,
        break_long_words=False,  # the URL and the path stay whole, for copying
        break_on_hyphens=False,
    )


def _run(settings: Settings) -> tuple[Record | None, str]:
    """The run's record and its metrics, as the MeterProvider's reader collected them.
    A Ctrl-C once the demo has started ends the run; another while it ends keeps what
    was measured (the record, None if the workload had not returned it; the metrics,
    "" if not collected yet). Raises KeyboardInterrupt only while starting."""
    from dsampler.cli.demo import _table, _workload
    from dsampler.cli.demo._services import Demo
    from dsampler.cli.demo._timeline import Timeline

    timeline = Timeline.for_duration(settings.duration_s)
    record: Record | None = None
    metrics = ""
    started = False
    try:
        with _sigterm_ends_the_run(), Demo(settings.seed) as demo:
            started = True
            say(_intro(demo, timeline))
            table = _table.table_for(sys.stdout)
            record = _workload.run(demo, timeline, table.show)
            table.close(record)
            metrics = demo.metrics.report(demo.services) if demo.metrics is not None else ""
    except KeyboardInterrupt:
        if not started:
            raise
    return record, metrics  # everything is stopped here: server, poller, controller


def run(args: argparse.Namespace) -> int:
    from dsampler.cli.demo._summary import summary

    if without_numpy("demo"):
        return 2
    try:
        settings = settings_of(args)
    except ConfigError as exc:
        return refuse("demo", exc)
    if settings.plot_missing:
        say(f"dsampler demo: --plot {settings.plot_missing}; the demo runs without its PNG", err=True)
    try:
        record, metrics = _run(settings)
    except (OSError, RuntimeError) as exc:
        error("demo", f"cannot start: {exc}")
        return 1
    except KeyboardInterrupt:
        say("dsampler demo: interrupted while starting", err=True)
        return 130
    if record is None:
        say("dsampler demo: interrupted again while the run ended; nothing to summarise", err=True)
        return 130
    say("")
    say(summary(record))
    if metrics:
        say("")
        say(metrics)
    return _picture(settings, record)


def _picture(settings: Settings, record: Record) -> int:
    if settings.plot_missing:
        say(f"No PNG written: --plot {settings.plot_missing}.")
        return 0
    if settings.plot is None:
        return 0
    from dsampler.cli.demo._plot import plot

    try:
        plot(record, settings.plot)
    except OSError as exc:
        error("demo", f"--plot: cannot write {show(str(settings.plot))}: {exc.strerror or exc}")
        return 2
    say(f"Timeline: {settings.plot}")
    return 0
