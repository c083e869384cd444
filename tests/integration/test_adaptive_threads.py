"""Real threads, real clock: 4 threads decide at full speed while the controller ticks
in its own thread and publishes, and a writer keeps reconfiguring it."""

from __future__ import annotations

import os
import random
import threading

import pytest

from dsampler import DSampler, RatioSampler

pytestmark = pytest.mark.slow

DECIDERS = 4
DECISIONS = 20_000  # per thread, at least; then on until VERSIONS new versions (at most MAX)
VERSIONS = 40
MAX_DECISIONS = 2_000_000


def test_decisions_under_a_publishing_controller_see_whole_configs() -> None:
    """Every sampled decision names a published version whose rate it carries and whose
    rate samples that trace; the controller counted every root decision exactly; the
    controller published many versions meanwhile; no fault."""
    sampler = DSampler(
        adaptive={"target_traces_per_second": 200, "tick": "10ms", "min_window": "1s", "window": "1s"},
        record_version=True,
        sampler_tags=True,
        history=100_000,
        resource={},
    )
    controller = sampler.controller
    assert controller is not None
    first_version = sampler.config.version
    seen: list[list[tuple[int, int, float]]] = [[] for _ in range(DECIDERS)]
    made = [0] * DECIDERS
    done = threading.Event()

    def decide(slot: int) -> None:
        rng = random.Random(slot)
        out = seen[slot]
        for n in range(1, MAX_DECISIONS + 1):
            made[slot] = n
            if n > DECISIONS and sampler.config.version - first_version >= VERSIONS:
                break
            tid = rng.getrandbits(128)
            result = sampler.should_sample(None, tid, "GET /x")
            if result.decision.is_sampled():
                tags = result.attributes
                out.append((tid, tags["dsampler.config_version"], tags["sampler.param"]))

    def reconfigure() -> None:
        targets = [100.0, 400.0]
        i = 0
        while not done.is_set() and i < 100_000:
            controller.reconfigure(target_traces_per_second=targets[i % 2])
            i += 1
            done.wait(0.005)

    threads = [threading.Thread(target=decide, args=(i,)) for i in range(DECIDERS)]
    writer = threading.Thread(target=reconfigure)
    writer.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    done.set()
    writer.join(timeout=10)
    sampler.close()
    controller.tick()

    assert controller.tap.total == sum(made) - DECIDERS  # each thread's last turn only looked
    by_version = {c.version: c for c in sampler.history}
    assert sampler.config.version - first_version >= VERSIONS
    assert sum(map(len, seen)) >= 20
    for decisions in seen:
        for tid, version, param in decisions:
            config = by_version[version]
            assert param == config.rate
            assert RatioSampler(config.rate).should_sample(None, tid, "x").decision.is_sampled()
    assert sampler.faults == 0


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_worker_ticks_and_counts_on_its_own() -> None:
    """gunicorn-style prefork: the child has a running ticker thread of its own and its
    controller counts only the child's decisions."""
    sampler = DSampler(adaptive={"target_traces_per_second": 50}, resource={})
    controller = sampler.controller
    assert controller is not None
    for i in range(100):
        sampler.should_sample(None, i + 1, "GET /x")
    controller.tick()
    before = controller.tap.total
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report, then leave without running the parent's cleanups
        try:
            for i in range(250):
                sampler.should_sample(None, i + 1, "GET /x")
            controller.tick()
            alive = any(t.name == "dsampler-adaptive" and t.is_alive() for t in threading.enumerate())
            os.write(write, f"{int(alive)} {controller.tap.total - before}".encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        alive, counted = pipe.read().split()
    os.waitpid(pid, 0)
    sampler.close()
    assert (alive, counted) == ("1", "250")
    assert controller.tap.total == before
