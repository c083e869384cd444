"""AdaptiveController on a real DSampler: counting, publishing, ownership of the rate,
the hard cap, observations and the span processor (manual clock, ticks by hand)."""

from __future__ import annotations

import json
import logging
import random
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.trace import SpanKind, StatusCode

from dsampler import AdaptiveController, ConfigError, DSampler, ManualClock
from dsampler.adaptive import AdaptiveSpanProcessor
from dsampler.config import AdaptiveSettings, HealthPolicy
from tests.conftest import Traced
from tests.parents import remote_parent

RNG = random.Random(11)
IDS = [RNG.getrandbits(128) for _ in range(20_000)]


def adaptive_sampler(clock: ManualClock, target: float = 50.0, **config: Any) -> DSampler:
    return DSampler(
        adaptive={"target_traces_per_second": target, **config.pop("adaptive", {})},
        clock=clock,
        resource={},
        **config,
    )


def decide(sampler: DSampler, ids: list[int], name: str = "GET /x", **kw: Any) -> int:
    return sum(sampler.should_sample(None, t, name, **kw).decision.is_sampled() for t in ids)


def second_of_load(sampler: DSampler, clock: ManualClock, per_tick: int, name: str = "GET /x") -> int:
    """One second of ``per_tick`` root decisions per 100 ms tick; returns how many sampled."""
    controller = sampler.controller
    assert controller is not None
    sampled = 0
    for i in range(10):
        sampled += decide(sampler, IDS[i * per_tick : (i + 1) * per_tick], name)
        clock.advance(0.1)
        controller.tick()
    return sampled


def test_every_root_decision_at_the_default_rate_is_counted_exactly() -> None:
    """N should_sample calls for roots: the meter counts N, no more, no less."""
    clock = ManualClock()
    sampler = adaptive_sampler(clock)
    decide(sampler, IDS[:12_345])
    assert sampler.controller is not None
    assert sampler.controller.tap.take() == 12_345
    assert sampler.controller.tap.take() == 0
    assert sampler.controller.tap.total == 12_345


@pytest.mark.parametrize("hash_rule", ["fnv1a-mix", "xxh3"])
def test_numpy_trace_ids_are_counted_once_and_decided_as_their_int(hash_rule: str) -> None:
    """A numpy integer fails the inline hash and comes back through the fallback as an
    int: one decision, one count, the same decision as the int's."""
    import numpy as np

    clock = ManualClock()
    sampler = adaptive_sampler(clock, hash=hash_rule, adaptive={"max_rate": 0.25, "hard_cap_factor": None})
    ids = IDS[:500]
    as_numpy = [np.uint64(t & (2**64 - 1)) for t in ids]
    sampled = decide(sampler, as_numpy)
    assert 50 < sampled < 200  # the controller's rate before its first tick: max_rate
    assert sampled == decide(sampler, [t & (2**64 - 1) for t in ids])
    assert sampler.controller is not None
    assert sampler.controller.tap.take() == 1_000


def test_each_rate_change_is_a_new_version_carrying_the_controllers_rate() -> None:
    """The section is version 1, its controller's first rate (max_rate) version 2; at
    2,000 decisions a second the first tick publishes rate 50/2000 as version 3, and
    every decision after it is made at that rate."""
    clock = ManualClock()
    sampler = adaptive_sampler(clock, record_version=True, sampler_tags=True)
    assert [(c.version, c.rate, c.adaptive is not None) for c in sampler.history] == [
        (1, 0.001, True),
        (2, 1.0, True),
    ]
    second_of_load(sampler, clock, 200)
    assert sampler.config.version >= 3
    assert sampler.config.rate == pytest.approx(0.025)
    assert sampler.controller is not None
    assert sampler.config.rate == sampler.controller.rate
    versions = [c.version for c in sampler.history]
    assert versions == sorted(versions)
    result = next(r for r in (sampler.should_sample(None, t, "x") for t in IDS) if r.decision.is_sampled())
    assert result.attributes["dsampler.config_version"] == sampler.config.version
    assert result.attributes["sampler.param"] == sampler.config.rate


