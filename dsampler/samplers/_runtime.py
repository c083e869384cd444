"""What must outlive a snapshot: token buckets, rollout anchors, tracked operations.

A snapshot build *stages* its changes here (new buckets, new rates for existing ones,
new anchors) and :meth:`RuntimeState.commit` applies them only once the whole snapshot
is built: a build that fails leaves the running limits exactly as they were. State is
keyed by what a rule or operation is, so an unchanged one finds its own balance again,
pro-rated when its rate changes (Jaeger's behaviour: a strategy push must not hand every
process a full bucket).

Operations first seen on the request path (with a default lower bound) are tracked here
too, across snapshots, up to ``max_operations`` in all: their buckets are created under a
small lock of their own, never the writers' lock, so a request never waits for a build.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Hashable, Mapping
from typing import TYPE_CHECKING, Any

from dsampler import _fork
from dsampler.clock import Clock
from dsampler.config._rule import Rollout
from dsampler.samplers._bucket import TokenBucket

if TYPE_CHECKING:
    from dsampler.adaptive._meter import Meter

__all__ = ["RuntimeState"]


class RuntimeState:
    """Token buckets and rollout anchors of one DSampler, and its tracked operations.

    ``lock`` serialises snapshot builds; ``tracked_lock`` guards the tracked operations.
    """

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.lock = threading.Lock()
        self.tracked_lock = threading.Lock()
        self.buckets: dict[Hashable, TokenBucket] = {}
        self.anchors: dict[Rollout, float] = {}
        self.tracked: dict[str, TokenBucket] = {}
        self.tracked_rate = 0.0
        self.tracked_room = 0
        self._new_buckets: dict[Hashable, TokenBucket] = {}
        self._new_rates: list[tuple[TokenBucket, float]] = []
        self._new_anchors: dict[Rollout, float] = {}
        self.meter: Meter | None = None  # the adaptive controller's (hook: dsampler.adaptive)
        _fork.register(self)

    def bucket(self, key: Hashable, per_second: float) -> TokenBucket:
        """The bucket under ``key`` (a new full one if none); a changed rate is staged."""
        found = self._new_buckets.get(key) or self.buckets.get(key)
        if found is None:
            found = self._new_buckets[key] = TokenBucket(per_second, clock=self.clock)
        elif found.credits_per_second != per_second:
            self._new_rates.append((found, per_second))
        return found

    def anchor(self, rollout: Rollout) -> float:
        """Monotonic instant the rollout's ``after`` offsets count from."""
        if rollout.start is not None:
            return self.to_monotonic(rollout.start.timestamp())
        found = self.anchors.get(rollout) or self._new_anchors.get(rollout)
        if found is None:
            found = self._new_anchors[rollout] = self.clock.monotonic()
        return found

    def to_monotonic(self, wall: float) -> float:
        return self.clock.monotonic() + (wall - self.clock.time())

    def discard(self) -> None:
        """Forget what a failed build staged."""
        self._new_buckets, self._new_rates, self._new_anchors = {}, [], {}

    def commit(
        self,
        keep: tuple[set[Hashable], set[Rollout]] | None,
        *,
        lower_bound: float,
        configured: Mapping[str, Any],
        max_operations: int,
    ) -> None:
        """Apply what the build staged; with ``keep``, forget the buckets and anchors the
        new snapshot does not use; fit the tracked operations to the new snapshot."""
        self.buckets.update(self._new_buckets)
        self.anchors.update(self._new_anchors)
        for bucket, rate in self._new_rates:
            bucket.update(rate)
        self.discard()
        if keep is not None:
            buckets, rollouts = keep
            self.buckets = {k: b for k, b in self.buckets.items() if k in buckets}
            self.anchors = {r: a for r, a in self.anchors.items() if r in rollouts}
        with self.tracked_lock:
            room = max(0, max_operations - len(configured)) if lower_bound > 0 else 0
            tracked = {name: b for name, b in self.tracked.items() if name not in configured}
            tracked = dict(itertools.islice(tracked.items(), room))
            if lower_bound != self.tracked_rate:
                for bucket in tracked.values():
                    bucket.update(lower_bound)
            self.tracked, self.tracked_rate, self.tracked_room = tracked, lower_bound, room

    def track(self, name: str) -> TokenBucket | None:
        """The lower-bound bucket of an operation first seen on the request path: created
        on its first sight while room remains, None beyond ``max_operations``."""
        found = self.tracked.get(name)
        if found is not None or len(self.tracked) >= self.tracked_room:
            return found
        with self.tracked_lock:
            found = self.tracked.get(name)
            if found is None and len(self.tracked) < self.tracked_room:
                found = self.tracked[name] = TokenBucket(self.tracked_rate, clock=self.clock)
            return found

    def _reset_after_fork(self) -> None:
        self.lock = threading.Lock()
        self.tracked_lock = threading.Lock()
