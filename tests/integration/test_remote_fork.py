"""A real os.fork() (as gunicorn and uwsgi fork workers from a master that built the
sampler): the child's poller restarts and follows an update made after the fork."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from dsampler.remote._resolve import MAX_RESOLVING

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork() is POSIX-only")]

CODE = """
import json, os, tempfile, threading, time
from dsampler.remote import JaegerRemoteSampler
from dsampler.serve import StrategiesFile, StrategiesServer

path = os.path.join(tempfile.mkdtemp(), "strategies.json")
def write(rate):
    with open(path, "w") as f:
        json.dump({"default_strategy": {"type": "probabilistic", "param": rate}}, f)
write(0.1)
source = StrategiesFile(path, reload_interval_s=0)
server = StrategiesServer(source, port=0).start()
sampler = JaegerRemoteSampler("forked", server.url, polling_interval_s=0.1, resource={})

def until(check, seconds=20):
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True

assert until(lambda: sampler.config.rate == 0.1)
parent_thread = sampler.poller._thread._thread
sampler.poller._guard.lock.acquire()          # as if the parent's poll were in flight at the fork
read, write_end = os.pipe()
polls = sampler.poller.polls            # what the child inherits
pid = os.fork()
if pid == 0:
    os.close(read)
    ok = until(lambda: sampler.config.rate == 0.7)   # only the child's own polls can see 0.7
    child_thread = sampler.poller._thread._thread
    report = {
        "followed": ok,
        "polled": sampler.poller.polls > polls,
        "new_thread": child_thread not in (None, parent_thread) and child_thread.is_alive(),
    }
    os.write(write_end, json.dumps(report).encode())
    os._exit(0)
os.close(write_end)
sampler.poller._guard.lock.release()
write(0.7)
source.poll_once()                       # seen once: it may still be being written
source.poll_once()                       # held still: the parent's server now serves 0.7
_, status = os.waitpid(pid, 0)
print(os.read(read, 4096).decode())
print(os.waitstatus_to_exitcode(status))
sampler.close()
server.close()
"""


def test_the_child_polls_and_follows_an_update() -> None:
    """After fork, with the parent's poll lock held at the fork, the child runs a fresh
    poller thread that picks up a strategy served only after the fork."""
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CODE)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    report, code = proc.stdout.strip().splitlines()
    assert code == "0"
    assert report == '{"followed": true, "polled": true, "new_thread": true}'


RESOLVE_CODE = """
import json, os, socket, threading
from dsampler.errors import FetchError
from dsampler.remote import HttpFetcher
from dsampler.remote._resolve import MAX_RESOLVING
from tests.remote_servers import Answer, body, serving

GOOD = body({"strategyType": "PROBABILISTIC", "probabilisticSampling": {"samplingRate": 0.25}})
release = threading.Event()

def hang(host, port, family, kind):
    release.wait(60)
    raise socket.gaierror(socket.EAI_AGAIN, "released")

def local(host, port, family, kind):
    return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]

def outcome(fetcher):
    try:
        return fetcher.fetch("svc") == GOOD
    except FetchError as exc:
        return str(exc)

with serving(Answer(GOOD)) as server:
    url = server.url.replace("127.0.0.1", "agent.test")
    stuck = HttpFetcher(url, timeout_s=0.05, resolver=hang)
    for _ in range(MAX_RESOLVING):
        assert "timed out" in outcome(stuck)          # each leaves its resolver thread hanging
    full = outcome(HttpFetcher(url, timeout_s=5, resolver=local))
    read, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        report = {"child": outcome(HttpFetcher(url, timeout_s=5, resolver=local))}
        os.write(write_end, json.dumps(report).encode())
        os._exit(0)
    os.close(write_end)
    _, status = os.waitpid(pid, 0)
    release.set()
    print(json.dumps({"parent": full, **json.loads(os.read(read, 4096).decode())}))
    print(os.waitstatus_to_exitcode(status))
"""


def test_the_child_has_every_resolution_slot_free() -> None:
    """At the fork every slot is held by a parent's resolver thread that hangs; the
    child, where those threads do not exist, still resolves a host name and fetches
    (without the reset its every poll by host name would fail at once, for good)."""
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(RESOLVE_CODE)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
    )
    assert proc.returncode == 0, proc.stderr
    report, code = proc.stdout.strip().splitlines()
    assert code == "0"
    outcomes = json.loads(report)
    full = f": OSError: {MAX_RESOLVING} name resolutions are still waiting for the resolver"
    assert outcomes["parent"].endswith(full)  # the parent's slots: all held at the fork
    assert outcomes["child"] is True
