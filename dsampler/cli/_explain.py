"""``dsampler explain``: how one span would be decided, and why.

    dsampler explain --config FILE [--trace-id HEX | --traceparent HEADER] --name NAME
                     [--kind K] [--attr k=v ...] [--resource k=v ...]

A trace ID is needed only where the decision hashes it: a drop rule, a rate limit, a
rate of 0 or 1 or a rollout not started are explained without one, and say so.

It decides as the running application would: the resource is ``Resource.create()``
(``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``) with ``--resource`` on top, and
with ``--traceparent`` the span has that remote parent, which it follows when the
configuration is parent-based. Decisions are worded as OpenTelemetry's
``Decision``: ``RECORD_AND_SAMPLE`` or ``DROP``. Rate limits are reported, not spent.

``--attr`` values are read as JSON numbers or booleans when they parse as such
(``retries=3``, ``sampled=true``), as strings otherwise; quote to force a string
(``code='"404"'``). ``--resource`` values are strings, as in ``OTEL_RESOURCE_ATTRIBUTES``.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from opentelemetry.trace import SpanKind

from dsampler._validate import show
from dsampler.cli._output import refuse, say
from dsampler.cli._traceparent import Traceparent, parse_traceparent
from dsampler.config import KINDS
from dsampler.errors import ConfigError

if TYPE_CHECKING:
    from dsampler import DSampler


SAMPLE, DROP = "RECORD_AND_SAMPLE", "DROP"  # OpenTelemetry's Decision names, used everywhere


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("explain", help="explain the decision for one span")
    parser.add_argument("--config", required=True, metavar="FILE", help="YAML or JSON configuration file")
    parser.add_argument(
        "--trace-id",
        metavar="HEX",
        help="trace ID of a root span, 1 to 32 hex digits (needed where the decision hashes it)",
    )
    parser.add_argument(
        "--traceparent", metavar="HEADER", help="W3C parent, 00-<trace id>-<parent id>-<flags>"
    )
    parser.add_argument("--name", required=True, help="span name (the operation)")
    parser.add_argument(
        "--kind", default="internal", help=f"span kind: {', '.join(KINDS)} (default internal)"
    )
    parser.add_argument(
        "--attr", action="append", default=[], metavar="K=V", help="span attribute (repeatable)"
    )
    parser.add_argument(
        "--resource",
        action="append",
        default=[],
        metavar="K=V",
        help="resource attribute (repeatable), over OTEL_RESOURCE_ATTRIBUTES",
    )


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


def parse_pairs(items: list[str], option: str, *, typed: bool = True) -> dict[str, Any]:
    """``k=v`` items -> a dict, values read by :func:`_value` when ``typed``, else kept
    as strings; a malformed item raises ConfigError naming the option."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(option, f"expected key=value, got {show(item)}")
        out[key] = _value(value) if typed else value
    return out


def _trace(args: argparse.Namespace) -> tuple[int | None, Traceparent | None]:
    parent = parse_traceparent(args.traceparent) if args.traceparent is not None else None
    if args.trace_id is None:
        return (None if parent is None else parent.trace_id), parent
    trace_id = parse_trace_id(args.trace_id)
    if parent is not None and parent.trace_id != trace_id:
        raise ConfigError("--trace-id", "differs from the trace-id of --traceparent; give one of them")
    return trace_id, parent


def _kind(text: str) -> SpanKind:
    name = text.strip().lower()
    if name not in KINDS:
        raise ConfigError("--kind", f"expected one of {', '.join(KINDS)}, got {show(text)}")
    return SpanKind[name.upper()]


def _sampler(args: argparse.Namespace) -> DSampler:
    from opentelemetry.sdk.resources import Resource

    from dsampler import DSampler

    # What DSampler(resource=None) reads in the application, plus the command line's,
    # strings as OTEL_RESOURCE_ATTRIBUTES gives them (service.version=2.0 is not a float).
    resource = Resource.create(parse_pairs(args.resource, "--resource", typed=False))
    return DSampler.from_file(args.config, watch=False, resource=resource)


