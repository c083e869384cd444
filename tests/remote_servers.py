"""Real TCP servers on 127.0.0.1 that misbehave on purpose, for the remote client's tests.

A :class:`RawServer` accepts connections on an ephemeral port, reads each request head
and hands the socket to a behaviour (answer, hang, trickle, reset, redirect, flood).
Behaviours wait on the server's stop event, never on a sleep, and end when the test
closes the server.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

Behaviour = Callable[["RawServer", socket.socket, bytes], None]

DATA = Path(__file__).resolve().parent / "data" / "jaeger"

#: Strategies files the jaeger-client interop and drop-in tests serve, in this order.
PROBABILISTIC_FILE = {"default_strategy": {"type": "probabilistic", "param": 0.5}}
RATE_LIMITING_FILE = {"default_strategy": {"type": "ratelimiting", "param": 7}}
PER_OPERATION_FILE = {
    "default_strategy": {
        "type": "probabilistic",
        "param": 0.25,
        "operation_strategies": [{"operation": "checkout", "type": "probabilistic", "param": 1.0}],
    }
}


def fixture_bytes(name: str) -> bytes:
    """A file of tests/data/jaeger."""
    return (DATA / name).read_bytes()


def response(status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> bytes:
    head = [f"HTTP/1.1 {status} X", f"Content-Length: {len(body)}", "Connection: close"]
    head += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


class RawServer:
    """Accepts on 127.0.0.1:<ephemeral>; ``behaviour`` handles each request."""

    def __init__(self, behaviour: Behaviour, port: int = 0) -> None:
        self.behaviour = behaviour
        self.stop = threading.Event()
        self.seen = threading.Event()  # set at each request head read
        self.requests: list[bytes] = []
        self._sock = socket.create_server(("127.0.0.1", port))
        self._sock.settimeout(0.05)
        self.port: int = self._sock.getsockname()[1]
        self._threads: list[threading.Thread] = []
        self._accept = threading.Thread(target=self._serve, daemon=True)
        self._accept.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/sampling"

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except (TimeoutError, OSError):
                continue
            thread = threading.Thread(target=self._handle, args=(conn,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(2.0)
            head = b""
            with contextlib.suppress(OSError):
                while b"\r\n\r\n" not in head and len(head) < 65536:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    head += chunk
            self.requests.append(head)
            self.seen.set()
            with contextlib.suppress(OSError):
                self.behaviour(self, conn, head)

    def close(self) -> None:
        self.stop.set()
        self._sock.close()
        self._accept.join(2.0)
        for thread in self._threads:
            thread.join(2.0)

    def __enter__(self) -> RawServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Answer:
    """Answers every request with ``status`` and ``body``; both may change between polls."""

    def __init__(self, body: bytes, status: int = 200, headers: dict[str, str] | None = None) -> None:
        self.body, self.status, self.headers = body, status, headers

    def __call__(self, server: RawServer, conn: socket.socket, head: bytes) -> None:
        conn.sendall(response(self.status, self.body, self.headers))


class Gated:
    """Answers as ``answer`` does once :attr:`release` is set: until then a client sees the
    state it had before any answer, however fast its poller runs."""

    def __init__(self, answer: Behaviour) -> None:
        self.answer, self.release = answer, threading.Event()

    def __call__(self, server: RawServer, conn: socket.socket, head: bytes) -> None:
        while not self.release.wait(0.05):
            if server.stop.is_set():
                return
        self.answer(server, conn, head)


def hang(server: RawServer, conn: socket.socket, head: bytes) -> None:
    """Accept, read the request, never answer."""
    server.stop.wait(30)


def reset(server: RawServer, conn: socket.socket, head: bytes) -> None:
    """Close with a TCP RST (SO_LINGER 0)."""
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def trickle(server: RawServer, conn: socket.socket, head: bytes) -> None:
    """A valid response, one byte every 50 ms: no single read waits long, the whole does."""
    for byte in response(200, b'{"probabilisticSampling":{"samplingRate":0.5}}'):
        if server.stop.wait(0.05):
            return
        conn.sendall(bytes([byte]))


def flood(declared: bool) -> Behaviour:
    """A 50 MB body, with or without a Content-Length."""

    def behave(server: RawServer, conn: socket.socket, head: bytes) -> None:
        size = 50 * 1024 * 1024
        length = f"Content-Length: {size}\r\n" if declared else ""
        conn.sendall(f"HTTP/1.1 200 OK\r\n{length}Connection: close\r\n\r\n".encode())
        block = b" " * 65536
        for _ in range(size // len(block)):
            if server.stop.is_set():
                return
            conn.sendall(block)

    return behave


def redirect_loop(server: RawServer, conn: socket.socket, head: bytes) -> None:
    conn.sendall(response(302, b"", {"Location": f"http://127.0.0.1:{server.port}/sampling?again=1"}))


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@contextlib.contextmanager
def serving(behaviour: Behaviour, port: int = 0) -> Iterator[RawServer]:
    server = RawServer(behaviour, port)
    try:
        yield server
    finally:
        server.close()


def body(obj: Any) -> bytes:
    import json

    return json.dumps(obj).encode()


def start_serve(*args: str, timeout_s: float = 60.0) -> tuple[Any, str]:
    """``python -m dsampler serve ARGS`` in a subprocess; returns it and its URL once it
    says it listens (its log goes to a temporary file, so it never blocks on a pipe)."""
    proc, urls = start_serve_urls(*args, timeout_s=timeout_s)
    return proc, urls[0]


def start_serve_urls(*args: str, count: int = 1, timeout_s: float = 60.0) -> tuple[Any, list[str]]:
    """:func:`start_serve` waiting for ``count`` ``listening on`` lines (HTTP, then gRPC)."""
    import os
    import selectors
    import subprocess
    import sys
    import tempfile
    import time

    log = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the child writes to it
    proc = subprocess.Popen(
        [sys.executable, "-m", "dsampler", "serve", *args], stdout=subprocess.PIPE, stderr=log, text=True
    )
    assert proc.stdout is not None
    fd = proc.stdout.fileno()  # read raw: a buffered readline() may take both lines at once,
    selector = selectors.DefaultSelector()  # and the second would then never wake select()
    selector.register(fd, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout_s
    seen = b""
    while time.monotonic() < deadline and proc.poll() is None:
        if selector.select(timeout=0.1):
            seen += os.read(fd, 4096)
            urls = [
                line.split(b"listening on ", 1)[1].split()[0].decode()
                for line in seen.split(b"\n")[:-1]
                if b"listening on " in line
            ]
            if len(urls) >= count:
                return proc, urls[:count]
    proc.kill()
    proc.wait()
    log.seek(0)
    raise AssertionError(
        f"dsampler serve did not start (exit {proc.returncode}): {log.read().decode(errors='replace')}"
    )


def grpc_call(
    port: int, body: bytes, method: str = "/jaeger.api_v2.SamplingManager/GetSamplingStrategy"
) -> bytes:
    """One unary call to 127.0.0.1:``port`` over a real grpcio channel, raw bytes both
    ways (the codec under test is not used to frame the call)."""
    import grpc

    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        answer: bytes = channel.unary_unary(method)(body, timeout=10)
    return answer
