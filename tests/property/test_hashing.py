"""Properties of the decision core: kernels equal the reference, bounds are exact,
decisions are monotone in the rate and match OpenTelemetry's and jaeger-client's."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jaeger_client.sampler import ProbabilisticSampler as JaegerProbabilistic
from opentelemetry.sdk.trace.sampling import TraceIdRatioBased

from dsampler import RatioSampler, decide_batch, fnv1a64_batch, rate_to_bound
from dsampler.hashing import _numpy_twin
from dsampler.hashing._loader import LOADER
from dsampler.hashing._reference import MASK63, MASK64, fnv1a64_bytes, fnv1a64_key
from dsampler.hashing._schemes import SCHEMES
from tests.property.strategies import RULE_NAMES, rates, rules, trace_ids


def _sampled(sampler: RatioSampler, trace_id: int) -> bool:
    return sampler.should_sample(None, trace_id, "op").decision.is_sampled()


_COMPILED = sorted(name for name, scheme in SCHEMES.items() if scheme.jit)


@pytest.mark.usefixtures("jit")
@given(trace_ids, st.sampled_from(_COMPILED))
def test_jitted_scalar_equals_reference(trace_id: int, rule: str) -> None:
    """Every compiled scalar kernel is bit-identical to its pure-Python definition."""
    kernels = LOADER.kernels
    assert kernels is not None
    hi, lo = trace_id >> 64, trace_id & MASK64
    assert kernels.SCALAR[SCHEMES[rule].kernel](hi, lo) == SCHEMES[rule].reference(hi, lo)


@pytest.mark.usefixtures("jit")
@settings(deadline=None)  # the first batch times the two fnv1a kernels (fnv_batch_form)
@given(st.lists(trace_ids, min_size=0, max_size=64), st.sampled_from(_COMPILED), rates)
def test_batch_kernels_equal_reference(ids: list[int], rule: str, rate: float) -> None:
    """Every batch kernel of a compiled scheme (for fnv1a both forms, whichever this
    machine runs faster) gives the reference key and decision of every ID."""
    kernels = LOADER.kernels
    assert kernels is not None
    scheme = SCHEMES[rule]
    hi = np.array([t >> 64 for t in ids], dtype=np.uint64)
    lo = np.array([t & MASK64 for t in ids], dtype=np.uint64)
    expected = [scheme.reference(t >> 64, t & MASK64) for t in ids]
    bound = min(scheme.bound(rate), MASK64)
    decided = [k < bound for k in expected]
    assert kernels.batch_keys(hi, lo, scheme.kernel).tolist() == expected
    assert kernels.batch_decide(hi, lo, np.uint64(bound), scheme.kernel).tolist() == decided
    if rule != "xxh3":
        for keys, decide in kernels.FNV_FORMS.values():
            assert keys(hi, lo, rule == "fnv1a-mix").tolist() == expected
            assert decide(hi, lo, np.uint64(bound), rule == "fnv1a-mix").tolist() == decided


@given(st.lists(trace_ids, min_size=0, max_size=64), rules)
def test_numpy_twin_equals_reference(ids: list[int], rule: str) -> None:
    """The numpy twin (every batch without numba) gives the reference key of every ID."""
    hi = np.array([t >> 64 for t in ids], dtype=np.uint64)
    lo = np.array([t & MASK64 for t in ids], dtype=np.uint64)
    expected = [SCHEMES[rule].reference(t >> 64, t & MASK64) for t in ids]
    assert _numpy_twin.keys(SCHEMES[rule].kernel, hi, lo).tolist() == expected


@given(trace_ids)
def test_key_of_the_16_big_endian_bytes(trace_id: int) -> None:
    """fnv1a over (hi, lo) is FNV-1a over the W3C 16-byte big-endian encoding."""
    assert fnv1a64_key(trace_id >> 64, trace_id & MASK64) == fnv1a64_bytes(trace_id.to_bytes(16, "big"))


@given(rates)
def test_rate_to_bound_is_floor_of_the_exact_double_times_2_64(rate: float) -> None:
    """The canonical bound is floor(rate * 2**64) computed on the exact double."""
    assert rate_to_bound(rate) == int(Fraction(rate) * 2**64)


@pytest.mark.parametrize(
    ("rate", "bound"),
    [
        (0.0, 0),  # never
        (1.0, 2**64),  # always: every 64-bit key is below it
        (2.0**-64, 1),  # the smallest rate that samples anything: exactly one key
        (0.5, 2**63),
        # The double nearest 0.1 is 3602879701896397 / 2**55, so the exact bound is
        # 3602879701896397 * 2**9; the decimal 0.1 would give 1844674407370955161.
        (0.1, 1844674407370955264),
    ],
)
def test_rate_to_bound_exact_at_named_edges(rate: float, bound: int) -> None:
    """rate_to_bound is exact at 0, 1, 2**-64, 0.5 and 0.1."""
    assert rate_to_bound(rate) == bound


@given(trace_ids, rates, rates, rules)
def test_a_higher_rate_never_unsamples(trace_id: int, r1: float, r2: float, rule: str) -> None:
    """A trace sampled at rate r is sampled at every rate r' > r, under every rule."""
    low, high = sorted((r1, r2))
    if _sampled(RatioSampler(low, hash=rule), trace_id):
        assert _sampled(RatioSampler(high, hash=rule), trace_id)


