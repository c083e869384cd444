"""The table of hash schemes is the one place a scheme is described: a record added to
it is served by every layer (configuration, the engine and its ``th``, RatioSampler,
jaeger's sampler, batches, the drift audit, ``dsampler check``) with no other change."""

from __future__ import annotations

import random

import numpy as np
import pytest

from dsampler import DSampler, RatioSampler, decide_batch, load_config
from dsampler.hashing import HashScheme, Ratio, hashing_path
from dsampler.hashing._reference import MASK64, fnv1a64_key
from dsampler.hashing._schemes import SCHEMES
from dsampler.jaeger import ProbabilisticSampler
from dsampler.telemetry._drift import Drift

_RNG = random.Random(3)
IDS = [_RNG.getrandbits(128) for _ in range(2000)]


def _reversed_fnv1a(hi: int, lo: int) -> int:
    """A made-up scheme: FNV-1a of the halves swapped."""
    return fnv1a64_key(lo, hi)


@pytest.fixture(params=["masked", "hashed"])
def added(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> HashScheme:
    """A scheme added to the table for the test: the low 64 bits with a floor bound (a
    masking scheme whose batches the ``low64`` twin serves), or a new hash in Python (its
    batch twin would be one more function in ``_numpy_twin``: not exercised here)."""
    floor = lambda rate: int(rate * 2.0**64)  # noqa: E731
    if request.param == "masked":
        scheme = HashScheme("low64-floor", lambda hi, lo: lo, floor, "low64", mask=MASK64, uniform=(0, 8))
    else:
        scheme = HashScheme("fnv1a-swap", _reversed_fnv1a, floor, "fnv1a-swap", bias="it is made up")
    monkeypatch.setitem(SCHEMES, scheme.name, scheme)
    return scheme


def test_a_scheme_added_to_the_table_decides_on_every_path(added: HashScheme) -> None:
    """Configuration, DSampler (its one-rate path and a rule's decider), RatioSampler and
    jaeger's ProbabilisticSampler all decide by the new record's key and bound."""
    assert load_config({"hash": added.name, "rate": 0.3}).hash == added.name
    ratio = Ratio(0.3, added)
    engine = DSampler(rate=0.3, hash=added.name, resource={})
    ruled = DSampler(
        rate=0.3, hash=added.name, resource={}, rules=[{"match": {"span_name": "x"}, "action": "drop"}]
    )
    ratio_sampler, jaeger = RatioSampler(0.3, hash=added.name), ProbabilisticSampler(0.3, hash=added.name)
    expected = [added.reference(t >> 64, t & MASK64) < ratio.bound for t in IDS]
    assert 400 < sum(expected) < 800
    assert [engine.should_sample(None, t, "op").decision.is_sampled() for t in IDS] == expected
    assert [ruled.should_sample(None, t, "op").decision.is_sampled() for t in IDS] == expected
    assert [ratio_sampler.should_sample(None, t, "op").decision.is_sampled() for t in IDS] == expected
    jaeger_ids = [t & MASK64 for t in IDS]
    assert [jaeger.is_sampled(t)[0] for t in jaeger_ids] == [Ratio(0.3, added).admits(t) for t in jaeger_ids]


def test_a_scheme_added_to_the_table_states_and_audits_by_its_record(added: HashScheme) -> None:
    """A key with 56 uniform bits states th with an rv; one without states nothing; the
    drift audit names the record's bias, or none."""
    engine = DSampler(rate=0.3, hash=added.name, resource={})
    sampled = next(r for t in IDS if (r := engine.should_sample(None, t, "op")).decision.is_sampled())
    ot = sampled.trace_state.get("ot") if sampled.trace_state is not None else None
    if added.uniform is not None:
        assert ot is not None
        assert ot.startswith("th:")
        assert ";rv:" in ot
    else:
        assert ot is None
    message = Drift(1, added.name, 0.3, 0.5, 10_000, 40.0).message()
    if added.bias:
        assert message.endswith(f"{added.bias}; use hash: fnv1a-mix or xxh3")
    else:
        assert message.endswith("unexpected for this scheme: check how the trace IDs are generated")


def test_a_masking_scheme_added_to_the_table_decides_in_batches_and_says_its_path(added: HashScheme) -> None:
    """decide_batch runs the record's batch kernel; hashing_path reads the record."""
    if added.mask:
        hi = np.array([t >> 64 for t in IDS], dtype=np.uint64)
        lo = np.array([t & MASK64 for t in IDS], dtype=np.uint64)
        assert decide_batch(hi, lo, 0.3, hash=added.name).tolist() == [
            Ratio(0.3, added).admits(t) for t in IDS
        ]
        assert hashing_path(added.name) == "Python integer operations, no JIT needed"
