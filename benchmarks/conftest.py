"""Shared fixtures of the benchmark suite: compiled kernels, fixed trace IDs, ID arrays.

Every input is derived from :data:`SEED`, so two runs (and two machines) time the very
same decisions. Trace IDs are picked so that both peers of a comparison reach the same
decision: a "sampled" ID is sampled by dsampler's ``fnv1a`` rule *and* by OpenTelemetry's
``TraceIdRatioBased``, a "dropped" ID is dropped by both, so each ratio compares like
with like.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from opentelemetry.sdk.trace.sampling import TraceIdRatioBased

import dsampler

SEED = 20_240_601
RATE = 0.1
BATCH_SIZE = 1_000_000
JIT_TIMEOUT_S = 60.0
_MASK64 = (1 << 64) - 1


@dataclass(frozen=True)
class BenchIds:
    """The fixed inputs of the scalar benchmarks, all at :data:`RATE`."""

    rate: float
    sampled: int  # 128-bit, sampled by dsampler (fnv1a) and by OTel TraceIdRatioBased
    dropped: int  # 128-bit, dropped by both
    span_id: int  # parent span ID for child decisions
    jaeger_sampled: int  # 64-bit, sampled by jaeger-client's ProbabilisticSampler
    jaeger_dropped: int  # 64-bit, dropped by it


def _first(rng: random.Random, bits: int, accept: Callable[[int], bool]) -> int:
    """The first non-zero ``bits``-bit value drawn from ``rng`` that ``accept`` takes."""
    while True:
        value = rng.getrandbits(bits)
        if value and accept(value):
            return value


def _pick_ids(seed: int, rate: float) -> BenchIds:
    rng = random.Random(seed)
    dsampler_bound = dsampler.rate_to_bound(rate)
    otel_bound = TraceIdRatioBased.get_bound_for_rate(rate)
    jaeger_boundary = rate * float(1 << 64)  # jaeger-client 4.8 compares the ID with this float

    def both(tid: int) -> tuple[bool, bool]:
        return dsampler.fnv1a64(tid) < dsampler_bound, (tid & _MASK64) < otel_bound

    return BenchIds(
        rate=rate,
        sampled=_first(rng, 128, lambda tid: both(tid) == (True, True)),
        dropped=_first(rng, 128, lambda tid: both(tid) == (False, False)),
        span_id=_first(rng, 64, lambda _: True),
        jaeger_sampled=_first(rng, 64, lambda tid: tid < jaeger_boundary),
        jaeger_dropped=_first(rng, 64, lambda tid: tid >= jaeger_boundary),
    )


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels() -> None:
    """Wait for the numba kernels: benchmarks must time the compiled core, not the fallback."""
    assert dsampler.wait_for_jit(JIT_TIMEOUT_S), f"numba kernels not ready: {dsampler.jit_status()}"


@pytest.fixture(scope="session")
def ids() -> BenchIds:
    """Fixed trace IDs with a known decision at :data:`RATE`."""
    return _pick_ids(SEED, RATE)


@pytest.fixture(scope="session")
def halves() -> tuple[np.ndarray[Any, np.dtype[np.uint64]], np.ndarray[Any, np.dtype[np.uint64]]]:
    """:data:`BATCH_SIZE` random trace IDs as high and low ``uint64`` halves."""
    rng = np.random.default_rng(SEED)
    hi = rng.integers(0, 1 << 64, size=BATCH_SIZE, dtype=np.uint64)
    lo = rng.integers(0, 1 << 64, size=BATCH_SIZE, dtype=np.uint64)
    return hi, lo
