"""Loads the numba kernels in a background thread when they pay (``DSAMPLER_JIT``), then
swaps them in. A fork mid-load would leave modules half-imported by a thread the child
does not have: the first such fork waits for the load, later children keep pure Python.
"""

from __future__ import annotations

import functools
import importlib.util
import itertools
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Final

from dsampler.hashing._schemes import SCHEMES, KeyFn

_log = logging.getLogger("dsampler.hashing")

FORK_WAIT_S = 10.0
#: Hashed decisions per second on the pure-Python path above which the kernels load.
LOAD_AT_PER_SECOND: Final = 20_000
_WATCH_EVERY: Final = 1024  # decisions between two looks at the clock (a power of two)
_YIELD_EVERY: Final = 16  # pure-Python decisions between two hand-overs of the GIL while loading
_YIELD_S: Final = 0.0001  # long enough for the loader to take the GIL
#: About how long a warm-cache load takes; batches use it to decide whether to wait.
TYPICAL_LOAD_S: Final = 0.5
_OFF: Final = frozenset({"0", "false", "no", "off"})
_MODES: Final = frozenset({"", "auto", "warn", "eager"}) | _OFF
_INSTALL: Final = "pip install 'dsampler[jit]'"


@dataclass(frozen=True)
class JitStatus:
    """Which path hashes, and why (:func:`dsampler.jit_status`).

    Attributes:
        state: ``ready`` (numba's kernels serve); else pure Python (C for ``xxh3``) serves
            while ``idle``, ``loading``, or ``unavailable``.
        reason: the why, in a sentence.
    """

    state: str
    reason: str

    def __str__(self) -> str:
        return f"{self.state}: {self.reason}"


def _fast_entry(dispatcher: object) -> KeyFn:
    """The compiled function behind a single-signature dispatcher, else the dispatcher."""
    try:
        return dispatcher.overloads[dispatcher.signatures[0]].entry_point  # type: ignore[attr-defined,no-any-return]
    except (AttributeError, IndexError, KeyError):
        return dispatcher  # type: ignore[return-value]


