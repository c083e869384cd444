"""Operations first seen on the request path, tracked up to a room: the engine's
lower-bound buckets of operations its configuration does not name, and jaeger-client's
``AdaptiveSampler``'s per-operation samplers. Adding takes no lock (a ticket from an
``itertools.count`` admits at most ``room`` names, ``dict.setdefault`` settles a race),
and names longer than :data:`~dsampler._validate.MAX_TEXT` are never tracked.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Container
from typing import Generic, TypeVar

from dsampler._validate import MAX_TEXT

__all__ = ["Tracked"]

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
        """Writers only: a call that keeps at most ``room`` tracked names outside
        ``configured``, each passed to ``change``, and makes new ones with ``new``. The
        names are copied now, so what can fail fails before a publish; the call cannot
        fail. A name readers add during the copy is carried over by a second pass."""
        old = self.by_name
        kept = _fitted(_items(old), room, configured)

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
    """The (name, value) pairs of a dict that request threads add to, copied whole by
    ``dict.copy()`` (which runs no Python code, unlike iterating it); an interrupted copy
    is made again (threads add at most ``room`` names, so this ends)."""
    while True:
        try:
            return list(names.copy().items())
        except RuntimeError:
            continue


def _fitted(items: list[tuple[str, T]], room: int, configured: Container[str]) -> dict[str, T]:
    kept: dict[str, T] = {}
    for name, value in items:
        if len(kept) >= room:
            break
        if name not in configured:
            kept[name] = value
    return kept
