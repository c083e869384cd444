"""The randomness ``R`` and the consistent decision ``R >= T``.

``R`` is the parent's explicit ``rv`` when its tracestate carries a valid one, else the
trace ID's low 56 bits (its seven rightmost bytes, random under W3C Trace Context Level
2, which OpenTelemetry presumes). A span is sampled iff ``R >= T``.

The ``consistent`` hash scheme (:mod:`dsampler.hashing._schemes`) states the same rule
in the ``key < bound`` form every scheme there uses: ``key = 2**56 - 1 - R`` and
``bound = 2**56 - T``. Its ``key(hi, lo)`` sees only the trace ID; a decider that has
found an ``rv`` in the parent's tracestate (:func:`~dsampler.consistent.explicit_randomness`)
compares :func:`key_of_randomness` of it with the same bound instead.
"""

from __future__ import annotations

from typing import Final

from opentelemetry.trace import SpanContext

from dsampler.consistent._ot import parse_ot
from dsampler.consistent._threshold import MAX_THRESHOLD
from dsampler.consistent._tracestate import explicit_randomness, ot_of
from dsampler.hashing import MASK56

__all__ = [
    "RANDOMNESS_MASK",
    "bound_of_threshold",
    "consistent_sampled",
    "key_of_randomness",
    "parent_threshold",
    "randomness",
    "threshold_of_bound",
]

#: The 56 bits of randomness in a trace ID: ``R = trace_id & RANDOMNESS_MASK``.
RANDOMNESS_MASK: Final = MASK56


def randomness(trace_id: int, trace_state: object = None) -> int:
    """``R`` of a span: the valid ``rv`` of ``trace_state`` (the parent's), else the low
    56 bits of ``trace_id``."""
    explicit = explicit_randomness(trace_state)
    return trace_id & MASK56 if explicit is None else explicit


def consistent_sampled(trace_id: int, threshold: int, trace_state: object = None) -> bool:
    """The consistent decision: ``R >= T`` with ``R`` as :func:`randomness` finds it."""
    return randomness(trace_id, trace_state) >= threshold


def key_of_randomness(value: int) -> int:
    """The ``consistent`` scheme's key of a randomness value (``2**56 - 1 - R``): what a
    decider compares with the scheme's bound when the parent carries ``rv``."""
    return MASK56 - value


def bound_of_threshold(threshold: int) -> int:
    """The ``consistent`` scheme's bound of a threshold: ``2**56 - T``."""
    return MAX_THRESHOLD - threshold


def threshold_of_bound(bound: int) -> int:
    """The threshold of a ``consistent`` bound (``2**56 - bound``): the ``th`` a decision
    ``key < bound`` states."""
    return MAX_THRESHOLD - bound


def parent_threshold(parent: SpanContext) -> int | None:
    """The threshold a child may carry on from ``parent``: the parent's ``th`` when the
    parent is sampled and its ``th`` is consistent with the trace (``R >= th``, ``R`` from
    the parent's ``rv`` or the trace ID), else None (the child follows the sampled flag
    and carries no ``th``)."""
    if not parent.trace_flags.sampled:
        return None
    value = ot_of(parent.trace_state)
    parsed = None if value is None else parse_ot(value)
    if parsed is None or parsed.threshold is None:
        return None
    rv = parsed.randomness
    return parsed.threshold if (parent.trace_id & MASK56 if rv is None else rv) >= parsed.threshold else None
