"""Decision cost of dsampler next to its peers, timed in the same run.

Each benchmark is labelled in ``extra_info`` with ``impl`` (dsampler or the peer) and
``case``; ``benchmarks/report.py`` pairs them by (group, case) into ratios. Every
benchmark also checks the decision it times, and no assertion ever looks at a timing.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest
from opentelemetry.context import Context
from opentelemetry.sdk.trace.sampling import Decision, ParentBased, Sampler, TraceIdRatioBased
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context
from opentelemetry.trace.span import TraceState
from pytest_benchmark.fixture import BenchmarkFixture

import dsampler
from dsampler.hashing._schemes import SCHEMES

if TYPE_CHECKING:
    from conftest import BenchIds

NAME = "GET /x"
USER_ATTRIBUTES: Mapping[str, Any] = {"http.request.method": "GET", "url.path": "/x", "user.tier": "gold"}
TRACE_STATE = TraceState([("congo", "t61rcWkgMzE"), ("rojo", "00f067aa0ba902b7")])
SPOT_CHECKS = 1_000
IMPORT_ROUNDS = 5
PEERS = ["dsampler", "otel"]
# Sub-microsecond calls: 100 us rounds (hundreds of calls each) keep the timer's own cost
# out of the medians, which would otherwise pull every ratio towards 1.
SCALAR = {"min_time": 1e-4, "warmup": True, "warmup_iterations": 20_000}
# pytest-benchmark sizes the rounds from its first call; a few warm-up calls keep the
# first kernel dispatch and the first page faults from shrinking the sample.
BATCH = {"warmup": True, "warmup_iterations": 10}

Halves = tuple[np.ndarray[Any, np.dtype[np.uint64]], np.ndarray[Any, np.dtype[np.uint64]]]


def _label(benchmark: BenchmarkFixture, impl: str, case: str) -> None:
    benchmark.extra_info.update(impl=impl, case=case)


def _root_sampler(impl: str, rate: float) -> Sampler:
    return dsampler.RatioSampler(rate) if impl == "dsampler" else TraceIdRatioBased(rate)


def _parent_based(impl: str, rate: float) -> Sampler:
    if impl == "dsampler":
        return dsampler.ParentBasedSampler(dsampler.RatioSampler(rate))
    return ParentBased(TraceIdRatioBased(rate))


@pytest.mark.benchmark(group="root", **SCALAR)
@pytest.mark.parametrize("impl", PEERS)
@pytest.mark.parametrize("case", ["sampled", "dropped", "sampled+attrs", "dropped+attrs"])
def test_root(benchmark: BenchmarkFixture, ids: BenchIds, impl: str, case: str) -> None:
    """Measures a root span's ``should_sample`` (no parent), with and without 3 user attributes."""
    _label(benchmark, impl, case)
    sampled = case.startswith("sampled")
    attributes = USER_ATTRIBUTES if case.endswith("+attrs") else None
    tid = ids.sampled if sampled else ids.dropped
    sampler = _root_sampler(impl, ids.rate)

    result = benchmark(sampler.should_sample, None, tid, NAME, None, attributes)

    assert result.decision is (Decision.RECORD_AND_SAMPLE if sampled else Decision.DROP)
    if sampled and attributes:
        assert USER_ATTRIBUTES.items() <= dict(result.attributes).items()
    if not sampled:
        assert not result.attributes
    assert "sampler.type" not in result.attributes  # OTel-neutral: no tags by default


def _both_sample(accept: Callable[[int], bool]) -> int:
    """A fixed 128-bit trace ID that ``accept`` and OTel's TraceIdRatioBased(0.1) sample."""
    rng, otel = random.Random(20_240_601), TraceIdRatioBased.get_bound_for_rate(0.1)
    while True:
        tid = rng.getrandbits(128)
        if (tid & (2**64 - 1)) < otel and accept(tid):
            return tid


