"""The pieces every decision is made of: its shared results, the parent span context,
following the parent, the fault fallback, the token bucket, the rule language compiled
into predicates, and the tracker of operations first seen."""

import typing

from dsampler._lazy import attach as _attach

__all__ = [
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
    "Results",
    "TokenBucket",
    "current_context",
    "integer_value",
    "make_result",
    "span_context_of",
    "trace_state_of",
]

if typing.TYPE_CHECKING:
    from dsampler.decision._bucket import TokenBucket
    from dsampler.decision._children import CHILD_RESULTS, ChildResults
    from dsampler.decision._context import SPAN_KEY, current_context, span_context_of, trace_state_of
    from dsampler.decision._faults import FaultCountingSampler, FaultLog, integer_value
    from dsampler.decision._results import (
        DROP,
        DROPPED,
        EMPTY,
        RECORD_AND_SAMPLE,
        FrozenResult,
        Results,
        make_result,
    )

__getattr__, __dir__ = _attach(
    __name__,
    {
        "TokenBucket": "dsampler.decision._bucket",
        "SPAN_KEY": "dsampler.decision._context",
        "current_context": "dsampler.decision._context",
        "span_context_of": "dsampler.decision._context",
        "trace_state_of": "dsampler.decision._context",
        "FaultCountingSampler": "dsampler.decision._faults",
        "FaultLog": "dsampler.decision._faults",
        "integer_value": "dsampler.decision._faults",
        "CHILD_RESULTS": "dsampler.decision._children",
        "ChildResults": "dsampler.decision._children",
        "DROP": "dsampler.decision._results",
        "DROPPED": "dsampler.decision._results",
        "EMPTY": "dsampler.decision._results",
        "FrozenResult": "dsampler.decision._results",
        "RECORD_AND_SAMPLE": "dsampler.decision._results",
        "Results": "dsampler.decision._results",
        "make_result": "dsampler.decision._results",
    },
)
