"""Real prefork servers running host_budget/wsgi.py, a paced load over loopback, and
the sampled roots each worker wrote, by time (tests/integration/test_host_budget.py,
benchmarks/host_budget_plot.py)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

BIN = Path(sys.executable).parent
APP = Path(__file__).with_name("wsgi.py")
TARGET = 20.0  # sampled root traces per second, for the whole host
RPS = 160.0  # requests per second offered, in all


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def command(server: str, port: int, extra: Sequence[str] = ()) -> list[str]:
    """``gunicorn-sync`` (4 workers, the app built in the master), ``gunicorn-zero-code``
    (the same under ``opentelemetry-instrument``, the sampler built by the SDK's
    configurator in the master), ``gunicorn-gthread`` (2 workers of 4 threads) or
    ``uwsgi`` (4 processes, the app built in each)."""
    bind = f"127.0.0.1:{port}"
    if server == "gunicorn-sync":
        return [str(BIN / "gunicorn"), "-b", bind, "-w", "4", "--preload", *extra, "wsgi:app"]
    if server == "gunicorn-zero-code":
        return [str(BIN / "opentelemetry-instrument"), *command("gunicorn-sync", port, extra)]
    if server == "gunicorn-gthread":
        threads = ["--worker-class", "gthread", "--threads", "4"]
        return [str(BIN / "gunicorn"), "-b", bind, "-w", "2", *threads, *extra, "wsgi:app"]
    flags = ["--master", "--processes", "4", "--lazy-apps", "--enable-threads", "--die-on-term"]
    return [str(BIN / "uwsgi"), "--http-socket", bind, "--module", "wsgi:app", *flags, *extra]


@dataclass
class Served:
    folder: Path
    port: int
    proc: subprocess.Popen[bytes]


@contextlib.contextmanager
def served(
    server: str, folder: Path, share: str, *, heavy: int = 1, extra: Sequence[str] = (), config: str = ""
) -> Iterator[Served]:
    """The app under ``server`` with ``adaptive: {target_traces_per_second: 20, share:
    SHARE}`` and the YAML of ``config``, answering; stopped (and every worker with it) on
    the way out."""
    if shutil.which(command(server, 0)[0]) is None:
        raise RuntimeError(f"{server} is not installed (it is in the dev extra)")
    out = folder / "samples"
    out.mkdir(parents=True)
    shutil.copy(APP, folder / "wsgi.py")
    path = folder / "sampling.yaml"
    path.write_text(
        f"adaptive:\n  target_traces_per_second: {TARGET}\n  share: {share}\n{config}", encoding="utf-8"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "DSAMPLER_"))}
    env.update(
        HOME=str(folder),  # gunicorn's control socket goes under $HOME
        BUDGET_OUT=str(out),
        BUDGET_HEAVY=str(heavy),
        OTEL_SERVICE_NAME=f"budget-{uuid.uuid4().hex[:8]}",  # no other run's file
    )
    if server == "gunicorn-zero-code":  # OTEL_TRACES_SAMPLER_ARG=config=PATH, nothing exported
        env.update({f"OTEL_{kind}_EXPORTER": "none" for kind in ("TRACES", "METRICS", "LOGS")})
        env.update(OTEL_TRACES_SAMPLER="dsampler", OTEL_TRACES_SAMPLER_ARG=f"config={path}")
    else:
        env.update(DSAMPLER_CONFIG=str(path))
    port = _free_port()
    with (folder / "server.log").open("wb") as log:
        proc = subprocess.Popen(
            command(server, port, extra), cwd=folder, env=env, stdout=log, stderr=log, start_new_session=True
        )
    try:
        yield _answering(Served(out, port, proc), folder)
    finally:
        os.killpg(proc.pid, signal.SIGINT if server == "uwsgi" else signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)


def _answering(served: Served, folder: Path) -> Served:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if _ask(served.port):
            return served
        if served.proc.poll() is not None:
            break
        time.sleep(0.2)
    raise RuntimeError(f"the server did not answer:\n{(folder / 'server.log').read_text(errors='replace')}")


def _ask(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
            return bool(response.status == 200)
    except OSError:  # not listening yet, or a worker restarting
        return False


def load(
    port: int,
    seconds: float,
    *,
    rps: float = RPS,
    threads: int = 8,
    events: Sequence[tuple[float, Callable[[], None]]] = (),
) -> tuple[float, float]:
    """``rps`` requests a second for ``seconds`` (each thread paced on its own schedule,
    never catching up by more than a second); ``events`` run at their offsets. Returns
    the monotonic times of the start and the end."""
    start = time.monotonic()
    end = start + seconds

    def client(offset: float) -> None:
        interval = threads / rps
        due = start + offset * interval
        while (now := time.monotonic()) < end:
            if due > now:
                time.sleep(due - now)
            _ask(port)
            due = max(due + interval, time.monotonic() - 1.0)

    workers = [threading.Thread(target=client, args=(i / threads,), daemon=True) for i in range(threads)]
    for w in workers:
        w.start()
    for at, event in sorted(events, key=lambda e: e[0]):
        time.sleep(max(0.0, start + at - time.monotonic()))
        event()
    for w in workers:
        w.join()
    return start, end


@dataclass(frozen=True)
class Line:
    at: float
    pid: int
    offered: int
    sampled: int


def lines(out: Path) -> list[Line]:
    """Every request the workers logged."""
    found = []
    for path in out.glob("*.txt"):
        pid = int(path.stem)
        for text in path.read_text(encoding="ascii").splitlines():
            parts = text.split()
            if len(parts) == 3:
                found.append(Line(float(parts[0]), pid, int(parts[1]), int(parts[2])))
    return sorted(found, key=lambda line: line.at)


def per_window(found: Sequence[Line], start: float, end: float, width: float) -> list[float]:
    """Sampled roots per second in each window of ``width`` seconds of [start, end)."""
    count = int((end - start) / width + 1e-9)
    totals = [0] * count
    for line in found:
        index = int((line.at - start) / width)
        if line.at >= start and index < count:
            totals[index] += line.sampled
    return [t / width for t in totals]


def workers(found: Sequence[Line], since: float) -> list[int]:
    """The pids that served a request since ``since``."""
    return sorted({line.pid for line in found if line.at >= since})
