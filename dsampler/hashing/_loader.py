"""Loads the numba kernels off the request path, when they pay, then swaps them in.

Until the kernels are ready every hash scheme serves its pure-Python reference, so no
decision waits for the JIT. numba costs a process ~60 MB and, left to the garbage
collector, makes every full collection several times longer; it pays only where
decisions are many. So by default (``DSAMPLER_JIT`` unset or ``auto``) the load starts
when the pure-Python path is busy: more than :data:`LOAD_AT_PER_SECOND` hashed
decisions a second, which a process deciding flat out reaches in its first
milliseconds and a web worker deciding a few thousand roots a second never does.
``wait_for_jit()`` and large batches start it at once; ``DSAMPLER_JIT=eager`` starts it
with the first sampler; ``DSAMPLER_JIT=0`` (or ``NUMBA_DISABLE_JIT=1``, under which
numba would run its kernels interpreted, slower than the reference) never does. The
``xxh3`` scheme hashes in C through the xxhash library and never needs numba: it is the
lean mode. Compiled code is cached on disk by numba (``cache=True``; set
``NUMBA_CACHE_DIR`` where the package directory is read-only).

While the load runs (:class:`_LoadWindow`): the garbage collector is paused, because
the ~100,000 objects that importing numba creates would trigger full collections that
hold the GIL for 30-100 ms; the switch interval is lowered, because each of the
loader's ~9,000 GIL releases (file reads, ctypes calls) could otherwise cost it a whole
5 ms interval behind a busy thread. Both are restored afterwards (the application's own
values, unless it changed them meanwhile), and everything tracked by then is moved out
of the collector's sight with ``gc.freeze()`` so that later full collections do not
rescan numba's objects (``DSAMPLER_GC_FREEZE=0`` skips the freeze).

Fork safety: a fork while the loader thread is importing leaves the child with modules
half-imported by a thread that does not exist there; importing them again deadlocks.
So the first fork that comes during a load waits for it (at most ``FORK_WAIT_S``);
later ones do not wait, and the child of a fork that came mid-load keeps the
pure-Python path for its lifetime (and says so) instead of hanging.
"""

from __future__ import annotations

import gc
import itertools
import logging
import os
import sys
import threading
import time
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final

from dsampler.hashing._schemes import SCHEMES, KeyFn

__all__ = ["FORK_WAIT_S", "LOADER", "LOAD_AT_PER_SECOND", "KernelLoader", "State"]

_log = logging.getLogger("dsampler.hashing")

if TYPE_CHECKING:  # typing.Literal's first use costs 1-2 ms at import
    from typing import Literal

    State = Literal["idle", "loading", "ready", "unavailable"]
else:
    State = str
FORK_WAIT_S = 10.0
#: Hashed decisions per second on the pure-Python path above which the kernels load:
#: there they save about 2% of a core (1 us a decision).
LOAD_AT_PER_SECOND: Final = 20_000
_WATCH_EVERY: Final = 1024  # decisions between two looks at the clock (a power of two)
LOAD_SWITCH_INTERVAL_S: Final = 0.0001
_YIELD_EVERY: Final = 16  # pure-Python decisions between two hand-overs of the GIL while loading
_YIELD_S: Final = 0.0001  # long enough for the loader to take the GIL
#: A warm-cache load takes 0.3-0.4 s here; batches use this to decide whether to wait.
TYPICAL_LOAD_S: Final = 0.5
_OFF: Final = frozenset({"0", "false", "no", "off"})


def _fast_entry(dispatcher: Any) -> Any:
    """The compiled function behind a single-signature dispatcher.

    Calling it skips numba's per-call type dispatch (about 60 ns of 160 ns); the
    dispatcher itself still serves if numba's internals ever move.
    """
    try:
        return dispatcher.overloads[dispatcher.signatures[0]].entry_point
    except (AttributeError, IndexError, KeyError):
        return dispatcher


class _LoadWindow:
    """The collector paused and a short switch interval, for the duration of a load."""

    def __init__(self) -> None:
        self._gc_was_enabled = gc.isenabled()
        self._interval = sys.getswitchinterval()
        gc.disable()
        sys.setswitchinterval(min(self._interval, LOAD_SWITCH_INTERVAL_S))
        self._lowered = sys.getswitchinterval()  # as the interpreter rounded it

    def close(self, *, freeze: bool) -> None:
        if sys.getswitchinterval() == self._lowered:
            sys.setswitchinterval(self._interval)  # unless the application set its own
        if freeze and os.environ.get("DSAMPLER_GC_FREEZE", "1").strip().lower() not in _OFF:
            gc.freeze()
        if self._gc_was_enabled:
            gc.enable()


