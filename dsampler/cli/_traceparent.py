"""The W3C ``traceparent`` header, read field by field as a receiving service reads it.

``version-traceid-parentid-flags``: ``00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01``.
Hex is lowercase only, IDs are never all zero and version ``ff`` is invalid (W3C Trace
Context, section 3.2). OpenTelemetry's propagator ignores a header that breaks any of these and
starts a new root trace; ``dsampler explain`` refuses it instead, naming the field, so
that nobody explains a parent the application would never see.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from dsampler._validate import show
from dsampler.errors import ConfigError

FIELD: Final = "--traceparent"
_HEX: Final = frozenset("0123456789abcdef")
_MAX_LENGTH: Final = 512  # version 00 is 55 characters; later versions may append fields
# (name, hex digits, all zeros allowed): the four fields of every version
_FIELDS: Final = (("version", 2, True), ("trace-id", 32, False), ("parent-id", 16, False), ("flags", 2, True))


@dataclass(frozen=True, slots=True)
class Traceparent:
    """A parsed ``traceparent``: the parent span a request arrives with."""

    trace_id: int
    span_id: int
    flags: int

    @property
    def sampled(self) -> bool:
        """The ``sampled`` flag (bit 0): what a parent-based sampler follows."""
        return bool(self.flags & 1)


def parse_traceparent(text: str) -> Traceparent:
    """``00-<32 hex>-<16 hex>-<2 hex>`` -> :class:`Traceparent`.

    Raises:
        ConfigError: the header is malformed; the problem names the W3C field.
    """
    if len(text) > _MAX_LENGTH:
        raise ConfigError(FIELD, f"expected at most {_MAX_LENGTH} characters, got {show(text)}")
    parts = text.strip(" \t").split("-")
    if len(parts) < len(_FIELDS):
        raise ConfigError(FIELD, f"expected version-traceid-parentid-flags, got {show(text)}")
    values = [_hex(part, *spec) for part, spec in zip(parts[:4], _FIELDS, strict=True)]
    if values[0] == 0xFF:
        raise ConfigError(FIELD, "version: ff is not a valid version")
    if values[0] == 0 and len(parts) != len(_FIELDS):
        raise ConfigError(FIELD, f"version 00 has exactly four fields, got {len(parts)}")
    return Traceparent(trace_id=values[1], span_id=values[2], flags=values[3])


def _hex(part: str, name: str, digits: int, zero_ok: bool) -> int:
    if len(part) != digits or not _HEX.issuperset(part):
        raise ConfigError(FIELD, f"{name}: expected {digits} lowercase hex digits, got {show(part)}")
    value = int(part, 16)
    if value == 0 and not zero_ok:
        raise ConfigError(FIELD, f"{name}: all zeros is not a valid {name}")
    return value
