"""Daemon threads that each hold one slot of a bounded semaphore while they run (the
HTTP server's connections, the client's name resolutions).

The caller takes the slot; :func:`start_holding` hands it to the thread, which gives it
back when its target ends. The slot goes back exactly once (:class:`Slot`), even when
both sides give it back: ``Thread.start()`` can raise after the thread has run (a
signal's :class:`KeyboardInterrupt` lands in its wait for the thread to start), and a
second release of a ``BoundedSemaphore`` raises ``ValueError`` in place of that
interrupt.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

__all__ = ["Slot", "start_holding"]


class Slot:
    """One hold on a slot of ``slots``, given back once however many times
    :meth:`release` is called, from whichever threads."""

    __slots__ = ("_given", "_slots")

    def __init__(self, slots: threading.Semaphore) -> None:
        self._slots = slots
        self._given = threading.Lock()

    def release(self) -> None:
        if self._given.acquire(blocking=False):
            self._slots.release()


def start_holding(
    slots: threading.Semaphore, target: Callable[[], object], *, name: str | None = None
) -> None:
    """Run ``target`` in a daemon thread that gives back the slot of ``slots`` the
    caller has taken when ``target`` ends, however it ends.

    Raises:
        RuntimeError: no thread could be started (the slot is given back), or whatever
            ``Thread.start()`` raised (a KeyboardInterrupt), the slot given back once.
    """
    slot = Slot(slots)

    def run() -> None:
        try:
            target()
        finally:
            slot.release()

    try:
        threading.Thread(target=run, name=name, daemon=True).start()
    except BaseException:  # no thread (it will not give the slot back), or a Ctrl-C in start()
        slot.release()
        raise
