"""ControllerCore and its parts, stepped by hand with exact counts (no randomness)."""

from __future__ import annotations

import math

import pytest

from dsampler.adaptive import ControllerCore
from dsampler.adaptive._health import Health
from dsampler.adaptive._load import LoadEstimator, likelihood_z
from dsampler.adaptive._tail import THRESHOLD, TailDetector
from dsampler.adaptive._window import WindowLaw
from dsampler.config import AdaptiveSettings, HealthPolicy

TICK = 0.1


def drive(core: ControllerCore, start: float, seconds: float, per_tick: int, **observed: object) -> float:
    """Step ``core`` every 100 ms for ``seconds`` with ``per_tick`` arrivals; returns the time."""
    now = start
    for _ in range(round(seconds / TICK)):
        now += TICK
        core.step(now, per_tick, **observed)  # type: ignore[arg-type]
    return now


def test_cold_start_samples_everything_until_the_first_tick_counts() -> None:
    """Before any count the rate is max_rate; the first tick sets target / qps."""
    core = ControllerCore(AdaptiveSettings(50), 0.0)
    assert core.rate == 1.0
    change = core.step(0.1, 200)
    assert change is not None
    assert (change.reason, change.rate, change.qps) == ("load", pytest.approx(0.025), pytest.approx(2000))
    assert core.regimes == 1


def test_rate_is_clamped_to_its_range_and_no_traffic_means_max_rate() -> None:
    """Less load than target: max_rate; huge load: min_rate; nothing at all: max_rate."""
    s = AdaptiveSettings(50, min_rate=0.001, max_rate=0.5)
    low = ControllerCore(s, 0.0)
    low.step(0.1, 2)
    assert low.rate == 0.5
    high = ControllerCore(s, 0.0)
    high.step(0.1, 1_000_000)
    assert high.rate == 0.001
    idle = ControllerCore(s, 0.0)
    assert idle.step(0.1, 0) is None  # a load of 0 asks for max_rate, already in force
    assert (idle.rate, idle.qps) == (0.5, 0.0)


def test_steady_counts_change_nothing_after_the_first_tick() -> None:
    """Exactly 2,000 rps for ten minutes: one change (the cold start), window W0."""
    core = ControllerCore(AdaptiveSettings(50), 0.0)
    drive(core, 0.0, 600.0, 200)
    assert (core.changes, core.regimes, core.window_s) == (1, 1, 10.0)


def test_a_step_is_seen_on_its_first_tick_and_shortens_the_window() -> None:
    """2,000 -> 5,600 rps (+180%): the next tick publishes target / 5,600 and the window
    becomes 10 / (0.8 x 2.8) = 4.5 s."""
    core = ControllerCore(AdaptiveSettings(50), 0.0)
    now = drive(core, 0.0, 60.0, 200)
    change = core.step(now + TICK, 560)
    assert change is not None
    assert change.reason == "load"
    assert change.rate == pytest.approx(50 / 5600)
    assert core.window_s == pytest.approx(10.0 / (0.8 * 2.8), rel=0.01)
    drive(core, now + TICK, 600.0, 560)
    assert core.window_s == 10.0  # the baseline caught up: calm again


def test_a_clock_that_does_not_move_keeps_the_counts() -> None:
    """A step at the same instant only accumulates; the next one counts it all."""
    core = ControllerCore(AdaptiveSettings(50), 0.0)
    assert core.step(0.0, 100) is None
    assert core.step(-1.0, 100) is None  # a clock that went back
    change = core.step(0.1, 0)
    assert change is not None
    assert change.qps == pytest.approx(2000)


