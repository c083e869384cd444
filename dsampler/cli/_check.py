"""``dsampler check FILE...``: validate configuration files (``-`` reads standard input).

A file is a dsampler configuration (YAML or JSON), or a Jaeger strategies file, told
apart and checked as ``dsampler serve`` reads it (JSON with ``default_strategy`` or
``service_strategies``); the warnings ``serve`` would log for it are printed too.
Prints one summary line per valid file on stdout (and, for a file with an ``adaptive:``
section, a second: what its health policy does to the rate), then which path would hash each
of their hash schemes in this environment (numba's kernels, pure Python or C, and why); one
line per problem on stderr,
``dsampler check: FILE: field.path: expected ..., got ...``. Exits 2 when any file has a problem, else
0, whatever happens to the output: ``dsampler check bad.yaml | head -1`` still exits 2.

Each file is at most 1 MiB (any dsampler configuration's bound, refused after reading
1 MiB and a byte); files named at once are at most :data:`MAX_TOTAL_BYTES` in all,
refused before any is read, in one line, unless ``--no-limit``.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from typing import Any, Final

from dsampler.cli._output import error, say
from dsampler.config import MAX_FILE_BYTES, SamplingConfig, locate, parse_config_bytes, read_bytes
from dsampler.errors import ConfigError
from dsampler.hashing import hashing_path
from dsampler.protocol import StrategyResponse
from dsampler.serve import Strategies, count_services, jaeger_document, load_strategies

STDIN_NAME: Final = "<stdin>"  # how `-` is named in messages
MAX_TOTAL_BYTES: Final = 64 * MAX_FILE_BYTES  # 64 MiB: about a minute of parsing at worst


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("check", help="validate configuration files (exit 2 on problems)")
    parser.add_argument(
        "files", nargs="+", metavar="FILE", help="YAML or JSON configuration file; - reads standard input"
    )
    parser.add_argument(
        "--no-limit",
        action="store_true",
        help=f"check files of more than {MAX_TOTAL_BYTES >> 20} MiB in all (each stays at most 1 MiB)",
    )


def summary(config: SamplingConfig) -> str:
    """One line describing a valid configuration."""
    cap = f"{config.traces_per_second:g}/s" if config.traces_per_second is not None else "none"
    rate = f"rate {config.rate:g}"
    if config.adaptive is not None:
        per = "per host" if config.adaptive.share == "host" else "per process"
        rate = f"adaptive rate (target {config.adaptive.target_traces_per_second:g}/s {per})"
    return (
        f"{rate} ({config.hash}), parent-based {'on' if config.parent_based else 'off'}, "
        f"{_count(len(config.rules), 'rule')}, {_count(len(config.operations), 'operation')}, cap {cap}"
    )


def health(config: SamplingConfig) -> str | None:
    """What the ``adaptive:`` section's health policy does to the rate, in one line (None
    without the section): it cuts sampling when the service is unwell, and says so."""
    if config.adaptive is None:
        return None
    policy = config.adaptive.health
    if policy is None:
        return "health policy off: the adaptive rate is not cut when the service is unwell"
    cuts = []
    if policy.error_multiplier < 1.0:
        share = policy.error_ratio * 100
        cuts.append(f"x{policy.error_multiplier:g} while over {share:g}% of root spans fail")
    if policy.latency_multiplier < 1.0:
        target = config.adaptive.p99_target_s * 1000
        cuts.append(f"x{policy.latency_multiplier:g} while root-span P99 is over {target:g} ms")
    if not cuts:
        return "health policy: the adaptive rate is not cut (both multipliers are 1)"
    return (
        f"health policy: the adaptive rate {' and '.join(cuts)} (never below {policy.floor:g} by it; "
        "health: false turns it off)"
    )


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _response(response: StrategyResponse) -> str:
    limit, ops = response.rate_limiting, response.per_operation
    kind = f"ratelimiting {limit.traces_per_second:g}/s" if limit is not None else "probabilistic"
    if limit is None and response.probabilistic is not None:
        kind += f" {response.probabilistic.rate:g}"
    return kind if ops is None else f"{kind}, {_count(len(ops.operations), 'operation')}"


def jaeger_summary(strategies: Strategies) -> str:
    """One line describing a valid Jaeger strategies file."""
    return f"Jaeger strategies: default {_response(strategies.default)}; {count_services(strategies)}"


def read_stdin() -> bytes:
    """The bytes on standard input (at most a file's bound, and a byte)."""
    stream = getattr(sys.stdin, "buffer", None)  # None when the process has no stdin
    if stream is None:
        raise ConfigError(STDIN_NAME, "cannot read standard input: it is closed")
    try:
        data: bytes = stream.read(MAX_FILE_BYTES + 1)  # one byte more tells "too large"
    except OSError as exc:
        raise ConfigError(STDIN_NAME, f"cannot read standard input: {exc.strerror or exc}") from None
    return data


def _check_one(name: str) -> tuple[str, SamplingConfig | Strategies | ConfigError]:
    label = STDIN_NAME if name == "-" else name
    try:
        data = read_stdin() if name == "-" else read_bytes(name)
        if len(data) <= MAX_FILE_BYTES and jaeger_document(data) is not None:
            return label, load_strategies(data, label)  # as dsampler serve reads it
        return label, parse_config_bytes(data, label)
    except ConfigError as exc:
        return label, exc


def _parsed_bytes(names: list[str]) -> tuple[int, int]:
    """How many bytes the files would have parsed, and of how many files: each regular
    file's size if it is within the bound of one file (a larger one is refused unparsed),
    standard input as the most it may be. Files that cannot be looked at count 0: they
    are reported by name when read."""
    total = count = 0
    for name in names:
        size = MAX_FILE_BYTES
        if name != "-":
            try:
                info = os.stat(name)
            except (OSError, ValueError):
                continue
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
                continue
            size = info.st_size
        total, count = total + size, count + 1
    return total, count


def run(args: argparse.Namespace) -> int:
    if args.files.count("-") > 1:
        error("check", f"{STDIN_NAME}: given more than once; standard input can be read once")
        return 2
    total, count = _parsed_bytes(args.files)
    if total > MAX_TOTAL_BYTES and not args.no_limit:
        error(
            "check",
            f"expected at most {MAX_TOTAL_BYTES >> 20} MiB of files to check at once (about a minute), "
            f"got {total / (1 << 20):.1f} MiB in {count} files; check fewer at once, "
            "or --no-limit to check them all",
        )
        return 2
    failed, hashes = False, []
    for name in args.files:
        label, outcome = _check_one(name)
        if isinstance(outcome, ConfigError):
            failed = True
            for problem in outcome.errors:
                error("check", locate(label, problem))
        elif isinstance(outcome, Strategies):
            say(f"{label}: OK: {jaeger_summary(outcome)}")
            for warning in outcome.warnings:
                error("check", f"{label}: warning: {warning}")
        else:
            say(f"{label}: OK: {summary(outcome)}")
            if (policy := health(outcome)) is not None:
                say(f"{label}: {policy}")
            hashes.append(outcome.hash)
    for name in dict.fromkeys(hashes):  # how this process would hash each, in order
        say(f"hashing {name}: {hashing_path(name)}")
    return 2 if failed else 0
