"""The ``ot`` entry of a W3C tracestate: read ``th`` and ``rv``, set or remove the entry."""

from __future__ import annotations

from typing import Final

from opentelemetry.trace.span import TraceState

from dsampler.consistent._ot import OT_KEY, parse_ot

#: W3C's limit on tracestate members; OpenTelemetry refuses to add a 33rd.
MAX_ENTRIES: Final = 32
#: A tracestate no span has: the initial key of the memos keyed by a parent's tracestate.
UNSET: Final = TraceState()


def ot_of(trace_state: object) -> str | None:
    """The ``ot`` value of a tracestate, None when there is none."""
    if trace_state is None or not isinstance(trace_state, TraceState):
        return None
    value = ot_entry(trace_state)
    return value if isinstance(value, str) else None


def ot_entry(trace_state: TraceState) -> str | None:
    """``trace_state``'s ``ot`` value, None when it has none (``get`` would raise inside)."""
    return trace_state[OT_KEY] if OT_KEY in trace_state else None  # noqa: SIM401 - see above


def explicit_randomness(trace_state: object) -> int | None:
    """The parent's valid ``rv``, None when none (``R`` is then the trace ID's low 56 bits)."""
    parsed = parse_ot(ot_of(trace_state))
    return None if parsed is None else parsed.randomness


def threshold_of(trace_state: object) -> int | None:
    """The valid ``th`` a span's tracestate states, None when none (adjusted count unknown)."""
    parsed = parse_ot(ot_of(trace_state))
    return None if parsed is None else parsed.threshold


def with_ot(trace_state: TraceState | None, value: str | None) -> TraceState | None:
    """``trace_state`` with its ``ot`` entry set to ``value`` (None or ``""``: removed), moved to
    the front as W3C asks. ``trace_state`` itself when that changes nothing or a new entry
    would be the 33rd (the caller's ``th`` then stays unwritten).
    """
    if trace_state is None:
        return TraceState(((OT_KEY, value),)) if value else None
    current = ot_entry(trace_state)
    if value == current or (not value and current is None):
        return trace_state
    if not value:
        return trace_state.delete(OT_KEY)
    if current is None and len(trace_state) >= MAX_ENTRIES:
        return trace_state
    return trace_state.update(OT_KEY, value)
