"""The gRPC strategies server against real grpcio clients on 127.0.0.1: Jaeger's
SamplingManager semantics, the same answers as HTTP, hostile requests, 50 concurrent
clients, admission limits, reloads, and both listeners closed together."""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc
import pytest

from dsampler.protocol import ProbabilisticStrategy, RateLimitingStrategy, StrategyResponse, parse_response
from dsampler.protocol._proto import MAX_REQUEST_BYTES, decode_response, encode_params
from dsampler.remote import HttpFetcher
from dsampler.serve import Strategies, StrategiesFile, StrategiesServer, jaeger_strategies
from dsampler.serve._grpc import GrpcStrategiesServer
from tests.google_sampling import Response, from_google
from tests.remote_servers import grpc_call

pytestmark = pytest.mark.slow

STRATEGIES = {
    "default_strategy": {"type": "probabilistic", "param": 0.5},
    "service_strategies": [
        {"service": "foo", "type": "probabilistic", "param": 0.8},
        {"service": "bar", "type": "ratelimiting", "param": 5},
    ],
}
HEALTH = "/grpc.health.v1.Health/Check"
GET = "/jaeger.api_v2.SamplingManager/GetSamplingStrategy"


@pytest.fixture
def server() -> Iterator[StrategiesServer]:
    with StrategiesServer(jaeger_strategies(STRATEGIES), port=0, grpc_port=0) as running:
        yield running


def stalled(never: threading.Event) -> Iterator[bytes]:
    """A call's request stream that sends nothing until ``never`` is set."""
    never.wait(60)
    yield b""


def held_source(entered: threading.Event, release: threading.Event) -> Callable[[], Strategies]:
    """A callable source that blocks once called (``entered``) until ``release``."""
    strategies = jaeger_strategies(STRATEGIES)

    def held() -> Strategies:
        entered.set()
        release.wait(60)
        return strategies

    return held


def grpc_port(server: StrategiesServer) -> int:
    assert server.grpc is not None
    return server.grpc.port


def ask(server: StrategiesServer, service: str) -> StrategyResponse:
    return decode_response(grpc_call(grpc_port(server), encode_params(service)))


def status_of(
    port: int, body: bytes, method: str = "/jaeger.api_v2.SamplingManager/GetSamplingStrategy"
) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as caught:
        grpc_call(port, body, method)
    return caught.value.code(), caught.value.details()  # type: ignore[attr-defined]


def test_services_get_their_strategy_and_others_the_default(server: StrategiesServer) -> None:
    """As Jaeger's handler: a listed service its own, any other name (the empty one
    included, which Jaeger hands to the provider as is) the default; no error status."""
    assert ask(server, "foo") == StrategyResponse.of(ProbabilisticStrategy(0.8))
    assert ask(server, "bar") == StrategyResponse.of(RateLimitingStrategy(5))
    assert ask(server, "unknown") == StrategyResponse.of(ProbabilisticStrategy(0.5))
    assert ask(server, "") == StrategyResponse.of(ProbabilisticStrategy(0.5))
    assert decode_response(grpc_call(grpc_port(server), b"")) == ask(server, "")  # no serviceName at all


def test_grpc_and_http_answer_the_same_and_google_reads_it_too(server: StrategiesServer) -> None:
    fetcher = HttpFetcher(server.url, timeout_s=5)
    for service in ("foo", "bar", "unknown", ""):
        body = grpc_call(grpc_port(server), encode_params(service))
        over_http = parse_response(fetcher.fetch(service)) if service else ask(server, "")
        assert decode_response(body) == over_http
        assert from_google(Response.FromString(body)) == over_http