def test_sampled_per_second_converges_on_the_target_through_the_real_decision_path() -> None:
    """Ten seconds at 2,000 decisions a second through should_sample: after the first
    second the sampled count is within the Poisson noise of 50 a second (+-4 sigma)."""
    clock = ManualClock()
    sampler = adaptive_sampler(clock)
    second_of_load(sampler, clock, 200)
    total = sum(second_of_load(sampler, clock, 200) for _ in range(9))
    assert abs(total - 450) <= 4 * 450**0.5


def test_rules_and_operations_still_decide_and_are_not_counted() -> None:
    """A drop rule and a per-operation rate keep deciding their spans; only spans left
    to the default rate are counted as the controller's offered load."""
    clock = ManualClock()
    sampler = adaptive_sampler(
        clock,
        rules=[{"match": {"span_name": "GET /health"}, "action": "drop"}],
        operations={"POST /pay": 1.0},
    )
    assert decide(sampler, IDS[:500], "GET /health") == 0
    assert decide(sampler, IDS[:500], "POST /pay") == 500
    decide(sampler, IDS[:300], "GET /x")
    assert sampler.controller is not None
    assert sampler.controller.tap.take() == 300


def test_operations_tracked_at_run_time_are_decided_and_counted_at_the_controllers_rate() -> None:
    """With a default lower bound, operations first seen on the request path use the
    default rate: they are the controller's load too."""
    clock = ManualClock()
    sampler = adaptive_sampler(clock, default_lower_bound_per_second=0.1)
    decide(sampler, IDS[:400], "op-a")
    decide(sampler, IDS[:400], "op-b", kind=SpanKind.SERVER)
    assert sampler.controller is not None
    assert sampler.controller.tap.take() == 800
    assert sampler.explain(IDS[0], "op-a")["rate"] == sampler.config.rate


def test_children_following_their_parent_are_not_counted() -> None:
    """Parent-based decisions are not the default rate's: no count."""
    clock = ManualClock()
    sampler = adaptive_sampler(clock)
    parent = remote_parent(IDS[0], sampled=True)
    for t in IDS[:100]:
        sampler.should_sample(parent, t, "child")
    assert sampler.controller is not None
    assert sampler.controller.tap.take() == 0


def test_the_hard_cap_bounds_a_burst_before_the_rate_follows() -> None:
    """At rate 1 (cold start) a burst of 5,000 roots in one instant: at most the cap's
    burst (0.1 s of 2 x 50/s) is sampled; then 0.1 s later only what refilled."""
    clock = ManualClock()
    sampler = adaptive_sampler(clock)
    assert decide(sampler, IDS[:5000]) == 10
    clock.advance(0.1)
    assert decide(sampler, IDS[5000:10_000]) == 10


def test_hard_cap_off_and_health_off_are_honoured() -> None:
    """hard_cap_factor null: no bucket, every trace at rate 1 is sampled."""
    clock = ManualClock()
    sampler = adaptive_sampler(clock, adaptive={"hard_cap_factor": None, "health": False})
    assert sampler.controller is not None
    assert sampler.controller.tap.backstop is None
    assert decide(sampler, IDS[:3000]) == 3000


def test_the_controller_owns_the_rate_whatever_else_publishes() -> None:
    """sampler.update(rate=...) and a rollback still publish, with the controller's rate."""
    clock = ManualClock()
    sampler = adaptive_sampler(clock)
    second_of_load(sampler, clock, 200)
    owned = sampler.config.rate
    assert sampler.update(rate=0.9).rate == owned
    assert sampler.rollback(1).rate == owned
    assert sampler.update(parent_based=False).rate == owned


def test_removing_the_section_detaches_the_controller_and_keeps_the_last_rate() -> None:
    """adaptive=None: no controller, no counting, the rate in force stays until set."""
    clock = ManualClock()
    sampler = adaptive_sampler(clock)
    second_of_load(sampler, clock, 200)
    controller, rate = sampler.controller, sampler.config.rate
    assert controller is not None
    sampler.update(adaptive=None)
    assert (sampler.controller, sampler.config.rate) == (None, rate)
    decide(sampler, IDS[:100])
    assert controller.tap.take() == 0
    assert sampler.update(rate=0.5).rate == 0.5
    controller.tick()  # a detached controller publishes nothing
    assert sampler.config.rate == 0.5


