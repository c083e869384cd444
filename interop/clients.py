"""The real clients, run as programs (built by :mod:`interop.build`), and dsampler's own
decisions on the same trace IDs, for the scenarios to compare.

Each program polls one service's strategy and prints one JSON line (``got_strategy``,
``sampler``, ``effective``: what a probe decision showed per operation, ``decisions``:
a ``0``/``1`` string per operation over the trace IDs, ``errors``: what it logged).
"""

from __future__ import annotations

import json
import random
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from dsampler.protocol import Strategy
from dsampler.remote import JaegerRemoteSampler

IDS: Final = 10_000
# The strategies file of the client scenarios: probabilistic, per-operation, rate limiting.
STRATEGIES: Final = {
    "default_strategy": {"type": "probabilistic", "param": 0.5},
    "service_strategies": [
        {"service": "svc-prob", "type": "probabilistic", "param": 0.37},
        {
            "service": "svc-ops",
            "type": "probabilistic",
            "param": 0.2,
            "operation_strategies": [
                {"operation": "GET /a", "type": "probabilistic", "param": 0.6},
                {"operation": "GET /b", "type": "probabilistic", "param": 0.05},
                {"operation": "/health", "type": "probabilistic", "param": 0.0},
            ],
        },
        {"service": "svc-rl", "type": "ratelimiting", "param": 7},
    ],
}
OPS: Final = ("GET /a", "GET /b", "/health", "other")
# Each operation's rate, by service (svc-rl is not decided by trace ID).
RATES: Final = {
    "svc-prob": dict.fromkeys(OPS, 0.37),
    "svc-ops": {"GET /a": 0.6, "GET /b": 0.05, "/health": 0.0, "other": 0.2},
}
MASK64: Final = (1 << 64) - 1


def trace_ids(count: int = IDS, seed: int = 18) -> list[int]:
    """``count`` random 128-bit trace IDs (seeded; none with 64 zero low bits)."""
    rng = random.Random(seed)
    ids: list[int] = []
    while len(ids) < count:
        value = rng.getrandbits(128)
        if value & MASK64:
            ids.append(value)
    return ids


def write_ids(path: Path, ids: Sequence[int]) -> Path:
    path.write_text("".join(f"{value:032x}\n" for value in ids))
    return path


@dataclass(frozen=True)
class Client:
    """How to run one client program against an engine."""

    name: str  # otel-go, jaeger-go, otel-java, otel-js
    component: str  # its build (interop.build)
    transport: str  # http or grpc

    def command(
        self,
        built: Path,
        engine_url: str,
        service: str,
        ops: Sequence[str],
        ids: Path | None,
        interval_ms: int,
        wait_s: float,
    ) -> list[str]:
        ops_arg = ",".join(ops)
        if self.name in ("otel-go", "jaeger-go"):
            binary = built / "bin" / ("otelgo" if self.name == "otel-go" else "jaegergo")
            args = [str(binary), "-url", engine_url, "-service", service, "-ops", ops_arg,
                    "-interval", f"{interval_ms}ms", "-wait", f"{wait_s:g}s"]  # fmt: skip
            return args + (["-ids", str(ids)] if ids else [])
        tail = ["--service", service, "--ops", ops_arg, "--interval-ms", str(interval_ms),
                "--wait-ms", str(int(wait_s * 1000))]  # fmt: skip
        tail += ["--ids", str(ids)] if ids else []
        if self.name == "otel-java":
            classpath = f"{built / 'target' / 'classes'}:{built / 'lib'}/*"
            return ["java", "-cp", classpath, "interop.JavaClient", "--endpoint", engine_url, *tail]
        return ["node", str(built / "client.mjs"), "--endpoint", engine_url, *tail]


OTEL_GO: Final = Client("otel-go", "go-clients", "http")
JAEGER_GO: Final = Client("jaeger-go", "go-clients", "http")
OTEL_JAVA: Final = Client("otel-java", "java", "grpc")
OTEL_JS: Final = Client("otel-js", "js", "http")


def endpoint_for(client: Client, sampling_url: str, grpc_port: int) -> str:
    """What the client is pointed at: the sampling URL, gRPC's address, or (JS, which
    appends ``/sampling`` itself) the URL without its path."""
    if client.transport == "grpc":
        return f"http://127.0.0.1:{grpc_port}"
    if client.name == "otel-js":
        return sampling_url.rsplit("/sampling", 1)[0]
    return sampling_url


def run(
    client: Client,
    built: Path,
    engine_url: str,
    service: str,
    ops: Sequence[str],
    ids: Path | None = None,
    *,
    interval_ms: int = 200,
    wait_s: float = 15.0,
) -> dict[str, Any]:
    """Run the client once; its report (``errors`` gets stderr when it failed)."""
    command = client.command(built, engine_url, service, ops, ids, interval_ms, wait_s)
    done = subprocess.run(command, capture_output=True, text=True, timeout=wait_s + 60, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise AssertionError(f"{client.name} exited {done.returncode}: {done.stderr[-2000:]}")
    report: dict[str, Any] = json.loads(lines[-1])
    return report


def dsampler_decisions(
    strategy: Strategy, rule: str, ops: Sequence[str], ids: Sequence[int]
) -> dict[str, str]:
    """dsampler's decisions (``JaegerRemoteSampler`` following ``strategy`` with the
    ``rule`` hash) for every operation and trace ID, as the programs print them."""
    sampler = JaegerRemoteSampler(
        service_name="interop", initial_sampler=strategy, hash=rule, parent_based=False, start=False
    )
    try:
        return {
            op: "".join(
                "1" if sampler.should_sample(None, tid, op).decision.is_sampled() else "0" for tid in ids
            )
            for op in ops
        }
    finally:
        sampler.close()
