"""A real service, as a new user would try it: Flask under gunicorn, zero-code
instrumentation (``opentelemetry-instrument``), spans exported over OTLP/HTTP, driven by
``wrk`` on the loopback; OpenTelemetry's ``parentbased_traceidratio`` against
``parentbased_dsampler``, interleaved rounds, one run.

    python benchmarks/service.py                     # 3 rounds, 10 s per load (about 8 min)
    python benchmarks/service.py --rounds 5 --seconds 20
    python benchmarks/service.py --smoke             # a tiny load: checks it runs (~20 s)

Per round and variant (the order rotates every round):

1. ``gunicorn -w 1`` under ``opentelemetry-instrument`` with the variant's
   ``OTEL_TRACES_SAMPLER``/``_ARG`` (rate 0.1); *start-up* is the time from spawning it
   to the first HTTP 200 (polled every 10 ms).
2. a 2 s warm-up, then ``wrk -t1 -c8`` for ``--seconds`` with a sampled W3C
   ``traceparent`` on every request (the server span follows its parent: the sampler
   only reads the flag), then the same without (every request a root, sampled at 10%):
   requests/s and p99 of each.
3. ``gunicorn -w 2`` the same way, 2 s of load, then the PSS of master and workers
   (``/proc/PID/smaps_rollup``), what the service costs in memory.

Spans go through the SDK's ``BatchSpanProcessor`` and OTLP/HTTP exporter to a sink in
this process that answers 200 (so export costs what it costs in production, minus the
network). Without ``wrk`` on the PATH a Python loopback client (8 threads, keep-alive)
drives the load instead and says so; it competes with the server for the CPU, so its
figures are lower. Variants: OpenTelemetry; dsampler with its defaults (``fnv1a``,
numba loaded only when the decision rate pays for it); dsampler ``hash=xxh3`` (the lean
mode: xxhash, never numba); dsampler with numba loaded at start (``DSAMPLER_JIT=eager``,
what every service paid before numba became lazy).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
VARIANTS: dict[str, dict[str, str]] = {
    "OTel parentbased_traceidratio": {"OTEL_TRACES_SAMPLER": "parentbased_traceidratio"},
    "dsampler (defaults)": {"OTEL_TRACES_SAMPLER": "parentbased_dsampler"},
    "dsampler hash=xxh3 (lean)": {
        "OTEL_TRACES_SAMPLER": "parentbased_dsampler",
        "OTEL_TRACES_SAMPLER_ARG": "rate=0.1,hash=xxh3",
    },
    "dsampler, numba at start": {"OTEL_TRACES_SAMPLER": "parentbased_dsampler", "DSAMPLER_JIT": "eager"},
}
WRK_SCRIPT = """
local parent = os.getenv("BENCH_PARENT")
if parent and parent ~= "" then wrk.headers["traceparent"] = parent end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'JSON {"requests": %d, "seconds": %f, "errors": %d, "p50_ms": %f, "p99_ms": %f, "max_ms": %f}\\n',
    summary.requests, summary.duration / 1e6, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50) / 1e3, latency:percentile(99) / 1e3, latency.max / 1e3))
