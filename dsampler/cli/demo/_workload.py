"""The demo's clock and workload: batches of real spans, paced against the monotonic clock.

Every :data:`BATCH_S` the workload wakes up and serves, for each service, the requests
that arrived in that interval (a Poisson draw at the load the timeline asks for), as
fast as it can, then sleeps until the next batch is due: no sleep per span, and a
batch that runs late is followed by the next one at once, so the offered load stays
right even on a busy machine (how late it ever ran is recorded). Once a second it
records one row per service and hands the run so far to ``show``. Halfway it rewrites
the strategies file and watches checkout's configuration until the new rate is in
force. A Ctrl-C ends the run early; what was recorded stays.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from dsampler.cli.demo._services import Demo, Instrumented
from dsampler.cli.demo._timeline import Timeline

BATCH_S: Final = 0.01
_PER_SECOND: Final = round(1.0 / BATCH_S)


@dataclass(frozen=True, slots=True)
class Row:
    """One service over one second (the second ending at ``second``)."""

    second: int
    service: str
    offered: int  # requests (root spans) started
    sampled: int  # of them sampled (traces)
    rate: float  # the default rate in force at the end of the second
    window_s: float | None  # the adaptive controller's window (None without one)
    version: int  # the configuration version in force


@dataclass(frozen=True, slots=True)
class Event:
    at_s: float
    text: str


@dataclass(slots=True)
class Update:
    """The hot update: when the file was rewritten, when checkout followed."""

    written_at_s: float
    rate_before: float
    rate_after: float
    version_before: int
    followed_at_s: float | None = None
    version_after: int | None = None


@dataclass(slots=True)
class Record:
    """Everything a run measured, for the table, the summary and the plot."""

    timeline: Timeline
    seed: int
    services: tuple[str, ...]
    rows: list[tuple[Row, ...]] = field(default_factory=list)  # a tuple per second
    steps: list[tuple[float, tuple[float, ...], float | None]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    update: Update | None = None
    elapsed_s: float = 0.0
    cpu_s: float = 0.0
    late_s: float = 0.0  # the most a batch ever started behind its schedule
    interrupted: bool = False
    spans: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # offered, traces, spans


class _Run:
    def __init__(self, demo: Demo, timeline: Timeline, show: Callable[[Record], None]) -> None:
        self.demo, self.timeline, self.show = demo, timeline, show
        self.record = Record(timeline, demo.seed, tuple(s.spec.name for s in demo.services))
        self._seen = [(0, 0)] * len(demo.services)
        self._start = 0.0
        self._load = self._latency = 1.0

    def now(self) -> float:
        return time.monotonic() - self._start

    def loop(self) -> None:
        self._start, cpu = time.monotonic(), time.process_time()
        try:
            for batch in range(1, round(self.timeline.duration_s / BATCH_S) + 1):
                self._batch(batch)
        except KeyboardInterrupt:
            self.record.interrupted = True
            self.record.events.append(Event(self.now(), "interrupted (Ctrl-C or SIGTERM)"))
        finally:
            self.record.elapsed_s, self.record.cpu_s = self.now(), time.process_time() - cpu
            self.record.spans = {
                s.spec.name: (s.offered, s.counter.traces, s.counter.spans) for s in self.demo.services
            }

    def _batch(self, batch: int) -> None:
        due = batch * BATCH_S
        wait = due - self.now()
        if wait > 0:
            time.sleep(wait)
        else:
            self.record.late_s = max(self.record.late_s, -wait)
        self._hot_update(due)
        middle, timeline = due - BATCH_S / 2, self.timeline
        load, latency = timeline.load_factor(middle), timeline.latency_factor(middle)
        self._phase_events(load, latency)
        for service in self.demo.services:
            service.serve(int(service.rng.poisson(service.spec.base_qps * load * BATCH_S)), latency)
        self.record.steps.append((due, tuple(s.rate for s in self.demo.services), self._window()))
        if batch % _PER_SECOND == 0:
            self._second(batch // _PER_SECOND)

    def _phase_events(self, load: float, latency: float) -> None:
        if load != self._load:
            text = f"load x{load:g} (spike)" if load != 1.0 else "load back to base"
            self.record.events.append(Event(self.now(), text))
        if latency != self._latency:
            text = f"latency x{latency:g}" if latency != 1.0 else "latency back to baseline"
            self.record.events.append(Event(self.now(), text))
        self._load, self._latency = load, latency

    def _window(self) -> float | None:
        return next((s.controller.window_s for s in self.demo.services if s.controller), None)

    def _second(self, second: int) -> None:
        rows = []
        for i, service in enumerate(self.demo.services):
            offered, sampled = self._seen[i]
            self._seen[i] = (service.offered, service.counter.traces)
            rows.append(_row(second, service, service.offered - offered, service.counter.traces - sampled))
        self.record.rows.append(tuple(rows))
        self.show(self.record)

    def _hot_update(self, due: float) -> None:
        """Rewrite the file when due; then note the first batch decided under the new rate."""
        record, checkout = self.record, self.demo.services[0]
        if record.update is None and due > self.timeline.update_at_s:
            version = checkout.version
            before, after = self.demo.hot_update()
            record.update = Update(self.now(), before, after, version)
            record.events.append(
                Event(
                    record.update.written_at_s,
                    f"hot update: strategies file rewritten, checkout {before:g} -> {after:g}",
                )
            )
        update = record.update
        if update is not None and update.followed_at_s is None and checkout.rate == update.rate_after:
            update.followed_at_s, update.version_after = self.now(), checkout.version
            took = update.followed_at_s - update.written_at_s
            text = f"checkout follows: rate {checkout.rate:g}, version {checkout.version}"
            record.events.append(Event(update.followed_at_s, f"{text}, {took:.2f} s after the write"))


def _row(second: int, service: Instrumented, offered: int, sampled: int) -> Row:
    window = None if service.controller is None else service.controller.window_s
    return Row(second, service.spec.name, offered, sampled, service.rate, window, service.version)


def run(demo: Demo, timeline: Timeline, show: Callable[[Record], None]) -> Record:
    """Drive ``demo`` through ``timeline`` in real time; what it measured."""
    runner = _Run(demo, timeline, show)
    runner.loop()
    return runner.record
