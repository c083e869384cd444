"""``dsampler bench``: decision cost against OpenTelemetry's and jaeger-client's samplers.

    dsampler bench [--quick] [--rounds N] [--seconds S] [--json] [--plot PATH]

Every case is timed in the same interleaved rounds, after the numba kernels are
ready; the report gives ns per call and dsampler / peer ratios (lower is better). The
table (or ``--json``) goes to stdout, progress to stderr. Exit 2 on a bad option
(named), or when ``--plot`` is asked for without matplotlib. docs/cli-bench.md shows
how to read it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from contextlib import ExitStack
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dsampler._validate import check_seconds, parse_float, parse_int, show
from dsampler.cli._output import error, refuse
from dsampler.cli._plotting import plot_path
from dsampler.errors import ConfigError

if TYPE_CHECKING:
    from dsampler.cli.bench._harness import Progress
    from dsampler.cli.bench._report import Meta, Report


ROUNDS, QUICK_ROUNDS, MAX_ROUNDS = 25, 5, 1000
SECONDS, QUICK_SECONDS, MIN_SECONDS, MAX_SECONDS = 20.0, 2.0, 0.1, 600.0
JIT_TIMEOUT_S = 60.0
VERSIONS = ("opentelemetry-sdk", "jaeger-client", "numba", "numpy")


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "bench", help="time dsampler's samplers against OpenTelemetry's and jaeger-client's (ratios)"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"a short run: {QUICK_ROUNDS} rounds in about {QUICK_SECONDS:g} s",
    )
    parser.add_argument(
        "--rounds",
        metavar="N",
        help=f"timed rounds, 1 to {MAX_ROUNDS} (default {ROUNDS}, quick {QUICK_ROUNDS})",
    )
    parser.add_argument(
        "--seconds",
        metavar="S",
        help=f"time budget of the rounds, {MIN_SECONDS:g} to {MAX_SECONDS:g} (default {SECONDS:g}, "
        f"quick {QUICK_SECONDS:g}); the numba wait and the set-up come on top",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON (for machines)")
    parser.add_argument(
        "--plot", metavar="PATH", help="write a bar chart of the ratios as a PNG (needs matplotlib)"
    )


@dataclass(frozen=True)
class Settings:
    rounds: int
    seconds: float
    quick: bool
    json: bool
    plot: Path | None


def _rounds(text: str | None, quick: bool) -> int:
    if text is None:
        return QUICK_ROUNDS if quick else ROUNDS
    return parse_int(text, "--rounds", 1, MAX_ROUNDS)


def _seconds(text: str | None, quick: bool) -> float:
    if text is None:
        return QUICK_SECONDS if quick else SECONDS
    value = parse_float(text, "--seconds", f"seconds in [{MIN_SECONDS:g}, {MAX_SECONDS:g}]")
    return check_seconds(value, "--seconds", MIN_SECONDS, MAX_SECONDS, written=text)


def settings_of(args: argparse.Namespace) -> Settings:
    """The validated options; ConfigError names the first bad one."""
    return Settings(
        rounds=_rounds(args.rounds, args.quick),
        seconds=_seconds(args.seconds, args.quick),
        quick=args.quick,
        json=args.json,
        plot=None if args.plot is None else plot_path(args.plot),
    )


def _cpus() -> int | None:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count()


def _load() -> tuple[float, float, float] | None:
    try:
        return os.getloadavg()
    except (AttributeError, OSError):
        return None


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _meta(
    settings: Settings, load: tuple[float, float, float] | None, jit_wait_s: float, floor_ns: float
) -> Meta:
    from dsampler._version import __version__
    from dsampler.cli.bench._report import Meta
    from dsampler.hashing import jit_status

    return Meta(
        dsampler=__version__,
        python=f"{platform.python_implementation()} {platform.python_version()}",
        platform=platform.platform(),
        cpus=_cpus(),
        load_average=load,
        versions={name: _version(name) for name in VERSIONS},
        jit=jit_status().state,
        jit_wait_s=jit_wait_s,
        rounds=settings.rounds,
        seconds=settings.seconds,
        quick=settings.quick,
        loop_floor_ns=floor_ns,
    )


def _measure(settings: Settings, progress: Progress) -> Report:
    """Build, check and time every case."""
    from dsampler.cli.bench import _harness, _report, _suite
    from dsampler.hashing import wait_for_jit

    load = _load()
    with ExitStack() as stack:
        progress.phase("building the cases")
        groups, skipped = _suite.build(stack)
        cases = _suite.cases_of(groups)
        progress.phase("waiting for the numba kernels")  # started in the background by the samplers
        started = time.perf_counter()
        wait_for_jit(JIT_TIMEOUT_S)
        jit_wait_s = time.perf_counter() - started
        progress.phase("checking the decision of every case")
        _harness.verify(cases)
        floor = _harness.loop_floor()
        timed = _harness.run_rounds(
            cases, rounds=settings.rounds, seconds=settings.seconds, progress=progress
        )
    meta = _meta(settings, load, jit_wait_s, floor)
    return _report.Report(meta, groups, skipped, timed, _report.results(groups, timed))


def run(args: argparse.Namespace) -> int:
    from dsampler.cli.bench import _plot, _progress, _report

    try:
        settings = settings_of(args)
    except ConfigError as exc:
        return refuse("bench", exc)
    progress = _progress.progress_for(sys.stderr)
    try:
        report = _measure(settings, progress)
    except KeyboardInterrupt:
        print("\ndsampler bench: interrupted", file=sys.stderr)
        return 130
    finally:
        progress.close()
    if settings.json:
        print(json.dumps(_report.to_json(report), indent=2))
    else:
        print("\n".join(_report.table(report)))
    if settings.plot is not None:
        try:
            _plot.plot(report, settings.plot)
        except OSError as exc:
            error("bench", f"--plot: cannot write {show(str(settings.plot))}: {exc.strerror or exc}")
            return 2
        print(f"dsampler bench: wrote {settings.plot}", file=sys.stderr)
    return 0
