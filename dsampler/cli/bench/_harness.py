"""Times cases in interleaved rounds, so drift and noise hit every sampler alike.

A case is one call (a decision, or a span start+end) with fixed arguments. Each is
timed as a batch of ``calls`` back-to-back calls inside a loop compiled by
:mod:`timeit` (the cheapest Python loop there is; garbage collection off during a batch,
as ``timeit`` does), and a round times one batch of every case, in an order rotated
each round. Batches are sized once, before the rounds, so that the requested rounds
fit the time budget; an untimed warm-up round precedes them, and the rounds stop early
when the budget (with a margin of :data:`GRACE`) runs out.

Batches are timed with the thread's CPU clock (``time.thread_time``), not the wall
clock: on a shared machine a process is descheduled for whole milliseconds, which the
wall clock would charge to whichever case was running (seen here: one sampler timed at
2,060 ns by the wall clock with a 34% spread, 835 ns with 0.8% by the CPU clock, in
the same minute). The budget and the batch sizes are in wall time, so the run ends
when it said it would.

What a figure includes: the call itself and one iteration of the timing loop, the
same on both sides of a ratio (:func:`loop_floor` measures it).
"""

from __future__ import annotations

import gc
import statistics
import time
import timeit
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

#: The clock that times batches (see the module's docstring).
CLOCK = time.thread_time
#: The rounds may overrun the budget by this factor before they stop early.
GRACE = 1.5
# Sizing probes a case until one probe lasts this share of a batch.
_PROBE_SHARE = 0.125
_MAX_CALLS = 10_000_000
_NS = 1e9


class CaseError(Exception):
    """A case did not make the decision it is meant to time (a bug, not noise)."""


def _accept(_: object) -> bool:
    return True


def _nothing() -> None:
    return None


@dataclass(frozen=True)
class Case:
    """One timed call: ``call(*args)``.

    Attributes:
        key: unique name of the case, as rows and JSON refer to it.
        impl: who decides, for people ("dsampler RatioSampler(0.1)").
        check: tells whether a result is the decision this case is meant to time.
        prepare: brings the sampler to the state the case times (a limiter drained of
            its credit); :func:`verify` runs it just before the check.
    """

    key: str
    impl: str
    call: Callable[..., object]
    args: tuple[object, ...] = ()
    check: Callable[[object], bool] = _accept
    prepare: Callable[[], None] = _nothing

    def timer(self, clock: Callable[[], float] = CLOCK) -> timeit.Timer:
        """A timer whose loop calls ``call`` with its arguments as plain local names."""
        names = {f"a{i}": arg for i, arg in enumerate(self.args)}
        stmt = f"f({', '.join(names)})"
        return timeit.Timer(stmt, timer=clock, globals={"f": self.call, **names})


@dataclass(frozen=True)
class Stats:
    """Nanoseconds per call over the rounds of one case."""

    median: float
    q1: float
    q3: float
    low: float
    high: float
    calls: int  # per batch
    per_round: tuple[float, ...]

    @property
    def iqr_share(self) -> float:
        """The inter-quartile range as a share of the median (0.05: 5%)."""
        return (self.q3 - self.q1) / self.median if self.median > 0 else 0.0


def quartiles(values: Sequence[float]) -> tuple[float, float, float]:
    """(first quartile, median, third quartile); one value is all three."""
    if len(values) < 2:
        return values[0], values[0], values[0]
    q1, median, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, median, q3


def stats_of(per_round: Sequence[float], calls: int) -> Stats:
    q1, median, q3 = quartiles(per_round)
    return Stats(median, q1, q3, min(per_round), max(per_round), calls, tuple(per_round))


class Progress(Protocol):
    """Where the harness reports what it is doing."""

    def phase(self, text: str) -> None: ...

    def step(self, text: str, done: int, total: int) -> None: ...


@dataclass
class Run:
    """What :func:`run_rounds` measured."""

    stats: dict[str, Stats]
    rounds: int
    batch_s: float
    elapsed_s: float
    stopped_early: bool = False


def verify(cases: Sequence[Case]) -> None:
    """Call every case once and check its decision; :class:`CaseError` names the first wrong one."""
    for case in cases:
        case.prepare()
        if not case.check(case.call(*case.args)):
            raise CaseError(f"{case.key} ({case.impl}) did not make the decision it is meant to time")


def _size(timer: timeit.Timer, batch_s: float) -> int:
    """How many calls make one batch of about ``batch_s`` seconds (the probes warm the case up)."""
    calls, took = 1, 0.0
    while calls < _MAX_CALLS:
        took = timer.timeit(calls)
        if took >= batch_s * _PROBE_SHARE:
            break
        calls *= 4
    return max(1, min(_MAX_CALLS, round(calls * batch_s / took) if took > 0 else calls))


def _size_all(cases: Sequence[Case], batch_s: float, progress: Progress) -> list[int]:
    """Batch sizes in wall time, so that the rounds fit the budget whatever the load."""
    calls = []
    for i, case in enumerate(cases):
        progress.step("sizing batches", i + 1, len(cases))
        calls.append(_size(case.timer(time.perf_counter), batch_s))
    return calls


def run_rounds(cases: Sequence[Case], *, rounds: int, seconds: float, progress: Progress) -> Run:
    """Size, warm up, then time ``rounds`` interleaved rounds within about ``seconds``."""
    started = time.perf_counter()
    deadline = started + seconds * GRACE
    # The budget pays for sizing (up to a batch per case), one warm-up round and the
    # timed rounds.
    batch_s = seconds / ((rounds + 2) * len(cases))
    timers = [case.timer() for case in cases]
    calls = _size_all(cases, batch_s, progress)
    progress.step("warm-up round", 0, 1)
    for timer, n in zip(timers, calls, strict=True):
        timer.timeit(n)
    samples: list[list[float]] = [[] for _ in cases]
    stopped_early = False
    for r in range(rounds):
        round_start = time.perf_counter()
        shift = r % len(cases)
        for i in [*range(shift, len(cases)), *range(shift)]:
            samples[i].append(timers[i].timeit(calls[i]) / calls[i] * _NS)
        gc.collect()  # outside the timed batches, so no batch pays for another's garbage
        progress.step("timing rounds", r + 1, rounds)
        now = time.perf_counter()
        if r + 1 < rounds and now + (now - round_start) > deadline:
            stopped_early = True
            break
    stats = {case.key: stats_of(s, n) for case, s, n in zip(cases, samples, calls, strict=True)}
    return Run(
        stats=stats,
        rounds=len(samples[0]),
        batch_s=batch_s,
        elapsed_s=time.perf_counter() - started,
        stopped_early=stopped_early,
    )


def _floor(a0: object, a1: object, a2: object) -> None:
    return None


def loop_floor(samples: int = 5, calls: int = 20_000) -> float:
    """Nanoseconds of one loop iteration calling a function of three arguments that
    returns at once: what every figure includes besides the work of the sampler."""
    timer = Case("floor", "floor", _floor, (None, 1, "x")).timer()
    return min(timer.repeat(samples, calls)) / calls * _NS
