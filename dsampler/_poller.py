"""A background thread that calls its owner's ``poll_once()`` at an interval.

It holds only a weak reference to its owner between polls, so a sampler nobody keeps
(and nobody ``close()``d) is collected and its thread ends; it is restarted in the
child of ``os.fork()``, where the parent's thread does not exist; ``stop()`` is
idempotent and joins. Exceptions from a poll are logged and the thread goes on: the
owner keeps its last good state.
"""

from __future__ import annotations

import logging
import threading
import weakref
from typing import Protocol

from dsampler import _fork

__all__ = ["Poller"]

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
        _fork.register(self)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        """Start polling (idempotent)."""
        if self.running:
            return
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=_loop,
            args=(self._owner, self._stop, self._first, self._interval),
            name=self._name,
            daemon=True,
        )
        self._thread.start()

    def stop(self, *, wait: bool = True) -> None:
        """Stop polling and wait for the thread (idempotent); ``wait=False`` only tells
        it to stop (for a caller holding a lock that a poll in flight may need)."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if wait and thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5.0)

    def _reset_after_fork(self) -> None:
        if self._thread is not None and not self._stop.is_set():
            self._thread = None
            self.start()


def _loop(owner_ref: weakref.ref[Pollable], stop: threading.Event, first: float, interval: float) -> None:
    delay = first
    while not stop.wait(delay):
        owner = owner_ref()
        if owner is None:  # collected: nobody can use what we would poll for
            return
        try:
            owner.poll_once()
        except Exception:  # the thread must survive anything; the owner keeps its state
            _log.exception("dsampler: unexpected error in %s", threading.current_thread().name)
        del owner
        delay = interval
