"""Response bodies in every dialect servers send -> :class:`StrategyResponse`, by proto3's
rules: absent numbers are 0, ``strategyType`` never chooses, numbers may be strings,
unknown members are ignored. Every problem is a ConfigError naming the wire field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

from dsampler._validate import MAX_TEXT, check_per_second, check_rate, check_text, read_int, show, typed
from dsampler.errors import ConfigError
from dsampler.protocol._strategy import (
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

MAX_RESPONSE_BYTES: Final = 4 << 20  # 4 MiB, OpenTelemetry Java's cap; a 2,000-operation answer is ~150 KB
MAX_OPERATIONS: Final = 100_000  # per response; the sampler then keeps its max_operations of them

_ENUMS: Final[dict[object, StrategyType]] = {
    None: PROBABILISTIC,  # absent is proto3's 0 (the OTel Collector omits it)
    PROBABILISTIC: PROBABILISTIC,
    RATE_LIMITING: RATE_LIMITING,
    0: PROBABILISTIC,
    1: RATE_LIMITING,
}
# What gogo jsonpb accepts for a double given as a JSON string.
_NUMBER_TEXT: Final = re.compile(r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|NaN|-?Infinity")


@dataclass(frozen=True, slots=True)
class Reading:
    """How a decoded response is read: the number an absent (or null) member stands for, by
    member name (others: 0), and the words errors use for objects and arrays."""

    absent: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    mapping: str = "a JSON object"
    sequence: str = "a JSON array"


#: The wire's reading: every absent number is 0.
PROTO3: Final = Reading()


def parse_strategy(body: bytes | str) -> Strategy:
    """The strategy a client acts on, from a response body.

    Raises:
        ConfigError: the body is not a usable strategy; the field is named.
    """
    return parse_response(body).strategy


def parse_response(body: bytes | str, reading: Reading = PROTO3) -> StrategyResponse:
    """A whole ``SamplingStrategyResponse`` from a body in any dialect.

    Raises:
        ConfigError: oversized, not JSON, not an object, or a member is invalid.
    """
    if not isinstance(body, (bytes, bytearray, str)):
        raise ConfigError("response", f"expected bytes, got {typed(body)}")
    if len(body) > MAX_RESPONSE_BYTES:
        raise ConfigError("response", f"expected at most {MAX_RESPONSE_BYTES} bytes, got {len(body)}")
    data = decode_json(body)
    if not isinstance(data, dict):
        raise ConfigError("response", f"expected a JSON object, got {typed(data)}")
    return parse_mapping(data, reading)


def parse_mapping(data: object, reading: Reading = PROTO3) -> StrategyResponse:
    """A whole response already decoded (what ``json.loads`` gives for a body).

    Raises:
        ConfigError: not a mapping, or a member is invalid; the field is named.
    """
    if not isinstance(data, Mapping):
        raise ConfigError("response", f"expected {reading.mapping}, got {typed(data)}")
    kind = _strategy_type(data.get("strategyType"))
    prob = _section(data, "probabilisticSampling", "probabilisticSampling", reading)
    limit = _section(data, "rateLimitingSampling", "rateLimitingSampling", reading)
    ops = data.get("operationSampling")
    return StrategyResponse(
        kind,
        probabilistic=None if prob is None else _probabilistic(prob, "probabilisticSampling", reading),
        rate_limiting=None if limit is None else _rate_limiting(limit, reading),
        per_operation=None if ops is None else parse_operation_sampling(ops, reading),
    )


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def decode_json(body: bytes | str, path: str = "response", *, constants: bool = True) -> object:
    """``body``'s JSON (integers by :func:`read_int`), every problem a ConfigError for
    ``path``; ``constants=False`` refuses NaN and Infinity, as Go does."""
    try:
        text = body.decode("utf-8") if isinstance(body, (bytes, bytearray)) else body
        return json.loads(text, parse_int=read_int, parse_constant=None if constants else _reject_constant)
    except UnicodeDecodeError as exc:
        raise ConfigError(path, f"not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(path, f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except (ValueError, RecursionError) as exc:  # [[[[... nested too deeply
        raise ConfigError(path, f"not usable JSON: {exc}") from None


def _strategy_type(value: object) -> StrategyType:
    found = _ENUMS.get(value) if type(value) in (str, int, type(None)) else None
    if found is None:
        raise ConfigError(
            "strategyType", f"expected PROBABILISTIC, RATE_LIMITING, 0 or 1, got {typed(value)}"
        )
    return found


def _section(data: Mapping[str, Any], key: str, path: str, reading: Reading) -> Mapping[str, Any] | None:
    """A member that holds an object; absent and null are unset."""
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ConfigError(path, f"expected {reading.mapping}, got {typed(value)}")
    return value


def _number(
    data: Mapping[str, Any], key: str, path: str, reading: Reading, check: Callable[[object, str], float]
) -> float:
    """A number member by ``check``: absent/null is the reading's (0), a numeric JSON string its number."""
    field, value = f"{path}.{key}", data.get(key)
    if value is None:
        value = reading.absent.get(key, 0.0)
    elif isinstance(value, str):
        if len(value) > 64 or not _NUMBER_TEXT.fullmatch(value):
            raise ConfigError(field, f"expected a number, got {typed(value)}")
        value = float(value)
    return check(value, field)  # it refuses bools, lists and objects by name


