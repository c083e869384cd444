"""The hand-written protobuf codec of jaeger.api_v2's sampling messages: golden bytes,
protobuf's merge and unknown-field rules, and hostile bytes refused naming the field."""

from __future__ import annotations

import struct

import pytest

from dsampler.errors import ConfigError
from dsampler.protocol import (
    OperationRate,
    PerOperationStrategy,
    ProbabilisticStrategy,
    RateLimitingStrategy,
    StrategyResponse,
)
from dsampler.protocol._parse import MAX_OPERATIONS, MAX_RESPONSE_BYTES
from dsampler.protocol._proto import (
    MAX_REQUEST_BYTES,
    decode_params,
    decode_response,
    encode_params,
    encode_response,
)
from dsampler.protocol._wire import MAX_GROUP_DEPTH, varint


def d(value: float) -> bytes:
    return struct.pack("<d", value)


def sub(tag: int, body: bytes) -> bytes:
    return bytes([tag]) + varint(len(body)) + body


PROB = StrategyResponse.of(ProbabilisticStrategy(0.5))
LIMIT = StrategyResponse.of(RateLimitingStrategy(5))
OPS = StrategyResponse.of(
    PerOperationStrategy(0.1, 2.0, (OperationRate("/health", 0.0), OperationRate("x", 1.0)))
)


def test_golden_bytes_use_the_idls_field_numbers() -> None:
    """Tags as OpenTelemetry Java's hand-written decoder reads them: 8 strategyType, 18/26/34
    the sub-messages; 9 samplingRate; 8 maxTracesPerSecond; 9/17/26 inside operationSampling,
    10/18 inside an operation. Zero scalars and PROBABILISTIC (0) are left out."""
    assert encode_response(PROB) == sub(0x12, b"\x09" + d(0.5))
    assert encode_response(LIMIT) == b"\x08\x01" + sub(0x1A, b"\x08\x05")
    health = sub(0x1A, sub(0x0A, b"/health") + sub(0x12, b""))  # rate 0: an empty, present message
    x = sub(0x1A, sub(0x0A, b"x") + sub(0x12, b"\x09" + d(1.0)))
    assert encode_response(OPS) == sub(0x22, b"\x09" + d(0.1) + b"\x11" + d(2.0) + health + x)
    assert encode_response(StrategyResponse()) == b""
    assert encode_params("svc") == b"\x0a\x03svc"
    assert encode_params("") == b""


@pytest.mark.parametrize("response", [PROB, LIMIT, OPS, StrategyResponse()])
def test_responses_decode_to_what_was_encoded(response: StrategyResponse) -> None:
    assert decode_response(encode_response(response)) == response


def test_negative_zero_is_left_out_as_go_does() -> None:
    """Go writes a double when ``!= 0``, so never -0.0 (the model also stores it as 0.0)."""
    assert encode_response(StrategyResponse.of(ProbabilisticStrategy(-0.0))) == b"\x12\x00"


def test_a_fractional_rate_limit_is_truncated_to_int32_as_go_does() -> None:
    """Only a strategy built in code can be fractional; the wire type is int32."""
    response = StrategyResponse.of(RateLimitingStrategy(2.9))
    assert decode_response(encode_response(response)) == StrategyResponse.of(RateLimitingStrategy(2))


def test_an_empty_message_has_no_strategy() -> None:
    """b"" is the all-default response: no strategy object, as ``{}`` in JSON."""
    assert decode_response(b"") == StrategyResponse()
    with pytest.raises(ConfigError, match="no usable strategy"):
        _ = decode_response(b"").strategy


def test_service_names_round_trip_and_absent_is_empty() -> None:
    for name in ("", "checkout", "naïve ☃", "x" * 10_000):
        assert decode_params(encode_params(name)) == name
    assert decode_params(b"\x10\x05" + encode_params("a") + b"\x1d\x00\x00\x00\x00") == "a"
    assert decode_params(encode_params("a") + encode_params("b")) == "b"  # the last one wins