def test_a_controller_built_on_a_sampler_publishes_its_settings_into_the_config() -> None:
    """AdaptiveController(50, sampler=s): s.controller is it and s.config.adaptive its
    settings; reconfigure() goes through the configuration too."""
    clock = ManualClock()
    sampler = DSampler(rate=0.1, clock=clock, resource={})
    controller = AdaptiveController(50, sampler=sampler, clock=clock, window_s=5.0)
    assert sampler.controller is controller
    assert sampler.config.adaptive == AdaptiveSettings(50, window_s=5.0)
    assert sampler.config.rate == 1.0
    controller.reconfigure(target_traces_per_second=80.0)
    assert sampler.config.adaptive == AdaptiveSettings(80, window_s=5.0)
    assert controller.settings == sampler.config.adaptive
    replacement = AdaptiveController(20, sampler=sampler, clock=clock)
    assert sampler.controller is replacement
    decide(sampler, IDS[:10])
    assert (controller.tap.take(), replacement.tap.take()) == (0, 10)


def test_refuses_what_is_not_a_dsampler_and_bad_settings() -> None:
    """sampler= must be a DSampler; a bad setting is named; reconfigure keeps the old."""
    with pytest.raises(ConfigError, match="sampler"):
        AdaptiveController(50, sampler=object(), clock=ManualClock())  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="target_traces_per_second"):
        AdaptiveController(-1, clock=ManualClock())
    controller = AdaptiveController(50, clock=ManualClock())
    with pytest.raises(ConfigError, match="alpha"):
        controller.reconfigure(alpha=-1.0)
    assert controller.settings == AdaptiveSettings(50)


def test_a_misspelt_setting_is_a_named_config_error_and_the_settings_stay() -> None:
    """An unknown keyword, to the constructor or to reconfigure(), is a ConfigError
    naming it with a suggestion (not a TypeError); the settings in force stay."""
    with pytest.raises(ConfigError, match=r"window: unknown key; did you mean 'window_s'\?"):
        AdaptiveController(50, clock=ManualClock(), window=5)
    with pytest.raises(ConfigError, match="bogus"):
        AdaptiveController(AdaptiveSettings(50), clock=ManualClock(), bogus=1)
    clock = ManualClock()
    sampler = adaptive_sampler(clock)
    controller = sampler.controller
    assert controller is not None
    before = sampler.config
    with pytest.raises(ConfigError, match="tick: unknown key; did you mean 'tick_s'"):
        controller.reconfigure(tick=0.05)
    assert controller.settings == AdaptiveSettings(50)
    assert sampler.config == before


def test_observations_reach_the_core_and_junk_is_counted_not_raised() -> None:
    """observe() feeds latencies and errors at the next tick; a non-duration is dropped."""
    clock = ManualClock()
    controller = AdaptiveController(50, clock=clock)
    for _ in range(100):
        controller.observe(0.05)
    controller.observe(0.5, error=True)
    for junk in (float("nan"), -1.0, "slow", None):
        controller.observe(junk)  # type: ignore[arg-type]
    clock.advance(0.1)
    controller.tick()
    assert controller.rejected == 4
    assert controller.stats()["rejected_observations"] == 4
    assert controller.core.tail.episodes == 0


class _RaisingFlag:
    def __bool__(self) -> bool:
        raise RuntimeError("hostile error flag")


def test_an_observation_that_cannot_be_read_is_rejected_and_the_tick_goes_on() -> None:
    """An int too large for a float and an error flag whose ``__bool__`` raises are
    junk like any other: counted as rejected, never raised out of tick(), and the
    observations beside them still count."""
    clock = ManualClock()
    controller = AdaptiveController(50, clock=clock)
    controller.observe(0.05)
    controller.observe(10**400)
    controller.observe(0.05, error=_RaisingFlag())  # type: ignore[arg-type]
    controller.observe(0.05, error=True)
    clock.advance(0.1)
    controller.tick()
    assert controller.rejected == 2
    assert (controller.core.observed, controller.core.errors) == (2, 1)


