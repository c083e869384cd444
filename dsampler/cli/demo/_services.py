"""The demo's moving parts: an in-process ``dsampler serve`` on a free loopback port with
a copy of the example strategies file, two instrumented services, and a MeterProvider
that reads dsampler's metrics (:mod:`._metrics`).

- ``checkout``: a :class:`~dsampler.remote.JaegerRemoteSampler` (what
  ``OTEL_TRACES_SAMPLER=parentbased_jaeger_remote`` builds) polling the server every
  second; its rate is whatever the strategies file says.
- ``search``: a :class:`~dsampler.DSampler` with an ``adaptive:`` section; its
  controller owns the default rate and holds :data:`SEARCH_TARGET` traces per second.

Each has a real TracerProvider with a processor that counts the spans it records
(nothing is exported: the demo needs no collector), and its own seeded trace IDs, so
the decisions of a run depend on its seed, not on the process's random state.
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Final

from opentelemetry.context import Context
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.sdk.trace.sampling import Sampler
from opentelemetry.trace import SpanKind, set_span_in_context

from dsampler.cli.demo._timeline import CHECKOUT_UPDATE_RATE, SEARCH_TARGET, Service, services

if TYPE_CHECKING:
    from dsampler import DSampler
    from dsampler.adaptive import AdaptiveController
    from dsampler.cli.demo._metrics import DemoMetrics
    from dsampler.engine import Engine
    from dsampler.remote import JaegerRemoteSampler


POLL_INTERVAL_S: Final = 1.0  # checkout's polls (the entry point's default is 60 s)
RELOAD_INTERVAL_S: Final = 0.2  # the server's checks of the strategies file
STRATEGIES: Final = "strategies.json"


class SeededIds(IdGenerator):
    """Trace and span IDs from a seeded generator (never 0, which is invalid)."""

    def __init__(self, seed: int) -> None:
        self._bits = random.Random(seed).getrandbits

    def generate_span_id(self) -> int:
        return self._bits(64) or 1

    def generate_trace_id(self) -> int:
        return self._bits(128) or 1


class SampledCounter(SpanProcessor):
    """Counts the spans the SDK records (the sampled ones), and of them the roots. Only
    the workload's thread ends spans, so plain integers are enough."""

    def __init__(self) -> None:
        self.spans = 0
        self.traces = 0

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        return None

    def on_end(self, span: ReadableSpan) -> None:
        if span.context is not None and span.context.trace_flags.sampled:
            self.spans += 1
            self.traces += span.parent is None

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


class Instrumented:
    """One service: its provider, its sampler, what it was offered and what it kept."""

    def __init__(self, spec: Service, sampler: Sampler, engine: Engine, seed: int) -> None:
        import numpy as np

        from dsampler.telemetry import sampler_id

        self.spec = spec
        self.dsampler = engine  # whose configuration (rate, version) the table shows
        self.sampler_id = sampler_id(engine)  # its dsampler.sampler in the metrics
        self.controller: AdaptiveController | None = getattr(sampler, "controller", None)
        self.counter = SampledCounter()
        self.provider = TracerProvider(
            sampler=sampler,
            resource=Resource({"service.name": spec.name}),
            id_generator=SeededIds(seed),
            shutdown_on_exit=False,  # the demo shuts it down itself
        )
        self.provider.add_span_processor(self.counter)
        self.tracer = self.provider.get_tracer("dsampler.demo")
        self.rng = np.random.default_rng(seed)  # arrivals and latencies
        self.offered = 0  # requests (root spans) started

    @property
    def spans(self) -> int:
        """Spans its provider recorded."""
        return self.counter.spans

    @property
    def rate(self) -> float:
        return self.dsampler.config.rate

    @property
    def version(self) -> int:
        return self.dsampler.config.version

    def serve(self, requests: int, latency_factor: float) -> None:
        """``requests`` requests now: a root span and one child each, started and ended
        (real SDK spans, decided by the sampler); their simulated latencies go to the
        controller, as a middleware's ``observe()`` would."""
        start, op, child = self.tracer.start_span, self.spec.operation, self.spec.child
        server, client = SpanKind.SERVER, SpanKind.CLIENT
        for _ in range(requests):
            root = start(op, kind=server)
            start(child, context=set_span_in_context(root), kind=client).end()
            root.end()
        self.offered += requests
        if self.controller is not None and requests:
            median = math.log(self.spec.latency_median_s * latency_factor)
            observe = self.controller.observe
            for duration in self.rng.lognormal(median, self.spec.latency_sigma, requests).tolist():
                observe(duration)


