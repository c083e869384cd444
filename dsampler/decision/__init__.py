"""The pieces every decision is made of: its shared results, the parent span context,
following the parent, the fault fallback, the token bucket, the rule language compiled
into predicates, and the tracker of operations first seen."""

from dsampler.decision._bucket import TokenBucket
from dsampler.decision._children import CHILD_DECISIONS, CHILD_RESULTS, ChildResults
from dsampler.decision._context import (
    SPAN_KEY,
    current_context,
    parent_span_context,
    parent_trace_state,
    span_context_of,
    trace_state_of,
)
from dsampler.decision._faults import FaultCountingSampler, FaultLog, Guarded, integer_value
from dsampler.decision._match import Predicate, compile_match, compile_span
from dsampler.decision._results import (
    DROP,
    DROPPED,
    EMPTY,
    RECORD_AND_SAMPLE,
    FrozenResult,
    Results,
    make_result,
)
from dsampler.decision._tracked import Tracked

__all__ = [
    "CHILD_DECISIONS",
    "CHILD_RESULTS",
    "DROP",
    "DROPPED",
    "EMPTY",
    "RECORD_AND_SAMPLE",
    "SPAN_KEY",
    "ChildResults",
    "FaultCountingSampler",
    "FaultLog",
    "FrozenResult",
    "Guarded",
    "Predicate",
    "Results",
    "TokenBucket",
    "Tracked",
    "compile_match",
    "compile_span",
    "current_context",
    "integer_value",
    "make_result",
    "parent_span_context",
    "parent_trace_state",
    "span_context_of",
    "trace_state_of",
]
