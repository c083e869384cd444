"""The ot tracestate value: every row of otel_tracestate.json read as its `expected`,
OpenTelemetry Python's own tracestate cases, and the writer's rules (in place, never
twice, rv byte for byte, unknown members kept, 256 characters, identity when unchanged)."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry.trace.span import TraceState

from dsampler.consistent import (
    encode_th,
    explicit_randomness,
    ot_with_threshold,
    ot_without_threshold,
    parse_ot,
    threshold_of,
    threshold_to_probability,
)
from dsampler.consistent._ot import MAX_OT_LENGTH
from dsampler.consistent._tracestate import ot_of, with_ot
from tests.conftest import data_json

VECTORS: list[dict[str, Any]] = data_json("vectors/otel_tracestate.json")


def strict_reading(value: str) -> Any:
    """parse_ot's result in the vector file's `expected` vocabulary."""
    parsed = parse_ot(value)
    if parsed is None:
        return "invalid"
    if parsed.th is None and parsed.rv is None:
        return {"th": None, "rv": None}
    out: dict[str, Any] = {}
    if parsed.th is not None:
        t = parsed.threshold
        out.update(
            {"th": "invalid"}
            if t is None
            else {
                "th": parsed.th,
                "threshold_int": t,
                "threshold_hex14": f"{t:014x}",
                "sampling_probability": threshold_to_probability(t),
                "th_canonical": encode_th(t),
            }
        )
    if parsed.rv is not None:
        out.update(
            {"rv": "invalid"} if parsed.randomness is None else {"rv": parsed.rv, "rv_int": parsed.randomness}
        )
    if parsed.threshold is not None and parsed.randomness is not None:
        out["consistent_decision_rv_ge_th"] = parsed.randomness >= parsed.threshold
    return out


def test_vector_file_has_65_rows() -> None:
    """65 rows, 10 of them invalid as a whole."""
    assert len(VECTORS) == 65
    assert sum(v["expected"] == "invalid" for v in VECTORS) == 10


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v["ot_value"][:40])
def test_every_vector_reads_as_expected(vector: dict[str, Any]) -> None:
    """The strict reading of each ot value is the row's `expected`, field for field."""
    assert strict_reading(vector["ot_value"]) == vector["expected"]


@pytest.mark.parametrize(
    "vector", [v for v in VECTORS if len(v["ot_value"]) <= MAX_OT_LENGTH], ids=lambda v: v["ot_value"][:40]
)
def test_every_vector_through_a_tracestate_header(vector: dict[str, Any]) -> None:
    """Through TraceState.from_header (the propagator's path) the reading is the same."""
    header = vector.get("tracestate_full", vector["tracestate"])
    ts = TraceState.from_header([header])
    assert ot_of(ts) == vector["ot_value"]
    expected = vector["expected"]
    assert threshold_of(ts) == (expected.get("threshold_int") if isinstance(expected, dict) else None)
    assert explicit_randomness(ts) == (expected.get("rv_int") if isinstance(expected, dict) else None)


# OpenTelemetry Python's test_tracestate.py inputs, read strictly: (input, threshold, rv).
# Where the strict reading differs from theirs (they keep "a" and "#" as members and
# re-serialise them), the comment says so.
UPSTREAM_CASES = [
    ("a", "malformed"),  # a member without ':' (theirs keeps it)
    ("#", "malformed"),  # '#' is no key character (theirs keeps it)
    ("rv:1234567890abcd", (None, 0x1234567890ABCD)),
    ("rv:01020304050607", (None, 0x01020304050607)),
    ("rv:1234567890abcde", (None, None)),
    ("th:1234567890abcd", (0x1234567890ABCD, None)),
    ("th:10000000000000", (0x10000000000000, None)),
    ("th:1234500000000", (0x12345000000000, None)),
    ("th:0", (0, None)),
    ("th:100000000000000", (None, None)),
    ("th:1234567890abcde", (None, None)),
    (f"a:{'X' * 214};rv:1234567890abcd;th:1234567890abcd;x:3", (0x1234567890ABCD, 0x1234567890ABCD)),
    ("th:x", (None, None)),
    *[("th:1" + "0" * zeros, (0x10000000000000, None)) for zeros in range(14)],
    ("th:10000000000001", (0x10000000000001, None)),
    ("th:10000000000010", (0x10000000000010, None)),
    ("rv:x", (None, None)),
    ("rv:100000000000000", (None, None)),
    ("rv:10000000000000", (None, 0x10000000000000)),
    ("rv:1000000000000", (None, None)),
]


