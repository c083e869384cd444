"""A remote-controlled fleet on one machine: `dsampler serve` and three instrumented
workers (checkout, search, ledger) that poll it.

    python examples/fleet/run.py

It copies strategies.json to a temporary folder, serves it, starts the workers, and
halfway through edits the file: the default rate goes 0.1 -> 0.5, checkout's per-operation
rates change, search's rate limit goes 5/s -> 50/s. Each worker prints the strategy in
force and what it kept; the change appears in every worker's output at its next poll.
It ends with OK when every worker showed exactly its edited strategy, and nothing else
after it, within the bound it prints: one poll interval, plus the server's reload
(0.2 s) and one burst of the worker (0.5 s), plus 1 s for a busy machine. Otherwise it
says which worker did not, and exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SERVICES = ("checkout", "search", "ledger")
#: What each worker must show once it follows EDIT (worker.py's describe()).
EXPECTED = {
    "checkout": "per-operation default 0.05, POST /pay 0.5",
    "search": "ratelimiting 50/s",
    "ledger": "probabilistic 0.5",
}
RELOAD_S, BURST_S, SLACK_S = 0.2, 0.5, 1.0
EDIT = {
    "default_strategy": {"type": "probabilistic", "param": 0.5},
    "service_strategies": [
        {
            "service": "checkout",
            "type": "probabilistic",
            "param": 0.05,
            "operation_strategies": [{"operation": "POST /pay", "type": "probabilistic", "param": 0.5}],
        },
        {"service": "search", "type": "ratelimiting", "param": 50},
    ],
}


def start_server(path: Path) -> tuple[subprocess.Popen[str], str]:
    """`dsampler serve` on a free port; its URL once it listens."""
    command = [sys.executable, "-m", "dsampler", "serve", "--strategies", str(path), "--port", "0"]
    reload = f"{RELOAD_S * 1000:.0f}ms"
    server = subprocess.Popen([*command, "--reload-interval", reload], stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    line = server.stdout.readline()  # "dsampler serve: listening on URL (FILE)"
    if "listening on " not in line:
        raise SystemExit(f"dsampler serve did not start: {line!r}")
    return server, line.split("listening on ", 1)[1].split()[0]


class Fleet:
    """What the workers' output has shown so far."""

    def __init__(self) -> None:
        self.edited = threading.Event()
        self.ready: dict[str, threading.Event] = {service: threading.Event() for service in SERVICES}
        self.changed: dict[str, float] = {}  # when each first showed its edited strategy
        self.strayed: dict[str, str] = {}  # a strategy shown after that one


def relay(worker: subprocess.Popen[str], fleet: Fleet) -> None:
    """Print a worker's lines; note when it first follows a fetched strategy, when it
    first shows its edited one, and anything else it shows after that."""
    assert worker.stdout is not None
    for line in worker.stdout:
        if not line.endswith("\n"):  # the worker was stopped in the middle of a line
            break
        print(line, end="", flush=True)
        service = line[1:9].strip()
        strategy = line.split(" kept ")[0].split(" v", 1)[1].split(" ", 1)[1].strip()  # after "vN "
        if not strategy.startswith("initial"):
            fleet.ready[service].set()
        if not fleet.edited.is_set():
            continue
        if strategy == EXPECTED[service]:
            fleet.changed.setdefault(service, time.monotonic())
        elif service in fleet.changed:
            fleet.strayed.setdefault(service, strategy)


def verdict(fleet: Fleet, edited_at: float, poll_interval_s: float) -> int:
    """Print when each worker followed the edit, then OK (0) or what went wrong (1)."""
    bound = poll_interval_s + RELOAD_S + BURST_S + SLACK_S
    failed = False
    for service in SERVICES:
        at = fleet.changed.get(service)
        if at is None:
            print(f"{service}: never showed its edited strategy ({EXPECTED[service]})")
            failed = True
            continue
        after = at - edited_at
        print(f"{service}: followed the edit after {after:.1f} s (poll interval {poll_interval_s:g} s)")
        if after > bound:
            print(f"{service}: later than {bound:.1f} s")
            failed = True
        if service in fleet.strayed:
            print(f"{service}: then showed {fleet.strayed[service]}")
            failed = True
    if failed:
        return 1
    print(f"OK: every worker showed its edited strategy within {bound:.1f} s of the edit, and kept it")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=6.0, help="seconds before and after the edit")
    parser.add_argument("--poll-interval", type=float, default=1.0)
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="dsampler-fleet-"))
    path = folder / "strategies.json"
    shutil.copy(HERE / "strategies.json", path)
    server, url = start_server(path)
    print(f"dsampler serve on {url}, strategies in {path}", flush=True)
    fleet = Fleet()
    worker_command = [sys.executable, str(HERE / "worker.py"), "--poll-interval", str(args.poll_interval)]
    workers = [
        subprocess.Popen(
            [*worker_command, "--service", service, "--endpoint", url],
            stdout=subprocess.PIPE,
            text=True,
        )
        for service in SERVICES
    ]
    relays = [threading.Thread(target=relay, args=(w, fleet)) for w in workers]
    for thread in relays:
        thread.start()
    try:
        for service, ready in fleet.ready.items():  # each worker has fetched its first strategy
            if not ready.wait(120):
                raise SystemExit(f"{service} never fetched a strategy")
        time.sleep(args.seconds)
        print(
            "--- editing strategies.json: default 0.5, checkout 0.05 / POST /pay 0.5, search 50/s ---",
            flush=True,
        )
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(EDIT, indent=2))
        os.replace(tmp, path)  # atomic, as a config push does
        edited_at = time.monotonic()
        fleet.edited.set()
        time.sleep(args.seconds)
    finally:
        for worker in workers:
            worker.terminate()
        for thread in relays:
            thread.join(10)
        server.terminate()
        server.wait(10)
        shutil.rmtree(folder, ignore_errors=True)
    return verdict(fleet, edited_at, args.poll_interval)


if __name__ == "__main__":
    sys.exit(main())
