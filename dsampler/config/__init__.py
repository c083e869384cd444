"""Configuration: the frozen model, its parser and files, the versioned store, reloads."""

from dsampler.config.files import load_config
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
    "parse_config",
    "serialize",
]
