"""A background daemon thread that calls its owner's ``poll_once()`` at an interval (or
as the owner's ``next_delay_s()`` says). It holds its owner weakly, so an owner nobody
keeps is collected and the thread ends at once; it restarts in a forked child; a poll
that raises is logged and the owner keeps its last good state.
"""

from __future__ import annotations

import logging
import threading
import weakref
from typing import Protocol

from dsampler import _fork

_log = logging.getLogger("dsampler")


class Pollable(Protocol):
    def poll_once(self) -> object: ...


class Poller:
    """Calls ``owner.poll_once()`` every ``interval_s`` seconds, the first time after
    ``first_delay_s`` (default ``interval_s``)."""

    def __init__(
        self, owner: Pollable, interval_s: float, *, name: str, first_delay_s: float | None = None
    ) -> None:
        self._owner = weakref.ref(owner)
        self._interval = interval_s
        self._first = interval_s if first_delay_s is None else first_delay_s
        self._name = name
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._finalizer: weakref.finalize[[], Pollable] | None = None
        self._restart = False
        _fork.register(self._reset_after_fork, self._restart_after_fork)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        """Start polling (idempotent)."""
        if self.running:
            return
        owner = self._owner()
        if owner is None:
            return
        self._stop = threading.Event()
        if self._finalizer is not None:
            self._finalizer.detach()
        self._finalizer = weakref.finalize(owner, self._stop.set)  # freed owner: stop now
        self._finalizer.atexit = False
        del owner
        self._thread = threading.Thread(
            target=_loop,
            args=(self._owner, self._stop, self._first, self._interval),
            name=self._name,
            daemon=True,
        )
        self._thread.start()

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop polling and wait up to ``timeout_s`` for the thread (idempotent)."""
        self._restart = False
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=timeout_s)

    def _reset_after_fork(self) -> None:
        self._restart = self._thread is not None and not self._stop.is_set()
        self._thread = None  # the parent's thread does not exist here
        self._stop = threading.Event()  # the old one's lock may be held by a parent's thread
        if self._finalizer is not None:
            self._finalizer.detach()  # it would set the old one
            self._finalizer = None

    def _restart_after_fork(self) -> None:
        if self._restart:
            self._restart = False
            self.start()


def _loop(owner_ref: weakref.ref[Pollable], stop: threading.Event, first: float, interval: float) -> None:
    delay: float | None = first
    while not stop.wait(delay):
        delay = _poll(owner_ref, interval)
        if delay is None:  # collected: nobody can use what we would poll for
            return


def _poll(owner_ref: weakref.ref[Pollable], interval: float) -> float | None:
    """One poll; the wait before the next. Its own frame, so no reference to the owner
    outlives the poll."""
    owner = owner_ref()
    if owner is None:
        return None
    try:
        owner.poll_once()
        next_delay = getattr(owner, "next_delay_s", None)
        return interval if next_delay is None else float(next_delay())
    except Exception:  # the thread must survive anything; the owner keeps its state
        _log.exception("dsampler: unexpected error in %s", threading.current_thread().name)
        return interval
