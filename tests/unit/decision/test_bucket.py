"""TokenBucket: its plain semantics under a manual clock (caps, intervals, fractions,
updates, threads), then against hostile conditions: threads switching often (checks and
updates never hold the baton across a call), forks mid-check and mid-update, clocks that
go backwards, read NaN or raise, rates at the ends of the float range, and the batch
model that `dsampler simulate` uses in its place."""

from __future__ import annotations

import math
import os
import random
import sys
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsampler import ConfigError, ManualClock
from dsampler.cli.simulate._simulation import CapModel
from dsampler.decision._bucket import TokenBucket
from tests.forking import in_child


def admitted(bucket: TokenBucket, tries: int = 1000) -> int:
    return sum(bucket.try_acquire() for _ in range(tries))


def test_starts_full_and_never_exceeds_max_balance() -> None:
    """A new bucket holds max_balance; an hour of idleness refills it only to the cap."""
    clock = ManualClock()
    bucket = TokenBucket(2.0, 5.0, clock=clock)
    assert admitted(bucket) == 5
    clock.advance(3600)
    assert bucket.balance == 5.0
    assert admitted(bucket) == 5


def test_default_max_balance_is_max_of_rate_and_one() -> None:
    """Jaeger's maxBalance = max(rate, 1): a 0.1/s limiter still admits its first request."""
    assert TokenBucket(0.1, clock=ManualClock()).max_balance == 1.0
    assert TokenBucket(7.5, clock=ManualClock()).max_balance == 7.5
    assert admitted(TokenBucket(0.1, clock=ManualClock())) == 1


def test_one_per_minute() -> None:
    """1/60 credits per second admits one trace a minute, not one at 59.9 s."""
    clock = ManualClock()
    bucket = TokenBucket(1 / 60, clock=clock)
    assert admitted(bucket, 10) == 1
    clock.advance(59.9)
    assert admitted(bucket, 10) == 0
    clock.advance(0.1)
    assert admitted(bucket, 10) == 1
    clock.advance(600)
    assert admitted(bucket, 10) == 1  # max_balance is 1: ten idle minutes give one trace


def test_zero_rate_admits_nothing() -> None:
    """A zero rate starts empty and stays empty (OTel Go since go-contrib#3604)."""
    clock = ManualClock()
    bucket = TokenBucket(0.0, clock=clock)
    assert admitted(bucket) == 0
    clock.advance(1e6)
    assert admitted(bucket) == 0


def test_clock_going_backwards_mints_nothing() -> None:
    """A backwards step adds no credit, and the return to the old time adds none twice."""
    clock = ManualClock()
    bucket = TokenBucket(10.0, 10.0, clock=clock)
    assert admitted(bucket) == 10
    clock.advance(-100)
    assert admitted(bucket) == 0
    clock.advance(100)  # back where it was: still nothing elapsed since the last refill
    assert admitted(bucket) == 0
    clock.advance(0.5)
    assert admitted(bucket) == 5


@settings(max_examples=100, deadline=None)
@given(
    rate=st.floats(min_value=0.01, max_value=200.0),
    cap=st.floats(min_value=1.0, max_value=50.0),
    steps=st.lists(
        st.tuples(st.floats(min_value=0.0, max_value=2.0), st.integers(1, 30)), min_size=1, max_size=60
    ),
)
def test_any_interval_admits_at_most_rate_times_t_plus_max_balance(
    rate: float, cap: float, steps: list[tuple[float, int]]
) -> None:
    """Over every interval [a, b] of a random schedule: admitted <= rate*(b-a) + max_balance."""
    clock = ManualClock()
    bucket = TokenBucket(rate, cap, clock=clock)
    events: list[tuple[float, int]] = []
    for gap, tries in steps:
        clock.advance(gap)
        events.append((clock.now, admitted(bucket, tries)))
        assert bucket.balance <= cap + 1e-9
    for i in range(len(events)):
        total = 0
        for j in range(i, len(events)):
            total += events[j][1]
            span = events[j][0] - events[i][0]
            assert total <= rate * span + cap + 1e-6, (i, j, total)