def test_sub_messages_sent_twice_are_merged_and_scalars_keep_the_last() -> None:
    """Protobuf's rules: a singular sub-message is merged, a repeated one appended."""
    twice = sub(0x12, b"\x09" + d(0.2)) + sub(0x12, b"") + sub(0x12, b"\x09" + d(0.3))
    assert decode_response(twice) == StrategyResponse.of(ProbabilisticStrategy(0.3))
    ops = sub(0x22, b"\x09" + d(0.1) + sub(0x1A, sub(0x0A, b"a"))) + sub(0x22, sub(0x1A, sub(0x0A, b"b")))
    decoded = decode_response(ops).per_operation
    assert decoded == PerOperationStrategy(0.1, 0.0, (OperationRate("a", 0.0), OperationRate("b", 0.0)))


def test_unknown_fields_of_every_wire_type_are_skipped_at_every_level() -> None:
    unknown = b"\x78\x01" + b"\x79" + d(9.0) + sub(0x7A, b"junk") + b"\x7d\x00\x00\x80\x3f"
    group = b"\x7b" + b"\x08\x01" + b"\x0b\x0c" + b"\x7c"  # group 15 holding a group 1
    op = sub(0x1A, unknown + sub(0x0A, b"a") + sub(0x12, group + b"\x09" + d(0.5) + unknown))
    body = unknown + group + sub(0x22, unknown + b"\x09" + d(0.1) + group + op) + unknown
    expected = PerOperationStrategy(0.1, 0.0, (OperationRate("a", 0.5),))
    assert decode_response(body) == StrategyResponse(per_operation=expected)


