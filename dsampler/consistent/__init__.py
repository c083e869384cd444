"""OpenTelemetry's consistent probability sampling: ``th`` and ``rv`` in the ``ot``
tracestate entry, thresholds and adjusted counts, and composable samplers.

A consistent decision keeps a span iff its randomness ``R`` (the parent's ``rv``, else
the trace ID's low 56 bits) is at least the threshold ``T`` of its probability, and a
sampled span says so with ``ot=th:T``: every service that samples a trace at a
probability at least as high keeps it too, in any language, and a backend counts each
sampled span ``1/p`` times. See docs/consistent-sampling.md.
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
    "OT_KEY",
    "RANDOMNESS_MASK",
    "OtValue",
    "adjusted_count",
    "bound_of_threshold",
    "consistent_sampled",
    "decode_th",
    "encode_th",
    "explicit_randomness",
    "key_of_randomness",
    "ot_of",
    "ot_with_threshold",
    "ot_without_threshold",
    "parse_ot",
    "randomness",
    "ratio_to_threshold",
    "threshold_of",
    "threshold_of_bound",
    "threshold_to_probability",
    "with_ot",
]

if typing.TYPE_CHECKING:
    from dsampler.consistent._ot import (
        MAX_OT_LENGTH,
        OT_KEY,
        OtValue,
        ot_with_threshold,
        ot_without_threshold,
        parse_ot,
    )
    from dsampler.consistent._randomness import (
        RANDOMNESS_MASK,
        bound_of_threshold,
        consistent_sampled,
        key_of_randomness,
        randomness,
        threshold_of_bound,
    )
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
            ("MAX_OT_LENGTH", "OT_KEY", "OtValue", "ot_with_threshold", "ot_without_threshold", "parse_ot"),
            _P + "_ot",
        ),
        **dict.fromkeys(
            (
                "RANDOMNESS_MASK",
                "bound_of_threshold",
                "consistent_sampled",
                "key_of_randomness",
                "randomness",
                "threshold_of_bound",
            ),
            _P + "_randomness",
        ),
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
