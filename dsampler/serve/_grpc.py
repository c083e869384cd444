"""A gRPC strategies server (``SamplingManager/GetSamplingStrategy``, what OpenTelemetry Java
speaks) on grpcio's asyncio server: a call that never sends its request holds no thread;
first encodings and a callable source run on ``max_workers`` threads. No ``SO_REUSEPORT``.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

from dsampler import _fork
from dsampler._validate import check_int, check_seconds
from dsampler.protocol import MAX_REQUEST_BYTES, encode_response
from dsampler.serve._grpc_calls import SamplingCalls, bind_problem, import_grpc
from dsampler.serve._strategies import Answers, Strategies
from dsampler.serve._strategies_file import StrategiesFile

_log = logging.getLogger("dsampler.serve")
_STOP_GRACE_S: Final = 1.0
_LOOP_WAIT_S: Final = 10.0
MAX_PENDING_CALLS: Final = 4096  # a fleet of thousands polling at once; bounded memory


class GrpcStrategiesServer:
    """Serves strategies over gRPC.

    Args:
        source: a :class:`StrategiesFile`, fixed :class:`Strategies`, or a callable giving
            the strategies in force (how :class:`~dsampler.serve.StrategiesServer` shares its file).
        host: address to bind (default 127.0.0.1).
        port: TCP port (Jaeger v2: 5779, the Collector and Java: 14250; 0 picks a free one).
        max_workers: threads that encode first answers or call a callable ``source`` (default 8).
        max_concurrent_rpcs: RPCs admitted at once (default 1024).
        request_timeout_s: time a call has to send its request (default 5 s).
        owns_source: start and stop a :class:`StrategiesFile` source with this server.

    Raises:
        ImportError: grpcio is not installed (the message names ``dsampler[grpc]``).
        OSError: the address cannot be bound.
        ConfigError: an invalid bound.
    """

    def __init__(
        self,
        source: StrategiesFile | Strategies | Callable[[], Strategies],
        host: str = "127.0.0.1",
        port: int = 5779,
        *,
        max_workers: int = 8,
        max_concurrent_rpcs: int = 1024,
        request_timeout_s: float = 5.0,
        owns_source: bool = True,
    ) -> None:
        port = check_int(port, "port", 0, 65535)
        grpc = import_grpc()
        self._source = source
        self._owned = source if owns_source and isinstance(source, StrategiesFile) else None
        self._messages = Answers(encode_response)
        self._host = host.strip("[]")
        workers = check_int(max_workers, "max_workers", 1, 1024)
        admitted = check_int(max_concurrent_rpcs, "max_concurrent_rpcs", 1, 100_000)
        self._request_timeout_s = check_seconds(request_timeout_s, "request_timeout_s", 0.01, 3600.0)
        self._grpc = grpc
        address = f"[{self._host}]:{port}" if ":" in self._host else f"{self._host}:{port}"
        taken = bind_problem(self._host, port, address)
        if taken is not None:
            raise taken
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="dsampler-grpc")
        self._server, self._port = self._serve_on_a_loop(address, port, admitted)
        self._started = False
        self._closed = False
        self._forked = False  # in a forked child: the loop, its thread and grpcio's are the parent's
        self._lock = threading.Lock()
        _fork.register(self._reset_after_fork)

    def _serve_on_a_loop(self, address: str, port: int, admitted: int) -> tuple[Any, int]:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="dsampler-grpc-loop", daemon=True)
        self._thread.start()
        try:
            server, bound = self._call(self._build(address, admitted))
        except BaseException:
            self._end_loop()
            raise
        if not bound:
            self._end_loop()
            raise bind_problem(self._host, port, address) or OSError(
                errno.EADDRNOTAVAIL, "grpcio could not bind it", address
            )
        return server, int(bound)

    async def _build(self, address: str, admitted: int) -> tuple[Any, int]:
        """The server and the port bound (0: failed)."""
        grpc = self._grpc
        calls = SamplingCalls(grpc, self.cached, self.message_for, self._pool, self._request_timeout_s)
        handlers = calls.handlers()
        options = [
            ("grpc.max_receive_message_length", MAX_REQUEST_BYTES),
            ("grpc.max_concurrent_streams", MAX_PENDING_CALLS),  # the module docstring
            ("grpc.so_reuseport", 0),
            # arrived calls the loop has not picked up: grpcio's default cancels past 1,000
            ("grpc.server.max_pending_requests", MAX_PENDING_CALLS),
            ("grpc.server.max_pending_requests_hard_limit", 2 * MAX_PENDING_CALLS),
        ]
        server = grpc.aio.server(handlers=handlers, options=options, maximum_concurrent_rpcs=admitted)
        bound = 0
        try:
            bound = server.add_insecure_port(address)
        except RuntimeError as exc:  # grpcio >= 1.50 raises; older ones return 0
            _log.debug("dsampler serve: gRPC bind of %s failed: %s", address, exc)
        if not bound:
            await server.stop(None)
        return server, bound

    def _call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(_LOOP_WAIT_S)

    def _end_loop(self) -> None:
        if self._loop.is_running():
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(_LOOP_WAIT_S)
        if not self._thread.is_alive():
            self._loop.close()
        self._pool.shutdown(wait=False, cancel_futures=True)  # a callable source may block: not close()

    @property
    def strategies(self) -> Strategies:
        """The strategies served now."""
        source = self._source
        if isinstance(source, StrategiesFile):
            return source.current
        return source if isinstance(source, Strategies) else source()

    @property
    def port(self) -> int:
        return self._port

    @property
    def url(self) -> str:
        """``grpc://HOST:PORT``, what the CLI prints (OpenTelemetry Java wants ``http://HOST:PORT``)."""
        host = self._host
        return f"grpc://[{host}]:{self.port}" if ":" in host else f"grpc://{host}:{self.port}"

    def message_for(self, service: str) -> bytes:
        """The encoded ``SamplingStrategyResponse`` for ``service`` (once per loaded file)."""
        return self._messages.for_service(self.strategies, service)

    def cached(self, service: str) -> bytes | None:
        """:meth:`message_for` if made already, else None (never encodes or calls a source)."""
        if not isinstance(self._source, (StrategiesFile, Strategies)):
            return None
        return self._messages.cached(self.strategies, service)

    def start(self) -> GrpcStrategiesServer:
        """Serve from the server's loop thread; returns self (idempotent)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the gRPC server is closed")
            if self._forked:
                raise RuntimeError("a gRPC server serves only in the process that built it (os.fork)")
            if not self._started:
                if self._owned is not None:
                    self._owned.start()
                self._call(self._server.start())
                self._started = True
        return self

    def close(self) -> None:
        """Stop serving (in-flight RPCs get a second) and release the port (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if self._forked:  # nothing of grpcio's runs here to stop or wait for
            if self._owned is not None:
                self._owned.stop()
            return
        try:
            self._call(self._server.stop(_STOP_GRACE_S))
        finally:
            self._end_loop()
            if self._owned is not None:
                self._owned.stop()

    def _reset_after_fork(self) -> None:
        self._lock = threading.Lock()
        self._forked = True

    def __enter__(self) -> GrpcStrategiesServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
