"""The JIT never stalls a decision: cold cache, numba missing, DSAMPLER_JIT=0, os.fork()."""

from __future__ import annotations

import importlib.util
import json
import os
import re
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


def run(code: str, tmp_path: Path | None, prelude: str = "", **env: str) -> dict[str, Any]:
    """Run ``code`` after :data:`DECIDE` in a new interpreter; its last line is JSON.

    With ``tmp_path`` numba's cache starts empty there (a cold cache: the kernels compile);
    with None the process uses the cache the test session itself loaded the kernels from
    (tests/conftest.py), which is warm.
    """
    cold = {} if tmp_path is None else {"NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    full_env = {**os.environ, **cold, **env}
    proc = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(DECIDE) + textwrap.dedent(code)],
        env=full_env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    last = json.loads(proc.stdout.strip().splitlines()[-1])
    out: dict[str, Any] = last if isinstance(last, dict) else {"stdout": last}
    out["stderr"] = proc.stderr
    return out


#: What jit_status() says once a sampler that hashes in Python is made: idle below the load
#: threshold where numba (the jit extra) is installed, else unavailable.
IDLE = "idle" if importlib.util.find_spec("numba") else "unavailable"


#: A prelude: the objects frozen before dsampler is imported (CPython 3.12 starts with a
#: few hundred in its permanent generation; 3.10, 3.11 and 3.13 with none).
FROZEN_AT_START = "import gc\nFROZEN_AT_START = gc.get_freeze_count()\n"


def needs_numba() -> None:
    """Skip where numba, the jit extra, is not installed."""
    pytest.importorskip("numba", reason="the compiled kernels are the jit extra: pip install 'dsampler[jit]'")


def test_cold_cache_first_decision_is_served_while_the_kernels_compile(tmp_path: Path) -> None:
    """With an empty numba cache the first decisions come from the reference path (a
    busy one starts the load), then the compiled kernels take over, with identical
    decisions and a populated cache."""
    needs_numba()
    out = run(
        """
        t0 = time.perf_counter()
        first = sampler.should_sample(None, ids[0], "op")
        first_s = time.perf_counter() - t0
        before = decisions()  # 2,000 decisions flat out: busy enough to start the load
        status_at_first = dsampler.jit_status().state
        ready = dsampler.wait_for_jit(240)
        after = decisions()
        print(json.dumps({"status_at_first": status_at_first, "first_s": first_s, "ready": ready,
                          "same": before == after == expected(), "status": dsampler.jit_status().state}))
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
        print(json.dumps({"ready": ready, "status": dsampler.jit_status().state,
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
    needs_numba()
    out = run(
        """
        import os
        import dsampler.hashing._loader as loader
        # The first fork waits for the load, however long a cold compile takes on a busy
        # machine (more than the default 10 s under a parallel test run); that the wait is
        # bounded is test_a_load_that_never_ends_holds_up_at_most_the_first_fork's.
        loader.FORK_WAIT_S = 240.0
        def child_report():
            inherited = dsampler.jit_status().state == "ready"  # the fork hook waited for the load
            ok = inherited and dsampler.wait_for_jit(240) and decisions() == expected()
            os._exit(0 if ok else 3)
        sampler.should_sample(None, ids[0], "op")
        status_at_fork = dsampler.jit_status().state
        pid = os.fork()
        if pid == 0:
            child_report()
        _, during = os.waitpid(pid, 0)
        dsampler.wait_for_jit(240)
        pid = os.fork()
        if pid == 0:
            os._exit(0 if dsampler.jit_status().state == "ready" and decisions() == expected() else 4)
        _, after = os.waitpid(pid, 0)
        print(json.dumps({"status_at_fork": status_at_fork, "during": os.waitstatus_to_exitcode(during),
                          "after": os.waitstatus_to_exitcode(after), "parent": decisions() == expected()}))
        """,
        tmp_path,
        DSAMPLER_JIT="eager",
    )
    assert out["status_at_fork"] == "loading"
    assert (out["during"], out["after"], out["parent"]) == (0, 0, True)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork() is POSIX-only")
def test_child_forked_mid_load_without_waiting_keeps_the_pure_python_path(tmp_path: Path) -> None:
    """If the fork hook may not wait, the child does not re-import a half-imported numba
    (which deadlocks): it decides on the reference path and says so; the parent compiles."""
    needs_numba()
    out = run(
        """
        import os
        import dsampler.hashing._loader as loader
        loader.FORK_WAIT_S = 0.0
        sampler.should_sample(None, ids[0], "op")
        status_at_fork = dsampler.jit_status().state
        pid = os.fork()
        if pid == 0:
            ok = (dsampler.jit_status().state == "unavailable" and not dsampler.wait_for_jit(5)
                  and decisions() == expected())
            os._exit(0 if ok else 3)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"status_at_fork": status_at_fork, "child": os.waitstatus_to_exitcode(status),
                          "parent_ready": dsampler.wait_for_jit(240)}))
        """,
        tmp_path,
        DSAMPLER_JIT="eager",
    )
    assert out["status_at_fork"] == "loading"
    assert (out["child"], out["parent_ready"]) == (0, True)
    assert "forked while numba was loading" in out["stderr"]


# `import dsampler.hashing._kernels` that never returns: a loader that never finishes,
# on the old and the new loader alike. It blocks in exec_module, which holds only that
# module's lock (blocking in find_spec would hold the global import lock, which
# os.fork() itself takes).
NEVER_ENDING_LOAD = """
import importlib.abc, importlib.machinery, sys, threading
class _NeverLoader(importlib.abc.Loader):
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        threading.Event().wait()
class _Never:
    def find_spec(self, name, path=None, target=None):
        if name == "dsampler.hashing._kernels":
            return importlib.machinery.ModuleSpec(name, _NeverLoader())
        return None
