"""The one home of value checks, so a rate is a rate at every boundary: each check returns
the value to store or raises :class:`~dsampler.errors.ConfigError` naming ``field``;
:func:`show` and :func:`typed` describe a refused value without building a hostile repr.
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass
from typing import Final, TypeVar
from urllib.parse import SplitResult, parse_qs, urlsplit

from dsampler.errors import ConfigError

T = TypeVar("T")

MAX_TEXT: Final = 1024  # span names, attribute keys, patterns, operation names
MAX_PER_SECOND: Final = 1e9
DEFAULT_MAX_OPERATIONS: Final = 2000
MAX_OPERATIONS_LIMIT: Final = 1_000_000


@dataclass(frozen=True, slots=True)
class LongInteger:
    """An integer written with more digits than ``int()`` converts, as the readers give it
    (:func:`read_int`): no number to any check, so its field's check refuses it by name."""

    digits: int

    def __repr__(self) -> str:
        return f"an integer of {self.digits} digits"


def read_int(text: str) -> int | LongInteger:
    """A decimal integer as JSON or YAML writes it (the ``parse_int`` of ``json.loads``);
    a :class:`LongInteger` when it has more digits than ``int()`` converts.

    Raises:
        ValueError: ``text`` is no decimal integer.
    """
    try:
        return int(text)
    except ValueError:
        body = text.lstrip("+-")
        if not (body.isascii() and body.isdigit()) or len(text) - len(body) > 1:
            raise
        return LongInteger(len(body))


def show(value: object, limit: int = 60) -> str:
    """A short, safe description of a value for an error message (never the time to
    print a huge string or integer)."""
    if isinstance(value, (str, bytes)):
        text = repr(value[:limit])
        return text + f"... ({len(value)} long)" if len(value) > limit else text
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        return f"{type(value).__name__} of {len(value)}"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**limit:
        return f"an integer of {value.bit_length()} bits"
    try:
        text = repr(value)
    except Exception:  # a hostile __repr__ must not turn a refusal into a crash
        return f"a {type(value).__name__}"
    return text if len(text) <= limit else text[:limit] + "..."


#: The userinfo of a URL (``user:password@``), up to its last ``@`` before the path.
_USERINFO: Final = re.compile(r"""(?<=://)[^/?#\s'"]*@""")


def redact_url(text: str) -> str:
    """``text`` with the userinfo of every URL in it (``user:password@``) written ``***@``."""
    return _USERINFO.sub("***@", text)


def plain(number: float) -> str:
    """A number as a person writes it: ``2`` for ``2.0``, ``0.25``, ``1e-06``."""
    return repr(number).removesuffix(".0")


def typed(value: object) -> str:
    """:func:`show` with the type: ``str 'x'``, ``int 5``, ``list of 3``."""
    text = show(value)
    if isinstance(value, (list, tuple, dict, set, frozenset, LongInteger)):
        return text
    return f"{type(value).__name__} {text}"


def _real(value: object, field: str, expected: str, bounds: tuple[float, float] | None = None) -> float:
    """A real number as a float; bools, strings and overflowing integers refused (the
    message says ``expected``, with ``bounds`` if given: built only for a refusal)."""
    if type(value) is float and value == value:  # noqa: PLR0124 -- the frequent case, no ABC check; NaN fails ==
        return value + 0.0  # + 0.0 turns -0.0 into 0.0
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ConfigError(field, f"expected {_within(expected, bounds)}, got {typed(value)}")
    try:
        number = float(value) + 0.0  # + 0.0 turns -0.0 into 0.0
    except Exception:  # overflow, or a Real whose own __float__ raises anything at all
        raise ConfigError(field, f"expected {_within(expected, bounds)}, got {show(value)}") from None
    if math.isnan(number):
        raise ConfigError(field, f"expected {_within(expected, bounds)}, got NaN")
    return number


def _within(expected: str, bounds: tuple[float, float] | None) -> str:
    return expected if bounds is None else f"{expected} in [{bounds[0]:g}, {bounds[1]:g}]"


def _given(value: object, written: str | None) -> str:
    """A refused value as the user gave it: the text it was written as, else the value."""
    return show(value if written is None else written)


def check_rate(value: object, field: str = "rate", *, written: str | None = None) -> float:
    """A sampling rate: a number in [0, 1]. ``written`` (here and below): the text the
    value was read from, shown when it is refused."""
    if type(value) is float and 0.0 <= value <= 1.0:  # the frequent case (NaN fails both)
        return value + 0.0  # + 0.0 turns -0.0 into 0.0
    return check_number(value, field, 0.0, 1.0, written=written)


def check_per_second(value: object, field: str, *, written: str | None = None) -> float:
    """A traces-per-second figure: a finite number in [0, 1e9]."""
    number = _real(value, field, "a number of traces per second")
    if not 0.0 <= number <= MAX_PER_SECOND:
        raise ConfigError(
            field, f"expected a number in [0, {MAX_PER_SECOND:.0f}], got {_given(value, written)}"
        )
    return number


