"""os.fork() while another thread changes the ``remote:`` and ``adaptive:`` sections (by
updates and by file reloads): every child has working owners for the sections in force."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork() is POSIX-only")]

CODE = """
import json, logging, os, random, select, signal, tempfile, threading, time
from dsampler import DSampler
from dsampler.serve import StrategiesFile, StrategiesServer

logging.getLogger("dsampler").setLevel(logging.ERROR)  # the reloads replace the updates' sections
folder = tempfile.mkdtemp()
strategies = os.path.join(folder, "strategies.json")
RATES = {"a": 0.25, "b": 0.5}
with open(strategies, "w") as f:
    services = [{"service": s, "type": "probabilistic", "param": r} for s, r in RATES.items()]
    json.dump({"service_strategies": services}, f)
server = StrategiesServer(StrategiesFile(strategies, reload_interval_s=0), port=0).start()

def remote(service):
    return {"endpoint": server.url + "/sampling", "service_name": service, "polling_interval": "1h"}

SECTIONS = [  # every change: one endpoint for another, one target for another, one for none
    {"remote": remote("a")},
    {"remote": remote("b")},
    {"adaptive": {"target_traces_per_second": 50}},
    {"adaptive": {"target_traces_per_second": 80}},
    {"remote": remote("a")},
    {},
    {"adaptive": {"target_traces_per_second": 50}},
    {"remote": remote("b")},
    {},
]
path = os.path.join(folder, "sampling.json")
with open(path, "w") as f:
    json.dump({"rate": 0.001}, f)
sampler = DSampler.from_file(path, poll_interval_s=3600, resource={})
stop = threading.Event()

def writer():
    k = 0
    while not stop.is_set():
        wanted = SECTIONS[k % len(SECTIONS)]
        if k % 2:
            sampler.update(remote=wanted.get("remote"), adaptive=wanted.get("adaptive"))
        else:
            with open(path, "w") as f:
                json.dump({"rate": 0.001, "max_operations": 100 + k % 7, **wanted}, f)
            sampler.watcher.poll_once()
            sampler.watcher.poll_once()  # a new content is published once it has held still
        k += 1

def until(check, seconds=10.0):
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True

def ticking():  # exactly one ticker: the controller's
    return sum(t.name == "dsampler-adaptive" and t.is_alive() for t in threading.enumerate()) == 1

def problem():
    config = sampler.config
    follower, controller = sampler.follower, sampler.controller
    if config.remote is None:
        if follower is not None:
            return "a follower without a remote: section"
    elif follower is None or follower.service != config.remote.service_name:
        return f"no follower of {config.remote.service_name}: {follower and follower.service}"
    elif not until(lambda: sampler.engine.holder("remote") is follower.overlay
                   and sampler.config.rate == RATES[follower.service]):
        overlay = follower.overlay
        return f"never applied: running={follower.running}, retired={overlay.retired}"
    elif not follower.running:
        return "the follower is not polling"
    if config.adaptive is None:
        if controller is not None:
            return "a controller without an adaptive: section"
    elif controller is None or controller.settings != config.adaptive:
        return f"no controller of {config.adaptive}"
    elif controller.overlay is None or controller.overlay.retired:
        return "the controller is not bound to a live overlay"
    elif sampler.engine.holder("adaptive") is not controller.overlay:
        return "the controller's overlay is not its sampler's"
    elif not until(ticking):
        return "the controller is not ticking"
    elif not until(lambda: sampler.config.rate == controller.rate):
        return "the rate in force is not the controller's"
    return ""

threading.Thread(target=writer, daemon=True).start()
rng = random.Random(26)
bad, forks, deadline = [], 0, time.monotonic() + LIMIT_S
while forks < FORKS and time.monotonic() < deadline:
    time.sleep(rng.uniform(0.0, 0.02))
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            found = problem()
        except BaseException as exc:
            found = repr(exc)
        os.write(write, (found or "ok").encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        if select.select([answer], [], [], 30.0)[0]:
            said = answer.read().decode()
        else:
            os.kill(pid, signal.SIGKILL)
            said = "the child hung"
    os.waitpid(pid, 0)
    forks += 1
    if said != "ok":
        bad.append(said)
stop.set()
print(json.dumps({"forks": forks, "bad": bad}))
"""


def test_a_child_forked_during_an_owner_change_has_working_owners() -> None:
    """Up to 40 forks at random moments (at most 60 s) while a thread moves the sampler
    between remote endpoints, adaptive targets and neither, by updates and by reloads:
    each child, on its own, has the follower and the controller of the sections in
    force (and no other), started, writing to the overlays its sampler holds (the
    follower's strategy applied, the controller's rate in force), as it reports through
    a pipe within 30 s."""
    code = textwrap.dedent(CODE).replace("LIMIT_S", "60").replace("FORKS", "40")
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = __import__("json").loads(proc.stdout.strip().splitlines()[-1])
    assert report["forks"] >= 10, report
    assert report["bad"] == [], report