sys.meta_path.insert(0, _Never())
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork() is POSIX-only")
def test_a_load_that_never_ends_holds_up_at_most_the_first_fork(tmp_path: Path) -> None:
    """Prefork servers fork many workers: only the first fork may wait for a stuck load,
    the next ones go ahead at once (children keep the pure-Python path)."""
    needs_numba()
    out = run(
        """
        import os
        import dsampler.hashing._loader as loader
        loader.FORK_WAIT_S = 1.0
        dsampler.RatioSampler(0.1)
        waits = []
        for _ in range(3):
            t0 = time.perf_counter()
            pid = os.fork()
            if pid == 0:
                os._exit(0 if decisions() == expected() else 3)
            waits.append(time.perf_counter() - t0)
            os.waitpid(pid, 0)
        print(json.dumps({"status": dsampler.jit_status().state, "waits": waits}))
        """,
        tmp_path,
        prelude=NEVER_ENDING_LOAD,
        DSAMPLER_JIT="eager",
    )
    assert out["status"] == "loading"
    first, *later = out["waits"]
    assert first >= 0.9  # the first fork waited (FORK_WAIT_S = 1 s)
    assert all(w < 0.5 for w in later), out["waits"]


def test_numba_disable_jit_keeps_the_pure_python_path_and_says_so_once(tmp_path: Path) -> None:
    """Under NUMBA_DISABLE_JIT=1 numba would run its kernels interpreted (slower than the
    reference, with warnings): dsampler keeps the pure-Python path, logged once."""
    out = run(
        """
        import warnings
        warnings.simplefilter("error")
        ready = dsampler.wait_for_jit(60)
        dsampler.RatioSampler(0.5)
        same = decisions() == expected()
        print(json.dumps({"ready": ready, "status": dsampler.jit_status().state, "same": same,
                          "numba": "numba" in sys.modules}))
        """,
        tmp_path,
        prelude="import logging\nlogging.basicConfig(level=logging.INFO)\n",
        NUMBA_DISABLE_JIT="1",
    )
    assert (out["ready"], out["status"], out["same"], out["numba"]) == (False, "unavailable", True, False)
    assert out["stderr"].count("NUMBA_DISABLE_JIT") == 1


def test_a_process_deciding_slowly_never_loads_numba(tmp_path: Path) -> None:
    """A few thousand decisions a second (a web worker's roots) do not pay for numba's
    memory: the kernels stay unloaded and numba is never imported."""
    needs_numba()
    out = run(
        """
        for i in range(20):
            sampler.should_sample(None, ids[i], "op")
            if i % 4 == 0:
                time.sleep(0.02)
        for _ in range(3):  # bursts of 1,000 spread over 0.3 s: ~3,000 a second
            for t in ids[:1000]:
                sampler.should_sample(None, t, "op")
                time.sleep(0.0003)
        print(json.dumps({"status": dsampler.jit_status().state, "numba": "numba" in sys.modules,
                          "same": decisions()[:500] == expected()[:500]}))
        """,
        tmp_path,
    )
    assert out["status"] == "idle"
    assert out["numba"] is False
    assert out["same"] is True