@pytest.mark.parametrize("reading", [math.nan, math.inf])
def test_a_clock_reading_that_is_not_finite_keeps_the_counts_and_spreads_no_nan(reading: float) -> None:
    """A NaN or infinite reading is a step at which the clock did not move: the counts
    wait for the next good one, and the rate, the estimate and the window stay finite
    (NaN spread into the estimate and took the rate to min_rate; an infinite reading
    made the load 0, the rate max_rate, and every later reading "earlier")."""
    core = ControllerCore(AdaptiveSettings(50), 0.0)
    now = drive(core, 0.0, 30.0, 200)
    rate = core.rate
    assert core.step(reading, 200) is None
    drive(core, now, 30.0, 200)
    assert core.qps == pytest.approx(2000)
    assert core.rate == pytest.approx(rate)
    assert math.isfinite(core.window_s)
    slow = [1.0] * 50  # a latency episode that starts at the bad reading ends all the same
    assert core.step(reading, 0, slow) is None
    assert core.episode
    drive(core, now + 30.0, 30.0, 200, latencies=[0.01] * 50)
    assert not core.episode


def test_young_estimates_are_refined_and_settled_ones_are_not() -> None:
    """After a change the estimate is re-read as evidence doubles, published only when
    the rate moves by more than 0.5%; with enough evidence it stops."""
    core = ControllerCore(AdaptiveSettings(50), 0.0)
    core.step(0.1, 210)  # the first tick overstates 2,000 rps by 5%
    assert core.rate == pytest.approx(50 / 2100)
    drive(core, 0.1, 0.2, 200)
    assert core.rate == pytest.approx(50 * 0.3 / 610)  # evidence doubled: 610 arrivals in 0.3 s
    drive(core, 0.4, 600.0, 200)
    assert core.rate == pytest.approx(0.025, rel=0.005)
    assert core.load.evidence >= 200_000


def test_a_slow_drift_starts_a_new_regime_at_a_window_close() -> None:
    """+5% that no tick can tell from noise is seen over a 10 s window."""
    core = ControllerCore(AdaptiveSettings(50), 0.0)
    now = drive(core, 0.0, 100.0, 200)
    reasons = []
    for _ in range(200):
        now += TICK
        change = core.step(now, 210)
        if change is not None:
            reasons.append(change.reason)
    assert "drift" in reasons
    assert core.rate == pytest.approx(50 / 2100, rel=0.01)


def test_likelihood_z_is_signed_and_exact_at_the_edges() -> None:
    """Zero at the expectation, the sign of the gap, infinite when nothing was expected."""
    assert likelihood_z(100, 100.0) == 0.0
    assert likelihood_z(150, 100.0) > 4.5
    assert likelihood_z(50, 100.0) < -5.5
    assert likelihood_z(0, 18.0) == pytest.approx(-6.0)
    assert likelihood_z(1, 0.0) == math.inf
    assert likelihood_z(0, 0.0) == 0.0


def test_estimator_restarts_from_the_recent_half_of_the_horizon() -> None:
    """A step seen over 10 ticks restarts the regime from the last 5 (after the step)."""
    load = LoadEstimator()
    for _ in range(30):
        load.update(100, TICK)
    assert load.qps == pytest.approx(1000)
    assert load.update(1000, TICK) == "load"
    assert load.qps == pytest.approx(10000)


def test_tail_episode_starts_on_exceedances_and_ends_after_recovery_and_cooldown() -> None:
    """15% of requests above the target: on within a second at 50 per second; back to
    none exceeding: off once the downward sum passes and the cooldown has run."""
    tail = TailDetector(cooldown_s=10.0)
    now, started = 0.0, None
    for _ in range(20):
        now += TICK
        if tail.update(now, 5, 1) and tail.active:
            started = now
    assert started is not None
    assert started <= 1.0
    now, ended = 2.0, None
    for _ in range(300):
        now += TICK
        if tail.update(now, 5, 0) and not tail.active:
            ended = now
            break
    assert ended is not None
    assert 10.0 <= ended - started <= 12.0
    assert tail.episodes == 1
    assert not tail.update(now, 0, 0)  # nothing observed: nothing learned


def test_tail_never_starts_on_the_baseline_exceedance_rate() -> None:
    """One request in 1,000 above the target, for an hour at 50 per second: no episode."""
    tail = TailDetector(cooldown_s=10.0)
    for i in range(36_000):
        tail.update(i * TICK, 5, 1 if i % 200 == 0 else 0)
    assert (tail.episodes, tail.active) == (0, False)
    assert THRESHOLD > 0


