"""The HTTP side of the strategies server, answering as Jaeger's handler does: a thread per
connection, at most ``max_connections``; a request head must arrive in time and fit its
caps, so a client that trickles, stalls or floods holds only its own thread.
"""

from __future__ import annotations

import contextlib
import functools
import io
import logging
import socket
import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final
from urllib.parse import parse_qs, urlsplit

from dsampler._held import start_holding

_log = logging.getLogger("dsampler.serve")
MAX_URL: Final = 8192
MAX_HEAD: Final = 16384
_WRITE_TIMEOUT_S: Final = 5.0
_MISSING_SERVICE: Final = b"'service' parameter must be provided once\n"
HEALTH_PATH: Final = "/healthz"


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
    server: HttpListener
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
        target = urlsplit(self.path)
        if target.path == HEALTH_PATH:
            self._reply(HTTPStatus.OK, b"ok\n", "text/plain", send_body)
            return
        try:
            services = parse_qs(target.query, keep_blank_values=True, max_num_fields=64).get("service")
        except ValueError:  # more than 64 parameters
            services = None
        if services is None or len(services) != 1:
            self._reply(HTTPStatus.BAD_REQUEST, _MISSING_SERVICE, "text/plain", send_body)
            return
        self._reply(HTTPStatus.OK, self.server.body_for(services[0]), "application/json", send_body)

    do_GET = functools.partialmethod(_answer, send_body=True)  # noqa: N815
    do_HEAD = functools.partialmethod(_answer, send_body=False)  # noqa: N815

    def _reply(
        self,
        status: HTTPStatus,
        body: bytes,
        content_type: str,
        send_body: bool = True,
        extra: dict[str, str] | None = None,
    ) -> None:
        # One write for head and body: two segments meet Nagle and the client's delayed ACK.
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

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """A request http.server could not read: plain text with a status line, and a close."""
        self.close_connection = True
        status = HTTPStatus(code)
        body = (
            f"{status.phrase}: {message}\n" if message and message != status.phrase else f"{status.phrase}\n"
        )
        with contextlib.suppress(OSError):  # the client may be gone already
            self.connection.settimeout(_WRITE_TIMEOUT_S)
            self._reply(status, body[:512].encode("ascii", "replace"), "text/plain", self.command != "HEAD")

    def log_message(self, format: str, *args: Any) -> None:
        if _log.isEnabledFor(logging.DEBUG):
            _log.debug("dsampler serve: %s " + format, self.address_string(), *args)


class HttpListener(ThreadingHTTPServer):
    """Accepts connections on ``address``, a thread each, at most ``max_connections``
    at once (503 beyond); every request's body comes from ``body_for(service)``."""

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
        connection = functools.partial(self.process_request_thread, request, client_address)
        start_holding(self._slots, connection, name="dsampler-serve-connection")

    def handle_error(self, request: Any, client_address: Any) -> None:
        _log.debug("dsampler serve: connection from %s ended with an error", client_address, exc_info=True)