def test_health_check_reports_serving_as_jaeger_does(server: StrategiesServer) -> None:
    """SERVING (1) for "" and the SamplingManager; NOT_FOUND for another; no Watch."""
    port = grpc_port(server)
    assert grpc_call(port, b"", HEALTH) == b"\x08\x01"
    assert grpc_call(port, b"\x0a\x1djaeger.api_v2.SamplingManager", HEALTH) == b"\x08\x01"
    assert status_of(port, b"\x0a\x03foo", HEALTH)[0] == grpc.StatusCode.NOT_FOUND
    assert status_of(port, b"\x0a\x01\xff", HEALTH)[0] == grpc.StatusCode.INVALID_ARGUMENT
    assert status_of(port, b"", "/grpc.health.v1.Health/Watch")[0] == grpc.StatusCode.UNIMPLEMENTED


@pytest.mark.parametrize(
    ("body", "code", "detail"),
    [
        (b"\xff\xff\xff", grpc.StatusCode.INVALID_ARGUMENT, "request: truncated varint at byte 0"),
        (b"\x0a\x02\xff\xfe", grpc.StatusCode.INVALID_ARGUMENT, "serviceName: not valid UTF-8"),
        (b"\x08\x01", grpc.StatusCode.INVALID_ARGUMENT, "serviceName: expected wire type 2"),
        (b"\x0a\x09abc", grpc.StatusCode.INVALID_ARGUMENT, "run past the end"),
        (b"\x00", grpc.StatusCode.INVALID_ARGUMENT, "invalid field number 0"),
        (b"\x7a" + b"\xc0\x80\x01" + b"x" * 20000, grpc.StatusCode.RESOURCE_EXHAUSTED, "larger than max"),
    ],
)
def test_hostile_requests_get_a_clear_status_and_the_server_goes_on(
    server: StrategiesServer, body: bytes, code: grpc.StatusCode, detail: str
) -> None:
    got, details = status_of(grpc_port(server), body)
    assert got == code
    assert detail in details
    assert ask(server, "foo") == StrategyResponse.of(ProbabilisticStrategy(0.8))


def test_a_huge_service_name_gets_the_default_and_a_bigger_one_is_refused(server: StrategiesServer) -> None:
    assert ask(server, "x" * (MAX_REQUEST_BYTES - 10)) == StrategyResponse.of(ProbabilisticStrategy(0.5))
    got, _ = status_of(grpc_port(server), encode_params("x" * (MAX_REQUEST_BYTES + 1)))
    assert got == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert ask(server, "bar") == StrategyResponse.of(RateLimitingStrategy(5))


def test_50_concurrent_clients_are_all_served(server: StrategiesServer) -> None:
    """50 channels, each on its own connection, 20 calls each, interleaved with garbage."""
    port = grpc_port(server)
    expected = {"foo": ask(server, "foo"), "bar": ask(server, "bar"), "x": ask(server, "x")}

    def client(i: int) -> int:
        ok = 0
        with grpc.insecure_channel(
            f"127.0.0.1:{port}", options=[("grpc.use_local_subchannel_pool", 1)]
        ) as ch:
            call = ch.unary_unary("/jaeger.api_v2.SamplingManager/GetSamplingStrategy")
            for j in range(20):
                service = ("foo", "bar", "x")[(i + j) % 3]
                if j % 7 == 3:
                    with pytest.raises(grpc.RpcError):
                        call(b"\xff", timeout=30)
                    continue
                ok += decode_response(call(encode_params(service), timeout=30)) == expected[service]
        return ok

    with ThreadPoolExecutor(50) as pool:
        served = list(pool.map(client, range(50)))
    assert served == [17] * 50


def test_rpcs_beyond_the_admission_limit_get_resource_exhausted() -> None:
    """One RPC admitted: while it is held inside the handler, the next is refused at
    once, and served once the first ends (events, not sleeps, order the steps)."""
    entered, release = threading.Event(), threading.Event()
    held = held_source(entered, release)
    with (
        GrpcStrategiesServer(held, port=0, max_workers=2, max_concurrent_rpcs=1) as srv,
        grpc.insecure_channel(f"127.0.0.1:{srv.port}") as ch,
    ):
        call = ch.unary_unary(GET)
        first = call.future(encode_params("foo"), timeout=30)
        assert entered.wait(30)
        with pytest.raises(grpc.RpcError) as refused:
            call(encode_params("bar"), timeout=30)
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED  # type: ignore[attr-defined]
        release.set()
        assert decode_response(first.result(30)) == StrategyResponse.of(ProbabilisticStrategy(0.8))
        # grpcio frees the slot just after the answer leaves: a few tries, at most 100
        answer, refusals = None, set()
        for _ in range(100):
            try:
                answer = call(encode_params("bar"), timeout=30)
                break
            except grpc.RpcError as exc:
                refusals.add(exc.code())  # type: ignore[attr-defined]
                threading.Event().wait(0.05)
        assert refusals <= {grpc.StatusCode.RESOURCE_EXHAUSTED}
        assert answer is not None
        assert decode_response(answer).rate_limiting == RateLimitingStrategy(5)


