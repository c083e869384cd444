"""Results that state a threshold: a constant tracestate for a root, th written in place
in a parent's tracestate (vendor entries and other ot members kept), th:T;rv:R for a
hashed key on a root, th erased on every other decision."""

from __future__ import annotations

from opentelemetry.trace.span import DEFAULT_TRACE_STATE, TraceState

from dsampler.consistent._ot import MAX_OT_LENGTH
from dsampler.consistent._stated import NOTHING_STATED, statement
from dsampler.consistent._stated_results import StatedResults, erase_th
from dsampler.decision._results import DROPPED
from dsampler.hashing._schemes import get_scheme

CONSISTENT = get_scheme("consistent")
XXH3 = get_scheme("xxh3")
BY_TRACE = StatedResults({}, statement(CONSISTENT, 0.25, CONSISTENT.bound(0.25)))
BY_KEY = StatedResults({}, statement(XXH3, 0.25, XXH3.bound(0.25)))
NOTHING = StatedResults({"sampler.type": "ratelimiting"}, NOTHING_STATED)
PARENT = TraceState([("vendor", "v"), ("ot", "th:8;k:v")])


def test_a_root_gets_one_constant_tracestate() -> None:
    first = BY_TRACE.sample(None, None)
    assert first is BY_TRACE.sampled
    assert first.trace_state is not None
    assert first.trace_state.get("ot") == "th:c"
    with_attributes = BY_TRACE.sample({"a": 1}, None)
    assert with_attributes.trace_state is first.trace_state
    assert dict(with_attributes.attributes) == {"a": 1}
    assert BY_TRACE.dropped(None) is DROPPED


def test_th_is_written_in_place_and_erased_on_a_drop() -> None:
    sampled = BY_TRACE.sample(None, PARENT).trace_state
    assert sampled is not None
    assert (sampled.get("vendor"), sampled.get("ot")) == ("v", "th:c;k:v")
    assert BY_TRACE.sample(None, PARENT).trace_state is sampled  # siblings: one rewrite
    dropped = BY_TRACE.dropped(PARENT).trace_state
    assert dropped is not None
    assert (dropped.get("vendor"), dropped.get("ot")) == ("v", "k:v")
    assert NOTHING.sample(None, PARENT).trace_state.get("ot") == "k:v"  # type: ignore[union-attr]
    only_th = TraceState([("ot", "th:8")])
    assert "ot" not in erase_th(only_th)
    assert erase_th(TraceState([("a", "1")])).get("a") == "1"


def test_a_hashed_key_writes_th_and_its_rv() -> None:
    key = 5 << 56  # u >> 8 = 5 << 48: R = 2**56 - 1 - (5 << 48)
    rv = 2**56 - 1 - (key >> 8)
    root = BY_KEY.sample_key(key, None, None).trace_state
    assert root is not None
    assert root.get("ot") == f"th:c;rv:{rv:014x}"
    assert BY_KEY.sample(None, None).trace_state is None  # without its key: nothing stated
    unsampled_key = XXH3.bound(0.25)
    assert BY_KEY.sample_key(unsampled_key, None, None).trace_state is None


def test_a_hashed_key_writes_no_rv_on_a_span_with_a_parent() -> None:
    """Only a root's decision may set rv: a span with a parent (its tracestate, or the
    SDK's empty one) gets neither rv nor th (which its hash cannot state), whatever the
    parent carries; every other entry and ot member is kept."""
    key = 5 << 56
    child = BY_KEY.sample_key(key, None, PARENT).trace_state
    assert child is not None
    assert (child.get("vendor"), child.get("ot")) == ("v", "k:v")
    assert BY_KEY.sample_key(key, None, DEFAULT_TRACE_STATE) is BY_KEY.sampled
    assert BY_KEY.sample_key(key, {"a": 1}, DEFAULT_TRACE_STATE).trace_state in (None, DEFAULT_TRACE_STATE)
    with_rv = TraceState([("ot", "rv:00000000000001")])
    assert BY_KEY.sample_key(key, None, with_rv).trace_state.get("ot") == "rv:00000000000001"  # type: ignore[union-attr]
    long = TraceState([("ot", "k:" + "x" * (MAX_OT_LENGTH - 2))])
    assert BY_KEY.sample_key(key, None, long).trace_state is long
    assert BY_KEY.dropped(DEFAULT_TRACE_STATE) is DROPPED


def test_the_tracestate_built_without_validation_is_the_constructors() -> None:
    """On this SDK a hashed root's tracestate skips the constructor's validation, and is
    the same object in every way the SDK and a propagator use (equality, the header,
    update, delete); a TraceState without ``_dict`` would get the constructor."""
    from dsampler.consistent._stated_results import _built, _constructed, ot_state

    assert ot_state is _built
    value = "th:e6666666666666;rv:0123456789abcd"
    fast, slow = _built(value), _constructed(value)
    assert fast == slow
    assert fast.to_header() == slow.to_header() == f"ot={value}"
    assert fast.add("v", "1").to_header() == slow.add("v", "1").to_header()
    assert fast.update("ot", "th:0").to_header() == "ot=th:0"
    assert len(fast.delete("ot")) == 0
