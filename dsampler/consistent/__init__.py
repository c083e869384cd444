"""OpenTelemetry's consistent probability sampling: ``th`` and ``rv`` in the ``ot``
tracestate entry, thresholds and adjusted counts, and composable samplers
(``composite_sampler(composable_traceid_ratio_based(0.1))`` is an OpenTelemetry
``Sampler``). See docs/consistent-sampling.md.
"""

import typing

from dsampler._lazy import attach as _attach

__all__ = [
    "HALF_EVEN",
    "HALF_UP",
    "INVALID_THRESHOLD",
    "MAX_OT_LENGTH",
    "MAX_THRESHOLD",
    "MIN_THRESHOLD",
    "NON_SAMPLING",
    "OT_KEY",
    "RANDOMNESS_MASK",
    "AllPredicate",
    "AlwaysMatchPredicate",
    "AttributePatternsPredicate",
    "AttributeValuesPredicate",
    "ComposableSampler",
    "CompositeSampler",
    "IntentLike",
    "OtValue",
    "ParentPredicate",
    "Predicate",
    "SamplingIntent",
    "SpanKindPredicate",
    "adjusted_count",
    "bound_of_threshold",
    "composable_always_off",
    "composable_always_on",
    "composable_parent_threshold",
    "composable_rule_based",
    "composable_traceid_ratio_based",
    "composite_sampler",
    "consistent_sampled",
    "decode_th",
    "encode_th",
    "explicit_randomness",
    "keep_trace_state",
    "key_of_randomness",
    "ot_of",
    "ot_with_threshold",
    "ot_without_threshold",
    "parent_threshold",
    "parse_ot",
    "randomness",
    "ratio_to_threshold",
    "threshold_of",
    "threshold_of_bound",
    "threshold_to_probability",
    "with_ot",
]

if typing.TYPE_CHECKING:
    from dsampler.consistent._composables import (
        composable_always_off,
        composable_always_on,
        composable_parent_threshold,
        composable_traceid_ratio_based,
    )
    from dsampler.consistent._composite import CompositeSampler, composite_sampler
    from dsampler.consistent._intent import (
        NON_SAMPLING,
        ComposableSampler,
        IntentLike,
        SamplingIntent,
        keep_trace_state,
    )
    from dsampler.consistent._ot import (
        MAX_OT_LENGTH,
        OT_KEY,
        OtValue,
        ot_with_threshold,
        ot_without_threshold,
        parse_ot,
    )
    from dsampler.consistent._predicates import (
        AllPredicate,
        AlwaysMatchPredicate,
        AttributePatternsPredicate,
        AttributeValuesPredicate,
        ParentPredicate,
        Predicate,
        SpanKindPredicate,
    )
    from dsampler.consistent._randomness import (
        RANDOMNESS_MASK,
        bound_of_threshold,
        consistent_sampled,
        key_of_randomness,
        parent_threshold,
        randomness,
        threshold_of_bound,
    )
    from dsampler.consistent._rules import composable_rule_based
    from dsampler.consistent._threshold import (
        HALF_EVEN,
        HALF_UP,
        INVALID_THRESHOLD,
        MAX_THRESHOLD,
        MIN_THRESHOLD,
        adjusted_count,
        decode_th,
        encode_th,
        ratio_to_threshold,
        threshold_to_probability,
    )
    from dsampler.consistent._tracestate import explicit_randomness, ot_of, threshold_of, with_ot

_P = "dsampler.consistent."
__getattr__, __dir__ = _attach(
    __name__,
    {
        **dict.fromkeys(
            (
                "composable_always_off",
                "composable_always_on",
                "composable_parent_threshold",
                "composable_traceid_ratio_based",
            ),
            _P + "_composables",
        ),
        **dict.fromkeys(("CompositeSampler", "composite_sampler"), _P + "_composite"),
        **dict.fromkeys(
            ("NON_SAMPLING", "ComposableSampler", "IntentLike", "SamplingIntent", "keep_trace_state"),
            _P + "_intent",
        ),
        **dict.fromkeys(
            ("MAX_OT_LENGTH", "OT_KEY", "OtValue", "ot_with_threshold", "ot_without_threshold", "parse_ot"),
            _P + "_ot",
        ),
        **dict.fromkeys(
            (
                "AllPredicate",
                "AlwaysMatchPredicate",
                "AttributePatternsPredicate",
                "AttributeValuesPredicate",
                "ParentPredicate",
                "Predicate",
                "SpanKindPredicate",
            ),
            _P + "_predicates",
        ),
        **dict.fromkeys(
            (
                "RANDOMNESS_MASK",
                "bound_of_threshold",
                "consistent_sampled",
                "key_of_randomness",
                "parent_threshold",
                "randomness",
                "threshold_of_bound",
            ),
            _P + "_randomness",
        ),
        "composable_rule_based": _P + "_rules",
        **dict.fromkeys(
            (
                "HALF_EVEN",
                "HALF_UP",
                "INVALID_THRESHOLD",
                "MAX_THRESHOLD",
                "MIN_THRESHOLD",
                "adjusted_count",
                "decode_th",
                "encode_th",
                "ratio_to_threshold",
                "threshold_to_probability",
            ),
            _P + "_threshold",
        ),
        **dict.fromkeys(("explicit_randomness", "ot_of", "threshold_of", "with_ot"), _P + "_tracestate"),
    },
)
