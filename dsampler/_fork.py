"""Fresh locks in the child of ``os.fork()``: a lock another thread held at the fork
stays held forever in the child, where that thread does not exist. Objects register a
``reset`` (their locks) and a ``restart`` (their threads, run only once every lock is
fresh), held weakly.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable
from typing import Any, Final

#: By id of the owner (owners need not be hashable): a weak reference to it and the
#: functions of its two methods. No weakref callback (one can run during interpreter
#: shutdown): dead entries are swept once as many have come as there were entries at the
#: last sweep, so a sweep's cost stays in proportion to the registrations.
_HOOKS: Final[dict[int, tuple[weakref.ref[Any], Callable[[Any], None], Callable[[Any], None] | None]]] = {}
_SWEEP_EVERY: Final = 1024
_until_sweep = [_SWEEP_EVERY]


def register(reset: Callable[[], None], restart: Callable[[], None] | None = None) -> None:
    """Call the bound method ``reset`` in every forked child, then, once every object's
    locks are fresh, ``restart``; both in the order of registration (an object built on
    another registers after it, so its restart runs after the other's). The object is
    held weakly."""
    owner = reset.__self__  # type: ignore[attr-defined]
    then = None if restart is None else restart.__func__  # type: ignore[attr-defined]
    _HOOKS.pop(id(owner), None)  # a dead object's id reused: registered now, called last
    _HOOKS[id(owner)] = (weakref.ref(owner), reset.__func__, then)  # type: ignore[attr-defined]
    _until_sweep[0] -= 1
    if _until_sweep[0] <= 0:
        for key, (ref, _, _) in list(_HOOKS.items()):
            if ref() is None:
                _HOOKS.pop(key, None)
        _until_sweep[0] = max(_SWEEP_EVERY, len(_HOOKS))


class ModuleLock:
    """A lock (``with guard.lock:``) made again in a forked child, a module's or an
    object's; ``make`` builds another primitive the same way (a semaphore)."""

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
