"""Jaeger remote sampling, the client: ``JaegerRemoteSampler``, the ``jaeger_remote`` entry
points, and the fetch -> parse -> apply poller they share with a DSampler's ``remote:``
section. The strategy model is :mod:`dsampler.protocol`'s; the server, :mod:`dsampler.serve`'s.
See ``docs/remote-sampling.md``."""

import typing

from dsampler._lazy import attach as _attach

__all__ = [
    "DEFAULT_ENDPOINT",
    "Fetcher",
    "HttpFetcher",
    "JaegerRemoteSampler",
    "PollOutcome",
    "StrategyPoller",
    "config_changes",
    "jaeger_remote_sampler",
    "parentbased_jaeger_remote_sampler",
]

if typing.TYPE_CHECKING:
    from dsampler.remote._changes import config_changes
    from dsampler.remote._entry import jaeger_remote_sampler, parentbased_jaeger_remote_sampler
    from dsampler.remote._fetch import Fetcher, HttpFetcher
    from dsampler.remote._poll import PollOutcome, StrategyPoller
    from dsampler.remote._sampler import JaegerRemoteSampler
    from dsampler.remote._url import DEFAULT_ENDPOINT

__getattr__, __dir__ = _attach(
    __name__,
    {
        "config_changes": "dsampler.remote._changes",
        "jaeger_remote_sampler": "dsampler.remote._entry",
        "parentbased_jaeger_remote_sampler": "dsampler.remote._entry",
        "Fetcher": "dsampler.remote._fetch",
        "HttpFetcher": "dsampler.remote._fetch",
        "PollOutcome": "dsampler.remote._poll",
        "StrategyPoller": "dsampler.remote._poll",
        "JaegerRemoteSampler": "dsampler.remote._sampler",
        "DEFAULT_ENDPOINT": "dsampler.remote._url",
    },
)