@given(trace_ids, rates, rules, st.text(max_size=20), st.dictionaries(st.text(max_size=5), st.integers()))
def test_decision_depends_only_on_trace_id_and_rate(
    trace_id: int, rate: float, rule: str, name: str, attributes: dict[str, int]
) -> None:
    """Span name, attributes and sampler instance do not change the decision."""
    a = RatioSampler(rate, hash=rule).should_sample(None, trace_id, "a")
    b = RatioSampler(rate, hash=rule).should_sample(None, trace_id, name, None, attributes)
    assert a.decision is b.decision


@given(trace_ids, rates)
def test_rate_zero_never_and_rate_one_always(trace_id: int, rate: float) -> None:
    """Rate 0 samples nothing and rate 1 everything, including the extreme keys."""
    for rule in RULE_NAMES:
        assert not _sampled(RatioSampler(0.0, hash=rule), trace_id)
        assert _sampled(RatioSampler(1.0, hash=rule), trace_id)


@given(trace_ids, rates)
def test_otel_rule_agrees_with_trace_id_ratio_based(trace_id: int, rate: float) -> None:
    """Rule ``otel`` decides exactly as OpenTelemetry's TraceIdRatioBased."""
    ours = RatioSampler(rate, hash="otel").should_sample(None, trace_id, "op").decision
    assert ours is TraceIdRatioBased(rate).should_sample(None, trace_id, "op").decision


@given(trace_ids, rates)
def test_jaeger_rule_agrees_with_jaeger_client(trace_id: int, rate: float) -> None:
    """Rule ``jaeger`` decides exactly as jaeger-client-python 4.8's ProbabilisticSampler."""
    theirs, _tags = JaegerProbabilistic(rate).is_sampled(trace_id)
    assert _sampled(RatioSampler(rate, hash="jaeger"), trace_id) is theirs


@given(trace_ids, rates.filter(lambda r: r > 0.0))
def test_jaeger_go_rule_agrees_with_jaeger_client_go_formula(trace_id: int, rate: float) -> None:
    """Rule ``jaeger-go`` is jaeger-client-go's ``uint64(float64(maxRandomNumber)*rate) >= id.Low&max``."""
    boundary = int(float(MASK63) * rate)  # float64(2**63 - 1) rounds to 2**63, as in Go
    assert _sampled(RatioSampler(rate, hash="jaeger-go"), trace_id) is (boundary >= (trace_id & MASK63))


@settings(max_examples=50)
@given(st.lists(trace_ids, min_size=1, max_size=200), rates, rules)
def test_decide_batch_equals_one_at_a_time(ids: list[int], rate: float, rule: str) -> None:
    """decide_batch makes exactly the decisions of RatioSampler, ID by ID."""
    hi = np.array([t >> 64 for t in ids], dtype=np.uint64)
    lo = np.array([t & MASK64 for t in ids], dtype=np.uint64)
    sampler = RatioSampler(rate, hash=rule)
    assert decide_batch(hi, lo, rate, hash=rule).tolist() == [_sampled(sampler, t) for t in ids]


@given(st.lists(trace_ids, min_size=1, max_size=50))
def test_fnv1a64_batch_equals_scalar(ids: list[int]) -> None:
    """fnv1a64_batch is the scalar fnv1a64 applied to each ID."""
    hi = np.array([t >> 64 for t in ids], dtype=np.uint64)
    lo = np.array([t & MASK64 for t in ids], dtype=np.uint64)
    assert fnv1a64_batch(hi, lo).tolist() == [fnv1a64_key(t >> 64, t & MASK64) for t in ids]


@settings(deadline=None)  # the first example imports DSampler
@given(trace_ids, rates, rules)
def test_every_ratio_test_is_the_one_definition(trace_id: int, rate: float, rule: str) -> None:
    """Ratio.admits is the ratio test; its one inlined copy (the engine's one-rate
    request path), RatioSampler, every decider built on it, jaeger's
    ProbabilisticSampler and the pure-Python reference all say the same."""
    from dsampler import DSampler
    from dsampler.engine._deciders import RatioDecider, Tagger
    from dsampler.hashing import Ratio, get_scheme
    from dsampler.jaeger import ProbabilisticSampler

    ratio = Ratio(rate, get_scheme(rule))
    expected = ratio.admits(trace_id)
    sampler = DSampler(rate=rate, hash=rule, parent_based=False, resource={})
    assert sampler.engine.snapshot.simple
    assert sampler.should_sample(None, trace_id, "op").decision.is_sampled() == expected
    assert _sampled(RatioSampler(rate, hash=rule), trace_id) == expected
    decider = RatioDecider("rate", rate, get_scheme(rule), Tagger())
    assert decider.decide(trace_id, None, None).decision.is_sampled() == expected
    assert ProbabilisticSampler(rate, hash=rule).is_sampled(trace_id & MASK64)[0] == Ratio(
        rate, get_scheme(rule)
    ).admits(trace_id & MASK64)
    assert (ratio.key_of(trace_id) < ratio.bound) == expected