def test_window_law_follows_both_factors_with_hysteresis() -> None:
    """f = max(alpha qps/base, beta p99/target); W = W0/f while hot, back to W0 only
    below 1 - hysteresis; an episode holds W at its minimum."""
    law = WindowLaw(AdaptiveSettings(50))
    assert law.close(1000.0, 10.0, 1000.0, 0.1, episode=False) == 10.0  # f = 0.8
    assert law.close(1000.0, 0.1, 1000.0, 0.2, episode=False) == pytest.approx(10 / 1.2)  # beta = 1.2
    assert law.hot
    assert law.close(1000.0, 0.1, 1000.0, 0.16, episode=False) == pytest.approx(10 / 0.96)  # still hot
    assert law.close(1000.0, 0.1, 1000.0, 0.14, episode=False) == 10.0  # f = 0.84 < 0.9
    assert not law.hot
    assert law.close(1000.0, 0.1, 1000.0, None, episode=True) == 3.0
    assert law.close(1000.0, 0.1, 10_000.0, None, episode=False) == 3.0  # 8x: clamped at W_min


def errors_core(policy: HealthPolicy | None) -> ControllerCore:
    core = ControllerCore(AdaptiveSettings(50, health=policy), 0.0)
    drive(core, 0.0, 20.0, 200, latencies=[0.04] * 5)
    return core


def test_error_ratio_above_five_percent_halves_the_rate_and_recovers() -> None:
    """10% errors: x0.5 at the next window close; back below 4%: x1 again."""
    core = errors_core(HealthPolicy())
    now = drive(core, 20.0, 20.0, 200, latencies=[0.04] * 10, errors=1)
    assert core.multiplier == 0.5
    assert core.rate == pytest.approx(0.0125)
    drive(core, now, 30.0, 200, latencies=[0.04] * 10, errors=0)
    assert (core.multiplier, core.rate) == (1.0, pytest.approx(0.025))


def test_health_policy_off_ignores_errors_and_latency() -> None:
    """health=None: the rate is the load law's whatever the errors and latencies."""
    core = errors_core(None)
    drive(core, 20.0, 30.0, 200, latencies=[1.0] * 10, errors=5)
    assert (core.multiplier, core.rate) == (1.0, pytest.approx(0.025))
    assert core.episode  # the episode is still seen (it shortens the window)
    assert core.window_s == 3.0


def test_multipliers_never_push_the_rate_below_the_floor() -> None:
    """At 2,000 rps and a target of 2/s (rate 0.001) errors would halve it: the 0.1%
    floor holds; a load law below the floor is left alone."""
    core = ControllerCore(AdaptiveSettings(2), 0.0)
    drive(core, 0.0, 30.0, 200, latencies=[0.04] * 10, errors=2)
    assert core.multiplier == 0.5
    assert core.rate == pytest.approx(0.001)
    below = ControllerCore(AdaptiveSettings(0.5), 0.0)
    drive(below, 0.0, 30.0, 200, latencies=[0.04] * 10, errors=2)
    assert below.rate == pytest.approx(0.00025)


def test_reconfigure_publishes_the_new_target_at_the_next_step() -> None:
    """A new target moves the rate at once; the load estimate carries over."""
    core = ControllerCore(AdaptiveSettings(50), 0.0)
    now = drive(core, 0.0, 10.0, 200)
    core.reconfigure(AdaptiveSettings(100))
    change = core.step(now + TICK, 200)
    assert change is not None
    assert (change.reason, change.rate) == ("settings", pytest.approx(0.05))


def test_the_error_ratio_is_high_above_the_limit_until_under_80_percent_of_it() -> None:
    """Hysteresis: with the 5% limit, high above 5%, low again under 4%; inside the band
    and while the ratio is unknown, the state stays."""
    health = Health(HealthPolicy())
    seen = []
    for ratio in (0.05, 0.06, 0.045, None, 0.041, 0.039, 0.045, 0.051):
        health.update(ratio)
        seen.append(health.errors_high)
    assert seen == [False, True, True, True, True, False, False, True]
    off = Health(None)
    off.errors_high = True
    off.update(0.9)
    assert not off.errors_high  # no policy: never high