def test_the_span_processor_observes_local_roots_only(traced: Callable[[Any], Traced]) -> None:
    """Through a real TracerProvider: a root (an error) and a child of a remote parent
    are observed; a local child is not."""
    clock = ManualClock()
    sampler = adaptive_sampler(clock)
    controller = sampler.controller
    assert controller is not None
    t = traced(sampler)
    t.provider.add_span_processor(controller.span_processor())
    with t.tracer.start_as_current_span("root") as root:
        root.set_status(StatusCode.ERROR)
        with t.tracer.start_as_current_span("local child"):
            pass
    with t.tracer.start_as_current_span("entry", context=remote_parent(IDS[1], sampled=True)):
        pass
    clock.advance(0.1)
    controller.tick()
    assert (controller.stats()["observed"], controller.stats()["errors"]) == (2, 1)
    processor = AdaptiveSpanProcessor(controller)
    assert processor.force_flush()
    processor.shutdown()


def test_a_configuration_file_with_the_section_keeps_the_controllers_rate_on_reload(tmp_path: Path) -> None:
    """DSampler.from_file: the section makes the controller; a reload that changes the
    target reconfigures it, and the reloaded rate is the controller's."""
    path = tmp_path / "sampling.json"
    path.write_text(json.dumps({"rate": 0.5, "adaptive": {"target_traces_per_second": 50}}))
    clock = ManualClock()
    sampler = DSampler.from_file(path, clock=clock, resource={}, poll_interval_s=3600.0)
    try:
        controller = sampler.controller
        assert controller is not None
        second_of_load(sampler, clock, 200)
        path.write_text(json.dumps({"rate": 0.5, "adaptive": {"target_traces_per_second": 100}}))
        assert sampler.watcher is not None
        sampler.watcher.poll_once()  # a new content is published at the second poll that sees it
        sampler.watcher.poll_once()
        assert sampler.config.adaptive == AdaptiveSettings(100)
        assert sampler.controller is controller
        assert controller.settings == AdaptiveSettings(100)
        assert sampler.config.rate == controller.rate
    finally:
        sampler.close()


def test_system_clock_controllers_tick_in_a_thread_that_close_stops() -> None:
    """On the system clock the controller runs its ticker; close() ends it."""
    sampler = DSampler(adaptive={"target_traces_per_second": 5}, resource={})
    names = {t.name for t in threading.enumerate()}
    assert "dsampler-adaptive" in names
    sampler.close()
    assert all(t.name != "dsampler-adaptive" or not t.is_alive() for t in threading.enumerate())


def test_a_new_base_cannot_undo_the_controllers_rate() -> None:
    """The controller owns the rate as an overlay: a reload of the base (a file with
    another rate, the same section) and an update of the rate leave its rate in force;
    the base's other fields still apply."""
    clock = ManualClock()
    sampler = adaptive_sampler(clock)
    second_of_load(sampler, clock, 200)
    controller = sampler.controller
    assert controller is not None
    owned = sampler.config.rate
    assert owned == controller.rate != sampler.base.rate
    sampler.publish({"rate": 0.9, "parent_based": False, "adaptive": {"target_traces_per_second": 50}})
    assert (sampler.config.rate, sampler.config.parent_based) == (owned, False)
    assert sampler.controller is controller
    sampler.update(rate=0.7)
    assert (sampler.config.rate, sampler.base.rate) == (owned, 0.7)


def test_a_new_section_brings_its_controllers_rate_within_the_same_update() -> None:
    """Adding the section publishes it (at the rate in force), then its controller's
    first rate (its max_rate), with its hard cap, as the next version, before update()
    returns; changing the settings reconfigures the same controller."""
    sampler = DSampler(rate=0.05, resource={}, clock=ManualClock())
    config = sampler.update(adaptive={"target_traces_per_second": 10, "max_rate": 0.5})
    controller = sampler.controller
    assert controller is not None
    assert (config.version, config.rate, sampler.rate_owner) == (3, 0.5, "adaptive")
    assert [(c.version, c.rate) for c in sampler.history] == [(1, 0.05), (2, 0.05), (3, 0.5)]
    assert sampler.engine.snapshot.backstop is controller.tap.backstop is not None
    config = sampler.update(adaptive={"target_traces_per_second": 20, "max_rate": 0.25})
    assert sampler.controller is controller
    assert controller.settings.target_traces_per_second == 20
    assert (config.version, config.adaptive) == (4, controller.settings)