@pytest.mark.benchmark(group="root", **SCALAR)
@pytest.mark.parametrize("impl", PEERS)
@pytest.mark.parametrize("path", ["xxh3 through xxhash (lean)", "fnv1a in pure Python"])
def test_root_paths(benchmark: BenchmarkFixture, ids: BenchIds, impl: str, path: str) -> None:
    """Measures a sampled root's ``should_sample`` on the other request paths: the xxh3
    rule through the xxhash C library, and fnv1a before (or without) the numba kernel."""
    _label(benchmark, impl, f"sampled, {path}")
    scheme = SCHEMES["fnv1a"]
    if impl == "dsampler" and path.startswith("xxh3"):
        sampler: Sampler = dsampler.RatioSampler(ids.rate, hash="xxh3")
    else:
        sampler = _root_sampler(impl, ids.rate)
    probe = sampler if impl == "dsampler" else dsampler.RatioSampler(ids.rate, hash="xxh3")
    tid = _both_sample(lambda t: probe.should_sample(None, t, NAME).decision is Decision.RECORD_AND_SAMPLE)
    compiled_key = scheme.key
    if impl == "dsampler" and path.endswith("pure Python"):
        scheme.key = scheme.reference  # the path before the kernel loads, or without numba
    try:
        result = benchmark(sampler.should_sample, None, tid, NAME, None, None)
    finally:
        scheme.key = compiled_key
    assert result.decision is Decision.RECORD_AND_SAMPLE


@pytest.mark.benchmark(group="child", **SCALAR)
@pytest.mark.parametrize("impl", PEERS)
@pytest.mark.parametrize("with_trace_state", [False, True], ids=["no-tracestate", "tracestate"])
@pytest.mark.parametrize("is_remote", [False, True], ids=["local", "remote"])
def test_child_of_sampled_parent(
    benchmark: BenchmarkFixture, ids: BenchIds, impl: str, is_remote: bool, with_trace_state: bool
) -> None:
    """Measures a parent-based ``should_sample`` for a child of a sampled parent."""
    case = ("remote" if is_remote else "local") + ("+tracestate" if with_trace_state else "")
    _label(benchmark, impl, case)
    trace_state = TRACE_STATE if with_trace_state else None
    parent = SpanContext(ids.dropped, ids.span_id, is_remote, TraceFlags(TraceFlags.SAMPLED), trace_state)
    context: Context = set_span_in_context(NonRecordingSpan(parent))
    sampler = _parent_based(impl, ids.rate)

    # The trace ID alone would be dropped: a sampled result shows the parent was followed.
    result = benchmark(sampler.should_sample, context, ids.dropped, NAME)

    assert result.decision is Decision.RECORD_AND_SAMPLE
    if with_trace_state:
        assert result.trace_state == TRACE_STATE
    else:
        assert not result.trace_state


def _record_throughput(benchmark: BenchmarkFixture, halves: Halves) -> None:
    size = halves[0].size
    benchmark.extra_info["ids"] = size
    if benchmark.stats is not None:  # None under --benchmark-disable
        benchmark.extra_info["ids_per_s"] = size / benchmark.stats.stats.median


