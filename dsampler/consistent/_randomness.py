"""The randomness ``R`` and the consistent decision ``R >= T``; the ``consistent`` hash
scheme states it as ``key = 2**56 - 1 - R`` below ``bound = 2**56 - T``."""

from __future__ import annotations

from typing import Final

from opentelemetry.trace import SpanContext

from dsampler.consistent._ot import parse_ot
from dsampler.consistent._threshold import MAX_THRESHOLD
from dsampler.consistent._tracestate import explicit_randomness, ot_of
from dsampler.hashing import MASK56

#: The 56 bits of randomness in a trace ID: ``R = trace_id & RANDOMNESS_MASK``.
RANDOMNESS_MASK: Final = MASK56


def randomness(trace_id: int, trace_state: object = None) -> int:
    """``R``: the valid ``rv`` of ``trace_state`` (the parent's), else ``trace_id``'s low 56 bits."""
    explicit = explicit_randomness(trace_state)
    return trace_id & MASK56 if explicit is None else explicit


def consistent_sampled(trace_id: int, threshold: int, trace_state: object = None) -> bool:
    """The consistent decision: ``R >= T`` with ``R`` as :func:`randomness` finds it."""
    return randomness(trace_id, trace_state) >= threshold


def key_of_randomness(value: int) -> int:
    """The ``consistent`` scheme's key of a randomness value: ``2**56 - 1 - R``."""
    return MASK56 - value


def bound_of_threshold(threshold: int) -> int:
    """The ``consistent`` scheme's bound of a threshold: ``2**56 - T``."""
    return MAX_THRESHOLD - threshold


def threshold_of_bound(bound: int) -> int:
    """The threshold of a ``consistent`` bound: ``2**56 - bound``."""
    return MAX_THRESHOLD - bound


def parent_threshold(parent: SpanContext) -> int | None:
    """The parent's ``th`` when the parent is sampled and ``R >= th``, else None (the child
    follows the sampled flag and carries no ``th``).
    """
    if not parent.trace_flags.sampled:
        return None
    parsed = parse_ot(ot_of(parent.trace_state))
    if parsed is None or parsed.threshold is None:
        return None
    rv = parsed.randomness
    return parsed.threshold if (parent.trace_id & MASK56 if rv is None else rv) >= parsed.threshold else None
