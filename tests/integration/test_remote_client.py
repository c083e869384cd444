"""The remote client against real HTTP servers on 127.0.0.1 that fail in every way the
issue lists: each fault keeps the last good strategy, loses nothing, and the client
recovers when the server does."""

from __future__ import annotations

import http.client
import json
import logging
import subprocess
import sys
import textwrap
import time
from typing import Any

import pytest
from opentelemetry.instrumentation.utils import is_instrumentation_enabled

from dsampler.errors import ConfigError, FetchError
from dsampler.protocol import PerOperationStrategy, ProbabilisticStrategy, RateLimitingStrategy
from dsampler.remote import HttpFetcher, JaegerRemoteSampler, PollOutcome
from tests.remote_servers import (
    Answer,
    RawServer,
    body,
    flood,
    free_port,
    hang,
    redirect_loop,
    reset,
    serving,
    trickle,
)

pytestmark = pytest.mark.slow

GOOD = body({"strategyType": "PROBABILISTIC", "probabilisticSampling": {"samplingRate": 0.25}})
NEXT = body({"strategyType": "PROBABILISTIC", "probabilisticSampling": {"samplingRate": 0.5}})
IDS = [(i * 0x9E3779B97F4A7C15 + 12345) % (1 << 128) for i in range(1, 400)]


def client(server: RawServer, **kwargs: Any) -> JaegerRemoteSampler:
    settings: dict[str, Any] = {"request_timeout_s": 0.5, "start": False, "resource": {}}
    return JaegerRemoteSampler("svc", server.url, **(settings | kwargs))


def decisions(sampler: JaegerRemoteSampler) -> list[bool]:
    return [sampler.should_sample(None, tid, "op").decision.is_sampled() for tid in IDS]


def _ops(n: int) -> bytes:
    ops = [{"operation": f"op{i}", "probabilisticSampling": {"samplingRate": 0.5}} for i in range(n)]
    return body({"operationSampling": {"defaultSamplingProbability": 0.1, "perOperationStrategies": ops}})


def cut_short(server: RawServer, conn: Any, head: bytes) -> None:
    """A whole JSON strategy, then a close 64 bytes before the Content-Length it declared."""
    conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Length: {len(NEXT) + 64}\r\n\r\n".encode() + NEXT)


FAULTS = {
    "connection reset": reset,
    "body cut short of its Content-Length": cut_short,
    "HTTP 404": Answer(b"404 page not found\n", 404),
    "HTTP 500": Answer(b"collector error: boom\n", 500),
    "HTTP 503": Answer(b"", 503),
    "accepts and never answers": hang,
    "trickles a byte at a time": trickle,
    "50 MB body with a length": flood(declared=True),
    "50 MB body without a length": flood(declared=False),
    "truncated JSON": Answer(GOOD[:-7]),
    "HTML error page": Answer(b"<html><body>Bad Gateway</body></html>"),
    "JSON of the wrong type": Answer(b'["PROBABILISTIC", 0.5]'),
    "NaN rate": Answer(b'{"probabilisticSampling":{"samplingRate":NaN}}'),
    "negative rate": Answer(body({"probabilisticSampling": {"samplingRate": -0.5}})),
    "rate above 1": Answer(body({"probabilisticSampling": {"samplingRate": 1.5}})),
    "unknown enum": Answer(
        body({"strategyType": "ADAPTIVE", "probabilisticSampling": {"samplingRate": 0.1}})
    ),
    "no strategy object": Answer(b'{"strategyType":"PROBABILISTIC"}'),
    "too many operations": Answer(_ops(100_001)),
    "redirect loop": redirect_loop,
    "redirect to ftp": Answer(b"", 302, {"Location": "ftp://127.0.0.1/strategy"}),
    "redirect to port 99999": Answer(b"", 302, {"Location": "http://127.0.0.1:99999/sampling"}),
    "redirect to a broken IPv6 host": Answer(b"", 302, {"Location": "http://[::1/sampling"}),
    "redirect to a host with a blank": Answer(b"", 302, {"Location": "http://a b/sampling"}),
}


@pytest.mark.parametrize("fault", list(FAULTS), ids=list(FAULTS))
def test_each_fault_keeps_the_last_strategy_and_the_client_recovers(fault: str) -> None:
    """After a good poll, the fault fails the next one: same version, same decisions,
    same strategy; a good answer afterwards is applied."""
    with serving(Answer(GOOD)) as server:
        sampler = client(server)
        assert sampler.poll_once() is PollOutcome.APPLIED
        version, before = sampler.config.version, decisions(sampler)
        server.behaviour = FAULTS[fault]
        assert sampler.poll_once() is PollOutcome.FAILED
        assert (sampler.config.version, decisions(sampler)) == (version, before)
        assert sampler.strategy == ProbabilisticStrategy(0.25)
        assert sampler.poller.consecutive_failures == 1
        assert sampler.poller.last_error
        server.behaviour = Answer(NEXT)
        assert sampler.poll_once() is PollOutcome.APPLIED
        assert sampler.config.rate == 0.5
        assert sampler.poller.consecutive_failures == 0
        sampler.close()