def run(args: argparse.Namespace) -> int:
    try:
        trace_id, parent = _trace(args)
        kind = _kind(args.kind)
        attributes = parse_pairs(args.attr, "--attr")
        sampler = _sampler(args)
    except ConfigError as exc:
        return refuse("explain", exc, file=args.config)
    lines = [f"trace id:   {trace_id:032x}"] if trace_id is not None else []
    if parent is not None:
        lines += _parent_lines(sampler, parent, args.name, kind, attributes)
    if parent is None or not sampler.config.parent_based:
        info = sampler.explain(trace_id or 0, args.name, kind, attributes or None)
        if trace_id is None:
            if _hashes(info):
                needed = f"{info['source']} samples at rate {info['rate']:g} by a hash of the trace ID"
                problem = f"needed: {needed}; give --trace-id HEX or --traceparent HEADER"
                return refuse("explain", ConfigError("--trace-id", problem))
            lines.append("trace id:   none given; this decision does not depend on one")
            info["key"] = None
        lines += render(info, sampler.config.traces_per_second)
    for line in lines:
        say(line)
    return 0


def _hashes(info: dict[str, Any]) -> bool:
    """Whether :meth:`DSampler.explain`'s answer depends on the trace ID: a rate strictly
    between 0 and 1 tests its hash (a drop, a rate limit, rates 0 and 1 do not)."""
    return info.get("hash") is not None and 0.0 < info.get("rate", 0.0) < 1.0


def _parent_lines(
    sampler: DSampler, parent: Traceparent, name: str, kind: SpanKind, attributes: dict[str, Any]
) -> list[str]:
    flag = (
        f"parent:     {parent.span_id:016x}, remote, flags {parent.flags:02x} (sampled {int(parent.sampled)})"
    )
    if not sampler.config.parent_based:
        return [flag + "; not followed (parent_based: false)"]
    from opentelemetry import trace
    from opentelemetry.sdk.trace.sampling import Decision

    context = trace.set_span_in_context(
        trace.NonRecordingSpan(
            trace.SpanContext(
                parent.trace_id, parent.span_id, is_remote=True, trace_flags=trace.TraceFlags(parent.flags)
            )
        )
    )
    # The real decision path: following a parent spends no token.
    decision = sampler.should_sample(context, parent.trace_id, name, kind, attributes or None).decision
    sampled = decision is Decision.RECORD_AND_SAMPLE
    return [
        flag,
        f"decided by: the parent (parent_based: true; config version {sampler.config.version})",
        f"decision:   {SAMPLE if sampled else DROP}",
    ]


def render(info: dict[str, Any], cap: float | None = None) -> list[str]:
    """Lines for :meth:`DSampler.explain`'s answer on a root span; ``cap`` is the
    configuration's ``traces_per_second``."""
    lines = [f"decided by: {info['source']} (config version {info['version']})"]
    strategy = info["strategy"]
    if strategy == "drop":
        return [*lines, f"decision:   {DROP} (the rule drops every match)"]
    if strategy == "rollout" and info.get("hash") is None:
        return [*lines, f"decision:   {DROP} (the rollout has not started)"]
    if strategy == "ratelimiting":
        per_second = f"{info['per_second']:g}/s"
        lines.append(f"decision:   {SAMPLE} while its token bucket ({per_second}) has credit, else {DROP}")
    else:
        lines.append(f"decision:   {SAMPLE if info['sampled'] else DROP}")
        step = f", rollout step {info['step']}" if strategy == "rollout" else ""
        lines.append(f"rule:       {info['hash']} at rate {info['rate']:g}{step}")
        if info["key"] is not None:  # None: no trace ID given, none needed
            lines.append(f"hash:       0x{info['key']:016x} ({info['key']})")
            lines.append(f"bound:      0x{info['bound']:016x} ({info['bound']}); {SAMPLE} iff hash < bound")
        if info.get("lower_bound_per_second") and not info["sampled"]:
            lower = f"{info['lower_bound_per_second']:g}"
            lines.append(f"otherwise:  {SAMPLE} while the lower bound ({lower} traces/s) has credit")
    may_sample = strategy == "ratelimiting" or info["sampled"] or info.get("lower_bound_per_second")
    if cap is not None and may_sample:
        lines.append(f"cap:        traces_per_second {cap:g}: {DROP} instead once this process has spent it")
    return lines
