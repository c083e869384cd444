"""The ``remote:`` section: a Jaeger sampling endpoint that owns the default strategy.

With it, a DSampler polls ``GET {endpoint}?service={service_name}`` and each strategy
it gets (probabilistic, rate limiting, per-operation) sets the configuration's ``rate``,
``traces_per_second``, ``default_lower_bound_per_second`` and ``operations``; the file's
own rules still decide what they match, and a file reload keeps the remote's fields::

    remote:
      endpoint: http://jaeger-agent:5778/sampling   # or the collector's :14268/api/sampling
      polling_interval: 60s
      service_name: checkout                        # default: the resource's service.name

Exactly one source owns the default rate: ``remote:`` and ``adaptive:`` together are
refused, naming both.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Final

from dsampler._validate import check_endpoint, check_seconds, check_url_text, redact_url, show
from dsampler.config._shape import build, mapping, no_unknown_keys, parse_duration
from dsampler.errors import ConfigError

DEFAULT_ENDPOINT: Final = "http://127.0.0.1:5778/sampling"
#: The range of each duration, in seconds (the file form checks it as written: ``'2d'``).
_SECONDS: Final = {"polling_interval_s": (1.0, 86400.0), "request_timeout_s": (0.1, 300.0)}


@dataclass(frozen=True, slots=True)
class RemoteSettings:
    """Where the default strategy comes from.

    Attributes:
        endpoint: the sampling URL (http or https; default the local Jaeger agent's
            ``http://127.0.0.1:5778/sampling``); credentials in it
            (``http://user:password@host/...``) are sent as HTTP Basic authentication,
            and shown as ``***``.
        polling_interval_s: seconds between polls, in [1, 86400] (default 60).
        service_name: sent as ``?service=`` (default: the resource's ``service.name``).
        request_timeout_s: the whole request, in [0.1, 300] (default 10).
    """

    endpoint: str = DEFAULT_ENDPOINT
    polling_interval_s: float = 60.0
    service_name: str | None = None
    request_timeout_s: float = 10.0

    def __post_init__(self) -> None:
        check_endpoint(self.endpoint)  # what every client polls, checked here once
        interval = check_seconds(self.polling_interval_s, "polling_interval", *_SECONDS["polling_interval_s"])
        object.__setattr__(self, "polling_interval_s", interval)
        timeout = check_seconds(self.request_timeout_s, "request_timeout", *_SECONDS["request_timeout_s"])
        object.__setattr__(self, "request_timeout_s", timeout)
        if self.service_name is not None:
            check_url_text(self.service_name, "service_name")

    def __repr__(self) -> str:  # the endpoint's credentials shown as ***
        shown = {f.name: getattr(self, f.name) for f in fields(self)}
        shown["endpoint"] = redact_url(self.endpoint)
        return f"RemoteSettings({', '.join(f'{name}={value!r}' for name, value in shown.items())})"


def service_name(explicit: object, resource: Mapping[str, Any], field: str = "service_name") -> str:
    """The service name sent as ``?service=``: ``explicit``, else the resource's
    ``service.name``, else ``unknown_service``.

    Raises:
        ConfigError: it is not text a URL can carry (named ``field``).
    """
    if explicit is None:
        found = resource.get("service.name")
        explicit = found if isinstance(found, str) and found else "unknown_service"
    return check_url_text(explicit, field)


def check_remote(value: object) -> RemoteSettings | None:
    """The model's check of ``SamplingConfig.remote``."""
    if value is not None and not isinstance(value, RemoteSettings):
        raise ConfigError("remote", f"expected RemoteSettings or None, got {show(value)}")
    return value


_DURATIONS: Final = {"polling_interval": "polling_interval_s", "request_timeout": "request_timeout_s"}


def parse_remote(value: object, path: str = "remote") -> RemoteSettings | None:
    """The file form of ``remote:`` (a mapping, or null for none) -> settings.

    Raises:
        ConfigError: each problem named by its path (``remote.polling_interval``).
    """
    if value is None or isinstance(value, RemoteSettings):
        return value
    data = mapping(value, path)
    no_unknown_keys(data, ("endpoint", "service_name", *_DURATIONS), path)
    kwargs: dict[str, Any] = {k: data[k] for k in ("endpoint", "service_name") if k in data}
    for key, field in _DURATIONS.items():
        if key in data:
            kwargs[field] = parse_duration(data[key], f"{path}.{key}", _SECONDS[field])
    settings: RemoteSettings = build(path, RemoteSettings, **kwargs)
    return settings


def dump_remote(settings: RemoteSettings | None) -> dict[str, Any] | None:
    """The canonical file form (``parse_remote(dump_remote(s)) == s``)."""
    if settings is None:
        return None
    out: dict[str, Any] = {"endpoint": settings.endpoint}
    out["polling_interval"] = f"{settings.polling_interval_s!r}s"
    out["request_timeout"] = f"{settings.request_timeout_s!r}s"
    if settings.service_name is not None:
        out["service_name"] = settings.service_name
    return out
