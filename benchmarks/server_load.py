"""Load for a strategies server: N concurrent clients polling ``GET /sampling?service=``.

    python benchmarks/server_load.py --url http://127.0.0.1:5778 --concurrency 50 --seconds 5
    python benchmarks/server_load.py --serve tests/data/jaeger/operation_strategies.json

One asyncio process drives every client (so the load generator is one core, not 50
threads fighting over a GIL). Each client sends a request, reads the whole response,
checks it is a 200, and sends the next: over one kept-alive connection each (OTel Go's
http.Client) or, with ``--new-connections``, a fresh connection per request
(jaeger-client's tornado client). Prints one JSON line: requests, errors, seconds,
requests per second. ``--serve FILE`` starts ``dsampler serve`` on a free port first.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Coroutine
from typing import Any, TypeVar
from urllib.parse import urlsplit

T = TypeVar("T")

SERVICES = ("foo", "bar", "checkout", "unknown-service")


async def _read_response(reader: asyncio.StreamReader) -> int:
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = 0
    for line in head.split(b"\r\n"):
        if line[:15].lower() == b"content-length:":
            length = int(line[15:])
    await reader.readexactly(length)
    return status


async def _client(host: str, port: int, index: int, stop_at: float, new_connections: bool) -> tuple[int, int]:
    done = errors = 0
    request = f"GET /sampling?service={SERVICES[index % len(SERVICES)]} HTTP/1.1\r\nHost: {host}\r\n"
    request += "Connection: close\r\n\r\n" if new_connections else "\r\n"
    payload = request.encode()
    reader = writer = None
    while time.monotonic() < stop_at:
        try:
            if writer is None:
                reader, writer = await asyncio.open_connection(host, port)
            assert reader is not None
            writer.write(payload)
            status = await _read_response(reader)
            done += 1
            errors += status != 200
            if new_connections:
                writer.close()
                writer = None
        except (OSError, asyncio.IncompleteReadError, ValueError):
            errors += 1
            writer = None
    if writer is not None:
        writer.close()
    return done, errors


async def _load(url: str, concurrency: int, seconds: float, new_connections: bool) -> dict[str, float]:
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    started = time.monotonic()
    results = await asyncio.gather(
        *(_client(host, port, i, started + seconds, new_connections) for i in range(concurrency))
    )
    elapsed = time.monotonic() - started
    requests = sum(done for done, _ in results)
    errors = sum(failed for _, failed in results)
    return {"requests": requests, "errors": errors, "seconds": elapsed, "requests_per_s": requests / elapsed}


def run_apart(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)`` on a loop of its own, leaving the thread's event loop as it
    was: ``asyncio.run`` leaves none, and in the test process (``make test`` runs the
    benchmarks beside the suite) jaeger-client's tornado then finds no loop in the main
    thread and every later jaeger-client test fails."""
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(coro)
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()


def run_load(
    url: str, concurrency: int = 50, seconds: float = 5.0, new_connections: bool = False
) -> dict[str, float]:
    """Drive the server at ``url``; the counts and the rate."""
    return run_apart(_load(url, concurrency, seconds, new_connections))


def serve_urls(path: str | None, *flags: str) -> tuple[subprocess.Popen[str], list[str]]:
    """`dsampler serve` on a free port with ``flags`` (its log discarded); it and the URL
    of each listener (HTTP, then gRPC with ``--grpc-port``)."""
    args = [sys.executable, "-m", "dsampler", "serve", "--port", "0", *flags]
    args += ["--strategies", path] if path else []
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    lines = [proc.stdout.readline() for _ in range(1 + ("--grpc-port" in flags))]
    if not all("listening on " in line for line in lines):
        proc.kill()
        raise SystemExit(f"dsampler serve did not start: {lines!r}")
    return proc, [line.split("listening on ", 1)[1].split()[0] for line in lines]


def serve(path: str | None) -> tuple[subprocess.Popen[str], str]:
    """`dsampler serve` on a free port (its log discarded); it and its URL."""
    proc, (url,) = serve_urls(path)
    return proc, url


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--url", help="a running server")
    target.add_argument("--serve", metavar="FILE", help="start dsampler serve on FILE first")
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--new-connections", action="store_true", help="a connection per request")
    args = parser.parse_args()
    proc = None
    url = args.url
    if args.serve:
        proc, url = serve(args.serve)
    try:
        print(json.dumps(run_load(url, args.concurrency, args.seconds, args.new_connections)))
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()
