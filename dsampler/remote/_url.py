"""The endpoint a client polls, checked and normalized, without the socket code."""

from __future__ import annotations

from typing import Final
from urllib.parse import SplitResult, unquote

from dsampler._validate import check_endpoint

DEFAULT_ENDPOINT: Final = "http://127.0.0.1:5778/sampling"


def sampling_url(endpoint: object) -> SplitResult:
    """``endpoint`` checked; an empty path or ``/`` becomes ``/sampling``; credentials kept."""
    parts = check_endpoint(endpoint)
    if parts.path in ("", "/"):
        parts = parts._replace(path="/sampling")
    return parts._replace(fragment="")


def socket_host(hostname: str) -> str:
    """The host for getaddrinfo: an IPv6 zone written ``%25eth0`` in a URL (RFC 6874) is
    ``%eth0``; an unencoded ``%eth0`` is taken as it is."""
    address, percent, zone = hostname.partition("%")
    if percent and ":" in address and zone.startswith("25") and len(zone) > 2:
        return f"{address}%{unquote(zone[2:])}"
    return hostname