def test_xxh3_is_the_lean_mode_without_numba_even_flat_out(tmp_path: Path) -> None:
    """``hash=xxh3`` hashes in C through xxhash: deciding flat out never loads numba, and
    decisions equal the pure-Python definition."""
    out = run(
        """
        from dsampler.hashing._reference import xxh3_key
        lean = dsampler.RatioSampler(0.3, hash="xxh3")
        for _ in range(50):
            got = [lean.should_sample(None, t, "op").decision.is_sampled() for t in ids]
        want = [xxh3_key(t >> 64, t & MASK64) < lean.bound for t in ids]
        print(json.dumps({"numba": "numba" in sys.modules, "same": got == want,
                          "status": dsampler.jit_status().state}))
        """,
        tmp_path,
    )
    assert out == {"numba": False, "same": True, "status": IDLE, "stderr": out["stderr"]}


def test_kernels_arrive_under_busy_threads_and_the_host_is_left_alone() -> None:
    """Four threads deciding flat out from the start: the kernels serve within a generous
    bound (warm cache), and neither during the load nor after it is the collector
    paused, anything frozen or the application's switch interval changed."""
    needs_numba()
    out = run(
        """
        import gc, threading
        sys.setswitchinterval(0.002)  # the application's own value
        seen = {"interval": set(), "gc_enabled": True}
        stop = threading.Event()
        t0 = time.perf_counter()
        ready_at = []
        def busy():
            while not stop.is_set():
                for t in ids[:256]:
                    sampler.should_sample(None, t, "op")
                if dsampler.jit_status().state == "loading":
                    seen["interval"].add(sys.getswitchinterval())
                    seen["gc_enabled"] = seen["gc_enabled"] and gc.isenabled()
                if not ready_at and dsampler.jit_status().state == "ready":
                    ready_at.append(time.perf_counter() - t0)
        threads = [threading.Thread(target=busy) for _ in range(4)]
        for th in threads:
            th.start()
        ready = dsampler.wait_for_jit(60)
        time.sleep(0.05)
        stop.set()
        for th in threads:
            th.join()
        print(json.dumps({"ready": ready, "ready_s": ready_at[0] if ready_at else None,
                          "interval": sorted(seen["interval"]), "gc_enabled": seen["gc_enabled"],
                          "interval_after": sys.getswitchinterval(), "gc_after": gc.isenabled(),
                          "frozen": gc.get_freeze_count() - FROZEN_AT_START,
                          "same": decisions() == expected()}))
        """,
        None,  # the session's warm cache
        prelude=FROZEN_AT_START,
    )
    assert out["ready"] is True
    assert out["ready_s"] is not None
    assert out["ready_s"] < 20.0  # generous: seconds here, busy machine
    assert out["interval"] in ([], [0.002])  # seen while loading (if a thread looked then)
    assert out["gc_enabled"] is True
    assert (out["interval_after"], out["gc_after"], out["frozen"]) == (0.002, True, 0)
    assert out["same"] is True


def test_loading_the_kernels_leaves_the_collector_and_switch_interval_alone() -> None:
    """With real numba and DSAMPLER_JIT=eager: once the kernels serve, the collector is
    enabled, nothing is frozen and the switch interval is the one the process had."""
    needs_numba()
    out = run(
        """
        import gc
        before = sys.getswitchinterval()
        ready = dsampler.wait_for_jit(240)
        frozen = gc.get_freeze_count() - FROZEN_AT_START
        print(json.dumps({"ready": ready, "gc": gc.isenabled(), "frozen": frozen,
                          "interval": sys.getswitchinterval() == before, "numba": "numba" in sys.modules}))
        """,
        None,  # the session's warm cache: what is left does not depend on a compile
        prelude=FROZEN_AT_START,
        DSAMPLER_JIT="eager",
    )
    assert (out["ready"], out["gc"], out["frozen"], out["interval"], out["numba"]) == (
        True,
        True,
        0,
        True,
        True,
    )


def test_the_load_is_announced_once_at_info_with_its_memory() -> None:
    """The load is said once, at INFO on dsampler's logger, with the resident memory it
    added; nothing at WARNING unless asked (DSAMPLER_JIT=warn)."""
    needs_numba()
    out = run(
        """
        import logging
        logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s %(message)s")
        ready = dsampler.wait_for_jit(240)
        dsampler.RatioSampler(0.2)  # another sampler says nothing more
        print(json.dumps({"ready": ready}))
        """,
        None,
        DSAMPLER_JIT="eager",
    )
    lines = [line for line in out["stderr"].splitlines() if "numba kernels" in line]
    assert len(lines) == 1, out["stderr"]
    assert re.match(
        r"INFO dsampler\.hashing dsampler: numba kernels loaded in [0-9.]+ s \(DSAMPLER_JIT=eager\), "
        r"\+[0-9]+ MiB resident; DSAMPLER_JIT=0 keeps pure Python",
        lines[0],
    ), lines[0]


