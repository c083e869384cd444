"""What lives beside the published snapshots of one DSampler: its clock, its process's
resource attributes, and the operations first seen on the request path.

A snapshot never changes once published. The one thing the request path must add to
is the set of *tracked* operations (names with a default lower bound, seen for the
first time): they live here, in :class:`TrackedOperations`, not in a snapshot, and are
added without any lock, so a decision never waits for a writer.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Container, Mapping
from typing import TYPE_CHECKING, Any

from dsampler._validate import MAX_TEXT, typed
from dsampler.clock import Clock
from dsampler.consistent._follow import ThresholdChildren
from dsampler.decision._bucket import TokenBucket
from dsampler.decision._children import ChildResults
from dsampler.engine._counts import CountHistory
from dsampler.errors import ConfigError

if TYPE_CHECKING:
    from opentelemetry.sdk.resources import Resource

__all__ = ["Runtime", "TrackedOperations", "resource_attributes"]


class TrackedOperations:
    """Lower-bound buckets of operations first seen on the request path, up to a room
    (``max_operations`` minus the configured ones), kept across snapshots.

    Adding is lock-free: a ticket from an ``itertools.count`` (atomic) admits at most
    ``room`` new names, and ``dict.setdefault`` makes two threads that see one new name
    share one bucket. A name is held once (the dict key), and names longer than
    :data:`~dsampler._validate.MAX_TEXT` characters are never tracked, so what tracking
    can hold is bounded: ``room * MAX_TEXT`` characters at most.
    """

    __slots__ = ("_new_bucket", "_room", "_tickets", "by_name", "per_second")

    def __init__(self, new_bucket: Callable[[float], TokenBucket]) -> None:
        self._new_bucket = new_bucket
        self.by_name: dict[str, TokenBucket] = {}
        self.per_second = 0.0
        self._room = 0
        self._tickets = itertools.count()

    def bucket(self, name: str) -> TokenBucket | None:
        """The operation's bucket, created on first sight while room remains; None
        beyond the room (the default rate then decides, without a lower bound)."""
        by_name = self.by_name
        found = by_name.get(name)
        if found is not None or len(by_name) >= self._room or len(name) > MAX_TEXT:
            return found
        if next(self._tickets) >= self._room:
            return None
        return by_name.setdefault(name, self._new_bucket(self.per_second))

    def refit(self, per_second: float, room: int, configured: Container[str]) -> Callable[[], None]:
        """Writers only: what keeps at most ``room`` tracked names (configured operations
        have their own buckets), each at ``per_second``, once called. The names are
        copied now (what can fail, fails here, before the publish changes anything);
        the call cannot fail. Readers keep adding while this runs: a name added to the
        old dict after the copy is carried over by a second pass (only a name added in
        the instant of the swap itself can be missed, and it is tracked again at its
        next sight)."""
        old = self.by_name
        kept = _fitted(_items(old), room, configured)

        def apply() -> None:
            if per_second != self.per_second:
                for bucket in kept.values():
                    bucket.update(per_second)
            self.per_second, self._room = per_second, room
            self._tickets = itertools.count(len(kept))
            self.by_name = kept
            for name, bucket in _items(old):  # added to the old dict during the copy
                if name not in kept and name not in configured and next(self._tickets) < room:
                    bucket.update(per_second)
                    kept.setdefault(name, bucket)

        return apply

    def __len__(self) -> int:
        return len(self.by_name)

    def __contains__(self, name: object) -> bool:
        return name in self.by_name


def _items(names: dict[str, TokenBucket]) -> list[tuple[str, TokenBucket]]:
    """The (name, bucket) pairs of a dict that request threads add to, copied whole.
    ``dict.copy()`` of a dict nothing is deleted from runs no Python code while it
    copies, so no other thread gets in (iterating it in Python would let one in at any
    garbage collection that runs a finalizer: "dictionary changed size during
    iteration"); should a copy ever be interrupted all the same, it is made again
    (threads add at most ``room`` names, so this ends)."""
    while True:
        try:
            return list(names.copy().items())
        except RuntimeError:
            continue


def _fitted(
    items: list[tuple[str, TokenBucket]], room: int, configured: Container[str]
) -> dict[str, TokenBucket]:
    kept: dict[str, TokenBucket] = {}
    for name, bucket in items:
        if len(kept) >= room:
            break
        if name not in configured:
            kept[name] = bucket
    return kept


class Runtime:
    """The fixed environment and the mutable state beside one DSampler's snapshots.

    ``initial_fill`` (None: full) gives the fraction of its maximum a new token bucket
    starts with: jaeger-client-python started each at ``random()`` of it.
    """

    __slots__ = (
        "children",
        "clock",
        "new_bucket",
        "resource",
        "stated_children",
        "stats",
        "tracked",
    )

    def __init__(
        self, clock: Clock, resource: Mapping[str, Any], initial_fill: Callable[[], float] | None = None
    ) -> None:
        self.clock = clock
        self.resource = resource
        self.new_bucket = _bucket_maker(clock, initial_fill)  # a token bucket for a new limit
        self.tracked = TrackedOperations(self.new_bucket)
        # children following their parent, from results kept across snapshots (as or not
        # as the snapshot states thresholds)
        self.children = ChildResults()
        self.stated_children = ThresholdChildren()
        self.stats: CountHistory | None = None  # decisions are counted while set (telemetry)

    def to_monotonic(self, wall: float) -> float:
        """A wall-clock instant (a rollout's ``at:``) on the monotonic clock."""
        return self.clock.monotonic() + (wall - self.clock.time())


def _bucket_maker(clock: Clock, fill: Callable[[], float] | None) -> Callable[[float], TokenBucket]:
    def new_bucket(per_second: float) -> TokenBucket:
        start = None if fill is None else fill() * max(per_second, 1.0)
        return TokenBucket(per_second, initial_balance=start, clock=clock)

    return new_bucket


def resource_attributes(resource: Resource | Mapping[str, Any] | None) -> Mapping[str, Any]:
    """This process's resource attributes, fixed for its lifetime (rules that match
    resource attributes are decided once, when a snapshot is compiled)."""
    from opentelemetry.sdk.resources import Resource  # 10 ms to import; most apps have it already

    if resource is None:
        return dict(Resource.create().attributes)
    if isinstance(resource, Resource):
        return dict(resource.attributes)
    if isinstance(resource, Mapping):
        return dict(resource)
    raise ConfigError("resource", f"expected an opentelemetry Resource or a mapping, got {typed(resource)}")
