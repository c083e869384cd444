"""``dsampler check FILE...``: validate configuration files.

Prints one summary line per valid file and exits 0; otherwise one line per problem,
``FILE: field.path: expected ..., got ...``, and exits 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from dsampler.config._files import read_config_file
from dsampler.config._model import SamplingConfig
from dsampler.errors import ConfigError

__all__ = ["add_parser", "run", "summary"]


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("check", help="validate configuration files (exit 2 on problems)")
    parser.add_argument("files", nargs="+", metavar="FILE", help="YAML or JSON configuration file")


def summary(config: SamplingConfig) -> str:
    """One line describing a valid configuration."""
    cap = f"{config.traces_per_second:g}/s" if config.traces_per_second is not None else "none"
    rate = f"rate {config.rate:g}"
    if config.adaptive is not None:
        rate = f"adaptive rate (target {config.adaptive.target_traces_per_second:g}/s)"
    return (
        f"{rate} ({config.hash}), parent-based {'on' if config.parent_based else 'off'}, "
        f"{_count(len(config.rules), 'rule')}, {_count(len(config.operations), 'operation')}, cap {cap}"
    )


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def run(args: argparse.Namespace) -> int:
    failed = False
    for name in args.files:
        try:
            config, _ = read_config_file(name)
        except ConfigError as exc:
            failed = True
            for problem in exc.errors:
                where = problem.field if problem.field == name else f"{name}: {problem.field}"
                print(f"{where}: {problem.problem}", file=sys.stderr)
            continue
        print(f"{name}: OK: {summary(config)}")
    return 2 if failed else 0
