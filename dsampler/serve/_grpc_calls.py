"""The gRPC server's calls as grpcio asyncio handlers, answered as Jaeger's handler does;
undecodable requests get ``INVALID_ARGUMENT``. ``Health/Check`` as Jaeger v2; no ``Watch``.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from types import ModuleType
from typing import Any, Final

from dsampler.errors import ConfigError
from dsampler.protocol import decode_params, last, read_text

SERVICE: Final = "jaeger.api_v2.SamplingManager"
GET_SAMPLING_STRATEGY: Final = f"/{SERVICE}/GetSamplingStrategy"
MISSING_GRPC: Final = (
    "gRPC needs grpcio, which is not installed: install dsampler's grpc extra (pip install grpcio)"
)
_SERVING: Final = b"\x08\x01"  # HealthCheckResponse{status: SERVING (1)}
_HEALTHY: Final = frozenset({"", SERVICE})


def import_grpc() -> ModuleType:
    """``grpc``, or an :class:`ImportError` (``name`` "grpc") saying which extra to install."""
    try:
        import grpc
    except ImportError as exc:
        raise ModuleNotFoundError(MISSING_GRPC, name="grpc") from exc
    module: ModuleType = grpc
    return module


def bind_problem(host: str, port: int, address: str) -> OSError | None:
    """Why ``address`` cannot be bound, or None: asked around grpcio's bind, which says only
    that it failed (and on stderr)."""
    try:
        family, kind, _, _, where = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        with socket.socket(family, kind) as probe:  # the family the name resolves to first
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(where)
    except OSError as exc:  # socket.gaierror too: a name that does not resolve
        return OSError(exc.errno, exc.strerror or str(exc), address)
    return None


class SamplingCalls:
    """``GetSamplingStrategy`` and ``Health/Check``, stream-unary handlers whose one request
    message must arrive within ``request_timeout_s``.

    Args:
        grpc: the grpcio module.
        cached: service -> its encoded response if made already, else None (on the loop).
        message_for: service -> its encoded response, made if need be (on ``pool``'s threads).
        pool: the threads ``message_for`` runs on.
        request_timeout_s: how long a call may take to send its request.
    """

    def __init__(
        self,
        grpc: ModuleType,
        cached: Callable[[str], bytes | None],
        message_for: Callable[[str], bytes],
        pool: ThreadPoolExecutor,
        request_timeout_s: float,
    ) -> None:
        self._grpc = grpc
        self.cached = cached
        self.message_for = message_for
        self._pool = pool
        self._request_timeout_s = request_timeout_s

    def handlers(self) -> list[Any]:
        """The generic handlers to build a server with."""
        grpc = self._grpc
        return [
            grpc.method_handlers_generic_handler(
                SERVICE, {"GetSamplingStrategy": grpc.stream_unary_rpc_method_handler(self._get)}
            ),
            grpc.method_handlers_generic_handler(
                "grpc.health.v1.Health", {"Check": grpc.stream_unary_rpc_method_handler(self._check)}
            ),
        ]

    async def _request(self, requests: Any, context: Any) -> bytes:
        """The call's one request message, waited for at most ``request_timeout_s``."""
        status = self._grpc.StatusCode
        try:
            request = await asyncio.wait_for(requests.__anext__(), self._request_timeout_s)
        except asyncio.TimeoutError:
            await context.abort(
                status.DEADLINE_EXCEEDED, f"no request message within {self._request_timeout_s:g} s"
            )
        except StopAsyncIteration:
            await context.abort(status.INVALID_ARGUMENT, "no request message")
        return bytes(request)

    async def _get(self, requests: Any, context: Any) -> bytes:
        request = await self._request(requests, context)
        try:
            service = decode_params(request)
        except ConfigError as exc:
            await context.abort(self._grpc.StatusCode.INVALID_ARGUMENT, f"SamplingStrategyParameters: {exc}")
        answer = self.cached(service)  # an identity check and two dict lookups
        if answer is None:  # to encode, or a callable source, which may block: not on the loop
            answer = await asyncio.get_running_loop().run_in_executor(self._pool, self.message_for, service)
        return answer

    async def _check(self, requests: Any, context: Any) -> bytes:
        request = await self._request(requests, context)
        try:
            service = last(request, "HealthCheckRequest", 1, read_text, "HealthCheckRequest.service", "")
        except ConfigError as exc:
            await context.abort(self._grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        if service not in _HEALTHY:
            await context.abort(self._grpc.StatusCode.NOT_FOUND, "unknown service")
        return _SERVING
