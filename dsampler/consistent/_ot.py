"""The ``ot`` tracestate value: a strict parser and an in-place writer of ``th``. A value
breaking the grammar reads as absent; the writer changes only ``th`` and returns the very
value it was given when nothing changes."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from dsampler.consistent._threshold import decode_th, encode_th

#: The tracestate key of OpenTelemetry's own entry.
OT_KEY: Final = "ot"
#: The longest ``ot`` value allowed.
MAX_OT_LENGTH: Final = 256

_MEMBER = r"[a-z][a-z0-9]*:[A-Za-z0-9._\-]*"
_GRAMMAR: Final = re.compile(rf"{_MEMBER}(?:;{_MEMBER})*")
_RV_DIGITS: Final = 14


@dataclass(frozen=True, slots=True)
class OtValue:
    """A well-formed ``ot`` value, read.

    Attributes:
        value: the value as received.
        th: the raw ``th`` sub-value, None when absent.
        rv: the raw ``rv`` sub-value, None when absent.
        threshold: the threshold ``th`` encodes, None when absent or invalid.
        randomness: ``rv`` as an integer, None when absent or invalid.
        th_at: where the ``th`` digits start in ``value`` (-1 when absent).
    """

    value: str
    th: str | None
    rv: str | None
    threshold: int | None
    randomness: int | None
    th_at: int

    @property
    def others(self) -> tuple[str, ...]:
        """The members other than ``th`` and ``rv``, in order, as received."""
        return tuple(m for m in self.value.split(";") if not m.startswith(("th:", "rv:")))


@lru_cache(maxsize=512)
def _parse(value: str) -> OtValue | None:
    # Cached: siblings, and a composite and its parent-threshold delegate, read one value.
    if len(value) > MAX_OT_LENGTH or _GRAMMAR.fullmatch(value) is None:
        return None
    found: dict[str, str] = {}
    th_at, at = -1, 0
    for member in value.split(";"):
        key, _, sub = member.partition(":")
        if key in found:
            return None  # keys MUST be unique
        found[key] = sub
        if key == "th":
            th_at = at + 3
        at += len(member) + 1
    th, rv = found.get("th"), found.get("rv")
    randomness = decode_th(rv) if len(rv or "") == _RV_DIGITS else None  # 14 hex digits, shifted by none
    return OtValue(value, th, rv, decode_th(th), randomness, th_at)


def parse_ot(value: object) -> OtValue | None:
    """Read an ``ot`` value; None when it is malformed (or not a string)."""
    if not isinstance(value, str):
        return None
    return _parse(value)


_th: Final = lru_cache(maxsize=64)(encode_th)


def ot_with_threshold(value: str | None, threshold: int) -> str | None:
    """``value`` carrying ``th`` for ``threshold`` (in [0, 2**56)); ``th:T`` alone for an
    absent or malformed value; ``value`` itself when unchanged; None past 256 characters.
    """
    th = _th(threshold)
    parsed = parse_ot(value) if value else None
    if parsed is None or value is None:
        return "th:" + th
    if parsed.th_at < 0:
        updated = f"th:{th};{value}"
    elif parsed.th == th:
        return value
    else:
        end = parsed.th_at + len(parsed.th or "")
        updated = value[: parsed.th_at] + th + value[end:]
    return updated if len(updated) <= MAX_OT_LENGTH else None


def ot_without_threshold(value: str | None) -> str | None:
    """``value`` without its ``th`` member: ``value`` itself when it has none, None when
    nothing would be left (or ``value`` is None or malformed)."""
    parsed = parse_ot(value)
    if parsed is None or value is None:
        return None
    if parsed.th_at < 0:
        return value
    start, end = parsed.th_at - 3, parsed.th_at + len(parsed.th or "")
    if end < len(value):  # a member follows: drop "th:...;"
        return value[:start] + value[end + 1 :]
    return value[: start - 1] if start else None  # drop ";th:...", or th was all there was
