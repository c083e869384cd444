"""The parser's toolkit, shared by every reader of configuration mappings and of
``OTEL_TRACES_SAMPLER_ARG``: field paths, collected problems, shape checks, durations,
times and ``key=value`` arguments; and the settings sections' field tables (``Check``):
``check_fields`` for a section built in code, ``parse_section`` and ``dump_section``
for its file form.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
import re
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final, TypeAlias, TypeVar

from dsampler._validate import check_rate, check_seconds, show, typed
from dsampler.errors import ConfigError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T")
D = TypeVar("D", bound="DataclassInstance")

_DURATION: Final = re.compile(r"(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)(ns|us|µs|ms|s|m|h|d)")
_UNITS: Final = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
    "d": 86400.0,
}
MAX_ITEMS: Final = 100_000  # rules, values, steps: a bound so hostile input stays cheap
MAX_ARG_CHARS: Final = 4096  # a key=value argument (an environment variable)
_log = logging.getLogger("dsampler.otel")


class Problems:
    """Collects every ConfigError of one parse instead of stopping at the first."""

    def __init__(self) -> None:
        self.found: list[ConfigError] = []

    def run(self, parse: Callable[..., T], *args: Any) -> T | None:
        """``parse(*args)``, or None after recording its errors (which carry full paths)."""
        try:
            return parse(*args)
        except ConfigError as exc:
            self.found.extend(exc.errors)
            return None

    def raise_if_any(self) -> None:
        if self.found:
            raise ConfigError.of(self.found)


def join(path: str, field: str) -> str:
    """``path`` + a field or an index that code (not the user) wrote."""
    if not path:
        return field
    return f"{path}{field}" if field.startswith("[") else f"{path}.{field}"


_PLAIN_KEY: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]{0,63}")


def key_path(path: str, key: str) -> str:
    """``path`` + a key the user wrote: ``.key`` when it reads plainly, else a short
    quoted ``['key']``."""
    if _PLAIN_KEY.fullmatch(key):
        return join(path, key)
    return f"{path}[{show(key, 40)}]"


def render_step(path: str, depth: int, top: str | int, part: str | int) -> str:
    """The field path the parser reports for ``path`` (at ``depth``, under the top-level
    key ``top``) followed by the key or index ``part``."""
    if isinstance(part, int):
        return f"{path}[{part}]"
    if depth == 1 and top == "operations":
        return f"{path}[{show(part, 40)}]"
    return key_path(path, str(part))


def mapping(value: object, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(path, f"expected a mapping, got {typed(value)}")
    for key in value:
        if not isinstance(key, str):
            raise ConfigError(path, f"expected string keys, got {typed(key)}")
    return value


def items(value: object, path: str) -> list[Any]:
    """A list, or a single item standing for a list of one."""
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if len(items) > MAX_ITEMS:
        raise ConfigError(path, f"expected at most {MAX_ITEMS} items, got {len(items)}")
    return items


def no_unknown_keys(data: Mapping[str, Any], known: Iterable[str], path: str) -> None:
    known = list(known)
    for key in data:
        if key not in known:
            import difflib  # only on the error path: its import is not free

            close = difflib.get_close_matches(key, known, n=1) if len(key) <= 64 else []
            hint = f"; did you mean {close[0]!r}?" if close else f"; expected one of {', '.join(known)}"
            raise ConfigError(key_path(path, key), f"unknown key{hint}")


def one_key(data: Mapping[str, Any], choices: tuple[str, ...], path: str) -> tuple[str, Any]:
    no_unknown_keys(data, choices, path)
    if len(data) != 1:
        raise ConfigError(path, f"expected exactly one of {', '.join(choices)}, got {len(data)} keys")
    ((key, value),) = data.items()
    return key, value


def parse_duration(value: object, path: str, within: tuple[float, float] | None = None) -> float:
    """``"250ms"``, ``"10s"``, ``"1h30m"`` -> seconds (a bare number is refused: its unit
    would be a guess), within the range ``within`` if given, shown as written if not."""
    expected = "expected a duration such as 10s, 250ms or 1h30m"
    text = value.strip() if isinstance(value, str) and len(value) <= 64 else ""
    if text.startswith("-"):
        raise ConfigError(path, f"{expected}, not a negative one, got {show(value)}")
    pos, total = 0, 0.0
    while pos < len(text) and (m := _DURATION.match(text, pos)) is not None:
        total += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if pos == 0 or pos < len(text) or not math.isfinite(total):
        raise ConfigError(path, f"{expected}, got {show(value)}")
    if within is not None:
        return check_seconds(total, path, *within, written=str(value))
    return total


def parse_rate(text: str, field: str) -> float:
    """A rate written as text (``"0.25"``, ``"1e-3"``), in [0, 1]."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if math.isnan(value):
        raise ConfigError(field, f"expected a number in [0, 1], got {show(text)}")
    return check_rate(value, field, written=text)