@pytest.mark.parametrize("numba_before", [False, True], ids=["numba new", "numba imported before"])
def test_warn_mode_warns_when_the_load_brings_numba_in(numba_before: bool) -> None:
    """DSAMPLER_JIT=warn: a load that imports numba into the process is one WARNING line;
    where the application had imported numba itself it stays at INFO."""
    needs_numba()
    out = run(
        """
        import logging
        logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
        decisions()  # 2,000 decisions flat out: busy enough to start the load
        print(json.dumps({"ready": dsampler.wait_for_jit(240)}))
        """,
        None,
        prelude="import numba\n" if numba_before else "",
        DSAMPLER_JIT="warn",
    )
    lines = [line for line in out["stderr"].splitlines() if "numba kernels loaded" in line]
    assert out["ready"] is True
    assert len(lines) == 1
    if numba_before:
        assert lines[0].startswith("INFO dsampler: numba kernels loaded in ")
    else:
        assert lines[0].startswith("WARNING dsampler: numba kernels loaded in ")
        assert "into a process that had not imported numba" in lines[0]


def test_jit_status_says_which_path_serves_and_why(tmp_path: Path) -> None:
    """jit_status() names the path and the reason: not needed yet, below the load
    threshold, disabled, not installed."""
    fresh = subprocess.run(
        [sys.executable, "-c", "import dsampler; print(dsampler.jit_status())"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    missing = "unavailable: numba is not installed (pip install 'dsampler[jit]' for the compiled kernels)"
    expected = "idle: not needed yet: no sampler hashes in Python" if IDLE == "idle" else missing
    assert fresh.stdout.strip() == expected
    code = "print(json.dumps([dsampler.jit_status().state, dsampler.jit_status().reason]))"
    if IDLE == "idle":
        assert run(code, tmp_path)["stdout"] == [
            "idle",
            "below the load threshold: loads once the pure-Python path makes more than 20,000 hashed "
            "decisions a second",
        ]
    assert run(code, tmp_path, DSAMPLER_JIT="off")["stdout"] == [
        "unavailable",
        "disabled by DSAMPLER_JIT=off",
    ]
    missing = run(code, tmp_path, prelude="import sys\nsys.modules['numba'] = None\n")
    assert missing["stdout"] == [
        "unavailable",
        "numba is not installed (pip install 'dsampler[jit]' for the compiled kernels)",
    ]


def test_an_unknown_dsampler_jit_value_is_named_once(tmp_path: Path) -> None:
    """DSAMPLER_JIT=yes is no documented value: said once at WARNING, and auto serves."""
    out = run(
        """
        dsampler.RatioSampler(0.1)
        dsampler.RatioSampler(0.2)
        print(json.dumps(dsampler.jit_status().state))
        """,
        tmp_path,
        DSAMPLER_JIT="yes",
    )
    assert out["stdout"] == IDLE
    assert out["stderr"].count("DSAMPLER_JIT='yes' is not one of auto, warn, eager, 0") == 1


def test_a_large_batch_waits_for_a_kernel_that_is_near_instead_of_the_twin() -> None:
    """When the numpy twin would take longer over a batch than the kernel load, the
    batch gets the kernel: the twin is never called, and the decisions are the same."""
    needs_numba()
    out = run(
        """
        import numpy as np
        import dsampler.hashing._batch as batch
        from dsampler.hashing import _numpy_twin
        batch._TWIN_IDS_PER_S = 1000.0  # as if the twin were slow: 300 s for this batch
        def refuse(*args):
            raise AssertionError("the numpy twin ran")
        _numpy_twin.keys = refuse
        hi = np.array([t >> 64 for t in ids] * 150, dtype=np.uint64)
        lo = np.array([t & MASK64 for t in ids] * 150, dtype=np.uint64)
        got = dsampler.decide_batch(hi, lo, 0.3).tolist()
        print(json.dumps({"status": dsampler.jit_status().state, "same": got == expected() * 150}))
        """,
        None,  # the session's warm cache: a load of TYPICAL_LOAD_S, far below the twin's 300 s
    )
    assert out["status"] == "ready"
    assert out["same"] is True
