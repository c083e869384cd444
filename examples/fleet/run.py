"""A remote-controlled fleet on one machine: `dsampler serve` and three instrumented
workers (checkout, search, ledger) that poll it.

    python examples/fleet/run.py

It copies strategies.json to a temporary folder, serves it, starts the workers, and
halfway through edits the file: the default rate goes 0.1 -> 0.5, checkout's per-operation
rates change, search's rate limit goes 5/s -> 50/s. Each worker prints the strategy in
force and what it kept; the change appears in every worker's output at its next poll.
It ends with OK when every worker followed the edit within one poll interval.
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
    server = subprocess.Popen([*command, "--reload-interval", "200ms"], stdout=subprocess.PIPE, text=True)
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
        self.changed: dict[str, float] = {}


def relay(worker: subprocess.Popen[str], fleet: Fleet) -> None:
    """Print a worker's lines; note when it first follows a fetched strategy, and when
    its strategy first differs from the one it showed last before the edit."""
    assert worker.stdout is not None
    before: str | None = None
    changed, edited = fleet.changed, fleet.edited
    for line in worker.stdout:
        print(line, end="", flush=True)
        service = line[1:9].strip()
        strategy = line.split(" kept ")[0].split(" v", 1)[1].split(" ", 1)[1].strip()  # after "vN "
        if not strategy.startswith("initial"):
            fleet.ready[service].set()
        if not edited.is_set():
            before = strategy
        elif before is not None and strategy != before and service not in changed:
            changed[service] = time.monotonic()


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
    # A worker shows the change in its first burst after the poll that fetched it: the
    # server's reload (0.2 s), one poll interval, one burst (0.5 s), and some slack.
    bound = 0.2 + args.poll_interval + 0.5 + 1.0
    for service in SERVICES:
        delay = fleet.changed.get(service)
        if delay is None:
            print(f"{service}: never followed the edit")
            return 1
        after = delay - edited_at
        print(f"{service}: followed the edit after {after:.1f} s (poll interval {args.poll_interval:g} s)")
        if after > bound:
            return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
