"""The W3C traceparent reader of `dsampler explain`: field by field, as the W3C spec and
OpenTelemetry's propagator read it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from dsampler import ConfigError
from dsampler.cli._traceparent import parse_traceparent

GOOD = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def test_the_w3c_example_parses_into_its_fields() -> None:
    """The spec's example gives its trace ID, parent ID and sampled flag."""
    parent = parse_traceparent(GOOD)
    assert parent.trace_id == 0x4BF92F3577B34DA6A3CE929D0E0E4736
    assert parent.span_id == 0x00F067AA0BA902B7
    assert parent.flags == 1
    assert parent.sampled


def test_flags_other_than_sampled_do_not_sample() -> None:
    """Only bit 0 is the sampled flag: 02 (random) is not sampled, 03 is."""
    assert not parse_traceparent(GOOD[:-2] + "02").sampled
    assert parse_traceparent(GOOD[:-2] + "03").sampled


def test_a_later_version_may_append_fields() -> None:
    """Versions after 00 are read by their first four fields (forward compatibility)."""
    assert (
        parse_traceparent("01" + GOOD[2:] + "-what-comes-next").trace_id == parse_traceparent(GOOD).trace_id
    )


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("", "expected version-traceid-parentid-flags, got ''"),
        ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", "expected version-traceid-parentid-flags"),
        (
            "0-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "version: expected 2 lowercase hex digits",
        ),
        ("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "version: ff is not a valid version"),
        ("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", "trace-id: expected 32 lowercase hex"),
        ("00-4bf92f3577b34da6a3ce929d0e0e47-00f067aa0ba902b7-01", "trace-id: expected 32 lowercase hex"),
        ("00-" + "0" * 32 + "-00f067aa0ba902b7-01", "trace-id: all zeros is not a valid trace-id"),
        ("00-4bf92f3577b34da6a3ce929d0e0e4736-" + "0" * 16 + "-01", "parent-id: all zeros"),
        ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902bz-01", "parent-id: expected 16 lowercase hex"),
        ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1", "flags: expected 2 lowercase hex digits"),
        ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0x", "flags: expected 2 lowercase hex digits"),
        (GOOD + "-extra", "version 00 has exactly four fields, got 5"),
        (GOOD + "-" * 1000, "expected at most 512 characters"),
    ],
)
def test_malformed_headers_name_the_field(header: str, message: str) -> None:
    """Each broken W3C field is refused with a ConfigError naming it."""
    with pytest.raises(ConfigError) as caught:
        parse_traceparent(header)
    assert caught.value.field == "--traceparent"
    assert message in caught.value.problem


def test_a_ten_megabyte_header_is_refused_with_a_short_message() -> None:
    """An oversized header is refused without echoing it."""
    with pytest.raises(ConfigError) as caught:
        parse_traceparent("0" * 10_000_000)
    assert len(str(caught.value)) < 200


@given(
    trace_id=st.integers(1, (1 << 128) - 1),
    span_id=st.integers(1, (1 << 64) - 1),
    flags=st.integers(0, 255),
)
def test_every_valid_header_round_trips(trace_id: int, span_id: int, flags: int) -> None:
    """Formatting any valid parent and reading it back gives the same fields."""
    parent = parse_traceparent(f"00-{trace_id:032x}-{span_id:016x}-{flags:02x}")
    assert (parent.trace_id, parent.span_id, parent.flags) == (trace_id, span_id, flags)


_HEXISH = "0123456789abcdefF"
_part = st.one_of(st.text(alphabet=_HEXISH, min_size=1, max_size=33), st.sampled_from(["00", "ff", "0" * 32]))
near_valid = st.one_of(
    st.text(alphabet="0123456789abcdefABCDEF- \tx", max_size=70),
    st.builds("-".join, st.lists(_part, min_size=3, max_size=6)),
    st.builds(
        lambda v, t, s, f, tail: f"{v}-{t}-{s}-{f}{tail}",
        st.sampled_from(["00", "01", "ff", "0g", "0A"]),
        st.one_of(st.integers(0, (1 << 128) - 1).map("{:032x}".format), st.just("0" * 32)),
        st.one_of(st.integers(0, (1 << 64) - 1).map("{:016x}".format), st.just("0" * 16)),
        st.integers(0, 255).map("{:02x}".format),
        st.sampled_from(["", "-", "-x", " ", "\t", "-00"]),
    ),
)


@given(near_valid)
def test_accepts_exactly_what_opentelemetrys_propagator_accepts(header: str) -> None:
    """On near-valid text the reader agrees with the SDK's propagator: it parses the
    header iff the propagator extracts a valid parent, to the same trace ID; else a
    ConfigError, never another exception."""
    extracted = TraceContextTextMapPropagator().extract({"traceparent": header})
    from opentelemetry import trace

    context = trace.get_current_span(extracted).get_span_context()
    try:
        parent = parse_traceparent(header)
    except ConfigError:
        assert not context.is_valid
        return
    assert context.is_valid
    assert (parent.trace_id, parent.span_id, int(parent.flags)) == (
        context.trace_id,
        context.span_id,
        int(context.trace_flags),
    )
