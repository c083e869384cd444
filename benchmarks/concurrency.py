"""Threaded experiments on DSampler's configuration store: decision throughput under hot
updates, and how soon a published version is seen by the deciding threads.

These are not pytest-benchmark loops: each experiment runs threads for a fixed time and
returns plain numbers, which ``test_hot_update.py`` stores in ``extra_info`` and checks
for correctness (every decision under one whole version), never for speed.

Fairness on a small machine with the GIL: every variant runs the same reader code, in
the same number of threads, for the same time, over the same trace IDs; the variants are
interleaved within each round (their order rotating from round to round) so that a slow
spell of the machine hits all of them, and the report takes the median over rounds.

Where the OS places the threads matters more than anything the store does: the default
rule's numba kernel releases the GIL on every call, so threads on two CPUs hand the GIL
over per decision, and a run lands in a fast or a slow regime by chance. The experiment
therefore runs each variant three ways: on all CPUs (what users get), with the process
pinned to one CPU (stable), and on all CPUs with a rule decided in Python (no release).
"""

from __future__ import annotations

import os
import random
import statistics
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.context import Context
from opentelemetry.sdk.trace.sampling import Decision, SamplingResult
from opentelemetry.trace import Link, SpanKind
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

import dsampler
from dsampler.config import SamplingConfig, parse_config
from dsampler.engine import Engine

NAME = "GET /x"
RESOURCE: Mapping[str, Any] = {"service.name": "bench"}
VERSION_TAG = "dsampler.config_version"
#: Version v of a run has rate RATES[v % 2]: version 1 (the initial one) has 0.1, the
#: writer then alternates 0.2, 0.1, ... so every decision's tags say which version made it.
RATES = (0.2, 0.1)
BATCH_IDS = 64
FINAL_WAIT_S = 5.0


def rate_of(version: int) -> float:
    return RATES[version % 2]


