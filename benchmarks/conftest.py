"""Shared fixtures of the benchmark suite: compiled kernels, fixed trace IDs, ID arrays.

Every input is derived from :data:`SEED`, so two runs (and two machines) time the very
same decisions. Trace IDs are picked so that both peers of a comparison reach the same
decision: a "sampled" ID is sampled by dsampler's ``fnv1a`` rule *and* by OpenTelemetry's
``TraceIdRatioBased``, a "dropped" ID is dropped by both, so each ratio compares like
with like.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
import pytest

import dsampler
from dsampler.cli.bench._rows import Ids, pick_ids

SEED = 20_240_601
RATE = 0.1
BATCH_SIZE = 1_000_000
JIT_TIMEOUT_S = 60.0
_MASK64 = (1 << 64) - 1


#: The fixed inputs of the scalar benchmarks: the same picks ``dsampler bench`` times.
BenchIds = Ids


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels(request: pytest.FixtureRequest) -> None:
    """Wait for the numba kernels: benchmarks time the compiled core, not the fallback.
    Without numba (the jit extra) the untimed smoke run (``--benchmark-disable``) runs
    on the pure-Python path, and a timed run is skipped."""
    if importlib.util.find_spec("numba") is None:
        if not request.config.getoption("benchmark_disable"):
            pytest.skip("the figures are for numba's compiled kernels: pip install 'dsampler[jit]'")
        return
    assert dsampler.wait_for_jit(JIT_TIMEOUT_S), f"numba kernels not ready: {dsampler.jit_status()}"


@pytest.fixture(scope="session")
def ids() -> BenchIds:
    """Fixed trace IDs with a known decision at :data:`RATE`."""
    return pick_ids(SEED, RATE)


@pytest.fixture(scope="session")
def halves() -> tuple[np.ndarray[Any, np.dtype[np.uint64]], np.ndarray[Any, np.dtype[np.uint64]]]:
    """:data:`BATCH_SIZE` random trace IDs as high and low ``uint64`` halves."""
    rng = np.random.default_rng(SEED)
    hi = rng.integers(0, 1 << 64, size=BATCH_SIZE, dtype=np.uint64)
    lo = rng.integers(0, 1 << 64, size=BATCH_SIZE, dtype=np.uint64)
    return hi, lo
