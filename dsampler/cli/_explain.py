"""``dsampler explain``: how one trace would be decided, and why.

    dsampler explain --config FILE --trace-id HEX --name NAME [--kind K]
                     [--attr k=v ...] [--resource k=v ...]

Attribute values are read as JSON numbers or booleans when they parse as such
(``retries=3``, ``sampled=true``), as strings otherwise; quote to force a string
(``code='"404"'``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from opentelemetry.trace import SpanKind

from dsampler._validate import show
from dsampler.config._rule import KINDS
from dsampler.errors import ConfigError

__all__ = ["add_parser", "parse_pairs", "parse_trace_id", "run"]


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("explain", help="explain the decision for one trace ID")
    parser.add_argument("--config", required=True, metavar="FILE", help="YAML or JSON configuration file")
    parser.add_argument("--trace-id", required=True, metavar="HEX", help="trace ID, 1 to 32 hex digits")
    parser.add_argument("--name", required=True, help="span name (the operation)")
    parser.add_argument(
        "--kind", default="internal", help=f"span kind: {', '.join(KINDS)} (default internal)"
    )
    parser.add_argument(
        "--attr", action="append", default=[], metavar="K=V", help="span attribute (repeatable)"
    )
    parser.add_argument("--resource", action="append", default=[], metavar="K=V", help="resource attribute")


def parse_trace_id(text: str) -> int:
    """Hex trace ID (an optional ``0x``; 64-bit Jaeger IDs are zero-extended)."""
    digits = text.strip().lower().removeprefix("0x")
    if not 1 <= len(digits) <= 32 or any(c not in "0123456789abcdef" for c in digits):
        raise ConfigError("--trace-id", f"expected 1 to 32 hex digits, got {show(text)}")
    return int(digits, 16)


def _value(text: str) -> Any:
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, (bool, int, float, str)) else text


def parse_pairs(items: list[str], option: str) -> dict[str, Any]:
    """``k=v`` items -> a dict; a malformed item raises ConfigError naming the option."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(option, f"expected key=value, got {show(item)}")
        out[key] = _value(value)
    return out


def run(args: argparse.Namespace) -> int:
    from dsampler.samplers._dsampler import DSampler

    try:
        trace_id = parse_trace_id(args.trace_id)
        kind_name = args.kind.strip().lower()
        if kind_name not in KINDS:
            raise ConfigError("--kind", f"expected one of {', '.join(KINDS)}, got {show(args.kind)}")
        attributes = parse_pairs(args.attr, "--attr")
        resource = parse_pairs(args.resource, "--resource")
        sampler = DSampler.from_file(args.config, watch=False, resource=resource)
    except ConfigError as exc:
        for problem in exc.errors:
            print(f"{problem.field}: {problem.problem}", file=sys.stderr)
        return 2
    info = sampler.explain(trace_id, args.name, SpanKind[kind_name.upper()], attributes or None)
    for line in render(info, trace_id):
        print(line)
    return 0


def render(info: dict[str, Any], trace_id: int) -> list[str]:
    """Human-readable lines of :meth:`DSampler.explain`'s answer."""
    lines = [
        f"trace id:   {trace_id:032x}",
        f"decided by: {info['source']} (config version {info['version']})",
    ]
    strategy = info["strategy"]
    if strategy == "drop":
        lines.append("decision:   DROP (the rule drops every match)")
    elif strategy == "ratelimiting":
        lines.append(f"decision:   sampled while its token bucket has credit ({info['per_second']:g}/s)")
    elif strategy == "rollout" and info.get("hash") is None:
        lines.append("decision:   DROP (the rollout has not started)")
    else:
        lines.append(f"decision:   {'RECORD_AND_SAMPLE' if info['sampled'] else 'DROP'}")
        step = f", rollout step {info['step']}" if strategy == "rollout" else ""
        lines.append(f"rule:       {info['hash']} at rate {info['rate']:g}{step}")
        lines.append(f"hash:       0x{info['key']:016x} ({info['key']})")
        lines.append(f"bound:      0x{info['bound']:016x} ({info['bound']}); sampled iff hash < bound")
        if info.get("lower_bound_per_second"):
            lower = info["lower_bound_per_second"]
            lines.append(f"otherwise:  a lower bound of {lower:g} traces/s may still sample it")
    return lines