def _spot_check(halves: Halves, got: np.ndarray[Any, Any], expected: Callable[[int, int], object]) -> None:
    hi, lo = halves
    assert got.shape == hi.shape
    for i in range(0, hi.size, max(1, hi.size // SPOT_CHECKS)):
        assert got[i] == expected(int(hi[i]), int(lo[i])), f"index {i}"


def _assert_sample_fraction(decisions: np.ndarray[Any, Any], rate: float) -> None:
    # 1e6 Bernoulli(0.1) draws: sigma = 0.0003; 0.003 is a 10-sigma tolerance.
    assert decisions.dtype == np.bool_
    assert abs(float(decisions.mean()) - rate) < 0.003


@pytest.mark.benchmark(group="batch", **BATCH)
def test_batch_decide_batch(benchmark: BenchmarkFixture, ids: BenchIds, halves: Halves) -> None:
    """Measures ``decide_batch`` over 1M random trace IDs with the compiled kernel."""
    _label(benchmark, "dsampler", "decide")
    bound = dsampler.rate_to_bound(ids.rate)

    out = benchmark(dsampler.decide_batch, *halves, ids.rate)

    _record_throughput(benchmark, halves)
    _assert_sample_fraction(out, ids.rate)
    _spot_check(halves, out, lambda hi, lo: dsampler.fnv1a64(hi << 64 | lo) < bound)


@pytest.mark.benchmark(group="batch", **BATCH)
def test_batch_fnv1a64_batch(benchmark: BenchmarkFixture, halves: Halves) -> None:
    """Measures ``fnv1a64_batch`` (keys only) over 1M random trace IDs with the compiled kernel."""
    _label(benchmark, "dsampler", "keys")

    out = benchmark(dsampler.fnv1a64_batch, *halves)

    _record_throughput(benchmark, halves)
    assert out.dtype == np.uint64
    _spot_check(halves, out, lambda hi, lo: dsampler.fnv1a64(hi << 64 | lo))


def _floor_decide(hi: np.ndarray[Any, Any], lo: np.ndarray[Any, Any], bound: np.uint64) -> Any:
    return (hi ^ lo) < bound


@pytest.mark.benchmark(group="batch", **BATCH)
def test_batch_numpy_floor_decide(benchmark: BenchmarkFixture, ids: BenchIds, halves: Halves) -> None:
    """Measures a one-pass numpy ``(hi ^ lo) < bound``: the memory-bandwidth floor of a batch decision."""
    _label(benchmark, "numpy", "decide")
    bound = dsampler.rate_to_bound(ids.rate)

    out = benchmark(_floor_decide, *halves, np.uint64(bound))

    _record_throughput(benchmark, halves)
    _assert_sample_fraction(out, ids.rate)
    _spot_check(halves, out, lambda hi, lo: (hi ^ lo) < bound)


@pytest.mark.benchmark(group="batch", **BATCH)
def test_batch_numpy_floor_keys(benchmark: BenchmarkFixture, halves: Halves) -> None:
    """Measures a one-pass numpy ``hi ^ lo``: the memory-bandwidth floor of computing batch keys."""
    _label(benchmark, "numpy", "keys")

    out = benchmark(np.bitwise_xor, *halves)

    _record_throughput(benchmark, halves)
    assert out.dtype == np.uint64
    _spot_check(halves, out, lambda hi, lo: hi ^ lo)


# Runs in a fresh interpreter: import costs, then the first decision made while the
# kernels load in the background, then the wait until they serve.
_IMPORT_PROBE = """
import json, sys, time
t0 = time.perf_counter()
import opentelemetry.sdk.trace
t1 = time.perf_counter()
import dsampler
t2 = time.perf_counter()
from dsampler import DSampler, RatioSampler
t2b = time.perf_counter()
heavy = sorted(m for m in ("numpy", "numba") if m in sys.modules)
sampler = dsampler.RatioSampler(0.1)
t3 = time.perf_counter()
result = sampler.should_sample(None, int(sys.argv[1]), "GET /x")
t4 = time.perf_counter()
state = dsampler.jit_status().state
ready = dsampler.wait_for_jit(60)
t5 = time.perf_counter()
print(json.dumps({
    "otel_ms": (t1 - t0) * 1e3, "dsampler_ms": (t2 - t1) * 1e3, "samplers_ms": (t2b - t2) * 1e3,
    "heavy_modules": heavy,
    "first_decision_us": (t4 - t3) * 1e6, "first_decision_sampled": result.decision.is_sampled(),
    "jit_state_at_first_decision": state, "jit_ready": ready, "jit_ready_ms": (t5 - t3) * 1e3,
}))
"""


def _probe_imports(trace_id: int) -> dict[str, Any]:
    # Bytecode caches as an installed package has them (pip compiles them at install).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(
        [sys.executable, "-c", _IMPORT_PROBE, str(trace_id)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return dict(json.loads(done.stdout))


@pytest.mark.benchmark(group="import")
def test_import_cost(benchmark: BenchmarkFixture, ids: BenchIds) -> None:
    """Measures ``import dsampler`` after ``import opentelemetry.sdk.trace`` in fresh interpreters."""
    _label(benchmark, "dsampler", "import")
    probes: list[dict[str, Any]] = []

    _probe_imports(ids.sampled)  # writes the bytecode caches
    benchmark.pedantic(lambda: probes.append(_probe_imports(ids.sampled)), rounds=IMPORT_ROUNDS)

    for key in ("otel_ms", "dsampler_ms", "samplers_ms", "first_decision_us", "jit_ready_ms"):
        benchmark.extra_info[f"median_{key}"] = statistics.median(p[key] for p in probes)
    benchmark.extra_info["rounds"] = len(probes)
    benchmark.extra_info["jit_states_at_first_decision"] = sorted(
        {p["jit_state_at_first_decision"] for p in probes}
    )
    for probe in probes:
        assert probe["heavy_modules"] == [], "import dsampler must not import numpy or numba"
        assert probe["first_decision_sampled"] is True
        assert probe["jit_state_at_first_decision"] != "ready"  # the first decision did not wait
        assert probe["jit_ready"] is (importlib.util.find_spec("numba") is not None)
