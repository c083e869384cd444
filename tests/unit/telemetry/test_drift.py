"""The drift audit: it fires on sequential trace IDs under raw FNV-1a, names the cause,
and stays silent on random IDs."""

from __future__ import annotations

import logging
import random

import pytest

from dsampler import DSampler
from dsampler.config import SamplingConfig
from dsampler.engine import Engine
from dsampler.telemetry import audit


def counting(**settings: object) -> DSampler:
    sampler = DSampler(parent_based=False, resource={}, **settings)  # type: ignore[arg-type]
    sampler.engine.count_decisions()
    return sampler


def test_sequential_ids_under_raw_fnv1a_drift(caplog: pytest.LogCaptureFixture) -> None:
    """10**5 sequential trace IDs at rate 0.1 under fnv1a: one drift, warned once,
    naming low-entropy IDs and the schemes that suit them."""
    sampler = counting(rate=0.1, hash="fnv1a")
    for i in range(100_000):
        sampler.should_sample(None, 10**12 + i, "x")
    with caplog.at_level(logging.WARNING, logger="dsampler.telemetry"):
        (found,) = audit(sampler)
        assert audit(sampler.engine) == [found]  # its engine's: still drifting, not warned again
    assert (found.version, found.decisions, found.configured) == (1, 100_000, 0.1)
    assert abs(found.sigmas) > 4
    (record,) = caplog.records
    assert "low-entropy" in record.getMessage()
    assert "fnv1a-mix or xxh3" in record.getMessage()


@pytest.mark.parametrize("seed", range(10))
def test_random_ids_stay_silent(seed: int) -> None:
    """Random 128-bit IDs at several rates: no drift on any of ten seeds."""
    rng = random.Random(seed)
    for rate in (0.01, 0.1, 0.5):
        sampler = counting(rate=rate, hash="fnv1a")
        for _ in range(20_000):
            sampler.should_sample(None, rng.getrandbits(128), "x")
        assert audit(sampler) == []


def test_mixed_schemes_do_not_drift_on_sequential_ids() -> None:
    """fnv1a-mix on the same sequential IDs that make raw fnv1a drift: silent."""
    sampler = counting(rate=0.1, hash="fnv1a-mix")
    for i in range(100_000):
        sampler.should_sample(None, 10**12 + i, "x")
    assert audit(sampler) == []


def test_no_counting_no_audit_and_counts_are_per_version() -> None:
    """A sampler that does not count has nothing to audit; one that does keeps each
    version's counts apart, so a new rate starts a fresh comparison."""
    plain = Engine(SamplingConfig(rate=0.1, parent_based=False), resource={})  # not registered: never counts
    for i in range(5000):
        plain.should_sample(None, i, "x")
    assert audit(plain) == []
    assert plain.snapshot.counts is None
    sampler = counting(rate=0.1, hash="fnv1a")
    for i in range(50_000):
        sampler.should_sample(None, 10**12 + i, "x")
    sampler.update(rate=0.2, hash="xxh3")
    for i in range(50_000):
        sampler.should_sample(None, 10**12 + i, "x")
    versions = [d.version for d in audit(sampler)]
    assert versions == [1]
    recent = sampler.engine.decision_counts.recent  # type: ignore[union-attr]
    assert [(c.version, c.default_decided) for c in recent] == [(1, 50_000), (2, 50_000)]


def test_every_unhashed_scheme_has_its_cause() -> None:
    """Every scheme but the two recommended for low-entropy IDs names why it drifted."""
    from dsampler.hashing import SCHEMES

    assert {name for name, scheme in SCHEMES.items() if not scheme.bias} == {"fnv1a-mix", "xxh3"}


def test_sequential_ids_under_otel_js_drift_naming_the_xor(caplog: pytest.LogCaptureFixture) -> None:
    """Sequential IDs under otel-js: their words XOR to a run of neighbours, none below
    rate 0.1's bound; the warning says so."""
    sampler = counting(rate=0.1, hash="otel-js")
    for i in range(100_000):
        sampler.should_sample(None, 10**12 + i, "x")
    with caplog.at_level(logging.WARNING, logger="dsampler.telemetry"):
        (found,) = audit(sampler)
    assert found.effective == 0.0
    assert "XORs the trace ID's four 32-bit words" in caplog.records[0].getMessage()


def test_the_audit_holds_kept_to_the_probability_th_states() -> None:
    """r is the threshold's probability where the default rate states one (the same as
    the rate within 2**-56), the rate itself where it cannot (otel-js)."""
    from dsampler.consistent import ratio_to_threshold, threshold_to_probability
    from dsampler.telemetry._drift import stated_probability

    assert stated_probability("consistent", 0.1) == threshold_to_probability(ratio_to_threshold(0.1))
    assert stated_probability("otel-js", 0.1) == 0.1
    assert stated_probability("xxh3", 1.0) == 1.0
    for scheme in ("xxh3", "fnv1a", "jaeger-go", "otel-java"):
        assert abs(stated_probability(scheme, 0.01) - 0.01) < 2.0**-55
    assert stated_probability("xxh3", 2.0**-60) == 2.0**-60  # below what th can state
