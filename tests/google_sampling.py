"""jaeger.api_v2's ``sampling.proto`` built at run time with Google's protobuf library
(installed in dev by opentelemetry-exporter-otlp-proto-http), as an independent codec to
check dsampler's hand-written one against: no generated code, no .proto file, the field
list typed in from jaeger-idl's ``proto/api_v2/sampling.proto``."""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from dsampler.protocol import (
    OperationRate,
    PerOperationStrategy,
    ProbabilisticStrategy,
    RateLimitingStrategy,
    StrategyResponse,
)

_F = descriptor_pb2.FieldDescriptorProto
PACKAGE = "jaeger.api_v2"

#: message -> [(field, number, type, repeated, message or enum type)]
MESSAGES: dict[str, list[tuple[str, int, int, bool, str | None]]] = {
    "ProbabilisticSamplingStrategy": [("samplingRate", 1, _F.TYPE_DOUBLE, False, None)],
    "RateLimitingSamplingStrategy": [("maxTracesPerSecond", 1, _F.TYPE_INT32, False, None)],
    "OperationSamplingStrategy": [
        ("operation", 1, _F.TYPE_STRING, False, None),
        ("probabilisticSampling", 2, _F.TYPE_MESSAGE, False, "ProbabilisticSamplingStrategy"),
    ],
    "PerOperationSamplingStrategies": [
        ("defaultSamplingProbability", 1, _F.TYPE_DOUBLE, False, None),
        ("defaultLowerBoundTracesPerSecond", 2, _F.TYPE_DOUBLE, False, None),
        ("perOperationStrategies", 3, _F.TYPE_MESSAGE, True, "OperationSamplingStrategy"),
        ("defaultUpperBoundTracesPerSecond", 4, _F.TYPE_DOUBLE, False, None),
    ],
    "SamplingStrategyResponse": [
        ("strategyType", 1, _F.TYPE_ENUM, False, "SamplingStrategyType"),
        ("probabilisticSampling", 2, _F.TYPE_MESSAGE, False, "ProbabilisticSamplingStrategy"),
        ("rateLimitingSampling", 3, _F.TYPE_MESSAGE, False, "RateLimitingSamplingStrategy"),
        ("operationSampling", 4, _F.TYPE_MESSAGE, False, "PerOperationSamplingStrategies"),
    ],
    "SamplingStrategyParameters": [("serviceName", 1, _F.TYPE_STRING, False, None)],
}


def _file() -> descriptor_pb2.FileDescriptorProto:
    fdp = descriptor_pb2.FileDescriptorProto(
        name="dsampler_tests/sampling.proto", package=PACKAGE, syntax="proto3"
    )
    enum = fdp.enum_type.add(name="SamplingStrategyType")
    enum.value.add(name="PROBABILISTIC", number=0)
    enum.value.add(name="RATE_LIMITING", number=1)
    for name, fields in MESSAGES.items():
        message = fdp.message_type.add(name=name)
        for field, number, kind, repeated, type_name in fields:
            added = message.field.add(
                name=field,
                number=number,
                type=kind,
                label=_F.LABEL_REPEATED if repeated else _F.LABEL_OPTIONAL,
            )
            if type_name:
                added.type_name = f".{PACKAGE}.{type_name}"
    return fdp


POOL = descriptor_pool.DescriptorPool()
POOL.Add(_file())


def message_class(name: str) -> Any:
    return message_factory.GetMessageClass(POOL.FindMessageTypeByName(f"{PACKAGE}.{name}"))


Response = message_class("SamplingStrategyResponse")
Parameters = message_class("SamplingStrategyParameters")


def to_google(response: StrategyResponse) -> Any:
    """The Google message carrying ``response`` (the rate limit as int32, truncated)."""
    message = Response(strategyType=1 if response.strategy_type == "RATE_LIMITING" else 0)
    if response.probabilistic is not None:
        message.probabilisticSampling.SetInParent()
        message.probabilisticSampling.samplingRate = response.probabilistic.rate
    if response.rate_limiting is not None:
        message.rateLimitingSampling.SetInParent()
        message.rateLimitingSampling.maxTracesPerSecond = int(response.rate_limiting.traces_per_second)
    if response.per_operation is not None:
        ops = message.operationSampling
        ops.SetInParent()
        ops.defaultSamplingProbability = response.per_operation.default_rate
        ops.defaultLowerBoundTracesPerSecond = response.per_operation.default_lower_bound_per_second
        for op in response.per_operation.operations:
            entry = ops.perOperationStrategies.add(operation=op.operation)
            entry.probabilisticSampling.samplingRate = op.rate
            entry.probabilisticSampling.SetInParent()
    return message


def from_google(message: Any) -> StrategyResponse:
    """The strategy model of a parsed Google message (validated by the model)."""
    kind = {0: "PROBABILISTIC", 1: "RATE_LIMITING"}[message.strategyType]
    prob = limit = ops = None
    if message.HasField("probabilisticSampling"):
        prob = ProbabilisticStrategy(message.probabilisticSampling.samplingRate)
    if message.HasField("rateLimitingSampling"):
        limit = RateLimitingStrategy(message.rateLimitingSampling.maxTracesPerSecond)
    if message.HasField("operationSampling"):
        o = message.operationSampling
        ops = PerOperationStrategy(
            o.defaultSamplingProbability,
            o.defaultLowerBoundTracesPerSecond,
            tuple(
                OperationRate(e.operation, e.probabilisticSampling.samplingRate)
                for e in o.perOperationStrategies
            ),
        )
    return StrategyResponse(kind, prob, limit, ops)  # type: ignore[arg-type]
