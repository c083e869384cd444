"""Jaeger's adaptive sampling, end to end, the way Jaeger runs it with more than one
process: two Jaeger v2 processes with ``examples/collectors/jaeger-adaptive.yaml`` share
one Cassandra (4 s calculation intervals, a 2 s delay, a target of 10 traces per second
per operation). The first takes the leader lease and computes the probabilities; the
second follows. Three Python services (dsampler's ``JaegerRemoteSampler``, sampler
attributes on) and one OpenTelemetry Go service (its jaegerremote sampler, which sets none
Jaeger reads) export their spans over OTLP to the leader and poll the follower: 1x load,
then a 5x step. Each interval records what each Jaeger serves each service and the traces
per second the leader stored.

What Jaeger v2.13 does, as measured:

- the leader never serves a computed probability while it runs: its strategy provider
  (``Provider.runUpdateProbabilitiesLoop`` in
  ``internal/sampling/samplingstrategy/adaptive/provider.go``) reloads the probabilities
  only when it is not the leader, and its post-aggregator saves them without handing them
  to it. One Jaeger alone is always the leader (the memory and badger locks always grant),
  so a single Jaeger serves the initial probability forever (jaeger#6550);
- the follower reloads them every 20 s (a constant of Jaeger's, not configurable) and
  serves them: the Python services, whose spans carry ``sampler.type`` and
  ``sampler.param``, get probabilities computed from their traffic, new ones while Jaeger
  runs, lower after the 5x step; the Go service gets none and stays at the initial
  probability;
- it does not settle within 20% of the target in these phases: the rate it stores swings
  around the target from one 20 s reload to the next (a probability served mid-interval
  leaves an interval counted at two probabilities, and the next computation corrects by
  that mixed count), and within 30% (``delta_tolerance``) it changes nothing."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from dsampler.protocol import PerOperationStrategy
from dsampler.protocol._parse import parse_strategy
from interop import engines, fleet
from interop.cassandra import Cassandra
from interop.engines import Engine, get

INTERVAL_S: Final = 4.0
TARGET: Final = 10.0  # traces per second per operation
INITIAL: Final = 0.5  # Jaeger's probability for an operation it has computed nothing for
RATE: Final = 100.0  # spans per second per service at 1x
STEP: Final = 5.0
PHASE_INTERVALS: Final = 18
PYTHON: Final = ("py-a", "py-b", "py-c")
GO: Final = "go-svc"
SERVICES: Final = (*PYTHON, GO)


def served_probability(jaeger: Engine, service: str) -> float | None:
    """The probability Jaeger serves the service's operation; None: only the default."""
    status, body, _ = get(jaeger.url_for(service), timeout_s=2.0)
    if status != 200:
        return None
    strategy = parse_strategy(body)
    assert isinstance(strategy, PerOperationStrategy), body
    assert strategy.default_rate == INITIAL
    rates = {op.operation: op.rate for op in strategy.operations}
    return rates.get(f"GET /{service}")


def run_phase(leader: Engine, follower: Engine) -> dict[str, Any]:
    """PHASE_INTERVALS intervals: their edges, and what each Jaeger served at each end."""
    edges = [time.time()]
    served: dict[str, list[float | None]] = {s: [] for s in SERVICES}
    by_leader: dict[str, list[float | None]] = {s: [] for s in SERVICES}
    for _ in range(PHASE_INTERVALS):
        time.sleep(max(0.0, edges[0] + len(edges) * INTERVAL_S - time.time()))
        edges.append(time.time())
        for service in SERVICES:
            served[service].append(served_probability(follower, service))
            by_leader[service].append(served_probability(leader, service))
    return {"edges": edges, "served": served, "leader_served": by_leader}


@pytest.fixture
def jaegers(built: Callable[[str], Path], tmp_path: Path) -> Iterator[tuple[Engine, Engine]]:
    """(leader, follower), started in that order on one Cassandra."""
    go = built("go-engines")
    store = Cassandra(built("cassandra") / "lib", tmp_path / "cassandra")
    env = {
        "CASSANDRA_PORT": str(store.port),
        "ADAPTIVE_TARGET": f"{TARGET:g}",
        "ADAPTIVE_INITIAL_PROBABILITY": f"{INITIAL:g}",
        "ADAPTIVE_CALCULATION_INTERVAL": f"{INTERVAL_S:g}s",
        "ADAPTIVE_CALCULATION_DELAY": f"{INTERVAL_S / 2:g}s",
        "ADAPTIVE_LEADER_LEASE": "1s",
        "ADAPTIVE_FOLLOWER_LEASE": "5s",  # the lease lives 5 s; the leader renews it every second
    }
    binary = go / "bin" / "jaeger"
    leader = engines.jaeger(binary, config=engines.JAEGER_ADAPTIVE, extra_env=env)
    follower = engines.jaeger(binary, config=engines.JAEGER_ADAPTIVE, extra_env=env)
    try:
        store.start()
        leader.start()  # creates the schema, takes the lease as it starts
        time.sleep(1.0)
        follower.start()  # finds the lease held
        yield leader, follower
    finally:
        follower.stop()
        leader.stop()
        store.stop()


