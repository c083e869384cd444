"""One deadline over a request's socket work: a host name is resolved in a daemon thread
(``getaddrinfo`` has no timeout; at most ``MAX_RESOLVING`` wait at once), and every socket
read waits at most until the deadline, so a server that trickles bytes is cut off.
"""

from __future__ import annotations

import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

from dsampler import _fork
from dsampler._held import start_holding

AddrInfo = tuple[Any, ...]  # one entry of socket.getaddrinfo's answer
#: ``getaddrinfo(host, port, family, type)``, as :func:`socket.getaddrinfo`.
Resolver = Callable[[str, int, int, int], Sequence[AddrInfo]]

MAX_RESOLVING: Final = 8


#: The process's resolution slots, all free again in a forked child.
_SLOTS: Final = _fork.ModuleLock(lambda: threading.BoundedSemaphore(MAX_RESOLVING))


def remaining(deadline: float) -> float:
    """Seconds left until ``deadline`` (monotonic); TimeoutError once it has passed."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("deadline passed")
    return left


class DeadlineSocket(socket.socket):
    """A socket whose every read waits at most until ``deadline`` (monotonic)."""

    deadline: float = 0.0

    def _arm(self) -> None:
        self.settimeout(remaining(self.deadline))

    def recv_into(self, buffer: Any, nbytes: int = 0, flags: int = 0) -> int:
        self._arm()
        return super().recv_into(buffer, nbytes, flags)

    def recv(self, bufsize: int, flags: int = 0) -> bytes:
        self._arm()
        return super().recv(bufsize, flags)


class DeadlineSSLSocket(ssl.SSLSocket):
    deadline: float = 0.0

    def recv_into(self, buffer: Any, nbytes: int | None = None, flags: int = 0) -> int:
        self.settimeout(remaining(self.deadline))
        return super().recv_into(buffer, nbytes, flags)


def resolve(
    host: str, port: int, deadline: float, resolver: Resolver, wake: threading.Event
) -> Sequence[AddrInfo]:
    """The stream addresses of ``host``, waited for until ``deadline`` (TimeoutError) or
    ``wake`` (InterruptedError); OSError for the resolver's failure or a malformed answer."""
    if _is_literal(host):  # getaddrinfo answers at once, without asking any resolver
        return socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM, 0, socket.AI_NUMERICHOST)
    slots = _SLOTS.lock  # released to the semaphore it was taken from
    if not slots.acquire(blocking=False):
        raise OSError(f"{MAX_RESOLVING} name resolutions are still waiting for the resolver")
    answer: list[Sequence[AddrInfo] | BaseException] = []

    def run() -> None:
        try:
            answer.append(resolver(host, port, 0, socket.SOCK_STREAM))
        except BaseException as exc:  # handed to the waiting request
            answer.append(exc)
        finally:
            wake.set()

    try:
        start_holding(slots, run, name="dsampler-resolve")
    except RuntimeError:  # no thread to be had (interpreter shutting down)
        raise OSError(f"no thread to resolve {host}") from None
    wake.wait(remaining(deadline))
    return _answered(host, answer, wake)


def _is_literal(host: str) -> bool:
    """An IP address (with an IPv6 zone, ``fe80::1%eth0``), not a name."""
    try:
        ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        return False
    return True


def _answered(
    host: str, answer: list[Sequence[AddrInfo] | BaseException], wake: threading.Event
) -> list[AddrInfo]:
    """The resolver thread's answer, or why there is none."""
    if not answer:
        if wake.is_set():
            raise InterruptedError(f"resolving {host} was aborted")
        raise TimeoutError(f"resolving {host}")
    result = answer[0]
    if isinstance(result, BaseException):
        if isinstance(result, OSError):
            raise result
        raise OSError(f"resolving {host}: {type(result).__name__}: {result}") from result
    return _checked(host, result)


def _checked(host: str, result: object) -> list[AddrInfo]:
    """The resolver's answer as a list of address entries, or OSError."""
    expected = f"resolving {host}: expected a list of (family, type, proto, canonname, sockaddr) tuples"
    if isinstance(result, (str, bytes)) or not isinstance(result, Iterable):
        raise OSError(f"{expected}, got {type(result).__name__}")
    entries = list(result)
    for entry in entries:
        if not (
            isinstance(entry, tuple)
            and len(entry) == 5
            and all(isinstance(n, int) for n in entry[:3])
            and isinstance(entry[4], tuple)
        ):
            raise OSError(f"{expected}, got an entry {repr(entry)[:100]}")
    return entries