def test_update_pro_rates_the_balance_and_unchanged_is_a_no_op() -> None:
    """Jaeger's Update: balance scaled by new_max/old_max; the same values change nothing."""
    clock = ManualClock()
    bucket = TokenBucket(10.0, 10.0, clock=clock)
    assert admitted(bucket, 6) == 6  # balance 4 of 10
    bucket.update(20.0, 20.0)
    assert bucket.balance == pytest.approx(8.0)
    clock.advance(0.1)  # +2 credits at the new rate
    bucket.update(20.0, 20.0)  # unchanged: no refill, no rebase
    assert admitted(bucket) == 10


def test_update_with_default_max_and_validation() -> None:
    """update() validates like the constructor and defaults max to max(rate, 1)."""
    bucket = TokenBucket(4.0, clock=ManualClock())
    bucket.update(0.5)
    assert bucket.max_balance == 1.0
    with pytest.raises(ConfigError, match=r"^credits_per_second: "):
        bucket.update(-1.0)
    assert bucket.credits_per_second == 0.5


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ((-1.0,), "credits_per_second"),
        ((math.nan,), "credits_per_second"),
        ((math.inf,), "credits_per_second"),
        ((1.0, -2.0), "max_balance"),
        ((1.0, math.inf), "max_balance"),
        (("5",), "credits_per_second"),
    ],
)
def test_bad_figures_raise_config_error(args: tuple[object, ...], field: str) -> None:
    """Negative, NaN, infinite and non-numeric figures are refused, naming the argument."""
    with pytest.raises(ConfigError) as info:
        TokenBucket(*args, clock=ManualClock())  # type: ignore[arg-type]
    assert info.value.field == field


def test_initial_balance_above_max_is_refused() -> None:
    """An initial balance beyond the cap would mint credits out of nothing."""
    with pytest.raises(ConfigError, match=r"^initial_balance: "):
        TokenBucket(1.0, 2.0, initial_balance=3.0, clock=ManualClock())


def test_eight_threads_with_a_frozen_clock_admit_exactly_the_balance() -> None:
    """No credit is spent twice: 8 threads x 20,000 tries admit exactly 1,000."""
    bucket = TokenBucket(100.0, 1000.0, clock=ManualClock())
    counts = [0] * 8
    start = threading.Barrier(8)

    def worker(i: int) -> None:
        start.wait()
        counts[i] = admitted(bucket, 20_000)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(counts) == 1000


def test_threads_with_a_moving_clock_never_exceed_the_budget() -> None:
    """Threads racing refills: total admitted <= initial balance + rate * elapsed."""
    clock = ManualClock()
    bucket = TokenBucket(50.0, 10.0, clock=clock)
    counts = [0] * 4
    stop = threading.Event()

    def worker(i: int) -> None:
        while not stop.is_set():
            counts[i] += bucket.try_acquire()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for _ in range(50):  # 2 simulated seconds in 40 ms steps, the workers racing each refill
        clock.advance(0.04)
        time.sleep(0)
    stop.set()
    for t in threads:
        t.join()
    assert sum(counts) <= 10 + 50.0 * 2.0 + 1e-9
    assert sum(counts) >= 10  # the initial balance at least was handed out


class ContinuousBucket:
    """The reference: a balance that grows continuously, capped, spent a whole credit
    at a time."""

    def __init__(self, rate: float, max_balance: float, now: float) -> None:
        self.rate, self.max, self.balance, self.last = rate, max_balance, max_balance, now

    def check(self, now: float) -> bool:
        self.balance = min(self.max, self.balance + max(0.0, now - self.last) * self.rate)
        self.last = max(self.last, now)
        if self.balance >= 1.0:
            self.balance -= 1.0
            return True
        return False


@settings(max_examples=300, deadline=None)
@given(
    rate=st.sampled_from([0.5, 1.0, 2.0, 4.0, 10.0, 64.0, 100.0]),
    size=st.sampled_from([None, 1.0, 1.5, 2.0, 10.0]),
    steps=st.lists(st.tuples(st.integers(0, 256), st.integers(0, 12)), min_size=1, max_size=40),
)
def test_admits_exactly_what_a_continuous_bucket_admits(
    rate: float, size: float | None, steps: list[tuple[int, int]]
) -> None:
    """Step by step (advance k/64 s, then n checks), the bucket admits exactly what the
    continuous reference does and holds its balance: sparse checks of a full bucket
    (the hard cap's case, a limiter above its call rate) and bursts that drain it."""
    clock = ManualClock(start=0.0)
    bucket = TokenBucket(rate, size, clock=clock)
    most = max(rate, 1.0) if size is None else size
    reference = ContinuousBucket(rate, most, 0.0)
    for ticks, checks in steps:
        clock.advance(ticks / 64)
        for _ in range(checks):
            assert bucket.try_acquire() == reference.check(clock.now)
        accrued = reference.balance + max(0.0, clock.now - reference.last) * rate
        assert bucket.balance == pytest.approx(min(most, accrued), abs=1e-9)


