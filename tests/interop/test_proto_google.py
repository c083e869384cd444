"""dsampler's hand-written protobuf codec against Google's protobuf library, with the
sampling.proto messages built at run time (tests/google_sampling.py): the same bytes
both ways, and on damaged bytes dsampler is never more lenient than Google."""

from __future__ import annotations

import json

import pytest
from google.protobuf.message import DecodeError
from hypothesis import given, settings
from hypothesis import strategies as st

from dsampler.errors import ConfigError
from dsampler.protocol import StrategyResponse
from dsampler.protocol._proto import decode_params, decode_response, encode_params, encode_response
from dsampler.serve import jaeger_strategies
from tests.google_sampling import Parameters, Response, from_google, to_google
from tests.property.test_protocol_proto import wire_responses
from tests.remote_servers import DATA


@settings(max_examples=300)
@given(wire_responses)
def test_our_bytes_are_googles_bytes(response: StrategyResponse) -> None:
    """Google serialises fields in number order and leaves proto3 zeros out, as gogo does:
    the encodings are byte-identical, and each side parses the other's to the value."""
    ours = encode_response(response)
    google = to_google(response).SerializeToString()
    assert ours == google
    assert from_google(Response.FromString(ours)) == response
    assert decode_response(google) == response


@settings(max_examples=200)
@given(st.text(st.characters(exclude_categories=("Cs",)), max_size=100))
def test_parameters_match_googles(name: str) -> None:
    assert encode_params(name) == Parameters(serviceName=name).SerializeToString()
    assert Parameters.FromString(encode_params(name)).serviceName == name
    assert decode_params(Parameters(serviceName=name).SerializeToString()) == name


@pytest.mark.parametrize(
    "source", ["strategies.json", "operation_strategies.json", "service_no_per_operation.json"]
)
def test_every_served_strategy_of_the_fixtures_matches_googles(source: str) -> None:
    strategies = jaeger_strategies(json.loads((DATA / source).read_text()))
    for response in (strategies.default, *strategies.services.values()):
        assert encode_response(response) == to_google(response).SerializeToString()


def _google(body: bytes) -> StrategyResponse | None:
    try:
        message = Response.FromString(body)
    except DecodeError:
        return None
    try:
        return from_google(message)
    except (ConfigError, KeyError):  # a value our model refuses (rate 2, an unknown enum)
        return None


@settings(max_examples=500)
@given(wire_responses, st.data())
def test_what_we_accept_google_accepts_and_reads_the_same(
    response: StrategyResponse, data: st.DataObject
) -> None:
    """Damaged messages: whenever dsampler decodes one, Google parses it to the same value
    (dsampler may refuse more: a known field of the wrong wire type, which Google keeps
    as an unknown field)."""
    body = bytearray(encode_response(response))
    for _ in range(data.draw(st.integers(1, 3))):
        if not body:
            break
        at = data.draw(st.integers(0, len(body) - 1))
        if data.draw(st.booleans()):
            body[at] ^= data.draw(st.integers(1, 255))
        else:
            body[at:at] = data.draw(st.binary(min_size=1, max_size=3))
    try:
        ours = decode_response(bytes(body))
    except ConfigError:
        return
    assert _google(bytes(body)) == ours
