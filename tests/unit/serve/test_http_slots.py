"""A connection's ``max_connections`` slot is given back exactly once, whoever gives it.

Both the connection's thread and the listener may release it (the listener when
``Thread.start()`` raises, which a signal's KeyboardInterrupt can do after the thread
has run); a second release of the semaphore raised ValueError in place of the
interrupt, and ``dsampler serve`` then went on serving after its SIGTERM."""

from __future__ import annotations

import threading

from hypothesis import given
from hypothesis import strategies as st

from dsampler.serve._http import Slot


@given(st.integers(1, 8), st.integers(1, 4))
def test_a_slot_released_by_many_threads_gives_back_one(threads: int, each: int) -> None:
    slots = threading.BoundedSemaphore(2)
    assert slots.acquire(blocking=False)
    assert slots.acquire(blocking=False)
    slot = Slot(slots)
    start = threading.Barrier(threads)

    def release() -> None:
        start.wait()
        for _ in range(each):
            slot.release()  # a BoundedSemaphore raises ValueError on one release too many

    workers = [threading.Thread(target=release) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert slots.acquire(blocking=False)  # one came back
    assert not slots.acquire(blocking=False)  # and only one