RNG = random.Random(5)


@pytest.mark.parametrize("updating", [False, True], ids=["alone", "while-updated"])
def test_threads_are_not_refused_while_the_bucket_has_credit(updating: bool) -> None:
    """Four threads checking flat out on the system clock, switching threads often, on
    a bucket that never runs dry, alone or while the main thread updates its rate: no
    check or update holds the baton across a call (the clock is read before it), so
    under the GIL none is refused (10-30% were with the clock read under the baton,
    13,000-28,000 of 160,000 with an update holding it across its calls)."""
    bucket = TokenBucket(1e9, 1e9)
    refused = [0] * 4
    start = threading.Barrier(5)

    def work(i: int) -> None:
        start.wait()
        refused[i] = sum(not bucket.try_acquire() for _ in range(40_000))

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    updates = 0
    try:
        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        start.wait()
        while updating and any(t.is_alive() for t in threads) and updates < 20_000:
            bucket.update(1e9 if updates % 2 else 9e8, 1e9)
            updates += 1
        for t in threads:
            t.join(60)
    finally:
        sys.setswitchinterval(old)
    assert updates > 100 or not updating
    # 0.1% of 160,000; 1% on 3.10, which may switch threads at a branch inside a check too
    assert sum(refused) <= (1_600 if sys.version_info < (3, 11) else 160), refused


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_fork_during_an_update_gives_the_child_a_whole_bucket() -> None:
    """A thread moves a drained limiter between 1/s and 1000/s while the main thread
    forks: every child sees the rate and the balance of one update, never the new
    maximum with the old debt (999 free credits, or 1000 s without any)."""
    clock = ManualClock()
    bucket = TokenBucket(1.0, initial_balance=0.0, clock=clock)
    stop = threading.Event()

    def updater() -> None:
        i = 0
        while not stop.is_set():
            while bucket.try_acquire():  # drain: at most 1,000
                pass
            bucket.update(1000.0 if i % 2 else 1.0)
            i += 1

    thread = threading.Thread(target=updater, daemon=True)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    thread.start()
    torn = []
    try:
        for _ in range(60):
            threading.Event().wait(0.001)

            def child() -> bytes:  # nothing to sample now, the rate's worth a second later
                now = sum(bucket.try_acquire() for _ in range(2_000))
                clock.advance(1.0)
                later = sum(bucket.try_acquire() for _ in range(2_000))
                ok = now == 0 and later == int(bucket.credits_per_second)
                return b"1" if ok else f"{bucket.credits_per_second}/{now}/{later}".encode()

            answer = in_child(child)
            if answer != b"1":
                torn.append(answer)
    finally:
        stop.set()
        thread.join(10)
        sys.setswitchinterval(old)
    assert torn == []


@pytest.mark.parametrize(("rate", "size", "most"), [(1e-310, 2.0, 2), (1e-320, 1.0, 1), (5e-324, 3.0, 3)])
def test_tiny_rates_admit_the_bucket_and_no_more(rate: float, size: float, most: int) -> None:
    clock = ManualClock()
    cap = TokenBucket(rate, size, clock=clock)
    assert sum(cap.try_acquire() for _ in range(1_000)) == most
    clock.advance(1e6)
    assert not cap.try_acquire()


@pytest.mark.parametrize(("rate", "start"), [(50_000.0, 1e7), (1e9, 2e7), (100.0, 1e9)])
def test_a_saturated_cap_does_not_drift_above_its_bound_at_any_clock_reading(
    rate: float, start: float
) -> None:
    """Checks arriving 5% faster than the rate for a while: never more than the
    continuous bucket's size plus what its rate accrued (a time accumulated in floats
    rounds the same way at every admission and drifted above it)."""
    clock = ManualClock(start=start)
    size = max(1.0, rate * 0.1)
    cap = TokenBucket(rate, size, clock=clock)
    step = 1.0 / (1.05 * rate)
    admitted = 0
    for i in range(1, 200_001):
        clock.now = start + i * step
        admitted += cap.try_acquire()
    assert admitted <= size + rate * (clock.now - start) + 1e-6
    frozen = TokenBucket(rate, 10.0, clock=ManualClock(start=start))
    assert sum(frozen.try_acquire() for _ in range(1_000)) == 10


