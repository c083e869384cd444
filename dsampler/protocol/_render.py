""":class:`StrategyResponse` -> bytes, as Jaeger and the Collector write them: ``proto3``
(Jaeger's), ``legacy`` (numeric enums), ``go-struct`` (the Collector's: zeros omitted).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any, Final, Literal, TypeAlias, cast

from dsampler.protocol._strategy import RATE_LIMITING, StrategyResponse

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


def response_object(response: StrategyResponse, kind: str | int) -> dict[str, Any]:
    """``response`` as its JSON object, ``strategyType`` written as ``kind``, every number
    present (``defaultUpperBoundTracesPerSecond`` 0, as Jaeger's file provider sends it)."""
    prob, limit, ops = response.probabilistic, response.rate_limiting, response.per_operation
    members: dict[str, Any] = {"strategyType": kind}
    if prob is not None:
        members["probabilisticSampling"] = {"samplingRate": prob.rate}
    if limit is not None:
        members["rateLimitingSampling"] = {"maxTracesPerSecond": limit.traces_per_second}
    if ops is not None:
        members["operationSampling"] = {
            "defaultSamplingProbability": ops.default_rate,
            "defaultLowerBoundTracesPerSecond": ops.default_lower_bound_per_second,
            "perOperationStrategies": [
                {"operation": op.operation, "probabilisticSampling": {"samplingRate": op.rate}}
                for op in ops.operations
            ],
            "defaultUpperBoundTracesPerSecond": 0.0,
        }
    return members


def _json(value: object, go: bool) -> str | None:
    """``value`` as Go writes it; None (left out) for a 0, "" or [] that ``go`` omits."""
    if isinstance(value, dict):
        members = [f'"{key}":{text}' for key, item in value.items() if (text := _json(item, go)) is not None]
        return "{" + ",".join(members) + "}"
    if go and not value:
        return None
    if isinstance(value, list):
        return "[" + ",".join([str(_json(item, go)) for item in value]) + "]"
    return go_string(value) if isinstance(value, str) else go_number(cast(float, value))


def render(response: StrategyResponse, dialect: Dialect = "proto3") -> bytes:
    """The response body in ``dialect`` (see the module docstring)."""
    numeric = 1 if response.strategy_type == RATE_LIMITING else 0
    kind = response.strategy_type if dialect == "proto3" else numeric
    return str(_json(response_object(response, kind), dialect == "go-struct")).encode("utf-8")
