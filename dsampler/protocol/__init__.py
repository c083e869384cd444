"""The Jaeger remote-sampling protocol, shared by the client and the server: the strategy
model, its JSON dialects (read by :func:`parse_response`, written by :func:`render`) and its
protobuf messages for gRPC."""

from dsampler.protocol._parse import (
    MAX_RESPONSE_BYTES,
    Reading,
    decode_json,
    parse_mapping,
    parse_operation_sampling,
    parse_response,
)
from dsampler.protocol._proto import MAX_REQUEST_BYTES, decode_params, encode_response
from dsampler.protocol._render import Dialect, render
from dsampler.protocol._strategy import (
    PROBABILISTIC,
    OperationRate,
    PerOperationStrategy,
    ProbabilisticStrategy,
    RateLimitingStrategy,
    Strategy,
    StrategyResponse,
)
from dsampler.protocol._wire import last, read_text

__all__ = [
    "MAX_REQUEST_BYTES",
    "MAX_RESPONSE_BYTES",
    "PROBABILISTIC",
    "Dialect",
    "OperationRate",
    "PerOperationStrategy",
    "ProbabilisticStrategy",
    "RateLimitingStrategy",
    "Reading",
    "Strategy",
    "StrategyResponse",
    "decode_json",
    "decode_params",
    "encode_response",
    "last",
    "parse_mapping",
    "parse_operation_sampling",
    "parse_response",
    "read_text",
    "render",
]