def _resident_mib() -> float | None:
    """This process's resident memory in MiB (Linux), else None."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return None


def mode() -> str:
    """``DSAMPLER_JIT``, as read."""
    return os.environ.get("DSAMPLER_JIT", "auto").strip().lower()


class KernelLoader:
    """Owns the one background load of :mod:`dsampler.hashing._kernels`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._armed = False
        self._fork_waited = False
        self._calls = itertools.count(1)
        self._window_start = time.monotonic()
        self._why = ""
        self.started_at: float | None = None
        self.state: str = "idle"
        self.kernels: ModuleType | None = None

    def status(self) -> JitStatus:
        """Which path hashes now, and why."""
        state = self.state
        if state in ("ready", "unavailable"):
            return JitStatus(state, self._why)
        if state == "loading":
            elapsed = time.monotonic() - (self.started_at or time.monotonic())
            return JitStatus(state, f"loading for {elapsed:.1f} s ({self._why}); pure Python meanwhile")
        refused = self._refused()
        if refused is not None:
            return JitStatus("unavailable", refused)
        if self._armed:
            return JitStatus(
                "idle",
                f"below the load threshold: loads once the pure-Python path makes more than "
                f"{LOAD_AT_PER_SECOND:,} hashed decisions a second",
            )
        return JitStatus("idle", "not needed yet: no sampler hashes in Python")

    def ensure_started(self) -> None:
        """Arm the rate trigger, start the load (``eager``) or settle on pure Python. Never blocks."""
        if self._armed or self.state != "idle":
            return
        asked = mode()
        if asked not in _MODES:
            _log.warning("dsampler: DSAMPLER_JIT=%r is not one of auto, warn, eager, 0; using auto", asked)
        if asked == "eager" or self._refused():
            self.start("DSAMPLER_JIT=eager")
            return
        with self._lock:
            if not self._armed and self.state == "idle":
                self._armed = True
                for scheme in SCHEMES.values():
                    if scheme.needs_kernel:
                        scheme.key = self._every(scheme.reference, self._calls, _WATCH_EVERY, self._tick)

    def start(self, why: str = "wait_for_jit()") -> None:
        """Start loading in the background unless it has started or cannot. Never blocks."""
        if self.state != "idle":
            return
        with self._lock:
            if self.state != "idle":
                return
            refused = self._refused()
            if refused is not None:
                self._finish_unavailable(refused, level=logging.INFO)
                return
            self.state, self._why = "loading", why
            self.started_at = time.monotonic()
            for scheme in SCHEMES.values():  # while loading, deciders give the loader the GIL
                if scheme.needs_kernel:
                    pause = functools.partial(time.sleep, _YIELD_S)
                    scheme.key = self._every(scheme.reference, itertools.count(1), _YIELD_EVERY, pause)
            threading.Thread(target=self._run, name="dsampler-jit", daemon=True).start()

    def wait(self, timeout: float | None = None) -> bool:
        """Start if needed and wait until the kernels are ready; False if unavailable."""
        self.start()
        self._done.wait(timeout)
        return self.state == "ready"

    def expected_wait_s(self) -> float | None:
        """Roughly how long until the kernels serve: 0 when ready, None if never."""
        if self.state == "ready":
            return 0.0
        if self.state == "unavailable":
            return None
        elapsed = 0.0 if self.started_at is None else time.monotonic() - self.started_at
        return max(TYPICAL_LOAD_S - elapsed, 0.05)

    @staticmethod
    def _refused() -> str | None:
        if mode() in _OFF:
            return f"disabled by DSAMPLER_JIT={os.environ.get('DSAMPLER_JIT', '').strip()}"
        if os.environ.get("NUMBA_DISABLE_JIT", "0").strip() not in ("", "0"):
            return "NUMBA_DISABLE_JIT is set, under which numba would interpret its kernels"
        if "numba" in sys.modules:
            missing = sys.modules["numba"] is None
        else:
            missing = importlib.util.find_spec("numba") is None
        return f"numba is not installed ({_INSTALL} for the compiled kernels)" if missing else None

    @staticmethod
    def _every(reference: KeyFn, calls: Iterator[int], every: int, then: Callable[[], object]) -> KeyFn:
        """``reference`` that calls ``then`` once in ``every`` (a power of two) of ``calls``."""
        mask = every - 1

        def key(hi: int, lo: int) -> int:
            if not next(calls) & mask:
                then()
            return reference(hi, lo)

        return key

    def _tick(self) -> None:
        now = time.monotonic()
        busy = now - self._window_start < _WATCH_EVERY / LOAD_AT_PER_SECOND
        self._window_start = now  # a race between two ticks costs one window at most
        if busy:
            self.start(f"more than {LOAD_AT_PER_SECOND:,} hashed decisions a second")

    def _run(self) -> None:
        numba_before, rss_before = "numba" in sys.modules, _resident_mib()
        why = self._import()
        if why is not None:
            self._finish_unavailable(why, level=logging.WARNING)
            return
        took, rss_after = time.monotonic() - (self.started_at or 0.0), _resident_mib()
        grown = ""
        if rss_before is not None and rss_after is not None:
            grown = f", {rss_after - rss_before:+.0f} MiB resident"
        self._why = f"numba kernels loaded in {took:.2f} s ({self._why}){grown}"
        self.state = "ready"
        self._done.set()
        loud = mode() == "warn" and not numba_before
        _log.log(
            logging.WARNING if loud else logging.INFO,
            "dsampler: %s%s; DSAMPLER_JIT=0 keeps pure Python, hash=xxh3 needs no JIT",
            self._why,
            ", into a process that had not imported numba" if loud else "",
        )

    def _import(self) -> str | None:
        """Import the kernels and swap them in; the reason if they cannot serve."""
        try:
            import numba

            if numba.config.DISABLE_JIT:  # type: ignore[attr-defined]
                return "numba's DISABLE_JIT is set, under which numba would interpret its kernels"
            from dsampler.hashing import _kernels
        except Exception as exc:  # numba missing, broken llvmlite, unwritable cache...
            return f"{type(exc).__name__}: {exc}"
        for scheme in SCHEMES.values():
            if scheme.needs_kernel:
                scheme.key = _fast_entry(_kernels.SCALAR[scheme.kernel])
                scheme.compiled = True
        self.kernels = _kernels
        return None

    def _finish_unavailable(self, why: str, *, level: int) -> None:
        for scheme in SCHEMES.values():  # drop the rate watch: nothing left to trigger
            if scheme.needs_kernel:
                scheme.key = scheme.reference
        self._why = why
        self.state = "unavailable"
        self._done.set()
        _log.log(
            level,
            "dsampler: numba kernels unavailable (%s); using pure-Python hashing, "
            "which is slower but decides identically",
            why,
        )

    def _before_fork(self) -> None:
        if self.state == "loading" and not self._fork_waited:
            self._fork_waited = True  # a load that never ends holds up one fork, not all
            self._done.wait(FORK_WAIT_S)

    def _after_fork_in_child(self) -> None:
        self._lock = threading.Lock()  # a fork inside start() would leave it held
        if self.state == "loading":  # the parent's loader thread does not exist here
            self._done = threading.Event()
            self._finish_unavailable("the process was forked while numba was loading", level=logging.WARNING)


LOADER: Final = KernelLoader()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=LOADER._before_fork, after_in_child=LOADER._after_fork_in_child)
