"""The ``rules:`` section of a configuration file -> frozen :class:`Rule` values, and back."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Final

from dsampler._validate import check_rate, check_text, show, typed
from dsampler.config._rule import (
    ANY_TEXT,
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
from dsampler.config._shape import (
    Problems,
    build,
    items,
    key_path,
    mapping,
    no_unknown_keys,
    one_key,
    parse_duration,
    parse_time,
)
from dsampler.errors import ConfigError


def _pattern(value: object, path: str) -> Pattern:
    if isinstance(value, str):
        return Pattern("exact", check_text(value, path))
    return build(path, Pattern, *one_key(mapping(value, path), ("exact", "prefix", "glob"), path))


def _value(value: object, path: str) -> Value:
    if isinstance(value, float) and math.isnan(value):
        raise ConfigError(path, "expected a number, got NaN (it never equals anything)")
    return value if isinstance(value, (bool, int, float)) else _pattern(value, path)


def _attribute_matches(value: object, path: str) -> tuple[AttributeMatch, ...]:
    data = mapping(value, path)
    out = []
    for key, wanted in data.items():
        where = key_path(path, key)
        if isinstance(wanted, Mapping) and ("text" in wanted or "excluded" in wanted):
            out.append(_text_match(check_text(key, where), wanted, where))
            continue
        values = tuple(_value(v, f"{where}[{i}]") for i, v in enumerate(items(wanted, where)))
        if not values:
            raise ConfigError(where, "expected at least one value")
        out.append(AttributeMatch(check_text(key, where), values))
    return tuple(out)


def _text_match(key: str, value: object, path: str) -> AttributeMatch:
    """``{text: [patterns], excluded: [patterns]}``: compared as text, OpenTelemetry's way
    (no ``text``: any value)."""
    data = mapping(value, path)
    no_unknown_keys(data, ("text", "excluded"), path)
    text = _patterns(data["text"], f"{path}.text") if "text" in data else ANY_TEXT
    return AttributeMatch(key, text, _patterns(data.get("excluded", []), f"{path}.excluded"), text=True)


def _span_kinds(value: object, path: str) -> tuple[str, ...]:
    kinds = []
    for i, kind in enumerate(items(value, path)):
        if not isinstance(kind, str) or kind.lower() not in KINDS:
            raise ConfigError(f"{path}[{i}]", f"expected one of {', '.join(KINDS)}, got {show(kind)}")
        kinds.append(kind.lower())
    return tuple(sorted(set(kinds), key=KINDS.index))


def _patterns(value: object, path: str) -> tuple[Pattern, ...]:
    return tuple(_pattern(v, f"{path}[{i}]") for i, v in enumerate(items(value, path)))


def _match(value: object, path: str) -> Match:
    data = mapping(value, path)
    no_unknown_keys(data, ("span_name", "span_kind", "attributes", "resource"), path)
    p = Problems()
    names = p.run(_patterns, data.get("span_name", []), f"{path}.span_name")
    kinds = p.run(_span_kinds, data.get("span_kind", []), f"{path}.span_kind")
    attributes = p.run(_attribute_matches, data.get("attributes", {}), f"{path}.attributes")
    resource = p.run(_attribute_matches, data.get("resource", {}), f"{path}.resource")
    p.raise_if_any()
    return Match(names or (), kinds or (), attributes or (), resource or ())


def _rollout(value: object, path: str) -> Rollout:
    data = mapping(value, path)
    no_unknown_keys(data, ("start", "steps"), path)
    start = parse_time(data["start"], f"{path}.start") if "start" in data else None
    if "steps" not in data:
        raise ConfigError(f"{path}.steps", "missing; expected a list of {at or after, rate}")
    steps = []
    for i, raw in enumerate(items(data["steps"], f"{path}.steps")):
        step_path = f"{path}.steps[{i}]"
        step = mapping(raw, step_path)
        no_unknown_keys(step, ("at", "after", "rate"), step_path)
        if ("at" in step) == ("after" in step):
            raise ConfigError(step_path, "expected exactly one of at or after")
        if "rate" not in step:
            raise ConfigError(f"{step_path}.rate", "missing; expected a number in [0, 1]")
        rate = check_rate(step["rate"], f"{step_path}.rate")
        at = parse_time(step["at"], f"{step_path}.at") if "at" in step else None
        after = None if "at" in step else parse_duration(step["after"], f"{step_path}.after")
        steps.append(RolloutStep(rate, at, after))
    return build(path, Rollout, tuple(steps), start)


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
    kind, arg = one_key(mapping(value, path), ("sample", "rate_limit", "rollout"), path)
    if kind == "sample":
        return build(path, Sample, arg)  # checked by Sample, named by its key
    if kind == "rate_limit":
        return build(path, RateLimit, arg)
    return _rollout(arg, f"{path}.rollout")


def _rule(value: object, path: str) -> Rule:
    data = mapping(value, path)
    no_unknown_keys(data, ("name", "match", "action"), path)
    if "action" not in data:
        raise ConfigError(f"{path}.action", "missing; expected drop, or one of sample, rate_limit, rollout")
    p = Problems()
    name = p.run(lambda: check_text(data["name"], f"{path}.name") if "name" in data else None)
    match = p.run(_match, data.get("match", {}), f"{path}.match")
    action = p.run(_action, data["action"], f"{path}.action")
    p.raise_if_any()
    return Rule(match or Match(), action or Drop(), name)


def parse_rules(value: object, path: str) -> tuple[Rule, ...]:
    if not isinstance(value, (list, tuple)):
        raise ConfigError(path, f"expected a list of rules, got {typed(value)}")
    p = Problems()
    rules = [p.run(_rule, v, f"{path}[{i}]") for i, v in enumerate(items(value, path))]
    p.raise_if_any()
    return tuple(r for r in rules if r is not None)


def _dump_pattern(p: Pattern | Value) -> object:
    if not isinstance(p, Pattern):
        return p
    return p.value if p.kind == "exact" else {p.kind: p.value}


def _dump_attributes(matches: tuple[AttributeMatch, ...]) -> dict[str, object]:
    out: dict[str, object] = {}
    for m in matches:
        values = [_dump_pattern(v) for v in m.values]
        excluded = {"excluded": [_dump_pattern(p) for p in m.excluded]} if m.excluded else {}
        out[m.key] = {"text": values, **excluded} if m.text else values
    return out


def _dump_action(action: Action) -> object:
    match action:
        case Drop():
            return "drop"
        case Sample(rate=rate):
            return {"sample": rate}
        case RateLimit(per_second=n):
            return {"rate_limit": n}
        case Rollout(steps=steps, start=start):
            out: dict[str, object] = {} if start is None else {"start": start.isoformat()}
            out["steps"] = [
                {"at": s.at.isoformat(), "rate": s.rate}
                if s.at is not None
                else {"after": f"{s.after_s!r}s", "rate": s.rate}
                for s in steps
            ]
            return {"rollout": out}
    raise TypeError(f"not an action: {action!r}")  # pragma: no cover - Rule validates


def dump_rule(rule: Rule) -> dict[str, object]:
    m = rule.match
    parts = {
        "span_name": [_dump_pattern(p) for p in m.span_name],
        "span_kind": list(m.span_kind),
        "attributes": _dump_attributes(m.attributes),
        "resource": _dump_attributes(m.resource),
    }
    out: dict[str, object] = {} if rule.name is None else {"name": rule.name}
    out["match"] = {key: value for key, value in parts.items() if value}
    out["action"] = _dump_action(rule.action)
    return out
