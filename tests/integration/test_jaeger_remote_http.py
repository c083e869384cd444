"""dsampler.jaeger.RemoteControlledSampler polling real HTTP servers on 127.0.0.1 (the
strategies server behind ``dsampler serve``, ``dsampler serve`` itself, and servers that
fail on purpose), inside a real jaeger_client.Tracer, through jaeger-client's config
dict, and across a real os.fork()."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from jaeger_client import Config, Tracer
from jaeger_client.reporter import InMemoryReporter

from dsampler.jaeger import RemoteControlledSampler, sampler_from_config
from dsampler.protocol import ProbabilisticStrategy
from dsampler.serve import StrategiesFile, StrategiesServer
from tests.fakes import Fixed, sampler_tags, until
from tests.remote_servers import (
    PER_OPERATION_FILE,
    PROBABILISTIC_FILE,
    RATE_LIMITING_FILE,
    Answer,
    body,
    free_port,
    serving,
    start_serve,
)

pytestmark = pytest.mark.slow

# The interop test's files (jaeger-client's own sampler follows them), with an operation at 0.
PER_OPERATION = {"default_strategy": {**PER_OPERATION_FILE["default_strategy"]}}
PER_OPERATION["default_strategy"]["operation_strategies"] = [
    *PER_OPERATION_FILE["default_strategy"]["operation_strategies"],
    {"operation": "health", "type": "probabilistic", "param": 0.0},
]


class Served:
    """A strategies file behind a StrategiesServer; ``serve(x)`` makes the server answer x."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.write_text(json.dumps(PROBABILISTIC_FILE))
        self.source = StrategiesFile(path, reload_interval_s=0)
        self.server = StrategiesServer(self.source, port=0).start()

    def serve(self, strategies: dict[str, Any]) -> None:
        self.path.write_text(json.dumps(strategies))
        assert (self.source.poll_once(), self.source.poll_once()) == (False, True)  # held still


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    served = Served(tmp_path / "strategies.json")
    yield served
    served.server.close()


def test_probabilistic_rate_limiting_and_per_operation_reach_a_jaeger_tracer(served: Served) -> None:
    """Each strategy served over HTTP is picked up by a poll and decides the spans a real
    jaeger_client.Tracer starts, with jaeger-client's sampler tags."""
    remote = RemoteControlledSampler(
        None, "jaeger-app", sampling_host="127.0.0.1", sampling_port=served.server.port
    )
    reporter = InMemoryReporter()
    tracer = Tracer("jaeger-app", reporter=reporter, sampler=remote)
    try:
        assert remote.poll_once()
        kept = [s for s in (tracer.start_span("op") for _ in range(400)) if s.is_sampled()]
        assert 120 < len(kept) < 280  # 0.5 of 400, beyond 4 sigma
        assert sampler_tags(kept[0]) == {"sampler.type": "probabilistic", "sampler.param": 0.5}

        served.serve(RATE_LIMITING_FILE)
        assert remote.poll_once()
        limited = [s for s in (tracer.start_span("op") for _ in range(200)) if s.is_sampled()]
        assert 0 <= len(limited) <= 9  # the bucket holds 7 (a random part at first), plus what accrues
        assert all(sampler_tags(s) == {"sampler.type": "ratelimiting", "sampler.param": 7.0} for s in limited)

        served.serve(PER_OPERATION)
        assert remote.poll_once()
        assert str(remote.sampler) == "AdaptiveSampler(0.250000, 0.000000, 2000)"
        always = [tracer.start_span("checkout") for _ in range(50)]
        assert all(s.is_sampled() for s in always)
        assert sampler_tags(always[0]) == {"sampler.type": "probabilistic", "sampler.param": 1.0}
        assert not any(tracer.start_span("health").is_sampled() for _ in range(200))
        other = [s for s in (tracer.start_span("other") for _ in range(400)) if s.is_sampled()]
        assert 50 < len(other) < 150
    finally:
        tracer.close()
        remote.close()


def test_a_jaeger_client_config_with_type_remote_polls_dsampler_serve(tmp_path: Path) -> None:
    """jaeger-client's ``sampler: {type: remote}`` through sampler_from_config inside
    jaeger_client.Config: the background poller picks up `dsampler serve`'s strategy and
    follows an edit of its file."""
    path = tmp_path / "strategies.json"
    path.write_text(json.dumps({"default_strategy": {"type": "probabilistic", "param": 1.0}}))
    proc, url = start_serve("--strategies", str(path), "--port", "0")
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    settings = {
        "sampler": {"type": "remote", "param": 0.0, "sampling_host": "127.0.0.1", "sampling_port": port},
        "sampling_refresh_interval": 1,
        "local_agent": {"reporting_port": free_port()},
        "logging": False,
    }
    sampler = sampler_from_config(settings, service_name="shop", rng=Fixed(0.0))
    assert isinstance(sampler, RemoteControlledSampler)
    tracer = Config(config={**settings, "sampler": sampler}, service_name="shop").new_tracer()
    try:
        assert not tracer.start_span("GET /").is_sampled()  # the init rate 0; starts the poller
        until(lambda: sampler.strategy == ProbabilisticStrategy(1.0))
        assert all(tracer.start_span("GET /").is_sampled() for _ in range(100))
        path.write_text(json.dumps({"default_strategy": {"type": "probabilistic", "param": 0.0}}))
        until(lambda: sampler.strategy == ProbabilisticStrategy(0.0))
        assert not any(tracer.start_span("GET /").is_sampled() for _ in range(100))
        assert sampler.running
    finally:
        tracer.close()
        sampler.close()
        proc.terminate()
        proc.wait(timeout=30)
    assert not sampler.running


