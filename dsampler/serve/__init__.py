"""The strategies server behind ``dsampler serve``: strategies from a Jaeger strategies file or a
dsampler configuration, reloaded when they change, answered over HTTP and gRPC. See
``docs/remote-sampling.md``."""

from dsampler.serve._grpc_calls import MISSING_GRPC
from dsampler.serve._server import MAX_CONNECTIONS, StrategiesServer
from dsampler.serve._strategies import (
    Strategies,
    jaeger_document,
    jaeger_strategies,
    load_strategies,
)
from dsampler.serve._strategies_file import MAX_RELOAD_S, StrategiesFile, count_services

__all__ = [
    "MAX_CONNECTIONS",
    "MAX_RELOAD_S",
    "MISSING_GRPC",
    "Strategies",
    "StrategiesFile",
    "StrategiesServer",
    "count_services",
    "jaeger_document",
    "jaeger_strategies",
    "load_strategies",
]