end
"""


class _Sink(BaseHTTPRequestHandler):
    """An OTLP/HTTP endpoint that accepts every export (an empty response is a valid one)."""

    spans_bytes = 0

    def do_POST(self) -> None:
        _Sink.spans_bytes += len(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(port: int, parent: str | None = None) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", "/", headers={"traceparent": parent} if parent else {})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


class Service:
    """One gunicorn under opentelemetry-instrument; ``startup_s`` to its first 200."""

    def __init__(self, variant: str, workers: int, sink_port: int, cache: str) -> None:
        self.port = _free_port()
        env = {
            **os.environ,
            "OTEL_SERVICE_NAME": "dsampler-bench",
            "OTEL_TRACES_SAMPLER_ARG": "0.1",
            "OTEL_TRACES_EXPORTER": "otlp",
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"http://127.0.0.1:{sink_port}/v1/traces",
            "OTEL_METRICS_EXPORTER": "none",
            "OTEL_LOGS_EXPORTER": "none",
            "NUMBA_CACHE_DIR": cache,
            **VARIANTS[variant],
        }
        # The app's folder, then the variant's checkout (--compare-with) or PYTHONPATH.
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(HERE), env.get("PYTHONPATH")) if p)
        cmd = [str(BIN / "opentelemetry-instrument"), str(BIN / "gunicorn"), "-w", str(workers)]
        cmd += ["-b", f"127.0.0.1:{self.port}", "--log-level", "warning", "service_app:app"]
        started = time.perf_counter()
        self.proc = subprocess.Popen(
            cmd, env=env, cwd=HERE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            self.startup_s = self._first_200(started)
        except BaseException:  # no 200: nobody else will stop it
            self.proc.kill()
            self.proc.wait()
            raise

    def _first_200(self, started: float, timeout_s: float = 60.0) -> float:
        while time.perf_counter() - started < timeout_s:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"gunicorn exited: {self.proc.stderr.read().decode() if self.proc.stderr else ''}"
                )
            try:
                if _get(self.port) == 200:
                    return time.perf_counter() - started
            except OSError:
                pass
            time.sleep(0.01)
        raise RuntimeError("no 200 within 60 s")

    def pss_mb(self) -> float:
        """PSS of gunicorn's master and its workers (the instrument wrapper execs gunicorn)."""
        total_kb = 0
        for pid in self._pids():
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total_kb += int(line.split()[1])
        return total_kb / 1024

    def cpu_s(self) -> float:
        """CPU seconds (user + system) used so far by gunicorn's master and workers.

        Requests per second on a 2-core machine move with whatever else runs (wrk, the
        sink, other jobs); the CPU a request costs the service moves far less, so it is
        the figure that shows a sampler's cost, not the scheduler's mood.
        """
        ticks = os.sysconf("SC_CLK_TCK")
        total = 0
        for pid in self._pids():
            with contextlib.suppress(OSError):
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])  # utime, stime
        return total / ticks

    def _pids(self) -> list[int]:
        pids = [self.proc.pid]
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        if children.exists():
            pids += [int(p) for p in children.read_text().split()]
        return pids

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def load(port: int, seconds: float, parent: str | None, connections: int = 8) -> dict[str, float]:
    """requests/s and latency percentiles of ``seconds`` of closed-loop load."""
    wrk = shutil.which("wrk")
    if wrk is None:
        return _python_load(port, seconds, parent, connections)
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(WRK_SCRIPT)
    try:
        cmd = [wrk, "-t1", f"-c{connections}", f"-d{max(round(seconds), 1)}s", "-s", f.name]
        done = subprocess.run(
            [*cmd, f"http://127.0.0.1:{port}/"],
            env={**os.environ, "BENCH_PARENT": parent or ""},
            capture_output=True,
            text=True,
            timeout=seconds + 60,
            check=True,
        )
    finally:
        os.unlink(f.name)
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("JSON "))
    out: dict[str, float] = json.loads(line[5:])
    out["rps"] = out["requests"] / out["seconds"]
    return out