@pytest.mark.parametrize(
    "fault",
    [
        Answer(b"collector error\n", 500),
        Answer(b"<html>Bad Gateway</html>"),
        Answer(b'{"strategyType":"ADAPTIVE"}'),
    ],
    ids=["HTTP 500", "garbage", "unknown enum"],
)
def test_a_failing_server_keeps_the_last_strategy_and_is_counted(fault: Answer) -> None:
    """After a good poll a failing answer keeps the strategy and decisions, is counted on
    jaeger-client's counters and reported; a good answer afterwards is applied."""
    counts: dict[str, int] = {}
    errors: list[tuple[Any, ...]] = []

    class Factory:
        @staticmethod
        def create_counter(name: str, tags: dict[str, str]) -> Callable[[int], None]:
            key = f"{name}.{tags['result']}"
            return lambda n: counts.__setitem__(key, counts.get(key, 0) + n)

    class Reporter:
        def error(self, *args: Any) -> None:
            errors.append(args)

    good = body({"strategyType": "PROBABILISTIC", "probabilisticSampling": {"samplingRate": 0.25}})
    with serving(Answer(good)) as server:
        remote = RemoteControlledSampler(
            None, "svc", endpoint=server.url, metrics_factory=Factory(), error_reporter=Reporter()
        )
        assert remote.poll_once()
        before = [remote.is_sampled(i * 0x9E3779B97F4A7C15 % 2**64)[0] for i in range(300)]
        server.behaviour = fault
        assert remote.poll_once() is False
        assert remote.strategy == ProbabilisticStrategy(0.25)
        assert [remote.is_sampled(i * 0x9E3779B97F4A7C15 % 2**64)[0] for i in range(300)] == before
        server.behaviour = Answer(body({"probabilisticSampling": {"samplingRate": 0.5}}))
        assert remote.poll_once()
        assert remote.strategy == ProbabilisticStrategy(0.5)
        remote.close()
    stage = "jaeger:sampler_queries.err" if fault.status == 500 else "jaeger:sampler_updates.err"
    assert counts[stage] == 1
    assert counts["jaeger:sampler_updates.ok"] == 2
    assert len(errors) == 1


def test_a_server_that_is_down_keeps_the_init_sampler_until_it_starts() -> None:
    """Connection refused: the init sampler decides; a server starting on the port is followed."""
    port = free_port()
    remote = RemoteControlledSampler(
        None, "svc", sampling_host="127.0.0.1", sampling_port=port, request_timeout_s=2
    )
    assert remote.poll_once() is False
    assert str(remote.sampler) == "ProbabilisticSampler(0.001)"
    with serving(Answer(body({"probabilisticSampling": {"samplingRate": 1.0}})), port=port):
        assert remote.poll_once()
    assert remote.is_sampled(12345, "op") == (True, {"sampler.type": "probabilistic", "sampler.param": 1.0})
    remote.close()


FORK = """
import json, os, sys, tempfile
from pathlib import Path
from dsampler.jaeger import RemoteControlledSampler
from dsampler.protocol import ProbabilisticStrategy
from dsampler.serve import StrategiesFile, StrategiesServer
from tests.fakes import Fixed, until

strategies = Path(tempfile.mkdtemp()) / "strategies.json"
def serve(rate):
    strategies.write_text(json.dumps({"default_strategy": {"type": "probabilistic", "param": rate}}))
serve(0.1)
source = StrategiesFile(strategies, reload_interval_s=0)
server = StrategiesServer(source, port=0).start()
sampler = RemoteControlledSampler(
    None, "forked", sampling_host="127.0.0.1", sampling_port=server.port,
    sampling_refresh_interval=1, rng=Fixed(0.0),
)
sampler.is_sampled(1, "op")  # the first decision starts the poller, in the parent
until(lambda: sampler.strategy == ProbabilisticStrategy(0.1))
seen = sampler.polls
child_out, parent_in = os.pipe()
if os.fork() == 0:  # the child: only its own polls can see 0.7
    try:
        until(lambda: sampler.strategy == ProbabilisticStrategy(0.7))
        followed = True
    except AssertionError:
        followed = False
    state = [followed, sampler.polls > seen, sampler.running, sampler.is_sampled(2**64 - 1)[0]]
    os.write(parent_in, json.dumps(state).encode())
    os._exit(0)
os.close(parent_in)
serve(0.7)
source.poll_once()
source.poll_once()  # the file has held still: served
os.wait()
sys.stdout.write(os.read(child_out, 4096).decode())
sampler.close()
server.close()
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork() is POSIX-only")
def test_after_fork_the_child_polls_and_follows_an_update() -> None:
    """A sampler started in the parent (as a prefork master may) polls in the child and
    follows a strategy served only after the fork."""
    state = json.loads(_python(FORK))
    assert state == [True, True, True, False]  # followed, polled, running; 0.7 drops the top ID


def test_the_interpreter_exits_while_the_poller_waits(served: Served) -> None:
    """A started, never closed sampler does not keep the interpreter alive."""
    code = f"""
from dsampler.jaeger import RemoteControlledSampler
sampler = RemoteControlledSampler(None, "svc", sampling_host="127.0.0.1", sampling_port={served.server.port})
sampler.is_sampled(1, "op")
assert sampler.poll_once()
print(sampler.strategy)
"""
    assert _python(code).strip() == "ProbabilisticStrategy(rate=0.5)"


def _python(code: str) -> str:
    """The output of ``python -c code``, run from the repository root (it may import
    tests.fakes); the run must succeed."""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=root, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout
