"""Fresh locks in the child of ``os.fork()``.

A lock held by another thread at the moment of a fork stays held forever in the child,
where that thread does not exist: a writer lock would block every later publish, a
token bucket's refill lock would stop it refilling. Objects that own locks register a
``reset`` method here (``_fork.register(self._reset_after_fork)``), called in the child
(gunicorn and uwsgi fork workers from a master that may already run dsampler). Threads
are restarted only after every lock is fresh (the ``restart`` methods, a second pass):
a restarted poller must not find its owner's lock still held by the parent's thread.
Methods are held weakly: registering keeps nothing alive.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable
from typing import Any, Final

__all__ = ["ModuleLock", "register"]

Hook = Callable[[], None]
#: By id of the owner (owners need not be hashable: jaeger-client's samplers are not):
#: a weak reference to it and the functions of its two methods. No weakref callback
#: (one can run during interpreter shutdown); dead entries are swept as new ones come,
#: once as many have come as there were entries at the last sweep (at least 1,024): a
#: sweep's cost stays in proportion to the registrations (a reload of 5,000 lower
#: bounds registers 5,000 buckets), not to their square.
_HOOKS: Final[dict[int, tuple[weakref.ref[Any], Callable[[Any], None], Callable[[Any], None] | None]]] = {}
_SWEEP_EVERY: Final = 1024
_until_sweep = [_SWEEP_EVERY]


def register(reset: Hook, restart: Hook | None = None) -> None:
    """Call ``reset`` (a bound method: replace the locks its object owns) in every forked
    child, then, once every object's locks are fresh, ``restart`` (its threads). The
    object is held weakly."""
    owner = reset.__self__  # type: ignore[attr-defined]
    then = None if restart is None else restart.__func__  # type: ignore[attr-defined]
    _HOOKS[id(owner)] = (weakref.ref(owner), reset.__func__, then)  # type: ignore[attr-defined]
    _until_sweep[0] -= 1
    if _until_sweep[0] <= 0:
        for key, (ref, _, _) in list(_HOOKS.items()):
            if ref() is None:
                _HOOKS.pop(key, None)
        _until_sweep[0] = max(_SWEEP_EVERY, len(_HOOKS))


class ModuleLock:
    """A module's lock (``with guard.lock:``), fresh in the child: a thread of the
    parent (a metrics reader, an audit) may hold it at the fork, and in the child,
    where that thread does not exist, the next caller would wait forever. ``make``
    builds another primitive the same way (a semaphore whose slots parent threads hold).
    """

    __slots__ = ("__weakref__", "_make", "lock")

    def __init__(self, make: Callable[[], Any] = threading.Lock) -> None:
        self._make = make
        self.lock = make()
        register(self._reset_after_fork)

    def _reset_after_fork(self) -> None:
        self.lock = self._make()


def _after_fork_in_child() -> None:
    live = [
        (owner, reset, restart)
        for ref, reset, restart in list(_HOOKS.values())
        if (owner := ref()) is not None
    ]
    for owner, reset, _ in live:
        reset(owner)
    for owner, _, restart in live:
        if restart is not None:
            restart(owner)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
