"""Response bodies -> :class:`StrategyResponse`, for every dialect servers put on the wire.

Three dialects exist (``docs/remote-sampling.md``): proto3-JSON with string enums (the
Jaeger collector, agent ``/sampling``, Jaeger v2 >= 2.16), legacy Thrift 0.9.2 JSON with
numeric enums (agent ``/``, Jaeger v2.0-2.15) and Go ``encoding/json`` of the gogo struct
(the OpenTelemetry Collector), which writes enums as numbers and omits every zero value.
One set of rules reads them all, proto3's:

- an absent or ``null`` member is unset, an absent number is 0 (``"probabilisticSampling":
  {}`` is rate 0, not jaeger-client-python's 0.001);
- ``strategyType`` may be a name, 0 or 1, absent or null; it is checked, never used to
  choose the strategy (see :attr:`StrategyResponse.strategy`);
- numbers may be JSON strings (``"0.5"``, ``"NaN"``) as gogo ``jsonpb`` accepts, then go
  through the same range checks: NaN, negative and > 1 rates are refused;
- unknown members are ignored (more lenient than ``jsonpb``, which is safe).

Hostile input is bounded: the body size, the number of operations, name lengths; any
problem raises :class:`~dsampler.errors.ConfigError` naming the wire field
(``operationSampling.perOperationStrategies[3].probabilisticSampling.samplingRate``), and
the caller keeps its current strategy.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

from dsampler._validate import MAX_TEXT, check_per_second, check_rate, check_text, show, typed
from dsampler.errors import ConfigError
from dsampler.remote._strategy import (
    PROBABILISTIC,
    RATE_LIMITING,
    OperationRate,
    PerOperationStrategy,
    ProbabilisticStrategy,
    RateLimitingStrategy,
    Strategy,
    StrategyResponse,
    StrategyType,
)

__all__ = ["MAX_OPERATIONS", "MAX_RESPONSE_BYTES", "parse_response", "parse_strategy"]

MAX_RESPONSE_BYTES: Final = 4 << 20  # 4 MiB, OpenTelemetry Java's cap; a 2,000-operation answer is ~150 KB
MAX_OPERATIONS: Final = 100_000  # per response; the sampler then keeps its max_operations of them

_ENUMS: Final[dict[object, StrategyType]] = {
    PROBABILISTIC: PROBABILISTIC,
    RATE_LIMITING: RATE_LIMITING,
    0: PROBABILISTIC,
    1: RATE_LIMITING,
}
# What gogo jsonpb accepts for a double given as a JSON string.
_NUMBER_TEXT: Final = re.compile(r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|NaN|-?Infinity")


def parse_strategy(body: bytes | str) -> Strategy:
    """The strategy a client acts on, from a response body.

    Raises:
        ConfigError: the body is not a usable strategy; the field is named.
    """
    return parse_response(body).strategy


def parse_response(body: bytes | str) -> StrategyResponse:
    """A whole ``SamplingStrategyResponse`` from a body in any dialect.

    Raises:
        ConfigError: oversized, not JSON, not an object, or a member is invalid.
    """
    data = _json_object(body)
    kind = _strategy_type(data.get("strategyType"))
    prob = _section(data, "probabilisticSampling", "probabilisticSampling")
    limit = _section(data, "rateLimitingSampling", "rateLimitingSampling")
    ops = _section(data, "operationSampling", "operationSampling")
    return StrategyResponse(
        kind or PROBABILISTIC,  # absent is proto3's 0 (the OTel Collector omits it)
        probabilistic=None if prob is None else _probabilistic(prob, "probabilisticSampling"),
        rate_limiting=None if limit is None else _rate_limiting(limit),
        per_operation=None if ops is None else _per_operation(ops),
    )


def _json_object(body: bytes | str) -> Mapping[str, Any]:
    if not isinstance(body, (bytes, bytearray, str)):
        raise ConfigError("response", f"expected bytes, got {typed(body)}")
    if len(body) > MAX_RESPONSE_BYTES:
        raise ConfigError("response", f"expected at most {MAX_RESPONSE_BYTES} bytes, got {len(body)}")
    try:
        text = body.decode("utf-8") if isinstance(body, (bytes, bytearray)) else body
        data = json.loads(text)
    except UnicodeDecodeError as exc:
        raise ConfigError("response", f"not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(
            "response", f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except (ValueError, RecursionError) as exc:  # 10**5000, or [[[[... nested too deeply
        raise ConfigError("response", f"not usable JSON: {type(exc).__name__}") from None
    if not isinstance(data, dict):
        raise ConfigError("response", f"expected a JSON object, got {typed(data)}")
    return data


def _strategy_type(value: object) -> StrategyType | None:
    if value is None:
        return None
    found = _ENUMS.get(value) if type(value) in (str, int) else None
    if found is None:
        raise ConfigError(
            "strategyType", f"expected PROBABILISTIC, RATE_LIMITING, 0 or 1, got {typed(value)}"
        )
    return found


def _section(data: Mapping[str, Any], key: str, path: str) -> Mapping[str, Any] | None:
    """A member that holds an object; absent and null are unset."""
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ConfigError(path, f"expected a JSON object, got {typed(value)}")
    return value


def _number(data: Mapping[str, Any], key: str, path: str) -> object:
    """A number member: absent/null is 0, a numeric JSON string is its number."""
    value = data.get(key)
    if value is None:
        return 0.0
    if isinstance(value, str):
        if len(value) > 64 or not _NUMBER_TEXT.fullmatch(value):
            raise ConfigError(path, f"expected a number, got {typed(value)}")
        return float(value)
    return value  # the range check refuses bools, lists and objects by name


def _probabilistic(data: Mapping[str, Any], path: str) -> ProbabilisticStrategy:
    rate_path = f"{path}.samplingRate"
    return ProbabilisticStrategy(check_rate(_number(data, "samplingRate", rate_path), rate_path))


def _rate_limiting(data: Mapping[str, Any]) -> RateLimitingStrategy:
    path = "rateLimitingSampling.maxTracesPerSecond"
    return RateLimitingStrategy(check_per_second(_number(data, "maxTracesPerSecond", path), path))


def _per_operation(data: Mapping[str, Any]) -> PerOperationStrategy:
    path = "operationSampling"
    rate_path = f"{path}.defaultSamplingProbability"
    rate = check_rate(_number(data, "defaultSamplingProbability", rate_path), rate_path)
    bound_path = f"{path}.defaultLowerBoundTracesPerSecond"
    bound = check_per_second(_number(data, "defaultLowerBoundTracesPerSecond", bound_path), bound_path)
    entries = data.get("perOperationStrategies")
    list_path = f"{path}.perOperationStrategies"
    if entries is None:
        entries = []
    if not isinstance(entries, list):
        raise ConfigError(list_path, f"expected a JSON array, got {typed(entries)}")
    if len(entries) > MAX_OPERATIONS:
        raise ConfigError(list_path, f"expected at most {MAX_OPERATIONS} operations, got {len(entries)}")
    ops = tuple(_operation(entry, f"{list_path}[{i}]") for i, entry in enumerate(entries))
    return PerOperationStrategy(rate, bound, ops)


def _operation(entry: object, path: str) -> OperationRate:
    if not isinstance(entry, dict):
        raise ConfigError(path, f"expected a JSON object, got {typed(entry)}")
    name = entry.get("operation")
    name = check_text("" if name is None else name, f"{path}.operation", MAX_TEXT)
    prob = _section(entry, "probabilisticSampling", f"{path}.probabilisticSampling")
    if prob is None:  # absent message: proto3's zero value, rate 0
        return OperationRate(name, 0.0)
    try:
        return OperationRate(name, _probabilistic(prob, f"{path}.probabilisticSampling").rate)
    except ConfigError as exc:
        raise ConfigError(exc.field, f"{exc.problem} (operation {show(name, 40)})") from None
