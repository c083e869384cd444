"""The adaptive controller's cost on the request path: DSampler with the controller on
against the same DSampler without it, in the same run (issue 10: at most +10%).

The controller adds one ``next()`` on an ``itertools.count`` to every root decision of
the default rate, and one token-bucket check to each one it samples (the hard cap).
Cases: a root span that is dropped, one that is sampled, and streams of 1,000 random
trace IDs at rates 0.01 and 0.1 (what a service sees when the controller holds T at
100 T and 10 T of load). A sampled decision pays a token-bucket check, and a full
bucket refills at every check (samplers/_bucket.py), so the overhead grows with the
sampled share.
Both samplers decide at the same rate; the controller's ticker is off (its thread does
not run on the request path), its hard cap on the system clock with room to spare.

Group ``adaptive``: impl ``on`` / ``off``; ``benchmarks/report.py`` renders the ratio.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import pytest
from opentelemetry.sdk.trace.sampling import Decision
from pytest_benchmark.fixture import BenchmarkFixture

import dsampler

if TYPE_CHECKING:
    from conftest import BenchIds

NAME = "GET /x"
SCALAR = {"min_time": 1e-4, "warmup": True, "warmup_iterations": 20_000}
STREAM = {"warmup": True, "warmup_iterations": 20}
_RNG = random.Random(7)
STREAM_IDS = [_RNG.getrandbits(128) for _ in range(1000)]
#: So high that the hard cap (2x target per second) never refuses during a benchmark. (Its
#: bucket then refills at every check, as a full bucket does: the sampled case is the worst.)
TARGET = 1e8


def _sampler(impl: str, rate: float) -> dsampler.DSampler:
    sampler = dsampler.DSampler(rate=rate, resource={})
    if impl == "on":
        controller = dsampler.AdaptiveController(TARGET, sampler=sampler, max_rate=rate, ticker=False)
        assert sampler.controller is controller
        assert sampler.config.rate == rate  # the controller's rate: max_rate until its first tick
    return sampler


@pytest.mark.benchmark(group="adaptive", **SCALAR)
@pytest.mark.parametrize("impl", ["on", "off"])
@pytest.mark.parametrize("case", ["root dropped", "root sampled"])
def test_root_decision(benchmark: BenchmarkFixture, ids: BenchIds, impl: str, case: str) -> None:
    """Measures one root span's ``should_sample`` with the controller on and off."""
    benchmark.extra_info.update(impl=impl, case=case)
    sampler = _sampler(impl, ids.rate)
    sampled = case == "root sampled"

    result = benchmark(sampler.should_sample, None, ids.sampled if sampled else ids.dropped, NAME)

    assert result.decision is (Decision.RECORD_AND_SAMPLE if sampled else Decision.DROP)
    if impl == "on":
        assert sampler.controller is not None
        assert sampler.controller.tap.take() >= 1  # the calls were counted


@pytest.mark.benchmark(group="adaptive", **STREAM)
@pytest.mark.parametrize("impl", ["on", "off"])
@pytest.mark.parametrize("rate", [0.01, 0.1])
def test_stream_of_random_roots(benchmark: BenchmarkFixture, impl: str, rate: float) -> None:
    """Measures 1,000 root decisions over random trace IDs at ``rate`` (per call: 1,000)."""
    benchmark.extra_info.update(impl=impl, case=f"1,000 random roots at rate {rate}")
    sampler = _sampler(impl, rate)
    decide = sampler.should_sample

    def stream() -> int:
        return sum(decide(None, tid, NAME).decision is Decision.RECORD_AND_SAMPLE for tid in STREAM_IDS)

    sampled = benchmark(stream)

    assert 0.5 * rate * 1000 < sampled < 2 * rate * 1000
