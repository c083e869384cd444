"""The ``remote:`` section: a Jaeger sampling endpoint polled for the default strategy,
which then owns ``rate``, ``traces_per_second``, ``default_lower_bound_per_second`` and
``operations`` (a file reload keeps them); ``remote:`` with ``adaptive:`` is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Final

from dsampler._validate import check_endpoint, check_seconds, check_url_text, redact_url
from dsampler.config._shape import dump_section, mapping, parse_section

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
        for name, (low, high) in _SECONDS.items():
            object.__setattr__(self, name, check_seconds(getattr(self, name), name[:-2], low, high))
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


def parse_remote(value: object, path: str = "remote") -> RemoteSettings | None:
    """The file form of ``remote:`` (a mapping, or null for none) -> settings.

    Raises:
        ConfigError: each problem named by its path (``remote.polling_interval``).
    """
    if value is None or isinstance(value, RemoteSettings):
        return value
    return parse_section(RemoteSettings, mapping(value, path), path, _SECONDS)


def dump_remote(settings: RemoteSettings | None) -> dict[str, Any] | None:
    """The canonical file form (``parse_remote(dump_remote(s)) == s``)."""
    if settings is None:
        return None
    out = dump_section(settings)
    if settings.service_name is None:  # unset: taken from the resource, as when absent
        del out["service_name"]
    return out
