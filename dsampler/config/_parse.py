"""Mappings (from YAML, JSON, the API or the environment) -> the frozen model, and back
(:func:`serialize`).

Every problem names its field path (``rules[2].match.span_name``), what was expected and
what was found; all problems of a document are reported together. Unknown keys are
errors (a typo must not pass silently), with a suggestion when one is close.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Mapping
from typing import Any, Final

from dsampler._validate import MAX_TEXT, check_rate, check_text, show, typed
from dsampler.config._adaptive import dump_adaptive, parse_adaptive
from dsampler.config._model import FIELD_CHECKS, OperationStrategy, SamplingConfig, _Operations
from dsampler.config._parse_rules import dump_rule, parse_rules
from dsampler.config._remote import dump_remote, parse_remote
from dsampler.config._shape import MAX_ITEMS, Problems, build, mapping, no_unknown_keys
from dsampler.errors import ConfigError


def _operation(value: object, path: str) -> OperationStrategy:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return OperationStrategy(check_rate(value, path))
    data = mapping(value, path)
    no_unknown_keys(data, ("rate", "lower_bound_per_second"), path)
    if "rate" not in data:
        raise ConfigError(f"{path}.rate", "missing; expected a number in [0, 1]")
    return build(path, OperationStrategy, data["rate"], data.get("lower_bound_per_second"))


def _operations(value: object, path: str) -> _Operations:
    """The operations as the model holds them; an entry equal to one checked already
    (same types, same values) shares its strategy, unchecked again."""
    data = mapping(value, path)
    if len(data) > MAX_ITEMS:
        raise ConfigError(path, f"expected at most {MAX_ITEMS} operations, got {len(data)}")
    p = Problems()
    out: dict[str, OperationStrategy] = {}
    known: dict[Hashable, OperationStrategy] = {}
    for name, raw in data.items():
        if len(name) > MAX_TEXT:  # raises, naming the section (as it always has)
            check_text(name, path)
        key = _entry_key(raw)
        strategy = known.get(key) if key is not None else None
        if strategy is None:
            strategy = p.run(_operation, raw, f"{path}[{show(name, 40)}]")
            if strategy is not None and key is not None:
                known[key] = strategy
        if strategy is not None:
            out[name] = strategy
    p.raise_if_any()
    return _Operations(out)


def _entry_key(raw: object) -> Hashable | None:
    """An operation entry's key, types included, if it is a number or a mapping of
    numbers ``{rate[, lower_bound_per_second]}``; else None."""
    if type(raw) is dict:
        if "rate" not in raw or len(raw) != (2 if "lower_bound_per_second" in raw else 1):
            return None
        rate, bound = raw["rate"], raw.get("lower_bound_per_second")
        if type(rate) in _NUMBERS and type(bound) in _BOUNDS:
            return (type(rate), rate, type(bound), bound)
        return None
    return (type(raw), raw) if type(raw) in _NUMBERS else None


_NUMBERS: Final = (float, int)
_BOUNDS: Final = (float, int, type(None))


_SECTIONS: Final[dict[str, Callable[[Any, str], Any]]] = {
    "operations": _operations,
    "rules": parse_rules,
    "adaptive": parse_adaptive,
    "remote": parse_remote,
}
#: Fields whose file form is the model's value, checked by the model's own check.
SCALARS: Final = {name: check for name, check in FIELD_CHECKS.items() if name not in (*_SECTIONS, "version")}
#: The file's top-level keys: SamplingConfig's fields but the version.
FIELDS: Final = (*SCALARS, *_SECTIONS)


def _field(key: str, value: object) -> Any:
    check = SCALARS.get(key)
    return _SECTIONS[key](value, key) if check is None else check(value)


def parse_fields(data: Mapping[str, Any]) -> dict[str, Any]:
    """Validate some top-level fields (all problems at once); unknown keys are errors."""
    if type(data) is dict and len(data) == 1:  # update(rate=...): the frequent writer
        ((key, value),) = data.items()
        check = SCALARS.get(key)
        if check is not None:
            try:
                return {key: check(value)}
            except ConfigError:
                pass  # the whole path below names it, as it names every problem
    p = Problems()
    p.run(no_unknown_keys, mapping(data, "config"), FIELDS, "")
    values = {key: p.run(_field, key, value) for key, value in data.items() if key in FIELDS}
    p.raise_if_any()
    return values


def parse_config(data: Mapping[str, Any], base: SamplingConfig | None = None) -> SamplingConfig:
    """A mapping in the configuration-file format -> a validated :class:`SamplingConfig`.

    Fields absent from ``data`` keep their value in ``base`` (default: the defaults).

    Raises:
        ConfigError: every problem found, each naming its field path.
    """
    values = parse_fields(data)
    config: SamplingConfig = build("", dataclasses.replace, base or SamplingConfig(), **values)
    return config


def as_config(config: SamplingConfig | Mapping[str, Any] | None) -> SamplingConfig:
    """What a sampler takes as its configuration: a :class:`SamplingConfig`, a mapping
    in the file format, or None for the defaults.

    Raises:
        ConfigError: anything else, or a mapping with problems (every one named).
    """
    if config is None:
        return SamplingConfig()
    if isinstance(config, SamplingConfig):
        return config
    if isinstance(config, Mapping):
        return parse_config(config)
    raise ConfigError("config", f"expected a SamplingConfig, a mapping or None, got {typed(config)}")


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
        "rules": [dump_rule(r) for r in config.rules],
        "adaptive": dump_adaptive(config.adaptive),
        "remote": dump_remote(config.remote),
    }
