"""Mappings (from YAML, JSON, the API or the environment) -> the frozen model, and back.

Every problem names its field path (``rules[2].match.span_name``), what was expected and
what was found; all problems of a document are reported together. Unknown keys are
errors (a typo must not pass silently), with a suggestion when one is close.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import re
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any, Final, TypeVar

from dsampler._validate import check_per_second, check_rate, check_text, show, typed
from dsampler.config._model import FIELD_CHECKS, OperationStrategy, SamplingConfig
from dsampler.config._rule import (
    KINDS,
    Action,
    AttributeMatch,
    Drop,
    Match,
    Pattern,
    RateLimit,
    Rollout,
    RolloutStep,
    Rule,
    Sample,
    Value,
)
from dsampler.errors import ConfigError

__all__ = ["FIELDS", "parse_config", "parse_duration", "parse_fields", "render_path"]

T = TypeVar("T")

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
_MAX_ITEMS: Final = 100_000  # rules, values, steps: a bound so hostile input stays cheap


class _Problems:
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


def _join(path: str, field: str) -> str:
    """``path`` + a field or an index that code (not the user) wrote."""
    if not path:
        return field
    return f"{path}{field}" if field.startswith("[") else f"{path}.{field}"


_PLAIN_KEY: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]{0,63}")


def _key(path: str, key: str) -> str:
    """``path`` + a key the user wrote: ``.key`` when it reads plainly, else a short
    quoted ``['key']`` (never the whole of a 10 MB key, never ambiguous with an index)."""
    if _PLAIN_KEY.fullmatch(key):
        return _join(path, key)
    return f"{path}[{show(key, 40)}]"


def render_path(parts: tuple[str | int, ...]) -> str:
    """The field path this parser reports for a document location given as keys and
    indices: ``("rules", 0, "action")`` -> ``rules[0].action``."""
    path = ""
    for i, part in enumerate(parts):
        if isinstance(part, int):
            path = f"{path}[{part}]"
        elif i == 1 and parts[0] == "operations":
            path = f"{path}[{show(part, 40)}]"
        else:
            path = _key(path, str(part))
    return path


def _mapping(value: object, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(path, f"expected a mapping, got {typed(value)}")
    for key in value:
        if not isinstance(key, str):
            raise ConfigError(path, f"expected string keys, got {typed(key)}")
    return value


def _items(value: object, path: str) -> list[Any]:
    """A list, or a single item standing for a list of one."""
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if len(items) > _MAX_ITEMS:
        raise ConfigError(path, f"expected at most {_MAX_ITEMS} items, got {len(items)}")
    return items


def _no_unknown_keys(data: Mapping[str, Any], known: Iterable[str], path: str) -> None:
    known = list(known)
    for key in data:
        if key not in known:
            import difflib  # only on the error path: it costs a millisecond to import

            close = difflib.get_close_matches(key, known, n=1) if len(key) <= 64 else []
            hint = f"; did you mean {close[0]!r}?" if close else f"; expected one of {', '.join(known)}"
            raise ConfigError(_key(path, key), f"unknown key{hint}")


def _one_key(data: Mapping[str, Any], choices: tuple[str, ...], path: str) -> tuple[str, Any]:
    _no_unknown_keys(data, choices, path)
    if len(data) != 1:
        raise ConfigError(path, f"expected exactly one of {', '.join(choices)}, got {len(data)} keys")
    ((key, value),) = data.items()
    return key, value


def parse_duration(value: object, path: str) -> float:
    """``"250ms"``, ``"10s"``, ``"1h30m"`` -> seconds. A bare number is refused: its unit
    would be a guess."""
    if not isinstance(value, str) or len(value) > 64:
        raise ConfigError(path, f"expected a duration such as 10s, 250ms or 1h30m, got {show(value)}")
    text = value.strip()
    pos, total = 0, 0.0
    while pos < len(text):
        m = _DURATION.match(text, pos)
        if m is None:
            raise ConfigError(path, f"expected a duration such as 10s, 250ms or 1h30m, got {show(value)}")
        total += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if pos == 0 or not math.isfinite(total):
        raise ConfigError(path, f"expected a duration such as 10s, 250ms or 1h30m, got {show(value)}")
    return total


def _time(value: object, path: str) -> datetime:
    if isinstance(value, str) and len(value) <= 64:
        with contextlib.suppress(ValueError):
            value = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    if not isinstance(value, datetime) or value.utcoffset() is None:
        expected = "an ISO 8601 time with a zone, such as 2026-12-01T09:00:00Z"
        raise ConfigError(path, f"expected {expected}, got {show(value)}")
    return value


def _pattern(value: object, path: str) -> Pattern:
    if isinstance(value, str):
        return Pattern("exact", check_text(value, path))
    kind, text = _one_key(_mapping(value, path), ("exact", "prefix", "glob"), path)
    return Pattern(kind, check_text(text, _join(path, kind)))  # type: ignore[arg-type]  # one of the three


def _value(value: object, path: str) -> Value:
    if isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            raise ConfigError(path, "expected a number, got NaN (it never equals anything)")
        return value
    return _pattern(value, path)


def _attribute_matches(value: object, path: str) -> tuple[AttributeMatch, ...]:
    data = _mapping(value, path)
    out = []
    for key, wanted in data.items():
        key_path = _key(path, key)
        values = tuple(_value(v, f"{key_path}[{i}]") for i, v in enumerate(_items(wanted, key_path)))
        if not values:
            raise ConfigError(key_path, "expected at least one value")
        out.append(AttributeMatch(check_text(key, key_path), values))
    return tuple(out)


def _span_kinds(value: object, path: str) -> tuple[str, ...]:
    kinds = []
    for i, kind in enumerate(_items(value, path)):
        if not isinstance(kind, str) or kind.lower() not in KINDS:
            raise ConfigError(f"{path}[{i}]", f"expected one of {', '.join(KINDS)}, got {show(kind)}")
        kinds.append(kind.lower())
    return tuple(sorted(set(kinds), key=KINDS.index))


def _span_names(value: object, path: str) -> tuple[Pattern, ...]:
    return tuple(_pattern(v, f"{path}[{i}]") for i, v in enumerate(_items(value, path)))


def _match(value: object, path: str) -> Match:
    data = _mapping(value, path)
    _no_unknown_keys(data, ("span_name", "span_kind", "attributes", "resource"), path)
    p = _Problems()
    names = p.run(_span_names, data.get("span_name", []), f"{path}.span_name")
    kinds = p.run(_span_kinds, data.get("span_kind", []), f"{path}.span_kind")
    attributes = p.run(_attribute_matches, data.get("attributes", {}), f"{path}.attributes")
    resource = p.run(_attribute_matches, data.get("resource", {}), f"{path}.resource")
    p.raise_if_any()
    return Match(names or (), kinds or (), attributes or (), resource or ())


def _rollout(value: object, path: str) -> Rollout:
    data = _mapping(value, path)
    _no_unknown_keys(data, ("start", "steps"), path)
    start = _time(data["start"], f"{path}.start") if "start" in data else None
    if "steps" not in data:
        raise ConfigError(f"{path}.steps", "missing; expected a list of {at or after, rate}")
    steps = []
    for i, raw in enumerate(_items(data["steps"], f"{path}.steps")):
        step_path = f"{path}.steps[{i}]"
        step = _mapping(raw, step_path)
        _no_unknown_keys(step, ("at", "after", "rate"), step_path)
        if ("at" in step) == ("after" in step):
            raise ConfigError(step_path, "expected exactly one of at or after")
        if "rate" not in step:
            raise ConfigError(f"{step_path}.rate", "missing; expected a number in [0, 1]")
        rate = check_rate(step["rate"], f"{step_path}.rate")
        if "at" in step:
            steps.append(RolloutStep(rate, at=_time(step["at"], f"{step_path}.at")))
        else:
            steps.append(RolloutStep(rate, after_s=parse_duration(step["after"], f"{step_path}.after")))
    return _build(path, Rollout, tuple(steps), start)


_ACTION_EXAMPLES: Final = {"sample": "0.5", "rate_limit": "10", "rollout": "{steps: [...]}"}


def _action(value: object, path: str) -> Action:
    if isinstance(value, str) and value == "drop":
        return Drop()
    if isinstance(value, str) and value in _ACTION_EXAMPLES:  # the mapping form, without its value
        raise ConfigError(path, f"{value} needs a value: write {{{value}: {_ACTION_EXAMPLES[value]}}}")
    if isinstance(value, str):
        raise ConfigError(
            path,
            "expected drop, or a mapping {sample: RATE}, {rate_limit: N} or {rollout: ...}; "
            f"got {show(value)}",
        )
    kind, arg = _one_key(_mapping(value, path), ("sample", "rate_limit", "rollout"), path)
    if kind == "sample":
        return Sample(check_rate(arg, f"{path}.sample"))
    if kind == "rate_limit":
        return RateLimit(check_per_second(arg, f"{path}.rate_limit"))
    return _rollout(arg, f"{path}.rollout")


def _rule(value: object, path: str) -> Rule:
    data = _mapping(value, path)
    _no_unknown_keys(data, ("name", "match", "action"), path)
    if "action" not in data:
        raise ConfigError(f"{path}.action", "missing; expected drop, or one of sample, rate_limit, rollout")
    p = _Problems()
    name = p.run(lambda: check_text(data["name"], f"{path}.name") if "name" in data else None)
    match = p.run(_match, data.get("match", {}), f"{path}.match")
    action = p.run(_action, data["action"], f"{path}.action")
    p.raise_if_any()
    return Rule(match or Match(), action or Drop(), name)


def _rules(value: object, path: str) -> tuple[Rule, ...]:
    if not isinstance(value, (list, tuple)):
        raise ConfigError(path, f"expected a list of rules, got {typed(value)}")
    p = _Problems()
    rules = [p.run(_rule, v, f"{path}[{i}]") for i, v in enumerate(_items(value, path))]
    p.raise_if_any()
    return tuple(r for r in rules if r is not None)


def _operation(value: object, path: str) -> OperationStrategy:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return OperationStrategy(check_rate(value, path))
    data = _mapping(value, path)
    _no_unknown_keys(data, ("rate", "lower_bound_per_second"), path)
    if "rate" not in data:
        raise ConfigError(f"{path}.rate", "missing; expected a number in [0, 1]")
    bound = data.get("lower_bound_per_second")
    return OperationStrategy(
        check_rate(data["rate"], f"{path}.rate"),
        None if bound is None else check_per_second(bound, f"{path}.lower_bound_per_second"),
    )


def _operations(value: object, path: str) -> dict[str, OperationStrategy]:
    data = _mapping(value, path)
    if len(data) > _MAX_ITEMS:
        raise ConfigError(path, f"expected at most {_MAX_ITEMS} operations, got {len(data)}")
    p = _Problems()
    out = {
        name: p.run(_operation, v, f"{path}[{show(check_text(name, path), 40)}]") for name, v in data.items()
    }
    p.raise_if_any()
    return {k: v for k, v in out.items() if v is not None}


def _model_check(name: str) -> Callable[[object, str], Any]:
    """The model's own check of a top-level field (its errors name the field, which is
    the path at the top level): one validator per field, shared with the model."""
    check = FIELD_CHECKS[name]
    return lambda value, _path: check(value)


#: File key -> parser of its value. The keys are SamplingConfig's fields; scalars are
#: checked by the model itself, operations and rules parsed from their file form.
FIELDS: Final[dict[str, Callable[[object, str], Any]]] = {
    **{name: _model_check(name) for name in FIELD_CHECKS if name not in ("operations", "rules", "version")},
    "operations": _operations,
    "rules": _rules,
}


def parse_fields(data: Mapping[str, Any], path: str = "") -> dict[str, Any]:
    """Validate some top-level fields (all problems at once); unknown keys are errors."""
    p = _Problems()
    p.run(_no_unknown_keys, _mapping(data, path or "config"), FIELDS, path)
    values = {
        key: p.run(FIELDS[key], value, _join(path, key)) for key, value in data.items() if key in FIELDS
    }
    p.raise_if_any()
    return values


def _build(path: str, cls: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Construct a model object; its own validation errors get the object's path."""
    try:
        return cls(*args, **kwargs)
    except ConfigError as exc:
        raise ConfigError.of([ConfigError(_join(path, e.field), e.problem) for e in exc.errors]) from None


def parse_config(data: Mapping[str, Any], base: SamplingConfig | None = None) -> SamplingConfig:
    """A mapping in the configuration-file format -> a validated :class:`SamplingConfig`.

    Fields absent from ``data`` keep their value in ``base`` (default: the defaults).

    Raises:
        ConfigError: every problem found, each naming its field path.
    """
    values = parse_fields(data)
    config: SamplingConfig = _build("", dataclasses.replace, base or SamplingConfig(), **values)
    return config
