"""The Jaeger remote-sampling protocol, shared by the client and the server: the strategy
model, its JSON dialects (read by :func:`parse_response`, written by :func:`render`) and its
protobuf messages for gRPC."""

import typing

from dsampler._lazy import attach as _attach

__all__ = [
    "OperationRate",
    "PerOperationStrategy",
    "ProbabilisticStrategy",
    "RateLimitingStrategy",
    "Strategy",
    "StrategyResponse",
    "parse_response",
    "parse_strategy",
    "render",
]

if typing.TYPE_CHECKING:
    from dsampler.protocol._parse import parse_response, parse_strategy
    from dsampler.protocol._render import render
    from dsampler.protocol._strategy import (
        OperationRate,
        PerOperationStrategy,
        ProbabilisticStrategy,
        RateLimitingStrategy,
        Strategy,
        StrategyResponse,
    )

__getattr__, __dir__ = _attach(
    __name__,
    {
        "parse_response": "dsampler.protocol._parse",
        "parse_strategy": "dsampler.protocol._parse",
        "render": "dsampler.protocol._render",
        "OperationRate": "dsampler.protocol._strategy",
        "PerOperationStrategy": "dsampler.protocol._strategy",
        "ProbabilisticStrategy": "dsampler.protocol._strategy",
        "RateLimitingStrategy": "dsampler.protocol._strategy",
        "Strategy": "dsampler.protocol._strategy",
        "StrategyResponse": "dsampler.protocol._strategy",
    },
)