def test_a_replaced_controller_writes_nothing() -> None:
    """A controller handed to the sampler replaces the section's: the old one is unbound,
    and its ticks (a thread still running) publish nothing."""
    clock = ManualClock()
    sampler = adaptive_sampler(clock)
    old = sampler.controller
    assert old is not None
    new = AdaptiveController(5, sampler=sampler, clock=clock)
    assert (sampler.controller, old.overlay) == (new, None)
    version = sampler.config.version
    decide(sampler, IDS[:500])
    clock.advance(1.0)
    old.tick()
    assert sampler.config.version == version


def run_ticks(
    controller: AdaptiveController, clock: ManualClock, seconds: float, latency: float, error_every: int = 0
) -> None:
    """``seconds`` of 100 ms ticks, 10 root spans observed per tick of ``latency`` seconds,
    one in ``error_every`` of them an error (0: none)."""
    for i in range(round(seconds * 10)):
        for j in range(10):
            controller.observe(latency, error=bool(error_every) and (i * 10 + j) % error_every == 0)
        clock.advance(0.1)
        controller.tick()


def told(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "dsampler.adaptive"]


def test_a_latency_episode_is_told_once_when_it_cuts_and_once_when_it_ends(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Roots at 1 s against a 200 ms target: one WARNING naming the cause and x0.7 while
    the episode lasts, however many ticks it holds; back at 40 ms, one WARNING when it is
    over (after the 10 s cooldown), and the rate is whole again."""
    clock = ManualClock()
    controller = AdaptiveController(50, clock=clock, ticker=False)
    with caplog.at_level(logging.WARNING, logger="dsampler.adaptive"):
        run_ticks(controller, clock, 5.0, latency=1.0)
        assert controller.episode
        assert controller.rate == pytest.approx(0.7)
        run_ticks(controller, clock, 20.0, latency=0.04)
    assert not controller.episode
    assert controller.rate == 1.0
    start, end = told(caplog)
    assert start == (
        "dsampler: adaptive: root-span P99 is above p99_target (200 ms): the health policy multiplies "
        "the sampling rate by 0.7 until it is back under "
        "(latency_multiplier; health: false turns the policy off)"
    )
    assert re.fullmatch(
        r"dsampler: adaptive: the latency episode is over after 1\d s: "
        r"the sampling rate is no longer multiplied by 0\.7",
        end,
    ), end
    assert {r.levelname for r in caplog.records} == {"WARNING"}


def test_an_error_episode_is_told_with_its_ratio(caplog: pytest.LogCaptureFixture) -> None:
    """One root span in 10 fails (10% > 5%): one WARNING with the ratio and x0.5; no
    failures: one WARNING when it is over."""
    clock = ManualClock()
    controller = AdaptiveController(50, clock=clock, ticker=False)
    with caplog.at_level(logging.WARNING, logger="dsampler.adaptive"):
        run_ticks(controller, clock, 30.0, latency=0.04, error_every=10)
        assert controller.core.multiplier == 0.5
        run_ticks(controller, clock, 60.0, latency=0.04)
    assert controller.core.multiplier == 1.0
    start, end = told(caplog)
    assert start.startswith(
        "dsampler: adaptive: 10.0% of root spans failed, above error_ratio (5.0%): the health "
        "policy multiplies the sampling rate by 0.5 until they are back under 4.0%"
    ), start
    assert end.startswith("dsampler: adaptive: the error episode is over after "), end


@pytest.mark.parametrize("settings", [{"health": None}, {"health": HealthPolicy(latency_multiplier=1.0)}])
def test_an_episode_that_cuts_nothing_is_not_told(
    settings: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    """No health policy, or a latency multiplier of 1: the episode still shortens the
    window, but the rate is not cut, so nothing is said."""
    clock = ManualClock()
    controller = AdaptiveController(50, clock=clock, ticker=False, **settings)
    with caplog.at_level(logging.WARNING, logger="dsampler.adaptive"):
        run_ticks(controller, clock, 5.0, latency=1.0)
        assert controller.episode
        assert controller.rate == 1.0
        run_ticks(controller, clock, 20.0, latency=0.04)
    assert told(caplog) == []