def test_adaptive_sampling_end_to_end(
    jaegers: tuple[Engine, Engine],
    built: Callable[[str], Path],
    tmp_path: Path,
    figures: Callable[[str], None],
) -> None:
    leader, follower = jaegers
    clients_bin = built("go-clients") / "bin" / "otelgo"
    started = time.time()
    sampling, otlp = follower.sampling_url, leader.otlp_http
    python = [fleet.PythonService(name, sampling, otlp, RATE, 0.5).start() for name in PYTHON]
    total_s = 2 * (PHASE_INTERVALS + 1) * INTERVAL_S + 60
    go = fleet.GoService(clients_bin, GO, sampling, otlp, RATE, STEP, tmp_path / "step", total_s)
    phases: dict[str, dict[str, Any]] = {}
    try:
        phases["1x"] = run_phase(leader, follower)
        for service in python:
            service.rate = RATE * STEP
        go.step()
        phases["5x step"] = run_phase(leader, follower)
    finally:
        for service in python:
            service.stop()
        go.stop()
    time.sleep(2.0)  # the last batches
    results = measure(leader, phases, started)
    report(results, figures)
    (tmp_path / "adaptive.json").write_text(json.dumps(results, indent=1))
    check(results)


def measure(leader: Engine, phases: dict[str, dict[str, Any]], started: float) -> dict[str, Any]:
    """Per phase and service: stored traces per second per interval, intervals to
    within 20% of the target, and the probabilities served."""
    starts = {s: fleet.stored_root_starts(leader.query_url, s, started, time.time()) for s in SERVICES}
    results: dict[str, Any] = {}
    for name, phase in phases.items():
        rates = {s: fleet.per_interval(starts[s], phase["edges"]) for s in SERVICES}
        python_mean = [sum(rates[s][i] for s in PYTHON) / len(PYTHON) for i in range(PHASE_INTERVALS)]
        results[name] = {
            "stored_per_s": rates,
            "python_mean_per_s": python_mean,
            "python_intervals_to_target": fleet.intervals_to_target(python_mean, TARGET),
            "go_intervals_to_target": fleet.intervals_to_target(rates[GO], TARGET),
            "served": phase["served"],
            "leader_served": phase["leader_served"],
        }
    return results


def report(results: dict[str, Any], figures: Callable[[str], None]) -> None:
    figures(f"adaptive: target {TARGET:g} traces/s per operation, {INTERVAL_S:g} s intervals, "
            f"{RATE:g} spans/s per service, then {STEP:g}x; a leader and a follower")  # fmt: skip
    for name, phase in results.items():
        served = [p for s in PYTHON for p in phase["served"][s] if p is not None]
        span = f"{min(served):.3f}-{max(served):.3f}" if served else "nothing computed"
        figures(
            f"  {name:7} Python (dsampler) {fmt(phase['python_mean_per_s'])} traces/s, within 20% after "
            f"{when(phase['python_intervals_to_target'])}, follower served p {span}"
        )
        figures(
            f"  {'':7} Go (jaegerremote) {fmt(phase['stored_per_s'][GO])} traces/s, within 20% after "
            f"{when(phase['go_intervals_to_target'])}, served p {phase['served'][GO][-1]}"
        )


def fmt(rates: list[float]) -> str:
    return "[" + " ".join(f"{rate:.1f}" for rate in rates) + "]"


def when(intervals: int | None) -> str:
    return f"{intervals} intervals" if intervals is not None else f"never in {PHASE_INTERVALS}"


def late(values: list[Any]) -> list[Any]:
    """The phase's second half."""
    return values[PHASE_INTERVALS // 2 :]


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def geometric_mean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def check(results: dict[str, Any]) -> None:
    """What Jaeger v2.13 did, as the module docstring says; a Jaeger that behaved
    otherwise would fail here, and the docs' figures would need measuring again."""
    for name, phase in results.items():
        for service, served in phase["leader_served"].items():
            assert set(served) == {None}, (name, service, served)  # the leader serves nothing computed
        assert set(phase["served"][GO]) == {None}, (name, phase["served"][GO])  # no tags, no probability
    for service in PYTHON:
        served = [p for phase in results.values() for p in phase["served"][service] if p is not None]
        assert len(set(served)) >= 2, (service, served)  # new probabilities while it runs
    before, after = ([p for s in PYTHON for p in late(results[n]["served"][s]) if p] for n in results)
    assert before, results["1x"]["served"]
    assert after, results["5x step"]["served"]
    assert geometric_mean(after) < 0.5 * geometric_mean(before), (before, after)  # the step is followed
    for name, phase in results.items():
        stored = late(phase["python_mean_per_s"])
        assert TARGET / 4 < mean(stored) < TARGET * 4, (name, stored)  # about the target
    go_1x, go_5x = (mean(late(results[n]["stored_per_s"][GO])) for n in ("1x", "5x step"))
    assert go_1x == pytest.approx(RATE * INITIAL, rel=0.2), results["1x"]["stored_per_s"][GO]
    assert go_5x == pytest.approx(STEP * go_1x, rel=0.25), results["5x step"]["stored_per_s"][GO]
