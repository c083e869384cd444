"""The strategies server: ``GET /sampling?service=NAME`` (any path, as Jaeger v2) answers the
service's strategy (an unknown service gets the default), and gRPC too with ``grpc_port``.
"""

from __future__ import annotations

import functools
import threading
from typing import TYPE_CHECKING, Final

from dsampler import _fork
from dsampler._validate import check_int, check_seconds
from dsampler.protocol import Dialect, render
from dsampler.serve._http import HttpListener
from dsampler.serve._strategies import Answers, Strategies
from dsampler.serve._strategies_file import StrategiesFile

if TYPE_CHECKING:
    from dsampler.serve._grpc import GrpcStrategiesServer


MAX_CONNECTIONS: Final = 100_000  # the bound of max_connections


class StrategiesServer:
    """Serves strategies over HTTP.

    Args:
        source: a :class:`StrategiesFile` (reloaded by its own thread) or fixed :class:`Strategies`.
        host: address to bind (default 127.0.0.1; ``0.0.0.0`` to serve the network).
        port: TCP port (default 5778; 0 picks a free one, see :attr:`port`).
        dialect: ``proto3`` (default) or ``legacy`` (numeric ``strategyType``).
        header_timeout_s: time a client has to send its request head (default 5 s).
        max_connections: connections served at once (default 1024).
        grpc_port: also serve gRPC on this port of ``host`` (default None: HTTP only).

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
        self._bodies = Answers(functools.partial(render, dialect=dialect))
        timeout = check_seconds(header_timeout_s, "header_timeout_s", 0.01, 3600.0)
        slots = check_int(max_connections, "max_connections", 1, MAX_CONNECTIONS)
        self._httpd = HttpListener((host, check_int(port, "port", 0, 65535)), self.body_for, timeout, slots)
        self._thread: threading.Thread | None = None
        self._serving = False
        #: the gRPC listener, if any (started by :meth:`start` and :meth:`serve_forever`)
        self.grpc: GrpcStrategiesServer | None = None
        if grpc_port is not None:
            from dsampler.serve._grpc import GrpcStrategiesServer

            try:
                grpc_port = check_int(grpc_port, "grpc_port", 0, 65535)
                self.grpc = GrpcStrategiesServer(source, host, grpc_port, owns_source=False)
            except BaseException:
                self._httpd.server_close()
                raise
        _fork.register(self._reset_after_fork)

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
        """The response body for ``service`` (rendered once per loaded file and service)."""
        return self._bodies.for_service(self.strategies, service)

    def serve_forever(self) -> None:
        """Serve in this thread until :meth:`close` (from another thread or a signal)."""
        if self.grpc is not None:
            self.grpc.start()
        self._serve()

    def _serve(self) -> None:
        """The HTTP loop and the file's reloading, without the gRPC listener: a quick
        :meth:`close` must not see it started again by :meth:`start`'s thread."""
        if isinstance(self._source, StrategiesFile):
            self._source.start()
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
            self._thread = threading.Thread(target=self._serve, name="dsampler-serve", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and release the ports (idempotent; HTTP is released even if the
        gRPC listener fails to stop)."""
        try:
            if self.grpc is not None:
                self.grpc.close()
        finally:
            if self._serving or (self._thread is not None and self._thread.is_alive()):
                self._httpd.shutdown()
            self._httpd.server_close()
            if isinstance(self._source, StrategiesFile):
                self._source.stop()
            if self._thread is not None:
                self._thread.join(timeout=5.0)

    def _reset_after_fork(self) -> None:
        # The serve loop is the parent's thread: close() must not wait for it here.
        self._serving = False
        self._thread = None

    def __enter__(self) -> StrategiesServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
