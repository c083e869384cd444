"""jaeger-client's configuration -> a dsampler.jaeger sampler.

:func:`sampler_from_config` accepts what ``jaeger_client.Config`` accepts for its sampler:
a built sampler, jaeger-client's whole config dict (no ``sampler:`` section means a remote
sampler) or just the ``sampler:`` section. Unknown section keys are named once and
ignored; an unreadable value is an error naming the key, where jaeger-client guessed.
"""

from __future__ import annotations

import difflib
import os
import random
from collections.abc import Callable, Mapping
from typing import Any, Final, cast

from dsampler._validate import check_per_second, check_rate, parse_float, show, typed
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.errors import ConfigError
from dsampler.jaeger._constants import DEFAULT_SAMPLING_PROBABILITY, default_logger
from dsampler.jaeger._polling import (
    DEFAULT_SAMPLING_PORT,
    agent_url,
    max_operations_or_default,
    refresh_interval,
)
from dsampler.jaeger._remote import RemoteControlledSampler
from dsampler.jaeger._samplers import (
    ConstSampler,
    ProbabilisticSampler,
    RateLimitingSampler,
    Sampler,
    is_sampler,
)

_KEYS: Final = (
    "type",
    "param",
    "sampling_host",
    "sampling_port",
    "sampling_refresh_interval",
    "max_operations",
)
_SECTION_ONLY: Final = ("type", "param", "sampling_host", "sampling_port")  # never top-level keys
_TYPES: Final = ("const", "probabilistic", "ratelimiting", "rate_limiting", "remote")
_TRUE: Final = frozenset({"true", "1"})
_FALSE: Final = frozenset({"false", "0", "none"})
_WARNED: Final[set[str]] = set()  # what was logged once already (bounded below)
_MAX_WARNED: Final = 256


def _warn_once(field: str, problem: str) -> None:
    if field in _WARNED:
        return
    if len(_WARNED) < _MAX_WARNED:
        _WARNED.add(field)
    default_logger.warning("%s: %s", field, problem)