def _python_load(port: int, seconds: float, parent: str | None, connections: int) -> dict[str, float]:
    latencies: list[float] = []
    errors = [0]
    deadline = time.perf_counter() + seconds
    headers = {"traceparent": parent} if parent else {}

    def client() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        mine = []
        while time.perf_counter() < deadline:
            t0 = time.perf_counter()
            try:
                conn.request("GET", "/", headers=headers)
                response = conn.getresponse()
                response.read()
                if response.status != 200:
                    errors[0] += 1
            except OSError:
                errors[0] += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            mine.append(time.perf_counter() - t0)
        conn.close()
        latencies.extend(mine)

    threads = [threading.Thread(target=client) for _ in range(connections)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    ordered = sorted(latencies) or [0.0]
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1e3  # noqa: E731
    return {
        "requests": len(latencies),
        "seconds": elapsed,
        "errors": errors[0],
        "rps": len(latencies) / elapsed,
        "p50_ms": pick(0.5),
        "p99_ms": pick(0.99),
        "max_ms": ordered[-1] * 1e3,
    }


def one_round(variant: str, seconds: float, sink_port: int, cache: str, smoke: bool) -> dict[str, float]:
    svc = Service(variant, 1, sink_port, cache)
    try:
        out = {"startup_s": svc.startup_s}
        load(svc.port, 0.5 if smoke else 2.0, None)  # warm-up: imports, caches, the kernel if it loads
        cpu0 = svc.cpu_s()
        child = load(svc.port, seconds, TRACEPARENT)
        cpu1 = svc.cpu_s()
        root = load(svc.port, seconds, None)
        cpu2 = svc.cpu_s()
        out.update(child_cpu_us=(cpu1 - cpu0) / max(child["requests"], 1) * 1e6)
        out.update(root_cpu_us=(cpu2 - cpu1) / max(root["requests"], 1) * 1e6)
        out.update(child_rps=child["rps"], child_p99=child["p99_ms"], root_rps=root["rps"])
        out.update(root_p99=root["p99_ms"], errors=child["errors"] + root["errors"])
        if smoke:
            out["pss_mb"] = svc.pss_mb()
            return out
    finally:
        svc.stop()
    svc = Service(variant, 2, sink_port, cache)
    try:
        load(svc.port, 2.0, None)
        out["pss_mb"] = svc.pss_mb()
    finally:
        svc.stop()
    return out


def _cell(values: list[float], fmt: str) -> str:
    return f"{statistics.median(values):{fmt}} ({min(values):{fmt}}-{max(values):{fmt}})"


def table(runs: dict[str, list[dict[str, float]]], workers: int = 2) -> str:
    """The Markdown table: medians over rounds, (min-max), and the ratios to OTel."""
    peer = next(iter(runs))
    med = {v: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for v, rs in runs.items()}
    lines = [
        "| variant | p99, sampled parent (ms) | req/s, sampled parent | p99, roots at 10% (ms) "
        f"| req/s, roots | start-up to first 200 (s) | PSS, master + {workers} workers (MB) | errors |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for v, rs in runs.items():
        col = {k: [r[k] for r in rs] for k in rs[0]}
        ratio = "" if v == peer else f" = {med[v]['child_p99'] / med[peer]['child_p99']:.2f}x"
        lines.append(
            f"| {v} | {_cell(col['child_p99'], '.1f')}{ratio} | {_cell(col['child_rps'], '.0f')} | "
            f"{_cell(col['root_p99'], '.1f')} | {_cell(col['root_rps'], '.0f')} | "
            f"{_cell(col['startup_s'], '.2f')} | {_cell(col['pss_mb'], '.0f')} | {sum(col['errors']):.0f} |"
        )
    lines += [
        "",
        "| variant | CPU per request, sampled parent (us) | CPU per request, roots at 10% (us) |",
        "|---|---:|---:|",
    ]
    for v, rs in runs.items():
        col = {k: [r[k] for r in rs] for k in rs[0]}
        cells = []
        for key in ("child_cpu_us", "root_cpu_us"):
            ratio = "" if v == peer else f" = {med[v][key] / med[peer][key]:.2f}x"
            cells.append(f"{_cell(col[key], '.0f')}{ratio}")
        lines.append(f"| {v} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10.0, help="each wrk load (default 10)")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--smoke", action="store_true", help="1 round, 0.5 s loads, 1 worker only")
    parser.add_argument("--json", help="also write the raw figures to this file")
    parser.add_argument(
        "--compare-with",
        metavar="DIR",
        help="a checkout of another dsampler (e.g. main): its defaults run too, interleaved",
    )
    args = parser.parse_args(argv)
    if args.compare_with:
        other = f"dsampler (defaults), {Path(args.compare_with).name}"
        VARIANTS[other] = {
            **VARIANTS["dsampler (defaults)"],
            "PYTHONPATH": str(Path(args.compare_with).resolve()),
        }
        args.variants.append(other)
    rounds, seconds = (1, 0.5) if args.smoke else (args.rounds, args.seconds)
    cache = tempfile.mkdtemp(prefix="dsampler-bench-numba-")
    for path in {VARIANTS[v].get("PYTHONPATH", "") for v in args.variants}:
        subprocess.run(  # a warm numba cache, as every start but a service's very first has
            [sys.executable, "-c", "import dsampler; dsampler.wait_for_jit(300)"],
            env={**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": path},
            cwd=tempfile.gettempdir(),
            check=True,
        )
    sink = ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    load_before = os.getloadavg()[0]
    runs: dict[str, list[dict[str, float]]] = {v: [] for v in args.variants}
    try:
        for r in range(rounds):
            order = args.variants[r % len(args.variants) :] + args.variants[: r % len(args.variants)]
            for variant in order:
                runs[variant].append(one_round(variant, seconds, sink.server_address[1], cache, args.smoke))
    finally:
        sink.shutdown()
        shutil.rmtree(cache, ignore_errors=True)
    driver = "wrk -t1 -c8" if shutil.which("wrk") else "a Python client, 8 threads (wrk not found)"
    print(
        f"{rounds} rounds, {seconds:g} s per load, {driver}; load average {load_before:.2f} before, "
        f"{os.getloadavg()[0]:.2f} after; {_Sink.spans_bytes / 1e6:.1f} MB of OTLP exported\n"
    )
    print(table(runs, workers=1 if args.smoke else 2))
    if args.json:
        Path(args.json).write_text(json.dumps(runs, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
