"""The strategies server against real clients on 127.0.0.1: Jaeger's HTTP semantics,
hostile and slow clients, 200 concurrent clients, reloads of a file that changes,
breaks and disappears."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsampler.errors import ConfigError
from dsampler.protocol import OperationRate, PerOperationStrategy, ProbabilisticStrategy
from dsampler.protocol._parse import parse_strategy
from dsampler.serve import Strategies, StrategiesFile, StrategiesServer
from dsampler.serve._strategies import jaeger_strategies
from tests.remote_servers import DATA

pytestmark = pytest.mark.slow

STRATEGIES = {
    "default_strategy": {"type": "probabilistic", "param": 0.5},
    "service_strategies": [{"service": "foo", "type": "probabilistic", "param": 0.8}],
}


@pytest.fixture
def server() -> Iterator[StrategiesServer]:
    with StrategiesServer(jaeger_strategies(STRATEGIES), port=0, header_timeout_s=0.5) as running:
        yield running


def get(server: StrategiesServer, target: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request(method, target)
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


@pytest.mark.parametrize("path", ["/sampling", "/api/sampling", "/", "/anything/else"])
def test_any_path_answers_with_the_services_strategy(server: StrategiesServer, path: str) -> None:
    """200, application/json, the service's strategy; an unknown service the default."""
    status, headers, body = get(server, f"{path}?service=foo")
    assert (status, headers["Content-Type"]) == (200, "application/json")
    assert body == b'{"strategyType":"PROBABILISTIC","probabilisticSampling":{"samplingRate":0.8}}'
    assert parse_strategy(get(server, f"{path}?service=nobody")[2]).rate == 0.5  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "query", ["", "?", "?svc=foo", "?service=foo&service=bar", "?" + "&".join(["a=1"] * 70)]
)
def test_a_missing_or_repeated_service_is_400(server: StrategiesServer, query: str) -> None:
    """Jaeger's 400 and body for anything but exactly one service parameter."""
    status, _, body = get(server, f"/sampling{query}")
    assert (status, body) == (400, b"'service' parameter must be provided once\n")


def test_an_empty_service_name_gets_the_default(server: StrategiesServer) -> None:
    """`service=` is one (empty) service, as Jaeger reads it: the default strategy."""
    status, _, body = get(server, "/sampling?service=")
    assert status == 200
    assert parse_strategy(body).rate == 0.5


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_healthz_answers_ok(server: StrategiesServer, method: str) -> None:
    """``/healthz`` is a health check: 200 and a tiny plain-text body, no service needed."""
    status, headers, body = get(server, "/healthz", method)
    assert (status, headers["Content-Type"], headers["Content-Length"]) == (200, "text/plain", "3")
    assert body == (b"ok\n" if method == "GET" else b"")


def test_head_and_other_methods(server: StrategiesServer) -> None:
    """HEAD gives the headers alone; POST is 405 with Allow."""
    status, headers, body = get(server, "/sampling?service=foo", "HEAD")
    assert (status, body, headers["Content-Length"]) == (200, b"", "77")
    status, headers, _ = get(server, "/sampling?service=foo", "POST")
    assert (status, headers["Allow"]) == (405, "GET, HEAD")


def test_long_urls_are_refused_and_the_server_goes_on(server: StrategiesServer) -> None:
    """A 9 KB URL is 414; a 100 KB one is cut off; the next client is served."""
    status, _, _ = get(server, "/sampling?service=" + "x" * 9000)
    assert status == 414
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"GET /sampling?service=" + b"x" * 100_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
        reply = _read_all(sock)
    assert reply == b"" or reply.startswith((b"HTTP/1.1 414", b"HTTP/1.0 414"))
    assert get(server, "/sampling?service=foo")[0] == 200


