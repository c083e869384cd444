"""``GET {endpoint}?service={name}``, never traced: one deadline over resolution, connect,
reads and redirects, a capped body, every failure a FetchError naming the URL (credentials
shown as ``***``). Proxy variables are ignored: the agent is local.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import socket
import ssl
import threading
import time
from collections.abc import Sequence
from typing import Any, Final, Protocol
from urllib.parse import SplitResult, unquote, urlencode, urljoin, urlsplit

from opentelemetry import context

from dsampler import _fork
from dsampler._validate import check_int, check_seconds, redact_url, show
from dsampler._version import __version__
from dsampler.errors import FetchError
from dsampler.protocol import MAX_RESPONSE_BYTES
from dsampler.remote._resolve import (
    AddrInfo,
    DeadlineSocket,
    DeadlineSSLSocket,
    Resolver,
    remaining,
    resolve,
)
from dsampler.remote._url import DEFAULT_ENDPOINT, sampling_url, socket_host

DEFAULT_TIMEOUT_S: Final = 10.0
_REDIRECTS: Final = frozenset({301, 302, 303, 307, 308})
_CHUNK: Final = 65536


class Fetcher(Protocol):
    """Where a poller gets strategy responses (``HttpFetcher``, or a test's own)."""

    def fetch(self, service: str) -> bytes:
        """The raw response body for ``service``; raises FetchError on any failure."""
        ...


def _suppressed_context() -> Any:
    """A context telling OpenTelemetry instrumentations (old ones too) to stay out."""
    ctx = context.set_value("suppress_instrumentation", True)
    for name in ("_SUPPRESS_INSTRUMENTATION_KEY", "_SUPPRESS_HTTP_INSTRUMENTATION_KEY"):
        key = getattr(context, name, None)
        if isinstance(key, str):
            ctx = context.set_value(key, True, ctx)
    return ctx


class HttpFetcher:
    """Fetches ``GET {endpoint}?service={name}`` with a deadline and a size cap.

    Args:
        endpoint: the sampling URL; a query it has is kept (``&service=``), credentials in it
            are sent as HTTP Basic authentication.
        timeout_s: the whole request, redirects included (default 10 s).
        max_bytes: largest body accepted (default 4 MiB).
        max_redirects: redirects followed (default 3).
        resolver: as :func:`socket.getaddrinfo` (the default), waited for until the deadline.

    Raises:
        ConfigError: an invalid endpoint or bound.
    """

    def __init__(
        self,
        endpoint: str = DEFAULT_ENDPOINT,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_bytes: int = MAX_RESPONSE_BYTES,
        max_redirects: int = 3,
        resolver: Resolver = socket.getaddrinfo,
    ) -> None:
        self._url = sampling_url(endpoint)
        #: the sampling URL, its credentials shown as ``***``
        self.endpoint = redact_url(self._url.geturl())
        self.timeout_s = check_seconds(timeout_s, "request_timeout_s", 0.001, 600.0)
        self.max_bytes = check_int(max_bytes, "max_response_bytes", 1, 1 << 30)
        self.max_redirects = check_int(max_redirects, "max_redirects", 0, 20)
        self._resolver = resolver
        self._lock = threading.Lock()
        self._active: socket.socket | None = None
        self._waking: threading.Event | None = None  # set by close(): stop waiting to resolve
        self._closed = False
        _fork.register(self._reset_after_fork)

    def url_for(self, service: str) -> str:
        """The URL polled for ``service``."""
        query = urlencode({"service": service})
        parts = self._url
        return parts._replace(query=f"{parts.query}&{query}" if parts.query else query).geturl()

    def fetch(self, service: str) -> bytes:
        """The body of a 2xx response for ``service``.

        Raises:
            FetchError: connection, timeout, status, size or redirect problem.
        """
        return self.get(self.url_for(service))

    def get(self, url: str) -> bytes:
        """The body of a 2xx response to ``GET url``, with this fetcher's bounds.

        Raises:
            FetchError: as :meth:`fetch`; ``status`` is set when the server answered.
        """
        deadline = time.monotonic() + self.timeout_s
        token = context.attach(_suppressed_context())
        try:
            for _ in range(self.max_redirects + 1):
                status, location, body = self._get(url, deadline)
                if location is None:
                    if 200 <= status < 300:
                        return body
                    problem = f"GET {redact_url(url)}: HTTP {status} {_snippet(body)}".rstrip()
                    raise FetchError(problem, status=status)
                url = self._redirect(url, location)
            raise FetchError(f"GET {redact_url(url)}: more than {self.max_redirects} redirects")
        finally:
            context.detach(token)

    def _redirect(self, url: str, location: str) -> str:
        # The server chose this URL: a bad port or IPv6 literal is a failed poll, not a ValueError.
        try:
            target = urljoin(url, location.strip())  # a relative one keeps the credentials
            parts = urlsplit(target)
            parts.port  # noqa: B018 - raises ValueError on a bad port
        except ValueError:
            where = show(redact_url(location))
            raise FetchError(f"GET {redact_url(url)}: redirect to an invalid URL {where}") from None
        if parts.scheme not in ("http", "https"):
            raise FetchError(f"GET {redact_url(url)}: redirect to a non-HTTP URL {show(redact_url(target))}")
        return target

    def _get(self, url: str, deadline: float) -> tuple[int, str | None, bytes]:
        """(status, redirect location or None, body) of one request."""
        parts, shown = urlsplit(url), redact_url(url)
        conn: http.client.HTTPConnection | None = None
        try:
            # Inside the try: a redirect's host may be one http.client refuses (InvalidURL).
            host = (parts.hostname or "").partition("%")[0]  # Host: no IPv6 zone (3.10 sent it)
            conn = http.client.HTTPConnection(host, parts.port, timeout=self.timeout_s)
            conn.sock = self._connect(parts, deadline)
            target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            headers = {"Accept": "application/json", "User-Agent": f"dsampler/{__version__}"}
            if parts.username is not None:  # userinfo: HTTP Basic, as Go's client sends it
                credentials = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
                headers["Authorization"] = "Basic " + base64.b64encode(credentials).decode("ascii")
            conn.request("GET", target, headers=headers)
            response = conn.getresponse()
            if response.status in _REDIRECTS:
                location = response.getheader("Location")
                if location:
                    return response.status, location, b""
            return response.status, None, self._body(response, shown)
        except FetchError:
            raise
        except (OSError, http.client.HTTPException, ValueError) as exc:
            problem = (
                "timed out" if isinstance(exc, TimeoutError) else redact_url(f"{type(exc).__name__}: {exc}")
            )
            raise FetchError(f"GET {shown}: {problem}") from exc
        finally:
            with self._lock:
                self._active = None
            if conn is not None:
                conn.close()

    def _connect(self, parts: SplitResult, deadline: float) -> socket.socket:
        url = redact_url(parts.geturl())  # for messages
        host = socket_host(parts.hostname or "")
        port = parts.port or (443 if parts.scheme == "https" else 80)
        wake = threading.Event()
        with self._lock:
            self._check_open(url)
            self._waking = wake
        try:
            addresses = resolve(host, port, deadline, self._resolver, wake)
        finally:
            with self._lock:
                self._waking = None
                self._check_open(url)  # close() woke the wait: say so
        raw = self._connect_any(url, addresses, deadline)
        sock: socket.socket = DeadlineSocket(raw.family, raw.type, raw.proto, fileno=raw.detach())
        try:
            sock.deadline = deadline  # type: ignore[attr-defined]
            sock.settimeout(remaining(deadline))  # bounds the (tiny) request write; reads re-arm
            if parts.scheme == "https":
                tls = ssl.create_default_context()
                tls.sslsocket_class = DeadlineSSLSocket
                sock = tls.wrap_socket(sock, server_hostname=parts.hostname)
                sock.deadline = deadline  # type: ignore[attr-defined]
        except BaseException:  # the deadline passed, or TLS failed: the socket is ours to close
            sock.close()
            raise
        with self._lock:
            if self._closed:
                sock.close()
            self._check_open(url)
            self._active = sock
        return sock

    def _connect_any(self, url: str, addresses: Sequence[AddrInfo], deadline: float) -> socket.socket:
        """A socket connected to the first address that answers, by the deadline."""
        problem = OSError("the resolver gave no address")
        for family, kind, proto, _, address in addresses:
            raw: socket.socket | None = None
            try:
                with self._lock:
                    self._check_open(url)
                    raw = self._active = socket.socket(family, kind, proto)  # close() aborts connect
                raw.settimeout(remaining(deadline))
                raw.connect(address)
                return raw
            except (OSError, OverflowError, TypeError, ValueError) as exc:  # the resolver's entry may be junk
                if raw is not None:
                    raw.close()
                problem = (
                    exc
                    if isinstance(exc, OSError)
                    else OSError(f"the resolver gave an unusable address {repr(address)[:100]}: {exc}")
                )
        with self._lock:
            self._check_open(url)  # close() aborted the connect: say so
        raise problem

    def _check_open(self, url: str) -> None:
        """Raise when closed (lock held)."""
        if self._closed:
            raise FetchError(f"GET {url}: the fetcher is closed")

    def _body(self, response: http.client.HTTPResponse, url: str) -> bytes:
        if response.length is not None and response.length > self.max_bytes:
            raise FetchError(
                f"GET {url}: body of {response.length} bytes is over the cap of {self.max_bytes}"
            )
        chunks: list[bytes] = []
        size = 0
        while chunk := response.read(min(_CHUNK, self.max_bytes + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > self.max_bytes:
                raise FetchError(f"GET {url}: body is over the cap of {self.max_bytes} bytes")
        if response.length:  # read(n) ends quietly when the server closes before its Content-Length
            raise FetchError(f"GET {url}: body ended {response.length} bytes short of its Content-Length")
        return b"".join(chunks)

    def close(self) -> None:
        """Abort a request in flight and refuse new ones (idempotent)."""
        with self._lock:
            self._closed = True
            active, self._active = self._active, None
            if self._waking is not None:
                self._waking.set()
        if active is not None:
            with contextlib.suppress(OSError):
                active.shutdown(socket.SHUT_RDWR)  # wakes a thread blocked reading it

    def _reset_after_fork(self) -> None:
        # The parent's connection is not ours to shut down: forget it, keep its fd alone.
        self._lock = threading.Lock()
        self._active = None
        self._waking = None

    def __repr__(self) -> str:
        return f"HttpFetcher({self.endpoint!r}, timeout_s={self.timeout_s})"


def _snippet(body: bytes) -> str:
    text = body[:120].decode("utf-8", "replace").strip().replace("\n", " ")
    return show(text, 100) if text else ""
