"""What a configuration put in force does that its reader should be told: what changed
from the one before, and what can cut traces when children do not follow their parent."""

from __future__ import annotations

import logging

from dsampler.config._model import SamplingConfig
from dsampler.config._parse import SCALARS, serialize
from dsampler.config._rule import Sample

_log = logging.getLogger("dsampler.config")
#: The files (by absolute path) whose configuration was said to cut traces: once each.
_CUTS_TOLD: set[str] = set()


def change_text(old: SamplingConfig, new: SamplingConfig) -> str:
    """The fields that differ, in the file's words: ``rate 0.1 -> 0.05, rules``
    (a scalar with its two values, a section or list by its name); empty if none."""
    before, after = serialize(old), serialize(new)
    changed = []
    for key, value in after.items():
        was = before[key]
        if was == value:
            continue
        if key in SCALARS:
            changed.append(f"{key} {_shown(was)} -> {_shown(value)}")
        else:
            changed.append(key)
    return ", ".join(changed)


def _shown(value: object) -> str:
    """A scalar as the file writes it: ``true``, ``null``, ``0.05``."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    return f"{value:g}" if isinstance(value, float) else str(value)


def trace_cuts(config: SamplingConfig) -> str | None:
    """What in ``config`` decides a span by more than its trace ID and the one default
    rate, when ``parent_based`` is false (so spans of one trace may be decided
    differently: a child lost, or exported without its root); None when nothing can."""
    if config.parent_based:
        return None
    rate, operations = config.rate, config.operations.values()
    cuts = {
        "rules": any(not (isinstance(r.action, Sample) and r.action.rate == rate) for r in config.rules),
        "per-operation rates": any(s.rate != rate or s.lower_bound_per_second for s in operations),
        "a lower bound per operation": config.default_lower_bound_per_second > 0,
        "a traces-per-second cap": config.traces_per_second is not None,
        "an adaptive rate": config.adaptive is not None,
        "a remote endpoint's strategies": config.remote is not None,
    }
    found = [text for text, present in cuts.items() if present]
    if not found:
        return None
    return found[0] if len(found) == 1 else f"{', '.join(found[:-1])} and {found[-1]}"


def tell_cuts(path: str, config: SamplingConfig) -> None:
    """Say at WARNING, once per file, that the configuration ``path`` put in force can
    cut traces (:func:`~dsampler.config._effects.trace_cuts`), and how to keep them whole."""
    cuts = trace_cuts(config)
    if cuts is None or path in _CUTS_TOLD:
        return
    _CUTS_TOLD.add(path)
    _log.warning(
        "dsampler: %s: parent_based is false and it has %s: every span is decided by its "
        "own name and attributes, not by its parent's decision, so traces can lose spans "
        "(children of sampled roots dropped, children of dropped roots exported alone); "
        "write parent_based: true in %s to keep traces whole",
        path,
        cuts,
        path,
    )
