"""An HTTP strategies server: ``GET /sampling?service=NAME`` (any path, as Jaeger v2).

Answers as Jaeger's handler does (``internal/sampling/http/handler.go``): 200 with
``Content-Type: application/json`` and the proto3-JSON body (:mod:`.._render`); 400 with
``'service' parameter must be provided once`` when ``service`` is missing or repeated;
an unknown service gets the default strategy, never a 404. GET and HEAD only (405
otherwise). Bodies are rendered once per loaded file, so a request costs a dict lookup.

Built to face a fleet and hostile clients: a thread per connection (HTTP/1.1 keep-alive),
at most ``max_connections`` at once (503 beyond), a listen backlog of 1024; the request
head (line and headers) must arrive within ``header_timeout_s`` and fit in 16 KiB, a URL
in 8 KiB (414 beyond), so a client that trickles, stalls or floods is cut off without
holding more than its own thread; idle keep-alive connections close after the same
timeout. Binds 127.0.0.1 unless told otherwise. With ``grpc_port`` it also answers
gRPC (:mod:`._grpc`) from the same reloaded strategies, and closes both together.
"""

from __future__ import annotations

import contextlib
import io
import logging
import socket
import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import parse_qs, urlsplit

from dsampler import _fork
from dsampler._validate import check_int, check_seconds
from dsampler.remote._provider import Strategies
from dsampler.remote._render import Dialect, render
from dsampler.remote._source import StrategiesFile

if TYPE_CHECKING:
    from dsampler.remote._grpc import GrpcStrategiesServer

__all__ = ["StrategiesServer"]

_log = logging.getLogger("dsampler.serve")
MAX_URL: Final = 8192
MAX_HEAD: Final = 16384
_WRITE_TIMEOUT_S: Final = 5.0
_MISSING_SERVICE: Final = b"'service' parameter must be provided once\n"


class _Bodies:
    """The rendered responses of one :class:`Strategies` value."""

    __slots__ = ("default", "services", "strategies")

    def __init__(self, strategies: Strategies, dialect: Dialect) -> None:
        self.strategies = strategies
        self.default = render(strategies.default, dialect)
        self.services = {name: render(r, dialect) for name, r in strategies.services.items()}


class _HeadReader(io.RawIOBase):
    """Reads a request head against the handler's deadline and byte budget."""

    def __init__(self, handler: _Handler) -> None:
        self._handler = handler

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        h = self._handler
        remaining = h.head_deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("request head not received in time")
        if h.head_budget <= 0:
            raise ConnectionAbortedError("request head too large")
        h.connection.settimeout(remaining)
        read: int = h.connection.recv_into(memoryview(buffer)[: h.head_budget])
        h.head_budget -= read
        return read


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "dsampler-serve"
    sys_version = ""
    server: _HTTPServer
    head_deadline = 0.0
    head_budget = MAX_HEAD

    def setup(self) -> None:
        super().setup()
        with contextlib.suppress(OSError):  # small answers go out at once
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.rfile = io.BufferedReader(_HeadReader(self), 8192)

    def handle_one_request(self) -> None:
        self.head_deadline = time.monotonic() + self.server.header_timeout_s
        self.head_budget = MAX_HEAD
        super().handle_one_request()

    def do_GET(self) -> None:
        self._answer(send_body=True)

    def do_HEAD(self) -> None:
        self._answer(send_body=False)

    def _refuse_method(self) -> None:
        self.close_connection = True  # a body we will not read must not be parsed as a request
        self._reply(
            HTTPStatus.METHOD_NOT_ALLOWED, b"only GET and HEAD\n", "text/plain", extra={"Allow": "GET, HEAD"}
        )

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse_method  # noqa: N815

    def _answer(self, *, send_body: bool) -> None:
        self.connection.settimeout(_WRITE_TIMEOUT_S)
        if (
            self.headers.get("Content-Length", "0").strip() not in ("", "0")
            or "Transfer-Encoding" in self.headers
        ):
            self.close_connection = True
        if len(self.path) > MAX_URL:
            self._reply(HTTPStatus.REQUEST_URI_TOO_LONG, b"URL too long\n", "text/plain", send_body)
            return
        try:
            services = parse_qs(urlsplit(self.path).query, keep_blank_values=True, max_num_fields=64).get(
                "service"
            )
        except ValueError:  # more than 64 parameters
            services = None
        if services is None or len(services) != 1:
            self._reply(HTTPStatus.BAD_REQUEST, _MISSING_SERVICE, "text/plain", send_body)
            return
        self._reply(HTTPStatus.OK, self.server.body_for(services[0]), "application/json", send_body)

    def _reply(
        self,
        status: HTTPStatus,
        body: bytes,
        content_type: str,
        send_body: bool = True,
        extra: dict[str, str] | None = None,
    ) -> None:
        # One write for head and body: two small segments would meet Nagle's algorithm and
        # the client's delayed ACK (40 ms a request on a kept-alive connection).
        head = [
            f"{self.protocol_version} {status.value} {status.phrase}",
            f"Server: {self.server_version}",
            f"Date: {self.date_time_string()}",
            f"Content-Type: {content_type}",
            f"Content-Length: {len(body)}",
            *(f"{key}: {value}" for key, value in (extra or {}).items()),
        ]
        if self.close_connection:
            head.append("Connection: close")
        self.wfile.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + (body if send_body else b""))
        if _log.isEnabledFor(logging.DEBUG):
            self.log_request(status.value, len(body))

    def log_message(self, format: str, *args: Any) -> None:
        if _log.isEnabledFor(logging.DEBUG):
            _log.debug("dsampler serve: %s " + format, self.address_string(), *args)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 1024
    allow_reuse_address = True

    def __init__(
        self,
        address: tuple[str, int],
        body_for: Callable[[str], bytes],
        header_timeout_s: float,
        max_connections: int,
    ) -> None:
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.body_for = body_for
        self.header_timeout_s = header_timeout_s
        self._slots = threading.BoundedSemaphore(max_connections)
        super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            with contextlib.suppress(OSError):
                request.sendall(
                    b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                )
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        _log.debug("dsampler serve: connection from %s ended with an error", client_address, exc_info=True)


