""":class:`StrategyResponse` -> bytes, as Jaeger and the Collector write them: ``proto3``
(Jaeger's), ``legacy`` (numeric enums), ``go-struct`` (the Collector's: zeros omitted).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Final, Literal, TypeAlias

from dsampler.protocol._strategy import RATE_LIMITING, PerOperationStrategy, StrategyResponse

Dialect: TypeAlias = Literal["proto3", "legacy", "go-struct"]
DIALECTS: Final[tuple[Dialect, ...]] = ("proto3", "legacy", "go-struct")

# Go >= 1.22 writes \b and \f short too.
_ESCAPES: Final = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_NEEDS_ESCAPE: Final = re.compile('["\\\\\x00-\x1f<>&\u2028\u2029\ud800-\udfff]')


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if "\ud800" <= char <= "\udfff":  # a lone surrogate (from a "\ud800" escape): Go writes U+FFFD
        return "\ufffd"
    return _ESCAPES.get(char) or f"\\u{ord(char):04x}"


def go_string(text: str) -> str:
    """A JSON string as Go's ``encoding/json`` writes it (UTF-8 kept, HTML-safe)."""
    return f'"{_NEEDS_ESCAPE.sub(_escape, text)}"'


def go_number(value: float) -> str:
    """A float64 as Go's ``encoding/json`` writes it: ``1``, ``0.5``, ``1e-7``, ``1e+21``."""
    if value == 0:
        return "0"
    if abs(value) < 1e-6 or abs(value) >= 1e21:
        text = repr(float(value))  # shortest digits, exponent form in this range
        if text[-4:-1] == "e-0":  # Go trims e-07 to e-7 (and only that)
            text = text[:-2] + text[-1]
        return text
    text = format(Decimal(repr(float(value))), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _members(pairs: list[tuple[str, str | None]]) -> str:
    return "{" + ",".join(f'"{key}":{value}' for key, value in pairs if value is not None) + "}"


def _scalar(value: float, omit_zero: bool) -> str | None:
    return None if omit_zero and value == 0 else go_number(value)


def _per_operation(ops: PerOperationStrategy, go: bool) -> str:
    entries = [
        _members(
            [
                ("operation", None if go and not op.operation else go_string(op.operation)),
                ("probabilisticSampling", _members([("samplingRate", _scalar(op.rate, go))])),
            ]
        )
        for op in ops.operations
    ]
    listed = "[" + ",".join(entries) + "]"
    return _members(
        [
            ("defaultSamplingProbability", _scalar(ops.default_rate, go)),
            ("defaultLowerBoundTracesPerSecond", _scalar(ops.default_lower_bound_per_second, go)),
            ("perOperationStrategies", None if go and not entries else listed),
            ("defaultUpperBoundTracesPerSecond", None if go else "0"),
        ]
    )


def render(response: StrategyResponse, dialect: Dialect = "proto3") -> bytes:
    """The response body in ``dialect`` (see the module docstring)."""
    go = dialect == "go-struct"
    numeric = "1" if response.strategy_type == RATE_LIMITING else "0"
    kind = {"proto3": f'"{response.strategy_type}"', "legacy": numeric}.get(dialect)
    if go:
        kind = None if numeric == "0" else numeric
    prob, limit, ops = response.probabilistic, response.rate_limiting, response.per_operation
    body = _members(
        [
            ("strategyType", kind),
            (
                "probabilisticSampling",
                None if prob is None else _members([("samplingRate", _scalar(prob.rate, go))]),
            ),
            (
                "rateLimitingSampling",
                None
                if limit is None
                else _members([("maxTracesPerSecond", _scalar(limit.traces_per_second, go))]),
            ),
            ("operationSampling", None if ops is None else _per_operation(ops, go)),
        ]
    )
    return body.encode("utf-8")