def test_the_upper_bound_is_read_and_not_modelled() -> None:
    assert decode_response(sub(0x22, b"\x21" + d(100.0))).per_operation == PerOperationStrategy(0.0)
    with pytest.raises(ConfigError, match=r"^operationSampling.defaultUpperBoundTracesPerSecond: expected"):
        decode_response(sub(0x22, b"\x20\x01"))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"\x08", r"^response: truncated varint at byte 1 \(1 bytes\)"),
        (b"\x08" + b"\xff" * 10 + b"\x01", r"^response: varint at byte 1 is longer than 10 bytes"),
        (b"\x12\x05\x09", r"^response: field 2: 5 bytes at byte 2 run past the end \(3 bytes\)"),
        (b"\x12" + varint(1 << 62), r"^response: field 2: \d+ bytes at byte 10 run past the end"),
        (b"\x79\x00\x00", r"^response: field 15: 8 bytes at byte 1 run past the end"),
        (b"\x00\x01", r"^response: invalid field number 0 at byte 0"),
        (varint(1 << 32 | 0), r"^response: invalid field number \d+ at byte 0"),
        (b"\x0e", r"^response: invalid wire type 6 at byte 0 \(field 1\)"),
        (b"\x0f", r"^response: invalid wire type 7 at byte 0 \(field 1\)"),
        (b"\x0c", r"^response: end of group 1 at byte 1 without its start"),
        (b"\x0b\x14", r"^response: end of group 2 at byte 1 closes group 1"),
        (b"\x0b\x08\x01", r"^response: group 1 is not closed before the end \(3 bytes\)"),
        (b"\x0b" * (MAX_GROUP_DEPTH + 2), rf"^response: groups nested more than {MAX_GROUP_DEPTH} deep"),
        (b"\x09" + d(0.0), r"^strategyType: expected wire type 0 \(varint\), got 1 \(64-bit\) for field 1"),
        (b"\x08\x02", r"^strategyType: expected 0 \(PROBABILISTIC\) or 1 \(RATE_LIMITING\), got 2"),
        (b"\x08" + varint((1 << 64) - 1), r"^strategyType: expected 0 .* got -1"),
        (b"\x10\x01", r"^probabilisticSampling: expected wire type 2 \(length-delimited\), got 0"),
        (sub(0x12, b"\x08\x01"), r"^probabilisticSampling.samplingRate: expected wire type 1 \(64-bit\)"),
        (sub(0x12, b"\x09" + d(float("nan"))), r"^probabilisticSampling.samplingRate: expected a number in"),
        (sub(0x12, b"\x09" + d(1.5)), r"^probabilisticSampling.samplingRate: expected a number in \[0, 1\]"),
        (sub(0x12, b"\x0d\x00\x00\x00\x3f"), r"^probabilisticSampling.samplingRate: expected wire type 1"),
        (sub(0x1A, b"\x09" + d(1.0)), r"^rateLimitingSampling.maxTracesPerSecond: expected wire type 0"),
        (sub(0x1A, b"\x08" + varint((1 << 64) - 5)), r"^rateLimitingSampling.maxTracesPerSecond: .* got -5"),
        (sub(0x1A, b"\x08\xff"), r"^rateLimitingSampling: truncated varint at byte 1"),
        (sub(0x22, b"\x11" + d(-1.0)), r"^operationSampling.defaultLowerBoundTracesPerSecond: expected"),
        (sub(0x22, b"\x1a\x01\x08"), r"^operationSampling.perOperationStrategies\[0\]: truncated varint"),
        (sub(0x22, b"\x19" + d(0)), r"^operationSampling.perOperationStrategies\[0\]: expected wire type 2"),
        (
            sub(0x22, sub(0x1A, b"") + sub(0x1A, sub(0x0A, b"\xff\xfe"))),
            r"^operationSampling.perOperationStrategies\[1\].operation: not valid UTF-8: invalid start byte",
        ),
        (
            sub(0x22, sub(0x1A, sub(0x0A, b"x" * 1025))),
            r"^operationSampling.perOperationStrategies\[0\].operation: expected at most 1024 characters",
        ),
        (
            sub(0x22, sub(0x1A, sub(0x0A, b"ab") + sub(0x12, b"\x09" + d(2.0)))),
            r"^operationSampling.perOperationStrategies\[0\].probabilisticSampling.samplingRate: "
            r"expected a number in \[0, 1\], got 2.0 \(operation 'ab'\)",
        ),
    ],
)
def test_malformed_bytes_are_refused_naming_the_field(body: bytes, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        decode_response(body)


def test_size_and_count_bounds() -> None:
    """4 MiB of response and MAX_OPERATIONS operations, as the JSON parser; 16 KiB of request."""
    with pytest.raises(ConfigError, match=r"^response: expected at most 4194304 bytes"):
        decode_response(b"\x78\x00" * (MAX_RESPONSE_BYTES // 2 + 1))
    many = sub(0x22, sub(0x1A, b"") * (MAX_OPERATIONS + 1))
    with pytest.raises(ConfigError, match=rf"^operationSampling.perOperationStrategies: .* {MAX_OPERATIONS}"):
        decode_response(many)
    assert len(decode_response(sub(0x22, sub(0x1A, b"") * 1000)).per_operation.operations) == 1000  # type: ignore[union-attr]
    with pytest.raises(ConfigError, match=r"^request: expected at most 16384 bytes"):
        decode_params(b"\x0a" + varint(MAX_REQUEST_BYTES) + b"x" * MAX_REQUEST_BYTES)
    with pytest.raises(ConfigError, match=r"^response: expected bytes, got str"):
        decode_response("\x08\x01")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"\x0a\x02\xff\xfe", r"^serviceName: not valid UTF-8"),
        (b"\x0a\x05ab", r"^request: field 1: 5 bytes at byte 2 run past the end"),
        (b"\x08\x01", r"^serviceName: expected wire type 2 \(length-delimited\), got 0 \(varint\)"),
        (b"\x0a", r"^request: truncated varint at byte 1"),
    ],
)
def test_malformed_requests_are_refused_naming_the_field(body: bytes, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        decode_params(body)
