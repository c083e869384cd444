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
from typing import Final

from dsampler.errors import ConfigError
from dsampler.protocol._parse import MAX_OPERATIONS, MAX_RESPONSE_BYTES, parse_mapping
from dsampler.protocol._strategy import RATE_LIMITING, PerOperationStrategy, StrategyResponse
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


def _per_operation(ops: PerOperationStrategy) -> bytes:
    entries = b"".join(
        message_field(3, string_field(1, op.operation) + message_field(2, double_field(1, op.rate)))
        for op in ops.operations
    )
    # defaultUpperBoundTracesPerSecond = 4 is 0 (left out), as the file provider sends it
    return double_field(1, ops.default_rate) + double_field(2, ops.default_lower_bound_per_second) + entries


def encode_response(response: StrategyResponse) -> bytes:
    """A ``SamplingStrategyResponse`` carrying ``response`` (see the module docstring)."""
    prob, limit, ops = response.probabilistic, response.rate_limiting, response.per_operation
    out = varint_field(1, 1 if response.strategy_type == RATE_LIMITING else 0)
    if prob is not None:
        out += message_field(2, double_field(1, prob.rate))
    if limit is not None:
        # at most MAX_PER_SECOND (1e9), so it fits an int32
        out += message_field(3, varint_field(1, math.trunc(limit.traces_per_second)))
    if ops is not None:
        out += message_field(4, _per_operation(ops))
    return out


def _int32(found: Field, path: str) -> int:
    value = expect(found, VARINT, path, int) & 0xFFFFFFFF  # int32: the varint's low 32 bits, as protobuf
    return value - (1 << 32) if value > _INT32_MAX else value


def _rate(data: bytes, path: str) -> dict[str, float]:
    """A ``ProbabilisticSamplingStrategy`` as its JSON object."""
    return {"samplingRate": last(data, path, 1, read_double, f"{path}.samplingRate", 0.0)}


def _operation(data: bytes, path: str) -> dict[str, object]:
    name = ""
    prob: list[bytes] = []  # absent reads as rate 0, as the JSON parser reads it
    for found in fields(data, path):
        if found[0] == 1:
            name = read_text(found, f"{path}.operation")
        elif found[0] == 2:
            prob.append(expect(found, LEN, f"{path}.probabilisticSampling", bytes))
    return {
        "operation": name,
        "probabilisticSampling": _rate(b"".join(prob), f"{path}.probabilisticSampling"),
    }


def _per_operation_object(data: bytes) -> dict[str, object]:
    path, list_path = "operationSampling", "operationSampling.perOperationStrategies"
    members: dict[str, object] = {}
    entries: list[dict[str, object]] = []
    for found in fields(data, path):
        number = found[0]
        if number in (1, 2):
            key = "defaultSamplingProbability" if number == 1 else "defaultLowerBoundTracesPerSecond"
            members[key] = read_double(found, f"{path}.{key}")
        elif number == 3:
            if len(entries) == MAX_OPERATIONS:
                raise ConfigError(list_path, f"expected at most {MAX_OPERATIONS} operations")
            entry_path = f"{list_path}[{len(entries)}]"
            entries.append(_operation(expect(found, LEN, entry_path, bytes), entry_path))
        elif number == 4:
            read_double(found, f"{path}.defaultUpperBoundTracesPerSecond")  # checked, not modelled
    return {**members, "perOperationStrategies": entries}


def decode_response(data: bytes) -> StrategyResponse:
    """A whole ``SamplingStrategyResponse`` from protobuf bytes, read as its JSON object is.

    Raises:
        ConfigError: oversized or malformed bytes, or an invalid value; the field is named.
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ConfigError("response", f"expected bytes, got {type(data).__name__}")
    if len(data) > MAX_RESPONSE_BYTES:
        raise ConfigError("response", f"expected at most {MAX_RESPONSE_BYTES} bytes, got {len(data)}")
    kind = 0
    subs: dict[int, list[bytes]] = {}
    names = {2: "probabilisticSampling", 3: "rateLimitingSampling", 4: "operationSampling"}
    for found in fields(bytes(data), "response"):
        number = found[0]
        if number == 1:
            kind = _int32(found, "strategyType")
        elif number in names:
            subs.setdefault(number, []).append(expect(found, LEN, names[number], bytes))
    if kind not in (0, 1):
        raise ConfigError("strategyType", f"expected 0 (PROBABILISTIC) or 1 (RATE_LIMITING), got {kind}")
    # a singular sub-message sent twice is merged, as parsing the concatenation merges it
    prob, limit, ops = (b"".join(subs[n]) if n in subs else None for n in (2, 3, 4))
    members: dict[str, object] = {"strategyType": kind}
    if prob is not None:
        members[names[2]] = _rate(prob, names[2])
    if limit is not None:
        path = "rateLimitingSampling.maxTracesPerSecond"
        members[names[3]] = {"maxTracesPerSecond": last(limit, names[3], 1, _int32, path, 0)}
    if ops is not None:
        members[names[4]] = _per_operation_object(ops)
    return parse_mapping(members)
