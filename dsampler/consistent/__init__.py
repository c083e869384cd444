"""OpenTelemetry's consistent probability sampling: ``th`` and ``rv`` in the ``ot``
tracestate entry, thresholds and adjusted counts, and composable samplers
(``composite_sampler(composable_traceid_ratio_based(0.1))`` is an OpenTelemetry
``Sampler``). See docs/consistent-sampling.md.
"""

from dsampler.consistent._composables import (
    composable_always_off,
    composable_always_on,
    composable_parent_threshold,
    composable_traceid_ratio_based,
)
from dsampler.consistent._composite import CompositeSampler, composite_sampler
from dsampler.consistent._follow import ThresholdChildren
from dsampler.consistent._intent import ComposableSampler, SamplingIntent
from dsampler.consistent._ot import ot_with_threshold, ot_without_threshold, parse_ot
from dsampler.consistent._predicates import (
    AllPredicate,
    AlwaysMatchPredicate,
    AttributePatternsPredicate,
    AttributeValuesPredicate,
    ParentPredicate,
    Predicate,
    SpanKindPredicate,
)
from dsampler.consistent._randomness import randomness
from dsampler.consistent._rules import composable_rule_based
from dsampler.consistent._stated import NOTHING, NOTHING_STATED, Statement, statement
from dsampler.consistent._stated_results import StatedResults
from dsampler.consistent._threshold import (
    MAX_THRESHOLD,
    adjusted_count,
    encode_th,
    ratio_to_threshold,
    threshold_to_probability,
)
from dsampler.consistent._tracestate import explicit_randomness, threshold_of

__all__ = [
    "MAX_THRESHOLD",
    "NOTHING",
    "NOTHING_STATED",
    "AllPredicate",
    "AlwaysMatchPredicate",
    "AttributePatternsPredicate",
    "AttributeValuesPredicate",
    "ComposableSampler",
    "CompositeSampler",
    "ParentPredicate",
    "Predicate",
    "SamplingIntent",
    "SpanKindPredicate",
    "StatedResults",
    "Statement",
    "ThresholdChildren",
    "adjusted_count",
    "composable_always_off",
    "composable_always_on",
    "composable_parent_threshold",
    "composable_rule_based",
    "composable_traceid_ratio_based",
    "composite_sampler",
    "encode_th",
    "explicit_randomness",
    "ot_with_threshold",
    "ot_without_threshold",
    "parse_ot",
    "randomness",
    "ratio_to_threshold",
    "statement",
    "threshold_of",
    "threshold_to_probability",
]
