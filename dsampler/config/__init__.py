"""Configuration: the frozen model, its parser and files, the versioned store with its
owners' overlays, reloads."""

from dsampler.config._adaptive import AdaptiveSettings, HealthPolicy, parse_adaptive, settings_with
from dsampler.config._files import (
    MAX_FILE_BYTES,
    describe,
    load_config,
    load_document,
    locate,
    parse_config_bytes,
    read_bytes,
    with_lines,
)
from dsampler.config._keywords import AdaptiveChanges, AdaptiveKeywords, SettingsKeywords
from dsampler.config._model import DEFAULT_RATE, FIELD_CHECKS, OperationStrategy, SamplingConfig
from dsampler.config._parse import as_config, parse_config, parse_fields, serialize
from dsampler.config._remote import RemoteSettings, service_name
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
    Rule,
    Sample,
)
from dsampler.config._shape import (
    MAX_ARG_CHARS,
    build,
    key_values,
    mapping,
    no_unknown_keys,
    parse_duration,
    parse_rate,
)
from dsampler.config._store import DEFAULT_HISTORY, ConfigStore, Overlay, differences
from dsampler.config._watch import Changes, FileWatcher, Watched, read_at_start
from dsampler.config._yaml import compose_yaml

__all__ = [
    "ANY_TEXT",
    "DEFAULT_HISTORY",
    "DEFAULT_RATE",
    "FIELD_CHECKS",
    "KINDS",
    "MAX_ARG_CHARS",
    "MAX_FILE_BYTES",
    "Action",
    "AdaptiveChanges",
    "AdaptiveKeywords",
    "AdaptiveSettings",
    "AttributeMatch",
    "Changes",
    "ConfigStore",
    "Drop",
    "FileWatcher",
    "HealthPolicy",
    "Match",
    "OperationStrategy",
    "Overlay",
    "Pattern",
    "RateLimit",
    "RemoteSettings",
    "Rollout",
    "Rule",
    "Sample",
    "SamplingConfig",
    "SettingsKeywords",
    "Watched",
    "as_config",
    "build",
    "compose_yaml",
    "describe",
    "differences",
    "key_values",
    "load_config",
    "load_document",
    "locate",
    "mapping",
    "no_unknown_keys",
    "parse_adaptive",
    "parse_config",
    "parse_config_bytes",
    "parse_duration",
    "parse_fields",
    "parse_rate",
    "read_at_start",
    "read_bytes",
    "serialize",
    "service_name",
    "settings_with",
    "with_lines",
]
