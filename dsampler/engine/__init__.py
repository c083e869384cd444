"""The decision engine: a configuration store compiled into snapshots, and the
request path that decides under one whole snapshot."""

from dsampler.engine._counts import (
    CAPPED,
    DEFAULT,
    KEPT,
    NOT_KEPT,
    STRATEGIES,
    CountHistory,
    DecisionCounts,
)
from dsampler.engine._deciders import BY_RATIO, DROP_IT, RatioDecider, Tagger, guaranteed
from dsampler.engine._engine import Engine
from dsampler.engine._runtime import resource_attributes
from dsampler.engine._sampler import EngineSampler
from dsampler.engine._snapshot import OfferedLoad, Snapshot

__all__ = [
    "BY_RATIO",
    "CAPPED",
    "DEFAULT",
    "DROP_IT",
    "KEPT",
    "NOT_KEPT",
    "STRATEGIES",
    "CountHistory",
    "DecisionCounts",
    "Engine",
    "EngineSampler",
    "OfferedLoad",
    "RatioDecider",
    "Snapshot",
    "Tagger",
    "guaranteed",
    "resource_attributes",
]