class KernelLoader:
    """Owns the one background load of :mod:`dsampler.hashing._kernels`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self._window: _LoadWindow | None = None
        self._armed = False
        self._fork_waited = False
        self._calls = itertools.count(1)
        self._window_start = time.monotonic()
        self.started_at: float | None = None
        self.state: State = "idle"
        self.error: str | None = None
        self.kernels: ModuleType | None = None

    def ensure_started(self) -> None:
        """What a sampler calls when it is built: arm the rate trigger (``auto``), start
        the load (``eager``) or settle on pure Python (``0``). Never blocks."""
        if self._armed or self.state != "idle":
            return
        mode = os.environ.get("DSAMPLER_JIT", "auto").strip().lower()
        if mode == "eager" or self._refused():
            self.start()
            return
        with self._lock:
            if not self._armed and self.state == "idle":
                self._armed = True
                for scheme in SCHEMES.values():
                    if scheme.needs_kernel:
                        scheme.key = self._watching(scheme.reference)

    def start(self) -> None:
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
            self.state = "loading"
            self.started_at = time.monotonic()
            for scheme in SCHEMES.values():  # while loading, deciders make way for the loader
                if scheme.needs_kernel:
                    scheme.key = self._yielding(scheme.reference)
            self._thread = threading.Thread(target=self._run, name="dsampler-jit", daemon=True)
            self._thread.start()

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
        if os.environ.get("DSAMPLER_JIT", "").strip().lower() in _OFF:
            return "disabled by DSAMPLER_JIT"
        if os.environ.get("NUMBA_DISABLE_JIT", "0").strip() not in ("", "0"):
            return "NUMBA_DISABLE_JIT is set, under which numba would interpret its kernels"
        return None

    def _watching(self, reference: KeyFn) -> KeyFn:
        """``reference`` counting its calls: every 1,024th looks at the clock, and starts
        the load if those calls came faster than :data:`LOAD_AT_PER_SECOND`."""
        calls, mask = self._calls, _WATCH_EVERY - 1

        def key(hi: int, lo: int) -> int:
            if not next(calls) & mask:
                self._tick()
            return reference(hi, lo)

        return key

    @staticmethod
    def _yielding(reference: KeyFn) -> KeyFn:
        """``reference`` that steps aside every 16th call while the kernels load (a 100 us
        sleep): a thread deciding flat out would otherwise hold the GIL for whole switch
        intervals while the loader, which gives it up at each of its ~9,000 system calls,
        waits to get it back, behind every other busy thread. Measured ready times, one
        busy thread / four: 2.2-2.4 s / over 8 s with no yield; 1.06 / 4.07 s yielding
        (``sleep(0)``) every 64th call; 0.80 / 2.43 s with this. The cost is confined to
        the load window (about a second): a decision there is never delayed by more
        than the sleep.
        """
        calls, mask, sleep = itertools.count(1), _YIELD_EVERY - 1, time.sleep

        def key(hi: int, lo: int) -> int:
            if not next(calls) & mask:
                sleep(_YIELD_S)
            return reference(hi, lo)

        return key

    def _tick(self) -> None:
        now = time.monotonic()
        busy = now - self._window_start < _WATCH_EVERY / LOAD_AT_PER_SECOND
        self._window_start = now  # a race between two ticks costs one window at most
        if busy:
            self.start()

    def _run(self) -> None:
        self._window = window = _LoadWindow()
        try:
            why = self._import()
        finally:
            self._window = None
            window.close(freeze=True)
        if why is not None:
            self._finish_unavailable(why, level=logging.WARNING)
            return
        self.state = "ready"
        self._done.set()
        _log.debug("dsampler: numba kernels ready")

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
                scheme.key = _fast_entry(_kernels.SCALAR_BY_CODE[scheme.code])
                scheme.compiled = True
        self.kernels = _kernels
        return None

    def _finish_unavailable(self, why: str, *, level: int) -> None:
        for scheme in SCHEMES.values():  # drop the rate watch: nothing left to trigger
            if scheme.needs_kernel:
                scheme.key = scheme.reference
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
        if self.state == "loading" and not self._fork_waited:
            self._fork_waited = True  # a load that never ends holds up one fork, not all
            self._done.wait(FORK_WAIT_S)

    def _after_fork_in_child(self) -> None:
        self._lock = threading.Lock()  # a fork inside start() would leave it held
        if self.state == "loading":  # the parent's loader thread does not exist here
            if self._window is not None:  # nor will it end the load window
                self._window.close(freeze=False)
                self._window = None
            self._done = threading.Event()
            self._finish_unavailable("the process was forked while numba was loading", level=logging.WARNING)


LOADER: Final = KernelLoader()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=LOADER._before_fork, after_in_child=LOADER._after_fork_in_child)
