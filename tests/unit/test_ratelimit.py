"""TokenBucket under a manual clock: caps, intervals, fractions, updates, threads."""

from __future__ import annotations

import math
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsampler import ConfigError, ManualClock
from dsampler.decision._bucket import TokenBucket


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