def test_a_file_reload_reaches_grpc_answers(tmp_path: Path) -> None:
    """The gRPC listener answers from the HTTP server's reloaded file, the same answer."""
    path = tmp_path / "strategies.json"
    path.write_text(json.dumps(STRATEGIES))
    source = StrategiesFile(path, reload_interval_s=0.5)
    with StrategiesServer(source, port=0, grpc_port=0) as server:
        assert ask(server, "foo") == StrategyResponse.of(ProbabilisticStrategy(0.8))
        path.write_text(json.dumps({"default_strategy": {"type": "ratelimiting", "param": 9}}))
        assert (source.poll_once(), source.poll_once()) == (False, True)
        assert ask(server, "foo") == StrategyResponse.of(RateLimitingStrategy(9))
        assert ask(server, "foo") == parse_response(HttpFetcher(server.url, timeout_s=5).fetch("foo"))
        path.write_text("{broken")
        assert (source.poll_once(), source.poll_once()) == (False, False)
        assert ask(server, "foo") == StrategyResponse.of(RateLimitingStrategy(9))


def test_a_servers_grpc_listener_leaves_the_shared_file_to_the_server(tmp_path: Path) -> None:
    """StrategiesServer hands its gRPC listener the file itself (answers are looked up on
    the listener's loop, no thread hop), not to start or stop: closing the gRPC listener
    alone leaves the file reloading for HTTP; closing the server stops it."""
    path = tmp_path / "strategies.json"
    path.write_text(json.dumps(STRATEGIES))
    source = StrategiesFile(path, reload_interval_s=0.5)
    assert source._poller is not None
    with StrategiesServer(source, port=0, grpc_port=0) as server:
        assert server.grpc is not None
        assert ask(server, "foo") == StrategyResponse.of(ProbabilisticStrategy(0.8))
        server.grpc.close()
        assert source._poller.running
        assert parse_response(HttpFetcher(server.url, timeout_s=30).fetch("foo")) == StrategyResponse.of(
            ProbabilisticStrategy(0.8)
        )
    assert not source._poller.running


def test_a_standalone_grpc_server_runs_its_file(tmp_path: Path) -> None:
    """Given a StrategiesFile, the gRPC server starts and stops its reloading itself."""
    path = tmp_path / "strategies.json"
    path.write_text(json.dumps(STRATEGIES))
    with GrpcStrategiesServer(StrategiesFile(path, reload_interval_s=0.5), port=0) as srv:
        assert srv.url == f"grpc://127.0.0.1:{srv.port}"
        got = decode_response(grpc_call(srv.port, encode_params("bar")))
        assert got == StrategyResponse.of(RateLimitingStrategy(5))


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def test_close_stops_both_listeners_and_frees_both_ports() -> None:
    server = StrategiesServer(jaeger_strategies(STRATEGIES), port=0, grpc_port=0).start()
    http_port, port = server.port, grpc_port(server)
    assert ask(server, "foo").probabilistic == ProbabilisticStrategy(0.8)
    server.close()
    assert status_of(port, encode_params("foo"))[0] == grpc.StatusCode.UNAVAILABLE
    assert _bindable(port)
    assert _bindable(http_port)
    server.close()  # idempotent


