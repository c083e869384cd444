"""4 threads decide while a writer publishes 1,000 updates a second: every decision is
made under exactly one whole snapshot, and an update is visible to the next decision."""

from __future__ import annotations

import random
import threading
import time

import pytest

from dsampler import DSampler, RatioSampler

pytestmark = pytest.mark.slow

# Two snapshots that differ in rate *and* hash rule: a decision that mixed the bound of
# one with the key or the tags of the other would be caught below.
A = {"rate": 0.3, "hash": "fnv1a"}
B = {"rate": 0.7, "hash": "xxh3"}
SECONDS = 3.0
WRITES_PER_SECOND = 1000


def _decides(config: dict[str, object], trace_id: int) -> bool:
    return (
        RatioSampler(config["rate"], hash=config["hash"])
        .should_sample(None, trace_id, "x")
        .decision.is_sampled()
    )  # type: ignore[arg-type]


def test_concurrent_decisions_see_whole_snapshots() -> None:
    """No exception; each sampled decision's (version, rate) matches the snapshot of that
    version and that snapshot's rule really samples the trace; each dropped decision is
    a drop under A or B; IDs sampled by both are never dropped."""
    rng = random.Random(5)
    ids = [rng.getrandbits(128) for _ in range(512)]
    in_a = {t: _decides(A, t) for t in ids}
    in_b = {t: _decides(B, t) for t in ids}
    sampler = DSampler(record_version=True, sampler_tags=True, **A)  # type: ignore[arg-type]
    version_config = {1: A}
    errors: list[str] = []
    counts = [0] * 4
    stop = threading.Event()

    def reader(slot: int) -> None:
        i = slot
        try:
            while not stop.is_set():
                t = ids[i % len(ids)]
                i += 7
                result = sampler.should_sample(None, t, "x")
                counts[slot] += 1
                if result.decision.is_sampled():
                    v = result.attributes["dsampler.config_version"]
                    config = version_config.get(v)
                    if config is None or result.attributes["sampler.param"] != config["rate"]:
                        errors.append(f"v{v}: param {result.attributes['sampler.param']} vs {config}")
                    elif not (in_a if config is A else in_b)[t]:
                        errors.append(f"v{v}: sampled {t:x} that {config} drops")
                elif in_a[t] and in_b[t]:
                    errors.append(f"dropped {t:x}, which both snapshots sample")
        except Exception as exc:  # the test fails on any exception in a reader
            errors.append(repr(exc))

    readers = [threading.Thread(target=reader, args=(k,)) for k in range(4)]
    for r in readers:
        r.start()
    published = 0
    start = time.monotonic()
    deadline = start + 10 * SECONDS  # the writes are counted, not timed: a loaded machine is slower
    while published < SECONDS * WRITES_PER_SECOND and (now := time.monotonic()) < deadline:
        config = B if published % 2 == 0 else A
        version_config[sampler.config.version + 1] = config  # known before it is visible
        sampler.update(**config)
        published += 1
        pause = start + published / WRITES_PER_SECOND - now
        if pause > 0:
            time.sleep(pause)
    stop.set()
    for r in readers:
        r.join()
    assert errors == []
    assert published == SECONDS * WRITES_PER_SECOND, published
    assert sampler.config.version == published + 1
    assert min(counts) > 1000  # every reader made progress under the writer


def test_an_update_is_visible_to_the_next_decision() -> None:
    """After update() returns, the very next decision (any thread) uses the new snapshot."""
    sampler = DSampler(rate=0.0, record_version=True)
    seen: list[object] = []
    for k in range(200):
        sampler.update(rate=1.0 if k % 2 == 0 else 0.0)
        result = sampler.should_sample(None, 0x4BF92F3577B34DA6A3CE929D0E0E4736, "x")
        if k % 2 == 0:
            seen.append(result.attributes["dsampler.config_version"])
        else:
            assert not result.decision.is_sampled()
    assert seen == list(range(2, 202, 2))
