"""The request path: one read of the current snapshot, then a decision under it, with
no lock, no I/O and no allocation in steady state.

Written inline on purpose (a Python call is a large share of a decision;
``benchmarks/request_path_callgrind.py`` counts each case): a snapshot of one rate is
decided here (the one inlined copy of :meth:`~dsampler.hashing.Ratio.key`), anything
else by :meth:`~dsampler.engine.Snapshot.decide_root`. Whatever goes wrong becomes a
fallback decision, never an exception.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from opentelemetry.context import Context
from opentelemetry.sdk.trace.sampling import SamplingResult
from opentelemetry.trace import Link, SpanKind
from opentelemetry.trace.span import DEFAULT_TRACE_STATE, TraceState
from opentelemetry.util.types import Attributes

from dsampler.config import ConfigStore
from dsampler.decision import (
    CHILD_DECISIONS,
    CHILD_RESULTS,
    DROPPED,
    SPAN_KEY,
    FaultCountingSampler,
    current_context,
    integer_value,
)
from dsampler.engine._counts import DEFAULT, KEPT, NOT_KEPT
from dsampler.engine._snapshot import Snapshot
from dsampler.hashing import MASK64, MASK128

_M64: Final = MASK64


class RequestPath(FaultCountingSampler):
    """``should_sample`` and ``explain`` over the store's current snapshot."""

    _store: ConfigStore[Snapshot]

    def should_sample(  # noqa: PLR0911 -- the request path, inline on purpose (module docstring)
        self,
        parent_context: Context | None,
        trace_id: int,
        name: str,
        kind: SpanKind | None = None,
        attributes: Attributes = None,
        links: Sequence[Link] | None = None,
        trace_state: TraceState | None = None,
    ) -> SamplingResult:
        snap = self._store.current  # the one read of the snapshot
        try:
            span, ts = (current_context() if parent_context is None else parent_context).get(SPAN_KEY), None
            if span is not None and (sc := span.get_span_context()).is_valid:  # type: ignore[attr-defined]
                if snap.parent_based:
                    case: int = 2 * sc.is_remote + (sc.trace_flags & 1)
                    if snap.parent_tally is not None:  # telemetry on (engine/_counts.py)
                        snap.parent_tally[case & 1] += 1
                    if not attributes and sc.trace_state is DEFAULT_TRACE_STATE:
                        return CHILD_RESULTS[case]
                    return snap.follow.of(case, CHILD_DECISIONS[case], attributes, sc.trace_state, trace_id)
                ts, trace_id = snap.parent_state(sc.trace_state, trace_id)  # decided as a root
            if not snap.simple and (decided := snap.decide_root(trace_id, name, kind, attributes, ts)):
                return decided
            d = snap.default  # Ratio.key, inlined: its one copy
            if (of_bytes := d.scheme.of_bytes) is not None:  # xxh3's C entry over the 16 bytes
                key = of_bytes((trace_id & MASK128).to_bytes(16, "big"))
            else:  # a masking scheme's low bits, else the scheme's key(hi, lo)
                key = trace_id & m if (m := d.mask) else d.scheme.key(trace_id >> 64 & _M64, trace_id & _M64)
            if (offered := snap.offered) is not None:  # the adaptive controller's count: one append
                offered.append(None)
            if snap.default_tally is not None:  # telemetry on (engine/_counts.py); not named: "off" pays
                snap.default_tally[KEPT if key < d.bound else NOT_KEPT] += 1  # an int index: a bool is slower
            if key >= d.bound:  # dropped; the key is kept for a sampled result's rv
                return DROPPED if ts is None else d.results.dropped(ts)
            if offered is not None and ((len(offered) > snap.fold_at and snap.fold()) or not snap.admit()):
                return snap.capped(DEFAULT, ts)
            return d.stated(key, attributes, ts) if d.keyed or attributes or ts else d.results.sampled
        except Exception:
            return self._fallback(snap, parent_context, trace_id, name, kind, attributes, links)

    def _fallback(
        self,
        snap: Snapshot,
        parent_context: Context | None,
        trace_id: object,
        name: str,
        kind: SpanKind | None,
        attributes: Attributes,
        links: Sequence[Link] | None,
    ) -> SamplingResult:
        """After an exception: numpy's integers are decided as the int they are; anything
        else is a fault, decided on the ID alone."""
        as_int = integer_value(trace_id)
        if as_int is not None:
            return self.should_sample(parent_context, as_int, name, kind, attributes, links)
        self._fault_log.record()
        return snap.default.on_trace_id(trace_id)

    def explain(
        self, trace_id: int, name: str, kind: SpanKind | None = None, attributes: Attributes = None
    ) -> dict[str, Any]:
        """How a root span would be decided now, without spending any token."""
        snap = self._store.current
        decider = snap.route(name, kind, attributes)
        return {"version": snap.config.version, "source": decider.source, **decider.explain(trace_id)}
