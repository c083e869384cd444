"""A thread's slot of a bounded semaphore is given back exactly once, whoever gives it.

Both the thread and its starter may release it (the starter when ``Thread.start()``
raises, which a signal's KeyboardInterrupt can do after the thread has run); a second
release of the semaphore raised ValueError in place of the interrupt, and
``dsampler serve`` then went on serving after its SIGTERM."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsampler._held import Slot, start_holding


def _taken(size: int) -> threading.BoundedSemaphore:
    slots = threading.BoundedSemaphore(size)
    for _ in range(size):
        assert slots.acquire(blocking=False)
    return slots


@given(st.integers(1, 8), st.integers(1, 4))
def test_a_slot_released_by_many_threads_gives_back_one(threads: int, each: int) -> None:
    slots = _taken(2)
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


@pytest.mark.parametrize("fails", [False, True], ids=["returns", "raises"])
def test_the_thread_gives_its_slot_back_when_its_target_ends(
    fails: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Held while the target runs, back once it ends, however it ends (its exception
    still reaches ``threading.excepthook``); a daemon thread with the name asked for."""
    raised: list[type[BaseException] | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: raised.append(args.exc_type))
    slots = _taken(1)
    running, finish = threading.Event(), threading.Event()
    seen: list[threading.Thread] = []

    def target() -> None:
        seen.append(threading.current_thread())
        running.set()
        finish.wait(10)
        if fails:
            raise ValueError("the target's own failure")

    start_holding(slots, target, name="held-test")
    assert running.wait(10)
    assert not slots.acquire(blocking=False)  # held while it runs
    assert (seen[0].name, seen[0].daemon) == ("held-test", True)
    finish.set()
    seen[0].join(10)
    assert slots.acquire(blocking=False)  # back
    assert not slots.acquire(blocking=False)  # once
    assert raised == ([ValueError] if fails else [])
