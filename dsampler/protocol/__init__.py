"""The Jaeger remote-sampling protocol, shared by the client and the server: the strategy
model, its JSON dialects (read by :func:`parse_response`, written by :func:`render`) and its
protobuf messages for gRPC."""

import typing

from dsampler._lazy import attach as _attach

__all__ = [
    "MAX_REQUEST_BYTES",
    "MAX_RESPONSE_BYTES",
    "PROBABILISTIC",
    "RATE_LIMITING",
    "Dialect",
    "OperationRate",
    "PerOperationStrategy",
    "ProbabilisticStrategy",
    "RateLimitingStrategy",
    "Reading",
    "Strategy",
    "StrategyResponse",
    "decode_params",
    "encode_response",
    "last",
    "parse_mapping",
    "parse_operation_sampling",
    "parse_response",
    "parse_strategy",
    "read_text",
    "render",
]

if typing.TYPE_CHECKING:
    from dsampler.protocol._parse import (
        MAX_RESPONSE_BYTES,
        Reading,
        parse_mapping,
        parse_operation_sampling,
        parse_response,
        parse_strategy,
    )
    from dsampler.protocol._proto import MAX_REQUEST_BYTES, decode_params, encode_response
    from dsampler.protocol._render import Dialect, render
    from dsampler.protocol._strategy import (
        PROBABILISTIC,
        RATE_LIMITING,
        OperationRate,
        PerOperationStrategy,
        ProbabilisticStrategy,
        RateLimitingStrategy,
        Strategy,
        StrategyResponse,
    )
    from dsampler.protocol._wire import last, read_text

__getattr__, __dir__ = _attach(
    __name__,
    {
        **dict.fromkeys(
            (
                "MAX_RESPONSE_BYTES",
                "Reading",
                "parse_mapping",
                "parse_operation_sampling",
                "parse_response",
                "parse_strategy",
            ),
            "dsampler.protocol._parse",
        ),
        **dict.fromkeys(
            ("MAX_REQUEST_BYTES", "decode_params", "encode_response"), "dsampler.protocol._proto"
        ),
        **dict.fromkeys(("Dialect", "render"), "dsampler.protocol._render"),
        **dict.fromkeys(
            (
                "OperationRate",
                "PROBABILISTIC",
                "PerOperationStrategy",
                "ProbabilisticStrategy",
                "RATE_LIMITING",
                "RateLimitingStrategy",
                "Strategy",
                "StrategyResponse",
            ),
            "dsampler.protocol._strategy",
        ),
        **dict.fromkeys(("last", "read_text"), "dsampler.protocol._wire"),
    },
)
