"""Drop-in replacements for jaeger-client's samplers: change the import, nothing else.

    from dsampler.jaeger import ProbabilisticSampler   # was: from jaeger_client.sampler import ...

Every public name of ``jaeger_client.sampler`` (4.8) is here, with the same value or
behaviour, plus :func:`sampler_from_config` for jaeger-client's configuration dict; the
migration guide is docs/jaeger-migration.md. Differences, each deliberate:

* Decisions use the ``jaeger`` rule by default: exactly jaeger-client-python's
  ``id & (2**64-1) < rate * 2**64``. ``hash="fnv1a"`` decides like dsampler's
  OpenTelemetry samplers instead, so a fleet half-way through a migration keeps or drops
  each trace in every service alike.
* ``is_sampled`` never raises and never waits for a writer. A trace ID that is not an
  ``int`` is not sampled; an ``int`` subclass is decided by its value (its own operators
  never run). An operation that is not a string, or is longer than 1024 characters, gets
  no sampler of its own in ``AdaptiveSampler``: the default sampler decides it.
* Bad arguments raise :class:`~dsampler.ConfigError` (a ``ValueError``) naming the
  argument, where jaeger-client asserts or fails later. ``sampling_refresh_interval``
  is at least 1 s (None or 0 still mean 60, ``max_operations`` None or 0 still 2000).
* Rate limiters are dsampler's lock-free token buckets with an injectable clock (not
  ``time.time()``, which jumps with NTP): ``rate_limiter.balance`` is read-only and
  ``jaeger_client.rate_limiter.RateLimiter.timestamp`` does not drive them; pass
  ``clock=`` and ``initial_balance=`` (default jaeger-client's ``random() * max_balance``).
  ``rate_limiter.check_credit(1.0)`` works, other item costs are refused.
* ``AdaptiveSampler.update`` drops operations absent from the new strategies (the fix
  jaeger-client-go#412 made; jaeger-client-python kept them at their old rates).
* ``RemoteControlledSampler`` needs no tornado and has none of its IOLoop hooks: it polls
  the agent (``sampling_host``/``sampling_port``, jaeger-client's channel, or any
  ``endpoint``) over HTTP with :mod:`dsampler.remote`'s client, from a daemon thread that
  starts at the first decision and restarts after ``os.fork()``, and decides over a
  :class:`~dsampler.DSampler` without a lock. Responses are read as the wire's proto3
  (``"probabilisticSampling": {}`` is rate 0), dispatched by the objects present; a raw
  dict passed in code (``update(response)``, ``strategy_source``, ``AdaptiveSampler``)
  keeps jaeger-client's defaults. A trace it does not sample carries no tags, and its
  ``sampler`` attribute describes the strategy in force rather than deciding.
* ``ConstSampler`` stores its decision as a bool; in a config, ``const`` with param 1.0
  is on (jaeger-client-python read it as off).

When jaeger-client is installed the samplers also subclass its ``Sampler``, so
``jaeger_client.Config({"sampler": instance})`` accepts them.
"""

import typing

from dsampler._lazy import attach as _attach

__all__ = [
    "DEFAULT_LOWER_BOUND",
    "DEFAULT_LOWER_BOUND_STR",
    "DEFAULT_MAX_OPERATIONS",
    "DEFAULT_SAMPLING_INTERVAL",
    "DEFAULT_SAMPLING_PROBABILITY",
    "DEFAULT_SAMPLING_PROBABILITY_STR",
    "MAX_TRACES_PER_SECOND_STR",
    "OPERATION_SAMPLING_STR",
    "OPERATION_STR",
    "PROBABILISTIC_SAMPLING_STR",
    "PROBABILISTIC_SAMPLING_STRATEGY",
    "RATE_LIMITING_SAMPLING_STR",
    "RATE_LIMITING_SAMPLING_STRATEGY",
    "SAMPLER_PARAM_TAG_KEY",
    "SAMPLER_TYPE_CONST",
    "SAMPLER_TYPE_LOWER_BOUND",
    "SAMPLER_TYPE_PROBABILISTIC",
    "SAMPLER_TYPE_RATE_LIMITING",
    "SAMPLER_TYPE_TAG_KEY",
    "SAMPLING_RATE_STR",
    "STRATEGIES_STR",
    "STRATEGY_TYPE_STR",
    "AdaptiveSampler",
    "ConstSampler",
    "GuaranteedThroughputProbabilisticSampler",
    "ProbabilisticSampler",
    "RateLimitingSampler",
    "RemoteControlledSampler",
    "Sampler",
    "SamplerMetrics",
    "default_logger",
    "get_rate_limit",
    "get_sampling_probability",
    "sampler_from_config",
]

if typing.TYPE_CHECKING:  # the constants type-check as Any through __getattr__
    from dsampler.jaeger._adaptive import AdaptiveSampler
    from dsampler.jaeger._config import sampler_from_config
    from dsampler.jaeger._remote import RemoteControlledSampler, SamplerMetrics
    from dsampler.jaeger._samplers import (
        ConstSampler,
        GuaranteedThroughputProbabilisticSampler,
        ProbabilisticSampler,
        RateLimitingSampler,
        Sampler,
    )
    from dsampler.jaeger._strategies import get_rate_limit, get_sampling_probability

# Where each name lives; the rest of __all__ is jaeger-client's vocabulary, in _constants.
_HOMES = {
    "AdaptiveSampler": "dsampler.jaeger._adaptive",
    "ConstSampler": "dsampler.jaeger._samplers",
    "GuaranteedThroughputProbabilisticSampler": "dsampler.jaeger._samplers",
    "ProbabilisticSampler": "dsampler.jaeger._samplers",
    "RateLimitingSampler": "dsampler.jaeger._samplers",
    "RemoteControlledSampler": "dsampler.jaeger._remote",
    "Sampler": "dsampler.jaeger._samplers",
    "SamplerMetrics": "dsampler.jaeger._remote",
    "get_rate_limit": "dsampler.jaeger._strategies",
    "get_sampling_probability": "dsampler.jaeger._strategies",
    "sampler_from_config": "dsampler.jaeger._config",
}

__getattr__, __dir__ = _attach(
    __name__, {name: _HOMES.get(name, "dsampler.jaeger._constants") for name in __all__}
)
