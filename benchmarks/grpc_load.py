"""Load for the gRPC strategies server: N concurrent clients calling
``jaeger.api_v2.SamplingManager/GetSamplingStrategy``, as OpenTelemetry Java polls it.

    python benchmarks/grpc_load.py --target 127.0.0.1:5779 --concurrency 50 --seconds 5
    python benchmarks/grpc_load.py --serve tests/data/jaeger/operation_strategies.json

One asyncio process (grpc.aio) drives every client, each on its own channel and so its
own HTTP/2 connection (a fleet's processes do not share one), one call in flight per
client; each answer is checked to decode. Prints one JSON line: requests, errors,
seconds, requests per second. ``--serve FILE`` starts ``dsampler serve --grpc-port 0``
first; ``server_load.py`` is the HTTP counterpart.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import time

import grpc
from server_load import run_apart, serve_urls

from dsampler.errors import ConfigError
from dsampler.protocol._proto import decode_response, encode_params
from dsampler.serve._grpc_calls import GET_SAMPLING_STRATEGY

SERVICES = ("foo", "bar", "checkout", "unknown-service")


async def _client(target: str, index: int, stop_at: float) -> tuple[int, int]:
    done = errors = 0
    request = encode_params(SERVICES[index % len(SERVICES)])
    options = [("grpc.use_local_subchannel_pool", 1)]  # a connection of its own
    async with grpc.aio.insecure_channel(target, options=options) as channel:
        call = channel.unary_unary(GET_SAMPLING_STRATEGY)
        while time.monotonic() < stop_at:
            try:
                decode_response(await call(request, timeout=10))
                done += 1
            except (grpc.RpcError, ConfigError):
                errors += 1
    return done, errors


async def _load(target: str, concurrency: int, seconds: float) -> dict[str, float]:
    started = time.monotonic()
    results = await asyncio.gather(*(_client(target, i, started + seconds) for i in range(concurrency)))
    elapsed = time.monotonic() - started
    requests = sum(done for done, _ in results)
    errors = sum(failed for _, failed in results)
    return {"requests": requests, "errors": errors, "seconds": elapsed, "requests_per_s": requests / elapsed}


def run_grpc_load(target: str, concurrency: int = 50, seconds: float = 5.0) -> dict[str, float]:
    """Drive the gRPC server at ``target`` (``HOST:PORT``); the counts and the rate."""
    return run_apart(_load(target, concurrency, seconds))


def serve_grpc(path: str | None) -> tuple[subprocess.Popen[str], str, str]:
    """`dsampler serve --grpc-port 0` (its log discarded); it, its HTTP URL and gRPC target."""
    proc, (url, target) = serve_urls(path, "--grpc-port", "0")
    return proc, url, target.removeprefix("grpc://")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--target", help="a running gRPC server, HOST:PORT")
    where.add_argument("--serve", metavar="FILE", help="start dsampler serve --grpc-port 0 on FILE first")
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    proc = None
    target = args.target
    if args.serve:
        proc, _, target = serve_grpc(args.serve)
    try:
        print(json.dumps(run_grpc_load(target, args.concurrency, args.seconds)))
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()