class LockedDSampler(dsampler.DSampler):
    """The same facade with the classic alternative to snapshots: one ``threading.Lock``
    taken around every decision and every update (readers and writer exclude each other)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._lock = threading.Lock()
        super().__init__(*args, **kwargs)
        del self.should_sample  # DSampler binds its engine's per instance: this class's decides, locked

    def should_sample(
        self,
        parent_context: Context | None,
        trace_id: int,
        name: str,
        kind: SpanKind | None = None,
        attributes: Attributes = None,
        links: Sequence[Link] | None = None,
        trace_state: TraceState | None = None,
    ) -> SamplingResult:
        with self._lock:
            return super().should_sample(parent_context, trace_id, name, kind, attributes, links, trace_state)

    def update(self, **changes: Any) -> SamplingConfig:
        with self._lock:
            return super().update(**changes)


class StampedEngine(Engine):
    """DSampler's engine that notes ``perf_counter()`` when each version's snapshot is
    compiled: the store assigns it a few bytecodes later, so this stamp is the publish
    moment (at most a microsecond early, which only lengthens the latencies measured
    from it). It decides and updates as a DSampler does (a DSampler decides with its
    engine's own ``should_sample``)."""

    def __init__(self, config: SamplingConfig) -> None:
        self.compiled_at: dict[int, float] = {}
        super().__init__(config, resource=RESOURCE, sections=None)

    def _compile(self, config: SamplingConfig, held: Any) -> Any:
        plan = super()._compile(config, held)
        self.compiled_at[config.version] = time.perf_counter()
        return plan


def make_sampler(locked: bool = False, hash: str = "fnv1a") -> dsampler.DSampler:
    cls = LockedDSampler if locked else dsampler.DSampler
    return cls(rate=rate_of(1), hash=hash, record_version=True, sampler_tags=True, resource=RESOURCE)


def fixed_ids(seed: int, sampled: int, count: int = BATCH_IDS) -> tuple[int, ...]:
    """``count`` fixed random 128-bit trace IDs; the last is ``sampled``, which every
    version samples, so its result carries the deciding version's tags."""
    rng = random.Random(seed)
    return (*(rng.getrandbits(128) | 1 for _ in range(count - 1)), sampled)


# -- decision throughput under hot updates ---------------------------------------------


@dataclass(frozen=True)
class Variant:
    """One configuration of the throughput experiment. Variants of one ``family`` (same
    CPU placement and hash rule) are compared with that family's ``alone``."""

    kind: str  # "alone", "idle writer", "writer", "locked alone", "locked + writer"
    pin: bool = False  # the whole process on one CPU (else the OS places the threads)
    hash: str = "fnv1a"

    @property
    def locked(self) -> bool:
        return self.kind.startswith("locked")

    @property
    def writer(self) -> str | None:
        """None, "idle" (wakes on the same schedule, publishes nothing) or "publish"."""
        if self.kind == "idle writer":
            return "idle"
        return "publish" if self.kind.endswith("writer") else None

    @property
    def family(self) -> str:
        return f"{'1 CPU' if self.pin else 'all CPUs'}, hash={self.hash}"

    @property
    def label(self) -> str:
        return f"{self.family}: {self.kind}"


CAN_PIN = hasattr(os, "sched_setaffinity")
KINDS = ("alone", "idle writer", "writer", "locked alone", "locked + writer")
VARIANTS = (
    # What a default DSampler gets: each decision calls the numba kernel, which releases
    # the GIL, so deciding threads on two CPUs hand the GIL back and forth per decision.
    *(Variant(kind) for kind in KINDS if kind != "idle writer"),
    # The same with the process on one CPU: the handoffs stop, the numbers are stable.
    *((Variant(kind, pin=True) for kind in KINDS) if CAN_PIN else ()),
    # All CPUs, with a rule decided in Python (no GIL release per decision).
    *(Variant(kind, hash="otel") for kind in KINDS if kind != "locked alone"),
)


@dataclass
class RunResult:
    """One variant, one round."""

    variant: str
    decisions: int
    elapsed_s: float
    updates: int
    max_lag_ms: float  # how far the writer fell behind its schedule at worst
    checked: int  # decisions whose tags were checked against their version
    mismatched: int  # ... whose rate was not their version's (must be 0)
    backwards: int  # times a thread saw a version older than one it had seen (must be 0)
    final_version: int

    @property
    def decisions_per_s(self) -> float:
        return self.decisions / self.elapsed_s

    @property
    def updates_per_s(self) -> float:
        return self.updates / self.elapsed_s


def _reader(
    decide: Callable[..., SamplingResult],
    ids: Sequence[int],
    go: threading.Barrier,
    running: list[bool],
    out: list[tuple[int, list[Mapping[str, Any]]]],
) -> None:
    go.wait()
    n = 0
    tags: list[Mapping[str, Any]] = []
    while True:  # at least one batch, however short the run
        for tid in ids:
            result = decide(None, tid, NAME)
        n += len(ids)
        tags.append(result.attributes)  # the last ID is always sampled: its version's tags
        if not running[0]:
            break
    out.append((n, tags))


def _writer(
    publish: Callable[[int], object] | None,
    per_second: float,
    go: threading.Barrier,
    running: list[bool],
    out: dict[str, float],
) -> None:
    """Publishes on a fixed monotonic schedule (no sleep drift): when it falls behind,
    for example while waiting for the GIL, it catches up back to back."""
    period = 1.0 / per_second
    go.wait()
    due = time.monotonic()
    n, lag = 0, 0.0
    while running[0]:
        due += period
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        else:
            lag = max(lag, -delay)
        if not running[0]:
            break
        if publish is not None:
            publish(n)
        n += 1
    out["updates"] = n if publish is not None else 0
    out["max_lag_ms"] = lag * 1e3


def run_variant(
    variant: Variant, ids: Sequence[int], duration_s: float, threads: int = 4, per_second: float = 1000.0
) -> RunResult:
    """``threads`` threads decide for ``duration_s`` (and a writer runs, per ``variant``)."""
    sampler = make_sampler(variant.locked, variant.hash)
    saved_cpus = os.sched_getaffinity(0) if variant.pin else None
    if saved_cpus is not None:  # threads inherit the affinity of the thread that starts them
        os.sched_setaffinity(0, {min(saved_cpus)})
    running = [True]
    readers: list[tuple[int, list[Mapping[str, Any]]]] = []
    writer_out: dict[str, float] = {"updates": 0, "max_lag_ms": 0.0}
    publish = None
    if variant.writer == "publish":
        update = sampler.update

        def publish(n: int) -> object:
            return update(rate=RATES[n % 2])

    parties = threads + 1 + (variant.writer is not None)
    go = threading.Barrier(parties)
    workers = [
        threading.Thread(target=_reader, args=(sampler.should_sample, ids, go, running, readers))
        for _ in range(threads)
    ]
    if variant.writer is not None:
        args = (publish, per_second, go, running, writer_out)
        workers.append(threading.Thread(target=_writer, args=args))
    try:
        for worker in workers:
            worker.start()
        go.wait()
        start = time.perf_counter()
        time.sleep(duration_s)
        running[0] = False
        elapsed = time.perf_counter() - start
        for worker in workers:
            worker.join()
    finally:
        if saved_cpus is not None:
            os.sched_setaffinity(0, saved_cpus)

    checked = mismatched = backwards = 0
    for _, tags in readers:
        last = 0
        for tag in tags:
            version = tag[VERSION_TAG]
            checked += 1
            mismatched += tag["sampler.param"] != rate_of(version)
            backwards += version < last
            last = version
    return RunResult(
        variant=variant.label,
        decisions=sum(n for n, _ in readers),
        elapsed_s=elapsed,
        updates=int(writer_out["updates"]),
        max_lag_ms=writer_out["max_lag_ms"],
        checked=checked,
        mismatched=mismatched,
        backwards=backwards,
        final_version=sampler.config.version,
    )


def hot_update_experiment(
    ids: Sequence[int],
    duration_s: float,
    rounds: int,
    threads: int = 4,
    per_second: float = 1000.0,
    variants: Sequence[Variant] = VARIANTS,
) -> list[RunResult]:
    """Every variant once per round, in an order that rotates from round to round, after
    one short warm-up pass of each."""
    for variant in variants:
        run_variant(variant, ids, min(duration_s, 0.2), threads, per_second)
    runs = []
    for r in range(rounds):
        for i in range(len(variants)):
            variant = variants[(r + i) % len(variants)]
            runs.append(run_variant(variant, ids, duration_s, threads, per_second))
    return runs


def summarize_hot_update(
    runs: Sequence[RunResult], variants: Sequence[Variant] = VARIANTS
) -> dict[str, dict[str, Any]]:
    """variant label -> medians over rounds (and the per-round figures), JSON-ready."""
    out: dict[str, dict[str, Any]] = {}
    for variant in variants:
        mine = [r for r in runs if r.variant == variant.label]
        if not mine:
            continue
        out[variant.label] = {
            "family": variant.family,
            "kind": variant.kind,
            "decisions_per_s": statistics.median(r.decisions_per_s for r in mine),
            "per_round": [round(r.decisions_per_s) for r in mine],
            "updates_per_s": statistics.median(r.updates_per_s for r in mine),
            "max_lag_ms": max(r.max_lag_ms for r in mine),
            "checked": sum(r.checked for r in mine),
            "mismatched": sum(r.mismatched for r in mine),
            "backwards": sum(r.backwards for r in mine),
        }
    return out


# -- publish-to-visible latency ----------------------------------------------------------


@dataclass
class LatencyResult:
    """Per published version: when it was compiled (just before it was assigned) and
    when a deciding thread first decided under it."""

    readers: int
    published: dict[int, float] = field(default_factory=dict)
    first_seen: dict[int, float] = field(default_factory=dict)
    update_call_s: list[float] = field(default_factory=list)
    own_next_decision_ok: int = 0  # writer's own decision right after update() saw the new version
    backwards: int = 0

    @property
    def latencies_s(self) -> list[float]:
        """Per published version v: from its publish to the first decision made under v
        or a later version. A version replaced before any thread decided under it counts
        until its successor was seen, so no slow case drops out of the percentiles."""
        out, first = [], float("inf")
        for version in sorted(self.published, reverse=True):
            first = min(first, self.first_seen.get(version, float("inf")))
            out.append(first - self.published[version])
        return out

    @property
    def superseded(self) -> int:
        """Versions replaced before any thread decided under them."""
        return sum(v not in self.first_seen for v in self.published)


def _spinner(
    sampler: Engine,
    tid: int,
    go: threading.Barrier,
    running: list[bool],
    latest: list[int],
    out: list[tuple[dict[int, float], int]],
) -> None:
    decide, clock = sampler.should_sample, time.perf_counter
    seen: dict[int, float] = {}
    last = backwards = 0
    go.wait()
    while running[0]:
        version = decide(None, tid, NAME).attributes[VERSION_TAG]
        if version != last:
            seen[version] = clock()  # stamped after the decision: errs on the long side
            backwards += version < last
            last = version
            latest.append(version)
    out.append((seen, backwards))


def latency_experiment(
    tid: int, publishes: int, readers: int = 1, gap_s: float = 0.0005, seed: int = 1
) -> LatencyResult:
    """``readers`` threads decide in a tight loop; a writer publishes ``publishes``
    versions, ``gap_s`` to ``2 * gap_s`` apart (random, so publishes land at any phase
    of the readers' loop). ``tid`` must be sampled at every rate in :data:`RATES`."""
    sampler = StampedEngine(parse_config({"rate": rate_of(1), "record_version": True, "sampler_tags": True}))
    result = LatencyResult(readers=readers)
    running = [True]
    outs: list[tuple[dict[int, float], int]] = []
    latest: list[list[int]] = [[] for _ in range(readers)]
    go = threading.Barrier(readers + 1)
    threads = [
        threading.Thread(target=_spinner, args=(sampler, tid, go, running, latest[i], outs))
        for i in range(readers)
    ]
    for thread in threads:
        thread.start()
    rng = random.Random(seed)
    go.wait()
    clock = time.perf_counter
    for n in range(publishes):
        time.sleep(gap_s * (1.0 + rng.random()))
        t0 = clock()
        config = sampler.update(rate=RATES[n % 2])
        result.update_call_s.append(clock() - t0)
        own = sampler.should_sample(None, tid, NAME).attributes[VERSION_TAG]
        result.own_next_decision_ok += own == config.version
    deadline = time.monotonic() + FINAL_WAIT_S  # let every reader see the last version
    while any(not seen or seen[-1] < publishes + 1 for seen in latest) and time.monotonic() < deadline:
        time.sleep(0.001)
    running[0] = False
    for thread in threads:
        thread.join()
    result.published = {v: t for v, t in sampler.compiled_at.items() if v > 1}
    for seen, backwards in outs:
        result.backwards += backwards
        for version, at in seen.items():
            if version > 1 and (version not in result.first_seen or at < result.first_seen[version]):
                result.first_seen[version] = at
    return result


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in [0, 100])."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100.0 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def summarize_latency(result: LatencyResult) -> dict[str, Any]:
    lat = result.latencies_s
    calls = result.update_call_s
    return {
        "readers": result.readers,
        "published": len(result.published),
        "superseded": result.superseded,
        "p50_us": percentile(lat, 50) * 1e6,
        "p99_us": percentile(lat, 99) * 1e6,
        "max_us": max(lat) * 1e6,
        "update_call_p50_us": percentile(calls, 50) * 1e6,
        "own_next_decision_ok": result.own_next_decision_ok,
    }


def is_sampled_at_all_rates(tid: int, hashes: Sequence[str] = ("fnv1a", "otel")) -> bool:
    """Whether every version of these experiments samples ``tid``, under every rule used."""
    return all(
        dsampler.RatioSampler(rate, hash=rule).should_sample(None, tid, NAME).decision
        is Decision.RECORD_AND_SAMPLE
        for rate in RATES
        for rule in hashes
    )