def _unknown_keys(section: Mapping[Any, Any]) -> None:
    for key in section:
        if key in _KEYS:
            continue
        name = key if isinstance(key, str) and len(key) <= 100 else show(key)
        near = difflib.get_close_matches(name, _KEYS, n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        _warn_once(f"sampler.{name}", f"unknown key, ignored{hint}; expected one of {', '.join(_KEYS)}")


def _parsed(value: object, field: str) -> object:
    """Text read as a number (jaeger-client float()s its params); the caller checks the rest."""
    return parse_float(value, field, "a number") if isinstance(value, str) else value


def _decision(param: object, field: str) -> bool:
    """A ``const`` param: booleans, 1 and 0, their texts; missing (or "none") is off."""
    if param is None or isinstance(param, bool):
        return bool(param)
    if isinstance(param, str) and param.strip().lower() in _TRUE | _FALSE:
        return param.strip().lower() in _TRUE
    if type(param) in (int, float) and param in (0, 1):
        if type(param) is float and param == 1:
            _warn_once(
                field + "=1.0",
                "1.0 samples every trace, as in jaeger-client-go and -java "
                "(jaeger-client-python read it as false and sampled none)",
            )
        return param == 1
    raise ConfigError(field, f"expected true or false, got {show(param)}")


def _split(config: Mapping[str, Any]) -> tuple[Mapping[str, Any], object]:
    """(whole jaeger-client config, its sampler section) of what was given."""
    if "sampler" in config:
        return config, config["sampler"]
    if any(key in config for key in _SECTION_ONLY):
        return {}, config  # just the section
    return config, {}  # a whole config without a sampler section: remote


def sampler_from_config(
    config: Mapping[str, Any] | Sampler,
    *,
    service_name: str | None = None,
    hash: str = "jaeger",
    strategy_source: Callable[[], Mapping[str, Any]] | None = None,
    clock: Clock = SYSTEM_CLOCK,
    rng: random.Random | None = None,
) -> Sampler:
    """Build the sampler a jaeger-client configuration asks for (see the module docstring).

    Raises:
        ConfigError: an unknown type, a missing or invalid value, naming the key.
    """
    if is_sampler(config):
        return cast(Sampler, config)
    if not isinstance(config, Mapping):
        raise ConfigError("sampler", f"expected a mapping, got {typed(config)}")
    whole, section = _split(config)
    if is_sampler(section):
        return cast(Sampler, section)
    section, kind = _section(section)
    param = section.get("param")
    if kind == "const":
        return ConstSampler(_decision(param, "sampler.param"))
    if kind == "remote":
        return _remote(section, whole, service_name, hash, strategy_source, clock, rng)
    if param is None:
        raise ConfigError("sampler.param", f"missing; a {kind} sampler needs one")
    value = _parsed(param, "sampler.param")
    if kind == "probabilistic":
        return ProbabilisticSampler(check_rate(value, "sampler.param"), hash=hash)
    return RateLimitingSampler(check_per_second(value, "sampler.param"), clock=clock, rng=rng)


def _section(section: object) -> tuple[Mapping[str, Any], str]:
    """The ``sampler:`` section, checked, and its type (default ``remote``)."""
    section = {} if section is None else section
    if not isinstance(section, Mapping):
        raise ConfigError("sampler", f"expected a mapping, got {typed(section)}")
    _unknown_keys(section)
    kind = section.get("type") or "remote"
    if not isinstance(kind, str) or kind not in _TYPES:
        raise ConfigError(
            "sampler.type",
            f"unknown sampler type {show(kind)}; expected const, probabilistic, "
            "ratelimiting (or rate_limiting) or remote",
        )
    return section, kind


def _setting(section: Mapping[str, Any], whole: Mapping[str, Any], key: str) -> tuple[Any, str]:
    """A key of the sampler section, else of the whole config, with its name for errors."""
    if key in section:
        return section[key], f"sampler.{key}"
    return whole.get(key), key


def _endpoint(section: Mapping[str, Any], agent: Mapping[str, Any]) -> str:
    """The agent's sampling URL, from jaeger-client's keys (and JAEGER_AGENT_HOST)."""
    if "sampling_host" in section:
        host, host_field = section["sampling_host"], "sampler.sampling_host"
    elif "reporting_host" in agent:
        host, host_field = agent["reporting_host"], "local_agent.reporting_host"
    else:
        host, host_field = os.environ.get("JAEGER_AGENT_HOST", "localhost"), "JAEGER_AGENT_HOST"
    port: object = DEFAULT_SAMPLING_PORT
    port_field = ""
    if "sampling_port" in section:
        port, port_field = section["sampling_port"], "sampler.sampling_port"
    elif "sampling_port" in agent:
        port, port_field = agent["sampling_port"], "local_agent.sampling_port"
    port = _parsed(port, port_field)  # jaeger-client int()s it: "5778" and 5778.0 are ports
    if isinstance(port, float) and port.is_integer():
        port = int(port)
    return agent_url(host, port, host_field, port_field)


def _remote(
    section: Mapping[str, Any],
    whole: Mapping[str, Any],
    service_name: str | None,
    hash: str,
    strategy_source: Callable[[], Mapping[str, Any]] | None,
    clock: Clock,
    rng: random.Random | None,
) -> RemoteControlledSampler:
    agent = whole.get("local_agent") or {}
    if not isinstance(agent, Mapping):
        raise ConfigError("local_agent", f"expected a mapping, got {typed(agent)}")
    endpoint = _endpoint(section, agent)
    param = section.get("param")
    rate = DEFAULT_SAMPLING_PROBABILITY
    if param is not None:
        rate = check_rate(_parsed(param, "sampler.param"), "sampler.param")
    interval, interval_field = _setting(section, whole, "sampling_refresh_interval")
    operations, operations_field = _setting(section, whole, "max_operations")
    return RemoteControlledSampler(
        service_name=service_name if service_name is not None else whole.get("service_name", ""),
        init_sampler=ProbabilisticSampler(rate, hash=hash),
        sampling_refresh_interval=refresh_interval(_parsed(interval, interval_field), interval_field),
        max_operations=max_operations_or_default(operations, operations_field),
        strategy_source=strategy_source,
        hash=hash,
        clock=clock,
        rng=rng,
        endpoint=endpoint,
    )
