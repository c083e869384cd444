"""The strategies server behind ``dsampler serve``: strategies from a Jaeger strategies file or a
dsampler configuration, reloaded when they change, answered over HTTP and gRPC. See
``docs/remote-sampling.md``."""

import typing

from dsampler._lazy import attach as _attach

__all__ = [
    "Strategies",
    "StrategiesFile",
    "StrategiesServer",
    "config_strategies",
    "jaeger_strategies",
    "load_strategies",
]

if typing.TYPE_CHECKING:
    from dsampler.serve._server import StrategiesServer
    from dsampler.serve._strategies import Strategies, config_strategies, jaeger_strategies, load_strategies
    from dsampler.serve._strategies_file import StrategiesFile

__getattr__, __dir__ = _attach(
    __name__,
    {
        "Strategies": "dsampler.serve._strategies",
        "config_strategies": "dsampler.serve._strategies",
        "jaeger_strategies": "dsampler.serve._strategies",
        "load_strategies": "dsampler.serve._strategies",
        "StrategiesServer": "dsampler.serve._server",
        "StrategiesFile": "dsampler.serve._strategies_file",
    },
)