def test_oversized_headers_close_the_connection(server: StrategiesServer) -> None:
    """A request head over 16 KiB is not read to its end."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"GET /sampling?service=foo HTTP/1.1\r\n")
        with contextlib.suppress(OSError):  # the server stops reading and closes
            for i in range(2000):
                sock.sendall(f"X-Filler-{i}: {'y' * 100}\r\n".encode())
            sock.sendall(b"\r\n")
        assert not _read_all(sock).startswith(b"HTTP/1.1 200")


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (b"garbage\r\n\r\n", 400),
        (b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03" + bytes(32) + b"\r\n\r\n", 400),  # TLS hello
        (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505),  # an HTTP/2 client's preface
        (b"GET /sampling?service=foo HTTP/3.0\r\n\r\n", 505),
        (b"GET /sampling?service=foo HTTP/1.1.1\r\n\r\n", 400),
        (b"GET /sampling?service=foo HTTP/x\r\n\r\n", 400),
        (b"BREW /sampling?service=foo HTTP/1.1\r\n\r\n", 501),
    ],
    ids=["garbage", "tls", "http2-preface", "http3", "bad-version", "no-version-number", "unknown-method"],
)
def test_a_request_that_is_not_http_1_gets_a_status_line_and_a_close(
    server: StrategiesServer, request_bytes: bytes, status: int
) -> None:
    """A proper response (status line, plain-text body of the length announced,
    Connection: close), never http.server's bare HTML page; then the next client is served."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(request_bytes)
        reply = _read_all(sock)
    head, _, body = reply.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0].startswith(f"HTTP/1.1 {status} "), reply[:200]
    headers = dict(line.split(": ", 1) for line in lines[1:])
    assert headers["Connection"] == "close"
    assert headers["Content-Type"] == "text/plain"
    assert int(headers["Content-Length"]) == len(body) > 0
    assert b"<html" not in body.lower()
    assert get(server, "/sampling?service=foo")[0] == 200


def _read_all(sock: socket.socket) -> bytes:
    chunks = []
    try:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except OSError:
        pass
    return b"".join(chunks)


def test_a_client_that_stalls_is_cut_off_at_the_header_timeout(server: StrategiesServer) -> None:
    """Half a request line, then nothing: closed after the 0.5 s header timeout while
    another client is served meanwhile."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"GET /sampl")
        assert get(server, "/sampling?service=foo")[0] == 200
        started = time.monotonic()
        assert _read_all(sock) == b""
        assert time.monotonic() - started < 5


def test_a_client_that_trickles_is_cut_off_at_the_deadline_not_per_byte(server: StrategiesServer) -> None:
    """A byte every 100 ms never trips a per-read timeout; the head deadline closes it."""
    request = b"GET /sampling?service=foo HTTP/1.1\r\nHost: x\r\n" + b"X-Slow: " + b"z" * 200 + b"\r\n\r\n"
    closed = threading.Event()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        started = time.monotonic()
        try:
            for byte in request:
                sock.sendall(bytes([byte]))
                if closed.wait(0.1):
                    break
                sock.setblocking(False)
                try:
                    if sock.recv(1) == b"":
                        closed.set()
                except BlockingIOError:
                    pass
                finally:
                    sock.setblocking(True)
        except OSError:
            closed.set()
        assert closed.is_set()
        assert time.monotonic() - started < 10  # the whole request would take 25 s


def test_a_body_on_get_closes_the_connection_after_the_reply(server: StrategiesServer) -> None:
    """Bytes after the head are never parsed as a second request."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"GET /sampling?service=foo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nGET /")
        reply = _read_all(sock)
    assert reply.startswith(b"HTTP/1.1 200")
    assert b"Connection: close" in reply
    assert reply.count(b"HTTP/1.1") == 1