def test_timeouts_are_one_deadline_not_one_per_read() -> None:
    """A trickling server that would finish after ~5 s is cut off at the 0.5 s deadline."""
    with serving(trickle) as server:
        sampler = client(server)
        assert sampler.poll_once() is PollOutcome.FAILED
        assert "timed out" in (sampler.poller.last_error or "")


def test_a_server_that_is_down_then_starts_is_followed() -> None:
    """Connection refused keeps the initial sampler; a server coming up on the port is used."""
    port = free_port()
    sampler = JaegerRemoteSampler(
        "svc", f"http://127.0.0.1:{port}/sampling", request_timeout_s=0.5, start=False, resource={}
    )
    assert sampler.poll_once() is PollOutcome.FAILED
    assert "ConnectionRefusedError" in (sampler.poller.last_error or "")
    assert sampler.config.rate == 0.001
    assert sampler.strategy is None
    with serving(Answer(GOOD), port=port):
        assert sampler.poll_once() is PollOutcome.APPLIED
    assert sampler.config.rate == 0.25


def test_tolerated_dialect_quirks_are_applied() -> None:
    """String numbers, numeric enums, null members and extra fields are accepted."""
    text = (
        b'{"strategyType":0,"extra":[1],"rateLimitingSampling":null,'
        b'"probabilisticSampling":{"samplingRate":"0.4"}}'
    )
    with serving(Answer(text)) as server:
        sampler = client(server)
        assert sampler.poll_once() is PollOutcome.APPLIED
        assert sampler.strategy == ProbabilisticStrategy(0.4)


def test_thousands_of_operations_keep_max_operations(caplog: pytest.LogCaptureFixture) -> None:
    """5,000 operations with max_operations 2,000: the first 2,000 are tracked, the rest
    decided at the default rate, with one warning."""
    with serving(Answer(_ops(5000))) as server:
        sampler = client(server)
        with caplog.at_level(logging.WARNING, "dsampler.remote"):
            assert sampler.poll_once() is PollOutcome.APPLIED
        assert len(sampler.config.operations) == 2000
        assert "op1999" in sampler.config.operations
        assert "3000 operations more than max_operations" in caplog.text
        assert sampler.poll_once() is PollOutcome.UNCHANGED


def test_one_redirect_is_followed() -> None:
    """A 307 to another path on the same server is followed (bounded redirects)."""
    with serving(Answer(GOOD)) as target, serving(Answer(b"", 307, {"Location": target.url})) as server:
        sampler = client(server)
        assert sampler.poll_once() is PollOutcome.APPLIED


def test_requests_name_the_service_url_encoded_and_keep_the_endpoint_query() -> None:
    """GET <endpoint>?x=1&service=<quoted name>, with the Accept header."""
    with serving(Answer(GOOD)) as server:
        fetcher = HttpFetcher(server.url + "?x=1", timeout_s=1.0)
        assert fetcher.fetch("my svc/é") == GOOD
    head = server.requests[-1].decode()
    assert head.startswith("GET /sampling?x=1&service=my+svc%2F%C3%A9 HTTP/1.1\r\n")
    assert "Accept: application/json" in head


@pytest.mark.parametrize("query", ["?service=other", "?x=1&service=", "?SERVICE=a&service=b"])
def test_an_endpoint_that_names_the_service_itself_is_refused(query: str) -> None:
    """The client adds ?service=: one already in the endpoint would be sent twice, and
    Jaeger's servers (and dsampler serve) answer 400 to a repeated service at every poll."""
    with pytest.raises(ConfigError) as info:
        HttpFetcher("http://127.0.0.1:5778/sampling" + query, timeout_s=1.0)
    assert info.value.field == "endpoint"
    assert "no service= in the URL" in str(info.value)


def test_polls_run_with_instrumentation_suppressed(monkeypatch: pytest.MonkeyPatch) -> None:
    """An HTTP instrumentation hooked into http.client sees instrumentation disabled."""
    seen: list[bool] = []
    original = http.client.HTTPConnection.request

    def instrumented(self: http.client.HTTPConnection, *args: Any, **kwargs: Any) -> None:
        seen.append(is_instrumentation_enabled())
        original(self, *args, **kwargs)

    monkeypatch.setattr(http.client.HTTPConnection, "request", instrumented)
    with serving(Answer(GOOD)) as server:
        assert client(server).poll_once() is PollOutcome.APPLIED
    assert seen == [False]
    assert is_instrumentation_enabled()  # restored after the poll


def test_the_first_fetch_happens_at_start_in_a_daemon_thread() -> None:
    """start=True polls at once from a daemon thread; close() stops it (idempotent)."""
    with serving(Answer(GOOD)) as server:
        sampler = JaegerRemoteSampler("svc", server.url, polling_interval_s=3600, resource={})
        assert server.seen.wait(10)
        deadline = time.monotonic() + 10
        while sampler.strategy is None and time.monotonic() < deadline:
            server.stop.wait(0.01)
        assert sampler.strategy == ProbabilisticStrategy(0.25)
        thread = sampler.poller._thread._thread
        assert thread is not None
        assert thread.daemon
        sampler.close()
        sampler.close()
        assert not sampler.poller.running


