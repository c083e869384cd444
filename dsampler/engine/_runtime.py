"""What lives beside one DSampler's snapshots: its clock, its resource attributes, the
share of its limits it holds, and the operations the request path tracks (added without
a lock, since a snapshot never changes)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from dsampler._validate import typed
from dsampler.clock import Clock
from dsampler.consistent import ThresholdChildren
from dsampler.decision import ChildResults, TokenBucket, Tracked
from dsampler.engine._counts import CountHistory
from dsampler.errors import ConfigError

if TYPE_CHECKING:
    from opentelemetry.sdk.resources import Resource


class Runtime:
    """The fixed environment and the mutable state beside one DSampler's snapshots.
    ``initial_fill`` (None: full): jaeger-client-python started each bucket at ``random()``."""

    __slots__ = (
        "children",
        "clock",
        "fill",
        "resource",
        "share",
        "stated_children",
        "stats",
        "tracked",
    )

    def __init__(
        self, clock: Clock, resource: Mapping[str, Any], initial_fill: Callable[[], float] | None = None
    ) -> None:
        self.clock = clock
        self.resource = resource
        self.fill = initial_fill
        self.tracked: Tracked[TokenBucket] = Tracked()  # lower-bound buckets of operations first seen
        # children following their parent (as the snapshot states thresholds or not)
        self.children = ChildResults()
        self.stated_children = ThresholdChildren()
        self.stats: CountHistory | None = None  # decisions are counted while set
        self.share = 1.0  # of every traces-per-second limit (Engine.share_limits)

    def to_monotonic(self, wall: float) -> float:
        """A wall-clock instant (a rollout's ``at:``) on the monotonic clock."""
        return self.clock.monotonic() + (wall - self.clock.time())

    def new_bucket(self, per_second: float) -> TokenBucket:
        start = None if self.fill is None else self.fill() * max(per_second, 1.0)
        return TokenBucket(per_second, initial_balance=start, clock=self.clock)


def resource_attributes(resource: Resource | Mapping[str, Any] | None) -> Mapping[str, Any]:
    """This process's resource attributes, fixed for its lifetime."""
    from opentelemetry.sdk.resources import Resource  # slow to import; most apps have it already

    if resource is None:
        return dict(Resource.create().attributes)
    if isinstance(resource, Resource):
        return dict(resource.attributes)
    if isinstance(resource, Mapping):
        return dict(resource)
    raise ConfigError("resource", f"expected an opentelemetry Resource or a mapping, got {typed(resource)}")