def _probabilistic(data: Mapping[str, Any], path: str, reading: Reading) -> ProbabilisticStrategy:
    return ProbabilisticStrategy(_number(data, "samplingRate", path, reading, check_rate))


def _rate_limiting(data: Mapping[str, Any], reading: Reading) -> RateLimitingStrategy:
    path = "rateLimitingSampling"
    return RateLimitingStrategy(_number(data, "maxTracesPerSecond", path, reading, check_per_second))


def parse_operation_sampling(data: object, reading: Reading = PROTO3) -> PerOperationStrategy:
    """An ``operationSampling`` member (jaeger-client's ``AdaptiveSampler`` argument).

    Raises:
        ConfigError: not a mapping, or a member is invalid; the field is named.
    """
    path = "operationSampling"
    if not isinstance(data, Mapping):
        raise ConfigError(path, f"expected {reading.mapping}, got {typed(data)}")
    rate = _number(data, "defaultSamplingProbability", path, reading, check_rate)
    bound = _number(data, "defaultLowerBoundTracesPerSecond", path, reading, check_per_second)
    entries = data.get("perOperationStrategies")
    list_path = f"{path}.perOperationStrategies"
    if entries is None:
        entries = []
    if not isinstance(entries, list):
        raise ConfigError(list_path, f"expected {reading.sequence}, got {typed(entries)}")
    if len(entries) > MAX_OPERATIONS:
        raise ConfigError(list_path, f"expected at most {MAX_OPERATIONS} operations, got {len(entries)}")
    ops = tuple(_operation(entry, f"{list_path}[{i}]", reading) for i, entry in enumerate(entries))
    return PerOperationStrategy(rate, bound, ops)


def _operation(entry: object, path: str, reading: Reading) -> OperationRate:
    if not isinstance(entry, Mapping):
        raise ConfigError(path, f"expected {reading.mapping}, got {typed(entry)}")
    name = entry.get("operation")
    # A plain copy of the text: a str subclass's own __hash__/__eq__ never run later.
    name = str.__str__(check_text("" if name is None else name, f"{path}.operation", MAX_TEXT))
    prob = _section(entry, "probabilisticSampling", f"{path}.probabilisticSampling", reading)
    try:
        return OperationRate(name, _probabilistic(prob or {}, f"{path}.probabilisticSampling", reading).rate)
    except ConfigError as exc:
        raise ConfigError(exc.field, f"{exc.problem} (operation {show(name, 40)})") from None
