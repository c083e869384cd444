"""The keywords of the public constructors and ``update()``, as TypedDicts for
``**settings: Unpack[...]``, so ``DSampler(rulez=[])`` is a ``mypy`` error before it is a
:class:`~dsampler.ConfigError` at run time; ``tests/unit/config/test_keywords.py`` keeps
the keys equal to the fields.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypedDict

if TYPE_CHECKING:
    from dsampler.config._adaptive import AdaptiveSettings, HealthPolicy
    from dsampler.config._remote import RemoteSettings


class SettingsKeywords(TypedDict, total=False):
    """Top-level fields of a configuration, as the file writes them (``DSampler(...)``,
    ``DSampler.from_file(...)``, ``update(...)``); see ``docs/configuration.md``."""

    rate: float
    hash: str
    parent_based: bool
    record_version: bool
    sampler_tags: bool
    write_th: bool
    max_operations: int
    traces_per_second: float | None
    default_lower_bound_per_second: float
    operations: Mapping[str, float | Mapping[str, Any]]  # {name: rate} or {name: {rate: ...}}
    rules: Sequence[Mapping[str, Any]]
    adaptive: Mapping[str, Any] | AdaptiveSettings | None
    remote: Mapping[str, Any] | RemoteSettings | None


class AdaptiveKeywords(TypedDict, total=False):
    """Fields of :class:`~dsampler.config.AdaptiveSettings` but the target (the
    controller's first argument): ``AdaptiveController(50, window_s=5)``."""

    min_rate: float
    max_rate: float
    alpha: float
    beta: float
    window_s: float
    min_window_s: float
    max_window_s: float
    hysteresis: float
    p99_target_s: float
    health: HealthPolicy | None
    hard_cap_factor: float | None
    hard_cap_burst_s: float
    tick_s: float
    share: Literal["process", "host"]


class AdaptiveChanges(AdaptiveKeywords, total=False):
    """Every field of :class:`~dsampler.config.AdaptiveSettings`, the target included:
    ``controller.reconfigure(target_traces_per_second=80)``."""

    target_traces_per_second: float
