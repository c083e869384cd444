"""Jaeger remote sampling, the client: ``JaegerRemoteSampler``, the ``jaeger_remote`` entry
points, and the follower they share with a DSampler's ``remote:`` section (fetch ->
parse -> apply, in one background thread). The strategy model is :mod:`dsampler.protocol`'s;
the server, :mod:`dsampler.serve`'s. See ``docs/remote-sampling.md``."""

from dsampler.remote._entry import parse_remote_properties, remote_sampler, warn_ignored
from dsampler.remote._fetch import Fetcher, HttpFetcher
from dsampler.remote._follow import REMOTE, RemoteFollower, running_follower
from dsampler.remote._poll import PollOutcome
from dsampler.remote._sampler import JaegerRemoteSampler

__all__ = [
    "REMOTE",
    "Fetcher",
    "HttpFetcher",
    "JaegerRemoteSampler",
    "PollOutcome",
    "RemoteFollower",
    "parse_remote_properties",
    "remote_sampler",
    "running_follower",
    "warn_ignored",
]
