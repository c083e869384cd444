"""Daemon threads that each hold one slot of a bounded semaphore while they run. The
slot goes back exactly once (:class:`Slot`), even when both sides give it back:
``Thread.start()`` can raise after the thread has run (a KeyboardInterrupt in its wait),
and a second release of a ``BoundedSemaphore`` would raise ``ValueError`` instead.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class Slot:
    """One hold on a slot of ``slots``, given back once however often it is released."""

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
    """Run ``target`` in a daemon thread that gives back the caller's slot of ``slots``
    when ``target`` ends.

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
