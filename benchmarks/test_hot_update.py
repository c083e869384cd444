"""Hot updates under load: decision throughput while a writer publishes 1,000 versions
per second, and how soon a published version is decided under.

Both are threaded experiments (``concurrency.py``) run once through
``benchmark.pedantic(rounds=1)``; their figures go to ``extra_info`` for
``benchmarks/report.py``. Under ``--benchmark-disable`` they run for a few
milliseconds, as a smoke test. The assertions check correctness only: every decision
made under exactly one whole version, versions never seen going backwards, a publish
visible to the publishing thread's next decision.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import concurrency
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

if TYPE_CHECKING:
    from conftest import BenchIds

# Full runs: 13 variants x 5 rounds x 1.2 s, about 80 s with the warm-up.
THREADS = 4
UPDATES_PER_S = 1000.0
DURATION_S = 1.2
ROUNDS = 5
PUBLISHES = 2000
# --benchmark-disable: the same code for a few milliseconds.
QUICK_DURATION_S = 0.01
QUICK_ROUNDS = 1
QUICK_PUBLISHES = 20


def _label(benchmark: BenchmarkFixture, case: str) -> None:
    benchmark.extra_info.update(impl="dsampler", case=case)


def test_hot_update_throughput(benchmark: BenchmarkFixture, ids: BenchIds) -> None:
    """Measures decisions/s of 4 deciding threads alone, with a writer publishing
    1,000 updates/s, and with a lock taken around every decision and update instead."""
    _label(benchmark, "throughput")
    quick = benchmark.disabled
    duration, rounds = (QUICK_DURATION_S, QUICK_ROUNDS) if quick else (DURATION_S, ROUNDS)
    assert concurrency.is_sampled_at_all_rates(ids.sampled)
    trace_ids = concurrency.fixed_ids(ids.span_id, ids.sampled)
    runs: list[concurrency.RunResult] = []

    benchmark.pedantic(
        lambda: runs.extend(
            concurrency.hot_update_experiment(trace_ids, duration, rounds, THREADS, UPDATES_PER_S)
        ),
        rounds=1,
        iterations=1,
    )

    summary = concurrency.summarize_hot_update(runs)
    benchmark.extra_info.update(
        threads=THREADS,
        updates_per_s_target=UPDATES_PER_S,
        duration_s=duration,
        rounds=rounds,
        variants=summary,
    )
    assert len(runs) == rounds * len(concurrency.VARIANTS)
    for run in runs:
        assert run.decisions > 0, run.variant
        assert run.checked > 0, run.variant
        assert run.mismatched == 0, f"{run.variant}: a decision mixed two versions"
        assert run.backwards == 0, f"{run.variant}: a thread saw a version older than one it had seen"
        assert run.final_version == 1 + run.updates  # every update published, none lost


@pytest.mark.parametrize("readers", [1, THREADS])
def test_publish_to_visible(benchmark: BenchmarkFixture, ids: BenchIds, readers: int) -> None:
    """Measures the time from a version's publish to the first decision made under it by
    ``readers`` threads deciding in a tight loop (p50, p99 over 2,000 publishes)."""
    _label(benchmark, f"latency, {readers} reader{'s' if readers > 1 else ''}")
    publishes = QUICK_PUBLISHES if benchmark.disabled else PUBLISHES
    assert concurrency.is_sampled_at_all_rates(ids.sampled)
    results: list[concurrency.LatencyResult] = []

    benchmark.pedantic(
        lambda: results.append(concurrency.latency_experiment(ids.sampled, publishes, readers=readers)),
        rounds=1,
        iterations=1,
    )

    (result,) = results
    summary: dict[str, Any] = concurrency.summarize_latency(result)
    benchmark.extra_info.update(summary)
    assert sorted(result.published) == list(range(2, publishes + 2))
    assert result.own_next_decision_ok == publishes  # visible to the publisher's next decision
    assert result.backwards == 0
    assert set(result.first_seen) <= set(result.published)
    assert result.first_seen, "no reader ever saw a new version"
    assert min(result.latencies_s) >= 0.0  # no decision saw a version before its publish
