"""The decision engine: a configuration store compiled into snapshots, and the
request path that decides under one whole snapshot."""

import typing

from dsampler._lazy import attach as _attach

__all__ = ["Engine", "OfferedLoad", "Snapshot"]

if typing.TYPE_CHECKING:
    from dsampler.engine._engine import Engine
    from dsampler.engine._snapshot import OfferedLoad, Snapshot

__getattr__, __dir__ = _attach(
    __name__,
    {
        "Engine": "dsampler.engine._engine",
        "OfferedLoad": "dsampler.engine._snapshot",
        "Snapshot": "dsampler.engine._snapshot",
    },
)
