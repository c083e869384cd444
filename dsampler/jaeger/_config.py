"""jaeger-client's ``sampler:`` configuration section -> a dsampler.jaeger sampler.

Accepts what ``jaeger_client.Config`` accepts for its sampler, plus ``remote`` as an
explicit type (Go and Java accept it; jaeger-client-python raised), and is strict where
jaeger-client was lax: a ``const`` param of ``"yes"`` is an error, not False.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any, Final

from dsampler._validate import DEFAULT_MAX_OPERATIONS, check_per_second, check_rate, show, typed
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.errors import ConfigError
from dsampler.jaeger._remote import RemoteControlledSampler
from dsampler.jaeger._samplers import (
    DEFAULT_SAMPLING_INTERVAL,
    DEFAULT_SAMPLING_PROBABILITY,
    ConstSampler,
    ProbabilisticSampler,
    RateLimitingSampler,
    Sampler,
)

__all__ = ["sampler_from_config"]

_KEYS: Final = (
    "type",
    "param",
    "sampling_host",
    "sampling_port",
    "sampling_refresh_interval",
    "max_operations",
)
_TRUE: Final = frozenset({"true", "1"})
_FALSE: Final = frozenset({"false", "0", "none"})


def _number(value: object, field: str) -> float:
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            raise ConfigError(field, f"expected a number, got {show(value)}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(field, f"expected a number, got {typed(value)}")
    return float(value)


def _boolean(value: object, field: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, str)) and str(value).strip().lower() in _TRUE | _FALSE:
        return str(value).strip().lower() in _TRUE
    raise ConfigError(field, f"expected true or false, got {show(value)}")


def _setting(section: Mapping[str, Any], config: Mapping[str, Any], key: str, default: Any) -> Any:
    """A key of the sampler section, else of the whole jaeger-client config."""
    return section.get(key, config.get(key, default))


def sampler_from_config(
    config: Mapping[str, Any],
    *,
    service_name: str | None = None,
    hash: str = "jaeger",
    strategy_source: Callable[[], Mapping[str, Any]] | None = None,
    clock: Clock = SYSTEM_CLOCK,
    rng: random.Random | None = None,
) -> Sampler:
    """Build the sampler a jaeger-client configuration asks for.

    ``config`` is either jaeger-client's whole config dict (with a ``sampler`` key, and
    ``service_name``, ``local_agent``, ``sampling_refresh_interval``, ``max_operations``
    at the top) or just its ``sampler`` section: ``type`` (``const``, ``probabilistic``,
    ``ratelimiting``/``rate_limiting``, ``remote``; absent means remote) and ``param``.

    Raises:
        ConfigError: an unknown type or key, a missing or invalid param; the message
            names the key (``sampler.param: expected a number in [0, 1], got 1.5``).
    """
    if not isinstance(config, Mapping):
        raise ConfigError("sampler", f"expected a mapping, got {typed(config)}")
    section = config.get("sampler", config)
    if isinstance(section, Sampler):
        return section
    if not isinstance(section, Mapping):
        raise ConfigError("sampler", f"expected a mapping, got {typed(section)}")
    for key in section:
        if key not in _KEYS:
            raise ConfigError(f"sampler.{key}", f"unknown key; expected one of {', '.join(_KEYS)}")
    kind = section.get("type") or "remote"
    param = section.get("param")
    if kind != "remote" and param is None:
        raise ConfigError("sampler.param", f"missing; a {show(kind)} sampler needs one")
    if kind == "const":
        return ConstSampler(_boolean(param, "sampler.param"))
    if kind == "probabilistic":
        return ProbabilisticSampler(check_rate(_number(param, "sampler.param"), "sampler.param"), hash=hash)
    if kind in ("ratelimiting", "rate_limiting"):
        per_second = check_per_second(_number(param, "sampler.param"), "sampler.param")
        return RateLimitingSampler(per_second, clock=clock, rng=rng)
    if kind == "remote":
        return _remote(section, config, service_name, hash, strategy_source, clock, rng)
    raise ConfigError(
        "sampler.type", f"expected const, probabilistic, ratelimiting or remote, got {show(kind)}"
    )


def _remote(
    section: Mapping[str, Any],
    config: Mapping[str, Any],
    service_name: str | None,
    hash: str,
    strategy_source: Callable[[], Mapping[str, Any]] | None,
    clock: Clock,
    rng: random.Random | None,
) -> RemoteControlledSampler:
    agent = config.get("local_agent") or {}
    if not isinstance(agent, Mapping):
        raise ConfigError("local_agent", f"expected a mapping, got {typed(agent)}")
    host = section.get("sampling_host", agent.get("reporting_host", "localhost"))
    port_value = _number(
        section.get("sampling_port", agent.get("sampling_port", 5778)), "sampler.sampling_port"
    )
    if not port_value.is_integer() or not 0 < port_value < 65536:  # NaN and inf are not integers
        raise ConfigError("sampler.sampling_port", f"expected a port in 1..65535, got {show(port_value)}")
    if not isinstance(host, str) or not host:
        raise ConfigError("sampler.sampling_host", f"expected a host name, got {show(host)}")
    port = int(port_value)
    name = service_name if service_name is not None else config.get("service_name", "")
    param = section.get("param")
    rate = (
        DEFAULT_SAMPLING_PROBABILITY
        if param is None
        else check_rate(_number(param, "sampler.param"), "sampler.param")
    )
    return RemoteControlledSampler(
        service_name=name,
        init_sampler=ProbabilisticSampler(rate, hash=hash),
        sampling_refresh_interval=_number(
            _setting(section, config, "sampling_refresh_interval", DEFAULT_SAMPLING_INTERVAL),
            "sampler.sampling_refresh_interval",
        ),
        max_operations=_setting(section, config, "max_operations", DEFAULT_MAX_OPERATIONS),
        strategy_source=strategy_source,
        hash=hash,
        clock=clock,
        rng=rng,
        endpoint=f"http://{host}:{port}/sampling",
    )
