"""Jaeger remote sampling: the client (``JaegerRemoteSampler``), the strategy model and
its parser, and the strategies server behind ``dsampler serve``. See
``docs/remote-sampling.md``."""

import typing

from dsampler._lazy import attach as _attach

__all__ = [
    "DEFAULT_ENDPOINT",
    "Fetcher",
    "HttpFetcher",
    "JaegerRemoteSampler",
    "OperationRate",
    "PerOperationStrategy",
    "PollOutcome",
    "ProbabilisticStrategy",
    "RateLimitingStrategy",
    "Strategies",
    "StrategiesFile",
    "StrategiesServer",
    "Strategy",
    "StrategyPoller",
    "StrategyResponse",
    "config_changes",
    "config_strategies",
    "jaeger_remote_sampler",
    "jaeger_strategies",
    "load_strategies",
    "parentbased_jaeger_remote_sampler",
    "parse_response",
    "parse_strategy",
    "render",
]

if typing.TYPE_CHECKING:
    from dsampler.remote._changes import config_changes
    from dsampler.remote._entry import jaeger_remote_sampler, parentbased_jaeger_remote_sampler
    from dsampler.remote._fetch import Fetcher, HttpFetcher
    from dsampler.remote._parse import parse_response, parse_strategy
    from dsampler.remote._poll import PollOutcome, StrategyPoller
    from dsampler.remote._provider import Strategies, config_strategies, jaeger_strategies, load_strategies
    from dsampler.remote._render import render
    from dsampler.remote._sampler import JaegerRemoteSampler
    from dsampler.remote._server import StrategiesServer
    from dsampler.remote._source import StrategiesFile
    from dsampler.remote._strategy import (
        OperationRate,
        PerOperationStrategy,
        ProbabilisticStrategy,
        RateLimitingStrategy,
        Strategy,
        StrategyResponse,
    )
    from dsampler.remote._url import DEFAULT_ENDPOINT

__getattr__, __dir__ = _attach(
    __name__,
    {
        "config_changes": "dsampler.remote._changes",
        "jaeger_remote_sampler": "dsampler.remote._entry",
        "parentbased_jaeger_remote_sampler": "dsampler.remote._entry",
        **dict.fromkeys(("Fetcher", "HttpFetcher"), "dsampler.remote._fetch"),
        "DEFAULT_ENDPOINT": "dsampler.remote._url",
        **dict.fromkeys(("parse_response", "parse_strategy"), "dsampler.remote._parse"),
        **dict.fromkeys(("PollOutcome", "StrategyPoller"), "dsampler.remote._poll"),
        **dict.fromkeys(
            ("Strategies", "config_strategies", "jaeger_strategies", "load_strategies"),
            "dsampler.remote._provider",
        ),
        "render": "dsampler.remote._render",
        "JaegerRemoteSampler": "dsampler.remote._sampler",
        "StrategiesServer": "dsampler.remote._server",
        "StrategiesFile": "dsampler.remote._source",
        **dict.fromkeys(
            (
                "OperationRate",
                "PerOperationStrategy",
                "ProbabilisticStrategy",
                "RateLimitingStrategy",
                "Strategy",
                "StrategyResponse",
            ),
            "dsampler.remote._strategy",
        ),
    },
)
