"""Configuration: the frozen model, its parser and files, the versioned store with its
owners' overlays, reloads."""

import typing

from dsampler._lazy import attach as _attach

__all__ = [
    "AdaptiveSettings",
    "AttributeMatch",
    "Drop",
    "HealthPolicy",
    "Match",
    "OperationStrategy",
    "Overlay",
    "Pattern",
    "RateLimit",
    "RemoteSettings",
    "Rollout",
    "RolloutStep",
    "Rule",
    "Sample",
    "SamplingConfig",
    "load_config",
    "parse_config",
    "serialize",
]

if typing.TYPE_CHECKING:
    from dsampler.config._adaptive import AdaptiveSettings, HealthPolicy
    from dsampler.config._files import load_config
    from dsampler.config._model import OperationStrategy, SamplingConfig
    from dsampler.config._overlay import Overlay
    from dsampler.config._parse import parse_config
    from dsampler.config._remote import RemoteSettings
    from dsampler.config._rule import (
        AttributeMatch,
        Drop,
        Match,
        Pattern,
        RateLimit,
        Rollout,
        RolloutStep,
        Rule,
        Sample,
    )
    from dsampler.config._serialize import serialize

__getattr__, __dir__ = _attach(
    __name__,
    {
        "AdaptiveSettings": "dsampler.config._adaptive",
        "HealthPolicy": "dsampler.config._adaptive",
        "load_config": "dsampler.config._files",
        "OperationStrategy": "dsampler.config._model",
        "SamplingConfig": "dsampler.config._model",
        "parse_config": "dsampler.config._parse",
        "RemoteSettings": "dsampler.config._remote",
        "Overlay": "dsampler.config._overlay",
        "serialize": "dsampler.config._serialize",
        **dict.fromkeys(
            (
                "AttributeMatch",
                "Drop",
                "Match",
                "Pattern",
                "RateLimit",
                "Rollout",
                "RolloutStep",
                "Rule",
                "Sample",
            ),
            "dsampler.config._rule",
        ),
    },
)
