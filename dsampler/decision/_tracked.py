"""Operations first seen on the request path, tracked up to a room without a lock: a ticket
from an ``itertools.count`` admits at most ``room`` names, ``dict.setdefault`` settles a race."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Container
from typing import Generic, TypeVar

from dsampler._validate import MAX_TEXT

T = TypeVar("T")


class Tracked(Generic[T]):
    """A value per name first seen (made by the last :meth:`refit`'s ``new``), for up
    to ``room`` names, kept across refits."""

    __slots__ = ("_new", "_room", "_tickets", "by_name")

    def __init__(self) -> None:
        self.by_name: dict[str, T] = {}
        self._new: Callable[[str], T] | None = None  # the room is 0 until the first refit
        self._room = 0
        self._tickets = itertools.count()

    def get(self, name: str) -> T | None:
        """The name's value, made on first sight while room remains; None beyond the room."""
        by_name = self.by_name
        found = by_name.get(name)
        if found is not None or len(by_name) >= self._room or len(name) > MAX_TEXT:
            return found
        new = self._new
        if new is None or next(self._tickets) >= self._room:
            return None
        return by_name.setdefault(name, new(name))

    def refit(
        self, room: int, configured: Container[str], new: Callable[[str], T], change: Callable[[T], object]
    ) -> Callable[[], None]:
        """Writers only: a call (which cannot fail) keeping at most ``room`` names outside
        ``configured``, each passed to ``change``, and making new ones with ``new``."""
        old = self.by_name
        kept = dict(itertools.islice(((n, v) for n, v in _items(old) if n not in configured), room))

        def apply() -> None:
            for value in kept.values():
                change(value)
            self._new, self._room = new, room
            self._tickets = itertools.count(len(kept))
            self.by_name = kept
            for name, value in _items(old):  # added to the old dict during the copy
                if name not in kept and name not in configured and next(self._tickets) < room:
                    change(value)
                    kept.setdefault(name, value)

        return apply

    def values(self) -> list[T]:
        """The values now (a copy: request threads may add while it is read)."""
        return [value for _, value in _items(self.by_name)]

    def __len__(self) -> int:
        return len(self.by_name)

    def __contains__(self, name: object) -> bool:
        return name in self.by_name


def _items(names: dict[str, T]) -> list[tuple[str, T]]:
    """The pairs of a dict request threads add to, by ``dict.copy()`` (retried if interrupted)."""
    while True:
        try:
            return list(names.copy().items())
        except RuntimeError:
            continue
