"""``dsampler simulate``: the adaptive controller on a synthetic workload, or the
accuracy of each hash scheme on each family of trace IDs.

    dsampler simulate --scenario NAME|FILE [--seed N] [--plot out.png] [--target N] [--no-limit]
    dsampler simulate --accuracy [--ids N] [--seed N] [--plot heatmap.png] [--no-limit]

NAME is a built-in scenario (steady, spike, ramp, latency, square) or FILE a scenario
file (YAML or JSON, see docs/adaptive.md). Prints a table; ``--plot`` also writes a PNG
(needs the ``plot`` extra). Exits 2 on an invalid scenario or argument.

Both refuse at once, in one line, a run over their bound of work (about a minute): a
scenario over 1,000,000 ticks or about 50,000,000 traces looked at one by one
(:mod:`dsampler.cli.simulate._cost`), more than 10,000,000 trace IDs a cell for
``--accuracy`` (140 cells: about 10 s and 500 MB at that); ``--no-limit`` runs it
anyway (``--ids`` up to 100,000,000 then).
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from dsampler._validate import MAX_SEED, parse_float, parse_int, show
from dsampler.cli._output import refuse, without_numpy
from dsampler.cli._plotting import plot_path
from dsampler.errors import ConfigError


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "simulate", help="run the adaptive controller on a synthetic workload, or measure accuracy"
    )
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--scenario",
        metavar="NAME|FILE",
        help="steady, spike, ramp, latency, square, or a file",
    )
    what.add_argument(
        "--accuracy",
        action="store_true",
        help="effective vs configured rate per hash scheme and trace-ID family (mean absolute error)",
    )
    parser.add_argument("--ids", default="1000000", metavar="N", help="trace IDs per cell (--accuracy)")
    parser.add_argument("--seed", default="0", metavar="N", help="random seed (default 0)")
    parser.add_argument("--plot", metavar="PNG", help="also write a plot (needs dsampler[plot])")
    parser.add_argument("--target", metavar="N", help="traces per second to hold (default: the scenario's)")
    parser.add_argument(
        "--no-limit",
        action="store_true",
        help="run past the bound of work, about a minute: a scenario the simulator refuses as too "
        f"large, --ids over {MAX_IDS:,}",
    )


def _seed(text: str) -> int:
    return parse_int(text, "--seed", 0, MAX_SEED)


def _target(text: str | None) -> float | None:
    if text is None:
        return None
    expected = "traces per second in (0, 1000000]"
    value = parse_float(text, "--target", expected)
    if not 0.0 < value <= 1e6:
        raise ConfigError("--target", f"expected {expected}, got {show(text)}")
    return value


#: --ids without --no-limit, and with it (the IDs of a family are held in memory at once).
MAX_IDS, MAX_IDS_UNBOUNDED = 10**7, 10**8


def _ids(text: str, bounded: bool) -> int:
    ids = parse_int(text, "--ids", 1000, MAX_IDS_UNBOUNDED)
    if bounded and ids > MAX_IDS:
        raise ConfigError(
            "--ids",
            f"expected at most {MAX_IDS:,} trace IDs per cell (140 cells: about 10 s and 500 MB at that), "
            f"got {ids:,}; --no-limit to run it anyway",
        )
    return ids


def _accuracy(args: argparse.Namespace) -> int:
    from dsampler.cli.simulate import _accuracy

    try:
        seed, ids = _seed(args.seed), _ids(args.ids, not args.no_limit)
        if args.plot is not None:
            plot_path(args.plot)
    except ConfigError as exc:
        return refuse("simulate", exc)
    cells = _accuracy.study(n=ids, seed=seed)
    print(_accuracy.render(cells))
    if args.plot is not None:
        try:
            _accuracy.heatmap(cells, args.plot)
        except OSError as exc:  # tried before the run (plot_path), so: the disk filled since
            return _unwritten(args.plot, exc)
        print(f"plot: {args.plot}")
    return 0


def _unwritten(path: str, exc: OSError) -> int:
    return refuse("simulate", ConfigError("--plot", f"cannot write {show(path)}: {exc.strerror or exc}"))


def run(args: argparse.Namespace) -> int:
    if without_numpy("simulate"):
        return 2
    if args.accuracy:
        return _accuracy(args)
    from dsampler.cli.simulate._report import render
    from dsampler.cli.simulate._scenario import load_scenario
    from dsampler.cli.simulate._simulation import simulate

    try:
        seed, target = _seed(args.seed), _target(args.target)
        if args.plot is not None:
            plot_path(args.plot)  # fail before the run, not after it
        scenario = load_scenario(args.scenario)
        if target is not None:
            scenario = dataclasses.replace(scenario, target_traces_per_second=target)
        result = simulate(scenario, seed, bounded=not args.no_limit)
    except ConfigError as exc:
        return refuse("simulate", exc, file=args.scenario)
    print(render(result))
    if args.plot is not None:
        from dsampler.cli.simulate._plot import plot

        try:
            plot(result, args.plot)
        except OSError as exc:
            return _unwritten(args.plot, exc)
        print(f"plot: {args.plot}")
    return 0
