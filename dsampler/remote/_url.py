"""The endpoint a client polls: checked once, normalized, and its host written as the
system resolver wants it (kept apart from the socket code in :mod:`._fetch`, so that
entry points check an endpoint without the fetcher)."""

from __future__ import annotations

from typing import Final
from urllib.parse import SplitResult, parse_qs, unquote, urlsplit

from dsampler._validate import check_request_url, check_text, show
from dsampler.errors import ConfigError

__all__ = ["DEFAULT_ENDPOINT", "sampling_url", "socket_host"]

DEFAULT_ENDPOINT: Final = "http://127.0.0.1:5778/sampling"


def sampling_url(endpoint: object) -> SplitResult:
    """``endpoint`` checked (http or https, with a host); an empty path or ``/`` becomes
    ``/sampling`` (an agent's ``/`` serves the legacy dialect, the OTel Collector a 404).

    Raises:
        ConfigError: not an http(s) URL with a host, or one that names the service.
    """
    text = check_text(endpoint, "endpoint", 2048).strip()
    expected = "an http:// or https:// URL with a host, such as http://127.0.0.1:5778/sampling"
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        raise ConfigError("endpoint", f"expected {expected}, got {show(text)}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError("endpoint", f"expected {expected}, got {show(text)}")
    if port == 0:
        raise ConfigError("endpoint", f"expected a port in 1..65535, got {show(text)}")
    check_request_url(parts, "endpoint")
    if "service" in parse_qs(parts.query, keep_blank_values=True):  # sent twice: a 400 at every poll
        found = show(text)
        raise ConfigError("endpoint", f"expected no service= in the URL (the client adds it), got {found}")
    if parts.path in ("", "/"):
        parts = parts._replace(path="/sampling")
    return parts._replace(fragment="")


def socket_host(hostname: str) -> str:
    """The host as the system resolver wants it: an IPv6 literal's zone is written
    ``%25eth0`` in a URL (RFC 6874, as Go's net/url reads it) and is ``%eth0`` to
    getaddrinfo; an unencoded ``%eth0`` is taken as it is. (http.client leaves the zone
    out of the Host header by itself.)"""
    address, percent, zone = hostname.partition("%")
    if percent and ":" in address and zone.startswith("25") and len(zone) > 2:
        return f"{address}%{unquote(zone[2:])}"
    return hostname
