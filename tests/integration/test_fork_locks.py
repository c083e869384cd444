"""Locks held by another thread at os.fork() are fresh in the child (prefork servers)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork() is POSIX-only")]

CHILD = """
import os, threading
def _in_child():
    done = threading.Event()
    def body():
        done.ok = bool(child())
        done.set()
    threading.Thread(target=body, daemon=True).start()
    os._exit(0 if done.wait(5) and done.ok else 3)  # a lock still held: the thread waits
pid = os.fork()
if pid == 0:
    _in_child()
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status))
"""


def forked(parent: str, child: str) -> str:
    """Run ``parent`` (which takes the locks), fork, and in the child run ``child`` (the
    body of a function returning whether all went well) in a thread given 5 s; the
    child's exit status, printed by the parent: "0" when it finished and went well."""
    body = textwrap.indent(textwrap.dedent(child), "    ")
    code = f"{textwrap.dedent(parent)}\ndef child():\n{body}{CHILD}"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_writer_state_and_bucket_batons_are_fresh_in_the_child() -> None:
    """With the store's lock and a bucket's baton held at the fork, the child still
    publishes, tracks a new operation and refills a limiter, each within a second."""
    parent = """
        from dsampler import DSampler, ManualClock
        clock = ManualClock()
        s = DSampler(rate=0.0, default_lower_bound_per_second=1.0, clock=clock, resource={},
                     rules=[{"match": {"span_name": "limited"}, "action": {"rate_limit": 1}}])
        bucket = s.engine.snapshot.rules.rules[0][1].bucket
        s.engine._store._lock.acquire()    # as if another thread were publishing
        del bucket._baton[0]        # and another one checking this limiter
        """
    child = """
        s.update(rate=0.5)
        s.should_sample(None, 1, "never-seen-before")
        s.should_sample(None, 1, "limited")
        clock.advance(5.0)
        sampled = s.should_sample(None, 2, "limited").decision.is_sampled()
        return sampled and s.config.version == 2 and "never-seen-before" in s.engine.snapshot.tracked
        """
    assert forked(parent, child) == "0"


@pytest.mark.parametrize("module", ["_registry", "_drift", "_enable"])
def test_the_telemetry_module_locks_are_fresh_in_the_child(module: str) -> None:
    """With a telemetry module's lock held at the fork (a metrics reader mid-collection,
    an audit, another thread's enable()), the child still enables telemetry, creates a
    DSampler, counted, audits it and collects it, within seconds."""
    parent = f"""
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import InMemoryMetricReader
        import dsampler.telemetry
        from dsampler import DSampler
        from dsampler.telemetry import {module} as held
        dsampler.telemetry.enable(audit_interval_s=None)
        DSampler(rate=0.5, resource={{}})
        held._guard.lock.acquire()    # as if another thread were inside it
        """
    child = """
        reader = InMemoryMetricReader()
        dsampler.telemetry.enable(MeterProvider(metric_readers=[reader]), audit_interval_s=None)
        s = DSampler(rate=1.0, resource={}, parent_based=False)
        s.should_sample(None, 5, "x")
        dsampler.telemetry.audit(s)
        return s.engine.decision_counts is not None and reader.get_metrics_data() is not None
        """
    assert forked(parent, child) == "0"


def test_a_fork_between_a_new_remote_section_and_its_follower_replaces_the_follower() -> None:
    """Forked after a new ``remote:`` section is published and before its follower is
    made (the old follower's stop event held, its thread inside wait()), the child
    closes the old follower and starts the section's own, without waiting on that lock."""
    parent = """
        from dsampler import DSampler
        def remote(service):
            url = "http://127.0.0.1:9/sampling"
            return {"endpoint": url, "polling_interval": "1h", "service_name": service}
        s = DSampler(remote=remote("a"), resource={})
        old = s.follower
        s.engine.publish({"remote": remote("b")})   # the publish, and not yet its owners
        old._thread._stop._cond.acquire()    # as if its thread were inside wait()
        """
    child = """
        new = s.follower
        return new is not old and new.service == "b" and new.running and old.overlay.retired
        """
    assert forked(parent, child) == "0"


@pytest.mark.parametrize("held", ["c._guard", "c.tap._guard"])
def test_the_adaptive_controller_and_its_tap_have_fresh_locks_in_the_child(held: str) -> None:
    """With the controller's (or its tap's) lock held at the fork, as by a tick or a take
    in flight, the child decides, ticks and reconfigures."""
    parent = f"""
        from dsampler import DSampler, ManualClock
        clock = ManualClock()
        s = DSampler(adaptive={{"target_traces_per_second": 50}}, clock=clock, resource={{}})
        c = s.controller
        {held}.lock.acquire()
        """
    child = """
        for i in range(1, 201):
            s.should_sample(None, i, "GET /x")
        clock.advance(0.1)
        c.tick()
        c.reconfigure(target_traces_per_second=10)
        return c.settings.target_traces_per_second == 10
        """
    assert forked(parent, child) == "0"