class StrategiesServer:
    """Serves strategies over HTTP.

    Args:
        source: a :class:`StrategiesFile` (reloaded by its own thread) or fixed
            :class:`Strategies`.
        host: address to bind (default 127.0.0.1; ``0.0.0.0`` to serve the network).
        port: TCP port (default 5778; 0 picks a free one, see :attr:`port`).
        dialect: ``proto3`` (default) or ``legacy`` (numeric ``strategyType``).
        header_timeout_s: time a client has to send its request head (default 5 s).
        max_connections: connections served at once (default 1024).
        grpc_port: also serve gRPC on this port of ``host`` (default None: HTTP only;
            Jaeger v2 uses 5779, the OpenTelemetry Collector and Java 14250; 0 picks one).

    Raises:
        OSError: an address cannot be bound.
        ImportError: ``grpc_port`` without grpcio (``dsampler[grpc]``).
        ConfigError: an invalid bound.
    """

    def __init__(
        self,
        source: StrategiesFile | Strategies,
        host: str = "127.0.0.1",
        port: int = 5778,
        *,
        dialect: Dialect = "proto3",
        header_timeout_s: float = 5.0,
        max_connections: int = 1024,
        grpc_port: int | None = None,
    ) -> None:
        self._source = source
        self._dialect: Dialect = dialect
        self._bodies: _Bodies | None = None
        timeout = check_seconds(header_timeout_s, "header_timeout_s", 0.01, 3600.0)
        slots = check_int(max_connections, "max_connections", 1, 100_000)
        self._httpd = _HTTPServer((host, check_int(port, "port", 0, 65535)), self.body_for, timeout, slots)
        self._thread: threading.Thread | None = None
        self._serving = False
        #: the gRPC listener, if any (started by :meth:`start` and :meth:`serve_forever`)
        self.grpc: GrpcStrategiesServer | None = None
        if grpc_port is not None:
            from dsampler.remote._grpc import GrpcStrategiesServer

            try:
                grpc_port = check_int(grpc_port, "grpc_port", 0, 65535)
                self.grpc = GrpcStrategiesServer(lambda: self.strategies, host, grpc_port)
            except BaseException:
                self._httpd.server_close()
                raise
        _fork.register(self)

    @property
    def strategies(self) -> Strategies:
        """The strategies served now."""
        source = self._source
        return source.current if isinstance(source, StrategiesFile) else source

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        host = str(self._httpd.server_address[0])
        return f"http://[{host}]:{self.port}" if ":" in host else f"http://{host}:{self.port}"

    def body_for(self, service: str) -> bytes:
        """The response body for ``service`` (rendered once per loaded file)."""
        strategies = self.strategies
        bodies = self._bodies
        if bodies is None or bodies.strategies is not strategies:
            bodies = self._bodies = _Bodies(strategies, self._dialect)
        return bodies.services.get(service, bodies.default)

    def serve_forever(self) -> None:
        """Serve in this thread until :meth:`close` (from another thread or a signal)."""
        if isinstance(self._source, StrategiesFile):
            self._source.start()
        if self.grpc is not None:
            self.grpc.start()
        self._serving = True
        try:
            self._httpd.serve_forever(poll_interval=0.2)
        finally:
            self._serving = False

    def start(self) -> StrategiesServer:
        """Serve from a daemon thread; returns self."""
        if self.grpc is not None:
            self.grpc.start()  # answering when start() returns
        if self._thread is None:
            self._thread = threading.Thread(target=self.serve_forever, name="dsampler-serve", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and release the ports (idempotent)."""
        if self.grpc is not None:
            self.grpc.close()
        if self._serving or (self._thread is not None and self._thread.is_alive()):
            self._httpd.shutdown()
        self._httpd.server_close()
        if isinstance(self._source, StrategiesFile):
            self._source.stop()
        if self._thread is not None:
            self._thread.join(timeout=5.0)

    def _reset_after_fork(self) -> None:
        # The serve loop running at the fork is the parent's thread: nothing here serves,
        # so close() has no loop to shut down (it would wait for it forever).
        self._serving = False
        self._thread = None

    def __enter__(self) -> StrategiesServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
