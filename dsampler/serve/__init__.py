"""The strategies server behind ``dsampler serve``: strategies from a Jaeger strategies file or a
dsampler configuration, reloaded when they change, answered over HTTP and gRPC. See
``docs/remote-sampling.md``."""

import typing

from dsampler._lazy import attach as _attach

__all__ = [
    "MAX_CONNECTIONS",
    "MAX_RELOAD_S",
    "MISSING_GRPC",
    "Strategies",
    "StrategiesFile",
    "StrategiesServer",
    "config_strategies",
    "count_services",
    "jaeger_document",
    "jaeger_strategies",
    "load_strategies",
]

if typing.TYPE_CHECKING:
    from dsampler.serve._grpc_calls import MISSING_GRPC
    from dsampler.serve._server import MAX_CONNECTIONS, StrategiesServer
    from dsampler.serve._strategies import (
        Strategies,
        config_strategies,
        jaeger_document,
        jaeger_strategies,
        load_strategies,
    )
    from dsampler.serve._strategies_file import MAX_RELOAD_S, StrategiesFile, count_services

__getattr__, __dir__ = _attach(
    __name__,
    {
        "MISSING_GRPC": "dsampler.serve._grpc_calls",
        **dict.fromkeys(("MAX_CONNECTIONS", "StrategiesServer"), "dsampler.serve._server"),
        **dict.fromkeys(
            ("Strategies", "config_strategies", "jaeger_document", "jaeger_strategies", "load_strategies"),
            "dsampler.serve._strategies",
        ),
        **dict.fromkeys(
            ("MAX_RELOAD_S", "StrategiesFile", "count_services"), "dsampler.serve._strategies_file"
        ),
    },
)