def test_a_taken_grpc_port_is_an_error_naming_it_and_frees_the_http_port() -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        with pytest.raises(OSError, match="Address already in use") as caught:
            StrategiesServer(jaeger_strategies(STRATEGIES), port=0, grpc_port=port)
    assert caught.value.filename == f"127.0.0.1:{port}"


def test_without_grpc_port_there_is_no_grpc_listener() -> None:
    with StrategiesServer(jaeger_strategies(STRATEGIES), port=0) as server:
        assert server.grpc is None


def test_clients_that_open_calls_and_never_send_do_not_starve_the_others() -> None:
    """Twice max_workers calls whose request never comes (headers sent, no message, no
    half-close), then a well-behaved call on the same connection and one on another:
    both are answered. grpcio's threaded server held a worker per call while it waited
    for the message, so max_workers such calls stopped every other answer until the
    stalled clients went away."""
    never = threading.Event()
    with (
        GrpcStrategiesServer(jaeger_strategies(STRATEGIES), port=0, max_workers=2) as srv,
        grpc.insecure_channel(f"127.0.0.1:{srv.port}") as stuck,
    ):
        grpc.channel_ready_future(stuck).result(timeout=10)
        calls = [stuck.stream_unary(GET).future(stalled(never), timeout=60) for _ in range(4)]
        try:
            answer = stuck.unary_unary(GET)(encode_params("foo"), timeout=10)
            assert decode_response(answer) == StrategyResponse.of(ProbabilisticStrategy(0.8))
            assert decode_response(grpc_call(srv.port, encode_params("bar"))).rate_limiting == (
                RateLimitingStrategy(5)
            )
        finally:
            never.set()
            for call in calls:
                call.cancel()


def test_a_call_whose_request_never_comes_is_ended_naming_the_wait() -> None:
    """The request must arrive within request_timeout_s, as an HTTP request's head must:
    past it the call ends with DEADLINE_EXCEEDED, and one with no message at all (the
    client half-closed at once) with INVALID_ARGUMENT."""
    never = threading.Event()
    with (
        GrpcStrategiesServer(jaeger_strategies(STRATEGIES), port=0, request_timeout_s=0.2) as srv,
        grpc.insecure_channel(f"127.0.0.1:{srv.port}") as ch,
    ):
        try:
            with pytest.raises(grpc.RpcError) as ended:
                ch.stream_unary(GET)(stalled(never), timeout=30)
        finally:
            never.set()
        assert ended.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED  # type: ignore[attr-defined]
        assert "no request message within 0.2 s" in ended.value.details()  # type: ignore[attr-defined]
        with pytest.raises(grpc.RpcError) as empty:
            ch.stream_unary(HEALTH)(iter(()), timeout=30)
        assert empty.value.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
        assert decode_response(grpc_call(srv.port, encode_params("foo"))).probabilistic == (
            ProbabilisticStrategy(0.8)
        )


