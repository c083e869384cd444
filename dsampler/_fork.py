"""Fresh locks in the child of ``os.fork()``.

A lock held by another thread at the moment of a fork stays held forever in the child,
where that thread does not exist: a writer lock would block every later publish, a
token bucket's refill lock would stop it refilling. Objects that own locks register
here and get ``_reset_after_fork()`` called in the child (gunicorn and uwsgi fork
workers from a master that may already run dsampler). Threads are restarted only after
every lock is fresh (``_restart_after_fork()``, a second pass): a restarted poller must
not find its owner's lock still held by the parent's thread.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable
from typing import Any, Final, Protocol

__all__ = ["ForkAware", "ModuleLock", "register"]


class ForkAware(Protocol):
    def _reset_after_fork(self) -> None:
        """Replace the locks (and restart the threads) this object owns."""
        ...


# Keyed by id: owners need not be hashable (jaeger-client's samplers are not).
_OWNERS: Final[weakref.WeakValueDictionary[int, ForkAware]] = weakref.WeakValueDictionary()


def register(owner: ForkAware) -> None:
    """Have ``owner._reset_after_fork()`` called in every forked child."""
    _OWNERS[id(owner)] = owner


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
        register(self)

    def _reset_after_fork(self) -> None:
        self.lock = self._make()


def _after_fork_in_child() -> None:
    owners = list(_OWNERS.values())
    for owner in owners:
        owner._reset_after_fork()
    for owner in owners:
        restart = getattr(owner, "_restart_after_fork", None)
        if restart is not None:
            restart()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
