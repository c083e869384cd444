"""Real prefork servers run examples/prefork/ as docs/user-guide.md shows: every worker
watches the file (its watcher restarted after the fork) and reloads it on change."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not hasattr(os, "fork"), reason="prefork is POSIX-only")]

BIN = Path(sys.executable).parent
WORKERS = 2


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def command(server: str, port: int) -> list[str]:
    if server == "gunicorn":
        return [
            str(BIN / "gunicorn"),
            "-c",
            "gunicorn.conf.py",
            "-b",
            f"127.0.0.1:{port}",
            "-w",
            str(WORKERS),
            "wsgi:app",
        ]
    return [
        str(BIN / "uwsgi"),
        "--ini",
        "uwsgi.ini",
        "--processes",
        str(WORKERS),
        "--http-socket",
        f"127.0.0.1:{port}",
        "--die-on-term",
    ]


@pytest.fixture(params=["gunicorn", "uwsgi"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Path, int]]:
    """The example app under a real server with two workers, on an ephemeral port."""
    if shutil.which(command(request.param, 0)[0]) is None:
        pytest.fail(f"{request.param} is not installed (it is in the dev extra)")
    for name in ("wsgi.py", "gunicorn.conf.py", "uwsgi.ini"):
        shutil.copy(REPO / "examples" / "prefork" / name, tmp_path)
    (tmp_path / "sampling.yaml").write_text("rate: 0.0\n", encoding="utf-8")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env["HOME"] = str(tmp_path)  # gunicorn's control socket goes under $HOME
    with (tmp_path / "server.log").open("wb") as log:
        proc = subprocess.Popen(
            command(request.param, port),
            cwd=tmp_path,
            env=env,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
    try:
        yield tmp_path, port
    finally:
        # SIGTERM stops gunicorn; to uwsgi it means "reload": SIGINT stops it at once.
        os.killpg(proc.pid, signal.SIGINT if request.param == "uwsgi" else signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)


def ask(port: int) -> dict[str, Any] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/x", timeout=5) as response:
            answer: dict[str, Any] = json.loads(response.read())
            return answer
    except OSError:  # not listening yet, or a worker restarting
        return None


def workers_until(port: int, done: Any, seconds: float) -> dict[int, dict[str, Any]]:
    """Latest answer per worker pid, asking until ``done(answers)`` or the deadline."""
    answers: dict[int, dict[str, Any]] = {}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not done(answers):
        answer = ask(port)
        if answer is None:
            time.sleep(0.1)
            continue
        answers[answer["pid"]] = answer
    return answers


def test_every_worker_reloads_the_file(server: tuple[Path, int]) -> None:
    """Both workers start on version 1 with their watcher running, and both serve the
    edited file (version 2) within seconds, with no restart."""
    folder, port = server
    before = workers_until(port, lambda a: len(a) == WORKERS, 60)
    assert len(before) == WORKERS, (folder / "server.log").read_text()
    assert all(w["version"] == 1 and w["rate"] == 0.0 and w["watching"] for w in before.values())
    (folder / "sampling.yaml").write_text("rate: 1.0\n", encoding="utf-8")

    def reloaded(answers: dict[int, dict[str, Any]]) -> bool:
        return len(answers) == WORKERS and all(w["version"] == 2 for w in answers.values())

    after = workers_until(port, reloaded, 60)
    assert reloaded(after), after
    assert all(w["rate"] == 1.0 and w["sampled"] for w in after.values())
