"""``jaeger.api_v2`` sampling messages in protobuf binary (gRPC's ``GetSamplingStrategy``),
to and from the strategy model. Field numbers (jaeger-idl ``proto/api_v2/sampling.proto``)::

    SamplingStrategyParameters     serviceName = 1 (string)
    SamplingStrategyResponse       strategyType = 1 (enum: PROBABILISTIC 0, RATE_LIMITING 1)
                                   probabilisticSampling = 2, rateLimitingSampling = 3,
                                   operationSampling = 4
    ProbabilisticSamplingStrategy  samplingRate = 1 (double)
    RateLimitingSamplingStrategy   maxTracesPerSecond = 1 (int32)
    PerOperationSamplingStrategies defaultSamplingProbability = 1 (double),
                                   defaultLowerBoundTracesPerSecond = 2 (double),
                                   perOperationStrategies = 3 (repeated),
                                   defaultUpperBoundTracesPerSecond = 4 (double)
    OperationSamplingStrategy      operation = 1 (string), probabilisticSampling = 2

:func:`encode_response` writes what Jaeger's file provider sends, so a gRPC answer and
the proto3-JSON one carry the same values; :func:`decode_response` reads the messages as
their JSON objects, by the JSON parser, after protobuf's rules (merged sub-messages, last
scalar wins, unknown fields skipped).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Final, TypeAlias, cast

from dsampler.errors import ConfigError
from dsampler.protocol._parse import MAX_OPERATIONS, MAX_RESPONSE_BYTES, parse_mapping
from dsampler.protocol._render import response_object
from dsampler.protocol._strategy import RATE_LIMITING, StrategyResponse
from dsampler.protocol._wire import (
    LEN,
    VARINT,
    Field,
    double_field,
    expect,
    fields,
    last,
    message_field,
    read_double,
    read_text,
    string_field,
    varint_field,
)

#: A request is a service name; 16 KiB is twice the HTTP server's URL cap.
MAX_REQUEST_BYTES: Final = 16 << 10
_INT32_MAX: Final = (1 << 31) - 1


def encode_params(service: str) -> bytes:
    """A ``SamplingStrategyParameters`` for ``service`` (what a client sends)."""
    return string_field(1, service)


def decode_params(data: bytes) -> str:
    """The ``serviceName`` of a ``SamplingStrategyParameters`` ("" when absent).

    Raises:
        ConfigError: oversized or malformed bytes, or a name that is not UTF-8.
    """
    if len(data) > MAX_REQUEST_BYTES:
        raise ConfigError("request", f"expected at most {MAX_REQUEST_BYTES} bytes, got {len(data)}")
    return last(bytes(data), "request", 1, read_text, "serviceName", "")


def _int32(found: Field, path: str) -> int:
    value = expect(found, VARINT, path, int) & 0xFFFFFFFF  # int32: the varint's low 32 bits, as protobuf
    return value - (1 << 32) if value > _INT32_MAX else value


#: A scalar field's reader and writer.
Scalar: TypeAlias = tuple[Callable[[Field, str], object], Callable[[int, Any], bytes]]
_DOUBLE: Final[Scalar] = (read_double, double_field)
_INT32: Final[Scalar] = (_int32, lambda number, value: varint_field(number, math.trunc(value)))
#: A message's fields: number -> (JSON member, a scalar, a sub-message's fields or, in a
#: list, a repeated sub-message's), as the module docstring lists them.
Known: TypeAlias = "dict[int, tuple[str, Scalar | Known | list[Known]]]"
_RATE: Final[Known] = {1: ("samplingRate", _DOUBLE)}
_OPERATION: Final[Known] = {1: ("operation", (read_text, string_field)), 2: ("probabilisticSampling", _RATE)}
_PER_OPERATION: Final[Known] = {
    1: ("defaultSamplingProbability", _DOUBLE),
    2: ("defaultLowerBoundTracesPerSecond", _DOUBLE),
    3: ("perOperationStrategies", [_OPERATION]),
    4: ("defaultUpperBoundTracesPerSecond", _DOUBLE),  # read and checked, not modelled
}
_RESPONSE: Final[Known] = {
    1: ("strategyType", _INT32),
    2: ("probabilisticSampling", _RATE),
    3: ("rateLimitingSampling", {1: ("maxTracesPerSecond", _INT32)}),  # at most 1e9: an int32
    4: ("operationSampling", _PER_OPERATION),
}


def _message(members: Mapping[str, Any], known: Known) -> bytes:
    """The message whose JSON object is ``members``, in field order, zeros left out."""
    out: list[bytes] = []
    for number, (key, kind) in known.items():
        value = members.get(key)
        if value is None:
            continue
        if isinstance(kind, list):
            out.extend(message_field(number, _message(entry, kind[0])) for entry in value)
        elif isinstance(kind, dict):
            out.append(message_field(number, _message(value, kind)))
        else:
            out.append(kind[1](number, value))
    return b"".join(out)


def encode_response(response: StrategyResponse) -> bytes:
    """A ``SamplingStrategyResponse`` carrying ``response`` (see the module docstring)."""
    kind = 1 if response.strategy_type == RATE_LIMITING else 0
    return _message(response_object(response, kind), _RESPONSE)


def _object(
    data: bytes, path: str, known: Known, prefix: str, check: Callable[..., object] | None = None
) -> dict[str, Any]:
    """A message as its JSON object (absent members left out, read as the JSON parser reads
    them): the last scalar wins, a singular sub-message sent twice is merged, as parsing the
    concatenation merges it; ``check`` sees the scalars before the sub-messages are read.
    ``prefix`` starts its fields' names."""
    members: dict[str, Any] = {}
    parts: dict[int, list[bytes]] = {}
    for found in fields(data, path):
        key, read = known.get(found[0], ("", None))
        field_path = prefix + key
        if isinstance(read, list):
            entries = members.setdefault(key, [])
            if len(entries) == MAX_OPERATIONS:  # the only repeated field: operations
                raise ConfigError(field_path, f"expected at most {MAX_OPERATIONS} operations")
            entry_path = f"{field_path}[{len(entries)}]"
            entry = expect(found, LEN, entry_path, bytes)
            entries.append(_object(entry, entry_path, read[0], entry_path + "."))
        elif isinstance(read, dict):
            parts.setdefault(found[0], []).append(expect(found, LEN, field_path, bytes))
        elif read is not None:
            members[key] = read[0](found, field_path)
    if check is not None:
        check(members)
    for number in sorted(parts):  # read in field order
        key, inner = known[number]
        members[key] = _object(b"".join(parts[number]), prefix + key, cast(Known, inner), f"{prefix}{key}.")
    return members


def decode_response(data: bytes) -> StrategyResponse:
    """A whole ``SamplingStrategyResponse`` from protobuf bytes, read as its JSON object is.

    Raises:
        ConfigError: oversized or malformed bytes, or an invalid value; the field is named.
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ConfigError("response", f"expected bytes, got {type(data).__name__}")
    if len(data) > MAX_RESPONSE_BYTES:
        raise ConfigError("response", f"expected at most {MAX_RESPONSE_BYTES} bytes, got {len(data)}")
    return parse_mapping(_object(bytes(data), "response", _RESPONSE, "", _strategy_type))


def _strategy_type(members: dict[str, Any]) -> None:
    kind = members.get("strategyType", 0)
    if kind not in (0, 1):
        raise ConfigError("strategyType", f"expected 0 (PROBABILISTIC) or 1 (RATE_LIMITING), got {kind}")
