"""The engines, run for real on 127.0.0.1: Jaeger v2, the OpenTelemetry Collector and
``dsampler serve``, each on ports chosen free, stopped by whoever started them.

Jaeger and the Collector run the very configurations shipped in ``examples/collectors/``:
every listener there reads its address from the environment (``${env:SAMPLING_HTTP:-...}``),
so a scenario sets each one to a free loopback port and nothing else listens.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

REPO: Final = Path(__file__).resolve().parents[1]
EXAMPLES: Final = REPO / "examples" / "collectors"
JAEGER_FILE: Final = EXAMPLES / "jaeger-file.yaml"
JAEGER_ADAPTIVE: Final = EXAMPLES / "jaeger-adaptive.yaml"
OTELCOL_FILE: Final = EXAMPLES / "otelcol.yaml"
OTELCOL_REMOTE: Final = EXAMPLES / "otelcol-remote.yaml"
START_TIMEOUT_S: Final = 30.0


def free_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def lifeline(command: list[str]) -> list[str]:
    """``command`` run so that it is killed if the test process dies before stopping it
    (SIGKILL, or a SIGTERM the process did not survive to handle): Linux's parent-death
    signal, set by util-linux's ``setpriv``, which then executes the command in its place
    (same process id). Where ``setpriv`` is missing, ``command`` as it is."""
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "KILL", "--", *command] if setpriv else command


def get(url: str, timeout_s: float = 5.0) -> tuple[int, bytes, str]:
    """(status, body, content type) of ``GET url``; status 0 when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response:
            return response.status, response.read(), response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), exc.headers.get("Content-Type", "")
    except (OSError, urllib.error.URLError):
        return 0, b"", ""


@dataclass
class Engine:
    """One running engine: its sampling URLs and ports, its process, its log."""

    name: str
    command: list[str]
    env: dict[str, str]
    sampling_url: str  # http://127.0.0.1:P/sampling
    grpc_port: int
    otlp_http: str = ""  # 127.0.0.1:P
    query_url: str = ""  # Jaeger's query API, http://127.0.0.1:P
    log: Path = field(default_factory=lambda: Path(tempfile.mkstemp(suffix=".log")[1]))
    proc: subprocess.Popen[bytes] | None = None

    def url_for(self, service: str) -> str:
        return f"{self.sampling_url}?service={service}"

    def start(self) -> Engine:
        """Start it and wait until its sampling endpoint answers."""
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                lifeline(self.command), stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **self.env}
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited {self.proc.returncode}:\n{self.tail()}")
            if get(self.url_for("interop-ready"), timeout_s=1.0)[0] == 200:
                return self
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{self.name} did not answer on {self.sampling_url}:\n{self.tail()}")

    def stop(self) -> None:
        """Stop it (SIGTERM, then SIGKILL after 10 s); idempotent."""
        proc, self.proc = self.proc, None
        stop_process(proc, grace_s=10)

    def tail(self, lines: int = 30) -> str:
        return log_tail(self.log, lines)


def stop_process(proc: subprocess.Popen[bytes] | None, grace_s: float) -> None:
    """SIGTERM, then SIGKILL after ``grace_s``; nothing for a process gone or never started."""
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def log_tail(log: Path, lines: int = 30) -> str:
    """The last ``lines`` of a process's log, for an error message."""
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


def _collector_env(strategies: Path | None, reload_s: float) -> tuple[dict[str, str], int, int]:
    http, grpc = free_port(), free_port()
    env = {
        "SAMPLING_HTTP": f"127.0.0.1:{http}",
        "SAMPLING_GRPC": f"127.0.0.1:{grpc}",
        "OTLP_GRPC": f"127.0.0.1:{free_port()}",
        "OTLP_HTTP": f"127.0.0.1:{free_port()}",
        "STRATEGIES_RELOAD_INTERVAL": f"{reload_s:g}s",
    }
    if strategies is not None:
        env["STRATEGIES_FILE"] = str(strategies)
    return env, http, grpc


def jaeger(
    binary: Path,
    strategies: Path | None = None,
    *,
    reload_s: float = 0.2,
    config: Path = JAEGER_FILE,
    extra_env: Mapping[str, str] | None = None,
) -> Engine:
    """Jaeger v2 (not started) with ``config``: the file provider on ``strategies``."""
    env, http, grpc = _collector_env(strategies, reload_s)
    query = free_port()
    env |= {"JAEGER_QUERY_HTTP": f"127.0.0.1:{query}", "JAEGER_QUERY_GRPC": f"127.0.0.1:{free_port()}"}
    env |= dict(extra_env or {})
    return Engine(
        "jaeger",
        [str(binary), "--config", str(config)],
        env,
        f"http://127.0.0.1:{http}/sampling",
        grpc,
        otlp_http=env["OTLP_HTTP"],
        query_url=f"http://127.0.0.1:{query}",
    )


def otelcol(binary: Path, strategies: Path, *, reload_s: float = 0.2) -> Engine:
    """The OpenTelemetry Collector (not started) serving ``strategies``."""
    env, http, grpc = _collector_env(strategies, reload_s)
    return Engine(
        "otelcol",
        [str(binary), "--config", str(OTELCOL_FILE)],
        env,
        f"http://127.0.0.1:{http}/sampling",
        grpc,
        otlp_http=env["OTLP_HTTP"],
    )


def otelcol_remote(binary: Path, upstream_grpc_port: int, *, reload_s: float = 0.2) -> Engine:
    """The OpenTelemetry Collector (not started) asking an upstream over gRPC."""
    env, http, grpc = _collector_env(None, reload_s)
    env["UPSTREAM_GRPC"] = f"127.0.0.1:{upstream_grpc_port}"
    return Engine(
        "otelcol-remote",
        [str(binary), "--config", str(OTELCOL_REMOTE)],
        env,
        f"http://127.0.0.1:{http}/sampling",
        grpc,
        otlp_http=env["OTLP_HTTP"],
    )


def dsampler_serve(strategies: Path, *, reload_s: float = 0.2) -> Engine:
    """``dsampler serve`` (not started) on free HTTP and gRPC ports."""
    http, grpc = free_port(), free_port()
    command = [
        sys.executable, "-m", "dsampler", "serve", "--strategies", str(strategies),
        "--port", str(http), "--grpc-port", str(grpc), "--reload-interval", f"{reload_s:g}s",
    ]  # fmt: skip
    return Engine("dsampler-serve", command, {}, f"http://127.0.0.1:{http}/sampling", grpc)


@contextlib.contextmanager
def running(*engines: Engine) -> Iterator[tuple[Engine, ...]]:
    """Start every engine, yield them, stop them all (whatever happened)."""
    try:
        for engine in engines:
            engine.start()
        yield engines
    finally:
        for engine in engines:
            engine.stop()
