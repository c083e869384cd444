"""Loads the numba kernels off the request path, then swaps them into the hash schemes.

Until the kernels are ready every hash scheme serves its pure-Python reference, so no decision
waits for the JIT: the first call after start-up costs microseconds, not the seconds a
cold compile takes. Compiled code is cached on disk by numba (``cache=True``; set
``NUMBA_CACHE_DIR`` where the package directory is read-only), so later processes only
pay the import of numba and a cache load, still in the background.

``DSAMPLER_JIT=0`` keeps the pure-Python path (for debugging or locked-down hosts); a
host where numba cannot load says so once in the log and keeps working, slower.

Fork safety: a fork while the loader thread is importing leaves the child with modules
half-imported by a thread that does not exist there; importing them again deadlocks.
So a ``before`` fork hook waits (at most ``FORK_WAIT_S``) for the load to finish, and the
child of a fork that still came mid-load keeps the pure-Python path for its lifetime
(and says so) instead of hanging.
"""

from __future__ import annotations

import logging
import os
import threading
from types import ModuleType
from typing import Any, Final, Literal

from dsampler.hashing._schemes import SCHEMES

__all__ = ["FORK_WAIT_S", "LOADER", "KernelLoader", "State"]

_log = logging.getLogger("dsampler.hashing")

State = Literal["idle", "loading", "ready", "unavailable"]
FORK_WAIT_S = 30.0
_DISABLED_VALUES: Final = frozenset({"0", "false", "no", "off"})


def _fast_entry(dispatcher: Any) -> Any:
    """The compiled function behind a single-signature dispatcher.

    Calling it skips numba's per-call type dispatch (about 60 ns of 160 ns); the
    dispatcher itself still serves if numba's internals ever move.
    """
    try:
        return dispatcher.overloads[dispatcher.signatures[0]].entry_point
    except (AttributeError, IndexError, KeyError):
        return dispatcher


class KernelLoader:
    """Owns the one background load of :mod:`dsampler.hashing._kernels`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self.state: State = "idle"
        self.error: str | None = None
        self.kernels: ModuleType | None = None

    def ensure_started(self) -> None:
        """Start loading in the background unless it has started already. Never blocks."""
        if self.state != "idle":
            return
        with self._lock:
            if self.state != "idle":
                return
            if os.environ.get("DSAMPLER_JIT", "1").strip().lower() in _DISABLED_VALUES:
                self._finish_unavailable("disabled by DSAMPLER_JIT", level=logging.INFO)
                return
            self.state = "loading"
            self._thread = threading.Thread(target=self._run, name="dsampler-jit", daemon=True)
            self._thread.start()

    def wait(self, timeout: float | None = None) -> bool:
        """Start if needed and wait until the kernels are ready; False if unavailable."""
        self.ensure_started()
        self._done.wait(timeout)
        return self.state == "ready"

    def _run(self) -> None:
        try:
            from dsampler.hashing import _kernels
        except Exception as exc:  # numba missing, broken llvmlite, unwritable cache...
            self._finish_unavailable(f"{type(exc).__name__}: {exc}", level=logging.WARNING)
            return
        for scheme in SCHEMES.values():
            if scheme.hashes:
                scheme.key = _fast_entry(_kernels.SCALAR_BY_CODE[scheme.code])
                scheme.compiled = True
        self.kernels = _kernels
        self.state = "ready"
        self._done.set()
        _log.debug("dsampler: numba kernels ready")

    def _finish_unavailable(self, why: str, *, level: int) -> None:
        self.error = why
        self.state = "unavailable"
        self._done.set()
        _log.log(
            level,
            "dsampler: numba kernels unavailable (%s); using pure-Python hashing, "
            "which is slower but decides identically",
            why,
        )

    def _before_fork(self) -> None:
        if self.state == "loading":
            self._done.wait(FORK_WAIT_S)

    def _after_fork_in_child(self) -> None:
        self._lock = threading.Lock()  # a fork inside ensure_started() would leave it held
        if self.state == "loading":  # the parent's loader thread does not exist here
            self._done = threading.Event()
            self._finish_unavailable("the process was forked while numba was loading", level=logging.WARNING)


LOADER: Final = KernelLoader()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=LOADER._before_fork, after_in_child=LOADER._after_fork_in_child)
