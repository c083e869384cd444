"""dsampler.jaeger against jaeger-client's own samplers, and the OpenTelemetry rate
limiting and per-operation samplers against the ratio sampler, in the same run.

``RemoteControlledSampler`` is timed following the same strategy on both sides (a
probabilistic one, and 2,000 operations). Figures: dsampler.jaeger no slower than
jaeger-client; ``RateLimitingSampler`` without
a lock on the common path (it takes none), else at most 1.5x ``RatioSampler``.
"""

from __future__ import annotations

import random
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from jaeger_client import sampler as jc
from pytest_benchmark.fixture import BenchmarkFixture

import dsampler
from dsampler import jaeger as dj

if TYPE_CHECKING:
    from conftest import BenchIds

SCALAR = {"min_time": 1e-4, "warmup": True, "warmup_iterations": 20_000}
OPERATIONS = 2000
NAME = "GET /x"


def _label(benchmark: BenchmarkFixture, impl: str, case: str) -> None:
    benchmark.extra_info.update(impl=impl, case=case)


def _strategies() -> dict[str, Any]:
    """An operationSampling strategy with 2,000 operations (the default max_operations)."""
    return {
        "defaultSamplingProbability": 0.1,
        "defaultLowerBoundTracesPerSecond": 1.0,
        "perOperationStrategies": [
            {"operation": f"op-{i}", "probabilisticSampling": {"samplingRate": 0.1}}
            for i in range(OPERATIONS)
        ],
    }


def _remote_pair(response: dict[str, Any]) -> tuple[Callable[[], Any], Callable[[], Any]]:
    """Both RemoteControlledSamplers following ``response``: jaeger-client's applied by
    its own update path (no IOLoop: it never polls), dsampler's by a poll of an
    in-process source (the next poll a day away)."""

    def theirs() -> Any:
        sampler = jc.RemoteControlledSampler(types.SimpleNamespace(io_loop=None), "svc")
        sampler._update_sampler(response)
        return sampler

    def ours() -> Any:
        sampler = dj.RemoteControlledSampler(
            None, "svc", strategy_source=lambda: response, sampling_refresh_interval=86400
        )
        sampler.is_sampled(0, NAME)  # the first decision starts the poller
        assert sampler.poll_once()
        return sampler

    return theirs, ours


def _peers(ids: BenchIds) -> dict[str, tuple[Callable[[], Any], Callable[[], Any]]]:
    """case -> (jaeger-client sampler factory, dsampler.jaeger sampler factory)."""
    huge = 1e9  # a limiter with credit on every call: dsampler's worst case (a refill per check)
    return {
        "probabilistic": (
            lambda: jc.ProbabilisticSampler(ids.rate),
            lambda: dj.ProbabilisticSampler(ids.rate),
        ),
        "probabilistic, hash=fnv1a": (
            lambda: jc.ProbabilisticSampler(ids.rate),
            lambda: dj.ProbabilisticSampler(ids.rate, hash="fnv1a"),
        ),
        "ratelimiting 100/s, saturated": (
            lambda: jc.RateLimitingSampler(100),
            lambda: dj.RateLimitingSampler(100),
        ),
        "ratelimiting, credit on every call": (
            lambda: jc.RateLimitingSampler(huge),
            lambda: dj.RateLimitingSampler(huge),
        ),
        "guaranteed throughput, 1/s": (
            lambda: jc.GuaranteedThroughputProbabilisticSampler(NAME, 1.0, ids.rate),
            lambda: dj.GuaranteedThroughputProbabilisticSampler(NAME, 1.0, ids.rate),
        ),
        f"adaptive, {OPERATIONS} operations": (
            lambda: jc.AdaptiveSampler(_strategies(), OPERATIONS),
            lambda: dj.AdaptiveSampler(_strategies(), OPERATIONS),
        ),
        "remote, probabilistic": _remote_pair(
            {"strategyType": "PROBABILISTIC", "probabilisticSampling": {"samplingRate": ids.rate}}
        ),
        f"remote, adaptive, {OPERATIONS} operations": _remote_pair({"operationSampling": _strategies()}),
    }