@contextmanager
def _signals_absorbed() -> Iterator[None]:
    """SIGINT and SIGTERM do nothing while the demo stops (in the main thread; the
    handlers as they were afterwards, a signal still pending absorbed on the way)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, _absorb) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _absorb(signum: int, frame: object) -> None:
    """A signal that came while the demo stops: the stop goes on to its end."""


class Demo:
    """The server and both services, started on entry and stopped on exit (the pollers,
    the controller's ticker and the server's threads joined, the temporary folder
    removed)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._stack = ExitStack()
        self.strategies = Path(STRATEGIES)
        self.services: tuple[Instrumented, ...] = ()
        self.metrics: DemoMetrics | None = None
        self.url = ""

    def __enter__(self) -> Demo:
        try:
            self._start()
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        with _signals_absorbed():  # a Ctrl-C now would cut a close half-way (a thread left)
            self._stack.close()

    def _start(self) -> None:
        from dsampler.cli.demo._metrics import DemoMetrics
        from dsampler.serve import StrategiesFile, StrategiesServer

        self.metrics = DemoMetrics()
        self._stack.callback(self.metrics.provider.shutdown)
        folder = Path(tempfile.mkdtemp(prefix="dsampler-demo-"))
        self._stack.callback(shutil.rmtree, folder, ignore_errors=True)
        self.strategies = folder / STRATEGIES
        self.strategies.write_bytes(resources.files("dsampler.cli.demo").joinpath(STRATEGIES).read_bytes())
        source = StrategiesFile(self.strategies, reload_interval_s=RELOAD_INTERVAL_S)
        server = StrategiesServer(source, "127.0.0.1", 0)
        self._stack.callback(server.close)
        server.start()
        self.url = server.url
        checkout_spec, search_spec = services()
        checkout = self._checkout(checkout_spec)
        search = self._search()
        self.services = (
            Instrumented(checkout_spec, checkout, checkout.engine, self._seed(0)),
            Instrumented(search_spec, search, search.engine, self._seed(1)),
        )
        for service in self.services:
            self._stack.callback(service.provider.shutdown)

    def _seed(self, index: int) -> int:
        """A service's own seed, derived from the run's."""
        return self.seed * 4 + index

    def _checkout(self, spec: Service) -> JaegerRemoteSampler:
        from dsampler.remote import JaegerRemoteSampler, PollOutcome

        sampler = JaegerRemoteSampler(
            spec.name,
            f"{self.url}/sampling",
            polling_interval_s=POLL_INTERVAL_S,
            first_poll_delay_s=POLL_INTERVAL_S,  # the first poll is made here, below
            rng=random.Random(self._seed(2)),  # the poller's jitter
            start=False,
        )
        self._stack.callback(sampler.close)
        if sampler.poll_once() is not PollOutcome.APPLIED:
            raise RuntimeError(f"checkout got no strategy from dsampler serve at {self.url}")
        sampler.start()
        return sampler

    def _search(self) -> DSampler:
        from dsampler import DSampler

        sampler = DSampler(adaptive={"target_traces_per_second": SEARCH_TARGET})
        self._stack.callback(sampler.close)
        return sampler

    def hot_update(self) -> tuple[float, float]:
        """Rewrite the strategies file as a config push does (a new file renamed over the
        old one: a reader never sees half of it) with checkout's new rate; the rates
        before and after."""
        data = json.loads(self.strategies.read_text(encoding="utf-8"))
        (entry,) = [s for s in data["service_strategies"] if s["service"] == "checkout"]
        before, after = entry["param"], CHECKOUT_UPDATE_RATE
        entry["param"] = after
        fresh = self.strategies.with_suffix(".new")
        fresh.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        os.replace(fresh, self.strategies)
        return float(before), after
