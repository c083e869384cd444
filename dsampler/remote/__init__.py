"""Jaeger remote sampling, the client: ``JaegerRemoteSampler``, the ``jaeger_remote`` entry
points, and the follower they share with a DSampler's ``remote:`` section (fetch ->
parse -> apply, in one background thread). The strategy model is :mod:`dsampler.protocol`'s;
the server, :mod:`dsampler.serve`'s. See ``docs/remote-sampling.md``."""

import typing

from dsampler._lazy import attach as _attach

__all__ = [
    "DEFAULT_ENDPOINT",
    "Fetcher",
    "HttpFetcher",
    "JaegerRemoteSampler",
    "PollOutcome",
    "RemoteFollower",
    "StrategyPoller",
    "jaeger_remote_sampler",
    "parentbased_jaeger_remote_sampler",
    "strategy_fields",
]

if typing.TYPE_CHECKING:
    from dsampler.remote._entry import jaeger_remote_sampler, parentbased_jaeger_remote_sampler
    from dsampler.remote._fetch import Fetcher, HttpFetcher
    from dsampler.remote._fields import strategy_fields
    from dsampler.remote._follow import RemoteFollower
    from dsampler.remote._poll import PollOutcome, StrategyPoller
    from dsampler.remote._sampler import JaegerRemoteSampler
    from dsampler.remote._url import DEFAULT_ENDPOINT

__getattr__, __dir__ = _attach(
    __name__,
    {
        "jaeger_remote_sampler": "dsampler.remote._entry",
        "parentbased_jaeger_remote_sampler": "dsampler.remote._entry",
        "Fetcher": "dsampler.remote._fetch",
        "HttpFetcher": "dsampler.remote._fetch",
        "strategy_fields": "dsampler.remote._fields",
        "RemoteFollower": "dsampler.remote._follow",
        "PollOutcome": "dsampler.remote._poll",
        "StrategyPoller": "dsampler.remote._poll",
        "JaegerRemoteSampler": "dsampler.remote._sampler",
        "DEFAULT_ENDPOINT": "dsampler.remote._url",
    },
)
