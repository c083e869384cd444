"""os.fork() while another thread publishes: the child's limits are its own config's."""

from __future__ import annotations

import subprocess
import sys
import textwrap

CHILD_CHECK = """
import os, threading
from dsampler import DSampler, ManualClock

clock = ManualClock()
LOW = [{"match": {"span_name": "x"}, "action": {"rate_limit": 1}}]
HIGH = [{"match": {"span_name": "x"}, "action": {"rate_limit": 1000}}]
s = DSampler(rate=0.0, rules=LOW, operations={"op": {"rate": 0.0, "lower_bound_per_second": 1}},
             clock=clock, resource={})
stop = threading.Event()

def writer():
    k = 0
    while not stop.is_set():
        bound = 1 + 999 * (k % 2)
        ops = {"op": {"rate": 0.0, "lower_bound_per_second": bound}}
        s.update(rules=HIGH if k % 2 else LOW, operations=ops)
        k += 1

threading.Thread(target=writer, daemon=True).start()
bad = 0
for _ in range(FORKS):
    pid = os.fork()
    if pid == 0:
        try:
            stop.set()
            s.update(rate=0.0)  # the child's next publish
            snap = s.engine.snapshot
            wrong = [(b.credits_per_second, r) for b, r in snap.limits() if b.credits_per_second != r]
            clock.advance(1.0)
            limit = snap.rules.rules[0][1].per_second
            admitted = sum(s.should_sample(None, 7, "x").decision.is_sampled() for _ in range(5000))
            os._exit(1 if wrong or admitted > 2 * max(limit, 1.0) else 0)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    bad += os.waitstatus_to_exitcode(status) != 0
stop.set()
print(bad)
"""


def test_a_child_forked_mid_publish_has_exactly_its_configurations_limits() -> None:
    """Across 150 forks taken while a thread flips a rule between 1 and 1,000 traces a
    second, every child's buckets run at the rates of the snapshot it decides under."""
    code = textwrap.dedent(CHILD_CHECK).replace("FORKS", "150")
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "0"
