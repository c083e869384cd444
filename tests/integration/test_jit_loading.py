"""The JIT never stalls a decision: cold cache, numba missing, DSAMPLER_JIT=0, os.fork()."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

DECIDE = """
import json, random, sys, time
import dsampler
from dsampler.hashing._reference import fnv1a64_key, MASK64
rng = random.Random(11)
ids = [rng.getrandbits(128) for _ in range(2000)]
sampler = dsampler.RatioSampler(0.3)
def decisions():
    return [sampler.should_sample(None, t, "op").decision.is_sampled() for t in ids]
def expected():
    return [fnv1a64_key(t >> 64, t & MASK64) < sampler.bound for t in ids]
"""


def run(code: str, tmp_path: Path, prelude: str = "", **env: str) -> dict[str, Any]:
    full_env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache"), **env}
    proc = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(DECIDE) + textwrap.dedent(code)],
        env=full_env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    out["stderr"] = proc.stderr
    return out


def test_cold_cache_first_decision_is_served_while_the_kernels_compile(tmp_path: Path) -> None:
    """With an empty numba cache the first decisions come from the reference path, then
    the compiled kernels take over, with identical decisions and a populated cache."""
    out = run(
        """
        t0 = time.perf_counter()
        first = sampler.should_sample(None, ids[0], "op")
        first_s = time.perf_counter() - t0
        status_at_first = dsampler.jit_status()
        before = decisions()
        ready = dsampler.wait_for_jit(240)
        after = decisions()
        print(json.dumps({"status_at_first": status_at_first, "first_s": first_s, "ready": ready,
                          "same": before == after == expected(), "status": dsampler.jit_status()}))
        """,
        tmp_path,
    )
    assert out["status_at_first"] == "loading"  # the decision did not wait for compilation
    assert out["ready"] is True
    assert out["status"] == "ready"
    assert out["same"] is True
    assert any((tmp_path / "numba-cache").rglob("*.nbi"))  # compiled code was cached on disk


def test_without_numba_decisions_and_batches_still_work_and_say_so_once(tmp_path: Path) -> None:
    """If numba cannot be imported, the pure-Python and numpy paths serve, logged once."""
    out = run(
        """
        import numpy as np
        ready = dsampler.wait_for_jit(60)
        dsampler.RatioSampler(0.5)  # more samplers must not log again
        hi = np.array([t >> 64 for t in ids], dtype=np.uint64)
        lo = np.array([t & MASK64 for t in ids], dtype=np.uint64)
        batch = dsampler.decide_batch(hi, lo, 0.3).tolist()
        print(json.dumps({"ready": ready, "status": dsampler.jit_status(),
                          "same": decisions() == expected() == batch}))
        """,
        tmp_path,
        prelude="import logging, sys\nsys.modules['numba'] = None\nlogging.basicConfig(level=logging.INFO)\n",
    )
    assert out["ready"] is False
    assert out["status"] == "unavailable"
    assert out["same"] is True
    assert out["stderr"].count("numba kernels unavailable") == 1
    assert "pure-Python hashing" in out["stderr"]


def test_dsampler_jit_0_keeps_the_pure_python_path(tmp_path: Path) -> None:
    """DSAMPLER_JIT=0 disables the kernels without importing numba at all."""
    out = run(
        """
        ready = dsampler.wait_for_jit(60)
        numba = "numba" in sys.modules
        print(json.dumps({"ready": ready, "numba": numba, "same": decisions() == expected()}))
        """,
        tmp_path,
        DSAMPLER_JIT="0",
    )
    assert out == {"ready": False, "numba": False, "same": True, "stderr": out["stderr"]}


def test_import_dsampler_imports_neither_numba_nor_numpy() -> None:
    """``import dsampler`` stays cheap: the heavy modules load only when first needed."""
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, dsampler; print(sorted(m for m in ('numba', 'numpy') if m in sys.modules))",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert proc.stdout.strip() == "[]"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork() is POSIX-only")
def test_fork_during_and_after_loading(tmp_path: Path) -> None:
    """A child forked while the kernels load, and one forked after, both end up compiled
    and decide exactly as the parent (gunicorn-style prefork)."""
    out = run(
        """
        import os
        def child_report():
            inherited = dsampler.jit_status() == "ready"  # the fork hook waited for the load
            ok = inherited and dsampler.wait_for_jit(240) and decisions() == expected()
            os._exit(0 if ok else 3)
        sampler.should_sample(None, ids[0], "op")
        status_at_fork = dsampler.jit_status()
        pid = os.fork()
        if pid == 0:
            child_report()
        _, during = os.waitpid(pid, 0)
        dsampler.wait_for_jit(240)
        pid = os.fork()
        if pid == 0:
            os._exit(0 if dsampler.jit_status() == "ready" and decisions() == expected() else 4)
        _, after = os.waitpid(pid, 0)
        print(json.dumps({"status_at_fork": status_at_fork, "during": os.waitstatus_to_exitcode(during),
                          "after": os.waitstatus_to_exitcode(after), "parent": decisions() == expected()}))
        """,
        tmp_path,
    )
    assert out["status_at_fork"] == "loading"
    assert (out["during"], out["after"], out["parent"]) == (0, 0, True)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork() is POSIX-only")
def test_child_forked_mid_load_without_waiting_keeps_the_pure_python_path(tmp_path: Path) -> None:
    """If the fork hook may not wait, the child does not re-import a half-imported numba
    (which deadlocks): it decides on the reference path and says so; the parent compiles."""
    out = run(
        """
        import os
        import dsampler.hashing._loader as loader
        loader.FORK_WAIT_S = 0.0
        sampler.should_sample(None, ids[0], "op")
        status_at_fork = dsampler.jit_status()
        pid = os.fork()
        if pid == 0:
            ok = (dsampler.jit_status() == "unavailable" and not dsampler.wait_for_jit(5)
                  and decisions() == expected())
            os._exit(0 if ok else 3)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"status_at_fork": status_at_fork, "child": os.waitstatus_to_exitcode(status),
                          "parent_ready": dsampler.wait_for_jit(240)}))
        """,
        tmp_path,
    )
    assert out["status_at_fork"] == "loading"
    assert (out["child"], out["parent_ready"]) == (0, True)
    assert "forked while numba was loading" in out["stderr"]
