"""What each scheme's key < bound can state: th:0 at rate 1, th from the bound for the
consistent scheme, th plus an rv derived from the key for the schemes with 56 uniform
key bits (exact: rv >= th on every stated key, the sliver below the bound stated with
neither), nothing for otel-js; boundary keys exactly at the bound."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsampler import DSampler
from dsampler.consistent import MAX_THRESHOLD, explicit_randomness, ratio_to_threshold, threshold_of
from dsampler.consistent._randomness import consistent_sampled
from dsampler.consistent._stated import ALWAYS, BY_KEY, BY_TRACE, NOTHING, statement
from dsampler.hashing._ratio import Ratio
from dsampler.hashing._schemes import SCHEMES, get_scheme

KEYED_FORMS = {name: scheme.uniform for name, scheme in SCHEMES.items() if scheme.uniform is not None}
RATES = st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.1, 0.01, 0.5, 2.0**-56, 2.0**-50, 1 - 2.0**-53]))


def test_every_scheme_has_a_statement() -> None:
    """Every scheme states its decisions but otel-js (32 random bits: nothing to state
    at rates below 1); consistent exactly, by the trace, the others by their key."""
    assert set(SCHEMES) == {*KEYED_FORMS, "consistent", "otel-js"}
    for name in SCHEMES:
        scheme = get_scheme(name)
        assert statement(scheme, 1.0, scheme.bound(1.0)).th == "0"
        assert statement(scheme, 0.0, 0).how == NOTHING
    assert statement(get_scheme("otel-js"), 0.5, get_scheme("otel-js").bound(0.5)).how == NOTHING
    consistent = get_scheme("consistent")
    assert statement(consistent, 0.1, consistent.bound(0.1)).threshold == ratio_to_threshold(0.1)


@given(
    rate=RATES,
    name=st.sampled_from(sorted(KEYED_FORMS)),
    key=st.integers(0, 2**64 - 1),
)
def test_a_stated_key_is_sampled_and_its_rv_meets_th(rate: float, name: str, key: int) -> None:
    """rv is stated only for sampled keys, and always with rv >= th (what every
    downstream consistent sampler checks); th's probability is the bound's within 2**-56."""
    scheme = get_scheme(name)
    if name == "jaeger-go":
        key &= 2**63 - 1
    ratio = Ratio(rate, scheme)
    stated = statement(scheme, rate, ratio.bound)
    if stated.how != BY_KEY:
        assert stated.how == (ALWAYS if rate == 1.0 else NOTHING)
        return
    rv = stated.randomness(key)
    if rv is not None:
        assert key < ratio.bound
        assert 0 <= rv < 2**56
        assert rv >= stated.threshold
    offset, shift = KEYED_FORMS[name]
    span = 2**64 if shift == 8 else 2**63
    assert abs((MAX_THRESHOLD - stated.threshold) / 2**56 - (ratio.bound - offset) / span) <= 2.0**-56


@given(name=st.sampled_from(sorted(KEYED_FORMS)), rate=st.floats(2.0**-40, 1.0, exclude_max=True))
def test_the_sliver_is_below_two_to_the_minus_56(name: str, rate: float) -> None:
    """Sampled keys stated with neither th nor rv: fewer than 2**shift of the key space
    (otel-java's one key 0 besides)."""
    scheme = get_scheme(name)
    bound = scheme.bound(rate)
    stated = statement(scheme, rate, bound)
    offset, shift = KEYED_FORMS[name]
    assert 0 <= (bound - offset) - stated.limit < 2**shift


def _xxh3_ids_with_key(low_bits: int, residue: int, count: int) -> list[tuple[int, int]]:
    """Random trace IDs whose xxh3 key is in [2**58, 2**59) with ``key % 2**low_bits ==
    residue``: keys such a bound can equal exactly (a rate's double has 53 bits)."""
    scheme, rng, found = get_scheme("xxh3"), random.Random(20), []
    while len(found) < count:
        trace_id = rng.getrandbits(128)
        key = scheme.key(trace_id >> 64, trace_id & (2**64 - 1))
        if 2**58 <= key < 2**59 and key % 2**low_bits == residue:
            found.append((trace_id, key))
    return found


@pytest.mark.parametrize("residue", [192, 0])
def test_boundary_ids_a_hash_key_exactly_at_the_bound(residue: int) -> None:
    """A trace whose xxh3 key equals the bound is dropped, with nothing stated; at a
    bound 64 above it is sampled. When that bound is a multiple of 256 (key % 256 ==
    192) the trace is stated with rv exactly th (R == T, still sampled downstream);
    otherwise its key is in the sliver and it carries neither th nor rv. Decided by a
    real DSampler, checked against the consistent rule a downstream sampler applies."""
    for trace_id, key in _xxh3_ids_with_key(8, residue, 3):
        at_bound = DSampler(rate=key / 2**64, hash="xxh3", resource={})
        assert at_bound.engine.snapshot.default.bound == key
        dropped = at_bound.should_sample(None, trace_id, "op")
        assert not dropped.decision.is_sampled()
        assert dropped.trace_state is None
        above = DSampler(rate=(key + 64) / 2**64, hash="xxh3", resource={})
        sampled = above.should_sample(None, trace_id, "op")
        assert sampled.decision.is_sampled()
        th, rv = threshold_of(sampled.trace_state), explicit_randomness(sampled.trace_state)
        if residue == 192:
            assert th == MAX_THRESHOLD - (key + 64) // 256
            assert rv == th  # R == T exactly
            assert consistent_sampled(trace_id, th, sampled.trace_state)
        else:
            assert (th, rv, sampled.trace_state) == (None, None, None)


@pytest.mark.parametrize("name", ["otel", "jaeger"])
def test_boundary_ids_of_the_low_64_bit_schemes(name: str) -> None:
    """Key = the low 64 bits: IDs at the bound, one below it, and the top of the stated
    range (R == T) decide and state as derived."""
    scheme = get_scheme(name)
    rate = 0.1
    bound = scheme.bound(rate)
    stated = statement(scheme, rate, bound)
    assert stated.how == BY_KEY
    sampler = DSampler(rate=rate, hash=name, resource={})
    high = 0xABCDEF << 64
    assert not sampler.should_sample(None, high | bound, "op").decision.is_sampled()
    below = sampler.should_sample(None, high | (bound - 1), "op")
    assert below.decision.is_sampled()
    edge = sampler.should_sample(None, high | (stated.limit - 1), "op")
    assert explicit_randomness(edge.trace_state) == stated.threshold == threshold_of(edge.trace_state)
    lowest = sampler.should_sample(None, high, "op")  # key 0: the largest R there is
    assert explicit_randomness(lowest.trace_state) == 2**56 - 1


def test_the_consistent_scheme_states_th_alone() -> None:
    """R is the trace ID's: th:T without rv, the same th as OpenTelemetry's ratio."""
    scheme = get_scheme("consistent")
    stated = statement(scheme, 0.25, scheme.bound(0.25))
    assert (stated.how, stated.th) == (BY_TRACE, "c")
    sampled = DSampler(rate=0.25, hash="consistent", resource={}).should_sample(None, 2**56 - 1, "op")
    assert sampled.trace_state.get("ot") == "th:c"