CASES = [
    "probabilistic",
    "probabilistic, hash=fnv1a",
    "ratelimiting 100/s, saturated",
    "ratelimiting, credit on every call",
    "guaranteed throughput, 1/s",
    f"adaptive, {OPERATIONS} operations",
    "remote, probabilistic",
    f"remote, adaptive, {OPERATIONS} operations",
]


def _drain(check: Callable[[], bool]) -> None:
    """Spend a limiter's bucket, so that the timed calls are the saturated case."""
    for _ in range(1000):
        if not check():
            return
    raise AssertionError("the limiter never ran out")


def _fnv1a_sampled(rate: float) -> int:
    """A 64-bit ID both rules sample, so the two sides time the same decision."""
    rng = random.Random(11)
    fnv, jaeger = dj.ProbabilisticSampler(rate, hash="fnv1a"), jc.ProbabilisticSampler(rate)
    while True:
        tid = rng.getrandbits(64)
        if fnv.is_sampled(tid)[0] and jaeger.is_sampled(tid)[0]:
            return tid


@pytest.mark.benchmark(group="jaeger", **SCALAR)
@pytest.mark.parametrize("impl", ["dsampler", "jaeger-client"])
@pytest.mark.parametrize("case", CASES)
def test_jaeger_samplers(benchmark: BenchmarkFixture, ids: BenchIds, impl: str, case: str) -> None:
    """Measures ``is_sampled`` of each dsampler.jaeger sampler next to jaeger-client's."""
    _label(benchmark, impl, case)
    theirs, ours = _peers(ids)[case]
    sampler = ours() if impl == "dsampler" else theirs()
    operation = "op-1234" if "adaptive" in case else NAME  # one of 2,000, not the first
    tid = _fnv1a_sampled(ids.rate) if "fnv1a" in case else ids.jaeger_sampled
    if "saturated" in case:
        _drain(lambda: sampler.is_sampled(tid, operation)[0])
    decision, tags = benchmark(sampler.is_sampled, tid, operation)
    assert decision is ("saturated" not in case)  # a saturated limiter refuses nearly every call
    assert tags["sampler.type"] in {"probabilistic", "ratelimiting"}
    if case == "probabilistic":
        assert sampler.is_sampled(ids.jaeger_dropped, operation)[0] is False


def _otel_samplers() -> dict[str, Callable[[], Any]]:
    ops = {f"op-{i}": 0.1 for i in range(OPERATIONS)}
    return {
        "RateLimitingSampler 100/s, saturated": lambda: dsampler.RateLimitingSampler(100, sampler_tags=True),
        "RateLimitingSampler, credit on every call": lambda: dsampler.RateLimitingSampler(
            1e9, sampler_tags=True
        ),
        f"PerOperationSampler, {OPERATIONS} operations": lambda: dsampler.PerOperationSampler(
            ops, default_rate=0.1, sampler_tags=True
        ),
    }


@pytest.mark.benchmark(group="limits", **SCALAR)
@pytest.mark.parametrize("impl", ["dsampler", "ratio"])
@pytest.mark.parametrize("case", list(_otel_samplers()))
def test_otel_limits(benchmark: BenchmarkFixture, ids: BenchIds, impl: str, case: str) -> None:
    """Measures a root decision of the rate-limiting and per-operation OTel samplers next
    to RatioSampler(0.1) on the same sampled trace ID."""
    _label(benchmark, impl, case)
    sampler = (
        _otel_samplers()[case]() if impl == "dsampler" else dsampler.RatioSampler(ids.rate, sampler_tags=True)
    )
    name = "op-1234" if "PerOperation" in case else NAME
    if "saturated" in case and impl == "dsampler":
        _drain(lambda: sampler.should_sample(None, ids.sampled, name).decision.is_sampled())  # noqa: PLW0108
    result = benchmark(sampler.should_sample, None, ids.sampled, name)
    saturated = impl == "dsampler" and "saturated" in case
    assert result.decision.is_sampled() is not saturated
    if not saturated:
        expected = "ratelimiting" if "RateLimiting" in case and impl == "dsampler" else "probabilistic"
        assert result.attributes["sampler.type"] == expected