class HostileClock(ManualClock):
    """An injected clock that, while ``fault`` is set, reads NaN (``"nan"``) or raises
    (``"raise"``)."""

    __slots__ = ("fault",)

    def __init__(self) -> None:
        super().__init__()
        self.fault: str | None = None

    def monotonic(self) -> float:
        if self.fault == "raise":
            raise RuntimeError("clock down")
        return math.nan if self.fault == "nan" else self.now


def test_a_nan_clock_reading_refuses_and_leaves_no_trace() -> None:
    clock = HostileClock()
    clock.fault = "nan"
    cap = TokenBucket(10.0, 5.0, clock=clock)  # built while the clock reads NaN
    assert not any(cap.try_acquire() for _ in range(10))
    cap.update(20.0, 5.0)
    clock.fault = None
    assert sum(cap.try_acquire() for _ in range(10)) == 5
    clock.fault = "nan"
    cap.update(10.0, 5.0)
    assert not cap.try_acquire()
    clock.fault = None
    clock.advance(3600.0)
    assert sum(cap.try_acquire() for _ in range(10)) == 5


def test_a_zero_rate_keeps_the_balance_for_when_the_rate_comes_back() -> None:
    """Rate 0 accrues nothing but keeps what is there, through a round trip."""
    clock = ManualClock()
    cap = TokenBucket(10.0, 10.0, clock=clock)
    assert sum(cap.try_acquire() for _ in range(4)) == 4
    cap.update(0.0, 10.0)
    cap.update(10.0, 10.0)
    assert cap.balance == pytest.approx(6.0)
    cap.update(0.0, 10.0)
    clock.advance(100.0)
    assert cap.balance == pytest.approx(6.0)
    assert sum(cap.try_acquire() for _ in range(20)) == 6
    cap.update(10.0, 10.0)
    clock.advance(0.5)
    assert sum(cap.try_acquire() for _ in range(20)) == 5


@settings(max_examples=200, deadline=None)
@given(
    rate=st.sampled_from([0.5, 2.0, 64.0, 100.0]),
    size=st.sampled_from([1.0, 1.5, 10.0]),
    gaps=st.lists(st.integers(0, 128), min_size=1, max_size=60),
)
def test_the_simulation_admits_what_the_real_cap_admits(rate: float, size: float, gaps: list[int]) -> None:
    """``dsampler simulate`` models the cap in batch arithmetic: the same arrivals in,
    the same admitted out, in any split of the arrivals into batches."""
    times, now = [], 0.0
    for gap in gaps:
        now += gap / 64
        times.append(now)
    clock = ManualClock(start=0.0)
    cap = TokenBucket(rate, size, clock=clock)
    real = 0
    for t in times:
        clock.now = t
        real += cap.try_acquire()
    model = CapModel(rate, size)
    half = len(times) // 2
    assert model.admit(times[:half]) + model.admit(times[half:]) == real


def test_a_check_whose_clock_raises_gives_the_baton_back() -> None:
    clock = HostileClock()
    cap = TokenBucket(10.0, 3.0, clock=clock)
    clock.fault = "raise"
    with pytest.raises(RuntimeError):
        cap.try_acquire()
    clock.fault = None
    assert sum(cap.try_acquire() for _ in range(5)) == 3  # not refused for good


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_fork_while_a_check_holds_the_baton_gives_the_child_one() -> None:
    """The parent's check is mid-way (baton out) at the fork: in the child that thread
    does not exist, and the cap must still admit."""
    cap = TokenBucket(100.0, 5.0)
    del cap._baton[0]  # a check of another thread in progress
    assert in_child(lambda: bytes([sum(cap.try_acquire() for _ in range(10))])) == bytes([5])
    assert not cap.try_acquire()  # the parent's baton is still out: refused, not admitted
    cap._baton.append(True)
    assert cap.try_acquire()
