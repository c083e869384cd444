"""The canonical file form of a configuration: ``parse_config(serialize(c)) == c``."""

from __future__ import annotations

from typing import Any

from dsampler.config._adaptive import dump_adaptive
from dsampler.config._model import SamplingConfig
from dsampler.config._parse import SCALARS
from dsampler.config._remote import dump_remote
from dsampler.config._rule import (
    Action,
    AttributeMatch,
    Drop,
    Pattern,
    RateLimit,
    Rollout,
    Rule,
    Sample,
    Value,
)


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


def _dump_rule(rule: Rule) -> dict[str, object]:
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


def serialize(config: SamplingConfig) -> dict[str, Any]:
    """The canonical file form of ``config`` (JSON- and YAML-safe); ``version`` is left
    out because versions belong to the store that publishes a configuration."""
    return {
        **{name: getattr(config, name) for name in SCALARS},  # the file writes the model's value
        "operations": {
            name: {"rate": s.rate}
            if s.lower_bound_per_second is None
            else {"rate": s.rate, "lower_bound_per_second": s.lower_bound_per_second}
            for name, s in config.operations.items()
        },
        "rules": [_dump_rule(r) for r in config.rules],
        "adaptive": dump_adaptive(config.adaptive),
        "remote": dump_remote(config.remote),
    }