def parse_time(value: object, path: str) -> datetime:
    if isinstance(value, str) and len(value) <= 64:
        with contextlib.suppress(ValueError):
            value = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    if not isinstance(value, datetime) or value.utcoffset() is None:
        expected = "an ISO 8601 time with a zone, such as 2026-12-01T09:00:00Z"
        raise ConfigError(path, f"expected {expected}, got {show(value)}")
    return value


def build(path: str, cls: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Construct a model object; its own validation errors get the object's path."""
    return _built(path, {}, cls, *args, **kwargs)


def _built(path: str, keys: Mapping[str, str], cls: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """:func:`build`, naming a refused field by its key in ``keys`` (a field: its file key)."""
    try:
        return cls(*args, **kwargs)
    except ConfigError as exc:
        problems = [ConfigError(join(path, keys.get(e.field, e.field)), e.problem) for e in exc.errors]
        raise ConfigError.of(problems) from None


#: A settings field's check, ``check(value, field)``, or a duration's range in seconds.
Check: TypeAlias = Callable[[Any, str], Any] | tuple[float, float]


def check_fields(settings: DataclassInstance, checks: Mapping[str, Check]) -> None:
    """Each field of the frozen ``settings`` that ``checks`` names, checked and stored back."""
    for name, check in checks.items():
        value = getattr(settings, name)
        checked = check_seconds(value, name, *check) if isinstance(check, tuple) else check(value, name)
        object.__setattr__(settings, name, checked)


def parse_section(cls: type[D], data: Mapping[str, Any], path: str, checks: Mapping[str, Check]) -> D:
    """A settings section from its file form, where durations (a range in ``checks``) are
    written ``10s`` under their field's name without its ``_s``: each key read by its
    field's check (none: as it is; every problem at once), then ``cls``."""
    fields = {f.name.removesuffix("_s"): f.name for f in dataclasses.fields(cls)}
    no_unknown_keys(data, fields, path)
    problems = Problems()
    values = {}
    for key, raw in data.items():
        check, where = checks.get(fields[key]), join(path, key)
        if isinstance(check, tuple):
            values[fields[key]] = problems.run(parse_duration, raw, where, check)
        else:
            values[fields[key]] = raw if check is None else problems.run(check, raw, where)
    problems.raise_if_any()
    return _built(path, {name: key for key, name in fields.items()}, cls, **values)


def dump_section(settings: DataclassInstance) -> dict[str, Any]:
    """A settings section's canonical file form: durations written ``10.0s``, keyed without ``_s``."""
    out = {}
    for name in (f.name for f in dataclasses.fields(settings)):
        value = getattr(settings, name)
        out[name.removesuffix("_s")] = f"{value!r}s" if name.endswith("_s") else value
    return out


def key_values(
    arg: object, parsers: Mapping[str, Callable[[str], Any]], field: str = "OTEL_TRACES_SAMPLER_ARG"
) -> tuple[dict[str, Any], list[ConfigError]]:
    """A ``key=value,key=value`` argument -> each key's value as its parser reads it, and
    the problems of the entries left out. Entries split on the first ``=``, blanks
    trimmed, blank entries skipped. A key given twice takes its last value, as
    OpenTelemetry reads its other ``key=value`` variables, and a WARNING names it."""
    if not isinstance(arg, str):
        return {}, [] if arg is None else [ConfigError(field, f"expected a string, got {type(arg).__name__}")]
    if len(arg) > MAX_ARG_CHARS:
        return {}, [ConfigError(field, f"expected at most {MAX_ARG_CHARS} characters, got {len(arg)}")]
    values: dict[str, Any] = {}
    problems: list[ConfigError] = []
    for item in arg.split(","):
        key, sep, text = (part.strip() for part in item.partition("="))
        if not key and not sep:
            continue  # a blank entry ("a=1,,b=2", a trailing comma)
        try:
            value = _key_value(key, sep, text, parsers, field)
        except ConfigError as exc:
            problems.append(exc)
            continue
        if key in values:
            _log.warning("dsampler: %s gives %s twice; the last value, %s, is used", field, key, show(text))
        values[key] = value
    return values, problems


def _key_value(key: str, sep: str, text: str, parsers: Mapping[str, Callable[[str], Any]], field: str) -> Any:
    if not sep or not key:
        raise ConfigError(field, f"expected key=value, got {show(f'{key}{sep}{text}')}")
    if key not in parsers:
        *most, last = parsers
        raise ConfigError(key, f"unknown key; expected {', '.join(most)} or {last}")
    return parsers[key](text)
