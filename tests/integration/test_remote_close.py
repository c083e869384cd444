"""Closing a remote-controlled sampler is quiet: a poll that close() aborts is no failure
of a server that is up. The three samplers that follow an endpoint (JaegerRemoteSampler,
a DSampler's ``remote:`` section, ``dsampler.jaeger``'s RemoteControlledSampler) share
the mechanism; each is closed against a real server on 127.0.0.1."""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable
from typing import Protocol

import pytest

from dsampler import DSampler, JaegerRemoteSampler
from dsampler.jaeger import RemoteControlledSampler
from dsampler.remote import PollOutcome
from dsampler.remote._poll import StrategyPoller
from tests.fakes import Fixed
from tests.remote_servers import Answer, RawServer, body, response, serving

pytestmark = pytest.mark.slow

STRATEGY = body({"strategyType": "PROBABILISTIC", "probabilisticSampling": {"samplingRate": 0.5}})


class Closeable(Protocol):
    def close(self) -> None: ...


class Made:
    """A sampler made by one of the three ways, with its poller and what it reported."""

    def __init__(self, sampler: Closeable, poller: StrategyPoller, reported: list[str] | None = None) -> None:
        self.sampler, self.poller = sampler, poller
        self.reported = [] if reported is None else reported


class Recorder:
    """jaeger-client's error_reporter and metrics factory: what the sampler reported."""

    def __init__(self) -> None:
        self.reported: list[str] = []

    def error(self, message: str, *args: object) -> None:
        self.reported.append(message % args)

    def create_counter(self, name: str, tags: dict[str, str] | None = None) -> Callable[[float], None]:
        label = f"{name}{sorted((tags or {}).items())}"
        return lambda value: self.reported.append(label) if "err" in label else None


def jaeger_remote(url: str) -> Made:
    sampler = JaegerRemoteSampler("svc", url, polling_interval_s=3600, request_timeout_s=5, resource={})
    return Made(sampler, sampler.poller)


def remote_section(url: str) -> Made:
    settings = {"endpoint": url, "polling_interval": "1h", "request_timeout": "5s", "service_name": "svc"}
    sampler = DSampler(remote=settings, resource={})
    assert sampler.follower is not None
    return Made(sampler, sampler.follower)


def remote_controlled(url: str) -> Made:
    recorder = Recorder()
    sampler = RemoteControlledSampler(
        None,
        "svc",
        endpoint=url,
        sampling_refresh_interval=3600,
        request_timeout_s=5,
        rng=Fixed(0.0),  # the first poll at once, not after a random part of the hour
        error_reporter=recorder,
        metrics_factory=recorder,
    )
    sampler.is_sampled(1)  # its poller starts at the first decision
    return Made(sampler, sampler._follower, recorder.reported)


MAKERS = {
    "JaegerRemoteSampler": jaeger_remote,
    "DSampler remote:": remote_section,
    "RemoteControlledSampler": remote_controlled,
}


def slow(server: RawServer, conn: socket.socket, head: bytes) -> None:
    """Up, and answering, but only after 3 s: long enough to be closed in flight."""
    if not server.stop.wait(3.0):
        conn.sendall(response(200, STRATEGY))


def loud(caplog: pytest.LogCaptureFixture) -> list[str]:
    """What was logged at INFO and above but the line of a strategy put in force (a
    successful poll says which strategy it applied)."""
    return [
        f"{r.name}: {r.getMessage()}"
        for r in caplog.records
        if r.levelno >= logging.INFO and ": sampling strategy now " not in r.getMessage()
    ]


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
def test_closing_during_a_poll_logs_and_counts_no_failure(
    make: Callable[[str], Made], caplog: pytest.LogCaptureFixture
) -> None:
    """The first poll is in flight (the server has read the request) when close() comes:
    nothing is logged at INFO or above, nothing reported to jaeger-client's reporter or
    counters, ``failures`` stays 0, the poll's outcome is CLOSED; a poll after close() is
    CLOSED too, and quiet."""
    caplog.set_level(logging.DEBUG)
    with serving(slow) as server:
        made = make(server.url)
        assert server.seen.wait(10)
        made.sampler.close()  # joins the poller's thread: what it logs is logged by now
        assert loud(caplog) == []
        assert made.reported == []
        poller = made.poller
        assert (poller.failures, poller.consecutive_failures, poller.last_error) == (0, 0, None)
        assert made.poller.poll_once() is PollOutcome.CLOSED
    assert loud(caplog) == []
    assert made.poller.outcomes[PollOutcome.CLOSED] == 2
    assert made.poller.outcomes[PollOutcome.FAILED] == 0
    assert "poll aborted by close()" in caplog.text  # at DEBUG, for whoever looks


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
def test_closing_right_after_making_it_is_quiet(
    make: Callable[[str], Made], caplog: pytest.LogCaptureFixture
) -> None:
    """Made and closed at once, 20 times, against a server that answers at once (before,
    every JaegerRemoteSampler so closed logged a WARNING): the close comes before, during
    or after the first poll, and nothing is ever logged as a failure."""
    caplog.set_level(logging.DEBUG)
    made: list[Made] = []
    with serving(Answer(STRATEGY)) as server:
        for _ in range(20):
            made.append(make(server.url))
            made[-1].sampler.close()
    assert loud(caplog) == []
    assert all(m.reported == [] and m.poller.failures == 0 for m in made)


def test_a_failure_before_close_is_still_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    """The quiet is close()'s only: a server answering 503 is warned about as before."""
    sampler = None
    with serving(Answer(b"busy", status=503)) as server:
        sampler = JaegerRemoteSampler("svc", server.url, start=False, resource={})
        with caplog.at_level(logging.WARNING, logger="dsampler.remote"):
            assert sampler.poll_once() is PollOutcome.FAILED
        sampler.close()
    assert sampler.poller.failures == 1
    assert "keeping the current sampling strategy" in caplog.text
    assert "HTTP 503" in caplog.text
