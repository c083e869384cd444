"""Name resolution is bounded by the request timeout: a resolver that hangs fails the
poll at its deadline, close() does not wait for it, and a literal host is never
resolved. The resolver is a hook (``HttpFetcher(resolver=...)``) that blocks on an
event the test holds, so the hang is deterministic and ends when the test says so."""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from dsampler.errors import FetchError
from dsampler.remote import HttpFetcher, PollOutcome
from dsampler.remote._poll import StrategyPoller
from dsampler.remote._resolve import MAX_RESOLVING
from tests.remote_servers import Answer, body, serving

GOOD = body({"strategyType": "PROBABILISTIC", "probabilisticSampling": {"samplingRate": 0.25}})


class HangingResolver:
    """Blocks every call until ``release`` is set (at most 60 s: never forever)."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.calls: list[str] = []

    def __call__(self, host: str, port: int, family: int, kind: int) -> Sequence[tuple[Any, ...]]:
        self.calls.append(host)
        self.entered.set()
        self.release.wait(60)
        raise socket.gaierror(socket.EAI_AGAIN, "released by the test")


@pytest.fixture
def hanging() -> Iterator[HangingResolver]:
    resolver = HangingResolver()
    try:
        yield resolver
    finally:
        resolver.release.set()
        for thread in threading.enumerate():
            if thread.name == "dsampler-resolve":
                thread.join(10)


def test_a_resolver_that_hangs_fails_the_fetch_at_its_deadline(hanging: HangingResolver) -> None:
    fetcher = HttpFetcher("http://agent.invalid:5778/sampling", timeout_s=0.2, resolver=hanging)
    with pytest.raises(FetchError, match=r"GET http://agent\.invalid:5778/sampling\?service=svc: timed out"):
        fetcher.fetch("svc")
    assert hanging.calls == ["agent.invalid"]
    assert not hanging.release.is_set()  # the fetch returned while the resolver still hung


def test_close_does_not_wait_for_a_hanging_resolver(hanging: HangingResolver) -> None:
    """A 30 s request timeout: the poll thread is blocked resolving; close() aborts the
    wait and the thread ends while the resolver still hangs; the poll it aborted is
    CLOSED, no failure."""
    fetcher = HttpFetcher("http://agent.invalid:5778/sampling", timeout_s=30, resolver=hanging)
    poller = StrategyPoller(fetcher, "svc", lambda strategy: True, interval_s=3600)
    poller.start()
    thread = poller._thread._thread
    assert thread is not None
    assert hanging.entered.wait(10)
    poller.close()
    assert not thread.is_alive()
    assert not hanging.release.is_set()
    assert poller.outcomes[PollOutcome.CLOSED] == 1
    assert (poller.failures, poller.last_error) == (0, None)


def test_resolutions_waiting_on_a_hung_resolver_are_capped(hanging: HangingResolver) -> None:
    """Each timed-out poll leaves its resolver thread; past the cap a poll fails at once
    instead of piling up threads, and says why."""
    fetcher = HttpFetcher("http://agent.invalid:5778/sampling", timeout_s=0.05, resolver=hanging)
    for _ in range(MAX_RESOLVING):
        with pytest.raises(FetchError, match="timed out"):
            fetcher.fetch("svc")
    with pytest.raises(FetchError, match=f"{MAX_RESOLVING} name resolutions are still waiting"):
        fetcher.fetch("svc")
    assert len(hanging.calls) == MAX_RESOLVING


def test_a_literal_host_is_never_resolved() -> None:
    def refuse(*args: object) -> Sequence[tuple[Any, ...]]:
        raise AssertionError(f"resolver called for {args}")

    with serving(Answer(GOOD)) as server:
        assert HttpFetcher(server.url, timeout_s=5, resolver=refuse).fetch("svc") == GOOD
    with pytest.raises(FetchError, match="ConnectionRefusedError"):
        HttpFetcher("http://[::1]:1/sampling", timeout_s=5, resolver=refuse).fetch("svc")


def test_a_name_is_resolved_and_each_address_tried() -> None:
    """``localhost`` through the system resolver; an address that refuses (``::1``
    where the server listens on 127.0.0.1 only) gives way to the next one."""
    answers: list[str] = []

    def both(host: str, port: int, family: int, kind: int) -> Sequence[tuple[Any, ...]]:
        answers.append(host)
        v6 = (socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("::1", port, 0, 0))
        v4 = (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))
        return [v6, v4]

    with serving(Answer(GOOD)) as server:
        url = server.url.replace("127.0.0.1", "localhost")
        assert HttpFetcher(url, timeout_s=5).fetch("svc") == GOOD
        assert HttpFetcher(url, timeout_s=5, resolver=both).fetch("svc") == GOOD
    assert answers == ["localhost"]


def test_an_entry_no_socket_can_be_made_for_gives_way_to_the_next() -> None:
    """An entry whose family no socket can have (out of C's range, or unknown) is
    skipped like an address that refuses: the next entry is tried."""

    def odd_first(host: str, port: int, family: int, kind: int) -> Sequence[tuple[Any, ...]]:
        v4 = (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))
        return [
            (2**40, socket.SOCK_STREAM, 0, "", ("127.0.0.1", port)),
            (9999, socket.SOCK_STREAM, 0, "", ()),
            v4,
        ]

    with serving(Answer(GOOD)) as server:
        url = server.url.replace("127.0.0.1", "agent.invalid")
        assert HttpFetcher(url, timeout_s=5, resolver=odd_first).fetch("svc") == GOOD


def test_a_resolver_failure_is_a_fetch_error_naming_the_url() -> None:
    def fail(host: str, port: int, family: int, kind: int) -> Sequence[tuple[Any, ...]]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    with pytest.raises(FetchError, match=r"GET http://nowhere\.invalid/sampling\?service=svc: gaierror"):
        HttpFetcher("http://nowhere.invalid", timeout_s=5, resolver=fail).fetch("svc")


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (None, "expected a list of"),
        (5, "expected a list of"),
        ("127.0.0.1", "expected a list of"),
        ([(1, 2, 3)], "expected a list of"),
        ([("x", socket.SOCK_STREAM, 0, "", ("127.0.0.1", 1))], "expected a list of"),
        ([(socket.AF_INET, socket.SOCK_STREAM, 0, "", "127.0.0.1")], "expected a list of"),
        ([(socket.AF_INET, socket.SOCK_STREAM, 0, "", ("127.0.0.1",))], "unusable address"),
        ([(socket.AF_INET, socket.SOCK_STREAM, 0, "", ("127.0.0.1", "http"))], "unusable address"),
        ([(2**40, socket.SOCK_STREAM, 0, "", ("127.0.0.1", 1))], "unusable address"),  # OverflowError
    ],
)
def test_a_resolver_answering_junk_fails_the_poll_naming_the_url(answer: Any, said: str) -> None:
    """A resolver hook that returns the wrong shape or types: a FetchError naming the
    URL (a TypeError escaped fetch(), so the poller counted no failure and kept none)."""

    def junk(host: str, port: int, family: int, kind: int) -> Any:
        return answer

    fetcher = HttpFetcher("http://agent.invalid:5778/sampling", timeout_s=5, resolver=junk)
    with pytest.raises(FetchError, match=r"GET http://agent\.invalid:5778/sampling\?service=svc: ") as caught:
        fetcher.fetch("svc")
    assert said in str(caught.value)
    poller = StrategyPoller(fetcher, "svc", lambda strategy: True, interval_s=3600)
    assert poller.poll_once() is PollOutcome.FAILED
    assert said in (poller.last_error or "")


def _link_local() -> tuple[str, str] | None:
    """A link-local IPv6 address of this host and its interface's name (Linux)."""
    try:
        with open("/proc/net/if_inet6", encoding="ascii") as table:
            rows = [line.split() for line in table]
    except OSError:
        return None
    for row in rows:
        if len(row) == 6 and row[0].startswith("fe80"):
            return str(ipaddress.ip_address(int(row[0], 16))), row[5]
    return None


def test_an_ipv6_zone_written_as_rfc_6874_says_is_used_and_not_sent() -> None:
    """``http://[fe80::...%25eth0]:PORT``: a URL writes the zone's ``%`` as ``%25``
    (RFC 6874; Go's net/url reads it so), the system wants ``fe80::...%eth0``: the
    ``25`` was handed to getaddrinfo as part of the interface name (gaierror: Name or
    service not known). The zone is the client's own: the Host header goes without it."""
    found = _link_local()
    if found is None:
        pytest.skip("no link-local IPv6 address")
    address, interface = found
    try:
        listener = socket.create_server(
            (address, 0, 0, socket.if_nametoindex(interface)), family=socket.AF_INET6
        )
    except OSError as exc:
        pytest.skip(f"cannot listen on {address}%{interface}: {exc}")
    heads: list[bytes] = []

    def answer() -> None:
        listener.settimeout(30)
        with contextlib.suppress(OSError), listener.accept()[0] as conn:
            conn.settimeout(30)
            head = b""
            while b"\r\n\r\n" not in head and len(head) < 65536:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                head += chunk
            heads.append(head)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(GOOD) + GOOD)

    port = listener.getsockname()[1]
    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        fetcher = HttpFetcher(f"http://[{address}%25{interface}]:{port}/sampling", timeout_s=10)
        assert fetcher.fetch("svc") == GOOD
    finally:
        if not heads:  # wake the accept: closing the listener does not
            with contextlib.suppress(OSError):
                socket.create_connection((address, port, 0, listener.getsockname()[3]), timeout=5).close()
        listener.close()
        thread.join(30)
    assert f"\r\nHost: [{address}]:{port}\r\n".encode() in heads[0]