@pytest.mark.parametrize(("value", "reading"), UPSTREAM_CASES, ids=lambda x: str(x)[:30])
def test_opentelemetry_pythons_tracestate_cases(value: str, reading: Any) -> None:
    """Their inputs read as their outputs say, and the writer re-encodes th canonically
    (``th:10000000000000`` is written back as ``th:1``, their serialised form)."""
    parsed = parse_ot(value)
    if reading == "malformed":
        assert parsed is None
        return
    assert parsed is not None
    assert (parsed.threshold, parsed.randomness) == reading
    if parsed.threshold is not None:
        rewritten = ot_with_threshold(value, parsed.threshold)
        assert rewritten is not None
        assert parse_ot(rewritten).th == encode_th(parsed.threshold)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("value", "threshold", "written"),
    [
        (None, 0, "th:0"),
        ("rv:0123456789abcd", 0xE1 << 44, "th:0e1;rv:0123456789abcd"),  # added first, as otel-go
        ("rv:0123456789abcd;th:0ad;other:value", 0xE1 << 44, "rv:0123456789abcd;th:0e1;other:value"),
        ("th:8;rv:ffffffffffffff", 0xC << 52, "th:c;rv:ffffffffffffff"),
        ("p:8;r:62", 0, "th:0;p:8;r:62"),  # the obsolete p/r keys stay as unknown members
        ("th:zz;rv:ffffffffffffff", 0x8 << 52, "th:8;rv:ffffffffffffff"),  # a bad th is replaced
        ("th:8;th:c", 0, "th:0"),  # malformed (duplicate key): replaced whole
        ("X:1;u:V", 0, "th:0"),  # malformed (uppercase key)
        ("rv:ABCDEFABCDEFAB", 0, "th:0;rv:ABCDEFABCDEFAB"),  # an invalid rv is kept byte for byte
    ],
)
def test_writing_th(value: str | None, threshold: int, written: str) -> None:
    """th is updated where it stands, added first when absent, never twice; every other
    member is kept as it was."""
    assert ot_with_threshold(value, threshold) == written


@pytest.mark.parametrize(
    ("value", "erased"),
    [
        (None, None),
        ("th:8", None),
        ("th:8;rv:ffffffffffffff", "rv:ffffffffffffff"),
        ("rv:ffffffffffffff;th:8", "rv:ffffffffffffff"),
        ("a:1;th:8;b:2", "a:1;b:2"),
        ("th:zz;rv:ffffffffffffff", "rv:ffffffffffffff"),
        ("th:8;th:c", None),  # malformed: removed, no stale th left for a lenient reader
        ("th:1;", None),
    ],
)
def test_erasing_th(value: str | None, erased: str | None) -> None:
    """Erasing removes the th member and its separator; nothing left is None."""
    assert ot_without_threshold(value) == erased


def test_nothing_to_change_returns_the_same_object() -> None:
    """No copy when nothing changes: no th to erase, the same th to write, the same entry."""
    value = "rv:0123456789abcd;x:1"
    assert ot_without_threshold(value) is value
    same = "th:c;rv:0123456789abcd"
    assert ot_with_threshold(same, 0xC << 52) is same
    ts = TraceState([("vendor", "v"), ("ot", value)])
    assert with_ot(ts, value) is ts
    plain = TraceState([("vendor", "v")])
    assert with_ot(plain, None) is plain
    assert with_ot(None, None) is None


def test_the_256_character_limit() -> None:
    """A value of 256 characters parses, 257 does not; a th that would take a value over
    256 is refused (None), one that fits is written."""
    filler = "x:" + "a" * 240
    assert len(filler + ";th:0") < MAX_OT_LENGTH
    assert ot_with_threshold(filler, 0) == "th:0;" + filler
    full = "x:" + "a" * (MAX_OT_LENGTH - 2)
    assert parse_ot(full) is not None
    assert parse_ot(full + "a") is None
    assert ot_with_threshold(full, 0) is None
    near = "x:" + "a" * (MAX_OT_LENGTH - 2 - 5)
    assert ot_with_threshold(near, 0) is not None
    assert len(ot_with_threshold(near, 0) or "") == MAX_OT_LENGTH
    assert ot_with_threshold(near, 1) is None  # "th:00000000000001;" is longer


def test_tracestate_entry_set_and_removed() -> None:
    """with_ot moves a changed ot entry to the front, removes it on None, and will not add
    a 33rd entry."""
    ts = TraceState([("a", "1"), ("ot", "th:8")])
    assert with_ot(ts, "th:c").to_header() == "ot=th:c,a=1"  # type: ignore[union-attr]
    assert with_ot(ts, None).to_header() == "a=1"  # type: ignore[union-attr]
    assert with_ot(None, "th:0").to_header() == "ot=th:0"  # type: ignore[union-attr]
    full = TraceState([(f"k{i}", "v") for i in range(32)])
    assert with_ot(full, "th:0") is full


@pytest.mark.parametrize("hostile", [None, 5, "ot=th:8", {"ot": "th:8"}, TraceState(), object()])
def test_readers_take_anything(hostile: object) -> None:
    """The readers find nothing, without raising, in what is not a TraceState with ot."""
    assert ot_of(hostile) is None
    assert threshold_of(hostile) is None
    assert explicit_randomness(hostile) is None


@pytest.mark.parametrize("hostile", [None, 5, b"th:8", ["th:8"], "th:8;" * 100, "\x00", "th:8\n"])
def test_parse_ot_refuses_without_raising(hostile: object) -> None:
    """Non-strings, oversized and control characters read as malformed, never raise."""
    assert parse_ot(hostile) is None


def test_others_are_the_unknown_members_in_order() -> None:
    """OtValue.others lists the members other than th and rv, as received."""
    parsed = parse_ot("e100:100;th:1;rv:ffffffffffffff;e101:101")
    assert parsed is not None
    assert parsed.others == ("e100:100", "e101:101")
