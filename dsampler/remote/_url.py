"""The endpoint a client polls: checked once, normalized, and its host written as the
system resolver wants it (kept apart from the socket code in :mod:`._fetch`, so that
entry points check an endpoint without the fetcher)."""

from __future__ import annotations

from typing import Final
from urllib.parse import SplitResult, unquote

from dsampler._validate import check_endpoint

DEFAULT_ENDPOINT: Final = "http://127.0.0.1:5778/sampling"


def sampling_url(endpoint: object) -> SplitResult:
    """``endpoint`` checked; an empty path or ``/`` becomes ``/sampling``; credentials kept.

    Raises:
        ConfigError: not an http(s) URL with a host, or one that names the service.
    """
    parts = check_endpoint(endpoint)
    if parts.path in ("", "/"):
        parts = parts._replace(path="/sampling")
    return parts._replace(fragment="")


def socket_host(hostname: str) -> str:
    """The host as the system resolver wants it: an IPv6 literal's zone is written
    ``%25eth0`` in a URL (RFC 6874, as Go's net/url reads it) and is ``%eth0`` to
    getaddrinfo; an unencoded ``%eth0`` is taken as it is."""
    address, percent, zone = hostname.partition("%")
    if percent and ":" in address and zone.startswith("25") and len(zone) > 2:
        return f"{address}%{unquote(zone[2:])}"
    return hostname
