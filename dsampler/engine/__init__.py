"""The decision engine: a configuration store compiled into snapshots, and the
request path that decides under one whole snapshot."""

import typing

from dsampler._lazy import attach as _attach

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
    "OfferedLoad",
    "RatioDecider",
    "Snapshot",
    "Tagger",
    "guaranteed",
    "resource_attributes",
]

if typing.TYPE_CHECKING:
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
    from dsampler.engine._snapshot import OfferedLoad, Snapshot

__getattr__, __dir__ = _attach(
    __name__,
    {
        **dict.fromkeys(
            ("CAPPED", "CountHistory", "DEFAULT", "DecisionCounts", "KEPT", "NOT_KEPT", "STRATEGIES"),
            "dsampler.engine._counts",
        ),
        **dict.fromkeys(
            ("BY_RATIO", "DROP_IT", "RatioDecider", "Tagger", "guaranteed"), "dsampler.engine._deciders"
        ),
        "Engine": "dsampler.engine._engine",
        "resource_attributes": "dsampler.engine._runtime",
        **dict.fromkeys(("OfferedLoad", "Snapshot"), "dsampler.engine._snapshot"),
    },
)
