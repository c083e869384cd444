"""Properties of the protobuf codec: every response round-trips and reads as its JSON
does; any bytes at all (random, or a valid message cut and flipped) decode or raise
ConfigError, nothing else."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from dsampler.errors import ConfigError
from dsampler.protocol import RateLimitingStrategy, StrategyResponse, parse_response, render
from dsampler.protocol._proto import decode_params, decode_response, encode_params, encode_response
from tests.property.test_protocol import per_operation, probabilistic, responses

#: The wire carries an int32: integral limits round-trip exactly.
whole_limits = st.builds(RateLimitingStrategy, st.integers(min_value=0, max_value=10**9))
wire_responses = st.builds(
    StrategyResponse,
    st.sampled_from(["PROBABILISTIC", "RATE_LIMITING"]),
    st.none() | probabilistic,
    st.none() | whole_limits,
    st.none() | per_operation,
)


@settings(max_examples=300)
@given(wire_responses)
def test_responses_round_trip(response: StrategyResponse) -> None:
    assert decode_response(encode_response(response)) == response


@settings(max_examples=300)
@given(wire_responses)
def test_the_protobuf_and_the_json_answers_read_the_same(response: StrategyResponse) -> None:
    """What a gRPC client reads is what an HTTP client reads of the same strategy."""
    assert decode_response(encode_response(response)) == parse_response(render(response))


@settings(max_examples=200)
@given(responses)
def test_fractional_limits_are_truncated_and_nothing_else_changes(response: StrategyResponse) -> None:
    decoded = decode_response(encode_response(response))
    limit = response.rate_limiting
    truncated = None if limit is None else RateLimitingStrategy(int(limit.traces_per_second))
    assert decoded.rate_limiting == truncated
    assert (decoded.strategy_type, decoded.probabilistic, decoded.per_operation) == (
        response.strategy_type,
        response.probabilistic,
        response.per_operation,
    )


@settings(max_examples=300)
@given(st.text(max_size=200))
def test_service_names_round_trip(name: str) -> None:
    try:
        encoded = encode_params(name)
    except UnicodeEncodeError:  # a lone surrogate is no UTF-8 string: not a name a client sends
        return
    assert decode_params(encoded) == name


def _decodes_or_refuses(body: bytes) -> None:
    for decode in (decode_response, decode_params):
        field = "(decoded)"
        try:
            decode(body)
        except ConfigError as exc:
            field = exc.field
        assert field


@settings(max_examples=500)
@given(st.binary(max_size=300))
def test_random_bytes_decode_or_raise_config_error(body: bytes) -> None:
    _decodes_or_refuses(body)


@settings(max_examples=500)
@given(wire_responses, st.data())
def test_damaged_messages_decode_or_raise_config_error(
    response: StrategyResponse, data: st.DataObject
) -> None:
    """A valid message cut short, with bytes flipped or inserted: the structure is nearly
    right, so the decoder goes deep before it meets the damage."""
    body = bytearray(encode_response(response))
    for _ in range(data.draw(st.integers(0, 4))):
        if not body:
            break
        at = data.draw(st.integers(0, len(body) - 1))
        action = data.draw(st.sampled_from(["flip", "insert", "cut"]))
        if action == "flip":
            body[at] ^= data.draw(st.integers(1, 255))
        elif action == "insert":
            body[at:at] = data.draw(st.binary(min_size=1, max_size=4))
        else:
            del body[at:]
    _decodes_or_refuses(bytes(body))