def _close_in_a_forked_child(server: StrategiesServer) -> str:
    """What close() did in a child forked while ``server`` serves: "closed", or the
    exception it raised; a close that hangs is ended by the child's own alarm."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report, then leave without running the parent's cleanups
        try:
            signal.alarm(30)
            try:
                server.close()
                os.write(write, b"closed")
            except BaseException as exc:
                os.write(write, f"{type(exc).__name__}: {exc}".encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        said = pipe.read()
    _, status = os.waitpid(pid, 0)
    return said or f"no report (wait status {status})"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.parametrize("grpc_too", [False, True])
def test_close_in_a_forked_child_returns_and_the_parent_serves_on(grpc_too: bool) -> None:
    """A prefork worker that closes the server it inherited: the serving threads and
    grpcio's loop are the parent's, so the child's close() must not wait for them (the
    HTTP server's waited forever for a serve loop that does not exist in the child, the
    gRPC one for a loop thread that does not either, then raised)."""
    kwargs = {"grpc_port": 0} if grpc_too else {}
    with StrategiesServer(jaeger_strategies(STRATEGIES), port=0, **kwargs) as server:
        assert parse_response(HttpFetcher(server.url, timeout_s=10).fetch("foo")).probabilistic == (
            ProbabilisticStrategy(0.8)
        )
        assert _close_in_a_forked_child(server) == "closed"
        assert parse_response(HttpFetcher(server.url, timeout_s=10).fetch("bar")).rate_limiting == (
            RateLimitingStrategy(5)
        )
        if grpc_too:
            assert ask(server, "foo") == StrategyResponse.of(ProbabilisticStrategy(0.8))


def test_a_server_closed_at_once_after_start_leaves_no_thread_dying(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``with StrategiesServer(..., grpc_port=0): pass`` ten times, thread switches forced
    often: start()'s serve thread once started gRPC again, and a close() that had already
    closed it made the thread die ("the gRPC server is closed") before the HTTP loop that
    close()'s shutdown() waits for (a hang when the timing was wrong). No thread dies now."""
    path = tmp_path / "strategies.json"
    path.write_text(json.dumps(STRATEGIES))
    died: list[str] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: died.append(repr(args.exc_value)))
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _ in range(10):
            with StrategiesServer(StrategiesFile(path, reload_interval_s=1), port=0, grpc_port=0) as server:
                assert server.grpc is not None
    finally:
        sys.setswitchinterval(interval)
    assert died == []


def test_close_does_not_wait_for_a_blocked_callable_source() -> None:
    """A callable source may block (it runs on the worker threads, not the loop): close()
    returns while it is still blocked, instead of waiting for it to give up."""
    entered, release = threading.Event(), threading.Event()
    held = held_source(entered, release)
    srv = GrpcStrategiesServer(held, port=0).start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{srv.port}") as ch:
            call = ch.unary_unary(GET)
            pending = call.future(encode_params("foo"), timeout=60)
            assert entered.wait(30)
            closing = threading.Thread(target=srv.close)
            closing.start()
            closing.join(30)
            assert not closing.is_alive()  # closed while the source still blocks
            assert not release.is_set()
            with pytest.raises(grpc.RpcError):
                pending.result(30)
    finally:
        release.set()
        srv.close()


@pytest.mark.parametrize(
    ("connections", "shared"),
    [(20, False), (200, False), (20, True), (200, True)],
    ids=["20-connections", "200-connections", "20-channels-one-connection", "200-channels-one-connection"],
)
def test_a_burst_of_2000_calls_at_once_is_served_not_cancelled(
    server: StrategiesServer, connections: int, shared: bool
) -> None:
    """A fleet restarted at once: 2,000 calls in flight together, spread over 20 or 200
    channels, each on its own connection or all sharing one (grpcio's default for
    channels to one address in a process). grpcio's core cancels calls queued beyond
    1,000 that the application has not yet picked up (CANCELLED, 5-25% of them here); a
    connection capped at 100 streams refuses those its client opened before reading the
    cap (UNAVAILABLE, about half of them on one shared connection); the server lets 4,096
    wait, on any number of connections."""
    import asyncio

    port = grpc_port(server)
    expected = ask(server, "foo")
    options = [] if shared else [("grpc.use_local_subchannel_pool", 1)]

    async def burst() -> list[object]:
        channels = [
            grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=options) for _ in range(connections)
        ]
        try:
            request = encode_params("foo")
            calls = [channels[i % connections].unary_unary(GET)(request, timeout=60) for i in range(2000)]
            return await asyncio.gather(*calls, return_exceptions=True)
        finally:
            await asyncio.gather(*(ch.close() for ch in channels))

    loop = asyncio.new_event_loop()  # not asyncio.run(): it leaves the main thread with no
    try:  # current loop, and tornado (jaeger-client's own sampler, tests/interop) needs one
        answers = loop.run_until_complete(burst())
    finally:
        loop.close()
    failed = Counter(a.code().name for a in answers if isinstance(a, grpc.RpcError))  # type: ignore[attr-defined]
    assert failed == Counter()
    assert len(answers) == 2000
    assert all(decode_response(a) == expected for a in answers if isinstance(a, bytes))