def check_number(
    value: object, field: str, low: float, high: float, *, written: str | None = None, unit: str = "a number"
) -> float:
    """A number (a factor, a multiplier; else what ``unit`` says) within [low, high]."""
    number = _real(value, field, unit, (low, high))
    if not low <= number <= high:
        raise ConfigError(field, f"expected {_within(unit, (low, high))}, got {_given(value, written)}")
    return number


def check_seconds(value: object, field: str, low: float, high: float, *, written: str | None = None) -> float:
    """A duration in seconds within [low, high] (a poll interval, a timeout)."""
    return check_number(value, field, low, high, written=written, unit="seconds")


def check_int(value: object, field: str, low: int, high: int) -> int:
    """An integer (not a bool, not a float) in [low, high]."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(field, f"expected an integer in [{low}, {high}], got {typed(value)}")
    if not low <= value <= high:
        raise ConfigError(field, f"expected an integer in [{low}, {high}], got {show(value)}")
    return int(value)


#: The largest seed a command (simulate, demo) takes: an int64, so it fits any store.
MAX_SEED: Final = 2**63 - 1


def parse_int(text: str, field: str, low: int, high: int) -> int:
    """A decimal integer given as text, then :func:`check_int` (same messages)."""
    try:
        value = int(text.strip(), 10)
    except ValueError:  # not decimal digits, or more of them than int() will read
        raise ConfigError(field, f"expected an integer in [{low}, {high}], got {show(text)}") from None
    return check_int(value, field, low, high)


def parse_float(text: str, field: str, expected: str) -> float:
    """A number given as text, for a check such as :func:`check_rate` to take on;
    ``expected`` says what is allowed when it is no number at all."""
    try:
        return float(text)
    except ValueError:
        raise ConfigError(field, f"expected {expected}, got {show(text)}") from None


def check_max_operations(value: object, field: str = "max_operations") -> int:
    """How many operations a sampler tracks: an integer in [0, 1,000,000]."""
    return check_int(value, field, 0, MAX_OPERATIONS_LIMIT)


def check_bool(value: object, field: str) -> bool:
    """A real boolean: ``1`` or ``"yes"`` is a bug upstream, not a value to coerce."""
    if not isinstance(value, bool):
        raise ConfigError(field, f"expected true or false, got {typed(value)}")
    return value


def check_optional(value: object, field: str, cls: type[T]) -> T | None:
    """A ``cls`` (a settings object built already) or None."""
    if value is not None and not isinstance(value, cls):
        raise ConfigError(field, f"expected {cls.__name__} or None, got {typed(value)}")
    return value


def check_text(value: object, field: str, limit: int = MAX_TEXT) -> str:
    """A string of at most ``limit`` characters (names, keys, patterns)."""
    if not isinstance(value, str):
        raise ConfigError(field, f"expected a string, got {typed(value)}")
    if len(value) > limit:
        raise ConfigError(field, f"expected at most {limit} characters, got {len(value)}")
    return value


def check_url_text(value: object, field: str, limit: int = MAX_TEXT) -> str:
    """Text a URL will carry: :func:`check_text`, and encodable as UTF-8 (a lone
    surrogate would fail every request that carries it)."""
    text = check_text(value, field, limit)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ConfigError(field, f"expected UTF-8 text, got a lone surrogate at {exc.start}") from None
    return text


_CONTROL_OR_BLANK: Final = re.compile(r"[\x00-\x20\x7f]")
_NOT_PRINTABLE_ASCII: Final = re.compile(r"[^\x21-\x7e]")


def check_endpoint(value: object, field: str = "endpoint") -> SplitResult:
    """A sampling URL a client can poll, split: http or https with a host and a port other
    than 0, no ``service=`` in its query (the client adds it), and what ``http.client``
    can send. Credentials in it are kept and never shown in a refusal."""
    text = check_text(value, field, 2048).strip()
    shown = show(redact_url(text))
    expected = "an http:// or https:// URL with a host, such as http://127.0.0.1:5778/sampling"
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:  # a port that is not a number, a bracket that is not closed
        raise ConfigError(field, f"expected {expected}, got {shown}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(field, f"expected {expected}, got {shown}")
    if port == 0:
        raise ConfigError(field, f"expected a port in 1..65535, got {shown}")
    found = _CONTROL_OR_BLANK.search(parts.netloc) or _NOT_PRINTABLE_ASCII.search(parts.path + parts.query)
    if found is not None:
        problem = f"expected a URL of printable ASCII (percent-encode the rest), got {show(found.group())}"
        raise ConfigError(field, f"{problem} in {shown}")
    if "service" in parse_qs(parts.query, keep_blank_values=True):
        raise ConfigError(field, f"expected no service= in the URL (the client adds it), got {shown}")
    return parts