def test_keep_alive_serves_several_requests_per_connection(server: StrategiesServer) -> None:
    """HTTP/1.1 clients reuse their connection."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        for service in ("foo", "bar", "foo"):
            conn.request("GET", f"/sampling?service={service}")
            response = conn.getresponse()
            assert response.status == 200
            response.read()
    finally:
        conn.close()


def test_200_concurrent_clients_are_all_served(server: StrategiesServer) -> None:
    """200 clients connecting at once each get their 200."""
    barrier = threading.Barrier(200, timeout=30)
    statuses: list[int] = []

    def one(i: int) -> None:
        barrier.wait()
        statuses.append(get(server, f"/sampling?service=svc{i}")[0])

    threads = [threading.Thread(target=one, args=(i,)) for i in range(200)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert statuses == [200] * 200


def test_connections_beyond_the_limit_get_503() -> None:
    """With max_connections=2 and two idle clients holding theirs, a third gets 503."""
    with StrategiesServer(jaeger_strategies(None), port=0, max_connections=2, header_timeout_s=10) as server:
        held = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(2)]
        try:
            status = 0
            deadline = time.monotonic() + 10
            while status != 503 and time.monotonic() < deadline:  # until the two are accepted
                status = get(server, "/sampling?service=x")[0]
            assert status == 503
        finally:
            for sock in held:
                sock.close()
        deadline = time.monotonic() + 10
        while get(server, "/sampling?service=x")[0] != 200:
            assert time.monotonic() < deadline


def test_legacy_dialect_sends_numeric_enums() -> None:
    """dialect='legacy' answers with strategyType 0/1, for very old clients."""
    with StrategiesServer(jaeger_strategies(STRATEGIES), port=0, dialect="legacy") as server:
        assert (
            get(server, "/?service=foo")[2]
            == b'{"strategyType":0,"probabilisticSampling":{"samplingRate":0.8}}'
        )


def _write(path: Path, doc: object) -> None:
    path.write_text(json.dumps(doc))


def test_the_file_reloads_on_change_and_keeps_the_last_good_one(tmp_path: Path) -> None:
    """Edited: served once it has held still for a check; truncated, corrupted, of the
    wrong type or deleted: the last good strategies stay; restored: served again."""
    path = tmp_path / "strategies.json"
    _write(path, STRATEGIES)
    source = StrategiesFile(path, reload_interval_s=0.5)
    with StrategiesServer(source, port=0) as server:
        rate = lambda: parse_strategy(get(server, "/sampling?service=foo")[2]).rate  # type: ignore[union-attr]  # noqa: E731
        assert rate() == 0.8
        assert source.poll_once() is False  # unchanged bytes: nothing parsed
        _write(path, {"service_strategies": [{"service": "foo", "type": "probabilistic", "param": 0.3}]})
        assert source.poll_once() is False  # seen once: it may still be being written
        assert source.poll_once() is True
        assert rate() == 0.3
        good = path.read_bytes()
        for broken in (
            good[:-3],
            b"\x00\xff garbage",
            b'"nonsense"',
            b'{"default_strategy": {"param": "x"}}',
        ):
            path.write_bytes(broken)
            assert (source.poll_once(), source.poll_once()) == (False, False)
            assert rate() == 0.3
        path.unlink()
        assert source.poll_once() is False
        assert rate() == 0.3
        path.mkdir()
        assert source.poll_once() is False
        assert rate() == 0.3
        path.rmdir()
        path.write_bytes(good.replace(b"0.3", b"0.6"))
        assert (source.poll_once(), source.poll_once()) == (False, True)
        assert rate() == 0.6
        assert source.problems == 6
        assert source.reloads == 2


def test_an_invalid_or_missing_file_at_start_is_a_hard_error(tmp_path: Path) -> None:
    """bad_strategies.json and a missing file refuse to start, naming the problem."""
    with pytest.raises(ConfigError, match="expected a JSON object"):
        StrategiesFile(DATA / "bad_strategies.json")
    with pytest.raises(ConfigError, match="cannot read"):
        StrategiesFile(tmp_path / "missing.json")


def test_a_dsampler_config_file_is_served_and_reloaded(tmp_path: Path) -> None:
    """A YAML dsampler config serves its per-operation strategies; an edit is followed."""
    path = tmp_path / "sampling.yaml"
    path.write_text("rate: 0.1\noperations:\n  GET /a: 0.5\n")
    source = StrategiesFile(path, reload_interval_s=0.5)
    with StrategiesServer(source, port=0) as server:
        first = json.loads(get(server, "/sampling?service=any")[2])
        assert first["operationSampling"]["perOperationStrategies"] == [
            {"operation": "GET /a", "probabilisticSampling": {"samplingRate": 0.5}}
        ]
        path.write_text("rate: 0.2\n")
        assert (source.poll_once(), source.poll_once()) == (False, True)
        assert json.loads(get(server, "/sampling?service=any")[2]) == {
            "strategyType": "PROBABILISTIC",
            "probabilisticSampling": {"samplingRate": 0.2},
        }


def test_the_reload_thread_follows_edits(tmp_path: Path) -> None:
    """With the thread running (0.05 s checks), an edit is served within seconds."""
    path = tmp_path / "strategies.json"
    _write(path, STRATEGIES)
    with StrategiesServer(StrategiesFile(path, reload_interval_s=0.05), port=0) as server:
        _write(path, {"default_strategy": {"type": "ratelimiting", "param": 7}})
        deadline = time.monotonic() + 10
        while b"RATE_LIMITING" not in get(server, "/sampling?service=foo")[2]:
            assert time.monotonic() < deadline
            time.sleep(0.02)


def test_close_is_idempotent_and_frees_the_port() -> None:
    """It answers until close(); after close() the port can be bound again (the socket
    is closed, not only the loop stopped); close() twice is fine."""
    server = StrategiesServer(Strategies(jaeger_strategies(None).default), port=0).start()
    port = server.port
    with socket.create_connection(("127.0.0.1", port), timeout=5):
        pass
    server.close()
    server.close()
    with socket.create_server(("127.0.0.1", port)) as again:
        assert again.getsockname()[1] == port


def test_a_url_source_serves_defaults_on_503_at_start_and_keeps_the_last_on_reload() -> None:
    """Jaeger's URL source: 503 at start is 'no strategies yet' (the defaults serve);
    later a 503 or a 404 keeps the last good strategies; other failures at start refuse."""
    from tests.remote_servers import Answer, serving

    doc = json.dumps(STRATEGIES).encode()
    with serving(Answer(b"", 503)) as upstream:
        url = f"http://127.0.0.1:{upstream.port}/strategies.json"
        source = StrategiesFile(url, reload_interval_s=0)
        assert source.current.response_for("foo").strategy.rate == 0.001  # type: ignore[union-attr]
        upstream.behaviour = Answer(doc)
        assert source.poll_once() is True
        assert source.current.response_for("foo").strategy.rate == 0.8  # type: ignore[union-attr]
        for failing in (Answer(b"", 503), Answer(b"gone", 404), Answer(b"{")):
            upstream.behaviour = failing
            assert source.poll_once() is False
            assert source.current.response_for("foo").strategy.rate == 0.8  # type: ignore[union-attr]
        upstream.behaviour = Answer(b"nope", 404)
        with pytest.raises(ConfigError, match="HTTP 404"):
            StrategiesFile(url)


def test_a_refused_file_is_parsed_once_while_it_stays_the_same(tmp_path: Path) -> None:
    """As the configuration watcher: content refused once is remembered (by its hash)
    and not parsed again at every reload, one problem counted; the last good strategies
    serve until the file is valid again."""
    path = tmp_path / "sampling.yaml"
    path.write_text("rate: 0.05\n")
    source = StrategiesFile(path, reload_interval_s=0)
    before = source.current
    path.write_text("rate: 7\n")  # valid YAML, an invalid rate
    polls = [source.poll_once() for _ in range(6)]
    assert polls == [False] * 6
    assert source.problems == 1  # seen, held still, parsed and refused once
    assert source.current is before
    path.write_text("rate: 0.5\n")
    assert [source.poll_once(), source.poll_once()] == [False, True]
    assert source.current.default.strategy == ProbabilisticStrategy(0.5)
    assert source.problems == 1


def test_a_file_caught_half_written_is_not_served(tmp_path: Path) -> None:
    """A YAML config written in pieces is valid at almost every cut (``rate: 0.`` of
    ``rate: 0.25``, operations cut at a line): what a check sees once is served only if
    it is still there at the next check, so a writer's partial file never reaches the
    fleet."""
    path = tmp_path / "sampling.yaml"
    path.write_text("rate: 0.05\noperations:\n  GET /a: 1\n  GET /b: 1\n")
    source = StrategiesFile(path, reload_interval_s=0)
    before = source.current
    new = "rate: 0.25\noperations:\n  GET /a: 1\n  GET /b: 1\n"
    with path.open("w") as file:
        for cut in (8, 20, 32):  # "rate: 0.", "...operations:\n", "...  GET /a: 1\n"
            file.write(new[file.tell() : cut])
            file.flush()
            assert source.poll_once() is False
            assert source.current is before
        file.write(new[file.tell() :])
    assert source.poll_once() is False  # complete, but seen once
    assert source.poll_once() is True
    assert source.current.default.strategy == PerOperationStrategy(
        0.25, 0.0, (OperationRate("GET /a", 1.0), OperationRate("GET /b", 1.0))
    )


def test_a_reload_problem_names_the_file_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """'keeping the strategies in force; FILE: problem', not 'FILE: FILE: problem'."""
    import logging

    path = tmp_path / "strategies.json"
    _write(path, STRATEGIES)
    source = StrategiesFile(path, reload_interval_s=0)
    path.unlink()
    with caplog.at_level(logging.WARNING, logger="dsampler.serve"):
        assert source.poll_once() is False
        path.write_text("{bad")
        assert source.poll_once() is False
        assert source.poll_once() is False
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        f"dsampler serve: keeping the strategies in force; {path}: cannot read the file: "
        "No such file or directory",
        f"dsampler serve: keeping the strategies in force; {path}: invalid JSON at line 1 column 2: "
        "Expecting property name enclosed in double quotes",
    ]
    assert source.current.default == jaeger_strategies(STRATEGIES).default


def test_a_file_of_null_or_an_empty_object_serves_the_default_and_an_empty_one_is_refused(
    tmp_path: Path,
) -> None:
    """As docs/remote-sampling.md says: null and {} give probabilistic 0.001 for every
    service; a file with nothing in it is refused (Jaeger's file provider reads it so)."""
    path = tmp_path / "strategies.json"
    for content in ("null", "{}"):
        path.write_text(content)
        served = StrategiesFile(path, reload_interval_s=0).current
        assert served.response_for("any") == jaeger_strategies({}).response_for("any")
        assert served.response_for("any").probabilistic == ProbabilisticStrategy(0.001)
    for content in ("", " \n"):
        path.write_text(content)
        with pytest.raises(ConfigError, match="the file is empty"):
            StrategiesFile(path, reload_interval_s=0)
