"""The timing harness of ``dsampler bench``: structure and order, never a timing."""

from __future__ import annotations

import itertools
import math
from contextlib import ExitStack

import pytest

from dsampler.cli.bench import _harness, _rows, _suite
from dsampler.cli.bench._harness import Case, CaseError, quartiles, run_rounds, stats_of, verify


class Silent:
    """A progress sink that remembers what it was told."""

    def __init__(self) -> None:
        self.phases: list[str] = []
        self.steps: list[tuple[str, int, int]] = []

    def phase(self, text: str) -> None:
        self.phases.append(text)

    def step(self, text: str, done: int, total: int) -> None:
        self.steps.append((text, done, total))


def test_quartiles_of_one_value_are_that_value() -> None:
    """A single round is its own median and quartiles."""
    assert quartiles([7.0]) == (7.0, 7.0, 7.0)


def test_quartiles_of_five_values() -> None:
    """Inclusive quartiles: 1..5 gives 2, 3, 4."""
    assert quartiles([5.0, 1.0, 4.0, 2.0, 3.0]) == (2.0, 3.0, 4.0)


def test_stats_keep_rounds_extremes_and_spread() -> None:
    """Stats carry the per-round figures, their extremes and the IQR as a share of the median."""
    stats = stats_of([10.0, 20.0, 30.0, 40.0, 50.0], calls=8)
    assert (stats.median, stats.low, stats.high, stats.calls) == (30.0, 10.0, 50.0, 8)
    assert stats.per_round == (10.0, 20.0, 30.0, 40.0, 50.0)
    assert math.isclose(stats.iqr_share, 20.0 / 30.0)


def test_case_timer_passes_the_arguments_in_order() -> None:
    """The compiled loop calls the case with its arguments, positionally."""
    seen: list[tuple[object, ...]] = []
    Case("k", "who", lambda *a: seen.append(a), (None, 5, "x")).timer().timeit(2)
    assert seen == [(None, 5, "x"), (None, 5, "x")]


def test_verify_names_a_case_that_decides_wrongly() -> None:
    """A case whose check refuses its result is reported by key, before any timing."""
    good = Case("good", "g", lambda: 1, (), lambda r: r == 1)
    bad = Case("bad.key", "the bad one", lambda: 2, (), lambda r: r == 1)
    with pytest.raises(CaseError, match=r"bad\.key \(the bad one\)"):
        verify([good, bad])


def test_verify_prepares_a_case_before_checking_it() -> None:
    """``prepare`` runs first, so a drained limiter is checked drained."""
    state = {"credit": True}
    case = Case(
        "limiter", "l", lambda: state["credit"], (), lambda r: r is False, lambda: state.update(credit=False)
    )
    verify([case])  # raises if the check saw the undrained state


def test_rounds_are_interleaved_in_a_rotating_order() -> None:
    """After sizing and a warm-up round, round r times the cases starting at case r."""
    log: list[str] = []
    cases = [Case(key, key, lambda key=key: log.append(key)) for key in "abc"]
    run = run_rounds(cases, rounds=3, seconds=0.03, progress=Silent())
    batches = [key for key, _ in itertools.groupby(log)]
    rounds = [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"]][: run.rounds]
    # sizing (one case after the other), the warm-up round, then the timed rounds
    assert batches == ["a", "b", "c", "a", "b", "c", *itertools.chain(*rounds)]


def test_run_reports_every_case_for_every_round() -> None:
    """Each case has one figure per completed round; fewer rounds only when the budget ran out."""
    cases = [Case(f"c{i}", "x", int) for i in range(4)]
    progress = Silent()
    run = run_rounds(cases, rounds=3, seconds=0.05, progress=progress)
    assert 1 <= run.rounds <= 3
    assert run.stopped_early is (run.rounds < 3)
    assert set(run.stats) == {"c0", "c1", "c2", "c3"}
    assert all(len(s.per_round) == run.rounds and s.calls >= 1 for s in run.stats.values())
    assert ("timing rounds", run.rounds, 3) in progress.steps
    assert [s for s in progress.steps if s[0] == "sizing batches"][-1] == ("sizing batches", 4, 4)


def test_batches_are_timed_with_the_thread_cpu_clock() -> None:
    """Descheduled time on a shared machine must not be charged to a case."""
    assert _harness.CLOCK.__name__ == "thread_time"


def test_loop_floor_is_a_positive_duration() -> None:
    """The floor is a real, finite number of nanoseconds."""
    floor = _harness.loop_floor(samples=2, calls=1000)
    assert 0 < floor < 1e9


def test_every_case_of_the_suite_makes_the_decision_it_times() -> None:
    """Each real case (samplers, providers, jaeger-client) passes its check; keys are unique."""
    with ExitStack() as stack:
        groups, skipped = _suite.build(stack)
        cases = _suite.cases_of(groups)
        verify(cases)
    assert skipped == []  # jaeger-client is a dev dependency
    keys = {case.key for case in cases}
    rows = [row for group in groups for row in group.rows]
    assert all(row.ours in keys and row.peer in keys for row in rows)
    assert {g.name for g in groups} == {"root", "child", "rules", "ratelimit", "jaeger", "spans"}


def test_targets_sit_on_the_rows_they_name() -> None:
    """Root and child rows carry the 0.5x target; DSampler's span rows the 1.0x one; others none."""
    with ExitStack() as stack:
        groups, _ = _suite.build(stack)
    figures = {(row.group, row.label): row.figure for group in groups for row in group.rows}
    assert all(f == 0.5 for (g, _), f in figures.items() if g in {"root", "child"})
    assert {k[1] for k, f in figures.items() if f == 1.0} == {
        "DSampler vs ParentBased, sampled",
        "DSampler vs ParentBased, dropped",
    }
    assert all(f is None for (g, _), f in figures.items() if g in {"rules", "ratelimit", "jaeger"})


def test_duplicate_case_keys_are_refused() -> None:
    """Two cases under one key would silently share figures."""
    twice = _rows.Group("g", "t", (Case("k", "a", int), Case("k", "b", int)), ())
    with pytest.raises(ValueError, match="duplicate case keys"):
        _suite.cases_of([twice])


def test_picked_ids_decide_alike_on_both_sides() -> None:
    """The sampled ID is sampled by fnv1a and OTel's rule, the dropped one by neither."""
    from opentelemetry.sdk.trace.sampling import TraceIdRatioBased

    import dsampler

    ids = _rows.pick_ids()
    otel = TraceIdRatioBased(ids.rate)
    ours = dsampler.RatioSampler(ids.rate)
    for tid, sampled in ((ids.sampled, True), (ids.dropped, False)):
        assert otel.should_sample(None, tid, "x").decision.is_sampled() is sampled
        assert ours.should_sample(None, tid, "x").decision.is_sampled() is sampled
    assert ids.jaeger_sampled < ids.rate * 2**64 <= ids.jaeger_dropped
