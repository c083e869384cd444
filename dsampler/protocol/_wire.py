"""The protobuf wire format by hand, enough for the sampling and health messages: written as
gogo writes proto3; read bounded for hostile bytes (unknown fields and groups skipped, a
known field of another wire type refused), every problem a ConfigError naming the field.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from typing import Final, TypeAlias, TypeVar

from dsampler.errors import ConfigError

VARINT: Final = 0
I64: Final = 1
LEN: Final = 2
START_GROUP: Final = 3
END_GROUP: Final = 4
I32: Final = 5
MAX_GROUP_DEPTH: Final = 32
_MAX_FIELD: Final = (1 << 29) - 1
_WIRE_NAMES: Final = ("varint", "64-bit", "length-delimited", "group", "end of group", "32-bit")  # by type
_DOUBLE: Final = struct.Struct("<d")
T = TypeVar("T")
P = TypeVar("P", int, bytes)

#: A field's payload: an int for a varint, the raw bytes for the fixed and
#: length-delimited types, None for a skipped group.
Payload: TypeAlias = "int | bytes | None"
#: A decoded field: its number, wire type and payload.
Field: TypeAlias = tuple[int, int, Payload]


def varint(value: int) -> bytes:
    """``value`` (0 <= value < 2**64) as a base-128 varint."""
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _key(number: int, wire: int) -> bytes:
    return varint(number << 3 | wire)


def varint_field(number: int, value: int) -> bytes:
    """An int32/enum field; 0 is left out, a negative value takes ten bytes (int32 is
    sign-extended to 64 bits on the wire)."""
    if value == 0:
        return b""
    return _key(number, VARINT) + varint(value & 0xFFFFFFFFFFFFFFFF)


def double_field(number: int, value: float) -> bytes:
    """A double field; 0 (and -0.0, as Go compares ``!= 0``) is left out."""
    return b"" if value == 0 else _key(number, I64) + _DOUBLE.pack(value)


def string_field(number: int, text: str) -> bytes:
    """A string field in UTF-8; the empty string is left out."""
    return b"" if not text else message_field(number, text.encode("utf-8"))


def message_field(number: int, body: bytes) -> bytes:
    """A length-delimited field, always written (a present sub-message, even empty)."""
    return _key(number, LEN) + varint(len(body)) + body


def _read_varint(data: bytes, at: int, path: str) -> tuple[int, int]:
    """The varint at ``at`` and the offset after it."""
    value = shift = 0
    for i in range(at, min(at + 10, len(data))):
        byte = data[i]
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value & 0xFFFFFFFFFFFFFFFF, i + 1
        shift += 7
    if len(data) - at >= 10:
        raise ConfigError(path, f"varint at byte {at} is longer than 10 bytes")
    raise ConfigError(path, f"truncated varint at byte {at} ({len(data)} bytes)")


def _skip_group(data: bytes, at: int, number: int, depth: int, path: str) -> int:
    """The offset after the end of the group ``number`` whose fields start at ``at``."""
    if depth > MAX_GROUP_DEPTH:
        raise ConfigError(path, f"groups nested more than {MAX_GROUP_DEPTH} deep at byte {at}")
    while at < len(data):
        start = at
        inner, wire, at = _read_key(data, at, path)
        if wire == END_GROUP:
            if inner != number:
                raise ConfigError(path, f"end of group {inner} at byte {start} closes group {number}")
            return at
        at = _skip(data, at, inner, wire, depth, path)[0]
    raise ConfigError(path, f"group {number} is not closed before the end ({len(data)} bytes)")


def _read_key(data: bytes, at: int, path: str) -> tuple[int, int, int]:
    start = at
    key, at = _read_varint(data, at, path)
    number, wire = key >> 3, key & 7
    if not 0 < number <= _MAX_FIELD:
        raise ConfigError(path, f"invalid field number {number} at byte {start}")
    if wire > I32:
        raise ConfigError(path, f"invalid wire type {wire} at byte {start} (field {number})")
    return number, wire, at


def _skip(data: bytes, at: int, number: int, wire: int, depth: int, path: str) -> tuple[int, Payload]:
    """The offset after a field's payload, and the payload."""
    if wire == VARINT:
        value, at = _read_varint(data, at, path)
        return at, value
    if wire == START_GROUP:
        return _skip_group(data, at, number, depth + 1, path), None
    if wire == END_GROUP:
        raise ConfigError(path, f"end of group {number} at byte {at} without its start")
    if wire == LEN:
        size, at = _read_varint(data, at, path)
    else:
        size = 8 if wire == I64 else 4
    if size > len(data) - at:
        raise ConfigError(
            path, f"field {number}: {size} bytes at byte {at} run past the end ({len(data)} bytes)"
        )
    return at + size, data[at : at + size]


def fields(data: bytes, path: str) -> Iterator[Field]:
    """Every field of the message ``data`` in wire order, unknown ones included."""
    at = 0
    while at < len(data):
        number, wire, at = _read_key(data, at, path)
        at, value = _skip(data, at, number, wire, 0, path)
        yield number, wire, value


def last(
    data: bytes, path: str, number: int, read: Callable[[Field, str], T], field_path: str, absent: T
) -> T:
    """The singular field ``number`` read by ``read``: the last occurrence wins (each is
    read, so a bad earlier one is refused); ``absent`` when it is not there."""
    value = absent
    for found in fields(data, path):
        if found[0] == number:
            value = read(found, field_path)
    return value


def expect(found: Field, wire: int, path: str, kind: type[P]) -> P:
    """The payload of a known field (``kind``: int for a varint, else bytes), refused when
    its wire type is not ``wire``."""
    number, got, value = found
    if got != wire or not isinstance(value, kind):
        raise ConfigError(
            path,
            f"expected wire type {wire} ({_WIRE_NAMES[wire]}), "
            f"got {got} ({_WIRE_NAMES[got]}) for field {number}",
        )
    return value


def read_double(found: Field, path: str) -> float:
    return float(_DOUBLE.unpack(expect(found, I64, path, bytes))[0])


def read_text(found: Field, path: str) -> str:
    """A string field: proto3 requires UTF-8, and so do we."""
    value = expect(found, LEN, path, bytes)
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(path, f"not valid UTF-8: {exc.reason} at byte {exc.start}") from None
