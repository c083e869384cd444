"""Configuration: the frozen model, its parser and files, the versioned store, reloads."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from dsampler.config.model import (
    AttributeMatch,
    Drop,
    Match,
    OperationStrategy,
    Pattern,
    RateLimit,
    Rollout,
    RolloutStep,
    Rule,
    Sample,
    SamplingConfig,
)
from dsampler.config.parse import parse_config, serialize
from dsampler.config.watch import read_config_file

__all__ = [
    "AttributeMatch",
    "Drop",
    "Match",
    "OperationStrategy",
    "Pattern",
    "RateLimit",
    "Rollout",
    "RolloutStep",
    "Rule",
    "Sample",
    "SamplingConfig",
    "load_config",
    "serialize",
]


def load_config(source: str | os.PathLike[str] | Mapping[str, Any]) -> SamplingConfig:
    """A validated :class:`SamplingConfig` from a YAML/JSON file path or a mapping.

    Raises:
        ConfigError: every problem found, each naming its field (or the file).
    """
    if isinstance(source, Mapping):
        return parse_config(source)
    config, _ = read_config_file(source)
    return config