def test_close_aborts_a_request_in_flight() -> None:
    """With a 20 s request timeout against a server that never answers, close() returns
    at once and the thread is gone; later polls are refused (CLOSED: no failure)."""
    with serving(hang) as server:
        sampler = JaegerRemoteSampler("svc", server.url, request_timeout_s=20, resource={})
        assert server.seen.wait(10)
        started = time.monotonic()
        sampler.close()
        assert time.monotonic() - started < 10
        assert not sampler.poller.running
        assert sampler.poll_once() is PollOutcome.CLOSED
        assert sampler.poller.failures == 0


def test_the_poller_never_keeps_the_interpreter_alive() -> None:
    """A process that never closes its sampler, mid-request, exits promptly."""
    with serving(hang) as server:
        code = f"""
            from dsampler.remote import JaegerRemoteSampler
            s = JaegerRemoteSampler("svc", {server.url!r}, request_timeout_s=60, resource={{}})
            import time; time.sleep(0.2)
            print("exiting")
        """
        proc = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "exiting"


@pytest.mark.parametrize(
    "endpoint",
    [
        "ftp://127.0.0.1/sampling",
        "127.0.0.1:5778",
        "http://",
        "http://h:99999/x",
        "http://h:0/x",
        5778,
        "x" * 3000,
    ],
)
def test_invalid_endpoints_are_refused(endpoint: object) -> None:
    """Not an http(s) URL with a host and a valid port: ConfigError naming endpoint."""
    with pytest.raises(ConfigError) as info:
        HttpFetcher(endpoint)  # type: ignore[arg-type]
    assert info.value.field == "endpoint"


@pytest.mark.parametrize(
    ("endpoint", "url"),
    [
        ("http://agent:5778", "http://agent:5778/sampling?service=a"),
        ("http://agent:5778/", "http://agent:5778/sampling?service=a"),
        ("http://collector:14268/api/sampling", "http://collector:14268/api/sampling?service=a"),
        ("https://s.example/x?token=t#frag", "https://s.example/x?token=t&service=a"),
    ],
)
def test_endpoint_urls(endpoint: str, url: str) -> None:
    """An empty path becomes /sampling; full URLs are kept; a query is extended with &."""
    assert HttpFetcher(endpoint).url_for("a") == url


def test_fetch_errors_are_oserrors_naming_the_url() -> None:
    """FetchError is an OSError (and a DsamplerError) whose message names the URL."""
    port = free_port()
    with pytest.raises(OSError, match=f"127.0.0.1:{port}/sampling") as info:
        HttpFetcher(f"http://127.0.0.1:{port}", timeout_s=0.5).fetch("svc")
    assert isinstance(info.value, FetchError)


def test_rate_limiting_and_per_operation_strategies_apply() -> None:
    """The other two kinds reach the config: a cap under rate 1, and operations."""
    per_op = body(
        {
            "operationSampling": {
                "defaultSamplingProbability": 0.1,
                "defaultLowerBoundTracesPerSecond": 0.5,
                "perOperationStrategies": [
                    {"operation": "GET /a", "probabilisticSampling": {"samplingRate": 1}}
                ],
            }
        }
    )
    with serving(
        Answer(body({"strategyType": 1, "rateLimitingSampling": {"maxTracesPerSecond": 9}}))
    ) as server:
        sampler = client(server)
        assert sampler.poll_once() is PollOutcome.APPLIED
        assert sampler.strategy == RateLimitingStrategy(9)
        assert (sampler.config.rate, sampler.config.traces_per_second) == (1.0, 9.0)
        server.behaviour = Answer(per_op)
        assert sampler.poll_once() is PollOutcome.APPLIED
        assert isinstance(sampler.strategy, PerOperationStrategy)
        config = sampler.config
        assert (config.rate, config.traces_per_second, config.default_lower_bound_per_second) == (
            0.1,
            None,
            0.5,
        )
        assert json.dumps(sorted(config.operations)) == '["GET /a"]'


@pytest.mark.parametrize("path", ["/sampling\x00", "/my sampling", "/s\u00fcd", "/sampling?team=\u00e9"])
def test_an_endpoint_http_client_cannot_send_is_refused_at_construction(path: str) -> None:
    """A control character, a blank or a non-ASCII letter in the path or query would be
    accepted and then fail every poll (http.client refuses to send it): refused by
    name instead, and its percent-encoded form is polled."""
    with serving(Answer(GOOD)) as server:
        base = server.url.rsplit("/", 1)[0]
        with pytest.raises(ConfigError) as info:
            JaegerRemoteSampler("svc", base + path, request_timeout_s=0.5, start=False, resource={})
        assert info.value.field == "endpoint"
        sampler = JaegerRemoteSampler(
            "svc", base + "/s%C3%BCd", request_timeout_s=0.5, start=False, resource={}
        )
        assert sampler.poll_once() is PollOutcome.APPLIED
        sampler.close()
